/**
 * Draws chart.svg from the <runtime>.json files of the results folder (bench/lib/results.ts):
 * throughput (MB/s, log) against message size (log), one panel per main mode
 * (IGE encrypt, CTR, CBC decrypt) and runtime, one line per implementation.
 * Hand-written SVG, no dependencies.
 *
 *   bun bench/chart.ts | deno run -A bench/chart.ts | node bench/chart.ts (Node ≥ 22.6)
 *
 * Only erasable TypeScript syntax is used here, so Node can strip the types.
 */

import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";

import { type BenchResults, type Measurement, resultsDirectory } from "./lib/results.ts";

const resultsDir = fileURLToPath(resultsDirectory());
const SIZES = [16, 256, 1024, 16384, 1048576];
const SIZE_LABELS = ["16 B", "256 B", "1 KiB", "16 KiB", "1 MiB"];

/** A panel: a mode, and the row id (suffix for ours) of each series in it. */
interface Panel {
  readonly title: string;
  /** tgcrypto-ffi op of the solid per-backend lines. */
  readonly ours: string;
  /** tgcrypto-ffi op of the dashed default-backend "Into" line. */
  readonly oursInto: string;
  /** Peer row ids: library -> row id. */
  readonly peers: Record<string, string>;
}

const PANELS: Panel[] = [
  {
    title: "IGE encrypt",
    ours: "ige256Encrypt",
    oursInto: "ige256EncryptInto",
    peers: { "@mtcute/wasm": "@mtcute/wasm:ige256Encrypt" },
  },
  {
    title: "CTR (one-shot)",
    ours: "ctr256Encrypt",
    oursInto: "ctr256EncryptInto",
    peers: {
      "@mtcute/wasm": "@mtcute/wasm:ctr256-new-ctx-per-call",
      "node:crypto": "node:crypto:aes-256-ctr-cipher-per-call",
      "@noble/ciphers": "@noble/ciphers:ctr",
    },
  },
  {
    title: "CBC decrypt",
    ours: "cbc256Decrypt",
    oursInto: "cbc256DecryptInto",
    peers: {
      "node:crypto": "node:crypto:aes-256-cbc-decrypt-cipher-per-call",
      "@noble/ciphers": "@noble/ciphers:cbc-decrypt",
    },
  },
];

const BACKEND_COLORS: Record<string, string> = {
  vaes512: "#0b3d91",
  vaes256: "#1c6dd0",
  aesni: "#5aa9f0",
  armce: "#1c6dd0",
  soft: "#8fa6bf",
};
const PEER_COLORS: Record<string, string> = {
  "@mtcute/wasm": "#e8590c",
  "node:crypto": "#2b8a3e",
  "@noble/ciphers": "#ae3ec9",
};

interface Series {
  readonly name: string;
  readonly color: string;
  readonly dashed: boolean;
  readonly points: { size: number; mbPerSec: number }[];
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function loadResults(): BenchResults[] {
  const order = ["bun", "deno", "node"];
  return readdirSync(resultsDir)
    .filter((file) => file.endsWith(".json"))
    .map((file) => JSON.parse(readFileSync(resultsDir + file, "utf8")) as { kind?: string })
    .filter((json): json is BenchResults => json.kind === "bench")
    .sort((a, b) => order.indexOf(a.runtime.name) - order.indexOf(b.runtime.name));
}

function seriesFor(results: BenchResults, panel: Panel): Series[] {
  const byRow = new Map<string, Measurement[]>();
  for (const m of results.measurements) {
    const list = byRow.get(m.rowId) ?? [];
    list.push(m);
    byRow.set(m.rowId, list);
  }
  const points = (rowId: string) =>
    (byRow.get(rowId) ?? []).map((m) => ({ size: m.size, mbPerSec: m.mbPerSec })).sort((a, b) => a.size - b.size);
  const series: Series[] = [];
  const backends = results.library.backends.filter((b) => b.available).map((b) => b.name);
  for (const backend of backends) {
    const p = points(`tgcrypto-ffi/${backend}:${panel.ours}`);
    if (p.length > 0) series.push({ name: `tgcrypto-ffi/${backend}`, color: BACKEND_COLORS[backend] ?? "#1c6dd0", dashed: false, points: p });
  }
  const defaultBackend = results.library.defaultBackend;
  const into = points(`tgcrypto-ffi/${defaultBackend}:${panel.oursInto}`);
  if (into.length > 0) {
    series.push({ name: `tgcrypto-ffi/${defaultBackend} Into`, color: BACKEND_COLORS[defaultBackend] ?? "#1c6dd0", dashed: true, points: into });
  }
  for (const [library, rowId] of Object.entries(panel.peers)) {
    const p = points(rowId);
    if (p.length > 0) series.push({ name: library, color: PEER_COLORS[library] ?? "#555", dashed: false, points: p });
  }
  return series;
}

// Layout (px).
const PANEL_W = 360;
const PANEL_H = 250;
const MARGIN = { left: 70, right: 20, top: 34, bottom: 46 };
const CELL_W = MARGIN.left + PANEL_W + MARGIN.right;
const CELL_H = MARGIN.top + PANEL_H + MARGIN.bottom;
const HEADER_H = 78;
const LEGEND_H = 70;

function formatMBps(value: number): string {
  if (value >= 1e6) return `${value / 1e6}M`;
  if (value >= 1e3) return `${value / 1e3}k`;
  return String(value);
}

function render(all: BenchResults[]): string {
  const panels = all.flatMap((results) => PANELS.map((panel) => ({ results, panel, series: seriesFor(results, panel) })));
  const values = panels.flatMap((p) => p.series.flatMap((s) => s.points.map((pt) => pt.mbPerSec))).filter((v) => v > 0);
  const yMin = 10 ** Math.floor(Math.log10(Math.min(...values)));
  const yMax = 10 ** Math.ceil(Math.log10(Math.max(...values)));
  const x = (size: number) => (Math.log2(size / SIZES[0]!) / Math.log2(SIZES[SIZES.length - 1]! / SIZES[0]!)) * PANEL_W;
  const y = (mbps: number) => PANEL_H - (Math.log10(mbps / yMin) / Math.log10(yMax / yMin)) * PANEL_H;

  const width = CELL_W * PANELS.length;
  const height = HEADER_H + CELL_H * all.length + LEGEND_H;
  const first = all[0]!;
  const date = all.map((r) => r.date.slice(0, 10)).sort().at(-1);
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${width / 2}" y="26" text-anchor="middle" font-size="18" font-weight="bold">tgcrypto-ffi ${escapeXml(first.library.version)}: AES-256 throughput vs message size</text>`,
    `<text x="${width / 2}" y="48" text-anchor="middle" font-size="13">${escapeXml(`${first.cpu.model}, ${first.cpu.logicalCpus} logical CPUs — ${date} — ${all.map((r) => `${r.runtime.name} ${r.runtime.version}`).join(", ")}`)}</text>`,
    `<text x="${width / 2}" y="66" text-anchor="middle" font-size="11" fill="#555">one call per message, same process and buffers; MB/s = 10^6 B/s, both axes logarithmic; dashed = zero-copy Into variant of the default backend (${escapeXml(first.library.defaultBackend)})</text>`,
  );

