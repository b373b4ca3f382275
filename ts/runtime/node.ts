/**
 * Loads libtgcrypto into Node.js through its Node-API addon, `tgcrypto.node`
 * (bindings/node/addon.c: the C core compiled in, one JS function per C
 * function, every argument checked in C).
 *
 * Why an addon and not `node:ffi`: `node:ffi` exists only from Node 26.1, is
 * experimental (it warns), and its wrapper converts every typed array of a
 * call with four or more arguments through a slow pointer lookup: ~450-600
 * ns for a `tg_ige256_encrypt` against ~80 ns through Node-API on the same
 * machine (bench/ prints both). Node-API works unflagged on every supported
 * line (22, 24, 26).
 *
 * The addon's functions already have the C names, argument order and JS
 * types of the {@link Native} contract (C strings come back as strings,
 * contexts as type-tagged externals), so they are passed through untouched.
 * What this file adds is the output allocation, tuned for V8:
 *
 * - V8 keeps typed arrays of up to 64 bytes inside its heap, and copies one
 *   out to separately allocated memory the first time native code asks for
 *   its address (150-300 ns, more than the call). So an output of at most
 *   64 bytes is written into a long-lived off-heap scratch and copied out to
 *   a fresh array by {@link finishOutput}, which wipes the scratch at once
 *   (the copy is an ordinary small array with its own ArrayBuffer, as
 *   everywhere else). bench/node_binding.ts measures the choices for a
 *   32-byte digest: the scratch and copy beat a fresh on-heap array handed
 *   to native code, a fresh `new ArrayBuffer` and `Buffer.allocUnsafeSlow`.
 * - From 4 KiB on, outputs come from `Buffer.allocUnsafeSlow` (never
 *   pooled: an ArrayBuffer of exactly that size that nothing else holds,
 *   not zero-filled: every output is completely overwritten), viewed as a
 *   plain Uint8Array (a Buffer's `slice` would be a view, not a copy);
 *   between, `new Uint8Array` (measured: the same at 1 KiB, the skipped
 *   zero-fill ~10% faster at 16 KiB). `Buffer.allocUnsafe` is not used: its
 *   small buffers are slices of a shared pool, whose `.buffer` would reach
 *   other calls' outputs.
 *
 * Loading is synchronous (`createRequire` of the addon), so the package has
 * no top-level await and Node can `require()` it.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createRequire } from "node:module";
import process from "node:process";

import { type LibraryCandidate, locateNative } from "./locate.ts";
import { loadFailure, type Native } from "./native.ts";
import { type SymbolName, symbols } from "./symbols.ts";

/** V8_TYPED_ARRAY_MAX_SIZE_IN_HEAP: typed arrays up to this size live in the JS heap. */
export const ON_HEAP_MAX_BYTES = 64;

/** From this size on, outputs skip the zero-fill of `new Uint8Array`. */
const UNINITIALIZED_OUTPUT_MIN_BYTES = 4096;

// Captured at load: the outputs C writes are made by these, whatever a caller
// later assigns to globalThis.Uint8Array or Buffer.allocUnsafeSlow.
const IntrinsicUint8Array = Uint8Array;
const allocUnsafeSlow = Buffer.allocUnsafeSlow;

// An explicit ArrayBuffer is always off-heap; one view per length, made once.
const scratch = new Uint8Array(new ArrayBuffer(ON_HEAP_MAX_BYTES));
const scratchViews: Uint8Array<ArrayBuffer>[] = [];
for (let n = 0; n <= ON_HEAP_MAX_BYTES; n++) scratchViews.push(scratch.subarray(0, n));
/** The scratch as eight 8-byte words: wiping a 16-byte output is two stores (0.0 is all-zero bytes). */
const scratchWords = new Float64Array(scratch.buffer);

/** {@link Native.allocateOutput} for Node.js. */
function allocateOutput(length: number): Uint8Array<ArrayBuffer> {
  if (length <= ON_HEAP_MAX_BYTES) return scratchViews[length]!;
  if (length < UNINITIALIZED_OUTPUT_MIN_BYTES) return new IntrinsicUint8Array(length);
  return new IntrinsicUint8Array(allocUnsafeSlow(length).buffer as ArrayBuffer, 0, length);
}

