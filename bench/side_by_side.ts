/**
 * Two checkouts of tgcrypto-ffi measured side by side in one run, for a
 * before/after comparison of a change: short child processes of the same
 * runtime alternate between the two roots (each imports its root's
 * `ts/mod.ts`, which loads that root's zig-out/ build), so both see the
 * same machine load; each figure is process CPU time per call (not wall
 * time: the waits for a core of a loaded machine are left out), the fastest
 * run of each.
 *
 *   bun  bench/side_by_side.ts BEFORE_ROOT AFTER_ROOT   (Bun: 64 B MTProto message encrypt)
 *   node bench/side_by_side.ts BEFORE_ROOT AFTER_ROOT   (Node.js: 16 B ige256EncryptInto)
 *
 * Rows: Bun runs the 64 B `AuthKey.encryptMessage` (default padding, the
 * CSPRNG pool included); Node.js runs the 16 B `ige256EncryptInto`, the
 * binding-overhead row of bench/node_binding.ts (whose C-side cost is the
 * same for both builds, so the difference is the binding's).
 */
import { execFileSync } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";

import { cpuModel, runtimeInfo } from "./lib/env.ts";
import { calibrate, sink, sinkChecksum, timeRounds } from "./lib/timing.ts";

type Mod = typeof import("../ts/mod.ts");
const runtime = runtimeInfo();

function row(mod: Mod): { name: string; run: (n: number) => number } {
  if (runtime.name === "bun" || runtime.name === "deno") {
    const key = new mod.AuthKey(new Uint8Array(256).fill(7));
    const plaintext = new Uint8Array(64).fill(1);
    return {
      name: "64 B MTProto message encrypt (AuthKey.encryptMessage)",
      run: (n) => {
        let acc = 0;
        for (let i = 0; i < n; i++) acc += key.encryptMessage(plaintext)[30]!;
        return acc;
      },
    };
  }
  const out = new Uint8Array(16), data = new Uint8Array(16), key = new Uint8Array(32), iv = new Uint8Array(32);
  return {
    name: "16 B ige256EncryptInto",
    run: (n) => {
      let acc = 0;
      for (let i = 0; i < n; i++) acc += mod.ige256EncryptInto(out, data, key, iv)[0]!;
      return acc;
    },
  };
}

const args = process.argv.slice(2);
if (args[0] === "--one") {
  // A child: one root's row, the fastest of 10 rounds, as "name\tns".
  // Process CPU time (user + system) over rounds of ~200 ms: the scheduler
  // tick that getrusage counts in is then under 2% of a round, and the waits
  // for a core on a loaded machine are not counted.
  const r = row(await import(`${args[1]!.replace(/\/$/, "")}/ts/mod.ts`) as Mod);
  const calls = calibrate(r.run, 200);
  timeRounds(r.run, calls, 1); // warm-up
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const start = process.cpuUsage();
    sink(r.run(calls));
    const used = process.cpuUsage(start);
    best = Math.min(best, ((used.user + used.system) * 1000) / calls);
  }
  sink(sinkChecksum());
  console.log(`${r.name}\t${best}`);
} else {
  // Two modules of the same API in one process would share (and deoptimise) call
  // sites, so each measurement is a fresh child of this runtime, alternating.
  if (args.length !== 2) throw new Error("usage: bench/side_by_side.ts BEFORE_ROOT AFTER_ROOT");
  const self = fileURLToPath(import.meta.url);
  const best = [Infinity, Infinity];
  let name = "";
  for (let pass = 0; pass < 8; pass++) {
    for (const i of pass % 2 === 0 ? [0, 1] : [1, 0]) {
      const line = execFileSync(process.execPath, [self, "--one", args[i]!], { encoding: "utf8" }).trim().split("\n").pop()!;
      const [rowName, ns] = line.split("\t");
      name = rowName!;
      best[i] = Math.min(best[i]!, Number(ns));
    }
  }
  console.log(`${runtime.name} ${runtime.version}, ${cpuModel()}: ${name}, process CPU time, fastest of 8 runs x 3 rounds each`);
  console.log(`  before (${args[0]}): ${best[0]!.toFixed(1)} ns`);
  console.log(`  after  (${args[1]}): ${best[1]!.toFixed(1)} ns  (${((best[1]! / best[0]! - 1) * 100).toFixed(1)}%)`);
}
