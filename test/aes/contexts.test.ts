/**
 * CtrContext, IgeContext, CbcContext: validation, empty updates, dispose, independence.
 * Run once per backend (TGCRYPTO_BACKEND=...), under Bun and Deno.
 */
import { describe, expect, test } from "vitest";
import { CbcContext, CtrContext, ctr256Encrypt, IgeContext } from "../../ts/mod.ts";
import { MSG } from "../helpers/aes_calls.ts";
import { Prng } from "../helpers/prng.ts";
import { concatBytes, expectBytes, expectError } from "../helpers/bytes.ts";
import { refCbc, refCtr, refIge } from "../helpers/reference.ts";

describe("contexts", () => {
  const key = new Uint8Array(32).map((_, i) => i * 3);
  const iv16 = new Uint8Array(16).map((_, i) => 0xf0 + i);
  const iv32 = new Uint8Array(32).map((_, i) => 100 + i);
  const make = {
    CtrContext: () => new CtrContext(key, iv16, 4),
    IgeEnc: () => new IgeContext(key, iv32),
    IgeDec: () => new IgeContext(key, iv32, { decrypt: true }),
    CbcEnc: () => new CbcContext(key, iv16),
    CbcDec: () => new CbcContext(key, iv16, { decrypt: true }),
  };

  test("constructor validation: exact messages and TypeErrors", () => {
    for (const [name, ctor, ivLen] of [
      ["CtrContext", (k: unknown, v: unknown) => new (CtrContext as any)(k, v), 16],
      ["IgeContext", (k: unknown, v: unknown) => new (IgeContext as any)(k, v), 32],
      ["CbcContext", (k: unknown, v: unknown) => new (CbcContext as any)(k, v), 16],
    ] as const) {
      const iv = new Uint8Array(ivLen);
      for (const n of [0, 16, 31, 33]) expectError(() => ctor(new Uint8Array(n), iv), RangeError, MSG.key, `${name} key ${n}`);
      expectError(() => ctor(new Uint8Array(31), new Uint8Array(3)), RangeError, MSG.key, `${name} key before iv`);
      for (const n of [0, 15, 17, ivLen === 16 ? 32 : 16]) {
        expectError(() => ctor(new Uint8Array(32), new Uint8Array(n)), RangeError, ivLen === 16 ? MSG.iv16 : MSG.iv32, `${name} iv ${n}`);
      }
      for (const bad of ["x".repeat(32), 32, new ArrayBuffer(32), null, undefined, new Array(32).fill(0)]) {
        expectError(() => ctor(bad, iv), TypeError, "key must be a Uint8Array", `${name} key ${String(bad)}`);
        expectError(() => ctor(new Uint8Array(32), bad), TypeError, "iv must be a Uint8Array", `${name} iv ${String(bad)}`);
      }
    }
    for (const s of [16, 255, -1]) {
      expectError(() => new CtrContext(key, iv16, s), RangeError, MSG.stateValue, `CtrContext state ${s}`);
    }
    for (const s of [0, 15]) new CtrContext(key, iv16, s).dispose();
  });

  test("update(empty) returns an empty array and does not move the stream", () => {
    for (const [name, mk] of Object.entries(make)) {
      const a = mk();
      const b = mk();
      const empty = new Uint8Array(0);
      const e = a.update(empty);
      expect(e, name).toBeInstanceOf(Uint8Array);
      expect(e, `${name}: update(empty) returns a new array, not its input`).not.toBe(empty);
      expect(e.length, name).toBe(0);
      const out = new Uint8Array(4).fill(9);
      expect(a.updateInto(out, new Uint8Array(0)).length, name).toBe(0);
      expectBytes(out, new Uint8Array(4).fill(9), `${name} updateInto(empty) wrote`);
      const d = new Uint8Array(48).fill(0x21);
      expectBytes(a.update(d), b.update(d), name);
      a.dispose();
      b.dispose();
    }
  });

  test("dispose: idempotent, Symbol.dispose, and use after dispose throws", () => {
    for (const [name, mk] of Object.entries(make)) {
      for (const how of ["dispose", "symbol"] as const) {
        const c = mk();
        c.update(new Uint8Array(16));
        if (how === "dispose") c.dispose();
        else c[Symbol.dispose]();
        c.dispose();
        c[Symbol.dispose]();
        expect(() => c.update(new Uint8Array(16)), `${name} update after ${how}`).toThrow();
        expect(() => c.update(new Uint8Array(0)), `${name} update(empty) after ${how}`).toThrow();
        expect(() => c.updateInto(new Uint8Array(16), new Uint8Array(16)), `${name} updateInto after ${how}`).toThrow();
        if (c instanceof CtrContext) expect(() => c.position(), `position after ${how}`).toThrow();
      }
    }
  });

  test("a disposed context does not write into the output", () => {
    for (const [name, mk] of Object.entries(make)) {
      const c = mk();
      c.dispose();
      const out = new Uint8Array(16).fill(0x66);
      expect(() => c.updateInto(out, new Uint8Array(16))).toThrow();
      expectBytes(out, new Uint8Array(16).fill(0x66), name);
    }
  });

  test("key and iv arrays mutated after construction do not affect the context", () => {
    const rng = new Prng("mutate after ctor");
    const k = rng.bytes(32);
    const v16 = rng.bytes(16);
    const v32 = rng.bytes(32);
    const data = rng.bytes(64);
    const expCtr = refCtr(data, k, v16, 9);
    const expIge = refIge(data, k, v32, false);
    const expCbc = refCbc(data, k, v16, true).out;
    const [k1, a1, b1] = [k.slice(), v16.slice(), v32.slice()];
    const ctr = new CtrContext(k1, a1, 9);
    const ige = new IgeContext(k1, b1);
    const cbc = new CbcContext(k1, a1, { decrypt: true });
    k1.fill(0);
    a1.fill(0);
    b1.fill(0);
    expectBytes(concatBytes([ctr.update(data.subarray(0, 20)), ctr.update(data.subarray(20))]), expCtr.out, "ctr");
    expectBytes(concatBytes([ige.update(data.subarray(0, 16)), ige.update(data.subarray(16))]), expIge, "ige");
    expectBytes(cbc.update(data), expCbc, "cbc");
    // Nor does the context write back into them.
    expectBytes(k1, new Uint8Array(32), "key array left alone");
    expectBytes(a1, new Uint8Array(16), "iv array left alone");
    // position() returns copies.
    const p = ctr.position();
    expectBytes(p.iv, expCtr.ivAfter);
    p.iv.fill(1);
    expectBytes(ctr.position().iv, expCtr.ivAfter, "position() iv is a copy");
    for (const c of [ctr, ige, cbc]) c.dispose();
  });

  test("a rejected update leaves the context where it was", () => {
    const rng = new Prng("rejected update");
    const data = rng.bytes(64);
    for (const [name, mk] of Object.entries(make)) {
      const a = mk();
      const b = mk();
      const first = a.update(data.subarray(0, 16));
      if (!(a instanceof CtrContext)) {
        expectError(() => a.update(new Uint8Array(17)), RangeError, MSG.multiple, `${name} update(17)`);
        expectError(() => a.updateInto(new Uint8Array(32), new Uint8Array(17)), RangeError, MSG.multiple, `${name} updateInto(17)`);
      }
      expectError(() => a.updateInto(new Uint8Array(15), data.subarray(16, 32)), RangeError, MSG.small(16), `${name} small out`);
      const mem = data.slice();
      expectError(() => a.updateInto(mem.subarray(1, 33), mem.subarray(0, 32)), RangeError, MSG.overlap, `${name} overlap`);
      expectBytes(mem, data, `${name}: overlap rejection wrote`);
      expectError(() => a.update("abc" as any), TypeError, "data must be a Uint8Array", `${name} update(string)`);
      expectError(() => a.updateInto(new Array(16) as any, data.subarray(16, 32)), TypeError, "out must be a Uint8Array", `${name} updateInto(array)`);
      expectBytes(concatBytes([first, a.update(data.subarray(16))]), b.update(data), name);
      a.dispose();
      b.dispose();
    }
  });

  test("contexts are independent of each other and of the one-shots", () => {
    const rng = new Prng("independent");
    const k1 = rng.bytes(32);
    const k2 = rng.bytes(32);
    const v = rng.bytes(16);
    const data = rng.bytes(256);
    const c1 = new CtrContext(k1, v, 0);
    const c2 = new CtrContext(k2, v, 0);
    const o1: Uint8Array[] = [];
    const o2: Uint8Array[] = [];
    for (let i = 0; i < 256; i += 32) {
      o1.push(c1.update(data.subarray(i, i + 32)));
      ctr256Encrypt(data, k2, rng.bytes(16), new Uint8Array(1)); // unrelated one-shot in between
      o2.push(c2.update(data.subarray(i, i + 32)));
    }
    expectBytes(concatBytes(o1), refCtr(data, k1, v, 0).out);
    expectBytes(concatBytes(o2), refCtr(data, k2, v, 0).out);
    c1.dispose();
    c2.dispose();
  });

  test("many contexts created and disposed", () => {
    const key = new Uint8Array(32).fill(1);
    const iv = new Uint8Array(32).fill(2);
    const exp = refIge(new Uint8Array(32), key, iv, false);
    for (let i = 0; i < 2000; i++) {
      const c = new IgeContext(key, iv);
      if (i % 100 === 0) expectBytes(c.update(new Uint8Array(32)), exp);
      c.dispose();
    }
  });
});

