/**
 * Argument checks with TgCrypto's messages, in TgCrypto's order (types,
 * data, key, iv, state), shared by the one-shot functions and contexts.
 *
 * @module
 */

// The messages (TgCrypto's wording) and the uint32_t length limit come from
// contract/rules.json, through the generated ts/contract.ts.
import {
  BAD_IV16_SIZE,
  BAD_IV32_SIZE,
  BAD_KEY_SIZE,
  BAD_STATE_SIZE,
  BAD_STATE_VALUE,
  DATA_TOO_LARGE,
  EMPTY_DATA,
  MAX_DATA_LENGTH,
  NOT_BLOCK_MULTIPLE,
  outputTooSmall,
} from "./contract.ts";

/* ------------------------------------------------------------------------ */
/* Constants and messages (TgCrypto's wording)                              */

export const KEY_SIZE = 32;
export const IGE_IV_SIZE = 32;
export const CTR_IV_SIZE = 16;
export const CBC_IV_SIZE = 16;
export const MAX_STATE = 15;

export {
  BAD_IV16_SIZE,
  BAD_IV32_SIZE,
  BAD_KEY_SIZE,
  BAD_STATE_SIZE,
  BAD_STATE_VALUE,
  DATA_TOO_LARGE,
  EMPTY_DATA,
  MAX_DATA_LENGTH,
  NOT_BLOCK_MULTIPLE,
};
export { PARTIAL_OVERLAP } from "./contract.ts";

/* ------------------------------------------------------------------------ */
/* Validation (TgCrypto's order: types, data, key, iv, state)               */

const objectToString = Object.prototype.toString;

/** Throws TypeError unless `value` is a Uint8Array (Node Buffers and other realms included). */
export function assertBytes(value: unknown, name: string): asserts value is Uint8Array {
  if (value instanceof Uint8Array) return;
  // Slow path only for arrays from another realm (vm contexts, iframes).
  if (ArrayBuffer.isView(value) && objectToString.call(value) === "[object Uint8Array]") return;
  throw new TypeError(`${name} must be a Uint8Array`);
}

/** Length checks for IGE/CBC data; returns the length. */
export function checkBlockData(data: Uint8Array): number {
  const length = data.length;
  if (length === 0) throw new RangeError(EMPTY_DATA);
  if (length % 16 !== 0) throw new RangeError(NOT_BLOCK_MULTIPLE);
  if (length > MAX_DATA_LENGTH) throw new RangeError(DATA_TOO_LARGE);
  return length;
}

/** Length checks for CTR data; returns the length. */
export function checkStreamData(data: Uint8Array): number {
  const length = data.length;
  if (length === 0) throw new RangeError(EMPTY_DATA);
  if (length > MAX_DATA_LENGTH) throw new RangeError(DATA_TOO_LARGE);
  return length;
}

export function checkKey(key: Uint8Array): void {
  if (key.length !== KEY_SIZE) throw new RangeError(BAD_KEY_SIZE);
}

export function checkIv(iv: Uint8Array, size: number): void {
  if (iv.length !== size) throw new RangeError(size === IGE_IV_SIZE ? BAD_IV32_SIZE : BAD_IV16_SIZE);
}

/** All checks of an IGE/CBC one-shot call; returns data.length. */
export function checkBlockCall(data: Uint8Array, key: Uint8Array, iv: Uint8Array, ivSize: number): number {
  assertBytes(data, "data");
  assertBytes(key, "key");
  assertBytes(iv, "iv");
  const length = checkBlockData(data);
  checkKey(key);
  checkIv(iv, ivSize);
  return length;
}

/** All checks of a CTR one-shot call; returns data.length. */
export function checkCtrCall(data: Uint8Array, key: Uint8Array, iv: Uint8Array, state: Uint8Array): number {
  assertBytes(data, "data");
  assertBytes(key, "key");
  assertBytes(iv, "iv");
  assertBytes(state, "state");
  const length = checkStreamData(data);
  checkKey(key);
  checkIv(iv, CTR_IV_SIZE);
  if (state.length !== 1) throw new RangeError(BAD_STATE_SIZE);
  if (state[0]! > MAX_STATE) throw new RangeError(BAD_STATE_VALUE);
  return length;
}

/** `out` must hold `length` bytes (its type was checked first). */
export function checkOutput(out: Uint8Array, length: number): void {
  if (out.length < length) throw new RangeError(outputTooSmall(length));
}

/** What an `...Into` call returns: `out` itself when it is exactly `length` long. */
export function written<T extends ArrayBufferLike>(out: Uint8Array<T>, length: number): Uint8Array<T> {
  // Skipping subarray() saves an object (and, in Bun, materialising out.buffer).
  return out.length === length ? out : out.subarray(0, length);
}

