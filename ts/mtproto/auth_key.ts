// `using` support in the emitted .d.ts for consumers whose lib has no esnext.disposable (e.g. lib ["es2022"]).
/// <reference lib="esnext.disposable" preserve="true" />
/**
 * {@link AuthKey}: an MTProto 2.0 authorization key held in native memory,
 * and the message layer over it (core.telegram.org/mtproto/description):
 * one native call per message does the msg_key SHA-256, the key derivation
 * and AES-256-IGE, and on receipt every check of the security guidelines.
 *
 * @module
 */

import {
  allocate,
  authKeyFree,
  authKeyId,
  authKeyNew,
  finish,
  mtprotoDecrypt,
  mtprotoEncrypt,
  nativeInit,
} from "../runtime/bound.ts";
import { MtprotoSecurityError, nativeError, TgCryptoError } from "../errors.ts";
import { nativeCreated, nativeReleased } from "../runtime/gc_pressure.ts";
import type { ContextHandle } from "../runtime/native.ts";
import { ErrorCode } from "../runtime/symbols.ts";
import {
  byteLength,
  checkOutput,
  copyBytes,
  copyList,
  isArrayValue,
  isBytes,
  newBytes,
  notBytes,
  viewOf,
  wipeBytes,
  written,
} from "../validate.ts";
import {
  BAD_AUTH_KEY_SIZE,
  badPaddingSize,
  badPaddingTotal,
  defaultPaddingLength,
  EMPTY_PLAINTEXT,
  MAX_PACKET_SIZE,
  MAX_PADDING,
  MESSAGE_TOO_LARGE,
  messageLengthFits,
  MIN_PADDING,
  MTPROTO_HEADER_SIZE,
  MTPROTO_OVERHEAD,
  packetLengthInRange,
  packetPlaintextLength,
  SHORT_PLAINTEXT,
} from "../contract.ts";
import { randomPaddingSlot } from "./padding.ts";

/** TG_AUTH_KEY_SIZE. */
export const AUTH_KEY_SIZE = 256;
export { MAX_PACKET_SIZE, MAX_PADDING, MIN_PADDING, MTPROTO_HEADER_SIZE, MTPROTO_OVERHEAD };

const FROM_CLIENT = 0;
const FROM_SERVER = 8;

/** Options of {@link AuthKey.encryptMessage}. */
export interface EncryptMessageOptions {
  /** Encrypt as the server (x = 8) instead of the client (x = 0). */
  readonly server?: boolean;
  /**
   * The exact padding bytes (12..1024, plaintext + padding a multiple of 16)
   * instead of the shortest random padding (12..27 bytes from the CSPRNG).
   */
  readonly padding?: Uint8Array;
}

/** Options of {@link AuthKey.decryptMessage}. */
export interface DecryptMessageOptions {
  /** Decrypt a client's message (x = 0), as a server does, instead of a server's (x = 8). */
  readonly server?: boolean;
}

/** The `out` of the shared encrypt/decrypt bodies that asks for a new output (no caller can pass it). */
const FRESH: unique symbol = Symbol("fresh output");

// Frees keys that were never disposed; the AuthKey itself is the unregister token.
const registry = new FinalizationRegistry<ContextHandle>((handle) => {
  authKeyFree(handle);
  nativeReleased();
  collected++;
});
let collected = 0;

/** Internal (tests): how many AuthKeys the FinalizationRegistry has freed. */
export function collectedAuthKeys(): number {
  return collected;
}

/* ------------------------------------------------------------------------ */
/* The plaintext as (head, body) for tg_mtproto_encrypt                     */

