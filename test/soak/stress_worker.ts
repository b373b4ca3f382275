/**
 * Worker of test/soak/stress.ts: runs the workload for its seed (switching
 * the process-wide backend as it goes) and compares every call's digest
 * with the one the main thread computed single-threaded.
 */
import { workerScope } from "../helpers/web_worker.ts";
import { workload } from "./workload.ts";

interface Job {
  seed: string;
  count: number;
  expected: Uint32Array;
}

const scope = workerScope();

scope.onmessage = (event: { data: Job }) => {
  const { seed, count, expected } = event.data;
  let mismatches = 0, errors = 0, firstError = "";
  let digests: Uint32Array | null = null;
  const start = performance.now();
  try {
    digests = workload(seed, count, true);
  } catch (e) {
    errors++;
    firstError = String(e);
  }
  if (digests) for (let i = 0; i < count; i++) if (digests[i] !== expected[i]) mismatches++;
  scope.postMessage({ seed, calls: digests ? count : 0, mismatches, errors, firstError, ms: performance.now() - start });
};
// Bun may drop messages sent before the worker's module graph has loaded, so the parent waits for this.
scope.postMessage("ready");
