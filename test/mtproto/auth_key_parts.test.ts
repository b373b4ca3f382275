/**
 * AuthKey's plumbing around the native call (ts/mtproto/auth_key.ts), which
 * the byte-for-byte tests cannot see: when plaintext parts are joined and
 * into which buffer (kept up to 1 MiB and reused, a one-off above), small
 * decrypted outputs that are fresh arrays of their own, the size limit,
 * and the argument errors of decryptMessage. Joins are observed through the
 * test hook observeJoinWipes (told of each join right after its wipe).
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { AuthKey, MtprotoSecurityError } from "../../ts/mod.ts";
import { observeJoinWipes } from "../../ts/mtproto/auth_key.ts";
import { concatBytes, expectBytes, expectError } from "../helpers/bytes.ts";
import { Prng } from "../helpers/prng.ts";

const rng = new Prng("authkey-parts");
const key = rng.bytes(256);
const joins: { length: number; buffer: ArrayBufferLike; zero: boolean }[] = [];
beforeEach(() => {
  joins.length = 0;
  observeJoinWipes((view) => joins.push({ length: view.length, buffer: view.buffer, zero: view.every((b) => b === 0) }));
});
afterEach(() => observeJoinWipes(undefined));

/** A plaintext with `data` bytes of message data (message_data_length set). */
function plaintextOf(data: number): Uint8Array {
  const plaintext = rng.bytes(32 + data);
  new DataView(plaintext.buffer).setUint32(28, data, true);
  return plaintext;
}

/** A shortest-padding message of these parts, encrypted with fixed padding, and the same of their concatenation. */
function both(authKey: AuthKey, parts: Uint8Array[]): [Uint8Array, Uint8Array] {
  const length = parts.reduce((n, p) => n + p.length, 0);
  const padding = rng.bytes(12 + ((16 - ((length + 12) % 16)) % 16));
  return [authKey.encryptMessage(parts, { padding }), authKey.encryptMessage(concatBytes(parts), { padding })];
}

describe("plaintext parts", () => {
  test("one or two parts (and a single array) are passed as they are: no join, nothing to wipe", () => {
    using authKey = new AuthKey(key);
    for (const parts of [[rng.bytes(48)], [rng.bytes(32), rng.bytes(16)], [rng.bytes(16), rng.bytes(400)]]) {
      const [fromParts, fromOne] = both(authKey, parts);
      expectBytes(fromParts, fromOne);
    }
    expect(joins, "no join for 1 or 2 parts, nor for one array").toEqual([]);
  });

  test("three parts: the shorter side is joined, in the join buffer that is kept up to 1 MiB and reused", () => {
    using authKey = new AuthKey(key);
    const MiB = 1 << 20;
    // A join of exactly 1 MiB is kept; a second one of the same length, and any shorter one, reuse it.
    for (const middle of [MiB - 16, MiB - 16, 100]) {
      const [fromParts, fromOne] = both(authKey, [rng.bytes(16), rng.bytes(middle), rng.bytes(MiB + 64)]);
      expectBytes(fromParts, fromOne);
    }
    expect(joins.map((j) => j.length)).toEqual([MiB, MiB, 116]);
    expect(joins.every((j) => j.zero), "every join wiped").toBe(true);
    expect(joins[0]!.buffer.byteLength, "the kept buffer").toBe(MiB);
    expect(joins[1]!.buffer, "the same length again: the same buffer").toBe(joins[0]!.buffer);
    expect(joins[2]!.buffer, "a shorter join: the same buffer").toBe(joins[0]!.buffer);
    // Over 1 MiB: a one-off buffer, not kept; the next join goes back to the kept one.
    joins.length = 0;
    for (const middle of [MiB + 64, 100]) {
      const [fromParts, fromOne] = both(authKey, [rng.bytes(16), rng.bytes(middle), rng.bytes(MiB + 200)]);
      expectBytes(fromParts, fromOne);
    }
    expect(joins.map((j) => j.length)).toEqual([MiB + 80, 116]);
    expect(joins[0]!.buffer.byteLength).toBe(MiB + 80);
    expect(joins[1]!.buffer, "the big one was not kept").not.toBe(joins[0]!.buffer);
    expect(joins[1]!.buffer.byteLength).toBe(MiB);
  });

  test("a message over 2^31 - 1 bytes is a RangeError before anything is copied (2 GiB of unwritten parts)", () => {
    using authKey = new AuthKey(key);
    const GiB = new Uint8Array(1 << 30); // zero pages, never touched
    expectError(() => authKey.encryptMessage([GiB, GiB]), RangeError, "Message is too large (max 2147483647 bytes per packet)");
    expectError(() => authKey.encryptMessage([GiB, GiB, new Uint8Array(32)]), RangeError, "Message is too large (max 2147483647 bytes per packet)");
    expect(joins, "rejected before the join").toEqual([]);
  });
});

describe("decryptMessage", () => {
  test("small packets (72..88 bytes) decrypt into fresh arrays of their own", () => {
    using authKey = new AuthKey(key);
    const outs: Uint8Array[] = [];
    for (const data of [0, 4, 8, 12, 16]) {
      const plaintext = plaintextOf(data);
      const packet = authKey.encryptMessage(plaintext, { server: true });
      expect(packet.length).toBeLessThanOrEqual(24 + 64);
      for (let i = 0; i < 2; i++) {
        const out = authKey.decryptMessage(packet);
        expectBytes(out, plaintext);
        expect(out.byteOffset).toBe(0);
        expect(out.buffer.byteLength, "the whole buffer: packet length - 24").toBe(packet.length - 24);
        outs.push(out);
      }
    }
    expect(new Set(outs.map((o) => o.buffer)).size, "no two outputs share a buffer").toBe(outs.length);
  });

  test("argument errors: packet and options types, in that order, for both calls", () => {
    using authKey = new AuthKey(key);
    const packet = authKey.encryptMessage(plaintextOf(0)); // a client's message
    expectError(() => authKey.decryptMessage("x" as never), TypeError, "packet must be a Uint8Array");
    expectError(() => authKey.decryptMessage("x" as never, 5 as never), TypeError, "packet must be a Uint8Array");
    expectError(() => authKey.decryptMessage(packet, 5 as never), TypeError, "options must be an object");
    expectError(() => authKey.decryptMessage(packet, null as never), TypeError, "options must be an object");
    expectError(() => authKey.decryptMessageInto(new Uint8Array(100), [packet] as never), TypeError, "packet must be a Uint8Array");
    expectError(() => authKey.decryptMessageInto(new Uint8Array(100), packet, 5 as never), TypeError, "options must be an object");
    expect(() => authKey.decryptMessage(packet, {})).toThrow(MtprotoSecurityError); // opened as a server's message
    expect(authKey.decryptMessage(packet, { server: true }).length).toBe(32);
  });

  test("`using` disposes at the end of the block", () => {
    let escaped: AuthKey;
    {
      using scoped = new AuthKey(key);
      escaped = scoped;
      expect(escaped.encryptMessage(rng.bytes(32)).length).toBe(24 + 48);
    }
    expect(() => escaped.encryptMessage(rng.bytes(32))).toThrow(/AuthKey has been disposed/);
  });
});
