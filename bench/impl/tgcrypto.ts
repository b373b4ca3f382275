/**
 * tgcrypto-ffi rows, one set per backend (selected with setBackend() before
 * each row runs; contexts are created after the switch, so they use it too).
 *
 * The CTR and CBC calls update their IV (and CTR state) in place, as the API
 * specifies; each row works on its own copy so other rows see the original.
 */

import {
  CtrContext,
  IgeContext,
  OutputPool,
  cbc256Decrypt,
  cbc256DecryptInto,
  cbc256Encrypt,
  ctr256Encrypt,
  ctr256EncryptInto,
  ige256Decrypt,
  ige256Encrypt,
  ige256EncryptInto,
} from "../../ts/mod.ts";
import { type Buffers, OURS, type Row, SIZES, SMALL_SIZES } from "../lib/rows.ts";

export function tgcryptoRows(backend: string): Row[] {
  const name = `${OURS}/${backend}`;
  const row = (op: string, label: string, call: string, tables: Row["tables"], prepare: Row["prepare"], sizes: readonly number[] = SIZES): Row => ({
    id: `${name}:${op}`,
    label,
    library: OURS,
    backend,
    call,
    tables,
    sizes,
    prepare,
  });

  return [
    row("ige256Encrypt", name, "ige256Encrypt(data, key, iv)", ["ige-enc"], ({ data, key, iv32 }: Buffers) => ({
      run(n) {
        let s = 0;
        for (let i = 0; i < n; i++) s ^= ige256Encrypt(data, key, iv32)[0]!;
        return s;
      },
    })),
    row("ige256EncryptInto", `${name} Into`, "ige256EncryptInto(out, data, key, iv)", ["ige-enc"], ({ data, out, key, iv32 }) => ({
      run(n) {
        let s = 0;
        for (let i = 0; i < n; i++) s ^= ige256EncryptInto(out, data, key, iv32)[0]!;
        return s;
      },
    })),
    row("ige256EncryptInto+pool", `${name} pool`, "ige256EncryptInto(pool.take(n), data, key, iv): a fresh output per call from an OutputPool", ["ige-enc"], ({ data, key, iv32 }) => {
      const pool = new OutputPool();
      return {
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= ige256EncryptInto(pool.take(data.length), data, key, iv32)[0]!;
          return s;
        },
      };
    }, SMALL_SIZES),
    row("ige256Decrypt", name, "ige256Decrypt(data, key, iv)", ["ige-dec"], ({ data, key, iv32 }) => ({
      run(n) {
        let s = 0;
        for (let i = 0; i < n; i++) s ^= ige256Decrypt(data, key, iv32)[0]!;
        return s;
      },
    })),
    row("IgeContext.update", `${name} ctx.update`, "new IgeContext(key, iv) once; ctx.update(data) per call", ["ige-ctx"], ({ data, key, iv32 }) => {
      const ctx = new IgeContext(key, iv32);
      return {
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= ctx.update(data)[0]!;
          return s;
        },
        dispose: () => ctx.dispose(),
      };
    }, SMALL_SIZES),
    row("ctr256Encrypt", name, "ctr256Encrypt(data, key, iv, state)", ["ctr"], ({ data, key, iv16 }) => {
      const iv = iv16.slice();
      const state = new Uint8Array(1);
      return {
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= ctr256Encrypt(data, key, iv, state)[0]!;
          return s;
        },
      };
    }),
    row("ctr256EncryptInto", `${name} Into`, "ctr256EncryptInto(out, data, key, iv, state)", ["ctr"], ({ data, out, key, iv16 }) => {
      const iv = iv16.slice();
      const state = new Uint8Array(1);
      return {
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= ctr256EncryptInto(out, data, key, iv, state)[0]!;
          return s;
        },
      };
    }),
    row("CtrContext.update", `${name} ctx.update`, "new CtrContext(key, iv) once; ctx.update(data) per call", ["ctr-ctx"], ({ data, key, iv16 }) => {
      const ctx = new CtrContext(key, iv16);
      return {
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= ctx.update(data)[0]!;
          return s;
        },
        dispose: () => ctx.dispose(),
      };
    }, SMALL_SIZES),
    row("CtrContext.updateInto+pool", `${name} ctx.updateInto+pool`, "ctx.updateInto(pool.take(n), data): a fresh output per call from an OutputPool", ["ctr-ctx"], ({ data, key, iv16 }) => {
      const ctx = new CtrContext(key, iv16);
      const pool = new OutputPool();
      return {
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= ctx.updateInto(pool.take(data.length), data)[0]!;
          return s;
        },
        dispose: () => ctx.dispose(),
      };
    }, SMALL_SIZES),
    row("cbc256Encrypt", name, "cbc256Encrypt(data, key, iv)", ["cbc-enc"], ({ data, key, iv16 }) => {
      const iv = iv16.slice();
      return {
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= cbc256Encrypt(data, key, iv)[0]!;
          return s;
        },
      };
    }),
    row("cbc256Decrypt", name, "cbc256Decrypt(data, key, iv)", ["cbc-dec"], ({ data, key, iv16 }) => {
      const iv = iv16.slice();
      return {
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= cbc256Decrypt(data, key, iv)[0]!;
          return s;
        },
      };
    }),
    row("cbc256DecryptInto", `${name} Into`, "cbc256DecryptInto(out, data, key, iv)", ["cbc-dec"], ({ data, out, key, iv16 }) => {
      const iv = iv16.slice();
      return {
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= cbc256DecryptInto(out, data, key, iv)[0]!;
          return s;
        },
      };
    }),
  ];
}
