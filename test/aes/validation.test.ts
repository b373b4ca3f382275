/**
 * Bad input: TgCrypto's messages in TgCrypto's order, TypeErrors, nothing modified by a rejected call.
 * Run once per backend (TGCRYPTO_BACKEND=...), under Bun and Deno.
 */
import { describe, expect, test } from "vitest";
import { CbcContext, CtrContext, IgeContext } from "../../ts/mod.ts";
import { expectBytes, expectError } from "../helpers/bytes.ts";
import { type Args, type Fn, FNS, IV_LEN, ivMsg, MSG } from "../helpers/aes_calls.ts";

describe("bad input", () => {
  /** Valid arguments for `fn` (fresh arrays each time). */
  function goodArgs(fn: Fn, len = 32): Required<Args> & { data: Uint8Array; key: Uint8Array; iv: Uint8Array; state: Uint8Array; out: Uint8Array } {
    return {
      out: new Uint8Array(len + 4).fill(0x77),
      data: new Uint8Array(len).fill(0x33),
      key: new Uint8Array(32).fill(0x44),
      iv: new Uint8Array(IV_LEN[fn.mode]).fill(0x55),
      state: new Uint8Array([7]),
    };
  }

  /** Calls fn, expects the error, and checks no argument's bytes changed. */
  function rejects(fn: Fn, args: Args, cls: new (...a: any[]) => Error, msg: string | undefined, what: string) {
    const snap = (x: unknown) => (x instanceof Uint8Array && x.length < 1 << 20 ? new Uint8Array(x.buffer).slice() : undefined);
    const names = ["out", "data", "key", "iv", "state"] as const;
    const before = names.map((n) => snap(args[n]));
    expectError(() => fn.call(args), cls, msg, `${fn.name}: ${what}`);
    names.forEach((n, i) => {
      if (before[i]) expectBytes(new Uint8Array((args[n] as Uint8Array).buffer), before[i]!, `${fn.name}: ${what}: ${n} modified by a rejected call`);
    });
  }

  for (const fn of FNS) {
    test(`${fn.name}: size and value errors, exact messages, check order, nothing modified`, () => {
      const blockMode = fn.mode !== "ctr";
      const g = () => goodArgs(fn);
      // Empty data wins over everything else.
      rejects(fn, { ...g(), data: new Uint8Array(0) }, RangeError, MSG.empty, "empty");
      rejects(fn, { ...g(), data: new Uint8Array(0), key: new Uint8Array(1), iv: new Uint8Array(1), state: new Uint8Array([99]) }, RangeError, MSG.empty, "empty + everything bad");
      // Block-aligned length (IGE/CBC only), before the key check.
      for (const len of [1, 15, 17, 31, 33, 1000]) {
        const a = { ...g(), data: new Uint8Array(len), out: new Uint8Array(len + 16) };
        if (blockMode) {
          rejects(fn, a, RangeError, MSG.multiple, `length ${len}`);
          rejects(fn, { ...a, key: new Uint8Array(5), iv: new Uint8Array(5) }, RangeError, MSG.multiple, `length ${len} + bad key`);
        } else {
          expect(fn.call(a).length, `CTR accepts length ${len}`).toBe(len);
        }
      }
      // Key size, before the iv check.
      for (const n of [0, 1, 16, 24, 31, 33, 64]) {
        rejects(fn, { ...g(), key: new Uint8Array(n) }, RangeError, MSG.key, `key ${n}`);
        rejects(fn, { ...g(), key: new Uint8Array(n), iv: new Uint8Array(3), state: new Uint8Array(2) }, RangeError, MSG.key, `key ${n} + bad iv`);
      }
      // IV size, before the state checks.
      const badIvs = fn.mode === "ige" ? [0, 15, 16, 31, 33, 48, 64] : [0, 8, 15, 17, 32];
      for (const n of badIvs) {
        rejects(fn, { ...g(), iv: new Uint8Array(n) }, RangeError, ivMsg(fn.mode), `iv ${n}`);
        rejects(fn, { ...g(), iv: new Uint8Array(n), state: new Uint8Array([200, 0]) }, RangeError, ivMsg(fn.mode), `iv ${n} + bad state`);
      }
      if (fn.mode === "ctr") {
        rejects(fn, { ...g(), state: new Uint8Array(0) }, RangeError, MSG.stateSize, "state length 0");
        rejects(fn, { ...g(), state: new Uint8Array([0, 0]) }, RangeError, MSG.stateSize, "state length 2");
        rejects(fn, { ...g(), state: new Uint8Array([16, 0]) }, RangeError, MSG.stateSize, "state length 2, value 16");
        rejects(fn, { ...g(), state: new Uint8Array(16) }, RangeError, MSG.stateSize, "state length 16");
        for (const v of [16, 17, 128, 255]) rejects(fn, { ...g(), state: new Uint8Array([v]) }, RangeError, MSG.stateValue, `state ${v}`);
        for (const v of [0, 15]) expect(fn.call({ ...g(), state: new Uint8Array([v]) }).length).toBe(32);
      }
      // The default arguments themselves are accepted (so each rejection above is due to its bad argument).
      expect(fn.call(g()).length).toBe(32);
      if (fn.into) {
        // Output size: need data.length bytes.
        for (const [len, outLen] of [[32, 31], [32, 16], [32, 0], [48, 47]] as const) {
          rejects(fn, { ...g(), data: new Uint8Array(len), out: new Uint8Array(outLen) }, RangeError, MSG.small(len), `out ${outLen} for ${len}`);
        }
        // Partial overlap of out and data in one buffer.
        for (const [dOff, oOff] of [[0, 16], [16, 0], [0, 1], [1, 0], [0, 31], [31, 0], [8, 24]] as const) {
          const mem = new Uint8Array(128).map((_, i) => i);
          rejects(fn, { ...g(), data: mem.subarray(dOff, dOff + 32), out: mem.subarray(oOff, oOff + 40) }, RangeError, MSG.overlap, `data@${dOff} out@${oOff}`);
        }
      }
    });

    test(`${fn.name}: TypeError for non-Uint8Array arguments, nothing modified`, () => {
      const bad: [string, unknown][] = [
        ["string", "0123456789abcdef0123456789abcdef"],
        ["number", 32],
        ["ArrayBuffer", new ArrayBuffer(32)],
        ["null", null],
        ["undefined", undefined],
        ["plain array", new Array(32).fill(0)],
        ["object", { length: 32 }],
        ["Uint16Array", new Uint16Array(16)],
        ["Int8Array", new Int8Array(32)],
        ["DataView", new DataView(new ArrayBuffer(32))],
      ];
      const positions = ["data", "key", "iv", ...(fn.mode === "ctr" ? ["state"] : []), ...(fn.into ? ["out"] : [])] as const;
      for (const pos of positions) {
        for (const [label, value] of bad) {
          // For the state, a 1-element plain array / Int8Array must be rejected too.
          const v = pos === "state" && Array.isArray(value) ? [0] : pos === "state" && value instanceof Int8Array ? new Int8Array(1) : value;
          rejects(fn, { ...goodArgs(fn), [pos]: v }, TypeError, `${pos} must be a Uint8Array`, `${pos} = ${label}`);
        }
      }
    });
  }

  test("data of 2^32 bytes: 'Data is too large' before the key check (real lazily-zeroed 4 GiB array, never written)", () => {
    // A genuine Uint8Array of 4294967296 bytes: the OS maps zero pages lazily,
    // so this costs no memory unless the library reads the data - which it
    // must not do before rejecting it. 2^32 is also the largest typed array
    // Bun allows, so it is the only over-limit length testable here.
    const huge = new Uint8Array(2 ** 32);
    for (const fn of FNS) {
      const g = goodArgs(fn);
      rejects(fn, { ...g, data: huge, out: huge }, RangeError, MSG.tooLarge, "2^32 bytes (in place)");
      rejects(fn, { ...g, data: huge, out: huge, key: new Uint8Array(3) }, RangeError, MSG.tooLarge, "2^32 bytes + bad key");
    }
    const key = new Uint8Array(32);
    const ctxs = [new CtrContext(key, new Uint8Array(16)), new IgeContext(key, new Uint8Array(32)), new CbcContext(key, new Uint8Array(16))];
    for (const c of ctxs) {
      expectError(() => c.update(huge), RangeError, MSG.tooLarge, `${c.constructor.name}.update(2^32 bytes)`);
      expectError(() => c.updateInto(huge, huge), RangeError, MSG.tooLarge, `${c.constructor.name}.updateInto(2^32 bytes)`);
      c.dispose();
    }
  });
});
