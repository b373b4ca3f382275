/**
 * The contract between the runtime bindings (`bun.ts`, `deno.ts`,
 * `node.ts`) and the runtime-neutral API (`../api.ts`).
 *
 * Functions keep their C names and argument order (see `symbols.ts`); the
 * only translations are C strings into JS strings and contexts into opaque
 * handles. They are plain functions (not methods), so callers can keep them
 * in local bindings for the engines' fast FFI call paths.
 *
 * @module
 */

import type { SymbolFunctions } from "./symbols.ts";

declare const contextBrand: unique symbol;

/**
 * An opaque `tg_*_ctx *` (a number in Bun, a pointer object in Deno, an
 * external object of the addon in Node.js).
 * Only ever passed back to the library that returned it.
 */
export type ContextHandle = { readonly [contextBrand]: "tg_ctx" };

/** Which FFI a {@link Native} was loaded with. */
export type RuntimeName = "bun" | "deno" | "node";

/** libtgcrypto loaded into the current runtime. */
export interface Native {
  /** The FFI in use. */
  readonly runtime: RuntimeName;
  /** File the library was loaded from. */
  readonly path: string;
  /**
   * Allocates an output: a fresh array with its own ArrayBuffer that nothing
   * else references. Its bytes need not be zeroed, because every output is
   * completely overwritten before it is returned (and dropped on error).
   */
  readonly allocateOutput: (length: number) => Uint8Array<ArrayBuffer>;
  /**
   * What the caller gets, once the native call has written an array from
   * {@link Native.allocateOutput}. The identity in Bun and Deno. In Node.js a
   * small output (<= 64 bytes) is written into a long-lived off-heap scratch
   * and copied out here to a fresh array, the scratch wiped (see node.ts:
   * V8 copies a small fresh array out of its heap when native code first
   * asks for its address, which costs more than the call).
   */
  readonly finishOutput: (out: Uint8Array<ArrayBuffer>) => Uint8Array<ArrayBuffer>;

  /** `tg_strerror`: static English text for a return code. */
  readonly tg_strerror: (code: number) => string;
  /** `tg_version`: version string of the loaded library. */
  readonly tg_version: () => string;

  /** `tg_init`: selects the backend (honouring `TGCRYPTO_BACKEND`); 0 or an error code. */
  readonly tg_init: () => number;
  /** `tg_backend`: name of the backend in use, null if `tg_init` failed. */
  readonly tg_backend: () => string | null;
  /** `tg_backend_count`: number of backends compiled in. */
  readonly tg_backend_count: () => number;
  /** `tg_backend_name`: name of backend `index`, null past the end. */
  readonly tg_backend_name: (index: number) => string | null;
  /** `tg_backend_available`: 1 if this CPU can run backend `index`. */
  readonly tg_backend_available: (index: number) => number;
  /** `tg_set_backend`: switch the process-wide backend; 0 or an error code. */
  readonly tg_set_backend: (name: string) => number;

  /** `tg_ige256_encrypt`: 0 or an error code. */
  readonly tg_ige256_encrypt: (
    out: Uint8Array, data: Uint8Array, length: number, key: Uint8Array, iv: Uint8Array,
  ) => number;
  /** `tg_ige256_decrypt`: 0 or an error code. */
  readonly tg_ige256_decrypt: (
    out: Uint8Array, data: Uint8Array, length: number, key: Uint8Array, iv: Uint8Array,
  ) => number;
  /** `tg_ctr256`: updates `iv` and `state` in place; 0 or an error code. */
  readonly tg_ctr256: (
    out: Uint8Array, data: Uint8Array, length: number, key: Uint8Array, iv: Uint8Array, state: Uint8Array,
  ) => number;
  /** `tg_cbc256_encrypt`: updates `iv` in place; 0 or an error code. */
  readonly tg_cbc256_encrypt: (
    out: Uint8Array, data: Uint8Array, length: number, key: Uint8Array, iv: Uint8Array,
  ) => number;
  /** `tg_cbc256_decrypt`: updates `iv` in place; 0 or an error code. */
  readonly tg_cbc256_decrypt: (
    out: Uint8Array, data: Uint8Array, length: number, key: Uint8Array, iv: Uint8Array,
  ) => number;

