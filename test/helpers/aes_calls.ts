/**
 * The twelve AES one-shot functions as one table ({@link FNS}), their
 * reference results (node:crypto and an ECB-based IGE) and the common
 * check of one call: shared by the test/aes/ suites.
 */
import { expect } from "vitest";
import { cbc256Decrypt, cbc256DecryptInto, cbc256Encrypt, cbc256EncryptInto, ctr256Decrypt, ctr256DecryptInto, ctr256Encrypt, ctr256EncryptInto, ige256Decrypt, ige256DecryptInto, ige256Encrypt, ige256EncryptInto } from "../../ts/mod.ts";
import { expectBytes } from "./bytes.ts";
import { loadAllVectors, type Vector } from "./vectors.ts";
import { refCbc, refCtr, refIge } from "./reference.ts";

export type Mode = "ige" | "ctr" | "cbc";
export type Dir = "enc" | "dec";

export const IV_LEN: Record<Mode, number> = { ige: 32, ctr: 16, cbc: 16 };
export const MSG = {
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
export const ivMsg = (mode: Mode) => (mode === "ige" ? MSG.iv32 : MSG.iv16);

/** Arguments of one call; `state` only for CTR, `out` only for *Into. */
export interface Args {
  out?: unknown;
  data: unknown;
  key: unknown;
  iv: unknown;
  state?: unknown;
}

export interface Fn {
  name: string;
  mode: Mode;
  dir: Dir;
  into: boolean;
  call: (a: Args) => Uint8Array;
}

export const anyf = (f: unknown) => f as (...a: unknown[]) => Uint8Array;
export const FNS: Fn[] = [
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
export const ONE_SHOTS = FNS.filter((f) => !f.into);
export const INTOS = FNS.filter((f) => f.into);
export const fnFor = (mode: Mode, dir: Dir, into: boolean) => FNS.find((f) => f.mode === mode && f.dir === dir && f.into === into)!;

/** Reference result of one call: output and the iv/state the call must leave. */
export function reference(mode: Mode, dir: Dir, data: Uint8Array, key: Uint8Array, iv: Uint8Array, state = 0) {
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
export function runAndCheck(fn: Fn, data: Uint8Array, key: Uint8Array, iv: Uint8Array, state: number, what: string) {
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

export const VECTORS = loadAllVectors();
export const byMode = (m: string) => VECTORS.filter((v) => v.mode === m);
export const where = (v: Vector) => `${v.file}:${v.line}`;
