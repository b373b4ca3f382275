/**
 * Node.js only: what the binding costs, and the measurements behind its
 * design (ts/runtime/node.ts, bindings/node/addon.c):
 *
 * - the issue-13 target "binding overhead ≤ 100 ns per call": a 16 B
 *   `ige256EncryptInto` through the API minus the same C call made from C
 *   (bench/c/call_cost.c, through the shared library, written by
 *   bench/run.sh to bench/results/c-call.json);
 * - the addon called raw (no TypeScript checks) and, where Node has it
 *   (26.1+, experimental), the same C function through `node:ffi`: the
 *   informational row that records why Node-API was chosen;
 * - outputs: a fresh 32-byte digest made five ways (V8 keeps typed arrays
 *   of up to 64 bytes in its heap and copies one out when native code first
 *   asks for its address), and 1 KiB / 16 KiB outputs zero-filled or not;
 * - a fresh (on-heap) 32-byte key per call against a long-lived one.
 *
 *   node bench/node_binding.ts        (BENCH_QUICK=1 for a short run)
 *
 * Times are the thread's CPU time per call (`process.threadCpuUsage`, Node
 * 23.9+; wall time where it is missing), the fastest of the rounds: the
 * machine is shared, and wall time would also count the waits for a core.
 * bench/c/call_cost.c measures the C side the same way.
 *
 * Prints a table and the target, writes bench/results/node-binding.json.
 */

import { Buffer } from "node:buffer";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import process from "node:process";

import { backend, ige256EncryptInto, libraryPath, sha256, version } from "../ts/mod.ts";
import { cpuModel, isQuick, runtimeInfo } from "./lib/env.ts";
import { formatTime } from "./lib/report.ts";
import { calibrate, sink, sinkChecksum } from "./lib/timing.ts";

const runtime = runtimeInfo();
if (runtime.name !== "node") throw new Error("bench/node_binding.ts measures the Node.js binding: run it with node");
const quick = isQuick();
const roundMs = quick ? 15 : 40;
const rounds = quick ? 3 : 7;

type Fn = (...args: unknown[]) => number;
const addon = createRequire(import.meta.url)(libraryPath()) as Record<string, Fn>;

const key = new Uint8Array(new ArrayBuffer(32)).fill(1);
const iv = new Uint8Array(new ArrayBuffer(32)).fill(2);
const data16 = new Uint8Array(new ArrayBuffer(16)).fill(3);
const out16 = new Uint8Array(new ArrayBuffer(16));
const digest = new Uint8Array(new ArrayBuffer(32));
const scratch = new Uint8Array(new ArrayBuffer(64));
const scratch32 = scratch.subarray(0, 32);

interface Row {
  readonly id: string;
  readonly what: string;
  readonly body: () => number;
}

const raw = { ige: addon.tg_ige256_encrypt!, sha: addon.tg_sha256! };
const rows: Row[] = [
  { id: "api-ige-into-16", what: "ige256EncryptInto 16 B (API, long-lived arrays)", body: () => ige256EncryptInto(out16, data16, key, iv)[0]! },
  { id: "addon-ige-16", what: "addon tg_ige256_encrypt 16 B, raw (no TS checks)", body: () => raw.ige(out16, data16, 16, key, iv) },
  { id: "addon-ige-0", what: "addon tg_ige256_encrypt, length 0 (the crossing alone)", body: () => raw.ige(out16, data16, 0, key, iv) },
  {
    id: "addon-ige-16-fresh-key",
    what: "addon tg_ige256_encrypt 16 B, fresh new Uint8Array(32) key",
    body: () => raw.ige(out16, data16, 16, new Uint8Array(32), iv),
  },
  { id: "sha-into", what: "32 B digest into a long-lived array (floor)", body: () => raw.sha(digest, data16, 16) },
  {
    id: "sha-out-scratch",
    what: "32 B digest: off-heap scratch + slice + wipe (node.ts)",
    body: () => {
      raw.sha(scratch32, data16, 16);
      const copy = scratch32.slice();
      scratch32.fill(0);
      return copy[0]!;
    },
  },
  { id: "sha-out-api", what: "32 B digest: sha256() (API: checks + scratch)", body: () => sha256(data16)[0]! },
  {
    id: "sha-out-onheap",
    what: "32 B digest: new Uint8Array(32) passed to native",
    body: () => {
      const d = new Uint8Array(32);
      raw.sha(d, data16, 16);
      return d[0]!;
    },
  },
  {
    id: "sha-out-arraybuffer",
    what: "32 B digest: new Uint8Array(new ArrayBuffer(32))",
    body: () => {
      const d = new Uint8Array(new ArrayBuffer(32));
      raw.sha(d, data16, 16);
      return d[0]!;
    },
  },
  {
    id: "sha-out-unsafe-slow",
    what: "32 B digest: Buffer.allocUnsafeSlow(32)",
    body: () => {
      const d = Buffer.allocUnsafeSlow(32);
      raw.sha(d, data16, 16);
      return d[0]!;
    },
  },
];
for (const size of [1024, 16384]) {
  const data = new Uint8Array(size);
  rows.push(
    {
      id: `ige-out-${size}-zeroed`,
      what: `ige ${size / 1024} KiB into new Uint8Array(n) (zero-filled)`,
      body: () => {
        const o = new Uint8Array(size);
        raw.ige(o, data, size, key, iv);
        return o[0]!;
      },
    },
    {
      id: `ige-out-${size}-unsafe-slow`,
      what: `ige ${size / 1024} KiB into Buffer.allocUnsafeSlow(n) as Uint8Array`,
      body: () => {
        const o = new Uint8Array(Buffer.allocUnsafeSlow(size).buffer, 0, size);
        raw.ige(o, data, size, key, iv);
        return o[0]!;
      },
    },
  );
}

