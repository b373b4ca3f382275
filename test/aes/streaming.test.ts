/**
 * Streams: chained one-shots (CTR iv/state, CBC iv, IGE by hand) and CtrContext over random chunkings, across the 128-bit counter wrap.
 * Run once per backend (TGCRYPTO_BACKEND=...), under Bun and Deno.
 */
import { describe, expect, test } from "vitest";
import { CbcContext, CtrContext, ctr256Decrypt, ctr256Encrypt, IgeContext, ige256Decrypt, ige256Encrypt } from "../../ts/mod.ts";
import { Prng } from "../helpers/prng.ts";
import { addToCounter, refCbc, refCtr } from "../helpers/reference.ts";
import { concatBytes, expectBytes } from "../helpers/bytes.ts";
import { fnFor, IV_LEN, reference } from "../helpers/aes_calls.ts";

describe("streaming", () => {
  test("CTR one-shots chained through the in-place iv/state == one call (random chunkings, starts, wrap)", () => {
    const rng = new Prng("ctr chained one-shots");
    for (let i = 0; i < 300; i++) {
      const key = rng.bytes(32);
      const total = rng.int(1, 1500);
      const data = rng.bytes(total);
      const start = rng.int(0, 2) === 0 ? addToCounter(new Uint8Array(16), -rng.int(1, 50)) : rng.bytes(16); // near ff..ff or random
      const st0 = rng.int(0, 15);
      const exp = refCtr(data, key, start, st0);
      const iv = start.slice();
      const state = new Uint8Array([st0]);
      const outs: Uint8Array[] = [];
      let o = 0;
      while (o < total) {
        const n = Math.min(total - o, rng.pick([1, 2, 15, 16, 17, rng.int(1, 64), rng.int(1, 400)]));
        const f = rng.pick([ctr256Encrypt, ctr256Decrypt]);
        outs.push(f(data.subarray(o, o + n), key, iv, state));
        o += n;
        // After every call iv/state are the position of byte o of the stream.
        const pos = refCtr(data.subarray(0, o), key, start, st0);
        expectBytes(iv, pos.ivAfter, `case ${i}: iv after ${o} bytes`);
        expect(state[0], `case ${i}: state after ${o} bytes`).toBe(pos.stateAfter);
      }
      expectBytes(concatBytes(outs), exp.out, `case ${i}`);
    }
  });

  test("CtrContext over random chunkings (with empty chunks) == node:crypto; position() tracks the stream", () => {
    const rng = new Prng("ctr context chunks");
    for (let i = 0; i < 300; i++) {
      const key = rng.bytes(32);
      const total = rng.int(0, 2000);
      const data = rng.bytes(total);
      const start = rng.int(0, 2) === 0 ? addToCounter(new Uint8Array(16), -rng.int(1, 60)) : rng.bytes(16);
      const st0 = rng.int(0, 15);
      const ctx = new CtrContext(key, start, st0);
      const p0 = ctx.position();
      expectBytes(p0.iv, start, "initial position iv");
      expect(p0.state).toBe(st0);
      const outs: Uint8Array[] = [];
      let o = 0;
      const useInto = rng.int(0, 1) === 1;
      while (o < total || outs.length === 0) {
        const n = Math.min(total - o, rng.pick([0, 1, 15, 16, 17, rng.int(0, 100), rng.int(0, 700)]));
        const chunk = data.subarray(o, o + n);
        if (useInto) {
          const out = new Uint8Array(n + 2).fill(0x11);
          const r = ctx.updateInto(out, chunk);
          expect(r.length).toBe(n);
          expect(r.buffer).toBe(out.buffer);
          expect(out[n]).toBe(0x11);
          expect(out[n + 1]).toBe(0x11);
          outs.push(r.slice());
        } else {
          const r = ctx.update(chunk);
          expect(r.length).toBe(n);
          outs.push(r);
        }
        o += n;
        if (total === 0) break;
      }
      const exp = refCtr(data, key, start, st0);
      expectBytes(concatBytes(outs), exp.out, `case ${i} (total ${total}, state ${st0})`);
      const p = ctx.position();
      expectBytes(p.iv, exp.ivAfter, `case ${i}: position iv`);
      expect(p.state, `case ${i}: position state`).toBe(exp.stateAfter);
      ctx.dispose();
    }
  });

  test("CTR streams across the full 128-bit wrap ff..ff -> 00..00", () => {
    const key = new Uint8Array(32).fill(0x42);
    const start = new Uint8Array(16).fill(0xff);
    start[15] = 0xfe; // two blocks before the wrap
    const data = new Uint8Array(16 * 5).map((_, i) => i);
    const exp = refCtr(data, key, start, 3);
    expectBytes(exp.ivAfter, addToCounter(new Uint8Array(16), 3), "reference: 85 bytes from offset 3 of ff..fe end in block 00..02");
    const iv = start.slice();
    const st = new Uint8Array([3]);
    const a = ctr256Encrypt(data.subarray(0, 29), key, iv, st); // offset 3 + 29 = 32: exactly the wrap
    expectBytes(iv, new Uint8Array(16), "iv wrapped to 00..00");
    expect(st[0]).toBe(0);
    const b = ctr256Encrypt(data.subarray(29), key, iv, st);
    expectBytes(concatBytes([a, b]), exp.out);
    expectBytes(iv, exp.ivAfter);
    expect(st[0]).toBe(exp.stateAfter);
    const ctx = new CtrContext(key, start, 3);
    expectBytes(concatBytes([ctx.update(data.subarray(0, 13)), ctx.update(data.subarray(13))]), exp.out, "context");
    expectBytes(ctx.position().iv, exp.ivAfter);
    ctx.dispose();
  });

  for (const mode of ["ige", "cbc"] as const) {
    test(`${mode === "ige" ? "IgeContext" : "CbcContext"} over random block-aligned chunkings == one-shot, both directions`, () => {
      const rng = new Prng(`${mode} context chunks`);
      for (let i = 0; i < 300; i++) {
        const key = rng.bytes(32);
        const iv = rng.bytes(IV_LEN[mode]);
        const total = 16 * rng.int(1, 100);
        for (const dir of ["enc", "dec"] as const) {
          const data = rng.bytes(total);
          const oneShot = fnFor(mode, dir, false).call({ data, key, iv: iv.slice() });
          expectBytes(oneShot, reference(mode, dir, data, key, iv).out, `case ${i} ${dir} one-shot`);
          const opts = { decrypt: dir === "dec" };
          const ctx = mode === "ige" ? new IgeContext(key, iv, opts) : new CbcContext(key, iv, opts);
          const outs: Uint8Array[] = [];
          const useInto = rng.int(0, 2);
          let o = 0;
          for (const n of rng.chunks(total, 16, 12)) {
            const chunk = data.subarray(o, o + n);
            if (useInto === 0) outs.push(ctx.update(chunk));
            else if (useInto === 1) {
              const out = new Uint8Array(n);
              outs.push(ctx.updateInto(out, chunk).slice());
            } else {
              const buf = chunk.slice(); // in place
              ctx.updateInto(buf, buf);
              outs.push(buf);
            }
            if (rng.int(0, 3) === 0) expect(ctx.update(new Uint8Array(0)).length).toBe(0);
            o += n;
          }
          expectBytes(concatBytes(outs), oneShot, `case ${i} ${dir} mode ${useInto}`);
          ctx.dispose();
        }
      }
    });
  }

  test("CBC one-shots chained through the in-place iv == one call (both directions, in place too)", () => {
    const rng = new Prng("cbc chained");
    for (let i = 0; i < 200; i++) {
      const key = rng.bytes(32);
      const iv0 = rng.bytes(16);
      const total = 16 * rng.int(1, 60);
      for (const dir of ["enc", "dec"] as const) {
        const data = rng.bytes(total);
        const exp = refCbc(data, key, iv0, dir === "dec");
        const iv = iv0.slice();
        const outs: Uint8Array[] = [];
        let o = 0;
        for (const n of rng.chunks(total, 16, 6)) {
          const chunk = data.slice(o, o + n);
          if (rng.int(0, 1)) outs.push(fnFor("cbc", dir, false).call({ data: chunk, key, iv }));
          else {
            fnFor("cbc", dir, true).call({ out: chunk, data: chunk, key, iv }); // in place
            outs.push(chunk);
          }
          o += n;
        }
        expectBytes(concatBytes(outs), exp.out, `case ${i} ${dir}`);
        expectBytes(iv, exp.ivAfter, `case ${i} ${dir} iv`);
      }
    }
  });

  test("IGE one-shots chained by hand (iv = last ciphertext || last plaintext) == one call", () => {
    const rng = new Prng("ige chained");
    for (let i = 0; i < 100; i++) {
      const key = rng.bytes(32);
      const iv = rng.bytes(32);
      const pt = rng.bytes(16 * rng.int(2, 40));
      const ct = ige256Encrypt(pt, key, iv);
      const cut = 16 * rng.int(1, pt.length / 16 - 1);
      const iv2 = concatBytes([ct.subarray(cut - 16, cut), pt.subarray(cut - 16, cut)]);
      expectBytes(ige256Encrypt(pt.subarray(cut), key, iv2), ct.subarray(cut), `enc case ${i}`);
      expectBytes(ige256Decrypt(ct.subarray(cut), key, iv2), pt.subarray(cut), `dec case ${i}`);
    }
  });
});
