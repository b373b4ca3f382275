/**
 * Where the benchmark runs: runtime name and version, CPU, and the
 * measuring budget chosen by environment variables.
 *
 *   BENCH_QUICK=1       ~20 s smoke run per runtime (one pass of short rounds)
 *   BENCH_PASSES=N      passes over all rows (default 2; quick 1)
 *   BENCH_ROUNDS=N      timed rounds per row, size and pass (default 3)
 *   BENCH_ROUND_MS=N    length of one round in ms (default 30; quick 15)
 *   BENCH_BACKENDS=a,b  only these tgcrypto-ffi backends (default: all available)
 */

import { readFileSync } from "node:fs";
import os from "node:os";
import process from "node:process";

import type { TimingConfig } from "./timing.ts";

const runtimeGlobals = globalThis as {
  Bun?: { version: string };
  Deno?: { version: { deno: string; v8: string } };
};

/** "bun" or "deno" (also the results file name), with its version. */
export interface RuntimeInfo {
  readonly name: "bun" | "deno" | "node";
  readonly version: string;
  /** The JS engine: JavaScriptCore (Bun) or V8 (Deno, Node). */
  readonly engine: string;
}

export function runtimeInfo(): RuntimeInfo {
  if (runtimeGlobals.Bun !== undefined) {
    return { name: "bun", version: runtimeGlobals.Bun.version, engine: "JavaScriptCore" };
  }
  if (runtimeGlobals.Deno !== undefined) {
    const v = runtimeGlobals.Deno.version;
    return { name: "deno", version: v.deno, engine: `V8 ${v.v8}` };
  }
  return { name: "node", version: process.versions.node ?? "?", engine: `V8 ${process.versions.v8 ?? "?"}` };
}

/** The CPU model name (from /proc/cpuinfo on Linux, else os.cpus()). */
export function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (match) return match[1]!.trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model.trim() ?? "unknown CPU";
}

/** The AES-related CPU flags from /proc/cpuinfo (Linux x86), for the record. */
export function cpuAesFlags(): string[] {
  try {
    const match = /^flags\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (!match) return [];
    const wanted = new Set(["aes", "avx2", "avx512f", "avx512vl", "vaes", "vpclmulqdq"]);
    return match[1]!.split(/\s+/).filter((flag) => wanted.has(flag));
  } catch {
    return [];
  }
}

export function logicalCpus(): number {
  return os.cpus().length;
}

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return value;
}

export function isQuick(): boolean {
  const raw = process.env.BENCH_QUICK;
  return raw !== undefined && raw !== "" && raw !== "0";
}

/** Rounds and round length for this run. */
export function benchConfig(): TimingConfig & { readonly quick: boolean } {
  const quick = isQuick();
  return {
    quick,
    passes: Math.round(envNumber("BENCH_PASSES", quick ? 1 : 2)),
    rounds: Math.round(envNumber("BENCH_ROUNDS", 3)),
    roundMs: envNumber("BENCH_ROUND_MS", quick ? 15 : 30),
  };
}

/** BENCH_BACKENDS as a list, or undefined for "every available backend". */
export function backendFilter(): string[] | undefined {
  const raw = process.env.BENCH_BACKENDS;
  if (raw === undefined || raw.trim() === "") return undefined;
  return raw.split(",").map((name) => name.trim()).filter((name) => name !== "");
}
