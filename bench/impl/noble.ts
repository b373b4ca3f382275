/**
 * @noble/ciphers rows: pure-JS CTR and CBC (no IGE). A noble cipher object
 * is single-use per key + nonce, so every call builds one (expanding the key,
 * like our one-shot functions). The "(dst)" rows pass noble's optional output
 * buffer: the counterpart of our Into variants.
 */

import { cbc, ctr } from "@noble/ciphers/aes.js";

import { type Row, SIZES } from "../lib/rows.ts";

const LIBRARY = "@noble/ciphers";

export function nobleRows(): Row[] {
  return [
    {
      id: `${LIBRARY}:ctr`,
      label: LIBRARY,
      library: LIBRARY,
      call: "ctr(key, iv).encrypt(data) per call",
      tables: ["ctr"],
      sizes: SIZES,
      prepare: ({ data, key, iv16 }) => ({
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= ctr(key, iv16).encrypt(data)[0]!;
          return s;
        },
      }),
    },
    {
      id: `${LIBRARY}:ctr-dst`,
      label: `${LIBRARY} (dst)`,
      library: LIBRARY,
      call: "ctr(key, iv).encrypt(data, out) per call",
      tables: ["ctr"],
      sizes: SIZES,
      prepare: ({ data, out, key, iv16 }) => ({
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= ctr(key, iv16).encrypt(data, out)[0]!;
          return s;
        },
      }),
    },
    {
      id: `${LIBRARY}:cbc-encrypt`,
      label: LIBRARY,
      library: LIBRARY,
      call: "cbc(key, iv, { disablePadding: true }).encrypt(data) per call",
      tables: ["cbc-enc"],
      sizes: SIZES,
      prepare: ({ data, key, iv16 }) => ({
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= cbc(key, iv16, { disablePadding: true }).encrypt(data)[0]!;
          return s;
        },
      }),
    },
    {
      id: `${LIBRARY}:cbc-decrypt`,
      label: LIBRARY,
      library: LIBRARY,
      call: "cbc(key, iv, { disablePadding: true }).decrypt(data) per call",
      tables: ["cbc-dec"],
      sizes: SIZES,
      prepare: ({ data, key, iv16 }) => ({
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= cbc(key, iv16, { disablePadding: true }).decrypt(data)[0]!;
          return s;
        },
      }),
    },
    {
      id: `${LIBRARY}:cbc-decrypt-dst`,
      label: `${LIBRARY} (dst)`,
      library: LIBRARY,
      call: "cbc(key, iv, { disablePadding: true }).decrypt(data, out) per call",
      tables: ["cbc-dec"],
      sizes: SIZES,
      prepare: ({ data, out, key, iv16 }) => ({
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= cbc(key, iv16, { disablePadding: true }).decrypt(data, out)[0]!;
          return s;
        },
      }),
    },
  ];
}