// Set right before the native call (after every check) and cleared right
// after it by the same synchronous call: module-level so that no per-call
// object is allocated.
const EMPTY = new Uint8Array(0);
let head: Uint8Array = EMPTY;
let headLength = 0;
let body: Uint8Array = EMPTY;
let bodyLength = 0;
const NO_PARTS: readonly unknown[] = [];
/** This call's plaintext parts (the copy of the caller's array) and their lengths (the engine's). */
let parts: readonly unknown[] = NO_PARTS;
const partLengths: number[] = [];
/** The padding for this call. */
let padding: Uint8Array = EMPTY;
/** Where 3+ parts are joined (memcpy by TypedArray.set); kept up to 1 MiB, wiped after each use. */
let joined = newBytes(0);
let joinedLength = 0;
const KEEP_JOINED_MAX = 1 << 20;
/** The joined plaintext of this call (in `joined`, or a one-off buffer for more than 1 MiB): wiped after the call. */
let joinedPlaintext: Uint8Array = EMPTY;
let joinedPlaintextLength = 0;
/** Tests only: told of every joined plaintext right after it was wiped. */
let onJoinWiped: ((wiped: Uint8Array) => void) | undefined;

/** A buffer for `length` joined bytes. */
function joinBuffer(length: number): Uint8Array {
  if (length <= joinedLength) return joined;
  const buffer = newBytes(length);
  if (length <= KEEP_JOINED_MAX) {
    joined = buffer;
    joinedLength = length;
  }
  return buffer;
}

/** Copies parts[from..to) one after the other into a join buffer; returns the view (wiped by {@link release}). */
function join(from: number, to: number, length: number): Uint8Array {
  const buffer = joinBuffer(length);
  let offset = 0;
  for (let i = from; i < to; i++) {
    copyBytes(buffer, parts[i] as Uint8Array, offset);
    offset += partLengths[i]!;
  }
  joinedPlaintext = viewOf(buffer, 0, length);
  joinedPlaintextLength = length;
  return joinedPlaintext;
}

/**
 * Internal (tests): `observer` is called with each joined plaintext right
 * after it has been wiped (undefined: stop).
 */
export function observeJoinWipes(observer: ((wiped: Uint8Array) => void) | undefined): void {
  onJoinWiped = observer;
}

/**
 * The engine's length of the plaintext: one Uint8Array, or the total of the
 * parts in {@link parts} (copied from the caller's array before anything was
 * measured), each part's length kept in {@link partLengths}.
 */
function plaintextLength(plaintext: unknown, list: readonly unknown[] | undefined): number {
  if (list === undefined) return byteLength(plaintext, "plaintext");
  parts = list;
  partLengths.length = list.length;
  let length = 0;
  for (let i = 0; i < list.length; i++) {
    const n = byteLength(list[i], "every plaintext part");
    partLengths[i] = n;
    length += n;
  }
  return length;
}

/**
 * After every check passed, sets {@link head} and {@link body} (and their
 * lengths) for the native call. One or two parts are passed as they are;
 * with three or more, the parts before the last (or after the first,
 * whichever side is shorter) are copied into the join buffer.
 */
function setPlaintext(plaintext: unknown, list: readonly unknown[] | undefined, length: number): void {
  if (list === undefined) {
    head = plaintext as Uint8Array;
    headLength = length;
    return;
  }
  const count = list.length;
  if (count <= 2) {
    if (count > 0) (head = list[0] as Uint8Array), (headLength = partLengths[0]!);
    if (count > 1) (body = list[1] as Uint8Array), (bodyLength = partLengths[1]!);
    return;
  }
  const firstLength = partLengths[0]!, lastLength = partLengths[count - 1]!;
  if (lastLength >= firstLength) {
    headLength = length - lastLength;
    head = join(0, count - 1, headLength);
    body = list[count - 1] as Uint8Array;
    bodyLength = lastLength;
  } else {
    head = list[0] as Uint8Array;
    headLength = firstLength;
    bodyLength = length - firstLength;
    body = join(1, count, bodyLength);
  }
}

