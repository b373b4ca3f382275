/**
 * The cost of the checked boundary on the hot path: the TS layer as it is
 * (lengths from the intrinsic getters, genuine-Uint8Array checks) against
 * another copy of ts/ (BOUNDARY_BEFORE=<a folder holding that ts/>, e.g. the
 * layer before the checks: `git archive <commit> ts | tar -x -C /tmp/before`),
 * both over the same library, timed in alternating rounds in one process.
 *
 *   TGCRYPTO_LIB=zig-out/lib/libtgcrypto.so BOUNDARY_BEFORE=/tmp/before bun bench/boundary.ts
 *   TGCRYPTO_LIB=... BOUNDARY_BEFORE=/tmp/before deno run -A bench/boundary.ts
 *
 * Prints ns per call for each variant (fastest round) and their ratio.
 */
import { cpuModel, isQuick, runtimeInfo } from "./lib/env.ts";
import { calibrate, sink } from "./lib/timing.ts";

type Api = typeof import("../ts/mod.ts");

const before = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env
  .BOUNDARY_BEFORE;
if (!before) throw new Error("set BOUNDARY_BEFORE to a folder holding the ts/ to compare against");
const now: Api = await import("../ts/mod.ts");
const then: Api = await import(new URL(`file://${before}/ts/mod.ts`).href);

const quick = isQuick();
const rounds = quick ? 3 : 12;
const roundMs = quick ? 10 : 30;

/** The benchmarked calls, each made for one API copy. */
const CASES: [string, (api: Api) => (n: number) => number][] = [
  ["ige256EncryptInto 16 B", (api) => {
    const out = new Uint8Array(16), data = new Uint8Array(16), key = new Uint8Array(32), iv = new Uint8Array(32);
    return (n) => {
      for (let i = 0; i < n; i++) api.ige256EncryptInto(out, data, key, iv);
      return out[0]!;
    };
  }],
  ["ige256Encrypt 16 B", (api) => {
    const data = new Uint8Array(16), key = new Uint8Array(32), iv = new Uint8Array(32);
    return (n) => {
      let s = 0;
      for (let i = 0; i < n; i++) s += api.ige256Encrypt(data, key, iv)[0]!;
      return s;
    };
  }],
  ["ctr256EncryptInto 16 B", (api) => {
    const out = new Uint8Array(16), data = new Uint8Array(16), key = new Uint8Array(32), iv = new Uint8Array(16);
    const state = new Uint8Array(1);
    return (n) => {
      for (let i = 0; i < n; i++) api.ctr256EncryptInto(out, data, key, iv, state);
      return out[0]!;
    };
  }],
  ["AuthKey.encryptMessage 64 B", (api) => {
    const authKey = new api.AuthKey(new Uint8Array(256).fill(7));
    const plaintext = new Uint8Array(64);
    return (n) => {
      let s = 0;
      for (let i = 0; i < n; i++) s += authKey.encryptMessage(plaintext)[30]!;
      return s;
    };
  }],
  ["sha256 32 B", (api) => {
    const data = new Uint8Array(32);
    return (n) => {
      let s = 0;
      for (let i = 0; i < n; i++) s += api.sha256(data)[0]!;
      return s;
    };
  }],
];

const runtime = runtimeInfo();
console.log(`# checked boundary vs ${before}/ts: ${runtime.name} ${runtime.version} (${runtime.engine}), ${cpuModel()}, backend ${now.backend()}`);
console.log("| call | before (ns) | now (ns) | now / before |");
console.log("|---|---:|---:|---:|");
for (const [name, make] of CASES) {
  const runs = [make(then), make(now)];
  const calls = calibrate(runs[0]!, roundMs);
  calibrate(runs[1]!, roundMs);
  const best = [Infinity, Infinity];
  for (let round = 0; round < rounds; round++) {
    for (const v of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const start = performance.now();
      sink(runs[v]!(calls));
      best[v] = Math.min(best[v]!, ((performance.now() - start) * 1e6) / calls);
    }
  }
  console.log(`| ${name} | ${best[0]!.toFixed(1)} | ${best[1]!.toFixed(1)} | ${(best[1]! / best[0]!).toFixed(2)} |`);
}