// node:ffi (Node 26.1+; experimental: it prints a warning): the same C function over the shared library.
const getBuiltin = (process as unknown as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
const sharedLibrary = new URL("../zig-out/lib/libtgcrypto.so", import.meta.url);
const ffi = getBuiltin?.("node:ffi") as
  | { dlopen(path: string, d: Record<string, { arguments: string[]; return: string }>): { functions: Record<string, Fn> } }
  | undefined;
let ffiNote = "node:ffi: not in this Node (added in 26.1)";
if (ffi !== undefined && existsSync(sharedLibrary)) {
  const { functions } = ffi.dlopen(sharedLibrary.pathname, {
    tg_init: { arguments: [], return: "int32" },
    tg_ige256_encrypt: { arguments: ["buffer", "buffer", "uint32", "buffer", "buffer"], return: "int32" },
  });
  functions.tg_init!();
  const ige = functions.tg_ige256_encrypt!;
  rows.push({ id: "node-ffi-ige-16", what: "node:ffi tg_ige256_encrypt 16 B (buffer arguments)", body: () => ige(out16, data16, 16, key, iv) });
  ffiNote = "node:ffi: the shared library zig-out/lib/libtgcrypto.so";
}

/** This thread's CPU time in ns (wall time if Node lacks threadCpuUsage). */
const threadCpu = (process as unknown as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;
const clock = threadCpu === undefined ? () => performance.now() * 1e6 : () => {
  const usage = threadCpu();
  return (usage.user + usage.system) * 1e3;
};
const clockName = threadCpu === undefined ? "wall time" : "thread CPU time";

/** The fastest of `rounds` rounds of `calls` calls, ns per call, after one untimed round. */
function fastest(run: (n: number) => number, calls: number): number {
  sink(run(calls));
  let best = Infinity;
  for (let round = 0; round < rounds; round++) {
    const start = clock();
    sink(run(calls));
    best = Math.min(best, (clock() - start) / calls);
  }
  return best;
}

const results: { id: string; what: string; ns: number }[] = [];
for (const row of rows) {
  const run = (n: number) => {
    let x = 0;
    for (let i = 0; i < n; i++) x ^= row.body();
    return x;
  };
  const calls = calibrate(run, roundMs);
  const ns = fastest(run, calls);
  results.push({ id: row.id, what: row.what, ns });
  sink(ns);
}

const byId = (id: string) => results.find((r) => r.id === id)?.ns;
const cFile = new URL("./results/c-call.json", import.meta.url);
const cLevel = existsSync(cFile) ? (JSON.parse(readFileSync(cFile, "utf8")) as { ige256_encrypt_16_ns: number; backend: string }) : undefined;

const lines = [
  `Node binding — node ${runtime.version} (${runtime.engine}), tgcrypto-ffi ${version()} (${backend()}), ${cpuModel()}` +
    `${quick ? ", BENCH_QUICK" : ""}; ${clockName} per call, fastest of ${rounds} rounds of ~${roundMs} ms`,
  `addon: ${libraryPath()}; ${ffiNote}`,
  "",
  "| call | time per call |",
  "|---|--:|",
  ...results.map((r) => `| ${r.what} | ${formatTime(r.ns)} |`),
];
if (cLevel) lines.push(`| C level: tg_ige256_encrypt 16 B from C (bench/c/call_cost.c, ${cLevel.backend}) | ${formatTime(cLevel.ige256_encrypt_16_ns)} |`);
const into = byId("api-ige-into-16")!;
const overhead = cLevel ? into - cLevel.ige256_encrypt_16_ns : undefined;
const met = overhead !== undefined && overhead <= 100;
lines.push(
  "",
  `${overhead === undefined ? "N/A " : met ? "PASS" : "MISS"} binding overhead ≤ 100 ns per call (16 B ige256EncryptInto ${formatTime(into)} − C level ${
    cLevel ? formatTime(cLevel.ige256_encrypt_16_ns) : "n/a: run bench/run.sh, which writes bench/results/c-call.json"
  }) = ${overhead === undefined ? "n/a" : formatTime(overhead)}`,
);
const ffiNs = byId("node-ffi-ige-16");
if (ffiNs !== undefined) {
  lines.push(`info node:ffi: the same call costs ${formatTime(ffiNs)} (${(ffiNs / byId("addon-ige-16")!).toFixed(1)}x the addon's raw call): why Node-API was chosen`);
}
console.log(lines.join("\n"));
console.log(`(checksum ${sinkChecksum()})`);

const resultsDir = new URL("./results/", import.meta.url);
mkdirSync(resultsDir, { recursive: true });
writeFileSync(
  new URL("node-binding.json", resultsDir),
  JSON.stringify(
    {
      runtime,
      library: { version: version(), backend: backend(), path: libraryPath() },
      cpu: cpuModel(),
      date: new Date().toISOString(),
      quick,
      clock: clockName,
      results,
      cLevel: cLevel ?? null,
      target: { description: "binding overhead ≤ 100 ns per call (16 B ige256EncryptInto − C level)", required: 100, measured: overhead ?? null, met },
    },
    null,
    2,
  ) + "\n",
);
