/** The shape of the JSON written to bench/results/. */

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
