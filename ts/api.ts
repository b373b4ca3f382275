/**
 * The public API of tgcrypto-ffi: AES-256 IGE, CTR and CBC with TgCrypto's
 * semantics and error messages, zero-copy (`...Into`) variants, streaming
 * contexts, SHA-256/SHA-1, the MTProto 2.0 message layer ({@link AuthKey}),
 * PQ factorization, and the backend controls.
 *
 * Runtime-neutral: it works over any {@link Native} and never touches
 * `bun:ffi` or `Deno`. `mod.ts` loads the library and calls
 * {@link bindNative} before anything here can be used.
 *
 * Every returned array has an ArrayBuffer of its own that this library never
 * writes again. (Outputs are deliberately not carved from a shared pool: its
 * `.buffer` would expose other calls' plaintexts, and transferring it would
 * empty them. Callers that need the last nanoseconds use the `...Into`
 * variants with buffers they own, or an {@link OutputPool}.)
 *
 * @module
 */

import { initialize } from "./aes/backends.ts";
import { bind } from "./runtime/bound.ts";
import type { Native } from "./runtime/native.ts";

export { backend, type BackendInfo, backends, setBackend } from "./aes/backends.ts";
export { CbcContext, type ChainingContextOptions, CtrContext, IgeContext } from "./aes/contexts.ts";
export {
  cbc256Decrypt,
  cbc256DecryptInto,
  cbc256Encrypt,
  cbc256EncryptInto,
  ctr256Decrypt,
  ctr256DecryptInto,
  ctr256Encrypt,
  ctr256EncryptInto,
  ige256Decrypt,
  ige256DecryptInto,
  ige256Encrypt,
  ige256EncryptInto,
} from "./aes/oneshot.ts";
export { OutputPool } from "./aes/output_pool.ts";
export { MtprotoSecurityError, TgCryptoError } from "./errors.ts";
export { AuthKey, type DecryptMessageOptions, type EncryptMessageOptions } from "./mtproto/auth_key.ts";
export { factorizePQ } from "./mtproto/factorize.ts";
export { hashEngine, sha1, sha1Into, sha256, sha256Into } from "./mtproto/hash.ts";
export { libraryPath, version } from "./runtime/bound.ts";
export { ErrorCode } from "./runtime/symbols.ts";

/**
 * Points the API at a loaded library and runs `tg_init()`.
 * Internal: called once by `mod.ts` (after `runtime/load.ts` opened the library).
 *
 * @throws {TgCryptoError} when `TGCRYPTO_BACKEND` names an unknown or
 *   unavailable backend.
 */
export function bindNative(native: Native): void {
  bind(native);
  initialize();
}
