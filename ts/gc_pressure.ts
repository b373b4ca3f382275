/**
 * Keeps the garbage collector in step with native objects that are dropped
 * without `dispose()`.
 *
 * Contexts and AuthKeys own native memory (the key schedule, the key) that
 * the JS engine cannot see: each wrapper is a small object, and V8 runs the
 * FinalizationRegistry only after a full (mark-compact) collection, which a
 * heap of small objects triggers late. Measured in Deno 2.9: contexts
 * dropped a thousand per event-loop turn pushed the resident set from 74 to
 * 215 MiB over 300,000 contexts, with up to ~50,000 of them waiting for
 * collection at once. Bun (JavaScriptCore) stays flat.
 *
 * So the library counts its native objects that are neither disposed nor
 * finalized. When that backlog doubles past what it was after the last
 * hint (at least {@link BASE_THRESHOLD}), it tells V8 about memory pressure
 * the only way script can: it allocates one large ArrayBuffer and drops it.
 * V8 counts ArrayBuffer memory as external memory and answers a jump past
 * its external limit with a full collection, which runs the finalizers.
 * The buffer's pages are never touched (calloc of a large block maps zero
 * pages), so it costs address space for a moment, not resident memory.
 * Because the threshold doubles with the backlog, a program that keeps many
 * objects alive on purpose gets one hint per doubling, not one per object;
 * a program that disposes its objects never gets one.
 *
 * @module
 */

/** Backlog (native objects not yet disposed or finalized) before the first hint. */
export const BASE_THRESHOLD = 8192;

/** Size of the hint: over V8's 64 MiB external-memory soft limit. */
const HINT_BYTES = 96 * 1024 * 1024;

// Only V8 (Deno) needs it; JavaScriptCore (Bun) collects these in time.
const enabled = (globalThis as { Bun?: unknown }).Bun === undefined &&
  (globalThis as { Deno?: unknown }).Deno !== undefined;

let outstanding = 0;
let threshold = BASE_THRESHOLD;
let hints = 0;
let hintedBytes = 0;

/** Call after a native object was created and registered for finalization. */
export function nativeCreated(): void {
  if (++outstanding <= threshold) return;
  threshold = outstanding * 2;
  if (!enabled) return;
  hints++;
  try {
    hintedBytes += new ArrayBuffer(HINT_BYTES).byteLength; // read, so no compiler can drop the allocation
  } catch {
    // no address space for it: the collector will get there on its own
  }
}

/** Call once per native object when it is disposed or finalized. */
export function nativeReleased(): void {
  outstanding--;
  // The backlog was collected: hint again at twice the new level.
  if (threshold > BASE_THRESHOLD && outstanding * 4 < threshold) {
    threshold = Math.max(BASE_THRESHOLD, outstanding * 2);
  }
}

/** Internal (tests, soak): the current backlog and how many hints were given. */
export function nativeBacklog(): { outstanding: number; threshold: number; hints: number; hintedBytes: number } {
  return { outstanding, threshold, hints, hintedBytes };
}
