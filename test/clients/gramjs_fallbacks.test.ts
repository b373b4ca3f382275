/**
 * installGramJS(): which path runs. Whatever the native code does not cover
 * must reach the stock GramJS function (the same result, or the same error),
 * and what it covers must not. Each stock function is wrapped in a counting
 * spy before installGramJS() saves it as "stock", so the count says which
 * path ran:
 * - crypto/IGE: keys that are not 256 bits, a decrypt of a partial block,
 *   empty input (stock); a 256-bit key on whole blocks (native);
 * - crypto/crypto createCipheriv/createDecipheriv: ECB, other key or iv
 *   sizes (stock); AES-256-CTR with a 16-byte iv (native);
 * - crypto/CTR: a key that is not 256 bits (stock);
 * - MTProtoState.encryptMessageData/decryptMessageData: an auth key that is
 *   not 256 bytes (stock); a 256-byte key (native);
 * - Factorizator.factorize: a pq over 64 bits (stock); Helpers.sha1/sha256 of
 *   a non-Buffer (stock).
 */
import { Buffer } from "node:buffer";
import { createRequire } from "node:module";

import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { installGramJS, uninstallGramJS } from "../../ts/clients/gramjs.ts";
import { gramjsModules } from "../helpers/clients.ts";
import { Prng } from "../helpers/prng.ts";

const require = createRequire(import.meta.url);
// deno-lint-ignore no-explicit-any
type Any = any;
const { telegram, Helpers, IGEModule, CTRModule, cryptoJs, Factorizator, MTProtoState, GramAuthKey } = gramjsModules();
const bigInt: Any = require("big-integer");
const { Logger } = telegram.extensions;

type Point = "IGE" | "IGE.encryptIge" | "IGE.decryptIge" | "CTR" | "createCipheriv" | "createDecipheriv" |
  "encryptMessageData" | "decryptMessageData" | "factorize" | "sha1" | "sha256";
const calls = new Map<Point, number>();
const count = (point: Point) => calls.set(point, (calls.get(point) ?? 0) + 1);
const originals: [Any, string, unknown][] = [];

/** Replaces object[key] by `spy` until afterAll. */
function spyOn(object: Any, key: string, spy: unknown): void {
  originals.push([object, key, object[key]]);
  object[key] = spy;
}

beforeAll(() => {
  uninstallGramJS();
  const StockIge = IGEModule.IGE;
  class CountingIge extends StockIge {
    constructor(key: Any, iv: Any) {
      super(key, iv);
      count("IGE");
    }
    encryptIge(data: Any) {
      count("IGE.encryptIge");
      return super.encryptIge(data);
    }
    decryptIge(data: Any) {
      count("IGE.decryptIge");
      return super.decryptIge(data);
    }
  }
  spyOn(IGEModule, "IGE", CountingIge);
  const StockCtr = CTRModule.CTR;
  spyOn(CTRModule, "CTR", class extends StockCtr {
    constructor(key: Any, iv: Any) {
      super(key, iv);
      count("CTR");
    }
  });
  for (const [object, key, point] of [
    [cryptoJs, "createCipheriv", "createCipheriv"],
    [cryptoJs, "createDecipheriv", "createDecipheriv"],
    [MTProtoState.prototype, "encryptMessageData", "encryptMessageData"],
    [MTProtoState.prototype, "decryptMessageData", "decryptMessageData"],
    [Factorizator, "factorize", "factorize"],
    [Helpers, "sha1", "sha1"],
    [Helpers, "sha256", "sha256"],
  ] as const) {
    const stock = object[key];
    spyOn(object, key, function (this: unknown, ...args: unknown[]) {
      count(point);
      return stock.apply(this, args);
    });
  }
  installGramJS();
});
afterAll(() => {
  uninstallGramJS();
  for (const [object, key, value] of originals.reverse()) object[key] = value;
});

/** Calls of each point during `fn` (only the non-zero ones). */
async function callsDuring(fn: () => unknown): Promise<Partial<Record<Point, number>>> {
  calls.clear();
  await fn();
  return Object.fromEntries(calls);
}

/** fn's result as hex, or its error as "Class: message". */
async function outcome(fn: () => unknown): Promise<string> {
  try {
    const value = await fn();
    return value instanceof Uint8Array ? `bytes ${Buffer.from(value).toString("hex")}` : `value ${String(value)}`;
  } catch (error) {
    return `${(error as Error).constructor?.name}: ${(error as Error).message}`;
  }
}

/** The same call on the stock code (uninstalled; spies still in place). */
async function onStock<T>(fn: () => T | Promise<T>): Promise<T> {
  uninstallGramJS();
  try {
    return await fn();
  } finally {
    installGramJS();
  }
}

const rng = new Prng("gramjs fallbacks");
const bytes = (n: number) => Buffer.from(rng.bytes(n));

