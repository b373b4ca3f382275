/**
 * SHA-256 and SHA-1 (FIPS 180-4) in native code, with the hardware engine
 * the CPU has (see {@link hashEngine}). Several parts hash as their
 * concatenation, without concatenating them in JS.
 *
 * @module
 */

import {
  allocate,
  finish,
  hashEngineName,
  nativeInit,
  sha1Final,
  sha1Init,
  sha1OneShot,
  sha1Update,
  sha256Final,
  sha256Init,
  sha256OneShot,
  sha256Update,
} from "../runtime/bound.ts";
import { nativeError, TgCryptoError } from "../errors.ts";
import { ErrorCode } from "../runtime/symbols.ts";
import { byteLength, checkOutput, MAX_DATA_LENGTH, viewOf, written } from "../validate.ts";

/** Digest sizes in bytes. */
export const SHA256_SIZE = 32;
export const SHA1_SIZE = 20;
/** TG_SHA256_STATE_SIZE / TG_SHA1_STATE_SIZE. */
const STATE_SIZE = 112;

/**
 * One state for every multi-part hash: calls are synchronous and nothing
 * here re-enters, so a module-level buffer is never shared by two hashes.
 * tg_*_final wipes it.
 */
const state = new Uint8Array(STATE_SIZE);
const EMPTY = new Uint8Array(0);

/**
 * The engine's length of every part (TypeError unless each is a genuine,
 * live Uint8Array), into {@link partLengths}. `parts` is the rest array of
 * the call (the engine's own array), so nothing here runs caller code.
 */
function measureParts(parts: readonly unknown[]): void {
  partLengths.length = parts.length;
  for (let i = 0; i < parts.length; i++) partLengths[i] = byteLength(parts[i], "every part");
}

/** The lengths {@link measureParts} found, for the hash that follows it in the same call. */
const partLengths: number[] = [];

function check(code: number): void {
  if (code !== 0) throw nativeError(code);
}

const SHA256 = 0;
const SHA1 = 1;
type HashKind = typeof SHA256 | typeof SHA1;

/**
 * The hash of the concatenation of `parts` into `digest`: one native call
 * for a single part, else init/update/final on the module's state. (The
 * bound functions are read per call: they are assigned when the library
 * loads.)
 */
function hashParts(kind: HashKind, digest: Uint8Array, parts: readonly Uint8Array[]): void {
  if (parts.length <= 1) {
    const data = parts.length === 1 ? parts[0]! : EMPTY;
    const length = parts.length === 1 ? partLengths[0]! : 0;
    if (length <= MAX_DATA_LENGTH) {
      return check((kind === SHA1 ? sha1OneShot : sha256OneShot)(digest, data, length));
    }
  }
  const update = kind === SHA1 ? sha1Update : sha256Update;
  check((kind === SHA1 ? sha1Init : sha256Init)(state));
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const length = partLengths[i]!;
    // Lengths cross the FFI as uint32_t: a huge part goes in pieces.
    for (let offset = 0; offset < length; offset += MAX_DATA_LENGTH) {
      const n = Math.min(length - offset, MAX_DATA_LENGTH);
      check(update(state, offset === 0 && n === length ? part : viewOf(part, offset, n), n));
    }
  }
  check((kind === SHA1 ? sha1Final : sha256Final)(state, digest));
}

/**
 * SHA-256 of the concatenation of `parts` (none: the empty message).
 *
 * @returns a new 32-byte array
 * @throws {TypeError} if a part is not a Uint8Array
 */
export function sha256(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  measureParts(parts);
  const digest = allocate(SHA256_SIZE);
  hashParts(SHA256, digest, parts);
  return finish(digest);
}

/**
 * SHA-1 of the concatenation of `parts` (none: the empty message).
 *
 * @returns a new 20-byte array
 * @throws {TypeError} if a part is not a Uint8Array
 */
export function sha1(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  measureParts(parts);
  const digest = allocate(SHA1_SIZE);
  hashParts(SHA1, digest, parts);
  return finish(digest);
}

/**
 * {@link sha256} into a caller-provided buffer.
 *
 * @param out receives the 32-byte digest in out[0..32) (bytes past that are
 *   untouched); it may overlap the parts, which are read completely first
 * @returns `out.subarray(0, 32)` (`out` itself when it is 32 bytes long)
 * @throws {TypeError} if `out` or a part is not a Uint8Array
 * @throws {RangeError} "Output buffer is too small (need 32 bytes)"
 */
export function sha256Into<T extends ArrayBufferLike>(out: Uint8Array<T>, ...parts: Uint8Array[]): Uint8Array<T> {
  const outLength = byteLength(out, "out");
  measureParts(parts);
  checkOutput(outLength, SHA256_SIZE);
  hashParts(SHA256, out, parts);
  return written(out, outLength, SHA256_SIZE);
}

/**
 * {@link sha1} into a caller-provided buffer.
 *
 * @param out receives the 20-byte digest in out[0..20); it may overlap the
 *   parts, which are read completely first
 * @returns `out.subarray(0, 20)` (`out` itself when it is 20 bytes long)
 * @throws {TypeError} if `out` or a part is not a Uint8Array
 * @throws {RangeError} "Output buffer is too small (need 20 bytes)"
 */
export function sha1Into<T extends ArrayBufferLike>(out: Uint8Array<T>, ...parts: Uint8Array[]): Uint8Array<T> {
  const outLength = byteLength(out, "out");
  measureParts(parts);
  checkOutput(outLength, SHA1_SIZE);
  hashParts(SHA1, out, parts);
  return written(out, outLength, SHA1_SIZE);
}

/**
 * The SHA-256/SHA-1 engine in use: "sha-ni" (x86 SHA extensions),
 * "armv8-sha" (ARMv8 SHA1/SHA2 instructions) or "portable" (also whenever
 * the backend is forced to "soft").
 *
 * @throws {TgCryptoError} if the library failed to initialise
 */
export function hashEngine(): string {
  const name = hashEngineName();
  if (name !== null) return name;
  const code = nativeInit();
  throw new TgCryptoError(code !== ErrorCode.OK ? code : ErrorCode.BACKEND);
}
