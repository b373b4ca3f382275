/**
 * tgcrypto-ffi/mtcute. createAesIge / createAesCtr against @mtcute/wasm, the
 * implementation mtcute itself runs (same bytes for mtcute's call patterns:
 * per-message IGE on subarrays, CTR streamed in TCP-sized chunks).
 * nativeCrypto(provider) inside @mtcute/core 0.30.3's own code (pinned
 * devDependencies), against the stock @mtcute/node NodeCryptoProvider: with
 * the same random bytes (randomFill stubbed on both), AuthKey.encryptMessage
 * / decryptMessage, createAesIgeForMessage, the obfuscated transport's CTR
 * streams (plain and MTProxy) and factorizePQSync give the same results.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { Bytes } from "@fuman/io";
import { IntermediatePacketCodec, ObfuscatedPacketCodec } from "@mtcute/core";
import { createAesIgeForMessage, factorizePQSync } from "@mtcute/core/utils.js";
import { NodeCryptoProvider } from "@mtcute/node/utils.js";
import * as wasm from "@mtcute/wasm";
import Long from "long";
import { beforeAll, describe, expect, test } from "vitest";

import { AuthKey } from "../../ts/mod.ts";
import { createAesCtr, createAesIge, nativeCrypto } from "../../ts/clients/mtcute.ts";
import { expectSame } from "../helpers/bytes.ts";
import { Prng } from "../helpers/prng.ts";

// mtcute's AuthKey is exported by no entry point of @mtcute/core: imported by file (as test/helpers/clients.ts does).
const AUTH_KEY_FILE = new URL("../../node_modules/@mtcute/core/network/auth-key.js", import.meta.url).href;

// deno-lint-ignore no-explicit-any
type Any = any;
let MtcuteAuthKey: Any;

/** A NodeCryptoProvider whose randomFill hands out a seeded stream (reset with `seed`). */
function seededProvider(): { provider: Any; seed(s: string): void } {
  const provider: Any = new NodeCryptoProvider();
  let rng = new Prng("");
  provider.randomFill = (buf: Uint8Array) => buf.set(rng.bytes(buf.length));
  return { provider, seed: (s) => (rng = new Prng(s)) };
}

const stock = seededProvider();
const inner = seededProvider();
const native: Any = nativeCrypto(inner.provider);
const both = [["stock", stock], ["native", { provider: native, seed: inner.seed }]] as const;
const log = { warnings: [] as string[], verbose() {}, debug() {}, warn(...a: unknown[]) { this.warnings.push(String(a[0])); } };

beforeAll(async () => {
  MtcuteAuthKey = (await import(AUTH_KEY_FILE)).AuthKey;
  await stock.provider.initialize();
  await native.initialize(); // the provider's own (loads @mtcute/wasm)
});

function authKey(provider: Any, key: Uint8Array): Any {
  const k = new MtcuteAuthKey(provider, log, {});
  k.setup(key);
  return k;
}

const long = (rng: Prng) => Long.fromBits(rng.u32() | 0, rng.u32() | 0);

