/**
 * The library's backend controls: backend(), backends(), setBackend(), version(), and every available backend against soft.
 * Run once per backend (TGCRYPTO_BACKEND=...), under Bun and Deno.
 */
import { describe, expect, test } from "vitest";
import { backend, backends, CbcContext, cbc256Encrypt, CtrContext, IgeContext, setBackend, TgCryptoError, version } from "../../ts/mod.ts";
import { Prng } from "../helpers/prng.ts";
import { concatBytes, expectBytes, expectError } from "../helpers/bytes.ts";
import { refCbc, refCtr } from "../helpers/reference.ts";
import { type Fn, FNS, IV_LEN, reference } from "../helpers/aes_calls.ts";

describe("library", () => {
  test("backend() is an available backend and follows TGCRYPTO_BACKEND", () => {
    const list = backends();
    expect(Array.isArray(list)).toBe(true);
    expect(list.length).toBeGreaterThan(0);
    for (const b of list) {
      expect(typeof b.name).toBe("string");
      expect(b.name.length).toBeGreaterThan(0);
      expect(typeof b.available).toBe("boolean");
    }
    expect(new Set(list.map((b) => b.name)).size).toBe(list.length);
    expect(list.find((b) => b.name === "soft")?.available, "soft is always available").toBe(true);
    const current = backend();
    expect(list.filter((b) => b.available).map((b) => b.name)).toContain(current);
    const forced = process.env.TGCRYPTO_BACKEND;
    if (forced) expect(current).toBe(forced);
    else expect(current, "without TGCRYPTO_BACKEND the best available backend is used").toBe(list.find((b) => b.available)!.name);
  });

  test("version() is the package version", async () => {
    const { readFileSync } = await import("node:fs");
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(version()).toBe(pkg.version);
  });

  test("TgCryptoError is an Error class", () => {
    expect(typeof TgCryptoError).toBe("function");
    expect(TgCryptoError.prototype).toBeInstanceOf(Error);
  });

  test("setBackend rejects unknown names and keeps the current backend", () => {
    const before = backend();
    expectError(() => setBackend("no-such-backend"), TgCryptoError, undefined, "unknown backend");
    expect(backend()).toBe(before);
    // Backends compiled in but not runnable on this CPU (none on some machines).
    for (const b of backends().filter((x) => !x.available)) {
      expectError(() => setBackend(b.name), TgCryptoError, undefined, `unavailable backend ${b.name}`);
    }
    expect(backend()).toBe(before);
    const d = new Uint8Array(16);
    expectBytes(cbc256Encrypt(d, new Uint8Array(32), new Uint8Array(16)), refCbc(d, new Uint8Array(32), new Uint8Array(16), false).out);
  });
});

describe("backends", () => {
  test("every available backend agrees with soft (and soft with node:crypto), via setBackend", () => {
    const original = backend();
    const available = backends().filter((b) => b.available).map((b) => b.name);
    expect(available).toContain("soft");
    const rng = new Prng("backends");
    type Case = { fn: Fn; data: Uint8Array; key: Uint8Array; iv: Uint8Array; state: number };
    const cases: Case[] = [];
    for (const fn of FNS) {
      for (const len of [1, 15, 16, 17, 64, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 4096, 4111]) {
        const n = fn.mode === "ctr" ? len : 16 * Math.ceil(len / 16);
        const iv = fn.mode === "ctr" && len % 3 === 0 ? new Uint8Array(16).fill(0xff) : rng.bytes(IV_LEN[fn.mode]);
        cases.push({ fn, data: rng.bytes(n), key: rng.bytes(32), iv, state: fn.mode === "ctr" ? len % 16 : 0 });
      }
    }
    const run = (c: Case) => {
      const iv = c.iv.slice();
      const state = new Uint8Array([c.state]);
      const out = c.fn.into ? new Uint8Array(c.data.length) : undefined;
      const r = c.fn.call({ out, data: c.data, key: c.key, iv, state });
      return { r: r.slice(), iv, state: state[0] };
    };
    const runContexts = (c: Case) => {
      const parts = [c.data.subarray(0, c.fn.mode === "ctr" ? 7 : 16), c.data.subarray(c.fn.mode === "ctr" ? 7 : 16)];
      const ctx =
        c.fn.mode === "ctr" ? new CtrContext(c.key, c.iv, c.state)
        : c.fn.mode === "ige" ? new IgeContext(c.key, c.iv, { decrypt: c.fn.dir === "dec" })
        : new CbcContext(c.key, c.iv, { decrypt: c.fn.dir === "dec" });
      const out = concatBytes(parts.map((p) => ctx.update(p)));
      ctx.dispose();
      return out;
    };
    try {
      setBackend("soft");
      expect(backend()).toBe("soft");
      const soft = cases.map(run);
      const softCtx = cases.map(runContexts);
      cases.forEach((c, i) => {
        const exp = reference(c.fn.mode, c.fn.dir, c.data, c.key, c.iv, c.state);
        expectBytes(soft[i].r, exp.out, `soft ${c.fn.name} len ${c.data.length}`);
        expectBytes(soft[i].iv, exp.ivAfter, `soft ${c.fn.name} iv`);
      });
      // A context created under soft keeps working after a switch.
      const ctxKey = rng.bytes(32);
      const ctxIv = rng.bytes(16);
      const straddle = new CtrContext(ctxKey, ctxIv, 0);
      const first = straddle.update(new Uint8Array(100));
      for (const name of available) {
        setBackend(name);
        expect(backend()).toBe(name);
        cases.forEach((c, i) => {
          const got = run(c);
          expectBytes(got.r, soft[i].r, `${name} vs soft: ${c.fn.name} len ${c.data.length}`);
          expectBytes(got.iv, soft[i].iv, `${name} vs soft: ${c.fn.name} iv`);
          expect(got.state, `${name} vs soft: ${c.fn.name} state`).toBe(soft[i].state);
          expectBytes(runContexts(c), softCtx[i], `${name} vs soft: context for ${c.fn.name} len ${c.data.length}`);
        });
      }
      const second = straddle.update(new Uint8Array(100));
      expectBytes(concatBytes([first, second]), refCtr(new Uint8Array(200), ctxKey, ctxIv, 0).out, "context across backend switches");
      straddle.dispose();
    } finally {
      setBackend(original);
    }
    expect(backend()).toBe(original);
  });
});
