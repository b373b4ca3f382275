/**
 * The AES tables of docs/performance.md, from the {bun,deno,node}.json of a
 * results folder: MB/s of the default backend's one-shot and zero-copy
 * calls next to every peer, per mode and size. Each table names its
 * runtime, machine and date (one table = one run).
 *
 *   bun bench/markdown.ts [folder]   (default: the committed bench/results/)
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";

import { COMMITTED_RESULTS_DIR } from "./lib/results.ts";

interface Measurement { label: string; call: string; tables: string[]; size: number; mbPerSec: number; backend?: string; library: string }
interface Results { runtime: { name: string; version: string }; cpu: { model: string; logicalCpus?: number }; library: { defaultBackend?: string; backend?: string }; date: string; measurements: Measurement[] }

const SIZES = [16, 256, 1024, 16384, 1 << 20];
const MODES: [string, string][] = [["ige-enc", "IGE encrypt"], ["ige-dec", "IGE decrypt"], ["ctr", "CTR"], ["cbc-enc", "CBC encrypt"], ["cbc-dec", "CBC decrypt"]];
const sizeName = (n: number) => (n >= 1 << 20 ? `${n >> 20} MiB` : n >= 1024 ? `${n >> 10} KiB` : `${n} B`);
const fmt = (v: number | undefined) => (v === undefined ? "—" : v >= 100 ? Math.round(v).toLocaleString("en-US") : v.toFixed(1));

/** The tables as markdown lines. */
export function aesTables(dir: string = COMMITTED_RESULTS_DIR): string[] {
  const lines: string[] = [];
  const out = (line: string) => lines.push(line);
  for (const runtime of ["bun", "deno", "node"]) {
    const file = join(dir, `${runtime}.json`);
    if (!existsSync(file)) continue;
    const r: Results = JSON.parse(readFileSync(file, "utf8"));
    const ours = r.measurements.filter((m) => m.library === "tgcrypto-ffi");
    const backend = ours[0]?.backend ?? "?";
    out("");
    out(`**${r.runtime.name} ${r.runtime.version}**, backend \`${backend}\`, MB/s (10^6 B/s); ${r.cpu.model}, ${r.date.slice(0, 10)} (bench/results/${runtime}.json):`);
    out("");
    out(`| mode | implementation | ${SIZES.map(sizeName).join(" | ")} |`);
    out(`|---|---|${SIZES.map(() => "--:").join("|")}|`);
    for (const [mode, title] of MODES) {
      const inMode = r.measurements.filter((m) => m.tables.includes(mode));
      const pick = (pred: (m: Measurement) => boolean, size: number) => inMode.find((m) => pred(m) && m.size === size)?.mbPerSec;
      const isDefault = (m: Measurement) => m.library === "tgcrypto-ffi" && m.backend === backend;
      const oneShot = SIZES.map((s) => pick((m) => isDefault(m) && !/Into|ctx|pool/.test(m.label), s));
      const pooled = SIZES.map((s) => pick((m) => isDefault(m) && m.label.endsWith(" pool"), s));
      const into = SIZES.map((s) => pick((m) => isDefault(m) && m.label.includes("Into"), s));
      const peers = [...new Set(inMode.filter((m) => m.library !== "tgcrypto-ffi").map((m) => m.label))];
      out(`| ${title} | tgcrypto-ffi | ${oneShot.map(fmt).join(" | ")} |`);
      if (into.some((v) => v !== undefined)) out(`| | tgcrypto-ffi \`Into\` | ${into.map(fmt).join(" | ")} |`);
      if (pooled.some((v) => v !== undefined)) out(`| | tgcrypto-ffi \`Into\` + \`OutputPool\` | ${pooled.map(fmt).join(" | ")} |`);
      for (const peer of peers) out(`| | ${peer} | ${SIZES.map((s) => fmt(pick((m) => m.label === peer, s))).join(" | ")} |`);
    }
  }
  return lines;
}

if (import.meta.main) console.log(aesTables(process.argv[2]).join("\n"));
