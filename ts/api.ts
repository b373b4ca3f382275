/**
 * The public API of tgcrypto-ffi: AES-256 IGE, CTR and CBC with TgCrypto's
 * semantics and error messages, plus zero-copy (`...Into`) variants and
 * streaming contexts.
 *
 * Runtime-neutral: it works over any {@link Native} and never touches
 * `bun:ffi` or `Deno`. `mod.ts` loads the library and calls
 * {@link bindNative} before anything here can be used.
 *
 * Every returned array has an ArrayBuffer of its own that this library never
 * writes again. (Outputs are deliberately not carved from a shared pool: its
 * `.buffer` would expose other calls' plaintexts, and transferring it would
 * empty them. Callers that need the last nanoseconds use the `...Into`
 * variants with buffers they own.)
 *
 * @module
 */

import { readEnv } from "./locate.ts";
import type { ContextHandle, Native } from "./native.ts";
import { ErrorCode } from "./symbols.ts";

export { ErrorCode };

/* ------------------------------------------------------------------------ */
/* Constants and messages (TgCrypto's wording)                              */

const KEY_SIZE = 32;
const IGE_IV_SIZE = 32;
const CTR_IV_SIZE = 16;
const CBC_IV_SIZE = 16;
const MAX_STATE = 15;
/** Lengths cross the FFI as uint32_t. */
const MAX_DATA_LENGTH = 0xffffffff;

const EMPTY_DATA = "Data must not be empty";
const NOT_BLOCK_MULTIPLE = "Data size must match a multiple of 16 bytes";
const DATA_TOO_LARGE = "Data is too large (max 4294967295 bytes)";
const BAD_KEY_SIZE = "Key size must be exactly 32 bytes";
const BAD_IV32_SIZE = "IV size must be exactly 32 bytes";
const BAD_IV16_SIZE = "IV size must be exactly 16 bytes";
const BAD_STATE_SIZE = "State size must be exactly 1 byte";
const BAD_STATE_VALUE = "State value must be in the range [0, 15]";
const PARTIAL_OVERLAP = "Output must not partially overlap the input";

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */

/** An error code returned by the native library (see {@link ErrorCode}). */
export class TgCryptoError extends Error {
  /** The negative `TG_ERR_*` code from tgcrypto.h. */
  readonly code: number;

  /**
   * @param code a `TG_ERR_*` value
   * @param message defaults to the library's `tg_strerror(code)`
   */
  constructor(code: number, message: string = strerror(code)) {
    super(message);
    this.name = "TgCryptoError";
    this.code = code;
  }
}

/** The error to throw for a nonzero return code. */
function nativeError(code: number): Error {
  // Overlap is caught by C on the real addresses; report it like the other argument errors.
  if (code === ErrorCode.OVERLAP) return new RangeError(PARTIAL_OVERLAP);
  return new TgCryptoError(code);
}

/* ------------------------------------------------------------------------ */
/* The bound native functions                                               */

function notLoaded(): never {
  throw new Error("tgcrypto-ffi: the native library is not loaded; import the package entry (ts/mod.ts)");
}

// Module-level bindings, one per C function, so each call site stays
// monomorphic on the FFI function itself (the engines' fast call paths).
let strerror: Native["tg_strerror"] = notLoaded;
let nativeVersion: Native["tg_version"] = notLoaded;
let nativeInit: Native["tg_init"] = notLoaded;
let nativeBackend: Native["tg_backend"] = notLoaded;
let backendCount: Native["tg_backend_count"] = notLoaded;
let backendName: Native["tg_backend_name"] = notLoaded;
let backendAvailable: Native["tg_backend_available"] = notLoaded;
let nativeSetBackend: Native["tg_set_backend"] = notLoaded;
let igeEncrypt: Native["tg_ige256_encrypt"] = notLoaded;
let igeDecrypt: Native["tg_ige256_decrypt"] = notLoaded;
let ctr256: Native["tg_ctr256"] = notLoaded;
let cbcEncrypt: Native["tg_cbc256_encrypt"] = notLoaded;
let cbcDecrypt: Native["tg_cbc256_decrypt"] = notLoaded;
let ctrNew: Native["tg_ctr_new"] = notLoaded;
let ctrUpdate: Native["tg_ctr_update"] = notLoaded;
let ctrPosition: Native["tg_ctr_position"] = notLoaded;
let ctrFree: Native["tg_ctr_free"] = notLoaded;
let igeNew: Native["tg_ige_new"] = notLoaded;
let igeUpdate: Native["tg_ige_update"] = notLoaded;
let igeFree: Native["tg_ige_free"] = notLoaded;
let cbcNew: Native["tg_cbc_new"] = notLoaded;
let cbcUpdate: Native["tg_cbc_update"] = notLoaded;
let cbcFree: Native["tg_cbc_free"] = notLoaded;
let loadedPath: string | undefined;

