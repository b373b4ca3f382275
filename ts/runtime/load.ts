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

const runtimeGlobals = globalThis as {
  Bun?: unknown;
  Deno?: unknown;
  process?: { versions?: { node?: string } };
};

/**
 * The library, found by `locate.ts` and opened with this runtime's FFI (or,
 * in Node.js, the addon).
 *
 * @throws {Error} outside Bun, Deno and Node.js, or when the library is
 *   missing or cannot be opened
 */
export function loadNative(): Native {
  // Bun and Deno first: both also set process.versions.node.
  if (runtimeGlobals.Bun !== undefined) return loadBun();
  if (runtimeGlobals.Deno !== undefined) return loadDeno();
  if (typeof runtimeGlobals.process?.versions?.node === "string") return loadNode();
  throw new Error(
    "tgcrypto-ffi requires Bun (bun:ffi), Deno (Deno.dlopen) or Node.js (its Node-API addon): " +
      "this runtime is none of them.",
  );
}