describe("nativeCrypto(NodeCryptoProvider) in @mtcute/core", () => {
  test("is a provider: native hooks, the rest the provider's own (pbkdf2, hmac, gzip, random)", async () => {
    expect(native).toBeInstanceOf(NodeCryptoProvider);
    expect(native.sha256).not.toBe(stock.provider.sha256);
    const data = new Prng("fwd").bytes(3000);
    expectSame(native.sha1(data), new Uint8Array(stock.provider.sha1(data)));
    expectSame(native.sha256(data), new Uint8Array(stock.provider.sha256(data)));
    const password = data.subarray(0, 10), salt = data.subarray(10, 30);
    expectSame(await native.pbkdf2(password, salt, 100), await stock.provider.pbkdf2(password, salt, 100));
    expectSame(await native.hmacSha256(data, salt), await stock.provider.hmacSha256(data, salt));
    const packed = native.gzip(data, 10000);
    expectSame(packed, stock.provider.gzip(data, 10000));
    expect(native.gzip(data, 10)).toBe(null);
    inner.seed("r"), stock.seed("r");
    expectSame(native.randomBytes(40), stock.provider.randomBytes(40));
    expect(() => nativeCrypto({} as Any)).toThrow(/no createAesIge\(\).*@mtcute\/core 0\.30\.3/);
  });

  test("AuthKey.encryptMessage: byte-for-byte the stock provider's, 0 B .. 512 KiB", () => {
    const rng = new Prng("mtcute-encrypt");
    const key = rng.bytes(256);
    const [s, n] = [authKey(stock.provider, key), authKey(native, key)];
    expectSame(n.id, new Uint8Array(s.id));
    using server = new AuthKey(key);
    const sizes = [0, 4, 16, 64, 1024, 16384, 512 * 1024, ...Array.from({ length: 30 }, () => 4 * rng.int(0, 500))];
    for (const size of sizes) {
      const message = rng.bytes(16 + size); // msg_id, seq_no, length, body
      new DataView(message.buffer).setUint32(12, size, true);
      const salt = long(rng), session = long(rng);
      stock.seed(`pad-${size}`), inner.seed(`pad-${size}`);
      const expected = s.encryptMessage(message, salt, session);
      const packet = n.encryptMessage(message, salt, session);
      expectSame(packet, new Uint8Array(expected));
      expectSame(server.decryptMessage(packet, { server: true }).subarray(16), message);
    }
  });

  test("AuthKey.decryptMessage: the same callbacks, the same rejections", () => {
    const rng = new Prng("mtcute-decrypt");
    const key = rng.bytes(256);
    using server = new AuthKey(key);
    const keys = [authKey(stock.provider, key), authKey(native, key)];
    const open = (k: Any, packet: Uint8Array, session: Long) => {
      log.warnings = [];
      let result: unknown = null;
      k.decryptMessage(packet, session, (msgId: Long, seqNo: number, reader: Any) => {
        result = { msgId: msgId.toString(), seqNo, rest: new Uint8Array(reader.raw()) }; // the rest: body + padding
      });
      return { result, warnings: log.warnings };
    };
    for (const size of [0, 4, 64, 1024, 16384, 512 * 1024]) {
      const session = long(rng);
      const plaintext = rng.bytes(32 + size);
      const view = new DataView(plaintext.buffer);
      view.setInt32(8, session.low, true), view.setInt32(12, session.high, true), view.setUint32(28, size, true);
      const packet = server.encryptMessage(plaintext, { server: true });
      const [a, b] = keys.map((k) => open(k, packet, session));
      expectSame(b, a);
      expectSame(b.warnings, []);
      expectSame((b.result as Any).rest.subarray(0, size), plaintext.subarray(32));
      // Tampered: one flipped bit, a truncation, a wrong session: both reject, with the same warning.
      const flipped = packet.slice();
      flipped[24 + rng.int(0, flipped.length - 25)]! ^= 1 << rng.int(0, 7);
      for (const [bad, s] of [[flipped, session], [packet.subarray(0, packet.length - 16), session], [packet, long(rng)]] as const) {
        const [x, y] = keys.map((k) => open(k, bad, s));
        expectSame(y, x);
        expect(y.result).toBe(null);
        expect(y.warnings.length).toBe(1);
      }
    }
  });

  test("createAesIgeForMessage: same key derivation and cipher, both directions", () => {
    const rng = new Prng("mtcute-ige");
    for (let i = 0; i < 50; i++) {
      const key = rng.bytes(256), msgKey = rng.bytes(16), client = i % 2 === 0;
      const data = rng.bytes(16 * rng.int(1, 100));
      const s = createAesIgeForMessage(stock.provider, key, msgKey, client);
      const n = createAesIgeForMessage(native, key, msgKey, client);
      const encrypted = n.encrypt(data);
      expectSame(encrypted, s.encrypt(data));
      expectSame(n.decrypt(encrypted), data);
      expectSame(n.decrypt(data), s.decrypt(data));
    }
  });

  for (const proxy of [undefined, { dcId: 2, media: false, test: false, secret: new Prng("secret").bytes(16) }]) {
    test(`obfuscated transport${proxy ? " (MTProxy)" : ""}: tag, encoder and decoder CTR streams`, async () => {
      const results: Uint8Array[][] = [];
      for (const [, p] of both) {
        p.seed("obfuscated");
        const codec = new ObfuscatedPacketCodec(new IntermediatePacketCodec(), proxy);
        codec.setup(p.provider, log as Any);
        const out = [await codec.tag()];
        const rng = new Prng("frames");
        for (let i = 0; i < 10; i++) {
          const into = Bytes.alloc();
          await codec.encode(rng.bytes(i === 4 ? 16384 : 4 * rng.int(1, 800)), into);
          out.push(into.result().slice());
          out.push((codec as Any)._decryptor.process(rng.bytes(i === 6 ? 16384 : rng.int(1, 3000))).slice());
        }
        codec.reset();
        results.push(out);
      }
      expect(results[1]!.length).toBe(results[0]!.length);
      results[1]!.forEach((chunk, i) => expectSame(chunk, new Uint8Array(results[0]![i]!)));
    });
  }

  test("factorizePQ: the bytes of mtcute's factorizePQSync", async () => {
    const rng = new Prng("mtcute-pq");
    const isPrime = (n: bigint) => {
      if (n < 2n) return false;
      for (let d = 2n; d * d <= n; d++) if (n % d === 0n) return false;
      return true;
    };
    const prime = (bits: number) => {
      for (;;) {
        const c = BigInt((rng.u32() >>> (32 - bits)) | (1 << (bits - 1)) | 1) & ((1n << BigInt(bits)) - 1n);
        if (isPrime(c)) return c;
      }
    };
    const toBytes = (n: bigint) => {
      const out: number[] = [];
      for (; n > 0n; n >>= 8n) out.unshift(Number(n & 0xffn));
      return new Uint8Array(out);
    };
    // 0x17ED48941A08F981: the pq of core.telegram.org/mtproto/samples-auth_key.
    const products = [0x17ed48941a08f981n, 2n * 1000003n];
    for (let i = 0; i < 6; i++) products.push(prime(31) * prime(32));
    for (const pq of products) {
      const bytes = toBytes(pq);
      const [p, q] = await native.factorizePQ(bytes);
      const [sp, sq] = factorizePQSync(stock.provider, bytes);
      expectSame(p, new Uint8Array(sp));
      expectSame(q, new Uint8Array(sq));
    }
  });
});

