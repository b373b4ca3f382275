/**
 * factorizePQ (ts/mtproto/factorize.ts): products whose factors the test knows,
 * checked with an independent bigint Miller-Rabin (test/helpers/primes.ts); the known
 * products of test/vectors/pq.txt when present; the byte form against
 * mtcute 0.30.3's factorizePQSync and GramJS 2.26.22's Factorizator
 * (+ Helpers.getByteArray, what its Authenticator sends); and the errors.
 */
import { readFileSync } from "node:fs";
import { NodeCryptoProvider } from "@mtcute/node/utils.js";
import { factorizePQSync } from "@mtcute/core/utils.js";
import { describe, expect, test } from "vitest";
import { ErrorCode, factorizePQ, TgCryptoError } from "../../ts/mod.ts";
import { expectBytes, expectError, expectSame } from "../helpers/bytes.ts";
import { loadGram } from "../helpers/clients.ts";
import { isPrime } from "../helpers/primes.ts";
import { Prng } from "../helpers/prng.ts";

const MAX = (1n << 64n) - 1n;

function randomPrime(rng: Prng, bits: number): bigint {
  const top = 1n << BigInt(bits - 1);
  let n = (top | BigInt(rng.u32()) | (BigInt(rng.u32()) << 32n)) & ((top << 1n) - 1n) | 1n;
  while (!isPrime(n)) n += 2n;
  return n < top << 1n ? n : randomPrime(rng, bits);
}

/** Minimal big-endian bytes. */
function toBytes(value: bigint): Uint8Array {
  const hex = value.toString(16);
  return Uint8Array.from((hex.length % 2 ? "0" + hex : hex).match(/../g)!, (h) => parseInt(h, 16));
}

/** Asserts factorizePQ(pq) = [p, q] in both forms. */
function expectSplit(pq: bigint, p: bigint, what = `${pq}`): void {
  expectSame(factorizePQ(pq), [p, pq / p], what);
  const [pb, qb] = factorizePQ(toBytes(pq));
  expectBytes(pb, toBytes(p), `${what} p bytes`);
  expectBytes(qb, toBytes(pq / p), `${what} q bytes`);
}