/**
 * Points the API at a loaded library and runs `tg_init()`.
 * Internal: called once by `mod.ts`.
 *
 * @throws {TgCryptoError} when `TGCRYPTO_BACKEND` names an unknown or
 *   unavailable backend (the message names the value, the reason and the
 *   backends that would work).
 */
export function bindNative(native: Native): void {
  strerror = native.tg_strerror;
  nativeVersion = native.tg_version;
  nativeInit = native.tg_init;
  nativeBackend = native.tg_backend;
  backendCount = native.tg_backend_count;
  backendName = native.tg_backend_name;
  backendAvailable = native.tg_backend_available;
  nativeSetBackend = native.tg_set_backend;
  igeEncrypt = native.tg_ige256_encrypt;
  igeDecrypt = native.tg_ige256_decrypt;
  ctr256 = native.tg_ctr256;
  cbcEncrypt = native.tg_cbc256_encrypt;
  cbcDecrypt = native.tg_cbc256_decrypt;
  ctrNew = native.tg_ctr_new;
  ctrUpdate = native.tg_ctr_update;
  ctrPosition = native.tg_ctr_position;
  ctrFree = native.tg_ctr_free;
  igeNew = native.tg_ige_new;
  igeUpdate = native.tg_ige_update;
  igeFree = native.tg_ige_free;
  cbcNew = native.tg_cbc_new;
  cbcUpdate = native.tg_cbc_update;
  cbcFree = native.tg_cbc_free;
  allocate = native.allocateOutput;
  loadedPath = native.path;

  const code = nativeInit();
  if (code !== ErrorCode.OK) {
    const value = readEnv("TGCRYPTO_BACKEND");
    const setting = value === undefined
      ? "TGCRYPTO_BACKEND (value not readable here, e.g. no --allow-env)"
      : `TGCRYPTO_BACKEND=${JSON.stringify(value)}`;
    throw new TgCryptoError(
      code,
      `tgcrypto-ffi: ${setting} cannot be used: ${strerror(code)}. ` +
        `Available backends: ${availableBackendNames().join(", ")} (leave it unset to pick the fastest).`,
    );
  }
}

/* ------------------------------------------------------------------------ */
/* Output allocation                                                        */

/** A fresh output of `length` (> 0) bytes that nothing else references. */
let allocate: Native["allocateOutput"] = (length) => new Uint8Array(length);

/* ------------------------------------------------------------------------ */
/* Validation (TgCrypto's order: types, data, key, iv, state)               */

const objectToString = Object.prototype.toString;

/** Throws TypeError unless `value` is a Uint8Array (Node Buffers and other realms included). */
function assertBytes(value: unknown, name: string): asserts value is Uint8Array {
  if (value instanceof Uint8Array) return;
  // Slow path only for arrays from another realm (vm contexts, iframes).
  if (ArrayBuffer.isView(value) && objectToString.call(value) === "[object Uint8Array]") return;
  throw new TypeError(`${name} must be a Uint8Array`);
}

/** Length checks for IGE/CBC data; returns the length. */
function checkBlockData(data: Uint8Array): number {
  const length = data.length;
  if (length === 0) throw new RangeError(EMPTY_DATA);
  if (length % 16 !== 0) throw new RangeError(NOT_BLOCK_MULTIPLE);
  if (length > MAX_DATA_LENGTH) throw new RangeError(DATA_TOO_LARGE);
  return length;
}

/** Length checks for CTR data; returns the length. */
function checkStreamData(data: Uint8Array): number {
  const length = data.length;
  if (length === 0) throw new RangeError(EMPTY_DATA);
  if (length > MAX_DATA_LENGTH) throw new RangeError(DATA_TOO_LARGE);
  return length;
}

function checkKey(key: Uint8Array): void {
  if (key.length !== KEY_SIZE) throw new RangeError(BAD_KEY_SIZE);
}

