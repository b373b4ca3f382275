/**
 * tgcrypto-ffi: native AES-256 IGE/CTR/CBC (Telegram MTProto) for Bun and
 * Deno, through their built-in FFI.
 *
 * ```ts
 * import { ige256Encrypt, ige256Decrypt } from "tgcrypto-ffi";
 * const encrypted = ige256Encrypt(data, key, iv);
 * ```
 *
 * Importing loads the shared library (see `locate.ts`: `TGCRYPTO_LIB`, then
 * the dev build in zig-out/, then the platform package
 * `tgcrypto-ffi-<platform>` from npm) and selects the fastest AES backend.
 * In Deno, run with `--allow-ffi` (plus `--allow-env` for the environment
 * variables and `--allow-read` to check the candidates).
 *
 * @module
 */

import { bindNative } from "./api.ts";
import type { Native } from "./native.ts";

const runtimeGlobals = globalThis as { Bun?: unknown; Deno?: unknown };

/** Loads the library through the FFI of the runtime we are in. */
async function loadForRuntime(): Promise<Native> {
  // Bun first: it is never mistaken for Deno, and its FFI module only parses under Bun.
  if (runtimeGlobals.Bun !== undefined) return (await import("./ffi_bun.ts")).loadNative();
  if (runtimeGlobals.Deno !== undefined) return (await import("./ffi_deno.ts")).loadNative();
  throw new Error(
    "tgcrypto-ffi requires Bun (bun:ffi) or Deno (Deno.dlopen): this runtime has no built-in FFI. " +
      "Node.js is not supported.",
  );
}

bindNative(await loadForRuntime());

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

export { mtcute, type MtcuteAesCtr, type MtcuteEncryptionScheme } from "./mtcute.ts";
