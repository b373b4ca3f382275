/**
 * Worker stress: W Workers (default 8) each run N mixed calls (default
 * 100,000; test/soak/workload.ts) at the same time, while switching the
 * process-wide backend; each checks every call against the digest the main
 * thread computed single-threaded for its seed. Must end with 0 mismatches
 * and 0 errors.
 *
 *   bun test/soak/stress.ts [--workers=W] [--calls=N]
 *   deno run -A test/soak/stress.ts [--workers=W] [--calls=N]
 *   node test/soak/stress.ts [--workers=W] [--calls=N]        (Node 22.18+: type stripping)
 *
 * Prints the figures and "N passed, N failed" (one test per Worker).
 */
import { backend } from "../../ts/mod.ts";
import { startWorker } from "../helpers/web_worker.ts";
import { workload } from "./workload.ts";

const g = globalThis as unknown as { Bun?: unknown; Deno?: { args: string[] }; process: { argv: string[] } };
const runtime = g.Bun !== undefined ? "bun" : g.Deno !== undefined ? "deno" : "node";
const argv: string[] = g.Deno !== undefined ? g.Deno.args : g.process.argv.slice(2);
let workers = 8, calls = 100_000;
for (const a of argv) {
  const [k, v] = a.replace(/^--/, "").split("=");
  if (k === "workers") workers = Number(v);
  else if (k === "calls") calls = Number(v);
  else throw new Error(`unknown argument ${a}`);
}

interface Report {
  seed: string;
  calls: number;
  mismatches: number;
  errors: number;
  firstError: string;
  ms: number;
}

function runWorker(seed: string, expected: Uint32Array): Promise<Report> {
  const worker = startWorker(new URL("./stress_worker.ts", import.meta.url));
  return new Promise<Report>((resolve, reject) => {
    worker.onmessage = (event: { data: Report | "ready" }) => {
      if (event.data === "ready") worker.postMessage({ seed, count: calls, expected });
      else resolve(event.data);
    };
    worker.onerror = (event) => reject(new Error(`worker failed: ${event.message}`));
  }).finally(() => worker.terminate());
}

const seeds = Array.from({ length: workers }, (_, w) => `stress-${w}`);
let t0 = performance.now();
const expected = seeds.map((seed) => workload(seed, calls, false)); // single-threaded, default backend
const singleSeconds = (performance.now() - t0) / 1000;
console.log(`${runtime}: expected digests of ${workers} x ${calls} calls computed single-threaded on ${backend()} in ${singleSeconds.toFixed(1)} s`);

t0 = performance.now();
const reports = await Promise.all(seeds.map((seed, w) => runWorker(seed, expected[w]!).catch((e): Report => ({
  seed, calls: 0, mismatches: 0, errors: 1, firstError: String(e), ms: 0,
}))));
const wallSeconds = (performance.now() - t0) / 1000;

let passed = 0, failed = 0, total = 0, mismatches = 0, errors = 0;
for (const r of reports) {
  const ok = r.calls === calls && r.mismatches === 0 && r.errors === 0;
  console.log(`${ok ? "ok  " : "FAIL"} ${r.seed}: ${r.calls} calls, ${r.mismatches} mismatches, ${r.errors} errors, ${(r.ms / 1000).toFixed(1)} s${r.firstError ? `: ${r.firstError}` : ""}`);
  if (ok) passed++;
  else failed++;
  total += r.calls, mismatches += r.mismatches, errors += r.errors;
}
console.log(`${runtime}: ${workers} Workers x ${calls} calls: ${total} calls in ${wallSeconds.toFixed(1)} s wall, ${mismatches} mismatches, ${errors} errors`);
console.log(`${passed} passed, ${failed} failed`);
if (failed) {
  const exit = globalThis as unknown as { Deno?: { exit(code: number): never }; process?: { exit(code: number): never } };
  if (exit.Deno) exit.Deno.exit(1);
  else exit.process!.exit(1);
}