function checkIv(iv: Uint8Array, size: number): void {
  if (iv.length !== size) throw new RangeError(size === IGE_IV_SIZE ? BAD_IV32_SIZE : BAD_IV16_SIZE);
}

/** All checks of an IGE/CBC one-shot call; returns data.length. */
function checkBlockCall(data: Uint8Array, key: Uint8Array, iv: Uint8Array, ivSize: number): number {
  assertBytes(data, "data");
  assertBytes(key, "key");
  assertBytes(iv, "iv");
  const length = checkBlockData(data);
  checkKey(key);
  checkIv(iv, ivSize);
  return length;
}

/** All checks of a CTR one-shot call; returns data.length. */
function checkCtrCall(data: Uint8Array, key: Uint8Array, iv: Uint8Array, state: Uint8Array): number {
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
function checkOutput(out: Uint8Array, length: number): void {
  if (out.length < length) throw new RangeError(`Output buffer is too small (need ${length} bytes)`);
}

/** What an `...Into` call returns: `out` itself when it is exactly `length` long. */
function written<T extends ArrayBufferLike>(out: Uint8Array<T>, length: number): Uint8Array<T> {
  // Skipping subarray() saves an object (and, in Bun, materialising out.buffer).
  return out.length === length ? out : out.subarray(0, length);
}

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
  return out;
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
  return out;
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
  return out;
}

/**
 * AES-256-CTR decryption: the same operation as {@link ctr256Encrypt}.
 *
 * @param data non-empty, any length
 * @param key 32 bytes
 * @param iv 16-byte big-endian counter, updated in place
 * @param state Uint8Array(1), offset 0..15, updated in place
 * @returns a new array of `data.length` bytes
 * @throws {TypeError} for a non-Uint8Array argument
 * @throws {RangeError} for bad sizes or state (TgCrypto's messages)
 */
export function ctr256Decrypt(
  data: Uint8Array,
  key: Uint8Array,
  iv: Uint8Array,
  state: Uint8Array,
): Uint8Array<ArrayBuffer> {
  const length = checkCtrCall(data, key, iv, state);
  const out = allocate(length);
  const code = ctr256(out, data, length, key, iv, state);
  if (code !== 0) throw nativeError(code);
  return out;
}

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
  return out;
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
  return out;
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
  assertBytes(out, "out");
  const length = checkBlockCall(data, key, iv, IGE_IV_SIZE);
  checkOutput(out, length);
  const code = igeEncrypt(out, data, length, key, iv);
  if (code !== 0) throw nativeError(code);
  return written(out, length);
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
  assertBytes(out, "out");
  const length = checkBlockCall(data, key, iv, IGE_IV_SIZE);
  checkOutput(out, length);
  const code = igeDecrypt(out, data, length, key, iv);
  if (code !== 0) throw nativeError(code);
  return written(out, length);
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
  assertBytes(out, "out");
  const length = checkCtrCall(data, key, iv, state);
  checkOutput(out, length);
  const code = ctr256(out, data, length, key, iv, state);
  if (code !== 0) throw nativeError(code);
  return written(out, length);
}

/**
 * {@link ctr256Decrypt} into a caller-provided buffer (same as
 * {@link ctr256EncryptInto}).
 *
 * @returns `out.subarray(0, data.length)` (`out` itself when the lengths match)
 */
export function ctr256DecryptInto<T extends ArrayBufferLike>(
  out: Uint8Array<T>,
  data: Uint8Array,
  key: Uint8Array,
  iv: Uint8Array,
  state: Uint8Array,
): Uint8Array<T> {
  assertBytes(out, "out");
  const length = checkCtrCall(data, key, iv, state);
  checkOutput(out, length);
  const code = ctr256(out, data, length, key, iv, state);
  if (code !== 0) throw nativeError(code);
  return written(out, length);
}

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
  assertBytes(out, "out");
  const length = checkBlockCall(data, key, iv, CBC_IV_SIZE);
  checkOutput(out, length);
  const code = cbcEncrypt(out, data, length, key, iv);
  if (code !== 0) throw nativeError(code);
  return written(out, length);
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
  assertBytes(out, "out");
  const length = checkBlockCall(data, key, iv, CBC_IV_SIZE);
  checkOutput(out, length);
  const code = cbcDecrypt(out, data, length, key, iv);
  if (code !== 0) throw nativeError(code);
  return written(out, length);
}

