/**
 * Errors: native return codes become {@link TgCryptoError}, except overlap,
 * which is an argument error like the others (RangeError).
 *
 * @module
 */

import { strerror } from "./runtime/bound.ts";
import { ErrorCode } from "./runtime/symbols.ts";
import { MTPROTO_REJECTED, PARTIAL_OVERLAP } from "./contract.ts";

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
export function nativeError(code: number): Error {
  // Overlap is caught by C on the real addresses; report it like the other argument errors.
  if (code === ErrorCode.OVERLAP) return new RangeError(PARTIAL_OVERLAP);
  return new TgCryptoError(code);
}


/** The one message of every {@link MtprotoSecurityError} (from contract/rules.json). */
export { MTPROTO_REJECTED };

/**
 * A received MTProto packet failed a check (length, auth_key_id, msg_key,
 * message_data_length or padding length). Always the same message: which
 * check failed is deliberately not told (no padding or MAC oracle), and the
 * native decryption decides it without data-dependent branches.
 */
export class MtprotoSecurityError extends Error {
  constructor() {
    super(MTPROTO_REJECTED);
    this.name = "MtprotoSecurityError";
  }
}
