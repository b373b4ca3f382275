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
  dataLengthFits,
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
/* The engine's view of a byte argument                                     */

// Lengths that cross into C come from the engine, never from a property a
// caller can redefine: the %TypedArray%.prototype getters, captured when this
// module loads (so neither a subclass, a patched prototype nor a Proxy
// reaches them). The FFIs take the address from the engine's view of the
// same object (bun:ffi "ptr", Deno "buffer", the addon's
// napi_get_typedarray_info), so address and length describe one buffer.
//
// Each captured function is called as `f.call(receiver)` with `call` pinned
// as its own read-only property, so a caller replacing
// Function.prototype.call later changes nothing. (Engines inline that form;
// a bound Function.prototype.call costs JavaScriptCore several times more.)

const functionCall = Function.prototype.call;
/** A built-in function whose `.call` is Function.prototype.call as loaded, whatever happens to the prototype later. */
interface Pinned<F extends (...args: never[]) => unknown> {
  call(receiver: unknown, ...args: Parameters<F>): ReturnType<F>;
}
function pinCall<F extends (...args: never[]) => unknown>(f: F): Pinned<F> {
  if (Object.getOwnPropertyDescriptor(f, "call")?.value !== functionCall) {
    Object.defineProperty(f, "call", { value: functionCall, writable: false, configurable: false, enumerable: false });
  }
  return f as unknown as Pinned<F>;
}
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
function intrinsicGetter<T>(owner: object, key: PropertyKey): Pinned<() => T> {
  return pinCall(Object.getOwnPropertyDescriptor(owner, key)!.get! as () => T);
}
/** [[TypedArrayName]] of a typed array, undefined for anything else (a Proxy included); cannot be faked. */
const typedArrayName = intrinsicGetter<string | undefined>(TypedArrayPrototype, Symbol.toStringTag);
/** [[ArrayLength]] as the engine computes it (0 when detached or out of bounds). */
const typedArrayLength = intrinsicGetter<number>(TypedArrayPrototype, "length");
const typedArrayBuffer = intrinsicGetter<ArrayBufferLike>(TypedArrayPrototype, "buffer");
const typedArrayByteOffset = intrinsicGetter<number>(TypedArrayPrototype, "byteOffset");
const arrayBufferDetached = intrinsicGetter<boolean>(ArrayBuffer.prototype, "detached");
const isArray = Array.isArray;
const arrayFrom = Array.from;
/**
 * JavaScriptCore's @@toStringTag getter costs about 100 ns a call where V8
 * inlines it; so under Bun the genuine Uint8Arrays already checked are
 * remembered (an object's [[TypedArrayName]] never changes), and a buffer
 * used again (a key, an iv, an `out`) skips the getter.
 */
const checkedBytes = "Bun" in globalThis ? new WeakSet<object>() : undefined;
const weakSetHas = pinCall(WeakSet.prototype.has as (value: unknown) => boolean);
const weakSetAdd = pinCall(WeakSet.prototype.add as (value: object) => WeakSet<object>);
/** Uint8Array as loaded: outputs handed to C are made with it, whatever the caller later assigns to the global. */
const IntrinsicUint8Array = Uint8Array;
const typedArraySet = pinCall((TypedArrayPrototype as { set: (source: Uint8Array, offset: number) => void }).set);
const typedArrayFill = pinCall((TypedArrayPrototype as { fill: (value: number) => void }).fill);
const typedArraySubarray = pinCall(
  (TypedArrayPrototype as { subarray: (begin: number, end: number) => Uint8Array }).subarray,
);

/** Whether the genuine Uint8Array `bytes` (0 bytes long by the engine's count) views a detached ArrayBuffer. */
function isDetached(bytes: Uint8Array): boolean {
  const buffer = typedArrayBuffer.call(bytes);
  try {
    return arrayBufferDetached.call(buffer);
  } catch {
    return false; // a SharedArrayBuffer: never detached
  }
}

/** The TypeError for a value that is not a genuine Uint8Array. */
export function notBytes(name: string): TypeError {
  return new TypeError(`${name} must be a Uint8Array`);
}

/** The TypeError for a view of a detached ArrayBuffer. */
export function detachedBytes(name: string): TypeError {
  return new TypeError(`${name} is a view of a detached ArrayBuffer`);
}

/**
 * The length of the byte argument `value` as the engine counts it: throws
 * TypeError "<name> must be a Uint8Array" unless `value` is a genuine
 * Uint8Array (of any realm, Node Buffers included, whatever its prototype
 * or own properties say), and "<name> is a view of a detached ArrayBuffer"
 * for a detached one. A view of a resizable buffer counts its bytes now
 * (a fixed-length view out of bounds: 0).
 */
export function byteLength(value: unknown, name: string): number {
  if (checkedBytes === undefined || !weakSetHas.call(checkedBytes, value)) {
    if (typedArrayName.call(value) !== "Uint8Array") throw notBytes(name);
    if (checkedBytes !== undefined) weakSetAdd.call(checkedBytes, value as Uint8Array);
  }
  const length = typedArrayLength.call(value);
  if (length === 0 && isDetached(value as Uint8Array)) throw detachedBytes(name);
  return length;
}

/**
 * The engine's length of `value` if it is a genuine Uint8Array over a live
 * buffer, else -1. Never throws and never runs the caller's code: what the
 * drop-ins ask before taking the native path (anything else goes to the
 * stock code, which then behaves as stock does).
 */
