/**
 * Two checkouts of tgcrypto-ffi measured side by side in one process, for a
 * before/after comparison of a change: each root's `ts/mod.ts` is imported
 * (each loads its own zig-out/ build), and the rows alternate between the
 * two, round by round, so both see the same machine load.
 *
 *   bun  bench/side_by_side.ts BEFORE_ROOT AFTER_ROOT   (Bun: 64 B MTProto message encrypt)
 *   node bench/side_by_side.ts BEFORE_ROOT AFTER_ROOT   (Node.js: 16 B ige256EncryptInto)
 *
 * Rows: Bun runs the 64 B `AuthKey.encryptMessage` (default padding, the
 * CSPRNG pool included); Node.js runs the 16 B `ige256EncryptInto`, the
 * binding-overhead row of bench/node_binding.ts (whose C-side cost is the
 * same for both builds, so the difference is the binding's). Each figure is
 * the fastest of many short rounds (bench/lib/timing.ts).
 */
import process from "node:process";

import { cpuModel, runtimeInfo } from "./lib/env.ts";
import { calibrate, sink, sinkChecksum, timeRounds } from "./lib/timing.ts";

type Mod = typeof import("../ts/mod.ts");

const roots = process.argv.slice(2);
if (roots.length !== 2) throw new Error("usage: bench/side_by_side.ts BEFORE_ROOT AFTER_ROOT");
const mods: Mod[] = [];
for (const root of roots) mods.push(await import(`${root.replace(/\/$/, "")}/ts/mod.ts`) as Mod);
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

const rows = mods.map(row);
const calls = rows.map((r) => calibrate(r.run, 3));
const best = [Infinity, Infinity];
for (let pass = 0; pass < 40; pass++) {
  for (const i of pass % 2 === 0 ? [0, 1] : [1, 0]) {
    best[i] = Math.min(best[i]!, ...timeRounds(rows[i]!.run, calls[i]!, 5));
  }
}
sink(sinkChecksum());
console.log(`${runtime.name} ${runtime.version}, ${cpuModel()}: ${rows[0]!.name}`);
console.log(`  before (${roots[0]}): ${best[0]!.toFixed(1)} ns`);
console.log(`  after  (${roots[1]}): ${best[1]!.toFixed(1)} ns  (${((best[1]! / best[0]! - 1) * 100).toFixed(1)}%)`);
