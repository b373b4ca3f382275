/**
 * Loads libtgcrypto with `Deno.dlopen` (needs `--allow-ffi`).
 *
 * Byte buffers are `"buffer"` parameters (any Uint8Array, byteOffset
 * honoured; Deno keeps typed-array storage off the V8 heap, so addresses are
 * stable during a call). Lengths are `"u32"`: 64-bit types would turn into
 * BigInt and leave the fast call path. Contexts are `"pointer"` objects.
 * `Deno.dlopen` is synchronous, and so is loading.
 *
 * @module
 */

import { type LibraryCandidate, locateNative, type NativeArtifact } from "./locate.ts";
import { loadFailure, type Native, nativeFromSymbols } from "./native.ts";
import { type ArgKind, type ResultKind, type SymbolFunctions, type SymbolName, symbols } from "./symbols.ts";

const DENO_PARAMETER_TYPES = {
  bytes: "buffer",
  u32: "u32",
  u64: "u64",
  i32: "i32",
  context: "pointer",
} as const satisfies Record<ArgKind, string>;

const DENO_RESULT_TYPES = {
  i32: "i32",
  u32: "u32",
  void: "void",
  context: "pointer",
  cstring: "pointer", // read with UnsafePointerView.getCString
} as const satisfies Record<ResultKind, string>;

/** Uint8Array as loaded: C writes into the outputs, so a later replacement of the global must not make them. */
const IntrinsicUint8Array = Uint8Array;

/** Deno's opaque pointer value (an object, or null for NULL). */
type PointerValue = object | null;

/** The part of the `Deno` global this module uses (kept local so tsc needs no Deno types). */
export interface DenoFfi {
  dlopen(
    path: string,
    symbols: Record<string, { parameters: readonly string[]; result: string }>,
  ): { symbols: SymbolFunctions<object, PointerValue>; close(): void };
  readonly UnsafePointerView: { getCString(pointer: object): string };
  readonly errors: { readonly PermissionDenied: ErrorConstructor; readonly NotCapable?: ErrorConstructor };
}

/** The neutral table in Deno's `{parameters, result}` form. */
export function denoDefinitions(): Record<string, { parameters: string[]; result: string }> {
  const definitions: Record<string, { parameters: string[]; result: string }> = {};
  for (const name of Object.keys(symbols) as SymbolName[]) {
    const { args, returns } = symbols[name];
    definitions[name] = {
      parameters: args.map((kind) => DENO_PARAMETER_TYPES[kind]),
      result: DENO_RESULT_TYPES[returns],
    };
  }
  return definitions;
}

/**
 * Opens the library found by {@link locateNative} and returns its functions.
 *
 * @throws {Error} when the library is missing or cannot be loaded (the
 *   loader's error is kept as `cause`); Deno permission errors are rethrown
 *   unchanged.
 * @param deno the `Deno` global (default: this runtime's)
 * @param locate finds the library (default: {@link locateNative})
 */
export function loadNative(
  deno: DenoFfi = (globalThis as unknown as { Deno: DenoFfi }).Deno,
  locate: (artifact: NativeArtifact) => LibraryCandidate = locateNative,
): Native {
  const { path, origin } = locate("library");
  let library;
  try {
    library = deno.dlopen(path, denoDefinitions());
  } catch (cause) {
    const { PermissionDenied, NotCapable } = deno.errors;
    if (cause instanceof PermissionDenied || (NotCapable !== undefined && cause instanceof NotCapable)) throw cause;
    throw loadFailure(path, origin, cause);
  }
  return nativeFromSymbols(
    { runtime: "deno", path, allocateOutput: (length) => new IntrinsicUint8Array(length), finishOutput: (out) => out },
    library.symbols,
    (pointer: PointerValue) => (pointer === null ? null : deno.UnsafePointerView.getCString(pointer)),
  );
}

