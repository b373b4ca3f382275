/**
 * Loads libtgcrypto through the FFI of the runtime we are in: `bun:ffi` in
 * Bun, `Deno.dlopen` in Deno. Each binding is imported only in its own
 * runtime (`bun:ffi` does not even parse elsewhere).
 *
 * @module
 */

import type { Native } from "./native.ts";

const runtimeGlobals = globalThis as { Bun?: unknown; Deno?: unknown };

/**
 * The library, found by `locate.ts` and opened with this runtime's FFI.
 *
 * @throws {Error} outside Bun and Deno, or when the library is missing or
 *   cannot be opened
 */
export async function loadNative(): Promise<Native> {
  // Bun first: it is never mistaken for Deno.
  if (runtimeGlobals.Bun !== undefined) return (await import("./bun.ts")).loadNative();
  if (runtimeGlobals.Deno !== undefined) return (await import("./deno.ts")).loadNative();
  throw new Error(
    "tgcrypto-ffi requires Bun (bun:ffi) or Deno (Deno.dlopen): this runtime has no built-in FFI. " +
      "Node.js is not supported.",
  );
}
