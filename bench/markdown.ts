/**
 * Prints the README's benchmark table from bench/results/{bun,deno,node}.json:
 * MB/s of the default backend's one-shot and zero-copy calls next to the
 * fastest peer, per mode and size.
 *
 *   bun bench/markdown.ts
 */
import { existsSync, readFileSync } from "node:fs";

interface Measurement { label: string; call: string; tables: string[]; size: number; mbPerSec: number; backend?: string; library: string }
interface Results { runtime: { name: string; version: string }; cpu: { model: string }; library: { defaultBackend?: string; backend?: string }; date: string; measurements: Measurement[] }

const SIZES = [16, 256, 1024, 16384, 1 << 20];
const MODES: [string, string][] = [["ige-enc", "IGE encrypt"], ["ige-dec", "IGE decrypt"], ["ctr", "CTR"], ["cbc-enc", "CBC encrypt"], ["cbc-dec", "CBC decrypt"]];
const sizeName = (n: number) => (n >= 1 << 20 ? `${n >> 20} MiB` : n >= 1024 ? `${n >> 10} KiB` : `${n} B`);
const fmt = (v: number | undefined) => (v === undefined ? "—" : v >= 100 ? Math.round(v).toLocaleString("en-US") : v.toFixed(1));

for (const runtime of ["bun", "deno", "node"]) {
  if (!existsSync(new URL(`./results/${runtime}.json`, import.meta.url))) continue;
  const r: Results = JSON.parse(readFileSync(new URL(`./results/${runtime}.json`, import.meta.url), "utf8"));
  const ours = r.measurements.filter((m) => m.library === "tgcrypto-ffi");
  const backend = ours[0]?.backend ?? "?";
  console.log(`\n**${r.runtime.name} ${r.runtime.version}**, backend \`${backend}\`, MB/s (10^6 B/s):\n`);
  console.log(`| mode | implementation | ${SIZES.map(sizeName).join(" | ")} |`);
  console.log(`|---|---|${SIZES.map(() => "--:").join("|")}|`);
  for (const [mode, title] of MODES) {
    const inMode = r.measurements.filter((m) => m.tables.includes(mode));
    const pick = (pred: (m: Measurement) => boolean, size: number) => inMode.find((m) => pred(m) && m.size === size)?.mbPerSec;
    const isDefault = (m: Measurement) => m.library === "tgcrypto-ffi" && m.backend === backend;
    const oneShot = SIZES.map((s) => pick((m) => isDefault(m) && !/Into|ctx|pool/.test(m.label), s));
    const pooled = SIZES.map((s) => pick((m) => isDefault(m) && m.label.endsWith(" pool"), s));
    const into = SIZES.map((s) => pick((m) => isDefault(m) && m.label.includes("Into"), s));
    const peers = [...new Set(inMode.filter((m) => m.library !== "tgcrypto-ffi").map((m) => m.label))];
    console.log(`| ${title} | tgcrypto-ffi | ${oneShot.map(fmt).join(" | ")} |`);
    if (into.some((v) => v !== undefined)) console.log(`| | tgcrypto-ffi \`Into\` | ${into.map(fmt).join(" | ")} |`);
    if (pooled.some((v) => v !== undefined)) console.log(`| | tgcrypto-ffi \`Into\` + \`OutputPool\` | ${pooled.map(fmt).join(" | ")} |`);
    for (const peer of peers) console.log(`| | ${peer} | ${SIZES.map((s) => fmt(pick((m) => m.label === peer, s))).join(" | ")} |`);
  }
}