/** Drops the references to the caller's buffers and wipes the plaintext copied into the join buffer, if any. */
function release(): void {
  head = EMPTY;
  body = EMPTY;
  headLength = 0;
  bodyLength = 0;
  padding = EMPTY;
  parts = NO_PARTS;
  if (joinedPlaintextLength !== 0) {
    wipeBytes(joinedPlaintext);
    onJoinWiped?.(joinedPlaintext);
    joinedPlaintext = EMPTY;
    joinedPlaintextLength = 0;
  }
}

/* ------------------------------------------------------------------------ */
/* Options                                                                  */

/** options itself: undefined or an object. */
function checkOptions(options: unknown): void {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new TypeError("options must be an object");
  }
}

/** `options.server`, read once: undefined means false; anything but a boolean is a TypeError. */
function serverOption(options: { readonly server?: unknown } | undefined): boolean {
  if (options === undefined) return false;
  const server = options.server;
  if (server === undefined) return false;
  if (typeof server !== "boolean") throw new TypeError("options.server must be a boolean");
  return server;
}

/** Checks the given padding (of `n` bytes by the engine) against a plaintext of `length` bytes. */
function checkPadding(n: number, length: number): void {
  if (n < MIN_PADDING || n > MAX_PADDING) throw new RangeError(badPaddingSize(n));
  if ((length + n) % 16 !== 0) {
    throw new RangeError(badPaddingTotal(length, n));
  }
}

/** Length checks of a plaintext (types were checked). */
function checkPlaintextLength(length: number): void {
  if (length === 0) throw new RangeError(EMPTY_PLAINTEXT);
  if (length < MTPROTO_HEADER_SIZE) throw new RangeError(SHORT_PLAINTEXT);
}

/** The error for a negative tg_mtproto_decrypt result. */
function decryptError(code: number): Error {
  if (code === ErrorCode.SECURITY || code === ErrorCode.SIZE) return new MtprotoSecurityError();
  return nativeError(code); // overlap (RangeError) or a library failure
}

/* ------------------------------------------------------------------------ */

/**
 * An MTProto 2.0 authorization key (256 bytes) in native memory, with the
 * message layer: {@link AuthKey.encryptMessage} produces
 * `auth_key_id || msg_key || AES-256-IGE(plaintext || padding)` and
 * {@link AuthKey.decryptMessage} checks and opens such a packet.
 *
 * The key is copied at construction; dispose() (or `using`) wipes and frees
 * the native copy, and a forgotten AuthKey is wiped and freed when it is
 * garbage-collected (FinalizationRegistry).
 */
export class AuthKey implements Disposable {
  #handle: ContextHandle | null;

  /**
   * auth_key_id: the last 8 bytes of SHA1(auth_key), as the first 8 bytes of
   * every packet. The same array on every access; do not modify it.
   */
  readonly id: Uint8Array<ArrayBuffer>;

  /**
   * @param key the 256-byte auth_key (copied into native memory)
   * @throws {TypeError} if `key` is not a Uint8Array
   * @throws {RangeError} "Auth key size must be exactly 256 bytes"
   */
  constructor(key: Uint8Array) {
    if (byteLength(key, "key") !== AUTH_KEY_SIZE) throw new RangeError(BAD_AUTH_KEY_SIZE);
    const handle = authKeyNew(key);
    if (!handle) { // Bun may report NULL as null or 0
      const code = nativeInit();
      throw new TgCryptoError(code !== ErrorCode.OK ? code : ErrorCode.NOMEM);
    }
    const id = newBytes(8);
    const code = authKeyId(handle, id);
    if (code !== 0) {
      authKeyFree(handle);
      throw nativeError(code);
    }
    this.#handle = handle;
    this.id = id;
    registry.register(this, handle, this);
    nativeCreated();
  }

  #live(): ContextHandle {
    if (this.#handle === null) throw new Error("AuthKey has been disposed");
    return this.#handle;
  }

