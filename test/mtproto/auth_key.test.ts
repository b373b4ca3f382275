/**
 * AuthKey (ts/mtproto/auth_key.ts): the MTProto 2.0 message layer.
 * - byte-for-byte against a reference written from the spec over node:crypto
 *   (helpers/mtproto_reference.ts) and the known answers of test/vectors/mtproto.txt;
 * - the packet contract (lengths, padding, fresh outputs, Into variants, parts);
 * - tampering: bit flips, truncations, extensions, wrong key id, wrong
 *   direction, packets with bad length fields or paddings crafted with a
 *   valid msg_key: always MtprotoSecurityError, never anything else;
 * - argument errors and the object's life cycle (dispose, FinalizationRegistry).
 * The real clients (mtcute, GramJS) are in auth_key_interop.test.ts.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { AuthKey, MtprotoSecurityError } from "../../ts/mod.ts";
import { collectedAuthKeys, observeJoinWipes } from "../../ts/mtproto/auth_key.ts";
import { concatBytes, equalBytes, expectBytes, expectError, hex } from "../helpers/bytes.ts";
import {
  buildPlaintext,
  nodeSha1,
  refAuthKeyId,
  refDecrypt,
  refDecryptRaw,
  refEncryptRaw,
} from "../helpers/mtproto_reference.ts";
import { Prng } from "../helpers/prng.ts";
import { hexToBytes } from "../helpers/vectors.ts";

const REJECTED = "MTProto message rejected";
const SHORT = "Plaintext must be at least 32 bytes (salt, session_id, msg_id, seq_no, message_data_length)";

/** The shortest valid padding length for `length` plaintext bytes. */
const shortestPadding = (length: number) => 12 + ((16 - ((length + 12) % 16)) % 16);

/** A random plaintext with consistent header fields and `dataLength` (a multiple of 4) bytes of data. */
function randomPlaintext(rng: Prng, dataLength: number): Uint8Array {
  return buildPlaintext(
    { salt: rng.bytes(8), sessionId: rng.bytes(8), msgId: rng.bytes(8), seqNo: rng.u32() },
    rng.bytes(dataLength),
  );
}

/** Runs fn and asserts it throws exactly MtprotoSecurityError with the one message. */
function expectRejected(fn: () => unknown, what: string): void {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  if (!(error instanceof MtprotoSecurityError) || error.message !== REJECTED || error.name !== "MtprotoSecurityError") {
    expect.fail(`${what}: expected MtprotoSecurityError("${REJECTED}"), got ${error === undefined ? "no error" : String(error)}`);
  }
}

