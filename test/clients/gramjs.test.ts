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

import { describe, expect, test, vi } from "vitest";

import { installGramJS, isGramJSInstalled, TESTED_GRAMJS_VERSION, uninstallGramJS } from "../../ts/clients/gramjs.ts";
import { gramjsModules } from "../helpers/clients.ts";
import { original, patchPoints, stockAndNative, stockGramJSAfterEachTest } from "../helpers/gramjs.ts";
import { Prng } from "../helpers/prng.ts";

const require = createRequire(import.meta.url);
// deno-lint-ignore no-explicit-any
type Any = any;
const { telegram, Helpers, IGEModule, CTRModule, cryptoJs, Factorizator, bigInt } = gramjsModules();
const { ConnectionTCPObfuscated }: Any = require("telegram/network/connection/TCPObfuscated");
const { ConnectionTCPMTProxyAbridged }: Any = require("telegram/network/connection/TCPMTProxy");
const { Logger } = telegram.extensions;

stockGramJSAfterEachTest();

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
    expect(() => installGramJS({ require: missing })).toThrow(/cannot load the "telegram" or "teleproto" package[^]*telegram@2\.26\.22/);
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
        expect(() => installGramJS({ resolveFrom: dir + "/" })).toThrow(/cannot load the "telegram" or "teleproto" package[^]*options\.resolveFrom/);
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
    // Stock's walks start from big-integer's randBetween, which draws from Math.random: seeded here, so that
    // stock's answer (which is sometimes p = 1 for the smaller products) is the same on every run.
    const seeded = new Prng("gramjs-pq-stock");
    const random = vi.spyOn(Math, "random").mockImplementation(() => seeded.u32() / 2 ** 32);
    for (const pq of products) {
      const [stock, native] = await stockAndNative("pq", () => Factorizator.factorize(pq));
      expect(bigInt.isInstance(native.p) && bigInt.isInstance(native.q)).toBe(true);
      expect(native.p.toString()).toBe(stock.p.toString());
      expect(native.q.toString()).toBe(stock.q.toString());
      expect(native.p.multiply(native.q).equals(pq)).toBe(true);
    }
    random.mockRestore();
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