describe("installGramJS: what goes to stock GramJS, and what does not", () => {
  test("IGE: 128- and 192-bit keys and partial-block or empty input go to stock (same bytes or error); a 256-bit key on whole blocks does not", async () => {
    for (const keyLength of [16, 24]) {
      const key = bytes(keyLength), iv = bytes(32), data = bytes(64);
      const run = () => {
        const ige = new IGEModule.IGE(key, iv);
        return Buffer.concat([ige.encryptIge(data), new IGEModule.IGE(key, iv).decryptIge(data)]);
      };
      expect(await callsDuring(run), `${keyLength}-byte key`).toEqual({ IGE: 2, "IGE.encryptIge": 1, "IGE.decryptIge": 1 });
      expect(await outcome(run)).toBe(await onStock(() => outcome(run)));
    }
    const key = bytes(32), iv = bytes(32);
    for (const length of [20, 1, 47]) {
      const data = bytes(length);
      const run = () => new IGEModule.IGE(key, iv).decryptIge(data);
      expect(await callsDuring(run), `decrypt of ${length} bytes`).toEqual({ IGE: 1, "IGE.decryptIge": 1 });
      expect(await outcome(run)).toBe(await onStock(() => outcome(run)));
    }
    for (const direction of ["encryptIge", "decryptIge"] as const) {
      const run = () => new IGEModule.IGE(key, iv)[direction](Buffer.alloc(0));
      expect(await callsDuring(run), `empty ${direction}`).toEqual({ IGE: 1, [`IGE.${direction}`]: 1 });
      expect(await outcome(run)).toBe(await onStock(() => outcome(run)));
    }
    const whole = bytes(96);
    const native = () => Buffer.concat([new IGEModule.IGE(key, iv).encryptIge(whole), new IGEModule.IGE(key, iv).decryptIge(whole)]);
    expect(await callsDuring(native), "256-bit key, whole blocks").toEqual({});
    expect(await outcome(native)).toBe(await onStock(() => outcome(native)));
  });

  test("createCipheriv/createDecipheriv: ECB and other key or iv sizes go to stock; AES-256-CTR with a 16-byte iv does not", async () => {
    const data = bytes(100);
    const cases: [string, number, number, boolean][] = [
      ["AES-256-ECB", 32, 16, true],
      ["AES-256-CTR", 16, 16, true],
      ["AES-256-CTR", 24, 16, true],
      ["AES-256-CTR", 32, 8, true],
      ["AES-256-CTR", 32, 16, false],
      ["aes-256-ctr", 32, 16, false],
    ];
    for (const [algorithm, keyLength, ivLength, stock] of cases) {
      const key = bytes(keyLength), iv = bytes(ivLength);
      for (const factory of ["createCipheriv", "createDecipheriv"] as const) {
        const run = () => {
          const cipher = cryptoJs[factory](algorithm, key, iv);
          return Buffer.concat([Buffer.from(cipher.update(data.subarray(0, 48))), Buffer.from(cipher.update(data.subarray(48)))]);
        };
        const what = `${factory}(${algorithm}, ${keyLength}-byte key, ${ivLength}-byte iv)`;
        expect((await callsDuring(() => outcome(run)))[factory] ?? 0, what).toBe(stock ? 1 : 0);
        expect(await outcome(run), what).toBe(await onStock(() => outcome(run)));
      }
    }
  });

  test("CTR: a key that is not 256 bits goes to stock; a 256-bit key does not", async () => {
    for (const [keyLength, stock] of [[16, true], [24, true], [32, false]] as const) {
      const key = bytes(keyLength), iv = bytes(16), data = bytes(77);
      const run = () => new CTRModule.CTR(key, iv).encrypt(data);
      expect((await callsDuring(run)).CTR ?? 0, `${keyLength}-byte key`).toBe(stock ? 1 : 0);
      expect(await outcome(run)).toBe(await onStock(() => outcome(run)));
    }
  });

  test("MTProtoState: an auth key that is not 256 bytes goes to stock for encrypt and decrypt; a 256-byte key does not", async () => {
    const stockRandom = Helpers.generateRandomBytes;
    for (const [keyLength, stock] of [[128, true], [255, true], [256, false]] as const) {
      const authKey = new GramAuthKey();
      await authKey.setKey(bytes(keyLength));
      const state = new MTProtoState(authKey, new Logger("error"), true);
      state.salt = bigInt(12345);
      const data = bytes(64);
      const seed = `encrypt ${keyLength}`;
      const encrypt = async () => {
        const random = new Prng(seed);
        Helpers.generateRandomBytes = (n: number) => Buffer.from(random.bytes(n));
        try {
          return await state.encryptMessageData(data);
        } finally {
          Helpers.generateRandomBytes = stockRandom;
        }
      };
      expect((await callsDuring(encrypt)).encryptMessageData ?? 0, `encrypt, ${keyLength}-byte key`).toBe(stock ? 1 : 0);
      const packet: Buffer = await encrypt();
      expect(Buffer.from(packet).toString("hex"), `encrypt, ${keyLength}-byte key: stock's bytes`)
        .toBe(Buffer.from(await onStock(encrypt)).toString("hex"));
      // A client packet fed back: rejected by GramJS's checks (wrong direction) in both, with the same error.
      const decrypt = () => state.decryptMessageData(packet);
      expect((await callsDuring(() => outcome(decrypt))).decryptMessageData ?? 0, `decrypt, ${keyLength}-byte key`).toBe(stock ? 1 : 0);
      expect(await outcome(decrypt)).toBe(await onStock(() => outcome(decrypt)));
    }
  });

  test("Factorizator: a pq over 64 bits goes to stock; Helpers.sha1/sha256 of a non-Buffer go to stock", async () => {
    const p = bigInt("4294967311"), q = bigInt("4294967357"); // primes just over 2^32: pq > 2^64
    const big = () => Factorizator.factorize(p.multiply(q));
    expect(await callsDuring(big)).toEqual({ factorize: 1 });
    const small = () => Factorizator.factorize(bigInt("1724114033281923457"));
    expect(await callsDuring(small)).toEqual({});
    expect(String(small().p)).toBe(String((await onStock(small)).p));
    for (const hash of ["sha1", "sha256"] as const) {
      const text = () => Helpers[hash]("not a buffer");
      expect(await callsDuring(() => outcome(text)), `${hash} of a string`).toEqual({ [hash]: 1 });
      expect(await outcome(text)).toBe(await onStock(() => outcome(text)));
      expect(await callsDuring(() => Helpers[hash](bytes(10))), `${hash} of a Buffer`).toEqual({});
    }
  });
});
