/**
 * Keeps the garbage collector in step with native objects that are dropped
 * without `dispose()`.
 *
 * Contexts and AuthKeys own native memory (the key schedule, the key) that
 * the JS engine cannot see: each wrapper is a small object, and the
 * engines run a FinalizationRegistry only after a full collection, which a
 * heap of small objects triggers late. Measured (test/soak/soak.ts, a
 * thousand dropped per event-loop turn, 1,000,000 in all, RSS after the
 * first 10% -> at the end): Deno 2.9 94 -> 222 MiB for contexts and 82 ->
 * 164 MiB for AuthKeys; Bun 1.4 wandered (contexts 71 -> 83 MiB with a
 * peak of 111 in one run, AuthKeys 75 -> 116 MiB in one run, 55 -> 53 with
 * a peak of 82 in another).
 *
 * So the library counts its native objects that are neither disposed nor
 * finalized, and when that backlog doubles past what it was after the last
 * collection (at least {@link BASE_THRESHOLD}) it asks for a collection:
 *   - Bun: `Bun.gc(false)`, its public call for a collection that does not
 *     block;
 *   - Deno and Node.js (V8), where script has no such call: it allocates one large
 *     ArrayBuffer and drops it. V8 counts ArrayBuffer memory as external
 *     memory and answers a jump past its external limit with a full
 *     collection, which runs the finalizers. The buffer's pages are never
 *     touched (a large zeroed allocation maps zero pages), so it costs
 *     address space for a moment, not resident memory.
 * With the requests the same runs stay within 5%: Deno 80 -> 83 MiB
 * (contexts) and 71 -> 74 MiB (AuthKeys), Bun 43 -> 43 and 38 -> 39 MiB
 * (test/soak/results/).
 * The threshold is twice the backlog at the last request and falls back
 * as objects are released, so a program that keeps many objects alive on
 * purpose gets a request only when the backlog has grown to two to four
 * times what it keeps (a growing live set: one per doubling), and a
 * program that disposes what it creates never gets one. Each isolate
 * (Worker) counts its own objects, as each has its own collector.
 *
 * @module
 */

/** Backlog (native objects not yet disposed or finalized) before the first request. */
export const BASE_THRESHOLD = 4096;

/** Size of the V8 hint: over its 64 MiB external-memory soft limit. */
const HINT_BYTES = 96 * 1024 * 1024;

// Bun has a public call for it; in V8 (Deno, Node.js) script can only allocate.
const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
const enabled = bun !== undefined || (globalThis as { Deno?: unknown }).Deno !== undefined ||
  typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === "string";

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
