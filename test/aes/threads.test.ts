/**
 * Thread safety: several Workers, each loading the library, encrypt at the
 * same time; every result is checked against the node:crypto reference.
 * (Web Workers in Bun and Deno, node:worker_threads in Node.js.)
 */
import { describe, expect, test } from "vitest";
import { equalBytes } from "../helpers/bytes.ts";
import { refCbc, refCtr, refIge } from "../helpers/reference.ts";
import type { ThreadCase } from "../helpers/thread_worker.ts";
import { startWorker } from "../helpers/web_worker.ts";

function expected(c: ThreadCase): Uint8Array {
  switch (c.op) {
    case "ige-enc": return refIge(c.data, c.key, c.iv, false);
    case "ige-dec": return refIge(c.data, c.key, c.iv, true);
    case "cbc-enc": return refCbc(c.data, c.key, c.iv, false).out;
    case "cbc-dec": return refCbc(c.data, c.key, c.iv, true).out;
    default: return refCtr(c.data, c.key, c.iv, c.state).out;
  }
}

function runWorker(seed: string, count: number): Promise<ThreadCase[]> {
  const worker = startWorker(new URL("../helpers/thread_worker.ts", import.meta.url));
  return new Promise<ThreadCase[]>((resolve, reject) => {
    worker.onmessage = (event: { data: ThreadCase[] | "ready" }) => {
      if (event.data === "ready") worker.postMessage({ seed, count });
      else resolve(event.data);
    };
    worker.onerror = (event) => reject(new Error(`worker failed: ${event.message}`));
  }).finally(() => worker.terminate());
}

describe("threads", () => {
  test("4 Workers encrypting at once all match the reference", async () => {
    const results = await Promise.all(["w0", "w1", "w2", "w3"].map((seed) => runWorker(`threads-${seed}`, 240)));
    let checked = 0;
    for (const cases of results) {
      expect(cases.length).toBe(240);
      for (const c of cases) {
        if (!equalBytes(c.out, expected(c))) throw new Error(`${c.op} of ${c.data.length} bytes differs from the reference`);
        checked++;
      }
    }
    expect(checked).toBe(960);
  }, 120_000);
});
