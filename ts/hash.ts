/**
 * SHA-256 and SHA-1 (FIPS 180-4) in native code, with the hardware engine
 * the CPU has (see {@link hashEngine}). Several parts hash as their
 * concatenation, without concatenating them in JS.
 *
 * @module
 */

import {
  allocate,
  sha1Final,
  sha1Init,
  sha1OneShot,
  sha1Update,
  sha256Final,
  sha256Init,
  sha256OneShot,
  sha256Update,
} from "./bound.ts";
import { nativeError } from "./errors.ts";
import { assertBytes, checkOutput, MAX_DATA_LENGTH, written } from "./validate.ts";

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

/** Throws TypeError unless every part is a Uint8Array. */
function checkParts(parts: ArrayLike<unknown>, from: number): void {
  for (let i = from; i < parts.length; i++) assertBytes(parts[i], "every part");
}

function check(code: number): void {
  if (code !== 0) throw nativeError(code);
}

/** SHA-256 of the concatenation of parts[from..] into `digest` (32 bytes). */
function sha256Parts(digest: Uint8Array, parts: ArrayLike<Uint8Array>, from: number): void {
  const count = parts.length - from;
  if (count <= 1) {
    const data = count === 1 ? parts[from]! : EMPTY;
    if (data.length <= MAX_DATA_LENGTH) return check(sha256OneShot(digest, data, data.length));
  }
  check(sha256Init(state));
  for (let i = from; i < parts.length; i++) {
    const part = parts[i]!;
    let length = part.length;
    if (length <= MAX_DATA_LENGTH) {
      if (length !== 0) check(sha256Update(state, part, length));
      continue;
    }
    // Lengths cross the FFI as uint32_t: feed a huge part in pieces.
    for (let offset = 0; length > 0; offset += MAX_DATA_LENGTH, length -= MAX_DATA_LENGTH) {
      const n = Math.min(length, MAX_DATA_LENGTH);
      check(sha256Update(state, part.subarray(offset, offset + n), n));
    }
  }
  check(sha256Final(state, digest));
}

/** SHA-1 of the concatenation of parts[from..] into `digest` (20 bytes). */
function sha1Parts(digest: Uint8Array, parts: ArrayLike<Uint8Array>, from: number): void {
  const count = parts.length - from;
  if (count <= 1) {
    const data = count === 1 ? parts[from]! : EMPTY;
    if (data.length <= MAX_DATA_LENGTH) return check(sha1OneShot(digest, data, data.length));
  }
  check(sha1Init(state));
  for (let i = from; i < parts.length; i++) {
    const part = parts[i]!;
    let length = part.length;
    if (length <= MAX_DATA_LENGTH) {
      if (length !== 0) check(sha1Update(state, part, length));
      continue;
    }
    for (let offset = 0; length > 0; offset += MAX_DATA_LENGTH, length -= MAX_DATA_LENGTH) {
      const n = Math.min(length, MAX_DATA_LENGTH);
      check(sha1Update(state, part.subarray(offset, offset + n), n));
    }
  }
  check(sha1Final(state, digest));
}

/**
 * SHA-256 of the concatenation of `parts` (none: the empty message).
 *
 * @returns a new 32-byte array
 * @throws {TypeError} if a part is not a Uint8Array
 */
export function sha256(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  checkParts(parts, 0);
  const digest = allocate(SHA256_SIZE);
  sha256Parts(digest, parts, 0);
  return digest;
}

/**
 * SHA-1 of the concatenation of `parts` (none: the empty message).
 *
 * @returns a new 20-byte array
 * @throws {TypeError} if a part is not a Uint8Array
 */
export function sha1(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  checkParts(parts, 0);
  const digest = allocate(SHA1_SIZE);
  sha1Parts(digest, parts, 0);
  return digest;
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
  assertBytes(out, "out");
  checkParts(parts, 0);
  checkOutput(out, SHA256_SIZE);
  sha256Parts(out, parts, 0);
  return written(out, SHA256_SIZE);
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
  assertBytes(out, "out");
  checkParts(parts, 0);
  checkOutput(out, SHA1_SIZE);
  sha1Parts(out, parts, 0);
  return written(out, SHA1_SIZE);
}
