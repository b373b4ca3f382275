/**
 * One hostile-input case: a call of {@link CALLS} with some byte arguments
 * replaced by hostile values ({@link KINDS}), checked against the same call
 * on plain copies. Shared by the hand-enumerated and the property-based
 * suites.
 */
import { expect } from "vitest";
import type { Call } from "./calls.ts";
import { engineCopy, engineView, isGenuineBytes, type Made, plainGuarded } from "./views.ts";

/** What a call did: its result (typed arrays as hex of the engine's bytes) or its error. */
export type Outcome = { readonly result: unknown } | { readonly error: string; readonly message: string };

const hexOf = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** `value` with every genuine Uint8Array replaced by the hex of the bytes the engine says it covers. */
function normalize(value: unknown): unknown {
  if (isGenuineBytes(value)) return { bytes: hexOf(engineView(value)) };
  if (typeof value === "bigint") return `${value}n`;
  if (Array.isArray(value)) return value.map(normalize);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v)]));
  }
  return value;
}

/** Runs `call` and records what it did. */
export function outcomeOf(call: () => unknown): Outcome {
  try {
    return { result: normalize(call()) };
  } catch (error) {
    if (!(error instanceof Error)) return { error: typeof error, message: String(error) };
    return { error: error.constructor.name, message: error.message };
  }
}

/** What a call did and the state it left. */
export interface Run {
  readonly outcome: Outcome;
  /** Each argument's bytes after the call (hex). */
  readonly after: readonly string[];
  /** Whether the guards around every argument are intact. */
  readonly guardsIntact: boolean;
}

/**
 * Runs `call` on `made` arguments, their global patches (and `around`, if
 * given) in place during the call only.
 */
export function runOn(call: Call, made: readonly Made[], around?: Made["around"]): Run {
  const values = made.map((m) => m.value);
  let run = () => call.run(values);
  if (around) {
    const inner = run;
    run = () => around(inner);
  }
  for (const m of made) {
    const around = m.around;
    if (around) {
      const inner = run;
      run = () => around(inner);
    }
  }
  const outcome = outcomeOf(run);
  return {
    outcome,
    after: made.map((m) => hexOf(m.genuine())),
    guardsIntact: made.every((m) => m.guardsIntact()),
  };
}

/** The TypeErrors a non-Uint8Array argument may raise. */
export function typeErrorsOf(call: Call, index: number, value: unknown): Outcome[] {
  const arg = call.args[index]!;
  if (Array.isArray(value) && arg.arrayMessage) return [{ error: "TypeError", message: arg.arrayMessage }];
  return (arg.typeMessages ?? [`${arg.name} must be a Uint8Array`]).map((message) => ({ error: "TypeError", message }));
}

/** The TypeError a view of a detached ArrayBuffer must raise. */
export function detachedErrorOf(call: Call, index: number): Outcome {
  return { error: "TypeError", message: `${call.args[index]!.name} is a view of a detached ArrayBuffer` };
}

/**
 * Runs `call` with the arguments `made` (built from `call.args[i].bytes()`),
 * and checks it: when every argument is genuine, the outcome and the bytes
 * left equal those of the same call on plain copies of what the engine
 * says each argument holds; otherwise one of the TypeErrors named for the
 * rejected arguments, with no argument's bytes changed. The guards around
 * every argument are intact either way.
 */
export function checkCase(call: Call, made: readonly Made[], what: string): void {
  const before = made.map((m) => hexOf(m.genuine()));
  const rejected = made.flatMap((m, i) =>
    m.expect === "type" ? typeErrorsOf(call, i, m.value) : m.expect === "detached" ? [detachedErrorOf(call, i)] : []);
  // The reference: plain guarded copies, made before the hostile call can change anything.
  const reference = rejected.length === 0 ? made.map((m) => plainGuarded(engineCopy(m.genuine()))) : [];
  const hostile = runOn(call, made);
  expect(hostile.guardsIntact, `${what}: guard bytes around the arguments`).toBe(true);
  if (rejected.length > 0) {
    expect(rejected, `${what}: the error`).toContainEqual(hostile.outcome);
    expect(hostile.after, `${what}: nothing written`).toEqual(before);
    return;
  }
  const expected = runOn(call, reference);
  expect(hostile.outcome, `${what}: the outcome`).toEqual(expected.outcome);
  expect(hostile.after, `${what}: the bytes the call left`).toEqual(expected.after);
}
