/**
 * Big-number helpers of the loopback server: big-endian bytes <-> bigint,
 * modular exponentiation, a Miller–Rabin test and the random primes that
 * make the handshake's pq. Plain bigint arithmetic (no library).
 */
import { randomBytes } from "node:crypto";

/** Big-endian bytes (any length, leading zeros allowed) as a non-negative bigint. */
export function bigFromBytes(bytes: Uint8Array): bigint {
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return hex === "" ? 0n : BigInt(`0x${hex}`);
}

/** `value` as big-endian bytes: exactly `length` bytes (left-padded with zeros), or the minimal length when omitted. */
export function bigToBytes(value: bigint, length?: number): Uint8Array {
  if (value < 0n) throw new RangeError("bigToBytes: negative value");
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  if (value === 0n) hex = "";
  const minimal = hex.length / 2;
  const size = length ?? Math.max(minimal, 1);
  if (minimal > size) throw new RangeError(`bigToBytes: ${minimal} bytes do not fit in ${size}`);
  const out = new Uint8Array(size);
  for (let i = 0; i < minimal; i++) out[size - minimal + i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** base^exponent mod modulus (square and multiply). */
export function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  base %= modulus;
  while (exponent > 0n) {
    if (exponent & 1n) result = (result * base) % modulus;
    base = (base * base) % modulus;
    exponent >>= 1n;
  }
  return result;
}

/** A uniformly random bigint of `bytes` random bytes. */
export function randomBig(bytes: number): bigint {
  return bigFromBytes(randomBytes(bytes));
}

/** Miller–Rabin with these bases is exact below 3.3 * 10^24, far above the 31-bit primes used here. */
const BASES = [2n, 3n, 5n, 7n, 11n, 13n, 17n, 19n, 23n, 29n, 31n, 37n, 41n];

export function isProbablePrime(n: bigint): boolean {
  if (n < 2n) return false;
  for (const p of BASES) {
    if (n === p) return true;
    if (n % p === 0n) return false;
  }
  let d = n - 1n, s = 0;
  while ((d & 1n) === 0n) d >>= 1n, s++;
  outer: for (const a of BASES) {
    let x = modPow(a, d, n);
    if (x === 1n || x === n - 1n) continue;
    for (let i = 1; i < s; i++) {
      x = (x * x) % n;
      if (x === n - 1n) continue outer;
    }
    return false;
  }
  return true;
}

/** A random prime in [2^(bits-1), 2^bits). */
export function randomPrime(bits: number): bigint {
  const top = 1n << BigInt(bits - 1);
  for (;;) {
    const candidate = (randomBig(Math.ceil(bits / 8)) % top) | top | 1n;
    if (isProbablePrime(candidate)) return candidate;
  }
}

/** The pq of a handshake: two distinct random 31-bit primes, p < q (pq < 2^62, as Telegram's are). */
export function randomPq(): { p: bigint; q: bigint; pq: bigint } {
  for (;;) {
    const a = randomPrime(31), b = randomPrime(31);
    if (a === b) continue;
    const [p, q] = a < b ? [a, b] : [b, a];
    return { p, q, pq: p * q };
  }
}

export function xorBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length !== b.length) throw new RangeError("xorBytes: lengths differ");
  const out = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) out.set(p, offset), offset += p.length;
  return out;
}

export function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

export function hex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}