describe("factorizePQ", () => {
  test("Telegram's documented example: 0x17ED48941A08F981 = 0x494C553B * 0x53911073", () => {
    // core.telegram.org/mtproto/samples-auth_key (ResPQ.pq and P_Q_inner_data.p/q of the sample).
    const pq = Uint8Array.from([0x17, 0xed, 0x48, 0x94, 0x1a, 0x08, 0xf9, 0x81]);
    const [p, q] = factorizePQ(pq);
    expectBytes(p, Uint8Array.from([0x49, 0x4c, 0x55, 0x3b]));
    expectBytes(q, Uint8Array.from([0x53, 0x91, 0x10, 0x73]));
    expectSame(factorizePQ(0x17ed48941a08f981n), [0x494c553bn, 0x53911073n]);
  });

  test("products of random 31/32-bit primes (Telegram-sized), squares, 3 primes", () => {
    const rng = new Prng("pq-random");
    const started = performance.now();
    for (let i = 0; i < 150; i++) {
      const a = randomPrime(rng, rng.pick([31, 32])), b = randomPrime(rng, rng.pick([31, 32]));
      expectSplit(a * b, a < b ? a : b);
    }
    const elapsed = performance.now() - started;
    expect(elapsed, "150 Telegram-sized pq (a loose bound: the machine is shared)").toBeLessThan(3000);
    for (let i = 0; i < 50; i++) {
      const a = randomPrime(rng, rng.int(2, 32));
      expectSplit(a * a, a, `square of ${a}`);
    }
    for (let i = 0; i < 100; i++) {
      const primes = [randomPrime(rng, rng.int(2, 20)), randomPrime(rng, rng.int(2, 22)), randomPrime(rng, rng.int(2, 21))];
      const pq = primes.reduce((x, y) => x * y);
      expectSplit(pq, primes.reduce((x, y) => (x < y ? x : y)), `${primes.join(" * ")}`);
    }
    for (let i = 0; i < 100; i++) { // a small factor times a large prime, and two unbalanced primes
      const small = randomPrime(rng, rng.int(2, 16));
      const large = randomPrime(rng, 64 - small.toString(2).length);
      expectSplit(small * large, small, `${small} * ${large}`);
      const a = randomPrime(rng, 20), b = randomPrime(rng, 44);
      expectSplit(a * b, a, `${a} * ${b}`);
    }
  });

  test("even numbers, small composites, pseudoprimes, 2^64 - 1", () => {
    for (let n = 4n; n < 2000n; n++) {
      if (isPrime(n)) continue;
      let p = 2n;
      while (n % p !== 0n) p++;
      expectSplit(n, p);
    }
    expectSplit(MAX, 3n, "2^64 - 1 = 3 * 5 * 17 * 257 * 641 * 65537 * 6700417");
    expectSplit(MAX - 1n, 2n, "2^64 - 2");
    expectSplit(1n << 63n, 2n, "2^63");
    // Carmichael numbers and strong pseudoprimes to the small prime bases.
    expectSplit(561n, 3n);
    expectSplit(3215031751n, 151n, "spsp(2, 3, 5, 7) = 151 * 751 * 28351");
    expectSplit(3825123056546413051n, 149491n, "spsp(2..23) = 149491 * 747451 * 34233211");
    expectSplit(4294967291n * 4294967279n, 4294967279n, "the two largest 32-bit primes");
    expectSplit(4294967291n * 4294967291n, 4294967291n, "the largest 32-bit prime squared");
  });

  test("test/vectors/pq.txt (gen_pq.py, independent Python): every case, both forms", () => {
    // One case per line: `kind pq p q` in decimal, or `kind pq - -` for 0, 1 and primes.
    const text = readFileSync(new URL("../vectors/pq.txt", import.meta.url), "utf8");
    let split = 0, rejected = 0;
    for (const line of text.split("\n")) {
      if (line.startsWith("#") || line.trim() === "") continue;
      const [kind, pqText, pText, qText] = line.trim().split(/\s+/);
      const pq = BigInt(pqText!);
      if (pText === "-") {
        let error: unknown;
        try {
          factorizePQ(pq);
        } catch (e) {
          error = e;
        }
        expect(error, line).toBeInstanceOf(TgCryptoError);
        expect((error as TgCryptoError).code, line).toBe(ErrorCode.NOT_COMPOSITE);
        expect(() => factorizePQ(pq === 0n ? new Uint8Array(0) : toBytes(pq)), line).toThrow(TgCryptoError);
        rejected++;
        continue;
      }
      const p = BigInt(pText!), q = BigInt(qText!);
      expect(p * q, `${kind}: the vector itself`).toBe(pq);
      expectSplit(pq, p, `${kind} ${pq}`);
      split++;
    }
    expect(split).toBeGreaterThan(300);
    expect(rejected).toBeGreaterThan(10);
  });

  test("the same bytes as mtcute's factorizePQSync and GramJS's Factorizator", () => {
    const rng = new Prng("pq-clients");
    const provider = new NodeCryptoProvider();
    const gram = loadGram();
    for (let i = 0; i < 6; i++) { // GramJS takes ~50 ms per pq
      const a = randomPrime(rng, rng.pick([31, 32])), b = randomPrime(rng, rng.pick([31, 32]));
      const pqBytes = toBytes(a * b);
      const ours = factorizePQ(pqBytes);
      const mtcute = factorizePQSync(provider, pqBytes);
      expectBytes(ours[0], mtcute[0], "mtcute p");
      expectBytes(ours[1], mtcute[1], "mtcute q");
      // GramJS's randomized Factorizator now and then returns the trivial
      // split 1 x pq (its gcd hit pq); its caller would fail the handshake.
      // Ask again until it splits, so the comparison is of real answers.
      let p = gram.bigInt("1"), q = p;
      for (let attempt = 0; attempt < 20; attempt++) {
        ({ p, q } = gram.Factorizator.factorize(gram.bigInt((a * b).toString())));
        if (p.toString() !== "1" && q.toString() !== "1") break;
      }
      expectBytes(ours[0], new Uint8Array(gram.getByteArray(p)), "GramJS p");
      expectBytes(ours[1], new Uint8Array(gram.getByteArray(q)), "GramJS q");
    }
    // leading zeros in the input are accepted; outputs stay minimal
    const [p, q] = factorizePQ(Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 15]));
    expectBytes(p, Uint8Array.from([3]));
    expectBytes(q, Uint8Array.from([5]));
    const [p2, q2] = factorizePQ(Uint8Array.from([0x80, 0, 0, 0, 0, 0, 0, 0]));
    expectBytes(p2, Uint8Array.from([2]));
    expectBytes(q2, Uint8Array.from([0x40, 0, 0, 0, 0, 0, 0, 0]));
  });

  test("errors: not composite (TgCryptoError NOT_COMPOSITE), out of range (RangeError), types (TypeError)", () => {
    const notComposite = (value: bigint | Uint8Array, what: string) => {
      let error: unknown;
      try {
        factorizePQ(value as bigint);
      } catch (e) {
        error = e;
      }
      expect(error, what).toBeInstanceOf(TgCryptoError);
      expect((error as TgCryptoError).code, what).toBe(ErrorCode.NOT_COMPOSITE);
      expect((error as Error).message, what).toMatch(/not composite/);
    };
    const rng = new Prng("pq-primes");
    const primes = [2n, 3n, 5n, 7n, 65537n, 4294967291n, (1n << 61n) - 1n, 18446744073709551557n];
    for (let i = 0; i < 30; i++) primes.push(randomPrime(rng, rng.int(2, 64)));
    for (const value of [0n, 1n, ...primes]) {
      notComposite(value, `${value}`);
      notComposite(value === 0n ? new Uint8Array(0) : toBytes(value), `${value} as bytes`);
    }
    notComposite(new Uint8Array(8), "8 zero bytes");
    notComposite(Uint8Array.from([0, 0, 1]), "1 with leading zeros");
    for (const value of [-1n, -15n, 1n << 64n, (1n << 64n) + 15n, 1n << 100n]) {
      expectError(() => factorizePQ(value), RangeError, "pq must be in the range [0, 2^64)", `${value}`);
    }
    for (const length of [9, 16, 256]) {
      const bytes = new Uint8Array(length);
      bytes[length - 1] = 15;
      expectError(() => factorizePQ(bytes), RangeError, `pq must be at most 8 bytes (big-endian), got ${length}`);
    }
    const call = factorizePQ as (value: unknown) => unknown;
    for (const value of [15, "15", null, undefined, [15], new Uint16Array(1), new ArrayBuffer(8), { pq: 15n }]) {
      expectError(() => call(value), TypeError, undefined, `${String(value)}`);
    }
  });
});

describe("factorizePQ argument types", () => {
  test("neither a bigint nor an array view; another view type; messages", () => {
    for (const bad of ["x", 5, null, undefined, {}, [1, 2]]) {
      expectError(() => factorizePQ(bad as never), TypeError, "pq must be a bigint or a Uint8Array", String(bad));
    }
    expectError(() => factorizePQ(new Uint16Array(4) as never), TypeError, "pq must be a Uint8Array");
    expectError(() => factorizePQ(new DataView(new ArrayBuffer(8)) as never), TypeError, "pq must be a Uint8Array");
  });
});

