/**
 * The six one-shot functions with TgCrypto's semantics, and their zero-copy
 * `...Into` variants. Each call expands the key, runs, and wipes (in C).
 *
 * @module
 */

import { allocate, cbcDecrypt, cbcEncrypt, ctr256, finish, igeDecrypt, igeEncrypt } from "../runtime/bound.ts";
import { nativeError } from "../errors.ts";
import { byteLength, CBC_IV_SIZE, checkBlockCall, checkCtrCall, checkOutput, IGE_IV_SIZE, written } from "../validate.ts";

/* ------------------------------------------------------------------------ */
/* One-shot functions                                                       */

/**
 * AES-256-IGE encryption (MTProto 2.0).
 *
 * @param data plaintext; non-empty, a multiple of 16 bytes
 * @param key 32 bytes
 * @param iv 32 bytes (not modified)
 * @returns a new ciphertext array of `data.length` bytes
 * @throws {TypeError} for a non-Uint8Array argument
 * @throws {RangeError} for bad sizes (TgCrypto's messages)
 */
export function ige256Encrypt(data: Uint8Array, key: Uint8Array, iv: Uint8Array): Uint8Array<ArrayBuffer> {
  const length = checkBlockCall(data, key, iv, IGE_IV_SIZE);
  const out = allocate(length);
  const code = igeEncrypt(out, data, length, key, iv);
  if (code !== 0) throw nativeError(code);
  return finish(out);
}

/**
 * AES-256-IGE decryption (MTProto 2.0).
 *
 * @param data ciphertext; non-empty, a multiple of 16 bytes
 * @param key 32 bytes
 * @param iv 32 bytes (not modified)
 * @returns a new plaintext array of `data.length` bytes
 * @throws {TypeError} for a non-Uint8Array argument
 * @throws {RangeError} for bad sizes (TgCrypto's messages)
 */
export function ige256Decrypt(data: Uint8Array, key: Uint8Array, iv: Uint8Array): Uint8Array<ArrayBuffer> {
  const length = checkBlockCall(data, key, iv, IGE_IV_SIZE);
  const out = allocate(length);
  const code = igeDecrypt(out, data, length, key, iv);
  if (code !== 0) throw nativeError(code);
  return finish(out);
}

/**
 * AES-256-CTR (encryption and decryption are the same operation).
 *
 * @param data non-empty, any length
 * @param key 32 bytes
 * @param iv 16-byte big-endian counter; updated in place to the counter of
 *   the block holding the next keystream byte
 * @param state Uint8Array(1) holding the offset 0..15 into that block;
 *   updated in place, so consecutive calls continue the stream
 * @returns a new array of `data.length` bytes
 * @throws {TypeError} for a non-Uint8Array argument
 * @throws {RangeError} for bad sizes or state (TgCrypto's messages)
 */
export function ctr256Encrypt(
  data: Uint8Array,
  key: Uint8Array,
  iv: Uint8Array,
  state: Uint8Array,
): Uint8Array<ArrayBuffer> {
  const length = checkCtrCall(data, key, iv, state);
  const out = allocate(length);
  const code = ctr256(out, data, length, key, iv, state);
  if (code !== 0) throw nativeError(code);
  return finish(out);
}

/** AES-256-CTR decryption: the same operation (and function) as {@link ctr256Encrypt}. */
export const ctr256Decrypt: typeof ctr256Encrypt = ctr256Encrypt;

/**
 * AES-256-CBC encryption without padding.
 *
 * @param data plaintext; non-empty, a multiple of 16 bytes
 * @param key 32 bytes
 * @param iv 16 bytes; updated in place to the last ciphertext block
 * @returns a new ciphertext array of `data.length` bytes
 * @throws {TypeError} for a non-Uint8Array argument
 * @throws {RangeError} for bad sizes (TgCrypto's messages)
 */
export function cbc256Encrypt(data: Uint8Array, key: Uint8Array, iv: Uint8Array): Uint8Array<ArrayBuffer> {
  const length = checkBlockCall(data, key, iv, CBC_IV_SIZE);
  const out = allocate(length);
  const code = cbcEncrypt(out, data, length, key, iv);
  if (code !== 0) throw nativeError(code);
  return finish(out);
}

/**
 * AES-256-CBC decryption without padding.
 *
 * @param data ciphertext; non-empty, a multiple of 16 bytes
 * @param key 32 bytes
 * @param iv 16 bytes; updated in place to the last input (ciphertext) block
 * @returns a new plaintext array of `data.length` bytes
 * @throws {TypeError} for a non-Uint8Array argument
 * @throws {RangeError} for bad sizes (TgCrypto's messages)
 */
export function cbc256Decrypt(data: Uint8Array, key: Uint8Array, iv: Uint8Array): Uint8Array<ArrayBuffer> {
  const length = checkBlockCall(data, key, iv, CBC_IV_SIZE);
  const out = allocate(length);
  const code = cbcDecrypt(out, data, length, key, iv);
  if (code !== 0) throw nativeError(code);
  return finish(out);
}