describe("AuthKey basics", () => {
  test("id is the last 8 bytes of SHA1(auth_key); the key is copied", () => {
    const rng = new Prng("authkey-id");
    for (let i = 0; i < 20; i++) {
      const key = rng.bytes(256);
      const authKey = new AuthKey(key);
      expectBytes(authKey.id, nodeSha1(key).slice(12, 20));
      expect(authKey.id.length).toBe(8);
      const plaintext = randomPlaintext(rng, 16);
      const padding = rng.bytes(shortestPadding(plaintext.length));
      const before = authKey.encryptMessage(plaintext, { padding });
      key.fill(0); // the caller's copy changes; the native copy must not
      expectBytes(authKey.encryptMessage(plaintext, { padding }), before);
      authKey.dispose();
    }
  });

  test("dispose is idempotent, [Symbol.dispose] and `using` work, use after dispose throws", () => {
    const rng = new Prng("authkey-dispose");
    const key = rng.bytes(256);
    const authKey = new AuthKey(key);
    const packet = authKey.encryptMessage(randomPlaintext(rng, 8), { server: true });
    expect(authKey.decryptMessage(packet).length).toBe(40);
    authKey.dispose();
    authKey.dispose();
    authKey[Symbol.dispose]();
    const disposed = /AuthKey has been disposed/;
    expect(() => authKey.encryptMessage(randomPlaintext(rng, 8))).toThrow(disposed);
    expect(() => authKey.encryptMessageInto(new Uint8Array(100), randomPlaintext(rng, 8))).toThrow(disposed);
    expect(() => authKey.decryptMessage(packet)).toThrow(disposed);
    expect(() => authKey.decryptMessageInto(new Uint8Array(100), packet)).toThrow(disposed);
    expectBytes(authKey.id, refAuthKeyId(key)); // the id stays readable
    {
      using scoped = new AuthKey(key);
      expect(scoped.decryptMessage(packet).length).toBe(40);
    }
  });

  test("a forgotten AuthKey is freed by the FinalizationRegistry", async () => {
    const before = collectedAuthKeys();
    const rng = new Prng("authkey-gc");
    const key = rng.bytes(256);
    const make = () => {
      for (let i = 0; i < 2000; i++) new AuthKey(key).encryptMessage(randomPlaintext(rng, 0));
    };
    make();
    const gc = (globalThis as { gc?: () => void; Bun?: { gc(force: boolean): void } });
    const deadline = Date.now() + 8000;
    let garbage: unknown[] = [];
    while (collectedAuthKeys() === before && Date.now() < deadline) {
      if (gc.Bun) gc.Bun.gc(true);
      else if (gc.gc) gc.gc();
      else garbage = Array.from({ length: 20000 }, () => new Array(64).fill(0)); // pressure the young and old generations
      await new Promise((resolve) => setTimeout(resolve, 10)); // cleanup callbacks run as tasks
    }
    garbage.length = 0;
    expect(collectedAuthKeys() - before, "AuthKeys freed by the collector").toBeGreaterThan(0);
  });

  test("bad keys and arguments: TypeError / RangeError", () => {
    const K = AuthKey as unknown as new (k: unknown) => AuthKey;
    for (const value of [undefined, null, "x".repeat(256), new Array(256).fill(0), new Uint16Array(256), new ArrayBuffer(256)]) {
      expectError(() => new K(value), TypeError, "key must be a Uint8Array", `key ${Object.prototype.toString.call(value)}`);
    }
    for (const length of [0, 32, 255, 257, 512]) {
      expectError(() => new AuthKey(new Uint8Array(length)), RangeError, "Auth key size must be exactly 256 bytes");
    }
  });
});