/* ------------------------------------------------------------------------ */
/* Contexts                                                                 */

/** Turns a NULL from `tg_*_new` into the reason (arguments were already checked). */
function requireHandle(handle: ContextHandle | null): ContextHandle {
  if (handle) return handle; // Bun may report NULL as null or 0
  const code = nativeInit();
  throw new TgCryptoError(code !== ErrorCode.OK ? code : ErrorCode.NOMEM);
}

/** Options of {@link IgeContext} and {@link CbcContext}. */
export interface ChainingContextOptions {
  /** Decrypt instead of encrypt (default false). */
  readonly decrypt?: boolean;
}

// Frees contexts that were never disposed. The context object itself is the
// unregister token, so dispose() can cancel the pending free.
const ctrRegistry = new FinalizationRegistry<ContextHandle>((handle) => ctrFree(handle));
const igeRegistry = new FinalizationRegistry<ContextHandle>((handle) => igeFree(handle));
const cbcRegistry = new FinalizationRegistry<ContextHandle>((handle) => cbcFree(handle));

/** What tells the three context kinds apart, for {@link NativeContext}. */
interface ContextKind {
  /** Class name, for errors. */
  readonly name: string;
  /** Whether updates must be whole 16-byte blocks (IGE, CBC). */
  readonly wholeBlocks: boolean;
  readonly update: Native["tg_ctr_update"];
  readonly free: Native["tg_ctr_free"];
  readonly registry: FinalizationRegistry<ContextHandle>;
}

/**
 * A native context: owns the handle, runs updates, and frees it exactly once
 * (on {@link NativeContext.dispose}, or from the FinalizationRegistry).
 */
abstract class NativeContext implements Disposable {
  #handle: ContextHandle | null;
  readonly #kind: ContextKind;

  protected constructor(kind: ContextKind, handle: ContextHandle) {
    this.#kind = kind;
    this.#handle = handle;
    kind.registry.register(this, handle, this);
  }

