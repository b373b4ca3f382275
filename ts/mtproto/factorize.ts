/**
 * {@link factorizePQ}: splits the `pq` of the auth key exchange (ResPQ) in
 * native code (Pollard-Brent with 128-bit products, deterministic
 * Miller-Rabin).
 *
 * @module
 */

import { factorize } from "../runtime/bound.ts";
import { TgCryptoError } from "../errors.ts";
import { ErrorCode } from "../runtime/symbols.ts";
import { byteLength, isBytes, newBytes } from "../validate.ts";

const isView = ArrayBuffer.isView;
const MAX_U64 = 0xffff_ffff_ffff_ffffn;
const MAX_PQ_BYTES = 8;

// p and q come back as two uint64_t in native byte order.
const result = new BigUint64Array(2);
const resultBytes = new Uint8Array(result.buffer);
const pOut = resultBytes.subarray(0, 8);
const qOut = resultBytes.subarray(8, 16);

/** [p, q] of `pq` (already range-checked). */
function split(pq: bigint): [bigint, bigint] {
  const code = factorize(pq, pOut, qOut);
  if (code === ErrorCode.NOT_COMPOSITE) {
    throw new TgCryptoError(code, `pq = ${pq} is not composite (0, 1 or a prime), so it has no factorization`);
  }
  if (code === ErrorCode.NO_FACTOR) throw new TgCryptoError(code, `No factor of pq = ${pq} was found`);
  if (code !== 0) throw new TgCryptoError(code);
  return [result[0]!, result[1]!];
}

/** Big-endian bytes without leading zeros (the value is at least 2). */
function minimalBytes(value: bigint): Uint8Array<ArrayBuffer> {
  let length = 0;
  for (let v = value; v > 0n; v >>= 8n) length++;
  const out = newBytes(length);
  for (let i = length - 1; i >= 0; i--) {
    out[i] = Number(value & 0xffn);
    value >>= 8n;
  }
  return out;
}

/**
 * Factorizes the `pq` of the auth key exchange: p is the smallest prime
 * factor, q = pq / p (for Telegram's product of two primes: the two primes,
 * p <= q). Any composite below 2^64 is split.
 *
 * - `bigint` in, `bigint`s out; it must be in [0, 2^64).
 * - `Uint8Array` in (big-endian, as the TL `bytes` of ResPQ.pq; at most 8
 *   bytes, leading zeros allowed), big-endian `Uint8Array`s out without
 *   leading zeros, as P_Q_inner_data.p and .q carry them (the same bytes as
 *   mtcute's `factorizePQSync` and GramJS's `getByteArray(Factorizator.factorize(pq).p)`).
 *
 * @throws {TypeError} if `pq` is neither a bigint nor a Uint8Array
 * @throws {RangeError} for a bigint outside [0, 2^64) or more than 8 bytes
 * @throws {TgCryptoError} with code `ErrorCode.NOT_COMPOSITE` for 0, 1 or a
 *   prime (a server sending one is broken or hostile)
 */
export function factorizePQ(pq: bigint): [bigint, bigint];
export function factorizePQ(pq: Uint8Array): [Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>];
export function factorizePQ(pq: bigint | Uint8Array): [bigint, bigint] | [Uint8Array, Uint8Array] {
  if (typeof pq === "bigint") {
    if (pq < 0n || pq > MAX_U64) throw new RangeError("pq must be in the range [0, 2^64)");
    return split(pq);
  }
  if (!isBytes(pq)) {
    throw new TypeError(isView(pq) ? "pq must be a Uint8Array" : "pq must be a bigint or a Uint8Array");
  }
  const length = byteLength(pq, "pq");
  if (length > MAX_PQ_BYTES) {
    throw new RangeError(`pq must be at most 8 bytes (big-endian), got ${length}`);
  }
  const bytes = pq as Uint8Array;
  let value = 0n;
  for (let i = 0; i < length; i++) value = (value << 8n) | BigInt(bytes[i]!);
  const [p, q] = split(value);
  return [minimalBytes(p), minimalBytes(q)];
}