describe("message layer against the reference", () => {
  test("test/vectors/mtproto.txt known answers (generated with node:crypto)", () => {
    const records = readFileSync(new URL("../vectors/mtproto.txt", import.meta.url), "utf8")
      .split(/\n\s*\n/)
      .map((block) => Object.fromEntries(
        block.split("\n").filter((l) => /^\w+ = /.test(l)).map((l) => l.split(" = ") as [string, string]),
      ))
      .filter((r) => r.packet !== undefined);
    expect(records.length).toBeGreaterThan(20);
    for (const r of records) {
      const key = hexToBytes(r.auth_key!), plaintext = hexToBytes(r.plaintext!), padding = hexToBytes(r.padding!);
      const packet = hexToBytes(r.packet!);
      const server = r.x === "8";
      using authKey = new AuthKey(key);
      expectBytes(authKey.encryptMessage(plaintext, { server, padding }), packet, "encrypt");
      // The receiving side of direction x: a server (server: true) opens x = 0, a client x = 8.
      const opened = (() => {
        try {
          return authKey.decryptMessage(packet, { server: !server });
        } catch (e) {
          if (e instanceof MtprotoSecurityError) return null;
          throw e;
        }
      })();
      const expected = refDecrypt(key, server ? 8 : 0, packet);
      if (expected === null) expect(opened, "the reference rejects this vector, so must we").toBeNull();
      else expectBytes(opened, expected, "decrypt");
    }
  });

  test("random messages, both directions, shortest and longest padding, equal to the reference", () => {
    const rng = new Prng("mtproto-reference");
    for (let i = 0; i < 150; i++) {
      const key = rng.bytes(256);
      using authKey = new AuthKey(key);
      const plaintext = randomPlaintext(rng, 4 * rng.int(0, i < 140 ? 300 : 20000));
      const minimum = shortestPadding(plaintext.length);
      const paddingLength = rng.pick([minimum, minimum + 16 * rng.int(0, Math.floor((1024 - minimum) / 16)), minimum + 16 * Math.floor((1024 - minimum) / 16)]);
      const padding = rng.bytes(paddingLength);
      for (const server of [false, true]) {
        const x = server ? 8 : 0;
        const packet = authKey.encryptMessage(plaintext, { server, padding });
        expect(packet.length).toBe(24 + plaintext.length + paddingLength);
        expectBytes(packet, refEncryptRaw(key, x, concatBytes([plaintext, padding])), `encrypt x=${x}`);
        // x = 0 is opened by a server, x = 8 by a client (the default).
        const opened = authKey.decryptMessage(packet, { server: !server });
        expectBytes(opened, plaintext, `decrypt x=${x}`);
        expect(opened.byteOffset).toBe(0);
        expect(opened.buffer.byteLength).toBe(packet.length - 24);
        expect(new Uint8Array(opened.buffer, opened.length).every((b) => b === 0), "padding bytes zeroed").toBe(true);
      }
    }
  });

  test("a 512 KiB message and the 2^31 - 1 limit", () => {
    const rng = new Prng("mtproto-large");
    const key = rng.bytes(256);
    using authKey = new AuthKey(key);
    const plaintext = randomPlaintext(rng, 512 * 1024);
    const padding = rng.bytes(shortestPadding(plaintext.length));
    const packet = authKey.encryptMessage(plaintext, { padding });
    expectBytes(packet, refEncryptRaw(key, 0, concatBytes([plaintext, padding])));
    expectBytes(authKey.decryptMessage(packet, { server: true }), plaintext);
  });

  test("default padding: the shortest length (12..27), from the CSPRNG, never reused", () => {
    const rng = new Prng("mtproto-random-padding");
    const key = rng.bytes(256);
    using authKey = new AuthKey(key);
    const seen = new Set<string>();
    for (let i = 0; i < 600; i++) { // several refills of the 128-slot pool
      const plaintext = randomPlaintext(rng, 4 * rng.int(0, 40));
      const packet = authKey.encryptMessage(plaintext);
      const paddingLength = shortestPadding(plaintext.length);
      expect(paddingLength).toBeGreaterThanOrEqual(12);
      expect(paddingLength).toBeLessThanOrEqual(27);
      expect(packet.length).toBe(24 + plaintext.length + paddingLength);
      const inner = refDecryptRaw(key, 0, packet);
      expectBytes(inner.subarray(0, plaintext.length), plaintext);
      // the msg_key is over the padding actually used
      expectBytes(packet, refEncryptRaw(key, 0, inner));
      const padding = hex(inner.subarray(plaintext.length));
      expect(seen.has(padding), `padding reused: ${padding}`).toBe(false);
      seen.add(padding);
      expectBytes(authKey.decryptMessage(packet, { server: true }), plaintext);
    }
  });

  test("plaintext as parts (1, 2, 3+, empty parts) equals the concatenation; inputs untouched", () => {
    const rng = new Prng("mtproto-parts");
    const key = rng.bytes(256);
    using authKey = new AuthKey(key);
    for (let i = 0; i < 300; i++) {
      const plaintext = randomPlaintext(rng, 4 * rng.int(0, 200));
      const copy = plaintext.slice();
      const cuts = Array.from({ length: rng.int(0, 6) }, () => rng.int(0, plaintext.length)).sort((a, b) => a - b);
      const parts: Uint8Array[] = [];
      let start = 0;
      for (const cut of [...cuts, plaintext.length]) {
        parts.push(plaintext.subarray(start, cut));
        start = cut;
      }
      const padding = rng.bytes(shortestPadding(plaintext.length) + 16 * rng.int(0, 3));
      const expected = refEncryptRaw(key, 0, concatBytes([plaintext, padding]));
      expectBytes(authKey.encryptMessage(parts, { padding }), expected, `${parts.length} parts`);
      const out = new Uint8Array(expected.length + 5).fill(0x5a);
      expectBytes(authKey.encryptMessageInto(out, parts, { padding }), expected, `${parts.length} parts, Into`);
      expectBytes(plaintext, copy, "plaintext untouched");
    }
  });

  test("the plaintext copied to join 3+ parts is wiped after every call (one-off joins over 1 MiB, and a call that throws, too)", () => {
    const rng = new Prng("mtproto-join-wipe");
    const key = rng.bytes(256);
    using authKey = new AuthKey(key);
    const wiped: { length: number; zero: boolean }[] = [];
    observeJoinWipes((view) => wiped.push({ length: view.length, zero: view.every((b) => b === 0) }));
    const getRandomValues = crypto.getRandomValues;
    try {
      // 0xff bytes, so a join that was not wiped cannot look wiped. [head, middle, body]: the shorter side
      // (head + middle, or middle + body) is joined.
      for (const [a, b, c] of [[16, 16, 400], [400, 16, 16], [32, (1 << 20) + 64, (1 << 20) + 200]]) {
        const parts = [new Uint8Array(a!).fill(0xff), new Uint8Array(b!).fill(0xff), new Uint8Array(c!).fill(0xff)];
        const length = a! + b! + c!;
        const padding = rng.bytes(shortestPadding(length));
        const expected = refEncryptRaw(key, 0, concatBytes([...parts, padding]));
        wiped.length = 0;
        expectBytes(authKey.encryptMessage(parts, { padding }), expected, `${a}+${b}+${c}`);
        expect(wiped, `${a}+${b}+${c}: one join, wiped`).toEqual([{ length: Math.min(a! + b!, b! + c!), zero: true }]);
      }
      // Random padding comes from a pool refilled every 128 messages: a CSPRNG failure at a refill throws
      // after the parts were joined.
      crypto.getRandomValues = () => {
        throw new Error("no entropy");
      };
      wiped.length = 0;
      let thrown = 0, calls = 0;
      while (thrown === 0 && calls < 200) {
        calls++;
        try {
          authKey.encryptMessage([new Uint8Array(16).fill(0xff), new Uint8Array(8).fill(0xff), new Uint8Array(40).fill(0xff)]);
        } catch (error) {
          expect(String(error)).toMatch(/no entropy/);
          thrown++;
        }
      }
      expect(thrown, "a refill was reached").toBe(1);
      expect(wiped, "every call's join was wiped, the throwing one too").toEqual(Array(calls).fill({ length: 24, zero: true }));
    } finally {
      crypto.getRandomValues = getRandomValues;
      observeJoinWipes(undefined);
    }
  });

  test("encryptMessageInto / decryptMessageInto: written views, bytes past them untouched, in place", () => {
    const rng = new Prng("mtproto-into");
    const key = rng.bytes(256);
    using authKey = new AuthKey(key);
    for (let i = 0; i < 100; i++) {
      const plaintext = randomPlaintext(rng, 4 * rng.int(0, 100));
      const padding = rng.bytes(shortestPadding(plaintext.length));
      const expected = authKey.encryptMessage(plaintext, { padding, server: true });
      const sendBuffer = new Uint8Array(4 + expected.length + 7).fill(0xee);
      const written = authKey.encryptMessageInto(sendBuffer.subarray(4), plaintext, { padding, server: true });
      expect(written.buffer).toBe(sendBuffer.buffer);
      expect(written.byteOffset).toBe(4);
      expectBytes(written, expected);
      expect(sendBuffer.subarray(0, 4).every((b) => b === 0xee) && sendBuffer.subarray(4 + expected.length).every((b) => b === 0xee)).toBe(true);
      const exact = new Uint8Array(expected.length);
      expect(authKey.encryptMessageInto(exact, plaintext, { padding, server: true })).toBe(exact);

      const out = new Uint8Array(expected.length - 24 + 3).fill(0xee);
      const opened = authKey.decryptMessageInto(out, expected);
      expect(opened.buffer).toBe(out.buffer);
      expectBytes(opened, plaintext);
      expect(out.subarray(plaintext.length, expected.length - 24).every((b) => b === 0)).toBe(true);
      expect(out.subarray(expected.length - 24).every((b) => b === 0xee)).toBe(true);

      const inPlace = expected.slice();
      expectBytes(authKey.decryptMessageInto(inPlace.subarray(24), inPlace), plaintext, "in place");
    }
  });

  test("outputs are fresh arrays with their own buffer", () => {
    const rng = new Prng("mtproto-fresh");
    using authKey = new AuthKey(rng.bytes(256));
    const plaintext = randomPlaintext(rng, 16);
    const a = authKey.encryptMessage(plaintext), b = authKey.encryptMessage(plaintext);
    expect(a.buffer).not.toBe(b.buffer);
    expect(a.byteOffset).toBe(0);
    expect(a.buffer.byteLength).toBe(a.length);
    expect(equalBytes(a, b)).toBe(false); // random padding
    const c = authKey.decryptMessage(a, { server: true }), d = authKey.decryptMessage(a, { server: true });
    expect(c.buffer).not.toBe(d.buffer);
    expect(c.buffer).not.toBe(a.buffer);
  });
});

