/**
 * The hostile-input suite, the globals: built-ins a caller replaces after
 * the library loaded (Function.prototype.call/apply/bind, Reflect.apply,
 * Array.from/isArray, globalThis.Uint8Array, Bun.allocUnsafe and
 * %TypedArray%.prototype.set/fill/subarray) change nothing in what C is
 * given: every call of test/hostile/calls.ts gives the same outcome as
 * without the patch. Outcomes are taken with the patch in place and
 * compared after it was undone (the test runner itself uses the built-ins).
 */
import { describe, expect, test } from "vitest";
import { AuthKey, ige256Encrypt } from "../../ts/mod.ts";
import { observeJoinWipes } from "../../ts/mtproto/auth_key.ts";
import { Prng } from "../helpers/prng.ts";
import { CALLS, messagePlaintext } from "./calls.ts";
import { type Outcome, runOn } from "./harness.ts";
import { plainGuarded } from "./views.ts";

// deno-lint-ignore no-explicit-any
type Any = any;
const runtime = "Bun" in globalThis ? "bun" : "Deno" in globalThis ? "deno" : "node";

/** Replaces `object[key]` by `value` for the duration of `run` (restored even when it throws). */
function patched<T>(replacements: [object, PropertyKey, unknown][], run: () => T): T {
  const saved = replacements.map(([object, key]) => [object, key, Object.getOwnPropertyDescriptor(object, key)] as const);
  for (const [object, key, value] of replacements) {
    Object.defineProperty(object, key, { value, configurable: true, writable: true });
  }
  try {
    return run();
  } finally {
    for (const [object, key, descriptor] of saved) Object.defineProperty(object, key, descriptor!);
  }
}

/** Every call on plain arguments, with `replacements` in place; returns [patched, unpatched] outcomes per call. */
function everyCallUnder(replacements: [object, PropertyKey, unknown][]): [string, Outcome, Outcome][] {
  return CALLS.map((call) => {
    const plain = () => call.args.map((a) => plainGuarded(a.bytes()));
    const patchedRun = runOn(call, plain(), (run) => patched(replacements, run));
    const reference = runOn(call, plain());
    expect(patchedRun.guardsIntact, call.name).toBe(true);
    return [call.name, patchedRun.outcome, reference.outcome];
  });
}

const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const lyingLength = function (this: unknown) {
  return 4096;
};

describe("built-ins replaced after load", () => {
  test("Function.prototype.call/apply/bind and Reflect.apply replaced by liars", () => {
    const liar = function () {
      return 4096;
    };
    const results = everyCallUnder([
      [Function.prototype, "call", liar],
      [Function.prototype, "apply", liar],
      [Function.prototype, "bind", liar],
      [Reflect, "apply", liar],
    ]);
    for (const [name, got, want] of results) expect(got, name).toEqual(want);
  });

  test("Array.from and Array.isArray replaced", () => {
    const results = everyCallUnder([
      [Array, "from", () => [new Uint8Array(1)]],
      [Array, "isArray", () => false],
    ]);
    for (const [name, got, want] of results) expect(got, name).toEqual(want);
  });

  test("globalThis.Uint8Array replaced by a constructor of 1-byte arrays", () => {
    const Original = Uint8Array;
    const OneByte = function () {
      return new Original(1);
    };
    const results = everyCallUnder([[globalThis, "Uint8Array", OneByte]]);
    for (const [name, got, want] of results) expect(got, name).toEqual(want);
  });

  test.runIf(runtime === "bun")("Bun.allocUnsafe replaced (outputs of 512 bytes and more)", () => {
    const rng = new Prng("allocUnsafe");
    const data = rng.bytes(1024), key = rng.bytes(32), iv = rng.bytes(32);
    const bun = (globalThis as Any).Bun;
    const original = bun.allocUnsafe;
    bun.allocUnsafe = () => new Uint8Array(1); // a writable, non-configurable property of Bun
    let got: Uint8Array;
    try {
      expect(bun.allocUnsafe(4).length).toBe(1);
      got = ige256Encrypt(data, key, iv);
    } finally {
      bun.allocUnsafe = original;
    }
    expect(got).toEqual(ige256Encrypt(data, key, iv));
  });

  test("%TypedArray%.prototype length getter, set, fill and subarray replaced: three parts joined, and wiped", () => {
    const rng = new Prng("join");
    using authKey = new AuthKey(rng.bytes(256));
    const plaintext = messagePlaintext(rng);
    const padding = rng.bytes(16);
    const parts = () => [plaintext.slice(0, 8), plaintext.slice(8, 40), plaintext.slice(40)];
    const wiped: boolean[] = [];
    observeJoinWipes((view) => wiped.push(Array.prototype.every.call(view, (b: number) => b === 0)));
    let got: Uint8Array;
    try {
      got = patched([
        [TypedArrayPrototype, "set", () => undefined],
        [TypedArrayPrototype, "fill", () => undefined],
        [TypedArrayPrototype, "subarray", function (this: Uint8Array) {
          return new Uint8Array(1);
        }],
      ], () => {
        const length = Object.getOwnPropertyDescriptor(TypedArrayPrototype, "length")!;
        Object.defineProperty(TypedArrayPrototype, "length", { get: lyingLength, configurable: true });
        try {
          return authKey.encryptMessage(parts(), { padding });
        } finally {
          Object.defineProperty(TypedArrayPrototype, "length", length);
        }
      });
    } finally {
      observeJoinWipes(undefined);
    }
    expect(got).toEqual(authKey.encryptMessage(plaintext, { padding }));
    expect(wiped).toEqual([true]);
  });
});
