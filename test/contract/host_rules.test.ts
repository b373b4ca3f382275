/**
 * The rule cases every host runs (test/contract/cases.json, from
 * gen_cases.mjs), here against the TypeScript API in whichever runtime
 * vitest runs in (Bun, Deno, Node.js); bindings/python/tests/test_contract.py
 * runs the same file against the Python extension. Each case holds in every
 * host: the default padding length, a plaintext given as parts, the lengths
 * of a received packet rejected before decrypting, and the argument
 * messages in TgCrypto's order; the contexts' chunks (an empty chunk is an
 * empty result) and rules.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import {
  AuthKey,
  cbc256Decrypt,
  cbc256Encrypt,
  CbcContext,
  ctr256Decrypt,
  ctr256Encrypt,
  CtrContext,
  ige256Decrypt,
  ige256Encrypt,
  IgeContext,
  MtprotoSecurityError,
} from "../../ts/mod.ts";

interface Cases {
  auth_key: string;
  default_padding: { plaintext_length: number; padding_length: number }[];
  parts: { name: string; parts: string[]; server: boolean; padding: string; packet: string }[];
  encrypt_errors: { name: string; parts: string[]; padding?: string; message: string }[];
  decrypt: { name: string; packet: string; server?: boolean; plaintext: string | null }[];
  aes: { name: string; fn: string; data: string; key: string; iv: string; state?: string; out?: string; message?: string }[];
  contexts: {
    name: string;
    kind: "ctr" | "ige" | "cbc";
    key: string;
    iv: string;
    state?: number;
    chunks: string[];
    out?: string[];
    message?: string;
  }[];
}

const cases = JSON.parse(readFileSync(new URL("./cases.json", import.meta.url), "utf8")) as Cases;
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, "hex"));
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const key = new AuthKey(bytes(cases.auth_key));

/** A plaintext of `length` bytes whose message_data_length says length - 32 (so it decrypts again). */
function message(length: number): Uint8Array {
  const p = new Uint8Array(length).fill(0x5a);
  new DataView(p.buffer).setUint32(28, length - 32, true);
  return p;
}

describe("default padding: the shortest valid length", () => {
  test.each(cases.default_padding)("$plaintext_length bytes: $padding_length of padding", (c) => {
    const plaintext = message(c.plaintext_length);
    const packet = key.encryptMessage(plaintext, { server: true });
    expect(packet.length).toBe(24 + c.plaintext_length + c.padding_length);
    if ((c.plaintext_length - 32) % 4 === 0) expect(hex(key.decryptMessage(packet))).toBe(hex(plaintext));
  });
});

describe("a plaintext in parts encrypts as their concatenation", () => {
  test.each(cases.parts)("$name", (c) => {
    const packet = key.encryptMessage(c.parts.map(bytes), { server: c.server, padding: bytes(c.padding) });
    expect(hex(packet)).toBe(c.packet);
  });
});

describe("encrypt: argument messages", () => {
  test.each(cases.encrypt_errors)("$name", (c) => {
    const options = c.padding === undefined ? {} : { padding: bytes(c.padding) };
    expect(() => key.encryptMessage(c.parts.map(bytes), options)).toThrow(new RangeError(c.message));
  });
});

describe("decrypt: packet lengths and checks", () => {
  test.each(cases.decrypt)("$name", (c) => {
    const open = () => key.decryptMessage(bytes(c.packet), { server: c.server ?? false });
    if (c.plaintext === null) expect(open).toThrow(MtprotoSecurityError);
    else expect(hex(open())).toBe(c.plaintext);
  });
});

const AES: Record<string, (data: Uint8Array, key: Uint8Array, iv: Uint8Array, state: Uint8Array) => Uint8Array> = {
  ige256_encrypt: (d, k, iv) => ige256Encrypt(d, k, iv),
  ige256_decrypt: (d, k, iv) => ige256Decrypt(d, k, iv),
  cbc256_encrypt: (d, k, iv) => cbc256Encrypt(d, k, iv),
  cbc256_decrypt: (d, k, iv) => cbc256Decrypt(d, k, iv),
  ctr256_encrypt: (d, k, iv, s) => ctr256Encrypt(d, k, iv, s),
  ctr256_decrypt: (d, k, iv, s) => ctr256Decrypt(d, k, iv, s),
};

describe("TgCrypto's one-shot calls: known answers and rules in TgCrypto's order", () => {
  test.each(cases.aes)("$name", (c) => {
    const call = () => AES[c.fn]!(bytes(c.data), bytes(c.key), bytes(c.iv), bytes(c.state ?? "00"));
    if (c.message !== undefined) expect(call).toThrow(new RangeError(c.message));
    else expect(hex(call())).toBe(c.out);
  });
});

describe("contexts: chunks continue one stream, and the same rules", () => {
  test.each(cases.contexts)("$name", (c) => {
    const open = () =>
      c.kind === "ctr"
        ? new CtrContext(bytes(c.key), bytes(c.iv), c.state ?? 0)
        : c.kind === "ige"
        ? new IgeContext(bytes(c.key), bytes(c.iv))
        : new CbcContext(bytes(c.key), bytes(c.iv));
    const run = () => {
      const context = open();
      try {
        return c.chunks.map((chunk) => hex(context.update(bytes(chunk))));
      } finally {
        context.dispose();
      }
    };
    if (c.message !== undefined) expect(run).toThrow(new RangeError(c.message));
    else expect(run()).toEqual(c.out);
  });
});