  /** `tg_ctr_new`: null on a bad argument, failed init or out of memory. */
  readonly tg_ctr_new: (key: Uint8Array, iv: Uint8Array, state: number) => ContextHandle | null;
  /** `tg_ctr_update`: 0 or an error code. */
  readonly tg_ctr_update: (ctx: ContextHandle, out: Uint8Array, data: Uint8Array, length: number) => number;
  /** `tg_ctr_position`: writes the counter block and offset; 0 or an error code. */
  readonly tg_ctr_position: (ctx: ContextHandle, iv: Uint8Array, state: Uint8Array) => number;
  /** `tg_ctr_free`: wipes and frees. */
  readonly tg_ctr_free: (ctx: ContextHandle) => void;

  /** `tg_ige_new`: `decrypt` 0 encrypts, 1 decrypts; null on failure. */
  readonly tg_ige_new: (key: Uint8Array, iv: Uint8Array, decrypt: number) => ContextHandle | null;
  /** `tg_ige_update`: 0 or an error code. */
  readonly tg_ige_update: (ctx: ContextHandle, out: Uint8Array, data: Uint8Array, length: number) => number;
  /** `tg_ige_free`: wipes and frees. */
  readonly tg_ige_free: (ctx: ContextHandle) => void;

  /** `tg_cbc_new`: `decrypt` 0 encrypts, 1 decrypts; null on failure. */
  readonly tg_cbc_new: (key: Uint8Array, iv: Uint8Array, decrypt: number) => ContextHandle | null;
  /** `tg_cbc_update`: 0 or an error code. */
  readonly tg_cbc_update: (ctx: ContextHandle, out: Uint8Array, data: Uint8Array, length: number) => number;
  /** `tg_cbc_free`: wipes and frees. */
  readonly tg_cbc_free: (ctx: ContextHandle) => void;

  /** `tg_hash_engine`: "sha-ni", "armv8-sha" or "portable" (null if the library could not initialise). */
  readonly tg_hash_engine: () => string | null;
  /** `tg_sha256`: one-shot; 0 or an error code. */
  readonly tg_sha256: (digest: Uint8Array, data: Uint8Array, length: number) => number;
  /** `tg_sha256_init`: starts a hash in a caller-owned 112-byte state. */
  readonly tg_sha256_init: (state: Uint8Array) => number;
  /** `tg_sha256_update`: absorbs `length` bytes of `data`. */
  readonly tg_sha256_update: (state: Uint8Array, data: Uint8Array, length: number) => number;
  /** `tg_sha256_final`: writes the 32-byte digest and wipes the state. */
  readonly tg_sha256_final: (state: Uint8Array, digest: Uint8Array) => number;
  /** `tg_sha1`: one-shot; 0 or an error code. */
  readonly tg_sha1: (digest: Uint8Array, data: Uint8Array, length: number) => number;
  /** `tg_sha1_init`: starts a hash in a caller-owned 112-byte state. */
  readonly tg_sha1_init: (state: Uint8Array) => number;
  /** `tg_sha1_update`: absorbs `length` bytes of `data`. */
  readonly tg_sha1_update: (state: Uint8Array, data: Uint8Array, length: number) => number;
  /** `tg_sha1_final`: writes the 20-byte digest and wipes the state. */
  readonly tg_sha1_final: (state: Uint8Array, digest: Uint8Array) => number;

  /** `tg_auth_key_new`: copies the 256-byte key; null on failure. */
  readonly tg_auth_key_new: (key: Uint8Array) => ContextHandle | null;
  /** `tg_auth_key_id`: writes the 8-byte auth_key_id; 0 or an error code. */
  readonly tg_auth_key_id: (key: ContextHandle, id: Uint8Array) => number;
  /** `tg_auth_key_free`: wipes and frees. */
  readonly tg_auth_key_free: (key: ContextHandle) => void;
  /** `tg_mtproto_encrypt`: writes the packet; 0 or an error code. */
  readonly tg_mtproto_encrypt: (
    key: ContextHandle, x: number, packet: Uint8Array,
    head: Uint8Array, headLength: number, body: Uint8Array, bodyLength: number,
    padding: Uint8Array, paddingLength: number,
  ) => number;
  /** `tg_mtproto_decrypt`: the plaintext length (padding excluded) or a negative code. */
  readonly tg_mtproto_decrypt: (
    key: ContextHandle, x: number, plaintext: Uint8Array, packet: Uint8Array, packetLength: number,
  ) => number;

