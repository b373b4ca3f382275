/**
 * Loads libtgcrypto with `Deno.dlopen` (needs `--allow-ffi`).
 *
 * Byte buffers are `"buffer"` parameters (any Uint8Array, byteOffset
 * honoured; Deno keeps typed-array storage off the V8 heap, so addresses are
 * stable during a call). Lengths are `"u32"`: 64-bit types would turn into
 * BigInt and leave the fast call path. Contexts are `"pointer"` objects.
 *
 * @module
 */

import { locateLibrary } from "./locate.ts";
import type { Native } from "./native.ts";
import { type ArgKind, type MapDefinitions, type ResultKind, type SymbolName, symbols } from "./symbols.ts";

const DENO_PARAMETER_TYPES = {
  bytes: "buffer",
  u32: "u32",
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

type NeutralDefinitions = MapDefinitions<typeof DENO_PARAMETER_TYPES, typeof DENO_RESULT_TYPES>;

/** Deno's opaque pointer value (an object, or null for NULL). */
type PointerValue = object | null;

/** JS value types of the Deno FFI type names used here. */
interface DenoValueTypes {
  buffer: Uint8Array;
  u32: number;
  i32: number;
  pointer: PointerValue;
  void: void;
}

type DenoArgs<Types extends readonly (keyof DenoValueTypes)[]> = {
  -readonly [I in keyof Types]: DenoValueTypes[Types[I]];
};

/** The symbols of {@link NeutralDefinitions} as Deno calls them. */
type DenoSymbols = {
  [Name in SymbolName]: (
    ...args: NeutralDefinitions[Name]["args"] extends infer Types extends readonly (keyof DenoValueTypes)[]
      ? DenoArgs<Types>
      : never
  ) => DenoValueTypes[NeutralDefinitions[Name]["returns"]];
};

/** The part of the `Deno` global this module uses (kept local so tsc needs no Deno types). */
interface DenoFfi {
  dlopen(
    path: string,
    symbols: Record<string, { parameters: readonly string[]; result: string }>,
  ): { symbols: DenoSymbols; close(): void };
  readonly UnsafePointerView: { getCString(pointer: object): string };
  readonly errors: { readonly PermissionDenied: ErrorConstructor; readonly NotCapable?: ErrorConstructor };
}

/** The neutral table in Deno's `{parameters, result}` form. */
function denoDefinitions(): Record<string, { parameters: string[]; result: string }> {
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
 * Opens the library found by {@link locateLibrary} and returns its functions.
 *
 * @throws {Error} when the library is missing or cannot be loaded (the
 *   loader's error is kept as `cause`); Deno permission errors are rethrown
 *   unchanged.
 */
export async function loadNative(): Promise<Native> {
  const deno = (globalThis as unknown as { Deno: DenoFfi }).Deno;
  const { path, origin } = await locateLibrary();
  let library;
  try {
    library = deno.dlopen(path, denoDefinitions());
  } catch (cause) {
    const { PermissionDenied, NotCapable } = deno.errors;
    if (cause instanceof PermissionDenied || (NotCapable !== undefined && cause instanceof NotCapable)) throw cause;
    throw new Error(`tgcrypto-ffi: cannot load ${path} (${origin}): ${describe(cause)}`, { cause });
  }
  // Destructured so every call site holds the symbol itself (fast-call friendly).
  const {
    tg_strerror, tg_version, tg_init, tg_backend, tg_backend_count, tg_backend_name,
    tg_backend_available, tg_set_backend, tg_ige256_encrypt, tg_ige256_decrypt, tg_ctr256,
    tg_cbc256_encrypt, tg_cbc256_decrypt, tg_ctr_new, tg_ctr_update, tg_ctr_position,
    tg_ctr_free, tg_ige_new, tg_ige_update, tg_ige_free, tg_cbc_new, tg_cbc_update, tg_cbc_free,
  } = library.symbols;

  const readCString = (pointer: PointerValue): string | null =>
    pointer === null ? null : deno.UnsafePointerView.getCString(pointer);
  const encoder = new TextEncoder();
  // Contexts travel as Deno's pointer objects (null for NULL); ContextHandle
  // only brands them, so these casts change no values.
  const handles = <Name extends keyof Native>(fn: unknown) => fn as Native[Name];

  return {
    runtime: "deno",
    path,
    allocateOutput: (length) => new Uint8Array(length),
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
