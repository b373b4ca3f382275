/**
 * sha256 / sha1 (ts/mtproto/hash.ts) against node:crypto's createHash (OpenSSL in
 * Node, BoringSSL in Bun, Deno's own), for every length 0..5000 with random
 * splits into parts, the Into variants, and bad arguments. Run once per
 * backend like the other suites (TGCRYPTO_BACKEND=soft selects the portable
 * hashes).
 */
import { describe, expect, test } from "vitest";
import { backend, backends, hashEngine, setBackend, sha1, sha1Into, sha256, sha256Into } from "../../ts/mod.ts";
import { atOffset, expectBytes, expectError, expectSame } from "../helpers/bytes.ts";
import { nodeSha1, nodeSha256 } from "../helpers/mtproto_reference.ts";
import { Prng } from "../helpers/prng.ts";

const HASHES = [
  { name: "sha256", size: 32, fn: sha256, into: sha256Into, ref: nodeSha256 },
  { name: "sha1", size: 20, fn: sha1, into: sha1Into, ref: nodeSha1 },
] as const;

const enc = (s: string) => new TextEncoder().encode(s);
const hexOf = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** Splits `data` into 1..6 random parts (empty parts included), as subarrays. */
function randomSplit(rng: Prng, data: Uint8Array): Uint8Array[] {
  const count = rng.int(1, 6);
  const cuts = Array.from({ length: count - 1 }, () => rng.int(0, data.length)).sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let start = 0;
  for (const cut of [...cuts, data.length]) {
    parts.push(data.subarray(start, cut));
    start = cut;
  }
  return parts;
}