  /** `tg_factorize_pq`: writes p and q (8 bytes each, native byte order); 0 or an error code. */
  readonly tg_factorize_pq: (pq: bigint, p: Uint8Array, q: Uint8Array) => number;
}

/**
 * The {@link Native} both loaders return, from their FFI's symbols. Hot
 * functions are the FFI's own, passed through untouched (fast call paths);
 * only the C-string and name functions are wrapped. Contexts keep the value
 * the FFI returns (a number in Bun, a pointer object in Deno):
 * {@link ContextHandle} only brands it, so the single cast changes no value.
 */
export function nativeFromSymbols<C, P>(
  base: Pick<Native, "runtime" | "path" | "allocateOutput" | "finishOutput">,
  symbols: SymbolFunctions<C, P>,
  readCString: (pointer: P) => string | null,
): Native {
  const raw = symbols as unknown as SymbolFunctions<ContextHandle, P>;
  const encoder = new TextEncoder();
  return {
    ...base,
    tg_strerror: (code) => readCString(raw.tg_strerror(code)) ?? "unknown error code",
    tg_version: () => readCString(raw.tg_version()) ?? "",
    tg_init: raw.tg_init,
    tg_backend: () => readCString(raw.tg_backend()),
    tg_backend_count: raw.tg_backend_count,
    tg_backend_name: (index) => readCString(raw.tg_backend_name(index)),
    tg_backend_available: raw.tg_backend_available,
    tg_set_backend: (name) => raw.tg_set_backend(encoder.encode(`${name}\0`)),
    tg_ige256_encrypt: raw.tg_ige256_encrypt,
    tg_ige256_decrypt: raw.tg_ige256_decrypt,
    tg_ctr256: raw.tg_ctr256,
    tg_cbc256_encrypt: raw.tg_cbc256_encrypt,
    tg_cbc256_decrypt: raw.tg_cbc256_decrypt,
    tg_ctr_new: raw.tg_ctr_new,
    tg_ctr_update: raw.tg_ctr_update,
    tg_ctr_position: raw.tg_ctr_position,
    tg_ctr_free: raw.tg_ctr_free,
    tg_ige_new: raw.tg_ige_new,
    tg_ige_update: raw.tg_ige_update,
    tg_ige_free: raw.tg_ige_free,
    tg_cbc_new: raw.tg_cbc_new,
    tg_cbc_update: raw.tg_cbc_update,
    tg_cbc_free: raw.tg_cbc_free,
    tg_hash_engine: () => readCString(raw.tg_hash_engine()),
    tg_sha256: raw.tg_sha256,
    tg_sha256_init: raw.tg_sha256_init,
    tg_sha256_update: raw.tg_sha256_update,
    tg_sha256_final: raw.tg_sha256_final,
    tg_sha1: raw.tg_sha1,
    tg_sha1_init: raw.tg_sha1_init,
    tg_sha1_update: raw.tg_sha1_update,
    tg_sha1_final: raw.tg_sha1_final,
    tg_auth_key_new: raw.tg_auth_key_new,
    tg_auth_key_id: raw.tg_auth_key_id,
    tg_auth_key_free: raw.tg_auth_key_free,
    tg_mtproto_encrypt: raw.tg_mtproto_encrypt,
    tg_mtproto_decrypt: raw.tg_mtproto_decrypt,
    tg_factorize_pq: raw.tg_factorize_pq,
  };
}

/** The error for a library that was found but could not be opened (the FFI's error as `cause`). */
export function loadFailure(path: string, origin: string, cause: unknown): Error {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new Error(`tgcrypto-ffi: cannot load ${path} (${origin}): ${reason}`, { cause });
}
