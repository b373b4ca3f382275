/**
 * The printed tables: one per mode, a column per size, each cell
 * "MB/s  time-per-call", and for tgcrypto-ffi rows the ratio to the fastest
 * peer (another library) measured in that table and column.
 */

import { type Measurement } from "./results.ts";
import { OURS, type Row, SIZES, TABLES, type TableId } from "./rows.ts";

export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} B`;
}

export function formatMBps(value: number): string {
  if (value < 10) return value.toFixed(2);
  if (value < 100) return value.toFixed(1);
  return value.toFixed(0);
}

export function formatTime(ns: number): string {
  if (ns < 1e3) return `${ns.toFixed(0)}ns`;
  if (ns < 1e4) return `${(ns / 1e3).toFixed(2)}µs`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(1)}µs`;
  return `${(ns / 1e6).toFixed(2)}ms`;
}

export function formatRatio(ratio: number): string {
  return ratio >= 10 ? `${ratio.toFixed(0)}x` : `${ratio.toFixed(1)}x`;
}

/** Index of measurements by row id and size. */
export class ResultIndex {
  readonly #byKey = new Map<string, Measurement>();

  constructor(measurements: readonly Measurement[]) {
    for (const m of measurements) this.#byKey.set(`${m.rowId}@${m.size}`, m);
  }

  get(rowId: string, size: number): Measurement | undefined {
    return this.#byKey.get(`${rowId}@${size}`);
  }

  /** The fastest non-tgcrypto-ffi row of `table` at `size`. */
  bestPeer(rows: readonly Row[], table: TableId, size: number): Measurement | undefined {
    let best: Measurement | undefined;
    for (const row of rows) {
      if (row.library === OURS || !row.tables.includes(table)) continue;
      const m = this.get(row.id, size);
      if (m && (!best || m.mbPerSec > best.mbPerSec)) best = m;
    }
    return best;
  }
}

const LABEL_WIDTH = 34;
const CELL_WIDTH = 22;

function cell(m: Measurement | undefined, ratio: number | undefined): string {
  if (!m) return "—".padStart(CELL_WIDTH);
  const text = `${formatMBps(m.mbPerSec).padStart(7)} ${formatTime(m.nsPerCall).padStart(7)}`;
  return (ratio === undefined ? text : `${text} ${formatRatio(ratio).padStart(5)}`).padStart(CELL_WIDTH);
}

/** All tables as text lines. */
export function renderTables(rows: readonly Row[], index: ResultIndex): string[] {
  const lines: string[] = [];
  const header = "".padEnd(LABEL_WIDTH) + SIZES.map((size) => formatSize(size).padStart(CELL_WIDTH)).join("");
  for (const table of TABLES) {
    const tableRows = rows.filter((row) => row.tables.includes(table.id));
    if (tableRows.length === 0) continue;
    lines.push("", `== ${table.id}: ${table.title}`, header);
    for (const row of tableRows) {
      let text = row.label.padEnd(LABEL_WIDTH);
      for (const size of SIZES) {
        const m = index.get(row.id, size);
        let ratio: number | undefined;
        if (m && row.library === OURS) {
          const peer = index.bestPeer(rows, table.id, size);
          if (peer) ratio = m.mbPerSec / peer.mbPerSec;
        }
        text += cell(m, ratio);
      }
      lines.push(text);
    }
  }
  lines.push(
    "",
    "cells: MB/s (10^6 B/s), time per call; for tgcrypto-ffi rows, the ratio to the fastest other library in the same table and column.",
    "ctx.update rows are small-message rows (16 B .. 1 KiB); '—' = not measured / no such API.",
  );
  return lines;
}

/** What each row label calls (tgcrypto-ffi rows once, for the first backend). */
export function renderCalls(rows: readonly Row[]): string[] {
  const firstBackend = rows.find((row) => row.backend !== undefined)?.backend;
  const lines = ["", "== what each row calls (the same for every tgcrypto-ffi backend)"];
  const seen = new Set<string>();
  for (const row of rows) {
    if (row.backend !== undefined && row.backend !== firstBackend) continue;
    const label = row.backend !== undefined ? row.label.replace(`/${row.backend}`, "/<backend>") : row.label;
    const key = `${label}|${row.call}`;
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(`${label.padEnd(LABEL_WIDTH)} ${row.call}`);
  }
  return lines;
}
