/**
 * Every AES function against node:crypto (and an ECB-based IGE reference) on random inputs, boundary sizes and large inputs.
 * Run once per backend (TGCRYPTO_BACKEND=...), under Bun and Deno.
 */
import { describe, test } from "vitest";
import { CbcContext, cbc256Decrypt, cbc256Encrypt, CtrContext, ctr256Decrypt, ctr256Encrypt, IgeContext, ige256Decrypt, ige256Encrypt } from "../../ts/mod.ts";
import { FNS, IV_LEN, runAndCheck } from "../helpers/aes_calls.ts";
import { Prng } from "../helpers/prng.ts";
import { concatBytes, expectBytes } from "../helpers/bytes.ts";
import { refCbc, refCtr, refIge } from "../helpers/reference.ts";

describe("differential against node:crypto", () => {
  function randomCounter(rng: Prng): Uint8Array {
    // A quarter near ff..ff (128-bit wrap), a quarter with the low 64 bits near
    // ff..ff, the rest random.
    const iv = rng.bytes(16);
    const r = rng.int(0, 3);
    if (r === 0) iv.fill(0xff, 0, 15), (iv[15] = 0xff - rng.int(0, 40));
    if (r === 1) iv.fill(0xff, 8, 15), (iv[15] = 0xff - rng.int(0, 40));
    return iv;
  }

  for (const fn of FNS) {
    test(`${fn.name}: random cases`, () => {
      const rng = new Prng(`differential ${fn.name}`);
      const n = fn.into ? 250 : 500;
      for (let i = 0; i < n; i++) {
        const len = fn.mode === "ctr" ? rng.pick([rng.int(1, 64), rng.int(1, 600), rng.int(1, 3000)]) : 16 * rng.pick([rng.int(1, 8), rng.int(1, 40), rng.int(1, 160)]);
        const key = rng.bytes(32);
        const iv = fn.mode === "ctr" ? randomCounter(rng) : rng.bytes(IV_LEN[fn.mode]);
        runAndCheck(fn, rng.bytes(len), key, iv, fn.mode === "ctr" ? rng.int(0, 15) : 0, `${fn.name} #${i} len ${len}`);
      }
    });
  }

  test("sizes around 16/128/256/512/1024-byte boundaries, every function", () => {
    const rng = new Prng("boundaries");
    const around = [16, 32, 48, 64, 112, 128, 144, 240, 256, 272, 496, 512, 528, 1008, 1024, 1040, 2048, 4096];
    const ctrLens = new Set<number>();
    for (let n = 1; n <= 48; n++) ctrLens.add(n);
    for (const b of around) for (const d of [-17, -16, -15, -1, 0, 1, 15, 16, 17]) if (b + d > 0) ctrLens.add(b + d);
    const blockCounts = new Set<number>();
    for (const b of around) for (const d of [-1, 0, 1]) if (b / 16 + d > 0) blockCounts.add(b / 16 + d);
    for (const fn of FNS) {
      const lens = fn.mode === "ctr" ? [...ctrLens] : [...blockCounts].map((x) => 16 * x);
      for (const len of lens) {
        const states = fn.mode === "ctr" ? [0, 1, rng.int(2, 14), 15] : [0];
        for (const st of states) {
          const iv = fn.mode === "ctr" && rng.int(0, 1) ? new Uint8Array(16).fill(0xff) : rng.bytes(IV_LEN[fn.mode]);
          runAndCheck(fn, rng.bytes(len), rng.bytes(32), iv, st, `${fn.name} len ${len} state ${st}`);
        }
      }
    }
  });

  test("large inputs (1 MiB and more, odd CTR lengths) through one-shots and contexts", () => {
    const rng = new Prng("large");
    for (const fn of FNS) {
      const len = fn.mode === "ctr" ? (1 << 20) + rng.int(1, 4095) : (1 << 20) + 16 * rng.int(1, 255);
      runAndCheck(fn, rng.bytes(len), rng.bytes(32), rng.bytes(IV_LEN[fn.mode]), fn.mode === "ctr" ? 9 : 0, `${fn.name} ${len} bytes`);
    }
    const key = rng.bytes(32);
    const iv = rng.bytes(32);
    const data = rng.bytes(3 << 20);
    const ctx = { ctr: new CtrContext(key, iv.subarray(0, 16), 13), ige: new IgeContext(key, iv), cbc: new CbcContext(key, iv.subarray(16), { decrypt: true }) };
    const parts = [(1 << 20) + 16, 16, (2 << 20) - 32];
    const outs = { ctr: [] as Uint8Array[], ige: [] as Uint8Array[], cbc: [] as Uint8Array[] };
    let o = 0;
    for (const n of parts) {
      for (const m of ["ctr", "ige", "cbc"] as const) outs[m].push(ctx[m].update(data.subarray(o, o + n)));
      o += n;
    }
    expectBytes(concatBytes(outs.ctr), refCtr(data, key, iv.subarray(0, 16), 13).out, "CtrContext 3 MiB");
    expectBytes(concatBytes(outs.ige), refIge(data, key, iv, false), "IgeContext 3 MiB");
    expectBytes(concatBytes(outs.cbc), refCbc(data, key, iv.subarray(16), true).out, "CbcContext 3 MiB");
    for (const c of Object.values(ctx)) c.dispose();
  });

  test("decrypt inverts encrypt, CTR decrypt == encrypt", () => {
    const rng = new Prng("inverse");
    for (let i = 0; i < 200; i++) {
      const key = rng.bytes(32);
      const blocks = rng.bytes(16 * rng.int(1, 20));
      const iv32 = rng.bytes(32);
      expectBytes(ige256Decrypt(ige256Encrypt(blocks, key, iv32), key, iv32), blocks, "ige");
      const iv16 = rng.bytes(16);
      expectBytes(cbc256Decrypt(cbc256Encrypt(blocks, key, iv16.slice()), key, iv16.slice()), blocks, "cbc");
      const data = rng.bytes(rng.int(1, 300));
      const st = rng.int(0, 15);
      const a = ctr256Encrypt(data, key, iv16.slice(), new Uint8Array([st]));
      const b = ctr256Decrypt(data, key, iv16.slice(), new Uint8Array([st]));
      expectBytes(a, b, "ctr enc == dec");
      expectBytes(ctr256Decrypt(a, key, iv16.slice(), new Uint8Array([st])), data, "ctr round trip");
    }
  });
});
