/**
 * Big-number helpers of the loopback server: big-endian bytes <-> bigint,
 * modular exponentiation and primality (test/helpers/primes.ts) and the random
 * primes that make the handshake's pq. Plain bigint arithmetic (no library).
 */
import { randomBytes } from "node:crypto";
import { isPrime, modPow } from "../../helpers/primes.ts";

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

export { modPow };

/** A uniformly random bigint of `bytes` random bytes. */
export function randomBig(bytes: number): bigint {
  return bigFromBytes(randomBytes(bytes));
}

/** A random prime in [2^(bits-1), 2^bits). */
export function randomPrime(bits: number): bigint {
  const top = 1n << BigInt(bits - 1);
  for (;;) {
    const candidate = (randomBig(Math.ceil(bits / 8)) % top) | top | 1n;
    if (isPrime(candidate)) return candidate;
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
