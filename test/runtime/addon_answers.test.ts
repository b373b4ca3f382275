/**
 * The Node-API addon's functions, called directly, give the answers of an
 * independent implementation (node:crypto, through test/helpers/reference.ts
 * and test/helpers/mtproto_reference.ts): each export reaches the C function
 * of its name, with its arguments in their places, in the right direction,
 * and writes exactly the bytes of its output (a longer output array keeps
 * its tail). The other addon tests check the arguments; these the results.
 */
import { Buffer } from "node:buffer";
import { createRequire } from "node:module";

import { describe, expect, test } from "vitest";
import { locateNative } from "../../ts/runtime/locate.ts";
import type { SymbolName } from "../../ts/runtime/symbols.ts";
import { nodeSha1, nodeSha256, refAuthKeyId, refDecryptRaw, refEncryptRaw } from "../helpers/mtproto_reference.ts";
import { refCbc, refCtr, refIge } from "../helpers/reference.ts";

type AddonFunction = (...args: unknown[]) => unknown;
const addon = createRequire(import.meta.url)(locateNative("addon").path) as Record<SymbolName, AddonFunction>;

const bytes = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 73 + seed * 41 + (i >> 3)) & 0xff);
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
/** An output array `extra` bytes longer than `n`, its tail marked. */
const output = (n: number, extra = 8): Uint8Array => new Uint8Array(n + extra).fill(0xc3);
const tailIntact = (out: Uint8Array, n: number): boolean => out.subarray(n).every((b) => b === 0xc3);

const key = bytes(32, 1);
const data = bytes(80, 2);

describe("one-shot AES", () => {
  test.each([false, true])("IGE, decrypt=%s", (decrypt) => {
    const iv = bytes(32, 3);
    const out = output(80);
    const fn = decrypt ? addon.tg_ige256_decrypt : addon.tg_ige256_encrypt;
    expect(fn(out, data, 80, key, iv)).toBe(0);
    expect(hex(out.subarray(0, 80))).toBe(hex(refIge(data, key, iv, decrypt)));
    expect(tailIntact(out, 80)).toBe(true);
    expect(hex(iv), "the IGE iv is read only").toBe(hex(bytes(32, 3)));
  });

  test.each([false, true])("CBC, decrypt=%s: the output and the iv written back", (decrypt) => {
    const iv = bytes(16, 4);
    const want = refCbc(data, key, iv, decrypt);
    const out = output(80);
    expect((decrypt ? addon.tg_cbc256_decrypt : addon.tg_cbc256_encrypt)(out, data, 80, key, iv)).toBe(0);
    expect(hex(out.subarray(0, 80))).toBe(hex(want.out));
    expect(tailIntact(out, 80)).toBe(true);
    expect(hex(iv)).toBe(hex(want.ivAfter));
  });

  test("CTR from a keystream offset: the output, the counter and the offset after", () => {
    const iv = bytes(16, 5);
    const state = Uint8Array.of(7);
    const want = refCtr(data.subarray(0, 45), key, iv, 7);
    const out = output(45);
    expect(addon.tg_ctr256(out, data, 45, key, iv, state)).toBe(0);
    expect(hex(out.subarray(0, 45))).toBe(hex(want.out));
    expect(tailIntact(out, 45)).toBe(true);
    expect([hex(iv), state[0]]).toEqual([hex(want.ivAfter), want.stateAfter]);
  });
});

describe("contexts", () => {
  test("CTR: two updates continue one stream; tg_ctr_position reports where", () => {
    const iv = bytes(16, 6);
    const ctx = addon.tg_ctr_new(key, iv, 3);
    const want = refCtr(data.subarray(0, 50), key, iv, 3);
    const out = output(50);
    expect(addon.tg_ctr_update(ctx, out, data, 21)).toBe(0);
    expect(addon.tg_ctr_update(ctx, out.subarray(21), data.subarray(21), 29)).toBe(0);
    expect(hex(out.subarray(0, 50))).toBe(hex(want.out));
    expect(tailIntact(out, 50)).toBe(true);
    const ivNow = new Uint8Array(16), stateNow = new Uint8Array(2).fill(0xc3);
    expect(addon.tg_ctr_position(ctx, ivNow, stateNow)).toBe(0);
    expect([hex(ivNow), stateNow[0], stateNow[1]]).toEqual([hex(want.ivAfter), want.stateAfter, 0xc3]);
    addon.tg_ctr_free(ctx);
  });

  test.each([0, 1])("IGE and CBC (decrypt=%i): two updates equal one pass", (decrypt) => {
    const ige = addon.tg_ige_new(key, bytes(32, 7), decrypt);
    const cbc = addon.tg_cbc_new(key, bytes(16, 8), decrypt);
    for (const [ctx, update, want] of [
      [ige, addon.tg_ige_update, refIge(data, key, bytes(32, 7), decrypt === 1)],
      [cbc, addon.tg_cbc_update, refCbc(data, key, bytes(16, 8), decrypt === 1).out],
    ] as const) {
      const out = output(80);
      expect(update(ctx, out, data, 32)).toBe(0);
      expect(update(ctx, out.subarray(32), data.subarray(32), 48)).toBe(0);
      expect(hex(out.subarray(0, 80))).toBe(hex(want));
      expect(tailIntact(out, 80)).toBe(true);
    }
    addon.tg_ige_free(ige);
    addon.tg_cbc_free(cbc);
  });
});