export function liveByteLength(value: unknown): number {
  if (checkedBytes === undefined || !weakSetHas.call(checkedBytes, value)) {
    if (typedArrayName.call(value) !== "Uint8Array") return -1;
    if (checkedBytes !== undefined) weakSetAdd.call(checkedBytes, value as Uint8Array);
  }
  const length = typedArrayLength.call(value);
  return length === 0 && isDetached(value as Uint8Array) ? -1 : length;
}

/** Throws like {@link byteLength} unless `value` is a live genuine Uint8Array. */
export function assertBytes(value: unknown, name: string): asserts value is Uint8Array {
  byteLength(value, name);
}

/** Whether `value` is a genuine Uint8Array (detached or not); never calls the caller's code. */
export function isBytes(value: unknown): value is Uint8Array {
  return typedArrayName.call(value) === "Uint8Array";
}

/** Array.isArray as loaded (true for a Proxy of an array too). */
export function isArrayValue(value: unknown): value is readonly unknown[] {
  return isArray(value);
}

/**
 * A new array of the elements of the caller's array `list`, each read once
 * (its iterator may be the caller's code: call this before measuring
 * anything). The copy is this library's own array of own data properties,
 * so reading it back runs no caller code.
 */
export function copyList(list: readonly unknown[]): readonly unknown[] {
  return arrayFrom(list);
}

/** A new zeroed Uint8Array of `length` bytes, made by the Uint8Array constructor as loaded. */
export function newBytes(length: number): Uint8Array<ArrayBuffer> {
  return new IntrinsicUint8Array(length);
}

/** bytes[begin, begin + length) as a new view, from the engine's buffer and offset (no species, no caller code). */
export function viewOf(bytes: Uint8Array, begin: number, length: number): Uint8Array {
  return new IntrinsicUint8Array(typedArrayBuffer.call(bytes), typedArrayByteOffset.call(bytes) + begin, length);
}

/** %TypedArray%.prototype.set as loaded: copies the engine's bytes of `source` into `target` at `offset`. */
export function copyBytes(target: Uint8Array, source: Uint8Array, offset: number): void {
  typedArraySet.call(target, source, offset);
}

/** %TypedArray%.prototype.fill(0) as loaded (a wipe a patched prototype cannot skip). */
export function wipeBytes(bytes: Uint8Array): void {
  typedArrayFill.call(bytes, 0);
}

/* ------------------------------------------------------------------------ */
/* Validation (TgCrypto's order: types, data, key, iv, state)               */

/** Length checks for IGE/CBC data of `length` bytes; returns the length. */
export function checkBlockData(length: number): number {
  if (length === 0) throw new RangeError(EMPTY_DATA);
  if (length % 16 !== 0) throw new RangeError(NOT_BLOCK_MULTIPLE);
  if (!dataLengthFits(length)) throw new RangeError(DATA_TOO_LARGE);
  return length;
}

/** Length checks for CTR data of `length` bytes; returns the length. */
export function checkStreamData(length: number): number {
  if (length === 0) throw new RangeError(EMPTY_DATA);
  if (!dataLengthFits(length)) throw new RangeError(DATA_TOO_LARGE);
  return length;
}

/** The key's checks (type, then its engine length). */
export function checkKey(keyLength: number): void {
  if (keyLength !== KEY_SIZE) throw new RangeError(BAD_KEY_SIZE);
}

export function checkIv(ivLength: number, size: number): void {
  if (ivLength !== size) throw new RangeError(size === IGE_IV_SIZE ? BAD_IV32_SIZE : BAD_IV16_SIZE);
}

/** All checks of an IGE/CBC one-shot call; returns the data's length. */
export function checkBlockCall(data: unknown, key: unknown, iv: unknown, ivSize: number): number {
  const dataLength = byteLength(data, "data");
  const keyLength = byteLength(key, "key");
  const ivLength = byteLength(iv, "iv");
  checkBlockData(dataLength);
  checkKey(keyLength);
  checkIv(ivLength, ivSize);
  return dataLength;
}

/** All checks of a CTR one-shot call; returns the data's length. */
export function checkCtrCall(data: unknown, key: unknown, iv: unknown, state: unknown): number {
  const dataLength = byteLength(data, "data");
  const keyLength = byteLength(key, "key");
  const ivLength = byteLength(iv, "iv");
  const stateLength = byteLength(state, "state");
  checkStreamData(dataLength);
  checkKey(keyLength);
  checkIv(ivLength, CTR_IV_SIZE);
  if (stateLength !== 1) throw new RangeError(BAD_STATE_SIZE);
  // An element read of a genuine typed array runs no caller code.
  if ((state as Uint8Array)[0]! > MAX_STATE) throw new RangeError(BAD_STATE_VALUE);
  return dataLength;
}

/** `out` (of `outLength` bytes by the engine's count) must hold `length` bytes. */
export function checkOutput(outLength: number, length: number): void {
  if (outLength < length) throw new RangeError(outputTooSmall(length));
}

/**
 * What an `...Into` call returns: `out` itself when it is exactly `length`
 * long (`outLength`, the engine's count), else `out.subarray(0, length)` by
 * the intrinsic subarray (a view of the same bytes; a subclass gets its species).
 */
export function written<T extends ArrayBufferLike>(out: Uint8Array<T>, outLength: number, length: number): Uint8Array<T> {
  // Skipping subarray() saves an object (and, in Bun, materialising out.buffer).
  return outLength === length ? out : (typedArraySubarray.call(out, 0, length) as Uint8Array<T>);
}
