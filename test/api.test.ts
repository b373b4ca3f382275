/**
 * The TypeScript API (ts/mod.ts) in Bun and Deno, against the vector files
 * and node:crypto. Run once per backend, e.g.
 *   TGCRYPTO_BACKEND=soft ./node_modules/.bin/bun --bun ./node_modules/vitest/vitest.mjs run
 *   TGCRYPTO_BACKEND=soft ./node_modules/.bin/deno run -A ./node_modules/vitest/vitest.mjs run
 * Only the last describe block switches backends (and restores the original).
 */
import { describe, expect, test } from "vitest";
import {
  backend,
  backends,
  CbcContext,
  cbc256Decrypt,
  cbc256DecryptInto,
  cbc256Encrypt,
  cbc256EncryptInto,
  CtrContext,
  ctr256Decrypt,
  ctr256DecryptInto,
  ctr256Encrypt,
  ctr256EncryptInto,
  IgeContext,
  ige256Decrypt,
  ige256DecryptInto,
  ige256Encrypt,
  ige256EncryptInto,
  setBackend,
  TgCryptoError,
  version,
} from "../ts/mod.ts";
import { atOffset, concatBytes, equalBytes, expectBytes, expectError, hex } from "./helpers/bytes.ts";
import { Prng } from "./helpers/prng.ts";
import { addToCounter, refCbc, refCtr, refIge } from "./helpers/reference.ts";
import { loadAllVectors, loadVectors, type Vector } from "./helpers/vectors.ts";

type Mode = "ige" | "ctr" | "cbc";
type Dir = "enc" | "dec";

const IV_LEN: Record<Mode, number> = { ige: 32, ctr: 16, cbc: 16 };
const MSG = {
  empty: "Data must not be empty",
  multiple: "Data size must match a multiple of 16 bytes",
  tooLarge: "Data is too large (max 4294967295 bytes)",
  key: "Key size must be exactly 32 bytes",
  iv32: "IV size must be exactly 32 bytes",
  iv16: "IV size must be exactly 16 bytes",
  stateSize: "State size must be exactly 1 byte",
  stateValue: "State value must be in the range [0, 15]",
  overlap: "Output must not partially overlap the input",
  small: (n: number) => `Output buffer is too small (need ${n} bytes)`,
};
const ivMsg = (mode: Mode) => (mode === "ige" ? MSG.iv32 : MSG.iv16);

/** Arguments of one call; `state` only for CTR, `out` only for *Into. */
interface Args {
  out?: unknown;
  data: unknown;
  key: unknown;
  iv: unknown;
  state?: unknown;
}

interface Fn {
  name: string;
  mode: Mode;
  dir: Dir;
  into: boolean;
  call: (a: Args) => Uint8Array;
}

const anyf = (f: unknown) => f as (...a: unknown[]) => Uint8Array;
const FNS: Fn[] = [
  { name: "ige256Encrypt", mode: "ige", dir: "enc", into: false, call: (a) => anyf(ige256Encrypt)(a.data, a.key, a.iv) },
  { name: "ige256Decrypt", mode: "ige", dir: "dec", into: false, call: (a) => anyf(ige256Decrypt)(a.data, a.key, a.iv) },
  { name: "ctr256Encrypt", mode: "ctr", dir: "enc", into: false, call: (a) => anyf(ctr256Encrypt)(a.data, a.key, a.iv, a.state) },
  { name: "ctr256Decrypt", mode: "ctr", dir: "dec", into: false, call: (a) => anyf(ctr256Decrypt)(a.data, a.key, a.iv, a.state) },
  { name: "cbc256Encrypt", mode: "cbc", dir: "enc", into: false, call: (a) => anyf(cbc256Encrypt)(a.data, a.key, a.iv) },
  { name: "cbc256Decrypt", mode: "cbc", dir: "dec", into: false, call: (a) => anyf(cbc256Decrypt)(a.data, a.key, a.iv) },
  { name: "ige256EncryptInto", mode: "ige", dir: "enc", into: true, call: (a) => anyf(ige256EncryptInto)(a.out, a.data, a.key, a.iv) },
  { name: "ige256DecryptInto", mode: "ige", dir: "dec", into: true, call: (a) => anyf(ige256DecryptInto)(a.out, a.data, a.key, a.iv) },
  { name: "ctr256EncryptInto", mode: "ctr", dir: "enc", into: true, call: (a) => anyf(ctr256EncryptInto)(a.out, a.data, a.key, a.iv, a.state) },
  { name: "ctr256DecryptInto", mode: "ctr", dir: "dec", into: true, call: (a) => anyf(ctr256DecryptInto)(a.out, a.data, a.key, a.iv, a.state) },
  { name: "cbc256EncryptInto", mode: "cbc", dir: "enc", into: true, call: (a) => anyf(cbc256EncryptInto)(a.out, a.data, a.key, a.iv) },
  { name: "cbc256DecryptInto", mode: "cbc", dir: "dec", into: true, call: (a) => anyf(cbc256DecryptInto)(a.out, a.data, a.key, a.iv) },
];
const ONE_SHOTS = FNS.filter((f) => !f.into);
const INTOS = FNS.filter((f) => f.into);
const fnFor = (mode: Mode, dir: Dir, into: boolean) => FNS.find((f) => f.mode === mode && f.dir === dir && f.into === into)!;