describe("hashes", () => {
  const message = bytes(150, 9);
  test.each([["sha256", 32], ["sha1", 20]] as const)("%s: one-shot and streamed", (name, size) => {
    const want = hex(name === "sha256" ? nodeSha256(message) : nodeSha1(message));
    const fns = name === "sha256"
      ? [addon.tg_sha256, addon.tg_sha256_init, addon.tg_sha256_update, addon.tg_sha256_final]
      : [addon.tg_sha1, addon.tg_sha1_init, addon.tg_sha1_update, addon.tg_sha1_final];
    const [oneshot, init, update, final] = fns as [AddonFunction, AddonFunction, AddonFunction, AddonFunction];
    const digest = output(size);
    expect(oneshot(digest, message, 150)).toBe(0);
    expect(hex(digest.subarray(0, size))).toBe(want);
    expect(tailIntact(digest, size)).toBe(true);
    const state = new Uint8Array(112);
    expect(init(state)).toBe(0);
    expect(update(state, message, 70)).toBe(0);
    expect(update(state, message.subarray(70), 80)).toBe(0);
    const streamed = output(size);
    expect(final(state, streamed)).toBe(0);
    expect(hex(streamed.subarray(0, size))).toBe(want);
    expect(tailIntact(streamed, size)).toBe(true);
  });
});

describe("MTProto", () => {
  const authKeyBytes = bytes(256, 10);
  test("auth key id", () => {
    const handle = addon.tg_auth_key_new(authKeyBytes);
    const id = output(8);
    expect(addon.tg_auth_key_id(handle, id)).toBe(0);
    expect(hex(id.subarray(0, 8))).toBe(hex(refAuthKeyId(authKeyBytes)));
    expect(tailIntact(id, 8)).toBe(true);
    addon.tg_auth_key_free(handle);
  });

  test.each([0, 8])("x=%i: encrypt gives the reference packet; decrypt gives back head, body and padding", (x) => {
    const handle = addon.tg_auth_key_new(authKeyBytes);
    const head = bytes(32, 11), body = bytes(36, 12), padding = bytes(28, 13);
    new DataView(head.buffer).setUint32(28, 36, true); // the message length field
    const inner = new Uint8Array([...head, ...body, ...padding]);
    const packet = output(24 + 96);
    expect(addon.tg_mtproto_encrypt(handle, x, packet, head, 32, body, 36, padding, 28)).toBe(0);
    expect(hex(packet.subarray(0, 120))).toBe(hex(refEncryptRaw(authKeyBytes, x, inner)));
    expect(tailIntact(packet, 120)).toBe(true);
    const plaintext = output(96);
    // The plaintext length, 32 + the message length (padding excluded); the padding bytes zeroed.
    expect(addon.tg_mtproto_decrypt(handle, x, plaintext, packet, 120)).toBe(68);
    expect(hex(refDecryptRaw(authKeyBytes, x, packet.subarray(0, 120)))).toBe(hex(inner));
    expect(hex(plaintext.subarray(0, 68))).toBe(hex(inner.subarray(0, 68)));
    expect(plaintext.subarray(68, 96).every((b) => b === 0)).toBe(true);
    expect(tailIntact(plaintext, 96)).toBe(true);
    addon.tg_auth_key_free(handle);
  });
});

describe("MTProto: packets too short to hold a message", () => {
  test("need no plaintext room: an empty plaintext array is enough, and the packet is rejected with a code", () => {
    const handle = addon.tg_auth_key_new(bytes(256, 14));
    const packet = bytes(40, 15);
    for (const length of [0, 1, 16, 20, 23, 24]) {
      const code = addon.tg_mtproto_decrypt(handle, 0, new Uint8Array(0), packet, length) as number;
      expect(code, `packet_len ${length}`).toBeLessThan(0);
    }
    addon.tg_auth_key_free(handle);
  });
});

describe("PQ", () => {
  test("the factors of a composite; zeros in both outputs when there are none", () => {
    // 0x17ed48941a08f981 = 0x494c553b * 0x53911073: the pq of core.telegram.org/mtproto/samples-auth_key.
    const factors = new Uint8Array(16);
    expect(addon.tg_factorize_pq(0x17ed48941a08f981n, factors.subarray(0, 8), factors.subarray(8))).toBe(0);
    const view = new DataView(factors.buffer);
    expect([view.getBigUint64(0, true), view.getBigUint64(8, true)]).toEqual([0x494c553bn, 0x53911073n]);
    for (const pq of [0n, 1n, 13n, 0xffffffffffffffc5n]) { // the last: the largest 64-bit prime
      const p = new Uint8Array(8).fill(0xff), q = new Uint8Array(8).fill(0xff);
      expect(addon.tg_factorize_pq(pq, p, q), `${pq}`).toBeLessThan(0);
      expect([...p, ...q].every((b) => b === 0), `${pq}: zeros`).toBe(true);
    }
  });
});