describe("argument errors (nothing modified)", () => {
  const rng = new Prng("mtproto-arguments");
  const key = rng.bytes(256);
  const authKey = new AuthKey(key);
  const plaintext = randomPlaintext(rng, 20); // 52 bytes: shortest padding 12

  test("plaintext", () => {
    const call = authKey.encryptMessage.bind(authKey) as (p: unknown, o?: unknown) => Uint8Array;
    for (const value of [undefined, null, "abc", 5, new Uint16Array(40), new ArrayBuffer(40), [new Uint8Array(32), "x"], [5]]) {
      expectError(() => call(value), TypeError, /^(plaintext|every plaintext part) must be a Uint8Array$/, `plaintext ${String(value)}`);
    }
    expectError(() => authKey.encryptMessage(new Uint8Array(0)), RangeError, "Plaintext must not be empty");
    expectError(() => authKey.encryptMessage([]), RangeError, "Plaintext must not be empty");
    expectError(() => authKey.encryptMessage([new Uint8Array(0), new Uint8Array(0)]), RangeError, "Plaintext must not be empty");
    for (const length of [1, 16, 31]) {
      expectError(() => authKey.encryptMessage(new Uint8Array(length)), RangeError, SHORT);
      expectError(() => authKey.encryptMessage([new Uint8Array(length - 1), new Uint8Array(1)]), RangeError, SHORT);
    }
    expect(authKey.encryptMessage(new Uint8Array(32)).length).toBe(24 + 48); // 32 bytes is enough
  });

  test("padding", () => {
    const call = authKey.encryptMessage.bind(authKey) as (p: unknown, o?: unknown) => Uint8Array;
    for (const value of ["x".repeat(12), new Uint16Array(12), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 12, null]) {
      expectError(() => call(plaintext, { padding: value }), TypeError, "options.padding must be a Uint8Array", `padding ${String(value)}`);
    }
    for (const value of [null, 1, "server"]) {
      expectError(() => call(plaintext, value), TypeError, "options must be an object");
    }
    for (const length of [0, 11]) {
      expectError(() => authKey.encryptMessage(plaintext, { padding: new Uint8Array(length) }), RangeError, `Padding must be 12 to 1024 bytes (got ${length})`);
    }
    expectError(() => authKey.encryptMessage(new Uint8Array(32 + 48), { padding: new Uint8Array(1040) }), RangeError, "Padding must be 12 to 1024 bytes (got 1040)");
    for (const length of [13, 27, 29, 45, 1023]) {
      expectError(
        () => authKey.encryptMessage(plaintext, { padding: new Uint8Array(length) }),
        RangeError,
        `Plaintext plus padding must be a multiple of 16 bytes (got 52 + ${length})`,
      );
    }
    // the limits themselves are accepted
    expect(authKey.encryptMessage(new Uint8Array(36), { padding: new Uint8Array(12) }).length).toBe(24 + 48);
    expect(authKey.encryptMessage(new Uint8Array(32), { padding: new Uint8Array(1024) }).length).toBe(24 + 32 + 1024);
  });

  test("Into: output type, size, overlap; nothing written on error", () => {
    const padding = rng.bytes(12);
    const need = 24 + 64;
    const callInto = authKey.encryptMessageInto.bind(authKey) as (o: unknown, p: unknown, opts?: unknown) => Uint8Array;
    for (const value of [undefined, null, new Uint16Array(need), new ArrayBuffer(need)]) {
      expectError(() => callInto(value, plaintext, { padding }), TypeError, "out must be a Uint8Array", `out ${String(value)}`);
    }
    const small = new Uint8Array(need - 1).fill(7);
    expectError(() => authKey.encryptMessageInto(small, plaintext, { padding }), RangeError, `Output buffer is too small (need ${need} bytes)`);
    expect(small.every((b) => b === 7)).toBe(true);
    const out = new Uint8Array(need).fill(7);
    expectError(() => authKey.encryptMessageInto(out, plaintext, { padding: new Uint8Array(13) }), RangeError, /multiple of 16/);
    expectError(() => authKey.encryptMessageInto(out, new Uint8Array(20)), RangeError, SHORT);
    expect(out.every((b) => b === 7)).toBe(true);
    // the packet must not overlap the plaintext or the padding
    const shared = new Uint8Array(400);
    shared.set(plaintext, 200);
    expectError(() => authKey.encryptMessageInto(shared.subarray(180), shared.subarray(200, 252), { padding }), RangeError, /overlap/);
    expectError(() => authKey.encryptMessageInto(shared, plaintext, { padding: shared.subarray(10, 22) }), RangeError, /overlap/);

    const packet = authKey.encryptMessage(plaintext, { server: true, padding });
    for (const value of [undefined, null, new Uint16Array(100), new ArrayBuffer(100)]) {
      const call = authKey.decryptMessageInto.bind(authKey) as (o: unknown, p: unknown) => Uint8Array;
      expectError(() => call(value, packet), TypeError, "out must be a Uint8Array", `decrypt out ${String(value)}`);
    }
    const smallOut = new Uint8Array(packet.length - 25).fill(7);
    expectError(() => authKey.decryptMessageInto(smallOut, packet), RangeError, `Output buffer is too small (need ${packet.length - 24} bytes)`);
    expect(smallOut.every((b) => b === 7)).toBe(true);
    const decryptCall = authKey.decryptMessage.bind(authKey) as (p: unknown) => Uint8Array;
    for (const value of [undefined, null, "packet", new Uint16Array(100), new ArrayBuffer(100), [1, 2, 3]]) {
      expectError(() => decryptCall(value), TypeError, undefined, `packet ${String(value)}`);
    }
  });
});

