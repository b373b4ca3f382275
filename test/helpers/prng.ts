/**
 * Seeded PRNG for the tests: xoshiro128** (Blackman & Vigna), state seeded
 * from a string with splitmix32. Deterministic across runtimes; no Math.random.
 */
export class Prng {
  private s = new Uint32Array(4);

  constructor(seed: string) {
    let h = 0x9e3779b9;
    for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x85ebca6b) >>> 0;
    const splitmix32 = () => {
      h = (h + 0x9e3779b9) >>> 0;
      let z = h;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    for (let i = 0; i < 4; i++) this.s[i] = splitmix32();
    if ((this.s[0] | this.s[1] | this.s[2] | this.s[3]) === 0) this.s[0] = 1;
  }

  /** Uniform 32-bit unsigned integer. */
  u32(): number {
    const s = this.s;
    const rotl = (x: number, k: number) => (x << k) | (x >>> (32 - k));
    const result = Math.imul(rotl(Math.imul(s[1], 5), 7), 9) >>> 0;
    const t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** Integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + (this.u32() % (hi - lo + 1));
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const v = this.u32();
      out[i] = v;
      if (i + 1 < n) out[i + 1] = v >>> 8;
      if (i + 2 < n) out[i + 2] = v >>> 16;
      if (i + 3 < n) out[i + 3] = v >>> 24;
    }
    return out;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.u32() % items.length];
  }

  /** Split `total` into random positive parts, each a multiple of `unit`. */
  chunks(total: number, unit: number, maxParts = 8): number[] {
    const parts: number[] = [];
    let left = total / unit;
    while (left > 0) {
      const n = parts.length === maxParts - 1 ? left : this.int(1, left);
      parts.push(n * unit);
      left -= n;
    }
    return parts;
  }
}
