/**
 * Loads libtgcrypto with `bun:ffi`.
 *
 * Byte buffers are declared `ptr` and always passed as the Uint8Array itself:
 * Bun then reads the address at call time. Never pass a number from `ptr()`
 * computed earlier, because JSC may move a small typed array's storage
 * (oven-sh/bun#32054).
 *
 * Loading is synchronous, like the other bindings. `bun:ffi` and the
 * platform packages are reached through Bun's `require` (Bun has it in ES
 * modules), never through a static import: Node.js and Deno parse this file
 * too (load.ts imports every binding) and have no `bun:ffi`. The platform
 * packages are required by literal name so that `bun build --compile` sees
 * them and embeds the installed one's library (its "bun" export is a
 * `with { type: "file" }` import).
 *
 * @module
 */

import { type LibraryCandidate, locateNative, type NativeArtifact, type PlatformPackageFile } from "./locate.ts";
import { loadFailure, type Native, nativeFromSymbols } from "./native.ts";
import {
  type ArgKind,
  type MapDefinitions,
  type ResultKind,
  type SymbolFunctions,
  type SymbolName,
  symbols,
} from "./symbols.ts";

/** Bun's CommonJS `require`, present in its ES modules (declared here: Deno's type checker has none). */
declare const require: (id: string) => unknown;

/** The part of `bun:ffi` used here (typed locally, so that Deno and Node type-check this file). */
type Pointer = number;
export interface BunFfi {
  dlopen(path: string, definitions: BunDefinitions): { symbols: unknown };
  CString: new (pointer: Pointer) => { toString(): string };
}

/** The part of the `Bun` global used here. */
const bunGlobal = (globalThis as unknown as { Bun: { allocUnsafe(length: number): Uint8Array<ArrayBuffer> } }).Bun;

/** What the loader takes from Bun, the file system and the package manager (replaceable in tests). */
export interface BunLoaderHost {
  /** `bun:ffi` itself. */
  readonly ffi: () => BunFfi;
  /** Finds the library (default: {@link locateNative}). */
  readonly locate: (artifact: NativeArtifact, fromPackage: PlatformPackageFile) => LibraryCandidate;
  /** The module of an installed platform package (throws when it is not installed). */
  readonly requirePlatformPackage: (packageName: string) => unknown;
  /** `Bun.allocUnsafe`: an output buffer without zero-fill. */
  readonly allocUnsafe: (length: number) => Uint8Array<ArrayBuffer>;
}

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
export function bunDefinitions(): BunDefinitions {
  const definitions: Record<string, { args: string[]; returns: string }> = {};
  for (const name of Object.keys(symbols) as SymbolName[]) {
    const { args, returns } = symbols[name];
    definitions[name] = { args: args.map((kind) => BUN_ARG_TYPES[kind]), returns: BUN_RESULT_TYPES[returns] };
  }
  return definitions as unknown as BunDefinitions;
}

/** A returned `const char *` as a JS string (null for NULL). */
export function cStringReader(ffi: BunFfi): (pointer: Pointer | bigint | null) => string | null {
  return (pointer) => {
    if (pointer === null || pointer === 0 || typeof pointer === "bigint") return null;
    return new ffi.CString(pointer).toString();
  };
}

/**
 * From this size on, Bun.allocUnsafe (no zero-fill) beats `new Uint8Array`
 * (measured: 37 vs 48 ns at 512 B, 0.6 vs 3.5 us at 64 KiB); below it,
 * JSC's in-heap typed arrays are cheaper.
 */
export const UNINITIALIZED_OUTPUT_MIN_BYTES = 512;

// Captured at load: C writes `length` bytes into the output, so a caller who
// later replaces globalThis.Uint8Array or Bun.allocUnsafe must not choose it.
const IntrinsicUint8Array = Uint8Array;
const loadedAllocUnsafe = bunGlobal?.allocUnsafe;

/** Output allocator for {@link Native.allocateOutput}. */
export function outputAllocator(
  allocUnsafe: (length: number) => Uint8Array<ArrayBuffer>,
): (length: number) => Uint8Array<ArrayBuffer> {
  return (length) => (length < UNINITIALIZED_OUTPUT_MIN_BYTES ? new IntrinsicUint8Array(length) : allocUnsafe(length));
}

/**
 * The module of a platform package. One literal require per package so that
 * `bun build --compile` sees them all and embeds the installed one; the
 * others, never installed together, throw. Undefined for any other name.
 */
export function requirePlatformPackage(packageName: string): unknown {
  // Inside try: Bun's bundler treats a require it cannot resolve there as
  // optional (the other platforms' packages are never installed) instead of
  // failing the build. The caller sees the error of a missing package.
  try {
    switch (packageName) {
      case "tgcrypto-ffi-linux-x64-gnu": return require("tgcrypto-ffi-linux-x64-gnu");
      case "tgcrypto-ffi-linux-arm64-gnu": return require("tgcrypto-ffi-linux-arm64-gnu");
      case "tgcrypto-ffi-linux-x64-musl": return require("tgcrypto-ffi-linux-x64-musl");
      case "tgcrypto-ffi-linux-arm64-musl": return require("tgcrypto-ffi-linux-arm64-musl");
      case "tgcrypto-ffi-darwin-x64": return require("tgcrypto-ffi-darwin-x64");
      case "tgcrypto-ffi-darwin-arm64": return require("tgcrypto-ffi-darwin-arm64");
      case "tgcrypto-ffi-win32-x64": return require("tgcrypto-ffi-win32-x64");
      case "tgcrypto-ffi-win32-arm64": return require("tgcrypto-ffi-win32-arm64");
    }
  } catch (error) {
    throw error;
  }
  return undefined;
}

/**
 * The platform package's library (its default export), or undefined when
 * the package is not installed (npm skipped it, or optional dependencies
 * were omitted).
 */
export function libraryInPlatformPackage(
  packageName: string,
  requirePackage: (packageName: string) => unknown = requirePlatformPackage,
): string | undefined {
  let module: unknown;
  try {
    module = requirePackage(packageName);
  } catch {
    // not installed
  }
  return (module as { default?: string } | undefined)?.default;
}

/** The real Bun, locator and platform packages. */
const bunHost: BunLoaderHost = {
  ffi: () => require("bun:ffi") as BunFfi,
  locate: locateNative,
  requirePlatformPackage,
  allocUnsafe: (length) => loadedAllocUnsafe!.call(bunGlobal, length),
};

/**
 * Opens the library found by {@link locateLibrary} and returns its functions.
 *
 * @throws {Error} when the library is missing or cannot be loaded (the
 *   loader's error is kept as `cause`).
 * @param host Bun, the locator and the platform packages (default: the real ones)
 */
export function loadNative(host: BunLoaderHost = bunHost): Native {
  const ffi = host.ffi();
  const { path, origin } = host.locate("library", (name) => libraryInPlatformPackage(name, host.requirePlatformPackage));
  let library;
  try {
    library = ffi.dlopen(path, bunDefinitions());
  } catch (cause) {
    throw loadFailure(path, origin, cause);
  }
  return nativeFromSymbols(
    { runtime: "bun", path, allocateOutput: outputAllocator(host.allocUnsafe), finishOutput: (out) => out },
    library.symbols as SymbolFunctions<Pointer, Pointer | bigint | null>,
    cStringReader(ffi),
  );
}

