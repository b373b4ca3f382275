/**
 * Thread scaling, like TgCrypto's bench_threads: N Workers, each loading the
 * library and encrypting 1 MiB with AES-256-IGE for a fixed time, started
 * together. Reports aggregate MB/s for 1 and 2 Workers and their ratio
 * (target: 2 Workers ≥ 1.8x one Worker on 2 cores). The C calls hold no
 * lock and the runtimes run FFI calls on the calling thread, so the ratio
 * shows whether anything (allocation, the runtime) serialises them.
 *
 *   bun bench/threads.ts
 *   deno run -A bench/threads.ts
 *
 * BENCH_QUICK=1: shorter runs. Writes <runtime>-threads.json to the results folder (bench/lib/results.ts).
 */

import { mkdirSync, writeFileSync } from "node:fs";

import { backend, version } from "../ts/mod.ts";
import { cpuModel, isQuick, logicalCpus, runtimeInfo } from "./lib/env.ts";
import { resultsDirectory } from "./lib/results.ts";
import { startWorker, type WebWorker } from "../test/helpers/web_worker.ts";
import type { RunMessage, Variant, WorkerReply } from "./threads_worker.ts";

const quick = isQuick();
const durationMs = quick ? 300 : 1000;
const repeats = quick ? 1 : 3;
const workerCounts = [1, 2];
const variants: Variant[] = ["ige256Encrypt", "ige256EncryptInto"];
const runtime = runtimeInfo();
const started = performance.now();

/** Resolves with the next message from `worker`. */
function nextMessage(worker: WebWorker): Promise<WorkerReply> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event: { data: WorkerReply }) => resolve(event.data);
    worker.onerror = (event: { message: string; preventDefault?: () => void }) => {
      event.preventDefault?.();
      reject(new Error(`worker failed: ${event.message}`));
    };
  });
}

async function startWorkers(count: number): Promise<WebWorker[]> {
  const workers = Array.from({ length: count }, () => startWorker(new URL("./threads_worker.ts", import.meta.url)));
  const replies = await Promise.all(workers.map(nextMessage));
  for (const reply of replies) {
    if (reply.type !== "ready") throw new Error("worker did not start");
    if (reply.backend !== backend()) throw new Error(`worker uses backend ${reply.backend}, main thread ${backend()}`);
  }
  return workers;
}

/** One timed run on all `workers` at once; aggregate MB/s (sum of each Worker's rate). */
async function runOnce(workers: WebWorker[], variant: Variant): Promise<number> {
  const message: RunMessage = { type: "run", variant, durationMs };
  const pending = workers.map(nextMessage);
  for (const worker of workers) worker.postMessage(message);
  let total = 0;
  for (const reply of await Promise.all(pending)) {
    if (reply.type !== "done") throw new Error("unexpected worker reply");
    total += reply.bytes / (reply.ms * 1e3);
  }
  return total;
}

const pools = new Map<number, WebWorker[]>();
for (const count of workerCounts) pools.set(count, await startWorkers(count));

// best[variant][count]: the fastest of `repeats` runs, the counts alternating.
const runs: { variant: Variant; workers: number; mbPerSec: number }[] = [];
for (const variant of variants) {
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (const count of workerCounts) {
      runs.push({ variant, workers: count, mbPerSec: await runOnce(pools.get(count)!, variant) });
    }
  }
}
for (const workers of pools.values()) for (const worker of workers) worker.terminate();

const best = (variant: Variant, count: number) =>
  Math.max(...runs.filter((r) => r.variant === variant && r.workers === count).map((r) => r.mbPerSec));

console.log(`tgcrypto-ffi ${version()} thread scaling — ${runtime.name} ${runtime.version}, backend ${backend()}`);
console.log(`CPU: ${cpuModel()}, ${logicalCpus()} logical CPUs; 1 MiB IGE encrypt per call, ${durationMs} ms per run, best of ${repeats}`);
console.log(`${"call".padEnd(40)}${"1 Worker".padStart(12)}${"2 Workers".padStart(12)}${"ratio".padStart(8)}`);
const summary = variants.map((variant) => {
  const one = best(variant, 1);
  const two = best(variant, 2);
  console.log(`${variant.padEnd(40)}${`${one.toFixed(0)} MB/s`.padStart(12)}${`${two.toFixed(0)} MB/s`.padStart(12)}${`${(two / one).toFixed(2)}x`.padStart(8)}`);
  return { variant, oneWorker: one, twoWorkers: two, ratio: two / one };
});
const primary = summary[0]!;
const status = primary.ratio >= 1.8 ? "PASS" : "MISS";
console.log(`${status} ${primary.ratio.toFixed(2)}x  (5) 2 Workers ≥ 1.8x 1 Worker, ${primary.variant} 1 MiB (informational)`);

const resultsDir = resultsDirectory();
mkdirSync(resultsDir, { recursive: true });
const outFile = new URL(`${runtime.name}-threads.json`, resultsDir);
writeFileSync(
  outFile,
  `${JSON.stringify(
    {
      kind: "threads",
      runtime,
      cpu: { model: cpuModel(), logicalCpus: logicalCpus() },
      library: { version: version(), backend: backend() },
      date: new Date().toISOString(),
      config: { quick, durationMs, repeats, messageBytes: 1024 * 1024 },
      summary,
      target: { description: "2 Workers ≥ 1.8x 1 Worker (ige256Encrypt 1 MiB)", required: 1.8, measured: primary.ratio, status },
      runs,
      durationSeconds: (performance.now() - started) / 1e3,
    },
    null,
    1,
  )}\n`,
);
console.log(`wrote ${outFile.pathname} (${((performance.now() - started) / 1e3).toFixed(1)} s)`);
