/**
 * tgcrypto-ffi: native Telegram cryptography (AES-256 IGE/CTR/CBC, SHA-256 and
 * SHA-1, the MTProto 2.0 message layer, PQ factorization) for Bun, Deno and
 * Node.js: Bun and Deno load the shared library through their built-in FFI
 * (bun:ffi, Deno.dlopen), Node.js its Node-API addon (tgcrypto.node). The
 * client drop-ins are separate entries (`tgcrypto-ffi/gramjs` for GramJS and
 * teleproto, `tgcrypto-ffi/mtcute`); this one knows no client.
 *
 * ```ts
 * import { ige256Encrypt, ige256Decrypt } from "tgcrypto-ffi";
 * const encrypted = ige256Encrypt(data, key, iv);
 * ```
 *
 * Importing loads the native code (see `runtime/locate.ts`: `TGCRYPTO_LIB`, then
 * the dev build in zig-out/, then the platform package
 * `tgcrypto-ffi-<platform>` from npm) and selects the fastest AES backend.
 * In Deno, run with `--allow-ffi` (plus `--allow-env` for the environment
 * variables and `--allow-read` to check the candidates).
 *
 * @module
 */

import { bindNative } from "./api.ts";
import { loadNative } from "./runtime/load.ts";

bindNative(loadNative());

export {
  AuthKey,
  backend,
  type BackendInfo,
  backends,
  cbc256Decrypt,
  cbc256DecryptInto,
  cbc256Encrypt,
  cbc256EncryptInto,
  CbcContext,
  type ChainingContextOptions,
  ctr256Decrypt,
  ctr256DecryptInto,
  ctr256Encrypt,
  ctr256EncryptInto,
  CtrContext,
  type DecryptMessageOptions,
  type EncryptMessageOptions,
  ErrorCode,
  factorizePQ,
  hashEngine,
  ige256Decrypt,
  ige256DecryptInto,
  ige256Encrypt,
  ige256EncryptInto,
  IgeContext,
  libraryPath,
  MtprotoSecurityError,
  OutputPool,
  setBackend,
  sha1,
  sha1Into,
  sha256,
  sha256Into,
  TgCryptoError,
  version,
} from "./api.ts";