/**
 * {@link Native.finishOutput} for Node.js: a scratch view is copied out, and
 * the scratch wiped. (`new Uint8Array(view)` and word stores: ~30 ns for 16
 * bytes on Node 26, against ~65 for `slice()` + `fill(0)`.)
 */
function finishOutput(out: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const length = out.length;
  if (length > ON_HEAP_MAX_BYTES || out !== scratchViews[length]) return out;
  const copy = new IntrinsicUint8Array(out);
  for (let i = 0, words = (length + 7) >> 3; i < words; i++) scratchWords[i] = 0;
  return copy;
}

/** Internal (tests): true when the output scratch holds only zeros (it is wiped after every small output). */
export function outputScratchIsClear(): boolean {
  return scratch.every((byte) => byte === 0);
}

/**
 * Node's refusal to load any addon (ERR_DLOPEN_DISABLED: "loading addons is
 * disabled") as an error naming the flag that allows it: `--permission`
 * without `--allow-addons`, or `--no-addons`. Undefined for other errors.
 */
function addonsDisabled(cause: unknown, readFlags: () => readonly string[]): Error | undefined {
  if ((cause as { code?: unknown })?.code !== "ERR_DLOPEN_DISABLED") return undefined;
  const why = readFlags().includes("--no-addons")
    ? "Node.js was started with --no-addons: start it without that flag"
    : "Node.js runs with --permission, which disables addons: start it with --allow-addons as well " +
      "(e.g. node --permission --allow-addons --allow-fs-read=... app.js)";
  return new Error(`${why} (${(cause as Error).message})`, { cause });
}

/** The addon's exports: the C functions of the contract. */
type Addon = Omit<Native, "runtime" | "path" | "allocateOutput" | "finishOutput">;

/** What the loader takes from Node.js and the file system (replaceable in tests). */
export interface NodeLoaderHost {
  /** Finds the addon (default: {@link locateNative}). */
  readonly locate: (artifact: "addon") => LibraryCandidate;
  /** Loads it (default: `require` from this module). */
  readonly require: (path: string) => unknown;
  /** The flags Node.js runs with: `process.execArgv` and `NODE_OPTIONS`, split at spaces. */
  readonly flags: () => readonly string[];
}

/** The flags Node.js runs with: its command-line options, then those in `NODE_OPTIONS` (split at white space). */
export function nodeFlags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  return [...execArgv, ...(nodeOptions ?? "").split(/\s+/)];
}

/** The real locator, `require` and flags. */
const nodeHost: NodeLoaderHost = {
  locate: (artifact) => locateNative(artifact),
  require: (path) => createRequire(import.meta.url)(path),
  flags: () => nodeFlags(process.execArgv, process.env.NODE_OPTIONS),
};

/**
 * Opens the addon found by {@link locateNative} and returns its functions.
 *
 * @param host the locator, `require` and Node's flags (default: the real ones)
 * @throws {Error} when the addon is missing, cannot be loaded (the loader's
 *   error is kept as `cause`) or lacks a function of the contract (an addon
 *   from another version).
 */
export function loadNative(host: NodeLoaderHost = nodeHost): Native {
  const { path, origin } = host.locate("addon");
  let addon: Record<string, unknown>;
  try {
    addon = host.require(path) as Record<string, unknown>;
  } catch (cause) {
    throw loadFailure(path, origin, addonsDisabled(cause, host.flags) ?? cause);
  }
  const missing = (Object.keys(symbols) as SymbolName[]).filter((name) => typeof addon[name] !== "function");
  if (missing.length !== 0) {
    throw loadFailure(path, origin, new Error(`not this version's addon: it lacks ${missing.join(", ")}`));
  }
  return { ...(addon as unknown as Addon), runtime: "node", path, allocateOutput, finishOutput };
}
