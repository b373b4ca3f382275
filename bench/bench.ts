/**
 * Throughput of tgcrypto-ffi (every available backend) against
 * @mtcute/wasm, node:crypto and @noble/ciphers, in one process.
 *
 *   bun bench/bench.ts
 *   deno run -A bench/bench.ts
 *
 * Budget: BENCH_QUICK=1 (~20 s), BENCH_ROUNDS, BENCH_ROUND_MS, BENCH_BACKENDS
 * (see lib/env.ts). Prints one table per mode and the target checks, and
 * writes every measurement to <runtime>.json in the results folder
 * (bench/lib/results.ts: $BENCH_RESULTS_DIR, else .tools/bench-results/).
 */

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import process from "node:process";

import { backend, backends, setBackend, version } from "../ts/mod.ts";
import { initMtcute, mtcuteRows } from "./impl/mtcute.ts";
import { nobleRows } from "./impl/noble.ts";
import { nodeCryptoRows } from "./impl/node_crypto.ts";
import { tgcryptoRows } from "./impl/tgcrypto.ts";
import { backendFilter, benchConfig, cpuAesFlags, cpuModel, logicalCpus, runtimeInfo } from "./lib/env.ts";
import { ResultIndex, renderCalls, renderTables } from "./lib/report.ts";
import { type BenchResults, type Measurement, resultsDirectory } from "./lib/results.ts";
import { makeBuffers, SIZES, type Row } from "./lib/rows.ts";
import { checkTargets, readOpenssl, renderTargets } from "./lib/targets.ts";
import { calibrate, megabytesPerSecond, sinkChecksum, timeRounds } from "./lib/timing.ts";

const resultsDir = resultsDirectory();
const started = performance.now();
const config = benchConfig();
const runtime = runtimeInfo();

const defaultBackend = backend();
const wanted = backendFilter();
const backendNames = backends()
  .filter((b) => b.available && (wanted === undefined || wanted.includes(b.name)))
  .map((b) => b.name);
const { simd } = initMtcute();

function packageVersion(name: string): string {
  const url = new URL(`../node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}

const nodeCryptoEngine =
  runtime.name === "bun" ? `BoringSSL ${process.versions.boringssl ?? ""}`.trim() : runtime.name === "deno" ? "RustCrypto (Deno ext/node)" : "OpenSSL";
const peers = {
  "@mtcute/wasm": `${packageVersion("@mtcute/wasm")} (${simd ? "SIMD" : "no SIMD"} build)`,
  "@noble/ciphers": packageVersion("@noble/ciphers"),
  "node:crypto": nodeCryptoEngine,
};

const rows: Row[] = [...backendNames.flatMap(tgcryptoRows), ...mtcuteRows(), ...nodeCryptoRows(), ...nobleRows()];
const buffers = makeBuffers(SIZES);
const cpu = cpuModel();

console.log(`tgcrypto-ffi ${version()} benchmark — ${runtime.name} ${runtime.version} (${runtime.engine})`);
console.log(`CPU: ${cpu}, ${logicalCpus()} logical CPUs, flags: ${cpuAesFlags().join(" ") || "n/a"}`);
console.log(`backends measured: ${backendNames.join(", ")} (default: ${defaultBackend})`);
console.log(`peers: ${Object.entries(peers).map(([k, v]) => `${k} ${v}`).join(", ")}`);
console.log(
  `timing: fastest of ${config.passes} pass(es) x ${config.rounds} rounds of ~${config.roundMs} ms per row and size, after warm-up${config.quick ? " (BENCH_QUICK)" : ""}`,
);

/** Calibrated loop size and every timed round so far, per row and size. */
const samples = new Map<string, { callsPerRound: number; roundNsPerCall: number[] }>();

for (let pass = 0; pass < config.passes; pass++) {
  // Odd passes go backwards, so slow drift (heat, background load) evens out.
  const order = pass % 2 === 0 ? rows : [...rows].reverse();
  const passStart = performance.now();
  for (const row of order) {
    if (row.backend !== undefined) setBackend(row.backend);
    for (const size of row.sizes) {
      const key = `${row.id}@${size}`;
      const prepared = row.prepare(buffers.get(size)!);
      let sample = samples.get(key);
      if (sample === undefined) {
        sample = { callsPerRound: calibrate(prepared.run, config.roundMs), roundNsPerCall: [] };
        samples.set(key, sample);
      }
      sample.roundNsPerCall.push(...timeRounds(prepared.run, sample.callsPerRound, config.rounds));
      prepared.dispose?.();
    }
  }
  const seconds = ((performance.now() - passStart) / 1e3).toFixed(1);
  process.stderr.write(`pass ${pass + 1}/${config.passes}: ${rows.length} rows in ${seconds} s\n`);
}
setBackend(defaultBackend);

const measurements: Measurement[] = rows.flatMap((row) =>
  row.sizes.map((size): Measurement => {
    const { callsPerRound, roundNsPerCall } = samples.get(`${row.id}@${size}`)!;
    const nsPerCall = Math.min(...roundNsPerCall);
    return {
      rowId: row.id,
      label: row.label,
      library: row.library,
      ...(row.backend !== undefined ? { backend: row.backend } : {}),
      call: row.call,
      tables: row.tables,
      size,
      nsPerCall,
      mbPerSec: megabytesPerSecond(size, nsPerCall),
      callsPerSec: 1e9 / nsPerCall,
      callsPerRound,
      roundNsPerCall,
    };
  }),
);

const index = new ResultIndex(measurements);
const openssl = readOpenssl(new URL("openssl.json", resultsDir).pathname);
const targets = checkTargets(index, runtime.name, defaultBackend, openssl);
const durationSeconds = (performance.now() - started) / 1e3;

for (const line of renderTables(rows, index)) console.log(line);
for (const line of renderCalls(rows)) console.log(line);
for (const line of renderTargets(targets, defaultBackend)) console.log(line);
console.log(`\n${runtime.name}: ${measurements.length} measurements in ${durationSeconds.toFixed(1)} s (checksum ${sinkChecksum()})`);

const results: BenchResults = {
  kind: "bench",
  runtime,
  cpu: { model: cpu, logicalCpus: logicalCpus(), aesFlags: cpuAesFlags() },
  library: { version: version(), defaultBackend, backends: backends() },
  peers,
  date: new Date().toISOString(),
  config: { quick: config.quick, passes: config.passes, rounds: config.rounds, roundMs: config.roundMs },
  durationSeconds,
  checksum: sinkChecksum(),
  measurements,
  targets,
};
mkdirSync(resultsDir, { recursive: true });
const outFile = new URL(`${runtime.name}.json`, resultsDir);
writeFileSync(outFile, `${JSON.stringify(results, null, 1)}\n`);
console.log(`wrote ${outFile.pathname}`);