  /**
   * Encrypts one message: `auth_key_id || msg_key || AES-256-IGE(plaintext || padding)`.
   *
   * @param plaintext the message from the salt on (salt, session_id,
   *   msg_id, seq_no, message_data_length, message_data), at least 32
   *   bytes; an array of parts is encrypted as their concatenation (one or
   *   two parts are read in place; with more, the shorter side is copied
   *   into a module buffer that is wiped after the call)
   * @param options `server: true` encrypts as the server (x = 8; default
   *   the client, x = 0); `padding` gives the exact padding bytes
   *   (12..1024, plaintext + padding a multiple of 16), default the shortest
   *   valid length (12..27) of CSPRNG bytes
   * @returns a new packet of 24 + plaintext + padding bytes
   * @throws {TypeError} for a non-Uint8Array plaintext, part or padding
   * @throws {RangeError} for an empty or too short plaintext, bad padding or
   *   a packet over 2^31 - 1 bytes (nothing is modified)
   * @throws {Error} after dispose
   */
  encryptMessage(
    plaintext: Uint8Array | readonly Uint8Array[],
    options?: EncryptMessageOptions,
  ): Uint8Array<ArrayBuffer> {
    return this.#encrypt(FRESH, plaintext, options);
  }

  /**
   * {@link AuthKey.encryptMessage} into a caller-provided buffer (e.g. a send
   * buffer after the transport header).
   *
   * @param out receives the packet in out[0..n); must not overlap the
   *   plaintext or padding (RangeError)
   * @returns `out.subarray(0, n)` (`out` itself when it is exactly n bytes)
   * @throws {RangeError} as encryptMessage, then "Output buffer is too small
   *   (need N bytes)"
   */
  encryptMessageInto<T extends ArrayBufferLike>(
    out: Uint8Array<T>,
    plaintext: Uint8Array | readonly Uint8Array[],
    options?: EncryptMessageOptions,
  ): Uint8Array<T> {
    return this.#encrypt(out, plaintext, options);
  }

