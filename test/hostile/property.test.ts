/**
 * The hostile-input suite, generated: fast-check picks a call of
 * test/hostile/calls.ts and, for each of its byte arguments, a kind of
 * hostile value (test/hostile/views.ts) or a Uint8Array subclass with
 * random lies (length, byteLength, byteOffset, buffer); several arguments
 * are hostile at once. The check is the enumerated suite's: the TypeError
 * named for a rejected argument, or the outcome and bytes of the same call
 * on plain copies, with every guard byte intact.
 *
 * FC_SEED=<n> replays a run; FC_RUNS=<n> changes its length (default 300).
 */
import fc from "fast-check";
import { test } from "vitest";
import { CALLS } from "./calls.ts";
import { checkCase } from "./harness.ts";
import { GUARD, type Kind, KINDS, lyingSubclass } from "./views.ts";

const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
const seed = Number(env.FC_SEED ?? 0x7467_6366);
const numRuns = Number(env.FC_RUNS ?? 300);

/** A lie relative to the real value: from "none at all" to "all of it" to "past it, inside the guard". */
const lieArbitrary = fc.option(fc.integer({ min: -64, max: GUARD - 16 }), { nil: undefined });

const lyingArbitrary: fc.Arbitrary<Kind> = fc
  .record({ length: lieArbitrary, byteLength: lieArbitrary, byteOffset: lieArbitrary, buffer: fc.boolean() })
  .map(({ length, byteLength, byteOffset, buffer }) =>
    lyingSubclass(`a subclass lying by length ${length}, byteLength ${byteLength}, byteOffset ${byteOffset}, buffer ${buffer}`, {
      length: length === undefined ? undefined : (n) => Math.max(0, n + length),
      byteLength: byteLength === undefined ? undefined : (n) => Math.max(0, n + byteLength),
      byteOffset: byteOffset === undefined ? undefined : (n) => Math.max(0, n + byteOffset),
      buffer,
    })
  );

/** A kind that fast-check reports by its name. */
const named = (kind: Kind): Kind => Object.assign({ [fc.toStringMethod]: () => JSON.stringify(kind.name) }, kind);

const kindArbitrary: fc.Arbitrary<Kind> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(KINDS[0]!) }, // plain
  { weight: 3, arbitrary: fc.constantFrom(...KINDS) },
  { weight: 3, arbitrary: lyingArbitrary },
).map(named);

const caseArbitrary = fc
  .integer({ min: 0, max: CALLS.length - 1 })
  .chain((index) =>
    fc.tuple(fc.constant(index), fc.array(kindArbitrary, { minLength: CALLS[index]!.args.length, maxLength: CALLS[index]!.args.length }))
  );

test(`random hostile arguments, several at once (${numRuns} runs, seed ${seed})`, () => {
  fc.assert(
    fc.property(caseArbitrary, ([index, kinds]) => {
      const call = CALLS[index]!;
      const made = call.args.map((arg, i) => kinds[i]!.make(arg.bytes()));
      checkCase(call, made, `${call.name} with ${kinds.map((k) => k.name).join("; ")}`);
    }),
    { seed, numRuns },
  );
});
