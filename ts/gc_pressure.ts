/**
 * Keeps the garbage collector in step with native objects that are dropped
 * without `dispose()`.
 *
 * Contexts and AuthKeys own native memory (the key schedule, the key) that
 * the JS engine cannot see: each wrapper is a small object, and the
 * engines run a FinalizationRegistry only after a full collection, which a
 * heap of small objects triggers late. Measured (test/soak/soak.ts, a
 * thousand dropped per event-loop turn, 1,000,000 in all): Deno 2.9's
 * resident set went from 111 MiB after the first 10% to 220 MiB (peak 233);
 * Bun 1.4's wandered between 66 and 111 MiB for contexts and grew from 75
 * to 116 MiB for AuthKeys.
 *
 * So the library counts its native objects that are neither disposed nor
 * finalized, and when that backlog doubles past what it was after the last
 * collection (at least {@link BASE_THRESHOLD}) it asks for a collection:
 *   - Bun: `Bun.gc(false)`, its public call for a collection that does not
 *     block;
 *   - Deno (V8), where script has no such call: it allocates one large
 *     ArrayBuffer and drops it. V8 counts ArrayBuffer memory as external
 *     memory and answers a jump past its external limit with a full
 *     collection, which runs the finalizers. The buffer's pages are never
 *     touched (a large zeroed allocation maps zero pages), so it costs
 *     address space for a moment, not resident memory.
 * After the change the same runs stay within 10%: Deno 88 -> 96 MiB,
 * Bun 53 -> 52 MiB (contexts) and 47 -> 47 MiB (AuthKeys).
 * Because the threshold doubles with the backlog, a program that keeps many
 * objects alive on purpose gets one request per doubling, not one per
 * object; a program that disposes its objects never gets one.
 *
 * @module
 */

/** Backlog (native objects not yet disposed or finalized) before the first hint. */
export const BASE_THRESHOLD = 4096;

/** Size of the V8 hint: over its 64 MiB external-memory soft limit. */
const HINT_BYTES = 96 * 1024 * 1024;

// Bun has a public call for it; in V8 (Deno) script can only allocate.
const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
const enabled = bun !== undefined || (globalThis as { Deno?: unknown }).Deno !== undefined;

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
  if (bun !== undefined) {
    bun.gc(false); // asks JavaScriptCore for a collection without blocking on it
    return;
  }
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
