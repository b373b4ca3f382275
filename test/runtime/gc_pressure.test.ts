/**
 * ts/gc_pressure.ts: the count of native objects (contexts, AuthKeys) that
 * are neither disposed nor finalized, and the collection request when that
 * backlog doubles. (test/soak/soak.ts shows the memory effect; this checks
 * the bookkeeping.)
 */
import { describe, expect, test } from "vitest";
import { AuthKey, CbcContext, CtrContext, IgeContext } from "../../ts/mod.ts";
import { BASE_THRESHOLD, nativeBacklog } from "../../ts/runtime/gc_pressure.ts";

const key = new Uint8Array(32).fill(7);
const iv = new Uint8Array(32).fill(9);
const authKey = new Uint8Array(256).fill(3);

function makeAll(): { dispose(): void }[] {
  return [
    new CtrContext(key, iv.subarray(0, 16), 3),
    new IgeContext(key, iv),
    new CbcContext(key, iv.subarray(0, 16), { decrypt: true }),
    new AuthKey(authKey),
  ];
}

describe("gc_pressure backlog", () => {
  test("every kind counts once when created and once when disposed (dispose is idempotent)", () => {
    const before = nativeBacklog().outstanding;
    const objects = Array.from({ length: 50 }, makeAll).flat();
    expect(nativeBacklog().outstanding).toBe(before + 200);
    for (const o of objects) o.dispose();
    for (const o of objects) o.dispose();
    expect(nativeBacklog().outstanding).toBe(before);
  });

  test("a backlog past the threshold requests a collection and doubles the threshold; it is kept while a quarter of it is live, then twice the backlog (at least the base)", () => {
    const start = nativeBacklog();
    const kept: CtrContext[] = [];
    const n = Math.max(0, start.threshold - start.outstanding) + 1;
    for (let i = 0; i < n; i++) kept.push(new CtrContext(key, iv.subarray(0, 16)));
    const first = nativeBacklog();
    expect(first.outstanding).toBe(start.outstanding + n);
    expect(first.hints).toBe(start.hints + 1);
    expect(first.threshold).toBe(2 * first.outstanding);
    const v8 = (globalThis as { Bun?: unknown }).Bun === undefined;
    // V8 (Deno, Node.js): the hint is one 96 MiB ArrayBuffer, allocated and dropped; Bun calls Bun.gc instead.
    expect(first.hintedBytes - start.hintedBytes).toBe(v8 ? 96 * 1024 * 1024 : 0);
    // Twice more past the threshold, so that it falls back to more than the base on the way down.
    for (let round = 0; round < 2; round++) {
      const hints = nativeBacklog().hints;
      while (nativeBacklog().hints === hints) kept.push(new CtrContext(key, iv.subarray(0, 16)));
    }
    const peak = nativeBacklog();
    expect(peak.hints).toBe(first.hints + 2);
    expect(peak.threshold).toBe(2 * peak.outstanding);
    // One more object under the new threshold: no second hint.
    kept.push(new CtrContext(key, iv.subarray(0, 16)));
    expect(nativeBacklog().hints).toBe(peak.hints);
    let expected = peak.threshold;
    const falls: number[] = [];
    while (kept.length > 0) {
      kept.pop()!.dispose();
      const { outstanding, threshold } = nativeBacklog();
      if (expected > BASE_THRESHOLD && outstanding * 4 < expected) falls.push(expected = Math.max(BASE_THRESHOLD, outstanding * 2));
      expect(threshold, `at ${outstanding} live`).toBe(expected);
    }
    expect(expected, "it came down").toBeLessThan(peak.threshold);
    expect(falls.some((t) => t > BASE_THRESHOLD), "it fell back to twice a backlog above the base once").toBe(true);
    expect(nativeBacklog().hints).toBe(peak.hints);
    expect(nativeBacklog().outstanding).toBe(start.outstanding);
    expect(nativeBacklog().threshold).toBe(Math.max(BASE_THRESHOLD, 2 * start.outstanding));
  });
});