  panels.forEach(({ results, panel, series }, index) => {
    const col = index % PANELS.length;
    const row = Math.floor(index / PANELS.length);
    const ox = col * CELL_W + MARGIN.left;
    const oy = HEADER_H + row * CELL_H + MARGIN.top;
    out.push(`<g transform="translate(${ox},${oy})">`);
    out.push(`<text x="${PANEL_W / 2}" y="-12" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(`${panel.title} — ${results.runtime.name} ${results.runtime.version}`)}</text>`);
    out.push(`<rect width="${PANEL_W}" height="${PANEL_H}" fill="#fafafa" stroke="#999"/>`);
    for (let v = yMin; v <= yMax * 1.0001; v *= 10) {
      const yy = y(v).toFixed(1);
      out.push(`<line x1="0" x2="${PANEL_W}" y1="${yy}" y2="${yy}" stroke="#ddd"/>`);
      out.push(`<text x="-6" y="${yy}" text-anchor="end" dominant-baseline="middle">${formatMBps(v)}</text>`);
    }
    SIZES.forEach((size, i) => {
      const xx = x(size).toFixed(1);
      out.push(`<line x1="${xx}" x2="${xx}" y1="0" y2="${PANEL_H}" stroke="#eee"/>`);
      out.push(`<text x="${xx}" y="${PANEL_H + 16}" text-anchor="middle">${SIZE_LABELS[i]}</text>`);
    });
    out.push(`<text x="${PANEL_W / 2}" y="${PANEL_H + 36}" text-anchor="middle" fill="#444">message size</text>`);
    out.push(`<text transform="translate(-52,${PANEL_H / 2}) rotate(-90)" text-anchor="middle" fill="#444">MB/s</text>`);
    for (const s of series) {
      const path = s.points.map((pt, i) => `${i === 0 ? "M" : "L"}${x(pt.size).toFixed(1)},${y(pt.mbPerSec).toFixed(1)}`).join(" ");
      const dash = s.dashed ? ` stroke-dasharray="6 4"` : "";
      out.push(`<path d="${path}" fill="none" stroke="${s.color}" stroke-width="2"${dash}><title>${escapeXml(s.name)}</title></path>`);
      for (const pt of s.points) {
        out.push(`<circle cx="${x(pt.size).toFixed(1)}" cy="${y(pt.mbPerSec).toFixed(1)}" r="2.5" fill="${s.color}"><title>${escapeXml(`${s.name}: ${pt.mbPerSec.toFixed(0)} MB/s at ${pt.size} B`)}</title></circle>`);
      }
    }
    out.push(`</g>`);
  });

  // Legend: every series name that appears anywhere, once.
  const legend = new Map<string, Series>();
  for (const p of panels) for (const s of p.series) if (!legend.has(s.name)) legend.set(s.name, s);
  const legendY = HEADER_H + CELL_H * all.length + 10;
  const perRow = 5;
  const itemW = width / perRow;
  [...legend.values()].forEach((s, i) => {
    const lx = (i % perRow) * itemW + 20;
    const ly = legendY + Math.floor(i / perRow) * 22;
    const dash = s.dashed ? ` stroke-dasharray="6 4"` : "";
    out.push(`<line x1="${lx}" x2="${lx + 28}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="3"${dash}/>`);
    out.push(`<text x="${lx + 36}" y="${ly}" dominant-baseline="middle">${escapeXml(s.name)}</text>`);
  });
  out.push(`</svg>`);
  return `${out.join("\n")}\n`;
}

const all = loadResults();
if (all.length === 0) {
  console.error(`chart.ts: no bench results in ${resultsDir}; run bench/bench.ts first`);
  process.exit(1);
}
const file = `${resultsDir}chart.svg`;
writeFileSync(file, render(all));
console.log(`wrote ${file} (${all.map((r) => r.runtime.name).join(", ")})`);
