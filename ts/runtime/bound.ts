/**
 * The native functions the API calls, bound once by {@link bind}. Plain
 * module-level bindings, one per C function, so every call site stays
 * monomorphic on the FFI function itself (the engines' fast call paths).
 *
 * @module
 */

import type { Native } from "./native.ts";

/** What every binding is until {@link bind} runs. */
export function notLoaded(): never {
  throw new Error("tgcrypto-ffi: the native library is not loaded; import the package entry (ts/mod.ts)");
}

export let strerror: Native["tg_strerror"] = notLoaded;
export let nativeVersion: Native["tg_version"] = notLoaded;
export let nativeInit: Native["tg_init"] = notLoaded;
export let nativeBackend: Native["tg_backend"] = notLoaded;
export let backendCount: Native["tg_backend_count"] = notLoaded;
export let backendName: Native["tg_backend_name"] = notLoaded;
export let backendAvailable: Native["tg_backend_available"] = notLoaded;
export let nativeSetBackend: Native["tg_set_backend"] = notLoaded;
export let igeEncrypt: Native["tg_ige256_encrypt"] = notLoaded;
export let igeDecrypt: Native["tg_ige256_decrypt"] = notLoaded;
export let ctr256: Native["tg_ctr256"] = notLoaded;
export let cbcEncrypt: Native["tg_cbc256_encrypt"] = notLoaded;
export let cbcDecrypt: Native["tg_cbc256_decrypt"] = notLoaded;
export let ctrNew: Native["tg_ctr_new"] = notLoaded;
export let ctrUpdate: Native["tg_ctr_update"] = notLoaded;
export let ctrPosition: Native["tg_ctr_position"] = notLoaded;
export let ctrFree: Native["tg_ctr_free"] = notLoaded;
export let igeNew: Native["tg_ige_new"] = notLoaded;
export let igeUpdate: Native["tg_ige_update"] = notLoaded;
export let igeFree: Native["tg_ige_free"] = notLoaded;
export let cbcNew: Native["tg_cbc_new"] = notLoaded;
export let cbcUpdate: Native["tg_cbc_update"] = notLoaded;
export let cbcFree: Native["tg_cbc_free"] = notLoaded;
export let hashEngineName: Native["tg_hash_engine"] = notLoaded;
export let sha256OneShot: Native["tg_sha256"] = notLoaded;
export let sha256Init: Native["tg_sha256_init"] = notLoaded;
export let sha256Update: Native["tg_sha256_update"] = notLoaded;
export let sha256Final: Native["tg_sha256_final"] = notLoaded;
export let sha1OneShot: Native["tg_sha1"] = notLoaded;
export let sha1Init: Native["tg_sha1_init"] = notLoaded;
export let sha1Update: Native["tg_sha1_update"] = notLoaded;
export let sha1Final: Native["tg_sha1_final"] = notLoaded;
export let authKeyNew: Native["tg_auth_key_new"] = notLoaded;
export let authKeyId: Native["tg_auth_key_id"] = notLoaded;
export let authKeyFree: Native["tg_auth_key_free"] = notLoaded;
export let mtprotoEncrypt: Native["tg_mtproto_encrypt"] = notLoaded;
export let mtprotoDecrypt: Native["tg_mtproto_decrypt"] = notLoaded;
export let factorize: Native["tg_factorize_pq"] = notLoaded;
let loadedPath: string | undefined;

/** A fresh output of `length` (> 0) bytes that nothing else references (once passed through {@link finish}). */
export let allocate: Native["allocateOutput"] = (length) => new Uint8Array(length);
/** What the caller gets for an output from {@link allocate} after the native call wrote it. */
export let finish: Native["finishOutput"] = (out) => out;

/** Points every binding at a loaded library. Internal: called by `bindNative`. */
export function bind(native: Native): void {
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
  hashEngineName = native.tg_hash_engine;
  sha256OneShot = native.tg_sha256;
  sha256Init = native.tg_sha256_init;
  sha256Update = native.tg_sha256_update;
  sha256Final = native.tg_sha256_final;
  sha1OneShot = native.tg_sha1;
  sha1Init = native.tg_sha1_init;
  sha1Update = native.tg_sha1_update;
  sha1Final = native.tg_sha1_final;
  authKeyNew = native.tg_auth_key_new;
  authKeyId = native.tg_auth_key_id;
  authKeyFree = native.tg_auth_key_free;
  mtprotoEncrypt = native.tg_mtproto_encrypt;
  mtprotoDecrypt = native.tg_mtproto_decrypt;
  factorize = native.tg_factorize_pq;
  allocate = native.allocateOutput;
  finish = native.finishOutput;
  loadedPath = native.path;
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