  /** The live handle; throws once disposed. */
  protected liveHandle(): ContextHandle {
    if (this.#handle === null) throw new Error(`${this.#kind.name} has been disposed`);
    return this.#handle;
  }

  /** Checks `length` for an update; returns false when there is nothing to do. */
  #checkLength(length: number): boolean {
    if (this.#kind.wholeBlocks && length % 16 !== 0) throw new RangeError(NOT_BLOCK_MULTIPLE);
    if (length > MAX_DATA_LENGTH) throw new RangeError(DATA_TOO_LARGE);
    return length !== 0;
  }

  /**
   * Processes the next `data.length` bytes (a multiple of 16 for IGE and
   * CBC), continuing from where the previous update stopped.
   *
   * @returns a new array (empty for empty data)
   * @throws {Error} after dispose
   */
  update(data: Uint8Array): Uint8Array<ArrayBuffer> {
    const handle = this.liveHandle();
    assertBytes(data, "data");
    const length = data.length;
    if (!this.#checkLength(length)) return new Uint8Array(0);
    const out = allocate(length);
    const code = this.#kind.update(handle, out, data, length);
    if (code !== 0) throw nativeError(code);
    return out;
  }

  /**
   * {@link NativeContext.update} into a caller-provided buffer.
   *
   * @param out receives `data.length` bytes; may be `data` itself (in place)
   *   but must not partially overlap it
   * @returns `out.subarray(0, data.length)` (`out` itself when the lengths match)
   */
  updateInto<T extends ArrayBufferLike>(out: Uint8Array<T>, data: Uint8Array): Uint8Array<T> {
    const handle = this.liveHandle();
    assertBytes(out, "out");
    assertBytes(data, "data");
    const length = data.length;
    const work = this.#checkLength(length);
    checkOutput(out, length);
    if (!work) return written(out, 0);
    const code = this.#kind.update(handle, out, data, length);
    if (code !== 0) throw nativeError(code);
    return written(out, length);
  }

  /** Wipes and frees the native context. Idempotent. */
  dispose(): void {
    const handle = this.#handle;
    if (handle === null) return;
    this.#handle = null;
    this.#kind.registry.unregister(this);
    this.#kind.free(handle);
  }

  /** Same as {@link NativeContext.dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

/**
 * A streaming AES-256-CTR cipher: the key is expanded once and the stream
 * position kept natively, so chunked updates equal one long call.
 *
 * Free it with `dispose()` (or `using`); a forgotten context is freed by the
 * garbage collector eventually.
 */
export class CtrContext extends NativeContext {
  /**
   * @param key 32 bytes (copied)
   * @param iv 16-byte big-endian counter block (copied)
   * @param state offset 0..15 into the keystream block of `iv`
   * @throws {TypeError} for a non-Uint8Array key/iv or a non-number state
   * @throws {RangeError} for bad sizes or state (TgCrypto's messages)
   */
  constructor(key: Uint8Array, iv: Uint8Array, state: number = 0) {
    assertBytes(key, "key");
    assertBytes(iv, "iv");
    if (typeof state !== "number") throw new TypeError("state must be a number");
    checkKey(key);
    checkIv(iv, CTR_IV_SIZE);
    if (!Number.isInteger(state) || state < 0 || state > MAX_STATE) throw new RangeError(BAD_STATE_VALUE);
    const kind = { name: "CtrContext", wholeBlocks: false, update: ctrUpdate, free: ctrFree, registry: ctrRegistry };
    super(kind, requireHandle(ctrNew(key, iv, state)));
  }

  /**
   * The current stream position, as `ctr256Encrypt` would leave its `iv` and
   * `state`: a copy of the counter block holding the next keystream byte,
   * and the offset of that byte.
   */
  position(): { iv: Uint8Array<ArrayBuffer>; state: number } {
    const handle = this.liveHandle();
    const iv = new Uint8Array(CTR_IV_SIZE);
    const state = new Uint8Array(1);
    const code = ctrPosition(handle, iv, state);
    if (code !== 0) throw nativeError(code);
    return { iv, state: state[0]! };
  }
}

/**
 * A streaming AES-256-IGE cipher: IGE chaining continues across updates, so
 * chunked updates (multiples of 16 bytes) equal one long call.
 *
 * Free it with `dispose()` (or `using`); a forgotten context is freed by the
 * garbage collector eventually.
 */
export class IgeContext extends NativeContext {
  /**
   * @param key 32 bytes (copied)
   * @param iv 32 bytes (copied)
   * @param options `decrypt: true` to decrypt
   * @throws {TypeError} for a non-Uint8Array key/iv
   * @throws {RangeError} for bad sizes (TgCrypto's messages)
   */
  constructor(key: Uint8Array, iv: Uint8Array, { decrypt = false }: ChainingContextOptions = {}) {
    assertBytes(key, "key");
    assertBytes(iv, "iv");
    checkKey(key);
    checkIv(iv, IGE_IV_SIZE);
    const kind = { name: "IgeContext", wholeBlocks: true, update: igeUpdate, free: igeFree, registry: igeRegistry };
    super(kind, requireHandle(igeNew(key, iv, decrypt ? 1 : 0)));
  }
}

/**
 * A streaming AES-256-CBC cipher (no padding): chaining continues across
 * updates, so chunked updates (multiples of 16 bytes) equal one long call.
 *
 * Free it with `dispose()` (or `using`); a forgotten context is freed by the
 * garbage collector eventually.
 */
export class CbcContext extends NativeContext {
  /**
   * @param key 32 bytes (copied)
   * @param iv 16 bytes (copied)
   * @param options `decrypt: true` to decrypt
   * @throws {TypeError} for a non-Uint8Array key/iv
   * @throws {RangeError} for bad sizes (TgCrypto's messages)
   */
  constructor(key: Uint8Array, iv: Uint8Array, { decrypt = false }: ChainingContextOptions = {}) {
    assertBytes(key, "key");
    assertBytes(iv, "iv");
    checkKey(key);
    checkIv(iv, CBC_IV_SIZE);
    const kind = { name: "CbcContext", wholeBlocks: true, update: cbcUpdate, free: cbcFree, registry: cbcRegistry };
    super(kind, requireHandle(cbcNew(key, iv, decrypt ? 1 : 0)));
  }
}

/* ------------------------------------------------------------------------ */
/* Opt-in output pool                                                       */

/**
 * Output buffers carved from shared 64 KiB slabs, like Node's Buffer pool,
 * for the `...Into` functions and `updateInto`. In Deno a fresh ArrayBuffer
 * costs 0.2-1 µs, more than encrypting a short message; a view into a slab
 * costs tens of ns.
 *
 * Opt-in, because the views share an ArrayBuffer: `out.buffer` reaches the
 * bytes of other outputs taken from the same pool, and transferring it
 * (postMessage, structuredClone) empties them all. Use one pool per owner,
 * and copy (`out.slice()`) anything that leaves your code.
 *
 * ```ts
 * const pool = new OutputPool();
 * const encrypted = ige256EncryptInto(pool.take(message.length), message, key, iv);
 * ```
 */
export class OutputPool {
  readonly #slabBytes: number;
  #slab = new ArrayBuffer(0);
  #used = 0;

  /** @param slabBytes size of each slab (default 64 KiB); larger requests get their own buffer */
  constructor(slabBytes: number = 64 * 1024) {
    if (!Number.isInteger(slabBytes) || slabBytes < 16) throw new RangeError("slabBytes must be an integer >= 16");
    this.#slabBytes = slabBytes;
  }

  /** A `length`-byte view no earlier `take()` overlaps (contents unspecified). */
  take(length: number): Uint8Array<ArrayBuffer> {
    if (!Number.isInteger(length) || length < 0) throw new RangeError("length must be a non-negative integer");
    if (length > this.#slabBytes / 2) return new Uint8Array(length);
    let start = this.#used;
    // Also true for a detached slab (byteLength 0), e.g. after a view's buffer was transferred.
    if (start + length > this.#slab.byteLength) {
      this.#slab = new ArrayBuffer(this.#slabBytes);
      start = 0;
    }
    this.#used = (start + length + 7) & ~7; // 8-byte aligned starts
    return new Uint8Array(this.#slab, start, length);
  }
}

/* ------------------------------------------------------------------------ */
/* Backends and version                                                     */

/** One AES implementation compiled into the library. */
export interface BackendInfo {
  /** "vaes512", "vaes256", "aesni", "armce" or "soft". */
  readonly name: string;
  /** Whether this CPU can run it. */
  readonly available: boolean;
}

/**
 * The backend running now: "vaes512" | "vaes256" | "aesni" | "armce" | "soft".
 *
 * @throws {TgCryptoError} if the library failed to initialise
 */
export function backend(): string {
  const name = nativeBackend();
  if (name !== null) return name;
  const code = nativeInit();
  throw new TgCryptoError(code !== ErrorCode.OK ? code : ErrorCode.BACKEND);
}

/** The backends compiled into this build, best first, and whether each can run here. */
export function backends(): BackendInfo[] {
  const list: BackendInfo[] = [];
  const count = backendCount();
  for (let index = 0; index < count; index++) {
    list.push({ name: backendName(index) ?? `#${index}`, available: backendAvailable(index) === 1 });
  }
  return list;
}

function availableBackendNames(): string[] {
  return backends().filter((b) => b.available).map((b) => b.name);
}

/**
 * Switches the process-wide backend (for tests and benchmarks). Existing
 * contexts keep the backend they were created with.
 *
 * @param name one of the names from {@link backends}
 * @throws {TgCryptoError} for an unknown name, or one this CPU/build cannot run
 */
export function setBackend(name: string): void {
  if (typeof name !== "string") throw new TypeError("name must be a string");
  // An embedded NUL would make C see a shorter, possibly valid, name.
  const code = name.includes("\0") ? ErrorCode.BACKEND : nativeSetBackend(name);
  if (code === ErrorCode.OK) return;
  const available = availableBackendNames().join(", ");
  if (code === ErrorCode.BACKEND) {
    const known = backends().map((b) => b.name).join(", ");
    throw new TgCryptoError(code, `Unknown backend ${JSON.stringify(name)} (this build has: ${known}; available: ${available})`);
  }
  if (code === ErrorCode.UNSUPPORTED) {
    throw new TgCryptoError(
      code,
      `Backend ${JSON.stringify(name)} is not available on this CPU or build (available: ${available})`,
    );
  }
  throw new TgCryptoError(code);
}

/**
 * The file the native library was loaded from: `TGCRYPTO_LIB`, the dev build
 * in zig-out/, or the platform package in node_modules
 * (`.../tgcrypto-ffi-linux-x64-gnu/libtgcrypto.so`); inside an executable
 * made by `bun build --compile`, the embedded copy (`/$bunfs/...`).
 */
export function libraryPath(): string {
  if (loadedPath === undefined) notLoaded();
  return loadedPath;
}

/** Version string of the loaded native library (e.g. "0.1.0"). */
export function version(): string {
  return nativeVersion();
}
