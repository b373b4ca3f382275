/**
 * Where bench results go, and the shape of bench.ts's JSON.
 *
 * A bench run writes to a scratch folder, never to the committed
 * bench/results/: `$BENCH_RESULTS_DIR` when set, else .tools/bench-results/
 * (git-ignored). Only `npm run bench:write` (bench/publish.ts) copies a run
 * into bench/results/ and regenerates docs/performance.md from it.
 */

import { resolve } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

/** Environment variable naming the folder a bench run writes to. */
export const RESULTS_DIR_ENV = "BENCH_RESULTS_DIR";

/** The repository root (bench/lib/../..). */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The committed results, written only by bench/publish.ts. */
export const COMMITTED_RESULTS_DIR = resolve(REPO_ROOT, "bench/results");

/** The default scratch folder (git-ignored). */
export const SCRATCH_RESULTS_DIR = resolve(REPO_ROOT, ".tools/bench-results");

/**
 * The folder this run writes to, as a directory URL (ends in "/", so that
 * `new URL("name.json", dir)` lands inside it): `$BENCH_RESULTS_DIR`
 * (relative to the working directory) when set and not empty, else
 * .tools/bench-results/.
 */
export function resultsDirectory(
  env: Readonly<Record<string, string | undefined>> = process.env,
  cwd: string = process.cwd(),
): URL {
  const chosen = env[RESULTS_DIR_ENV];
  const dir = chosen === undefined || chosen === "" ? SCRATCH_RESULTS_DIR : resolve(cwd, chosen);
  return pathToFileURL(dir.endsWith("/") ? dir : `${dir}/`);
}

export interface Measurement {
  readonly rowId: string;
  readonly label: string;
  readonly library: string;
  readonly backend?: string;
  readonly call: string;
  readonly tables: readonly string[];
  readonly size: number;
  readonly nsPerCall: number;
  /** 10^6 bytes per second. */
  readonly mbPerSec: number;
  readonly callsPerSec: number;
  /** Calls per timed round. */
  readonly callsPerRound: number;
  /** ns per call of every timed round (all passes); nsPerCall is the minimum. */
  readonly roundNsPerCall: readonly number[];
}

export interface TargetCheck {
  readonly id: string;
  readonly description: string;
  /** The required ratio (ours / reference). */
  readonly required: number;
  readonly measured: number | null;
  readonly ours: string;
  readonly reference: string;
  readonly status: "PASS" | "MISS" | "N/A";
}

export interface BenchResults {
  readonly kind: "bench";
  readonly runtime: { name: string; version: string; engine: string };
  readonly cpu: { model: string; logicalCpus: number; aesFlags: string[] };
  readonly library: { version: string; defaultBackend: string; backends: { name: string; available: boolean }[] };
  readonly peers: Record<string, string>;
  readonly date: string;
  readonly config: { quick: boolean; passes: number; rounds: number; roundMs: number };
  readonly durationSeconds: number;
  readonly checksum: number;
  readonly measurements: readonly Measurement[];
  readonly targets: readonly TargetCheck[];
}
