/**
 * installGramJS() inside the real GramJS (`telegram` 2.26.22, a pinned
 * devDependency): every patched function against GramJS's own stock code,
 * with the same random bytes fed to both (GramJS's Helpers.generateRandomBytes
 * is replaced by a seeded generator around each comparison).
 *
 * Stock results are computed with the patches uninstalled, patched results
 * with them installed; the two must be byte-for-byte equal.
 */
import { Buffer } from "node:buffer";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";

import { installGramJS, isGramJSInstalled, TESTED_GRAMJS_VERSION, uninstallGramJS } from "../../ts/clients/gramjs.ts";
import { AuthKey } from "../../ts/mod.ts";
import { gramjsModules } from "../helpers/clients.ts";
import { Prng } from "../helpers/prng.ts";
import { expectSame } from "../helpers/bytes.ts";

const require = createRequire(import.meta.url);
// deno-lint-ignore no-explicit-any
type Any = any;
const { telegram, Helpers, IGEModule, CTRModule, cryptoJs, Factorizator, MTProtoState, GramAuthKey } = gramjsModules();
const { ConnectionTCPObfuscated }: Any = require("telegram/network/connection/TCPObfuscated");
const { ConnectionTCPMTProxyAbridged }: Any = require("telegram/network/connection/TCPMTProxy");
const errors: Any = require("telegram/errors");
const bigInt: Any = require("big-integer");
const { Api } = telegram;
const { Logger } = telegram.extensions;

// Every function installGramJS may replace, as loaded (before any install).
const patchPoints: [Any, string][] = [
  [IGEModule, "IGE"],
  [CTRModule, "CTR"],
  [cryptoJs, "createCipheriv"],
  [cryptoJs, "createDecipheriv"],
  [Factorizator, "factorize"],
  [Helpers, "sha1"],
  [Helpers, "sha256"],
  [MTProtoState.prototype, "encryptMessageData"],
  [MTProtoState.prototype, "decryptMessageData"],
];
const original = patchPoints.map(([object, key]) => object[key]);
const stockRandom = Helpers.generateRandomBytes;

afterEach(() => {
  uninstallGramJS();
  Helpers.generateRandomBytes = stockRandom;
});
afterAll(() => {
  uninstallGramJS();
});

/** Runs `fn` with GramJS's random source replaced by a PRNG seeded with `seed`. */
async function withRandom<T>(seed: string, fn: () => T | Promise<T>): Promise<T> {
  const rng = new Prng(seed);
  Helpers.generateRandomBytes = (count: number) => Buffer.from(rng.bytes(count));
  try {
    return await fn();
  } finally {
    Helpers.generateRandomBytes = stockRandom;
  }
}

/** Runs `fn` once on stock GramJS and once patched, with the same random bytes; returns both results. */
async function stockAndNative<T>(seed: string, fn: () => T | Promise<T>): Promise<[T, T]> {
  uninstallGramJS();
  const stock = await withRandom(seed, fn);
  installGramJS();
  const native = await withRandom(seed, fn);
  uninstallGramJS();
  return [stock, native];
}

async function gramState(key: Uint8Array, rng: Prng, securityChecks = true): Promise<Any> {
  const authKey = new GramAuthKey();
  await authKey.setKey(Buffer.from(key));
  const state = new MTProtoState(authKey, new Logger("error"), securityChecks);
  state.salt = bigInt(Helpers.readBigIntFromBuffer(Buffer.from(rng.bytes(8)), true, true));
  return state;
}

/** The TL body of a server message: upload.file with `size` bytes (parses with GramJS's reader). */
function fileBody(rng: Prng, size: number): Buffer {
  return new Api.upload.File({ type: new Api.storage.FileUnknown(), mtime: rng.u32() >>> 1, bytes: Buffer.from(rng.bytes(size)) })
    .getBytes();
}

let messages = 0;

