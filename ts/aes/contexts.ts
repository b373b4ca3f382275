// `using` support in the emitted .d.ts for consumers whose lib has no esnext.disposable (e.g. lib ["es2022"]).
/// <reference lib="esnext.disposable" preserve="true" />
/**
 * Streaming contexts: the key is expanded once (natively) and the chaining
 * state kept between updates. Each owns a native handle that is freed, and
 * its key schedule wiped, exactly once: on dispose(), or by a
 * FinalizationRegistry when a forgotten context is collected.
 *
 * @module
 */

import {
  cbcFree,
  cbcNew,
  cbcUpdate,
  ctrFree,
  ctrNew,
  ctrPosition,
  ctrUpdate,
  igeFree,
  igeNew,
  igeUpdate,
  allocate,
  finish,
  nativeInit,
} from "../runtime/bound.ts";
import { dataLengthFits } from "../contract.ts";
import { nativeError, TgCryptoError } from "../errors.ts";
import { nativeCreated, nativeReleased } from "../runtime/gc_pressure.ts";
import type { ContextHandle, Native } from "../runtime/native.ts";
import { ErrorCode } from "../runtime/symbols.ts";
import {
  BAD_STATE_VALUE,
  byteLength,
  CBC_IV_SIZE,
  checkIv,
  checkKey,
  checkOutput,
  CTR_IV_SIZE,
  DATA_TOO_LARGE,
  IGE_IV_SIZE,
  MAX_STATE,
  NOT_BLOCK_MULTIPLE,
  newBytes,
  written,
} from "../validate.ts";

/** Turns a NULL from `tg_*_new` into the reason (arguments were already checked). */
function requireHandle(handle: ContextHandle | null): ContextHandle {
  if (handle) return handle; // Bun may report NULL as null or 0
  const code = nativeInit();
  throw new TgCryptoError(code !== ErrorCode.OK ? code : ErrorCode.NOMEM);
}

/**
 * `options.decrypt`, read once (before any byte argument is measured, so a
 * getter cannot change a buffer after its check).
 *
 * @throws {TypeError} for options that are not an object (or undefined), or
 *   a `decrypt` that is not a boolean (or undefined)
 */
function decryptOption(options: unknown): boolean {
  if (options === undefined) return false;
  if (typeof options !== "object" || options === null) throw new TypeError("options must be an object");
  const decrypt = (options as ChainingContextOptions).decrypt;
  if (decrypt === undefined) return false;
  if (typeof decrypt !== "boolean") throw new TypeError("options.decrypt must be a boolean");
  return decrypt;
}

/** Options of {@link IgeContext} and {@link CbcContext}. */
export interface ChainingContextOptions {
  /** Decrypt instead of encrypt (default false). */
  readonly decrypt?: boolean;
}

// Frees contexts that were never disposed. The context object itself is the
// unregister token, so dispose() can cancel the pending free.
// gc_pressure.ts counts them, to keep V8 collecting in step.
const ctrRegistry = new FinalizationRegistry<ContextHandle>((handle) => (ctrFree(handle), nativeReleased()));
const igeRegistry = new FinalizationRegistry<ContextHandle>((handle) => (igeFree(handle), nativeReleased()));
const cbcRegistry = new FinalizationRegistry<ContextHandle>((handle) => (cbcFree(handle), nativeReleased()));

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
    nativeCreated();
  }

  /** The live handle; throws once disposed. */
  protected liveHandle(): ContextHandle {
    if (this.#handle === null) throw new Error(`${this.#kind.name} has been disposed`);
    return this.#handle;
  }

  /** Checks `length` for an update; returns false when there is nothing to do. */
  #checkLength(length: number): boolean {
    if (this.#kind.wholeBlocks && length % 16 !== 0) throw new RangeError(NOT_BLOCK_MULTIPLE);
    if (!dataLengthFits(length)) throw new RangeError(DATA_TOO_LARGE);
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
    const length = byteLength(data, "data");
    if (!this.#checkLength(length)) return new Uint8Array(0);
    const out = allocate(length);
    const code = this.#kind.update(handle, out, data, length);
    if (code !== 0) throw nativeError(code);
    return finish(out);
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
    const outLength = byteLength(out, "out");
    const length = byteLength(data, "data");
    const work = this.#checkLength(length);
    checkOutput(outLength, length);
    if (!work) return written(out, outLength, 0);
    const code = this.#kind.update(handle, out, data, length);
    if (code !== 0) throw nativeError(code);
    return written(out, outLength, length);
  }

  /** Wipes and frees the native context. Idempotent. */
  dispose(): void {
    const handle = this.#handle;
    if (handle === null) return;
    this.#handle = null;
    this.#kind.registry.unregister(this);
    this.#kind.free(handle);
    nativeReleased();
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
    const keyLength = byteLength(key, "key");
    const ivLength = byteLength(iv, "iv");
    if (typeof state !== "number") throw new TypeError("state must be a number");
    checkKey(keyLength);
    checkIv(ivLength, CTR_IV_SIZE);
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
    const iv = newBytes(CTR_IV_SIZE);
    const state = newBytes(1);
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
   * @throws {TypeError} for a non-Uint8Array key/iv, non-object options or a non-boolean `decrypt`
   * @throws {RangeError} for bad sizes (TgCrypto's messages)
   */
  constructor(key: Uint8Array, iv: Uint8Array, options?: ChainingContextOptions) {
    const decrypt = decryptOption(options);
    const keyLength = byteLength(key, "key");
    const ivLength = byteLength(iv, "iv");
    checkKey(keyLength);
    checkIv(ivLength, IGE_IV_SIZE);
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
   * @throws {TypeError} for a non-Uint8Array key/iv, non-object options or a non-boolean `decrypt`
   * @throws {RangeError} for bad sizes (TgCrypto's messages)
   */
  constructor(key: Uint8Array, iv: Uint8Array, options?: ChainingContextOptions) {
    const decrypt = decryptOption(options);
    const keyLength = byteLength(key, "key");
    const ivLength = byteLength(iv, "iv");
    checkKey(keyLength);
    checkIv(ivLength, CBC_IV_SIZE);
    const kind = { name: "CbcContext", wholeBlocks: true, update: cbcUpdate, free: cbcFree, registry: cbcRegistry };
    super(kind, requireHandle(cbcNew(key, iv, decrypt ? 1 : 0)));
  }
}

