/**
 * Every native object (CtrContext, IgeContext, CbcContext, AuthKey) is freed
 * exactly once: by dispose(), which also cancels its finalizer, or by the
 * FinalizationRegistry when it is collected undisposed. The library's free
 * functions are observed by binding the API to a Native whose tg_*_free
 * count their calls. Collections are forced: Bun.gc(true), or V8's gc()
 * (Deno, Node), exposed at run time with node:v8's setFlagsFromString.
 */
import v8 from "node:v8";
import vm from "node:vm";

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AuthKey, CbcContext, CtrContext, IgeContext } from "../../ts/mod.ts";
import { bind } from "../../ts/runtime/bound.ts";
import { nativeBacklog } from "../../ts/runtime/gc_pressure.ts";
import { loadNative } from "../../ts/runtime/load.ts";
import type { ContextHandle, Native } from "../../ts/runtime/native.ts";

type Kind = "ctr" | "ige" | "cbc" | "authKey";
const FREE: Record<Kind, "tg_ctr_free" | "tg_ige_free" | "tg_cbc_free" | "tg_auth_key_free"> = {
  ctr: "tg_ctr_free",
  ige: "tg_ige_free",
  cbc: "tg_cbc_free",
  authKey: "tg_auth_key_free",
};
const KINDS = Object.keys(FREE) as Kind[];

const frees: Record<Kind, number> = { ctr: 0, ige: 0, cbc: 0, authKey: 0 };
let native: Native;

beforeAll(async () => {
  native = await loadNative(); // the same library, opened again: its handles are the process's
  const counting = { ...native } as Record<string, unknown>;
  for (const kind of KINDS) {
    const free = native[FREE[kind]];
    counting[FREE[kind]] = (handle: ContextHandle) => {
      frees[kind]++;
      free(handle);
    };
  }
  bind(counting as unknown as Native);
});
afterAll(() => bind(native));

const key = new Uint8Array(32).fill(5);
const iv = new Uint8Array(32).fill(6);
const authKeyBytes = new Uint8Array(256).fill(7);
const make: Record<Kind, () => { dispose(): void }> = {
  ctr: () => new CtrContext(key, iv.subarray(0, 16)),
  ige: () => new IgeContext(key, iv),
  cbc: () => new CbcContext(key, iv.subarray(0, 16)),
  authKey: () => new AuthKey(authKeyBytes),
};

const bun = (globalThis as unknown as { Bun?: { gc(sync: boolean): void } }).Bun;
/** A full collection: Bun's, or V8's gc() (a V8 flag set at run time, then read from a fresh context). */
const collect: () => void = bun !== undefined ? () => bun.gc(true) : (() => {
  v8.setFlagsFromString("--expose-gc");
  return vm.runInNewContext("gc") as () => void;
})();

/** Collects until `done()` (finalizers run as tasks after a collection) or 10 s pass. */
async function collectUntil(done: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  do {
    collect();
    await new Promise((resolve) => setTimeout(resolve, 5));
  } while (!done() && Date.now() < end);
}

/**
 * Objects of every kind that earlier tests dropped may still be finalized during a test (Bun's collector is
 * conservative, and finalizers run when they run): give them a moment first, then count what they free.
 */
async function settle(): Promise<void> {
  const end = Date.now() + 2_000;
  while (nativeBacklog().outstanding > 0 && Date.now() < end) await collectUntil(() => true);
}
/** Frees of the other kinds since `start`: late finalizers of objects earlier tests dropped. */
function otherFrees(kind: Kind, start: Record<Kind, number>): number {
  return KINDS.filter((k) => k !== kind).reduce((sum, k) => sum + frees[k] - start[k], 0);
}

/** Creates and drops `n` objects of `kind` in a frame of its own (nothing on the caller's stack keeps them). */
function drop(kind: Kind, n: number): void {
  for (let i = 0; i < n; i++) make[kind]();
}

describe("each native object is freed exactly once", () => {
  for (const kind of KINDS) {
    test(`${kind}: dispose() frees once and cancels the finalizer (no second free once they are collected)`, async () => {
      await settle();
      const start = { ...frees };
      const backlog = nativeBacklog().outstanding;
      let collected = 0;
      const watch = new FinalizationRegistry(() => collected++);
      (() => {
        const objects = Array.from({ length: 200 }, make[kind]);
        for (const o of objects) o.dispose();
        for (const o of objects) o.dispose(); // idempotent
        for (const o of objects) watch.register(o, undefined);
      })();
      expect(frees[kind] - start[kind], "one free per dispose()").toBe(200);
      expect(nativeBacklog().outstanding).toBe(backlog - otherFrees(kind, start));
      // Once the test's own registry saw them collected, a finalizer still registered would have run too.
      await collectUntil(() => collected === 200);
      expect(collected, "the disposed objects were collected").toBeGreaterThanOrEqual(180);
      for (let i = 0; i < 5; i++) await collectUntil(() => true);
      expect(frees[kind] - start[kind], "still one free each: no finalizer ran for a disposed object").toBe(200);
      // The count of live objects went down only by the other kinds' late finalizers (each one a real free).
      expect(nativeBacklog().outstanding, "nothing released twice").toBe(backlog - otherFrees(kind, start));
      expect(otherFrees(kind, start), "other kinds freed: only earlier tests' leftovers").toBeLessThanOrEqual(backlog);
    });

    test(`${kind}: an object dropped without dispose() is freed by its finalizer`, async () => {
      await settle();
      const start = { ...frees };
      const backlog = nativeBacklog().outstanding;
      drop(kind, 300);
      expect(nativeBacklog().outstanding).toBe(backlog + 300 - otherFrees(kind, start));
      await collectUntil(() => nativeBacklog().outstanding - backlog + otherFrees(kind, start) <= 30);
      const finalized = backlog + 300 - nativeBacklog().outstanding - otherFrees(kind, start);
      expect(finalized, "most of them were collected").toBeGreaterThanOrEqual(270);
      expect(frees[kind] - start[kind], "one native free per finalized object").toBe(finalized);
      expect(otherFrees(kind, start), "other kinds freed: only earlier tests' leftovers").toBeLessThanOrEqual(backlog);
    });
  }
});
