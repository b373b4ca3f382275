/**
 * Every vector file case through every one-shot, in place and through the contexts.
 * Run once per backend (TGCRYPTO_BACKEND=...), under Bun and Deno.
 */
import { describe, expect, test } from "vitest";
import { CbcContext, cbc256Decrypt, cbc256Encrypt, CtrContext, ctr256Encrypt, IgeContext, ige256Decrypt, ige256Encrypt } from "../../ts/mod.ts";
import { Prng } from "../helpers/prng.ts";
import { addToCounter } from "../helpers/reference.ts";
import { byMode, fnFor, type Mode, VECTORS, where } from "../helpers/aes_calls.ts";
import { concatBytes, expectBytes } from "../helpers/bytes.ts";
import { loadVectors } from "../helpers/vectors.ts";

describe("known answers", () => {
  test("the vector files hold the expected number of cases", () => {
    expect(byMode("ecb")).toHaveLength(1);
    expect(byMode("ige").length).toBeGreaterThanOrEqual(20);
    expect(byMode("ctr").length).toBeGreaterThanOrEqual(60);
    expect(byMode("cbc").length).toBeGreaterThanOrEqual(10);
  });

  test("FIPS-197 C.3 through all three modes (zero IV / counter = plaintext)", () => {
    const [v] = loadVectors("fips197.txt");
    // One IGE block with an all-zero iv, and one CBC block with a zero iv, are the raw cipher.
    expectBytes(ige256Encrypt(v.plaintext, v.key, new Uint8Array(32)), v.ciphertext, "ige enc");
    expectBytes(ige256Decrypt(v.ciphertext, v.key, new Uint8Array(32)), v.plaintext, "ige dec");
    expectBytes(cbc256Encrypt(v.plaintext, v.key, new Uint8Array(16)), v.ciphertext, "cbc enc");
    expectBytes(cbc256Decrypt(v.ciphertext, v.key, new Uint8Array(16)), v.plaintext, "cbc dec");
    // CTR keystream block for counter = plaintext is E(plaintext).
    const iv = v.plaintext.slice();
    const st = new Uint8Array(1);
    expectBytes(ctr256Encrypt(new Uint8Array(16), v.key, iv, st), v.ciphertext, "ctr keystream");
    expectBytes(iv, addToCounter(v.plaintext, 1), "ctr iv after");
    expect(st[0]).toBe(0);
  });

  for (const mode of ["ige", "ctr", "cbc"] as const) {
    for (const dir of ["enc", "dec"] as const) {
      for (const into of [false, true]) {
        const fn = fnFor(mode, dir, into);
        test(`${fn.name}: every ${mode} vector, iv/state after the call`, () => {
          const cases = byMode(mode);
          expect(cases.length).toBeGreaterThan(0);
          for (const v of cases) {
            const input = dir === "enc" ? v.plaintext : v.ciphertext;
            const expected = dir === "enc" ? v.ciphertext : v.plaintext;
            const iv = v.iv!.slice();
            const state = new Uint8Array([v.state]);
            const out = into ? new Uint8Array(input.length + 3).fill(0xee) : undefined;
            const r = fn.call({ out, data: input, key: v.key, iv, state });
            expectBytes(r, expected, `${where(v)} output`);
            if (out) expectBytes(out.subarray(input.length), new Uint8Array(3).fill(0xee), `${where(v)} past the end`);
            if (mode === "ige") expectBytes(iv, v.iv!, `${where(v)} IGE iv is not modified`);
            else expectBytes(iv, v.ivAfter!, `${where(v)} iv_after`);
            if (mode === "ctr") expect(state[0], `${where(v)} state_after`).toBe(v.stateAfter);
            else expect(state[0]).toBe(v.state);
          }
        });
      }
    }
  }

  test("every vector in place (out === data)", () => {
    for (const v of VECTORS.filter((x) => x.mode !== "ecb")) {
      const mode = v.mode as Mode;
      for (const dir of ["enc", "dec"] as const) {
        const buf = (dir === "enc" ? v.plaintext : v.ciphertext).slice();
        const iv = v.iv!.slice();
        const state = new Uint8Array([v.state]);
        const r = fnFor(mode, dir, true).call({ out: buf, data: buf, key: v.key, iv, state });
        expectBytes(buf, dir === "enc" ? v.ciphertext : v.plaintext, `${where(v)} ${dir} in place`);
        expect(r.buffer).toBe(buf.buffer);
        expect(r.length).toBe(buf.length);
        expectBytes(iv, mode === "ige" ? v.iv! : v.ivAfter!, `${where(v)} iv`);
        if (mode === "ctr") expect(state[0]).toBe(v.stateAfter);
      }
    }
  });

  test("every vector through the contexts (whole, and split at random points)", () => {
    const rng = new Prng("vectors through contexts");
    for (const v of VECTORS.filter((x) => x.mode !== "ecb")) {
      for (const dir of ["enc", "dec"] as const) {
        const input = dir === "enc" ? v.plaintext : v.ciphertext;
        const expected = dir === "enc" ? v.ciphertext : v.plaintext;
        for (const split of [false, true]) {
          const unit = v.mode === "ctr" ? 1 : 16;
          const parts = split ? rng.chunks(input.length, unit, 5) : [input.length];
          let ctx: CtrContext | IgeContext | CbcContext;
          if (v.mode === "ctr") ctx = new CtrContext(v.key, v.iv!, v.state);
          else if (v.mode === "ige") ctx = new IgeContext(v.key, v.iv!, { decrypt: dir === "dec" });
          else ctx = new CbcContext(v.key, v.iv!, { decrypt: dir === "dec" });
          const outs: Uint8Array[] = [];
          let o = 0;
          for (const n of parts) {
            outs.push(ctx.update(input.subarray(o, o + n)));
            o += n;
          }
          expectBytes(concatBytes(outs), expected, `${where(v)} ${dir} parts ${parts.join(",")}`);
          if (ctx instanceof CtrContext) {
            const p = ctx.position();
            expectBytes(p.iv, v.ivAfter!, `${where(v)} position iv`);
            expect(p.state, `${where(v)} position state`).toBe(v.stateAfter);
          }
          ctx.dispose();
        }
      }
    }
  });
});
