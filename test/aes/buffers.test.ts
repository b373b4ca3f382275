/**
 * What the functions accept and return: subarrays, Buffers, shared and resizable buffers, fresh outputs, in place.
 * Run once per backend (TGCRYPTO_BACKEND=...), under Bun and Deno.
 */
import { describe, expect, test } from "vitest";
import { CbcContext, cbc256DecryptInto, CtrContext, IgeContext, ige256Encrypt, ige256EncryptInto } from "../../ts/mod.ts";
import { FNS, INTOS, IV_LEN, ONE_SHOTS, reference } from "../helpers/aes_calls.ts";
import { Prng } from "../helpers/prng.ts";
import { atOffset, expectBytes, hex } from "../helpers/bytes.ts";
import { refCbc, refCtr, refIge } from "../helpers/reference.ts";

describe("buffers", () => {
  test("subarray inputs at every byteOffset 0..15 (data, key, iv, state)", () => {
    const rng = new Prng("offsets");
    for (const fn of FNS) {
      for (let off = 0; off < 16; off++) {
        const len = fn.mode === "ctr" ? rng.int(1, 300) : 16 * rng.int(1, 20);
        const data = rng.bytes(len);
        const key = rng.bytes(32);
        const iv = rng.bytes(IV_LEN[fn.mode]);
        const st = fn.mode === "ctr" ? rng.int(0, 15) : 0;
        const exp = reference(fn.mode, fn.dir, data, key, iv, st);
        const d = atOffset(data, off);
        const k = atOffset(key, (off * 7) % 16);
        const v = atOffset(iv, (off * 3) % 16 + 1);
        const s = atOffset(new Uint8Array([st]), off + 2);
        const out = fn.into ? atOffset(new Uint8Array(len), (off * 5) % 16) : undefined;
        const r = fn.call({ out, data: d, key: k, iv: v, state: s });
        expectBytes(r, exp.out, `${fn.name} offset ${off}`);
        expectBytes(v, exp.ivAfter, `${fn.name} offset ${off} iv`);
        if (fn.mode === "ctr") expect(s[0]).toBe(exp.stateAfter);
        // Bytes around the iv/state/out views in their buffers are untouched.
        for (const view of [v, s, d, k, ...(out ? [out] : [])]) {
          const whole = new Uint8Array(view.buffer);
          expect(whole.subarray(0, view.byteOffset).every((b) => b === 0xa5), `${fn.name} before a view`).toBe(true);
          expect(whole.subarray(view.byteOffset + view.length).every((b) => b === 0xa5), `${fn.name} after a view`).toBe(true);
        }
      }
    }
  });

  test("Buffer inputs (Buffer.from, Buffer.alloc(...).subarray) for every function and context", () => {
    const rng = new Prng("buffers");
    for (const fn of FNS) {
      const len = fn.mode === "ctr" ? 37 : 48;
      const data = rng.bytes(len);
      const key = rng.bytes(32);
      const iv = rng.bytes(IV_LEN[fn.mode]);
      const exp = reference(fn.mode, fn.dir, data, key, iv, 5);
      // Buffer.from(hex) may come from the shared allocation pool (non-zero byteOffset).
      const d = Buffer.from(hex(data), "hex");
      const k = Buffer.alloc(40).subarray(3, 35);
      k.set(key);
      const v = Buffer.alloc(IV_LEN[fn.mode] + 9, 0xa5).subarray(9);
      v.set(iv);
      const s = Buffer.from([5]);
      const out = fn.into ? Buffer.alloc(len + 20, 0xa5).subarray(20) : undefined;
      const r = fn.call({ out, data: d, key: k, iv: v, state: s });
      expectBytes(r, exp.out, fn.name);
      expectBytes(v, exp.ivAfter, `${fn.name} iv`);
      if (fn.mode === "ctr") expect(s[0]).toBe(exp.stateAfter);
      if (out) expect(new Uint8Array(out.buffer, out.byteOffset - 20, 20).every((b) => b === 0xa5)).toBe(true);
    }
    const key = Buffer.from(rng.bytes(32));
    const iv = Buffer.from(rng.bytes(32));
    const data = Buffer.from(rng.bytes(64));
    const ctr = new CtrContext(key, iv.subarray(0, 16), 2);
    expectBytes(ctr.update(data), refCtr(data, key, iv.subarray(0, 16), 2).out, "CtrContext");
    const ige = new IgeContext(key, iv, { decrypt: true });
    expectBytes(ige.update(data), refIge(data, key, iv, true), "IgeContext");
    const cbc = new CbcContext(key.subarray(0), iv.subarray(16), { decrypt: false });
    const out = Buffer.alloc(70).subarray(3, 67);
    cbc.updateInto(out, data);
    expectBytes(out, refCbc(data, key, iv.subarray(16), false).out, "CbcContext");
    for (const c of [ctr, ige, cbc]) c.dispose();
  });

  test("Uint8Arrays over SharedArrayBuffer and resizable ArrayBuffer work like any other", () => {
    const rng = new Prng("backing stores");
    const shared = (b: Uint8Array) => {
      const v = new Uint8Array(new SharedArrayBuffer(b.length + 8), 3, b.length);
      v.set(b);
      return v;
    };
    const resizable = (b: Uint8Array) => {
      const v = new Uint8Array(new ArrayBuffer(b.length + 8, { maxByteLength: 4 * b.length + 64 }), 5, b.length);
      v.set(b);
      return v;
    };
    for (const wrap of [shared, resizable]) {
      for (const fn of FNS) {
        const len = fn.mode === "ctr" ? 45 : 48;
        const data = rng.bytes(len);
        const key = rng.bytes(32);
        const iv = rng.bytes(IV_LEN[fn.mode]);
        const exp = reference(fn.mode, fn.dir, data, key, iv, 6);
        const v = wrap(iv);
        const s = wrap(new Uint8Array([6]));
        const out = fn.into ? wrap(new Uint8Array(len)) : undefined;
        const r = fn.call({ out, data: wrap(data), key: wrap(key), iv: v, state: s });
        expectBytes(r.slice(), exp.out, `${wrap.name} ${fn.name}`);
        expectBytes(v.slice(), exp.ivAfter, `${wrap.name} ${fn.name} iv`);
        if (fn.mode === "ctr") expect(s[0]).toBe(exp.stateAfter);
      }
    }
  });

  test("outputs are fresh: no call shares bytes with its inputs or another call's output", () => {
    const rng = new Prng("fresh");
    const key = rng.bytes(32);
    const results: { out: Uint8Array; copy: Uint8Array }[] = [];
    const inputs: { arr: Uint8Array; copy: Uint8Array }[] = [];
    const keep = (a: Uint8Array) => inputs.push({ arr: a, copy: a.slice() });
    keep(key);
    for (let i = 0; i < 8; i++) {
      for (const fn of ONE_SHOTS) {
        const len = fn.mode === "ctr" ? rng.pick([1, 7, 16, 100]) : 16 * rng.int(1, 4);
        const data = rng.bytes(len);
        const iv = rng.bytes(IV_LEN[fn.mode]);
        keep(data);
        const out = fn.call({ data, key, iv, state: new Uint8Array([rng.int(0, 15)]) });
        results.push({ out, copy: out.slice() });
      }
    }
    const ctxs = [new CtrContext(key, rng.bytes(16), 3), new IgeContext(key, rng.bytes(32)), new CbcContext(key, rng.bytes(16), { decrypt: true })];
    for (let i = 0; i < 6; i++) {
      for (const c of ctxs) {
        const data = rng.bytes(32);
        keep(data);
        const out = c.update(data);
        results.push({ out, copy: out.slice() });
      }
    }
    for (const { out } of results) {
      expect(out.length).toBeGreaterThan(0);
      expect(out.byteLength).toBe(out.length);
    }
    // Scribble over each output in turn; nothing else may change.
    for (const target of results) {
      target.out.fill(0xcc);
      for (const r of results) if (r !== target) expectBytes(r.out, r.copy, "another output changed");
      for (const x of inputs) expectBytes(x.arr, x.copy, "an input changed");
      target.out.set(target.copy);
    }
    for (const c of ctxs) c.dispose();
  });

  /** Outputs of every allocating call (one-shots and context updates), at several sizes. */
  function manyOutputs(seed: string): Uint8Array[] {
    const rng = new Prng(seed);
    const key = rng.bytes(32);
    const outs: Uint8Array[] = [];
    const ctxs = [new CtrContext(key, rng.bytes(16), 1), new IgeContext(key, rng.bytes(32), { decrypt: true }), new CbcContext(key, rng.bytes(16))];
    for (const len of [16, 32, 48, 256, 1024, 4096, 4112, 65536]) {
      for (const fn of ONE_SHOTS) outs.push(fn.call({ data: rng.bytes(len), key, iv: rng.bytes(IV_LEN[fn.mode]), state: new Uint8Array(1) }));
      for (const c of ctxs) outs.push(c.update(rng.bytes(len)));
    }
    for (const c of ctxs) c.dispose();
    return outs;
  }

  test("an output's ArrayBuffer exposes no other call's bytes", () => {
    // Code often hands `out.buffer` on (WebCrypto digest, sockets, postMessage);
    // if outputs were carved from a shared slab, that would expose the
    // plaintexts and keystreams of other calls.
    const outs = manyOutputs("buffer exposure");
    for (const [i, out] of outs.entries()) {
      const whole = new Uint8Array(out.buffer);
      const before = whole.subarray(0, out.byteOffset);
      const after = whole.subarray(out.byteOffset + out.byteLength);
      expect(
        before.every((b) => b === 0) && after.every((b) => b === 0),
        `output #${i} (${out.length} bytes) lies at offset ${out.byteOffset} of a ${whole.length}-byte ArrayBuffer holding other data`,
      ).toBe(true);
    }
  });

  test("transferring one output's ArrayBuffer leaves every other output intact", () => {
    const outs = manyOutputs("transfer");
    const copies = outs.map((o) => o.slice());
    for (let i = 0; i < outs.length; i += 3) {
      const victim = outs[i];
      structuredClone(victim, { transfer: [victim.buffer as ArrayBuffer] });
      expect(victim.length, "the transferred output is detached").toBe(0);
      outs.forEach((o, j) => {
        if (j % 3 !== 0 || j > i) expectBytes(o, copies[j], `output #${j} after transferring output #${i}'s buffer`);
      });
    }
  });

  test("mutating an output does not change later results", () => {
    const key = new Uint8Array(32).fill(9);
    const iv = new Uint8Array(32).fill(3);
    const data = new Uint8Array(64).fill(1);
    const a = ige256Encrypt(data, key, iv);
    const copy = a.slice();
    a.fill(0);
    expectBytes(ige256Encrypt(data, key, iv), copy);
  });

  test("in place (out === data) for every *Into and every context, multi-chunk", () => {
    const rng = new Prng("in place");
    for (const fn of INTOS) {
      for (let i = 0; i < 30; i++) {
        const len = fn.mode === "ctr" ? rng.int(1, 700) : 16 * rng.int(1, 50);
        const data = rng.bytes(len);
        const key = rng.bytes(32);
        const iv = rng.bytes(IV_LEN[fn.mode]);
        const st = fn.mode === "ctr" ? rng.int(0, 15) : 0;
        const exp = reference(fn.mode, fn.dir, data, key, iv, st);
        const buf = atOffset(data, rng.int(0, 15));
        const v = iv.slice();
        const s = new Uint8Array([st]);
        const r = fn.call({ out: buf, data: buf, key, iv: v, state: s });
        expectBytes(buf, exp.out, `${fn.name} #${i}`);
        expect(r.byteOffset).toBe(buf.byteOffset);
        expect(r.length).toBe(len);
        expectBytes(v, exp.ivAfter, `${fn.name} #${i} iv (CBC decrypt: the last *input* block, overwritten by then)`);
        if (fn.mode === "ctr") expect(s[0]).toBe(exp.stateAfter);
      }
    }
    // A distinct view object over exactly the same bytes is in place too.
    const key = rng.bytes(32);
    const data = rng.bytes(64);
    const buf = data.slice();
    const alias = new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
    cbc256DecryptInto(alias, buf, key, new Uint8Array(16));
    expectBytes(buf, refCbc(data, key, new Uint8Array(16), true).out, "aliasing view");
  });

  test("non-overlapping views of one ArrayBuffer are fine", () => {
    const rng = new Prng("adjacent");
    const key = rng.bytes(32);
    const mem = rng.bytes(160);
    const data = mem.slice(0, 64);
    for (const [dOff, oOff] of [[0, 64], [64, 0], [96, 16]]) {
      const m = mem.slice();
      m.set(data, dOff);
      const r = ige256EncryptInto(m.subarray(oOff, oOff + 64), m.subarray(dOff, dOff + 64), key, new Uint8Array(32));
      expectBytes(r, refIge(data, key, new Uint8Array(32), false), `data@${dOff} out@${oOff}`);
    }
  });
});
