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
import { loadFailure, type Native, nativeFromSymbols } from "./native.ts";
import { type ArgKind, type MapDefinitions, type ResultKind, type SymbolName, symbols } from "./symbols.ts";

const BUN_ARG_TYPES = {
  bytes: "ptr",
  u32: "u32",
  u64: "u64",
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
    throw loadFailure(path, origin, cause);
  }
  return nativeFromSymbols({ runtime: "bun", path, allocateOutput }, library.symbols, readCString);
}

