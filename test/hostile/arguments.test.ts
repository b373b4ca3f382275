/**
 * The hostile-input suite, enumerated: every kind of hostile byte argument
 * (test/hostile/views.ts) in every byte argument of every call
 * (test/hostile/calls.ts), one at a time, the others plain. Each case gives
 * the exact TypeError, or the outcome and bytes of the same call on a plain
 * copy; the guard bytes around every argument stay untouched.
 */
import { describe, expect, test } from "vitest";
import { CALLS } from "./calls.ts";
import { checkCase, runOn } from "./harness.ts";
import { KINDS, plainGuarded } from "./views.ts";

for (const call of CALLS) {
  describe(call.name, () => {
    test("plain arguments: the call succeeds (so that the cases below compare results, not two errors)", () => {
      const { outcome } = runOn(call, call.args.map((a) => plainGuarded(a.bytes())));
      expect(outcome).toHaveProperty("result");
    });
    call.args.forEach((arg, index) => {
      for (const kind of KINDS) {
        test(`${arg.name} (argument ${index}): ${kind.name}`, () => {
          const made = call.args.map((a, i) => (i === index ? kind.make(a.bytes()) : plainGuarded(a.bytes())));
          checkCase(call, made, `${call.name} ${arg.name}: ${kind.name}`);
        });
      }
    });
  });
}