describe.each(HASHES)("$name", ({ name, size, fn, into, ref }) => {
  test("FIPS 180-4 examples (abc, the 448-bit message, empty)", () => {
    // Digests from NIST's FIPS 180-4 example files (SHA256.pdf, SHA1.pdf, csrc.nist.gov
    // "Examples with intermediate values"); the empty-message digests are the well-known ones.
    const known: Record<string, [string, string, string]> = {
      sha256: [
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      ],
      sha1: [
        "a9993e364706816aba3e25717850c26c9cd0d89d",
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
        "da39a3ee5e6b4b0d3255bfef95601890afd80709",
      ],
    };
    const [abc, long, empty] = known[name]!;
    expect(hexOf(fn(enc("abc")))).toBe(abc);
    expect(hexOf(fn(enc("a"), enc("bc")))).toBe(abc);
    expect(hexOf(fn(enc("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")))).toBe(long);
    expect(hexOf(fn())).toBe(empty);
    expect(hexOf(fn(new Uint8Array(0)))).toBe(empty);
    expect(hexOf(fn(new Uint8Array(0), new Uint8Array(0), new Uint8Array(0)))).toBe(empty);
  });

  test("every length 0..5000, one part and random splits, against node:crypto", () => {
    const rng = new Prng(`${name}-lengths`);
    const source = rng.bytes(5000 + 64);
    for (let length = 0; length <= 5000; length++) {
      const offset = rng.int(0, 63);
      const data = source.subarray(offset, offset + length);
      const expected = ref(data);
      const one = fn(data);
      expect(one.length).toBe(size);
      expectBytes(one, expected, `${name} length ${length}`);
      const parts = randomSplit(rng, data);
      expectBytes(fn(...parts), expected, `${name} length ${length} in ${parts.length} parts`);
    }
  });

  test("many parts, long inputs (block-boundary carries between parts)", () => {
    const rng = new Prng(`${name}-parts`);
    for (let i = 0; i < 200; i++) {
      const parts = Array.from({ length: rng.int(0, 40) }, () => rng.bytes(rng.pick([0, 1, 55, 56, 63, 64, 65, rng.int(0, 300)])));
      expectBytes(fn(...parts), ref(...parts), `${parts.length} parts`);
    }
    const big = rng.bytes(3 << 20);
    expectBytes(fn(big), ref(big), "3 MiB");
    expectBytes(fn(big.subarray(0, 1 << 20), big.subarray(1 << 20)), ref(big), "3 MiB in two parts");
  });

  test("outputs are fresh arrays with their own buffer", () => {
    const a = fn(enc("x")), b = fn(enc("x"));
    expect(a.buffer).not.toBe(b.buffer);
    expect(a.byteOffset).toBe(0);
    expect(a.buffer.byteLength).toBe(size);
  });

  test(`${name}Into writes ${size} bytes, leaves the rest, returns the written view`, () => {
    const rng = new Prng(`${name}-into`);
    for (let i = 0; i < 300; i++) {
      const parts = randomSplit(rng, rng.bytes(rng.int(0, 2000)));
      const expected = ref(...parts);
      const out = atOffset(new Uint8Array(size + 9).fill(0xee), rng.int(0, 7));
      const result = into(out, ...parts);
      expect(result.buffer).toBe(out.buffer);
      expect(result.byteOffset).toBe(out.byteOffset);
      expectBytes(result, expected);
      expectSame(Array.from(out.subarray(size)), new Array(9).fill(0xee));
    }
    const exact = new Uint8Array(size);
    expect(into(exact, enc("abc"))).toBe(exact);
    expectBytes(exact, ref(enc("abc")));
  });

  test(`${name}Into may overwrite its own input`, () => {
    const rng = new Prng(`${name}-overlap`);
    for (const length of [size, 64, 200, 1000]) {
      const data = rng.bytes(length);
      const expected = ref(data);
      const copy = data.slice();
      expectBytes(into(copy, copy), expected, "one part, out = input");
      const buffer = new Uint8Array(length + 3);
      buffer.set(data);
      expectBytes(into(buffer.subarray(3), buffer.subarray(0, 10), buffer.subarray(10, length)), expected, "two parts");
    }
  });

  test("bad arguments: TypeError / RangeError, nothing written", () => {
    const bad: unknown[] = [undefined, null, "abc", [1, 2, 3], new Uint16Array(4), new ArrayBuffer(4), 7];
    const call = fn as (...a: unknown[]) => Uint8Array;
    const callInto = into as (...a: unknown[]) => Uint8Array;
    for (const value of bad) {
      expectError(() => call(value), TypeError, undefined, `${name}(${String(value)})`);
      expectError(() => call(enc("a"), value), TypeError, undefined, `${name}(a, ${String(value)})`);
      expectError(() => callInto(value, enc("a")), TypeError, undefined, `${name}Into(${String(value)}, a)`);
      const out = new Uint8Array(size).fill(1);
      expectError(() => callInto(out, enc("a"), value), TypeError, undefined, `${name}Into(out, a, bad)`);
      expect(out.every((b) => b === 1)).toBe(true);
    }
    const small = new Uint8Array(size - 1).fill(1);
    expectError(() => into(small, enc("a")), RangeError, `Output buffer is too small (need ${size} bytes)`);
    expect(small.every((b) => b === 1)).toBe(true);
  });
});

describe("hash engines", () => {
  test("hashEngine() names one engine; forcing soft uses the portable code; every engine agrees", () => {
    const original = backend();
    const engines = ["sha-ni", "armv8-sha", "portable"];
    expect(engines).toContain(hashEngine());
    if (original === "soft") expect(hashEngine()).toBe("portable");
    const rng = new Prng("hash-engines");
    const inputs = Array.from({ length: 60 }, (_, i) => rng.bytes(i * 37));
    try {
      for (const { name, available } of backends()) {
        if (!available) continue;
        setBackend(name);
        const engine = hashEngine();
        expect(engines).toContain(engine);
        if (name === "soft") expect(engine).toBe("portable");
        for (const data of inputs) {
          expectBytes(sha256(data), nodeSha256(data), `${name}/${engine} sha256`);
          expectBytes(sha1(data), nodeSha1(data), `${name}/${engine} sha1`);
        }
      }
    } finally {
      setBackend(original);
    }
  });
});