/** A server's plaintext: salt, session_id (the state's), msg_id, seq_no, length, body. */
function serverPlaintext(state: Any, rng: Prng, body: Buffer): Buffer {
  const header = Buffer.alloc(32);
  Helpers.toSignedLittleBuffer(state.salt, 8).copy(header, 0);
  Helpers.toSignedLittleBuffer(state.id, 8).copy(header, 8);
  header.writeUInt32LE(rng.u32(), 16);
  // Alternately negative and positive: GramJS reads msg_id as a signed long.
  header.writeUInt32LE(((rng.u32() >>> 1) | (++messages % 2 === 0 ? 0x80000000 : 0)) >>> 0, 20);
  header.writeInt32LE(rng.int(0, 1000) * 2 + 1, 24);
  header.writeInt32LE(body.length, 28);
  return Buffer.concat([header, body]);
}

/** A server-direction packet built from stock GramJS's own primitives (_calcKey, Helpers.sha256, IGE). */
async function stockServerPacket(state: Any, plaintext: Buffer, padding: Buffer): Promise<Buffer> {
  const key: Buffer = state.authKey.getKey();
  const data = Buffer.concat([plaintext, padding]);
  const msgKey = (await Helpers.sha256(Buffer.concat([key.slice(96, 128), data]))).slice(8, 24);
  const { iv, key: aesKey } = await state._calcKey(key, msgKey, false);
  const keyId = Helpers.readBufferFromBigInt(state.authKey.keyId, 8);
  return Buffer.concat([keyId, msgKey, new IGEModule.IGE(aesKey, iv).encryptIge(data)]);
}

const padLength = (length: number) => ((16 - ((length + 12) % 16)) % 16) + 12;