  /** Both encrypt calls: every check first, then `out` (FRESH: a new packet) is written. */
  #encrypt<T extends ArrayBufferLike>(
    out: Uint8Array<T> | typeof FRESH,
    plaintext: Uint8Array | readonly Uint8Array[],
    options: EncryptMessageOptions | undefined,
  ): Uint8Array<T> {
    const handle = this.#live();
    // First everything that may run the caller's code (option getters, the
    // parts array's iterator), each read once; then every byte argument is
    // measured, and nothing of the caller's runs until C has returned.
    if (out !== FRESH && !isBytes(out)) throw notBytes("out");
    checkOptions(options);
    const x = serverOption(options) ? FROM_SERVER : FROM_CLIENT;
    const given = options?.padding;
    const list = isArrayValue(plaintext) ? copyList(plaintext) : undefined;
    const fresh = out === FRESH;
    const outLength = fresh ? 0 : byteLength(out, "out");
    let code: number;
    let packetLength: number;
    try {
      const length = plaintextLength(plaintext, list);
      checkPlaintextLength(length);
      const padLength = given === undefined ? defaultPaddingLength(length) : byteLength(given, "options.padding");
      if (given !== undefined) checkPadding(padLength, length);
      if (!messageLengthFits(length + padLength)) throw new RangeError(MESSAGE_TOO_LARGE);
      packetLength = MTPROTO_OVERHEAD + length + padLength;
      if (out === FRESH) out = allocate(packetLength) as Uint8Array<ArrayBuffer> as Uint8Array<T>;
      else checkOutput(outLength, packetLength);
      setPlaintext(plaintext, list, length);
      padding = (given as Uint8Array | undefined) ?? randomPaddingSlot();
      code = mtprotoEncrypt(handle, x, out, head, headLength, body, bodyLength, padding, padLength);
    } finally {
      release();
    }
    if (code !== 0) throw nativeError(code);
    if (fresh) return finish(out as Uint8Array<ArrayBuffer>) as Uint8Array<ArrayBuffer> as Uint8Array<T>;
    return written(out, outLength, packetLength);
  }

  /**
   * Checks and decrypts one packet (`auth_key_id || msg_key || ciphertext`).
   *
   * @param options `server: true` opens a client's message (x = 0), as a
   *   server does; default a server's message (x = 8), as a client does
   * @returns the plaintext from the salt to the end of message_data (32 +
   *   message_data_length bytes, padding excluded): a view at offset 0 of a
   *   fresh ArrayBuffer of packet.length - 24 bytes whose bytes past the
   *   plaintext (where the padding was) are zero
   * @throws {MtprotoSecurityError} for every rejected packet, whatever its
   *   length or content (one message; which check failed is not told)
   * @throws {TypeError} if `packet` is not a Uint8Array
   * @throws {Error} after dispose
   */
  decryptMessage(packet: Uint8Array, options?: DecryptMessageOptions): Uint8Array<ArrayBuffer> {
    return this.#decrypt(FRESH, packet, options);
  }

  /**
   * {@link AuthKey.decryptMessage} into a caller-provided buffer.
   *
   * @param out room for packet.length - 24 bytes; may be exactly
   *   `packet.subarray(24)` (in place), any other overlap is a RangeError.
   *   On success out[0..n) is the plaintext and the rest of those bytes are
   *   zero; on rejection all packet.length - 24 of them are zeroed.
   * @returns `out.subarray(0, n)`
   * @throws {MtprotoSecurityError} for every rejected packet
   * @throws {RangeError} "Output buffer is too small (need N bytes)"
   */
  decryptMessageInto<T extends ArrayBufferLike>(
    out: Uint8Array<T>,
    packet: Uint8Array,
    options?: DecryptMessageOptions,
  ): Uint8Array<T> {
    return this.#decrypt(out, packet, options);
  }

  /** Both decrypt calls: `out` FRESH decrypts into a new buffer of packet.length - 24 bytes. */
  #decrypt<T extends ArrayBufferLike>(
    out: Uint8Array<T> | typeof FRESH,
    packet: Uint8Array,
    options: DecryptMessageOptions | undefined,
  ): Uint8Array<T> {
    const handle = this.#live();
    // Types first; then the caller's code (an options.server getter) runs before anything is measured.
    if (out !== FRESH && !isBytes(out)) throw notBytes("out");
    if (!isBytes(packet)) throw notBytes("packet");
    checkOptions(options);
    const x = serverOption(options) ? FROM_CLIENT : FROM_SERVER;
    const fresh = out === FRESH;
    const outLength = fresh ? 0 : byteLength(out, "out");
    const length = byteLength(packet, "packet");
    // Lengths are public: a packet that cannot be valid never reaches C.
    if (!packetLengthInRange(length)) throw new MtprotoSecurityError();
    if (out === FRESH) out = allocate(packetPlaintextLength(length)) as Uint8Array<ArrayBuffer> as Uint8Array<T>;
    else checkOutput(outLength, packetPlaintextLength(length));
    const result = mtprotoDecrypt(handle, x, out, packet, length);
    if (result < 0) {
      if (fresh) finish(out as Uint8Array<ArrayBuffer>); // drops it (and wipes a scratch)
      throw decryptError(result);
    }
    if (fresh) {
      const plaintext = finish(out as Uint8Array<ArrayBuffer>) as Uint8Array<ArrayBuffer> as Uint8Array<T>;
      return written(plaintext, packetPlaintextLength(length), result);
    }
    return written(out, outLength, result);
  }

  /** Wipes and frees the native key. Idempotent. */
  dispose(): void {
    const handle = this.#handle;
    if (handle === null) return;
    this.#handle = null;
    registry.unregister(this);
    authKeyFree(handle);
    nativeReleased();
  }

  /** Same as {@link AuthKey.dispose}, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