describe("contexts: messages and `using`", () => {
  const key = new Uint8Array(32).fill(1);
  test("use after dispose names the class; `using` disposes at the end of the block", () => {
    const made = [
      () => new CtrContext(key, new Uint8Array(16)),
      () => new IgeContext(key, new Uint8Array(32)),
      () => new CbcContext(key, new Uint8Array(16)),
    ];
    for (const [i, name] of ["CtrContext", "IgeContext", "CbcContext"].entries()) {
      let escaped: { update(d: Uint8Array): Uint8Array; updateInto(o: Uint8Array, d: Uint8Array): Uint8Array };
      {
        using context = made[i]!();
        escaped = context;
        expect(context.update(new Uint8Array(16)).length).toBe(16);
      }
      expectError(() => escaped.update(new Uint8Array(16)), Error, `${name} has been disposed`);
      expectError(() => escaped.updateInto(new Uint8Array(16), new Uint8Array(16)), Error, `${name} has been disposed`);
    }
    const ctr = new CtrContext(key, new Uint8Array(16));
    ctr.dispose();
    expectError(() => ctr.position(), Error, "CtrContext has been disposed");
  });

  test("type errors: state, data; an IgeContext encrypts unless told to decrypt", () => {
    expectError(() => new CtrContext(key, new Uint8Array(16), "1" as never), TypeError, "state must be a number");
    using ctr = new CtrContext(key, new Uint8Array(16));
    expectError(() => ctr.update("x" as never), TypeError, "data must be a Uint8Array");
    expectError(() => ctr.updateInto(new Uint8Array(1), "x" as never), TypeError, "data must be a Uint8Array");
    const iv = new Uint8Array(32).fill(9), data = new Uint8Array(32).fill(5);
    using enc = new IgeContext(key, iv), dflt = new IgeContext(key, iv, {}), dec = new IgeContext(key, iv, { decrypt: true });
    const encrypted = enc.update(data);
    expectBytes(encrypted, refIge(data, key, iv, false));
    expectBytes(dflt.update(data), encrypted);
    expectBytes(dec.update(encrypted), data);
  });

  test("updateInto with empty data writes nothing and returns an empty view, even into an empty out", () => {
    using ctr = new CtrContext(key, new Uint8Array(16));
    expect(ctr.updateInto(new Uint8Array(0), new Uint8Array(0)).length).toBe(0);
    const out = new Uint8Array(4).fill(7);
    expect(ctr.updateInto(out, new Uint8Array(0)).length).toBe(0);
    expect(Array.from(out)).toEqual([7, 7, 7, 7]);
  });
});
