/**
 * Loads libtgcrypto through the runtime we are in: `bun:ffi` in Bun,
 * `Deno.dlopen` in Deno, the Node-API addon in Node.js. Synchronous in every
 * runtime: no module of the package uses top-level await, so Node.js can
 * `require()` the package (require(esm)) and `import` it, and both get the
 * same module instances (one TgCryptoError class, one padding pool).
 * Every binding parses in every runtime (none imports `bun:ffi` statically);
 * only the one for this runtime runs.
 *
 * @module
 */

import { loadNative as loadBun } from "./bun.ts";
import { loadNative as loadDeno } from "./deno.ts";
import type { Native } from "./native.ts";
import { loadNative as loadNode } from "./node.ts";

/** The globals that tell the runtimes apart. */
export interface RuntimeGlobals {
  readonly Bun?: unknown;
  readonly Deno?: unknown;
  readonly process?: { readonly versions?: { readonly node?: string } };
}

/** One loader per runtime. */
export interface RuntimeLoaders {
  readonly bun: () => Native;
  readonly deno: () => Native;
  readonly node: () => Native;
}

const runtimeLoaders: RuntimeLoaders = { bun: loadBun, deno: loadDeno, node: loadNode };

/**
 * The library, found by `locate.ts` and opened with this runtime's FFI (or,
 * in Node.js, the addon).
 *
 * @param globals where the runtime is detected (default: `globalThis`)
 * @param loaders the per-runtime loaders (default: the real bindings)
 * @throws {Error} outside Bun, Deno and Node.js, or when the library is
 *   missing or cannot be opened
 */
export function loadNative(
  globals: RuntimeGlobals = globalThis as RuntimeGlobals,
  loaders: RuntimeLoaders = runtimeLoaders,
): Native {
  // Bun and Deno first: both also set process.versions.node.
  if (globals.Bun !== undefined) return loaders.bun();
  if (globals.Deno !== undefined) return loaders.deno();
  if (typeof globals.process?.versions?.node === "string") return loaders.node();
  throw new Error(
    "tgcrypto-ffi requires Bun (bun:ffi), Deno (Deno.dlopen) or Node.js (its Node-API addon): " +
      "this runtime is none of them.",
  );
}
