/**
 * The timing helper shared by every benchmark row.
 *
 * A row supplies `run(n)`: a loop of `n` calls written out in the row itself
 * (so each loop stays monomorphic) that folds one byte of every result into
 * the number it returns. That number goes into {@link sink}, so no engine can
 * drop a call as dead code.
 *
 * Method: {@link calibrate} grows `n` until one loop takes a quarter of a
 * round (this doubles as JIT warm-up) and sizes `n` to fill one round;
 * {@link timeRounds} runs one untimed round, then the timed ones. The caller
 * repeats timeRounds in several passes over all rows and keeps the fastest
 * round: on a shared machine noise only ever makes a round slower, and
 * separate passes keep one burst of background load from spoiling a row.
 */

/** How long to measure; see `benchConfig()` in env.ts. */
export interface TimingConfig {
  /** Target length of one timed round, milliseconds. */
  readonly roundMs: number;
  /** Timed rounds per row, size and pass. */
  readonly rounds: number;
  /** Passes over all rows (the second one runs the rows in reverse order). */
  readonly passes: number;
}

let sinkValue = 0;

/** Folds a row's checksum into a global that is printed at the end. */
export function sink(value: number): void {
  sinkValue = (sinkValue * 31 + (value | 0)) | 0;
}

/** The folded checksum of everything measured so far. */
export function sinkChecksum(): number {
  return sinkValue;
}

/** Warms `run` up and returns how many calls fill a round of `roundMs`. */
export function calibrate(run: (n: number) => number, roundMs: number): number {
  let n = 1;
  let elapsed = 0;
  for (;;) {
    const start = performance.now();
    sink(run(n));
    elapsed = performance.now() - start;
    if (elapsed >= roundMs / 4 || n >= 2 ** 30) break;
    n *= 2;
  }
  return Math.max(1, Math.round((n * roundMs) / Math.max(elapsed, 1e-3)));
}

/** One untimed round, then `rounds` timed ones; returns ns per call of each. */
export function timeRounds(run: (n: number) => number, callsPerRound: number, rounds: number): number[] {
  sink(run(callsPerRound));
  const nsPerCall: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    sink(run(callsPerRound));
    nsPerCall.push(((performance.now() - start) * 1e6) / callsPerRound);
  }
  return nsPerCall;
}

/**
 * {@link calibrate} for loops that await (GramJS's message layer is async);
 * `run` may also be synchronous.
 */
export async function calibrateAsync(run: (n: number) => number | Promise<number>, roundMs: number): Promise<number> {
  let n = 1;
  for (;;) {
    const start = performance.now();
    sink(await run(n));
    const elapsed = performance.now() - start;
    if (elapsed >= roundMs / 4 || n >= 2 ** 30) return Math.max(1, Math.round((n * roundMs) / Math.max(elapsed, 1e-3)));
    n *= 2;
  }
}

/** {@link timeRounds} for loops that await: one untimed round, then the fastest ns per call of `rounds`. */
export async function fastestRoundAsync(
  run: (n: number) => number | Promise<number>,
  callsPerRound: number,
  rounds: number,
): Promise<number> {
  sink(await run(callsPerRound));
  let best = Infinity;
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    sink(await run(callsPerRound));
    best = Math.min(best, ((performance.now() - start) * 1e6) / callsPerRound);
  }
  return best;
}

/** Throughput in MB/s (10^6 bytes per second) for `bytes` per call. */
export function megabytesPerSecond(bytes: number, nsPerCall: number): number {
  return (bytes * 1e3) / nsPerCall;
}
