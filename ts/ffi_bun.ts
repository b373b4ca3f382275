/**
 * Loads libtgcrypto with `bun:ffi`.
 *
 * Byte buffers are declared `ptr` and always passed as the Uint8Array itself:
 * Bun then reads the address at call time. Never pass a number from `ptr()`
 * computed earlier, because JSC may move a small typed array's storage
 * (oven-sh/bun#32054).
 *
 * @module
 */

import { CString, dlopen, type Pointer } from "bun:ffi";
import { locateLibrary } from "./locate.ts";
import type { Native } from "./native.ts";
import { type ArgKind, type MapDefinitions, type ResultKind, type SymbolName, symbols } from "./symbols.ts";

const BUN_ARG_TYPES = {
  bytes: "ptr",
  u32: "u32",
  i32: "i32",
  context: "ptr",
} as const satisfies Record<ArgKind, string>;

const BUN_RESULT_TYPES = {
  i32: "i32",
  u32: "u32",
  void: "void",
  context: "ptr",
  cstring: "ptr", // read with CString after a NULL check
} as const satisfies Record<ResultKind, string>;

type BunDefinitions = MapDefinitions<typeof BUN_ARG_TYPES, typeof BUN_RESULT_TYPES>;

/** The neutral table in bun:ffi's `{args, returns}` form. */
function bunDefinitions(): BunDefinitions {
  const definitions: Record<string, { args: string[]; returns: string }> = {};
  for (const name of Object.keys(symbols) as SymbolName[]) {
    const { args, returns } = symbols[name];
    definitions[name] = { args: args.map((kind) => BUN_ARG_TYPES[kind]), returns: BUN_RESULT_TYPES[returns] };
  }
  return definitions as unknown as BunDefinitions;
}

/** A returned `const char *` as a JS string (null for NULL). */
function readCString(pointer: Pointer | bigint | null): string | null {
  if (pointer === null || pointer === 0 || typeof pointer === "bigint") return null;
  return new CString(pointer).toString();
}

/**
 * From this size on, Bun.allocUnsafe (no zero-fill) beats `new Uint8Array`
 * (measured: 37 vs 48 ns at 512 B, 0.6 vs 3.5 us at 64 KiB); below it,
 * JSC's in-heap typed arrays are cheaper.
 */
const UNINITIALIZED_OUTPUT_MIN_BYTES = 512;

/** Output allocator for {@link Native.allocateOutput}. */
function allocateOutput(length: number): Uint8Array<ArrayBuffer> {
  return length < UNINITIALIZED_OUTPUT_MIN_BYTES ? new Uint8Array(length) : Bun.allocUnsafe(length);
}

/**
 * Opens the library found by {@link locateLibrary} and returns its functions.
 *
 * @throws {Error} when the library is missing or cannot be loaded (the
 *   loader's error is kept as `cause`).
 */
export async function loadNative(): Promise<Native> {
  const { path, origin } = await locateLibrary();
  let library;
  try {
    library = dlopen(path, bunDefinitions());
  } catch (cause) {
    throw new Error(`tgcrypto-ffi: cannot load ${path} (${origin}): ${describe(cause)}`, { cause });
  }
  const {
    tg_strerror, tg_version, tg_init, tg_backend, tg_backend_count, tg_backend_name,
    tg_backend_available, tg_set_backend, tg_ige256_encrypt, tg_ige256_decrypt, tg_ctr256,
    tg_cbc256_encrypt, tg_cbc256_decrypt, tg_ctr_new, tg_ctr_update, tg_ctr_position,
    tg_ctr_free, tg_ige_new, tg_ige_update, tg_ige_free, tg_cbc_new, tg_cbc_update, tg_cbc_free,
  } = library.symbols;

  const encoder = new TextEncoder();
  // Contexts travel as the raw pointer numbers Bun returns (null for NULL);
  // ContextHandle only brands them, so these casts change no values.
  const handles = <Name extends keyof Native>(fn: unknown) => fn as Native[Name];

  return {
    runtime: "bun",
    path,
    allocateOutput,
    tg_strerror: (code) => readCString(tg_strerror(code)) ?? "unknown error code",
    tg_version: () => readCString(tg_version()) ?? "",
    tg_init,
    tg_backend: () => readCString(tg_backend()),
    tg_backend_count,
    tg_backend_name: (index) => readCString(tg_backend_name(index)),
    tg_backend_available,
    tg_set_backend: (name) => tg_set_backend(encoder.encode(`${name}\0`)),
    tg_ige256_encrypt,
    tg_ige256_decrypt,
    tg_ctr256,
    tg_cbc256_encrypt,
    tg_cbc256_decrypt,
    tg_ctr_new: handles<"tg_ctr_new">(tg_ctr_new),
    tg_ctr_update: handles<"tg_ctr_update">(tg_ctr_update),
    tg_ctr_position: handles<"tg_ctr_position">(tg_ctr_position),
    tg_ctr_free: handles<"tg_ctr_free">(tg_ctr_free),
    tg_ige_new: handles<"tg_ige_new">(tg_ige_new),
    tg_ige_update: handles<"tg_ige_update">(tg_ige_update),
    tg_ige_free: handles<"tg_ige_free">(tg_ige_free),
    tg_cbc_new: handles<"tg_cbc_new">(tg_cbc_new),
    tg_cbc_update: handles<"tg_cbc_update">(tg_cbc_update),
    tg_cbc_free: handles<"tg_cbc_free">(tg_cbc_free),
  };
}

/** The message of a thrown value, for wrapping. */
function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