describe("createAesIge / createAesCtr (the AES hooks alone)", () => {
  test("createAesIge matches @mtcute/wasm, statelessly, on subarrays", () => {
    const rng = new Prng("mtcute-ige");
    for (let i = 0; i < 300; i++) {
      const key = rng.bytes(32), iv = rng.bytes(32);
      const scheme = createAesIge(key, iv);
      const framed = rng.bytes(24 + 16 * rng.int(1, 40)); // auth-key id + msg key, then the body
      const body = framed.subarray(24);
      const encrypted = scheme.encrypt(body);
      expectSame(encrypted, wasm.ige256Encrypt(body, key, iv));
      expectSame(scheme.encrypt(body), encrypted); // no state carried between calls
      expectSame(scheme.decrypt(encrypted), body.slice());
      expectSame(wasm.ige256Decrypt(encrypted, key, iv), body.slice());
    }
  });

  test("createAesIge reads key and iv at each call, as NodeCryptoProvider's (test/clients/key_reuse.test.ts compares)", () => {
    const key = new Uint8Array(32).fill(1), iv = new Uint8Array(32).fill(2);
    const scheme = createAesIge(key, iv);
    key.fill(9), iv.fill(9);
    expectSame(scheme.encrypt(new Uint8Array(32)), wasm.ige256Encrypt(new Uint8Array(32), key.slice(), iv.slice()));
  });

  test("createAesCtr streams like @mtcute/wasm's ctr256 over random chunks", () => {
    const rng = new Prng("mtcute-ctr");
    for (let i = 0; i < 50; i++) {
      const key = rng.bytes(32), iv = rng.bytes(16);
      const ours = createAesCtr(key, iv, true);
      const theirs = wasm.createCtr256(key, iv);
      for (let chunk = 0; chunk < 20; chunk++) {
        const data = rng.bytes(rng.int(1, 600));
        expectSame(ours.process(data), wasm.ctr256(theirs, data));
      }
      ours.close();
      wasm.freeCtr256(theirs);
      expect(() => ours.process(new Uint8Array(1))).toThrow(/disposed/);
    }
  });
});
