/** OutputPool: the opt-in slab allocator for the `...Into` functions. */
import { describe, expect, test } from "vitest";
import { ctr256EncryptInto, ige256Decrypt, ige256EncryptInto, OutputPool } from "../../ts/mod.ts";
import { Prng } from "../helpers/prng.ts";
import { refIge } from "../helpers/reference.ts";

describe("OutputPool", () => {
  test("views never overlap, and outputs written into them stay intact", () => {
    const rng = new Prng("output-pool");
    const pool = new OutputPool(4096);
    const key = rng.bytes(32), iv = rng.bytes(32);
    const kept: { data: Uint8Array; out: Uint8Array }[] = [];
    for (let i = 0; i < 500; i++) {
      const data = rng.bytes(16 * rng.int(1, 20));
      kept.push({ data, out: ige256EncryptInto(pool.take(data.length), data, key, iv) });
    }
    for (const { data, out } of kept) expect(out).toEqual(refIge(data, key, iv, false));
    for (const { out } of kept) expect(ige256Decrypt(out, key, iv).length).toBe(out.length);
    // Views of one slab are disjoint and 8-byte aligned.
    const fresh = new OutputPool(4096);
    const a = fresh.take(5), b = fresh.take(5);
    expect(b.buffer).toBe(a.buffer);
    expect(b.byteOffset).toBe(a.byteOffset + 8);
  });

  test("large requests get their own buffer; a transferred slab is replaced", () => {
    const pool = new OutputPool(1024);
    const big = pool.take(1000);
    expect(big.buffer.byteLength).toBe(1000);
    const small = pool.take(16);
    structuredClone(small, { transfer: [small.buffer] });
    expect(small.length).toBe(0); // detached, as documented
    const next = pool.take(16);
    expect(next.length).toBe(16);
    const state = Uint8Array.of(0);
    expect(ctr256EncryptInto(next, new Uint8Array(16), new Uint8Array(32), new Uint8Array(16), state).length).toBe(16);
  });

  test("bad arguments are RangeErrors", () => {
    expect(() => new OutputPool(8)).toThrow(RangeError);
    expect(() => new OutputPool().take(-1)).toThrow(RangeError);
    expect(() => new OutputPool().take(1.5)).toThrow(RangeError);
  });
});

describe("OutputPool boundaries", () => {
  test("the default slab is 64 KiB; half a slab is the largest pooled request; a full slab is used to its last byte", () => {
    const pool = new OutputPool();
    const a = pool.take(32 * 1024), b = pool.take(32 * 1024);
    expect([a.buffer.byteLength, b.buffer, b.byteOffset]).toEqual([64 * 1024, a.buffer, 32 * 1024]);
    const own = pool.take(32 * 1024 + 1);
    expect([own.buffer.byteLength, own.byteOffset]).toEqual([32 * 1024 + 1, 0]);
    const next = pool.take(8); // the slab is full to its last byte: a new one
    expect(next.buffer).not.toBe(a.buffer);
    const small = new OutputPool(16);
    const [x, y] = [small.take(8), small.take(8)];
    expect([x.buffer, y.byteOffset]).toEqual([y.buffer, 8]);
    expect(small.take(0).length).toBe(0);
  });

  test("argument errors, with their messages", () => {
    for (const bad of [15, 0, -1, 16.5, Number.NaN]) {
      expect(() => new OutputPool(bad), String(bad)).toThrow(new RangeError("slabBytes must be an integer >= 16"));
    }
    expect(new OutputPool(16).take(8).length).toBe(8);
    const pool = new OutputPool();
    for (const bad of [-1, 1.5, Number.NaN, Infinity]) {
      expect(() => pool.take(bad), String(bad)).toThrow(new RangeError("length must be a non-negative integer"));
    }
  });
});