describe("installGramJS: finding telegram", () => {
  test("patches the telegram this application loads, and is idempotent", () => {
    expect(telegram.helpers).toBe(Helpers); // MTProtoState's padding source is this same object
    const info = installGramJS();
    expect(info.version).toBe(TESTED_GRAMJS_VERSION);
    expect(isGramJSInstalled()).toBe(true);
    const patched = patchPoints.map(([object, key]) => object[key]);
    patched.forEach((fn, i) => expect(fn).not.toBe(original[i]));
    installGramJS();
    installGramJS({ require });
    patchPoints.forEach(([object, key], i) => expect(object[key]).toBe(patched[i]));
  });

  test("uninstallGramJS restores every stock function exactly", () => {
    installGramJS();
    installGramJS();
    expect(uninstallGramJS()).toBe(1);
    patchPoints.forEach(([object, key], i) => expect(object[key]).toBe(original[i]));
    expect(isGramJSInstalled()).toBe(false);
    expect(uninstallGramJS()).toBe(0);
  });

  test("a missing or untested telegram is a clear error naming the tested version", () => {
    const missing = (id: string) => {
      throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
    };
    expect(() => installGramJS({ require: missing })).toThrow(/cannot load the "telegram" package.*telegram@2\.26\.22/);
    const old = (id: string) => id === "telegram/package.json" ? { version: "2.19.0" } : require(id);
    expect(() => installGramJS({ require: old })).toThrow(
      /telegram 2\.19\.0 is not supported: the patches are tested with telegram 2\.26\.22/,
    );
    expect(isGramJSInstalled()).toBe(false);
    patchPoints.forEach(([object, key], i) => expect(object[key]).toBe(original[i]));
    expect(() => installGramJS({ require: old, allowUntestedVersion: true })).not.toThrow();
    expect(isGramJSInstalled()).toBe(true);
  });

  test("resolveFrom: a directory without telegram in reach fails clearly (Bun: unless its auto-install cache has it)", () => {
    const dir = mkdtempSync(join(tmpdir(), "tgcrypto-gramjs-"));
    try {
      let found: string | null = null;
      try {
        found = createRequire(join(dir, "noop.js")).resolve("telegram/package.json");
      } catch { /* not resolvable from there: installGramJS must say so */ }
      if (found === null) {
        expect(() => installGramJS({ resolveFrom: dir + "/" })).toThrow(/cannot load the "telegram" package/);
      } else {
        // Bun resolves bare names from its global install cache when no node_modules is found (auto-install):
        // an application in that directory would load that copy. (Not installed here: loading a second
        // telegram into this process is not what this file tests.)
        expect(found).toMatch(/telegram[^/\\]*[/\\]package\.json$/);
        expect(found.startsWith(dir)).toBe(false);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("installGramJS: MTProtoState", () => {
  const sizes = [0, 4, 8, 12, 16, 60, 64, 100, 1024, 4096 + 4, 16384, 512 * 1024];

  test("encryptMessageData: byte-for-byte stock GramJS, same padding", async () => {
    const rng = new Prng("gramjs-encrypt");
    const key = rng.bytes(256);
    const lengths = [...sizes, ...Array.from({ length: 40 }, () => 4 * rng.int(0, 600))];
    using server = new AuthKey(key);
    for (const length of lengths) {
      // What MTProtoState.writeDataAsMessage produces: msg_id, seq_no, length, body.
      const data = Buffer.from(rng.bytes(16 + length));
      data.writeInt32LE(length, 12);
      const state = await gramState(key, rng);
      const [stock, native] = await stockAndNative(`pad-${length}`, () => state.encryptMessageData(data));
      expect(Buffer.isBuffer(native)).toBe(true);
      expect(native.length).toBe(24 + 32 + length + padLength(32 + length));
      expect(native.equals(stock)).toBe(true);
      // And it is a valid client message for this library's server side.
      const opened = server.decryptMessage(new Uint8Array(native), { server: true });
      expect(Buffer.from(opened.subarray(16)).equals(data)).toBe(true);
    }
  });

  test("decryptMessageData: stock and patched open each other's server messages to the same TLMessage", async () => {
    const rng = new Prng("gramjs-decrypt");
    const key = rng.bytes(256);
    using server = new AuthKey(key);
    for (const size of [0, 1, 16, 1000, 16384, 512 * 1024]) {
      const state = await gramState(key, rng);
      const plaintext = serverPlaintext(state, rng, fileBody(rng, size));
      const padding = Buffer.from(rng.bytes(padLength(plaintext.length) + 16 * rng.int(0, 3)));
      uninstallGramJS();
      const fromStock = await stockServerPacket(state, plaintext, padding); // stock GramJS primitives
      const fromNative = Buffer.from(server.encryptMessage(plaintext, { server: true, padding }));
      expect(fromNative.equals(fromStock)).toBe(true);
      const results: Any[] = [];
      for (const install of [false, true]) {
        for (const packet of [fromStock, fromNative]) {
          if (install) installGramJS();
          else uninstallGramJS();
          state.msgIds = [];
          results.push(await state.decryptMessageData(packet));
        }
      }
      uninstallGramJS();
      for (const message of results) {
        expect(message.constructor.name).toBe("TLMessage");
        expect(message.msgId.toString()).toBe(results[0].msgId.toString());
        expect(message.msgId.constructor).toBe(results[0].msgId.constructor); // the same big-integer class
        expect(message.msgId.equals(results[0].msgId)).toBe(true);
        expect(message.seqNo).toBe(results[0].seqNo);
        expect(message.obj.className).toBe("upload.File");
        expect(Buffer.from(message.obj.bytes).equals(Buffer.from(results[0].obj.bytes))).toBe(true);
        expect(message.obj.bytes.length).toBe(size);
      }
    }
  });

  test("tampered packets: GramJS's own errors (SecurityError / InvalidBufferError), duplicates rejected", async () => {
    const rng = new Prng("gramjs-tamper");
    const key = rng.bytes(256);
    using server = new AuthKey(key);
    const state = await gramState(key, rng);
    const plaintext = serverPlaintext(state, rng, fileBody(rng, 100));
    const packet = Buffer.from(server.encryptMessage(plaintext, { server: true }));
    const outcome = async (install: boolean, bytes: Buffer): Promise<string> => {
      if (install) installGramJS();
      else uninstallGramJS();
      state.msgIds = [];
      try {
        await state.decryptMessageData(bytes);
        return "accepted";
      } catch (error) {
        return `${(error as Error).constructor.name}: ${(error as Error).message}`;
      }
    };
    const tampered: Buffer[] = [];
    for (let bit = 0; bit < packet.length * 8; bit += 7) {
      const copy = Buffer.from(packet);
      copy[bit >> 3]! ^= 1 << (bit & 7);
      tampered.push(copy);
    }
    tampered.push(packet.subarray(0, 4), packet.subarray(0, 8), packet.subarray(0, packet.length - 16));
    tampered.push(Buffer.concat([packet, Buffer.alloc(16)]));
    let security = 0;
    for (const bytes of tampered) {
      const [stock, native] = [await outcome(false, bytes), await outcome(true, bytes)];
      expect(native).toBe(stock);
      expect(native).toMatch(/^(SecurityError|InvalidBufferError): /);
      if (native.startsWith("SecurityError")) security++;
    }
    expect(security).toBeGreaterThan(tampered.length - 3);
    // Bad message_data_length under a valid msg_key (only a key holder can make one): the native layer rejects it.
    const badLength = Buffer.from(plaintext);
    badLength.writeInt32LE(plaintext.length, 28);
    const forged = Buffer.from(server.encryptMessage(badLength, { server: true }));
    expect(await outcome(true, forged)).toBe("SecurityError: Received msg_key doesn't match with expected one");
    // The same message twice: GramJS's duplicate msg_id check, kept.
    installGramJS();
    state.msgIds = [];
    await state.decryptMessageData(packet);
    await expect(state.decryptMessageData(packet)).rejects.toThrow(errors.SecurityError);
    await expect(state.decryptMessageData(packet)).rejects.toThrow("Duplicate msgIds");
    state.securityChecks = false;
    await state.decryptMessageData(packet);
  });

  test("a replaced auth key (AuthKey.setKey) is picked up", async () => {
    const rng = new Prng("gramjs-rekey");
    installGramJS();
    const state = await gramState(rng.bytes(256), rng);
    const data = Buffer.from(rng.bytes(64));
    data.writeInt32LE(48, 12); // message_data_length
    await state.encryptMessageData(data);
    const newKey = rng.bytes(256);
    await state.authKey.setKey(Buffer.from(newKey));
    const packet = await withRandom("rekey", () => state.encryptMessageData(data));
    const [stock] = await stockAndNative("rekey", () => state.encryptMessageData(data));
    expect(packet.equals(stock)).toBe(true);
    using server = new AuthKey(newKey);
    expect(server.decryptMessage(new Uint8Array(packet), { server: true }).length).toBe(32 + 48);
  });
});

describe("installGramJS: MTProtoState over every data length (0..320 bytes)", () => {
  const LENGTHS = Array.from({ length: 321 }, (_, i) => i);
  // GramJS's TypeNotFoundError calls alert() where one exists; Bun's and Deno's wait for Enter on stdin. Random
  // message bodies raise it (stock and patched alike), so alert is taken away while these run.
  beforeAll(() => {
    vi.stubGlobal("alert", undefined);
  });
  afterAll(() => {
    vi.unstubAllGlobals();
  });

  /** What a call did: its result, or its error's class and message. */
  async function outcome(fn: () => Promise<Any>): Promise<string> {
    try {
      const result = await fn();
      if (Buffer.isBuffer(result)) return `Buffer ${result.toString("hex")}`;
      return `TLMessage ${result.msgId} ${result.seqNo} ${result.obj?.className} ${Buffer.from(result.obj?.getBytes?.() ?? []).toString("hex")}`;
    } catch (error) {
      return `${(error as Error).constructor.name}: ${(error as Error).message}`;
    }
  }

  test("regression: encryptMessageData of 0..15 bytes is stock GramJS's packet (was RangeError: Plaintext must be at least 32 bytes)", async () => {
    const rng = new Prng("gramjs-short");
    const state = await gramState(rng.bytes(256), rng);
    for (let length = 0; length < 16; length++) {
      const data = Buffer.from(rng.bytes(length));
      const [stock, native] = await stockAndNative(`short-${length}`, () => outcome(() => state.encryptMessageData(data)));
      expect(stock).toMatch(/^Buffer /);
      expect(native, `${length} bytes`).toBe(stock);
    }
  });

  test("encryptMessageData: the same bytes as stock for every length, the same errors", async () => {
    const rng = new Prng("gramjs-every-length");
    const key = rng.bytes(256);
    const state = await gramState(key, rng);
    using server = new AuthKey(key);
    for (const length of LENGTHS) {
      const data = Buffer.from(rng.bytes(length));
      const message = length >= 16 && length % 4 === 0;
      if (message) data.writeInt32LE(length - 16, 12); // msg_id, seq_no, length, body
      const [stock, native] = await stockAndNative(`len-${length}`, () => outcome(() => state.encryptMessageData(data)));
      expect(native, `${length} bytes`).toBe(stock);
      expect(native.length).toBe("Buffer ".length + 2 * (24 + 16 + length + padLength(16 + length)));
      if (message) {
        // A whole message: this library's server side opens it.
        const packet = new Uint8Array(Buffer.from(native.slice("Buffer ".length), "hex"));
        expect(server.decryptMessage(packet, { server: true }).length).toBeGreaterThanOrEqual(32);
      }
    }
    // GramJS's own errors, in its order: no auth key, no salt.
    const noSalt = await gramState(key, rng);
    noSalt.salt = undefined;
    const noKey = await gramState(key, rng);
    noKey.authKey = undefined;
    for (const broken of [noSalt, noKey]) {
      const [stock, native] = await stockAndNative("broken", () => outcome(() => broken.encryptMessageData(Buffer.alloc(20))));
      expect(stock).toMatch(/^Error: (Unset params|Auth key unset)$/);
      expect(native).toBe(stock);
    }
  });

  test("decryptMessageData: the same TLMessage or error as stock for every length; stricter only where the security guidelines reject", async () => {
    const rng = new Prng("gramjs-every-length-decrypt");
    const key = rng.bytes(256);
    const state = await gramState(key, rng);
    let same = 0, parsed = 0, stricter = 0;
    for (const length of LENGTHS) {
      for (const shape of ["message", "random"] as const) {
        // data: what follows salt and session_id. "message": msg_id, seq_no, length and a body that is an
        // upload.file when its length allows; "random": any bytes (the length field among them).
        const data = Buffer.from(rng.bytes(length));
        const bodyLength = length - 16;
        if (shape === "message" && length >= 16) {
          data.writeInt32LE(bodyLength, 12);
          if (bodyLength >= 16 && bodyLength % 4 === 0) fileBody(rng, bodyLength < 12 + 254 ? bodyLength - 13 : bodyLength - 16).copy(data, 16);
        }
        const header = Buffer.alloc(16);
        Helpers.toSignedLittleBuffer(state.salt, 8).copy(header, 0);
        Helpers.toSignedLittleBuffer(state.id, 8).copy(header, 8);
        const plaintext = Buffer.concat([header, data]);
        const padding = Buffer.from(rng.bytes(padLength(plaintext.length)));
        uninstallGramJS();
        const packet = await stockServerPacket(state, plaintext, padding);
        const results: string[] = [];
        for (const install of [false, true]) {
          if (install) installGramJS();
          else uninstallGramJS();
          state.msgIds = [];
          results.push(await outcome(() => state.decryptMessageData(packet)));
        }
        uninstallGramJS();
        const [stock, native] = results as [string, string];
        // The checks of the security guidelines, on the known plaintext: message_data_length a multiple of 4
        // and within the packet, 12..1024 bytes of padding (and so a packet of at least 72 bytes).
        const total = plaintext.length + padding.length;
        const declared = Buffer.concat([plaintext, padding]).readUInt32LE(28); // total >= 32
        const valid = total >= 48 && declared % 4 === 0 && 32 + declared <= total && total - 32 - declared >= 12 && total - 32 - declared <= 1024;
        if (valid) {
          expect(native, `${shape}, ${length} bytes`).toBe(stock);
          same++;
          if (native.startsWith("TLMessage")) parsed++;
        } else {
          // The deliberate difference (README): rejected as a msg_key failure, where stock GramJS parses on.
          expect(native, `${shape}, ${length} bytes`).toBe("SecurityError: Received msg_key doesn't match with expected one");
          expect(stock).not.toBe(native);
          stricter++;
        }
      }
    }
    expect(same + stricter).toBe(2 * LENGTHS.length);
    expect(same).toBeGreaterThanOrEqual(76); // the messages with a body of a multiple of 4 bytes, and a few random ones
    expect(parsed).toBeGreaterThanOrEqual(72); // the upload.file messages
  });

  test("a body with an unknown constructor: stock's TypeNotFoundError, and GramJS's alert() called once, as stock does", async () => {
    const rng = new Prng("gramjs-unknown-constructor");
    const key = rng.bytes(256);
    const state = await gramState(key, rng);
    const body = Buffer.alloc(24);
    body.writeUInt32LE(0x0badc0de, 0); // no such constructor
    const header = Buffer.alloc(32);
    Helpers.toSignedLittleBuffer(state.salt, 8).copy(header, 0);
    Helpers.toSignedLittleBuffer(state.id, 8).copy(header, 8);
    header.writeUInt32LE(rng.u32(), 16), header.writeUInt32LE(0x12345678, 20), header.writeInt32LE(body.length, 28);
    const plaintext = Buffer.concat([header, body]);
    uninstallGramJS();
    const packet = await stockServerPacket(state, plaintext, Buffer.from(rng.bytes(padLength(plaintext.length))));
    const results: string[] = [], alerts: number[] = [];
    for (const install of [false, true]) {
      if (install) installGramJS();
      else uninstallGramJS();
      state.msgIds = [];
      let calls = 0;
      vi.stubGlobal("alert", () => void calls++);
      results.push(await outcome(() => state.decryptMessageData(packet)));
      vi.stubGlobal("alert", undefined);
      alerts.push(calls);
      expect(state.msgIds.length).toBe(1); // stock records the msg_id before parsing
    }
    uninstallGramJS();
    expect(results[0]).toMatch(/^TypeNotFoundError: Could not find a matching Constructor ID/);
    expect(results[1]).toBe(results[0]);
    expectSame(alerts, [1, 1]);
  });
});

describe("installGramJS: primitives as GramJS uses them", () => {
  test("IGE (Authenticator's tmp_aes_key, DH answer): same bytes, random padding of partial blocks, Buffers", async () => {
    const rng = new Prng("gramjs-ige");
    for (let i = 0; i < 60; i++) {
      const key = Buffer.from(rng.bytes(32)), iv = Buffer.from(i === 0 ? new Uint8Array(32) : rng.bytes(32));
      const data = Buffer.from(rng.bytes(i < 10 ? rng.int(1, 40) : 16 * rng.int(1, 40) + (i % 3 === 0 ? rng.int(1, 15) : 0)));
      const [stock, native] = await stockAndNative(`ige-${i}`, () => {
        const encrypted = new IGEModule.IGE(key, iv).encryptIge(data);
        return [encrypted, new IGEModule.IGE(key, iv).decryptIge(encrypted)];
      });
      expect(Buffer.isBuffer(native[0]) && Buffer.isBuffer(native[1])).toBe(true);
      expect(native[0].equals(stock[0])).toBe(true);
      expect(native[1].equals(stock[1])).toBe(true);
      expect(native[1].subarray(0, data.length).equals(data)).toBe(true);
    }
  });

  test("CTR (crypto/CTR and crypto/crypto.createCipheriv): streams continue across calls", async () => {
    const rng = new Prng("gramjs-ctr");
    for (let i = 0; i < 20; i++) {
      const key = Buffer.from(rng.bytes(32)), iv = Buffer.from(rng.bytes(16));
      const chunks = Array.from({ length: 30 }, () => Buffer.from(rng.bytes(rng.int(0, 700))));
      const [stock, native] = await stockAndNative("ctr", () => {
        const ctr = new CTRModule.CTR(key, iv);
        const cipher = cryptoJs.createCipheriv("AES-256-CTR", key, iv);
        const decipher = cryptoJs.createDecipheriv("AES-256-CTR", key, iv);
        return chunks.map((chunk) => Buffer.concat([ctr.encrypt(chunk), cipher.update(chunk), decipher.update(chunk)]));
      });
      native.forEach((out, j) => expect(out.equals(stock[j]!)).toBe(true));
    }
    installGramJS();
    expect(() => new CTRModule.CTR(new Uint8Array(32), Buffer.alloc(16))).toThrow("Key and iv need to be a buffer");
    expect(() => new CTRModule.CTR(Buffer.alloc(32), Buffer.alloc(8))).toThrow("Key and iv need to be a buffer");
  });

  /** A connection for the transports' IO classes: records writes, serves reads from a queue. */
  function fakeConnection(Kind: Any, rng: Prng, extra: Any = {}): Any {
    const written: Buffer[] = [];
    const incoming = Buffer.from(rng.bytes(70000));
    let offset = 0;
    const conn = new Kind({ ip: "127.0.0.1", port: 443, dcId: 2, loggers: new Logger("error"), socket: class {}, ...extra });
    conn.socket = {
      write: (data: Buffer) => written.push(Buffer.from(data)),
      readExactly: (n: number) => Promise.resolve(incoming.subarray(offset, offset += n)),
    };
    return { conn, written };
  }

  for (const [name, Kind, extra] of [
    ["obfuscated transport (TCPObfuscated)", ConnectionTCPObfuscated, {}],
    ["MTProxy (TCPMTProxy)", ConnectionTCPMTProxyAbridged, { proxy: { ip: "127.0.0.1", port: 1, secret: "dd" + "ab".repeat(16), MTProxy: true } }],
  ] as const) {
    test(`${name}: header and both CTR streams, 16 KiB chunks`, async () => {
      const run = async () => {
        const rng = new Prng(`io-${name}`);
        const { conn, written } = fakeConnection(Kind, rng, extra);
        const io = new conn.ObfuscatedIO(conn);
        await io.initHeader();
        const read: Buffer[] = [];
        for (let i = 0; i < 8; i++) {
          io.write(Buffer.from(rng.bytes(i === 3 ? 16384 : rng.int(1, 3000))));
          read.push(await io.read(i === 5 ? 16384 : rng.int(1, 3000)));
        }
        return [io.header as Buffer, ...written, ...read];
      };
      const [stock, native] = await stockAndNative(`io-${name}`, run);
      expect(native.length).toBe(stock.length);
      native.forEach((out, i) => expect(out.equals(stock[i]!)).toBe(true));
    });
  }

  test("Factorizator.factorize: the pq values of the key exchange, big-integers in and out", async () => {
    const rng = new Prng("gramjs-pq");
    const prime = (bits: number) => {
      for (;;) {
        const candidate = bigInt(rng.u32() >>> (32 - bits)).or(bigInt(1).shiftLeft(bits - 1)).or(1);
        if (candidate.isPrime(true)) return candidate;
      }
    };
    // 0x17ED48941A08F981: the pq of core.telegram.org/mtproto/samples-auth_key. (Small products are left out: stock
    // GramJS may answer p = 1 or loop for them, its random Pollard-Brent parameters being too large for them.)
    const products = [bigInt("1724114033281923457"), bigInt(2).multiply(1000003), bigInt(1000003).multiply(1000033)];
    for (let i = 0; i < 6; i++) products.push(prime(31).multiply(prime(32)));
    products.push(prime(32).square());
    for (const pq of products) {
      const [stock, native] = await stockAndNative("pq", () => Factorizator.factorize(pq));
      expect(bigInt.isInstance(native.p) && bigInt.isInstance(native.q)).toBe(true);
      expect(native.p.toString()).toBe(stock.p.toString());
      expect(native.q.toString()).toBe(stock.q.toString());
      expect(native.p.multiply(native.q).equals(pq)).toBe(true);
    }
    // Not a product: the native factorizer says so (stock GramJS answers p = 1 or does not terminate).
    installGramJS();
    expect(() => Factorizator.factorize(bigInt(1000003))).toThrow(/not composite/);
    // Beyond 64 bits: GramJS's own factorizer.
    const big = bigInt(2).pow(64).add(2);
    expect(Factorizator.factorize(big).p.toString()).toBe("2");
  });

  test("Helpers.sha1 / sha256: same digests, returned the same way (GramJS awaits them)", async () => {
    const rng = new Prng("gramjs-sha");
    for (const length of [0, 1, 55, 56, 64, 100, 1000, 70000]) {
      const data = Buffer.from(rng.bytes(length));
      const [stock, native] = await stockAndNative("sha", () => [Helpers.sha1(data), Helpers.sha256(data)]);
      for (let i = 0; i < 2; i++) {
        expect(Buffer.isBuffer(native[i])).toBe(Buffer.isBuffer(stock[i]));
        expect(typeof native[i].then).toBe(typeof stock[i].then);
        expect(Buffer.from(await native[i]).equals(Buffer.from(await stock[i]))).toBe(true);
      }
    }
  });
});