describe("tampering: every rejected packet is MtprotoSecurityError", () => {
  const rng = new Prng("mtproto-tamper");
  const key = rng.bytes(256);
  const authKey = new AuthKey(key);

  /** Opens `packet` as a client (x = 8) with both decrypt functions; expects rejection and a zeroed Into output. */
  function expectAllRejected(packet: Uint8Array, what: string, server = false): void {
    expectRejected(() => authKey.decryptMessage(packet, { server }), what);
    if (packet.length >= 24) {
      const out = new Uint8Array(packet.length - 24).fill(0xcc);
      expectRejected(() => authKey.decryptMessageInto(out, packet, { server }), `${what} (Into)`);
      if (packet.length >= 72 && !out.every((b) => b === 0)) expect.fail(`${what}: rejected output not zeroed`);
    }
  }

  const small = authKey.encryptMessage(randomPlaintext(rng, 8), { server: true }); // 24 + 64 bytes
  const large = authKey.encryptMessage(randomPlaintext(rng, 1000), { server: true, padding: rng.bytes(shortestPadding(1032) + 16 * 3) });

  test("the untouched packets are accepted (the controls)", () => {
    expect(authKey.decryptMessage(small).length).toBe(40);
    expect(authKey.decryptMessage(large).length).toBe(1032);
  });

  test("every single-bit flip of a small and a larger packet", () => {
    for (const packet of [small, large]) {
      const copy = packet.slice();
      for (let bit = 0; bit < copy.length * 8; bit++) {
        copy[bit >> 3]! ^= 1 << (bit & 7);
        expectRejected(() => authKey.decryptMessage(copy), `flip bit ${bit} of ${copy.length}`);
        copy[bit >> 3]! ^= 1 << (bit & 7);
      }
      expect(authKey.decryptMessage(copy).length).toBeGreaterThan(0);
    }
    // a few flips through the Into path too (output zeroed)
    for (const bit of [0, 70, 8 * 8 + 3, 8 * 24, 8 * (small.length - 1) + 7]) {
      const copy = small.slice();
      copy[bit >> 3]! ^= 1 << (bit & 7);
      expectAllRejected(copy, `flip bit ${bit} (both paths)`);
    }
  });

  test("every truncation from 0 bytes up, and extensions", () => {
    for (const packet of [small, large]) {
      for (let length = 0; length < packet.length; length++) expectAllRejected(packet.subarray(0, length), `first ${length} bytes`);
      for (let extra = 1; extra <= 48; extra++) {
        expectAllRejected(concatBytes([packet, new Uint8Array(extra)]), `${extra} zero bytes appended`);
        expectAllRejected(concatBytes([packet, rng.bytes(extra)]), `${extra} random bytes appended`);
      }
      expectAllRejected(concatBytes([packet, packet.subarray(24)]), "ciphertext repeated");
      expectAllRejected(packet.subarray(16), "front cut");
    }
  });

  test("wrong auth_key_id, another key, the wrong direction, a replayed header", () => {
    const wrongId = small.slice();
    wrongId.set(rng.bytes(8), 0);
    expectAllRejected(wrongId, "random auth_key_id");
    const otherKey = rng.bytes(256);
    using other = new AuthKey(otherKey);
    const foreign = other.encryptMessage(randomPlaintext(rng, 8), { server: true });
    expectAllRejected(foreign, "another key's packet");
    const sameIdForeign = foreign.slice();
    sameIdForeign.set(authKey.id, 0);
    expectAllRejected(sameIdForeign, "another key's packet with our auth_key_id");
    const clientPacket = authKey.encryptMessage(randomPlaintext(rng, 8)); // x = 0
    expectAllRejected(clientPacket, "a client's packet opened as a client");
    expectAllRejected(small, "a server's packet opened as a server", true);
    expect(authKey.decryptMessage(clientPacket, { server: true }).length).toBe(40);
    const swapped = concatBytes([small.subarray(0, 24), large.subarray(24, small.length)]);
    expectAllRejected(swapped, "msg_key of another packet");
  });

  test("garbage of every length up to 300 bytes, with and without our auth_key_id", () => {
    for (let length = 0; length <= 300; length++) {
      const garbage = rng.bytes(length);
      expectAllRejected(garbage, `${length} random bytes`);
      if (length >= 8) {
        garbage.set(authKey.id, 0);
        expectAllRejected(garbage, `${length} random bytes after our auth_key_id`);
      }
    }
  });

  /** Encrypts `inner` (header + data + padding) with the reference: msg_key valid, length fields as given. */
  function crafted(declaredLength: number, dataLength: number, paddingLength: number): Uint8Array {
    const header = { salt: rng.bytes(8), sessionId: rng.bytes(8), msgId: rng.bytes(8), seqNo: rng.u32() };
    const inner = concatBytes([buildPlaintext(header, rng.bytes(dataLength), declaredLength), rng.bytes(paddingLength)]);
    return refEncryptRaw(key, 8, inner);
  }

  test("crafted with a valid msg_key: bad message_data_length and padding lengths are rejected", () => {
    // Controls: consistent fields at the padding limits are accepted.
    for (const [data, pad] of [[0, 16], [4, 12], [8, 24], [16, 1024], [0, 1024], [12, 1028 - 16]] as const) {
      const packet = crafted(data, data, pad);
      expect(refDecrypt(key, 8, packet)).not.toBeNull();
      expectBytes(authKey.decryptMessage(packet), refDecrypt(key, 8, packet)!, `control data ${data} padding ${pad}`);
    }
    // [what, declared message_data_length, actual data bytes, padding bytes]: 32 + data + padding is
    // always a multiple of 16, so only the length field (and the padding length it implies) is wrong.
    const cases: [string, number, number, number][] = [];
    for (let delta = 1; delta <= 3; delta++) cases.push([`length not a multiple of 4 (+${delta})`, 16 + delta, 16, 32]);
    for (let delta = 1; delta <= 3; delta++) cases.push([`length not a multiple of 4 (-${delta})`, 16 - delta, 16, 32]);
    cases.push(["length past the end", 52, 16, 32]);
    cases.push(["length far past the end", 0x7ffffffc, 16, 32]);
    cases.push(["length 0xffffffff", 0xffffffff, 16, 32]);
    cases.push(["length 0xfffffffc (wraps with the header)", 0xfffffffc, 16, 32]);
    cases.push(["length 0xffffffe0 (32 + length wraps to 0)", 0xffffffe0, 16, 32]);
    cases.push(["length 0x80000000", 0x80000000, 16, 32]);
    for (let declared = 37; declared <= 48; declared++) {
      cases.push([`length ${declared}: padding ${48 - declared} (under 12)`, declared, 16, 32]);
    }
    cases.push(["padding 1028 (over 1024)", 12, 12, 1028]);
    cases.push(["padding 1032", 8, 8, 1032]);
    cases.push(["padding 1036", 4, 4, 1036]);
    cases.push(["padding 1040", 0, 0, 1040]);
    cases.push(["padding 2012", 4, 4, 2012]);
    cases.push(["length 0 with 1040 bytes of data (padding 1040)", 0, 1040, 0 + 16 - ((32 + 1040) % 16 || 16)]);
    for (const [what, declared, data, pad] of cases) {
      if ((32 + data + pad) % 16 !== 0) throw new Error(`test case ${what} is not block aligned`);
      const packet = crafted(declared, data, pad);
      expect(refDecrypt(key, 8, packet), `${what}: the reference rejects it`).toBeNull();
      expectAllRejected(packet, what);
    }
  });
});