/** Reference result of one call: output and the iv/state the call must leave. */
function reference(mode: Mode, dir: Dir, data: Uint8Array, key: Uint8Array, iv: Uint8Array, state = 0) {
  switch (mode) {
    case "ige":
      return { out: refIge(data, key, iv, dir === "dec"), ivAfter: iv.slice(), stateAfter: undefined };
    case "ctr": {
      const r = refCtr(data, key, iv, state);
      return { out: r.out, ivAfter: r.ivAfter, stateAfter: r.stateAfter };
    }
    case "cbc": {
      const r = refCbc(data, key, iv, dir === "dec");
      return { out: r.out, ivAfter: r.ivAfter, stateAfter: undefined };
    }
  }
}

/**
 * Runs `fn` on copies of the inputs (a sentinel-filled `out` that is longer
 * than needed for *Into) and checks the output, the bytes past it, the iv and
 * state left behind, and that data and key are untouched.
 */
function runAndCheck(fn: Fn, data: Uint8Array, key: Uint8Array, iv: Uint8Array, state: number, what: string) {
  const exp = reference(fn.mode, fn.dir, data, key, iv, state);
  const d = data.slice();
  const k = key.slice();
  const v = iv.slice();
  const s = new Uint8Array([state]);
  let out: Uint8Array | undefined;
  if (fn.into) out = new Uint8Array(data.length + 5).fill(0x5a);
  const r = fn.call({ out, data: d, key: k, iv: v, state: s });
  expectBytes(r, exp.out, `${what}: output`);
  if (out) {
    expect(r.buffer, `${what}: Into returns a view of out`).toBe(out.buffer);
    expect(r.byteOffset, `${what}: Into returns out.subarray(0, n)`).toBe(out.byteOffset);
    expectBytes(out.subarray(data.length), new Uint8Array(5).fill(0x5a), `${what}: bytes past data.length`);
  }
  expectBytes(d, data, `${what}: data untouched`);
  expectBytes(k, key, `${what}: key untouched`);
  expectBytes(v, exp.ivAfter, `${what}: iv after`);
  if (fn.mode === "ctr") expect(s[0], `${what}: state after`).toBe(exp.stateAfter);
  else expect(s[0], `${what}: state untouched`).toBe(state);
}

const VECTORS = loadAllVectors();
const byMode = (m: string) => VECTORS.filter((v) => v.mode === m);
const where = (v: Vector) => `${v.file}:${v.line}`;

// ---------------------------------------------------------------------------

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
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
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

// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------

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
          rejects(fn, { ...goodArgs(fn), [pos]: v }, TypeError, undefined, `${pos} = ${label}`);
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

// ---------------------------------------------------------------------------

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
        expectError(() => ctor(bad, iv), TypeError, undefined, `${name} key ${String(bad)}`);
        expectError(() => ctor(new Uint8Array(32), bad), TypeError, undefined, `${name} iv ${String(bad)}`);
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
      expectError(() => a.update("abc" as any), TypeError, undefined, `${name} update(string)`);
      expectError(() => a.updateInto(new Array(16) as any, data.subarray(16, 32)), TypeError, undefined, `${name} updateInto(array)`);
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

// ---------------------------------------------------------------------------

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