/* ------------------------------------------------------------------------ */
/* Zero-copy one-shot functions                                             */

/**
 * {@link ige256Encrypt} into a caller-provided buffer.
 *
 * @param out receives `data.length` bytes (bytes past that are untouched);
 *   may be `data` itself (in place) but must not partially overlap it
 * @returns `out.subarray(0, data.length)` (`out` itself when the lengths match)
 * @throws {RangeError} as {@link ige256Encrypt}, then "Output buffer is too
 *   small (need N bytes)" and "Output must not partially overlap the input"
 */
export function ige256EncryptInto<T extends ArrayBufferLike>(
  out: Uint8Array<T>,
  data: Uint8Array,
  key: Uint8Array,
  iv: Uint8Array,
): Uint8Array<T> {
  const outLength = byteLength(out, "out");
  const length = checkBlockCall(data, key, iv, IGE_IV_SIZE);
  checkOutput(outLength, length);
  const code = igeEncrypt(out, data, length, key, iv);
  if (code !== 0) throw nativeError(code);
  return written(out, outLength, length);
}

/**
 * {@link ige256Decrypt} into a caller-provided buffer.
 *
 * @param out receives `data.length` bytes; may be `data` itself (in place)
 *   but must not partially overlap it
 * @returns `out.subarray(0, data.length)` (`out` itself when the lengths match)
 * @throws {RangeError} as {@link ige256EncryptInto}
 */
export function ige256DecryptInto<T extends ArrayBufferLike>(
  out: Uint8Array<T>,
  data: Uint8Array,
  key: Uint8Array,
  iv: Uint8Array,
): Uint8Array<T> {
  const outLength = byteLength(out, "out");
  const length = checkBlockCall(data, key, iv, IGE_IV_SIZE);
  checkOutput(outLength, length);
  const code = igeDecrypt(out, data, length, key, iv);
  if (code !== 0) throw nativeError(code);
  return written(out, outLength, length);
}

/**
 * {@link ctr256Encrypt} into a caller-provided buffer; `iv` and `state` are
 * updated in place as there.
 *
 * @param out receives `data.length` bytes; may be `data` itself (in place)
 *   but must not partially overlap it
 * @returns `out.subarray(0, data.length)` (`out` itself when the lengths match)
 * @throws {RangeError} as {@link ctr256Encrypt}, then the output checks
 */
export function ctr256EncryptInto<T extends ArrayBufferLike>(
  out: Uint8Array<T>,
  data: Uint8Array,
  key: Uint8Array,
  iv: Uint8Array,
  state: Uint8Array,
): Uint8Array<T> {
  const outLength = byteLength(out, "out");
  const length = checkCtrCall(data, key, iv, state);
  checkOutput(outLength, length);
  const code = ctr256(out, data, length, key, iv, state);
  if (code !== 0) throw nativeError(code);
  return written(out, outLength, length);
}

/** {@link ctr256Decrypt} into a caller-provided buffer: the same function as {@link ctr256EncryptInto}. */
export const ctr256DecryptInto: typeof ctr256EncryptInto = ctr256EncryptInto;

/**
 * {@link cbc256Encrypt} into a caller-provided buffer; `iv` is updated in
 * place as there.
 *
 * @returns `out.subarray(0, data.length)` (`out` itself when the lengths match)
 * @throws {RangeError} as {@link cbc256Encrypt}, then the output checks
 */
export function cbc256EncryptInto<T extends ArrayBufferLike>(
  out: Uint8Array<T>,
  data: Uint8Array,
  key: Uint8Array,
  iv: Uint8Array,
): Uint8Array<T> {
  const outLength = byteLength(out, "out");
  const length = checkBlockCall(data, key, iv, CBC_IV_SIZE);
  checkOutput(outLength, length);
  const code = cbcEncrypt(out, data, length, key, iv);
  if (code !== 0) throw nativeError(code);
  return written(out, outLength, length);
}

/**
 * {@link cbc256Decrypt} into a caller-provided buffer; `iv` is updated in
 * place as there (in-place decryption is fine: C keeps the last input block).
 *
 * @returns `out.subarray(0, data.length)` (`out` itself when the lengths match)
 * @throws {RangeError} as {@link cbc256Decrypt}, then the output checks
 */
export function cbc256DecryptInto<T extends ArrayBufferLike>(
  out: Uint8Array<T>,
  data: Uint8Array,
  key: Uint8Array,
  iv: Uint8Array,
): Uint8Array<T> {
  const outLength = byteLength(out, "out");
  const length = checkBlockCall(data, key, iv, CBC_IV_SIZE);
  checkOutput(outLength, length);
  const code = cbcDecrypt(out, data, length, key, iv);
  if (code !== 0) throw nativeError(code);
  return written(out, outLength, length);
}

