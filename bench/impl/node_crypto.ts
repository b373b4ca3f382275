/**
 * node:crypto rows (BoringSSL in Bun, RustCrypto in Deno).
 *
 * Neither runtime has AES-IGE in node:crypto, so only CTR and CBC. The
 * "cipher/call" rows create a Cipher per message, as a one-shot call must
 * (it expands the key, like our one-shot functions); CBC turns padding off so
 * the output is the same length as ours. The "reused cipher" row keeps one
 * CTR Cipher and calls update() per message: the streaming counterpart of
 * CtrContext.update.
 */

import { createCipheriv, createDecipheriv } from "node:crypto";

import { type Row, SIZES, SMALL_SIZES } from "../lib/rows.ts";

const LIBRARY = "node:crypto";

export function nodeCryptoRows(): Row[] {
  return [
    {
      id: `${LIBRARY}:aes-256-ctr-cipher-per-call`,
      label: `${LIBRARY} cipher/call`,
      library: LIBRARY,
      call: "createCipheriv('aes-256-ctr', key, iv); update(data); final() per call",
      tables: ["ctr"],
      sizes: SIZES,
      prepare: ({ data, key, iv16 }) => ({
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) {
            const cipher = createCipheriv("aes-256-ctr", key, iv16);
            s ^= cipher.update(data)[0]!;
            s ^= cipher.final().length;
          }
          return s;
        },
      }),
    },
    {
      id: `${LIBRARY}:aes-256-ctr-reused-cipher`,
      label: `${LIBRARY} reused cipher`,
      library: LIBRARY,
      call: "createCipheriv('aes-256-ctr', key, iv) once; cipher.update(data) per call",
      tables: ["ctr-ctx"],
      sizes: SMALL_SIZES,
      prepare: ({ data, key, iv16 }) => {
        const cipher = createCipheriv("aes-256-ctr", key, iv16);
        return {
          run(n) {
            let s = 0;
            for (let i = 0; i < n; i++) s ^= cipher.update(data)[0]!;
            return s;
          },
        };
      },
    },
    {
      id: `${LIBRARY}:aes-256-cbc-encrypt-cipher-per-call`,
      label: `${LIBRARY} cipher/call`,
      library: LIBRARY,
      call: "createCipheriv('aes-256-cbc', key, iv).setAutoPadding(false); update(data); final() per call",
      tables: ["cbc-enc"],
      sizes: SIZES,
      prepare: ({ data, key, iv16 }) => ({
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) {
            const cipher = createCipheriv("aes-256-cbc", key, iv16).setAutoPadding(false);
            s ^= cipher.update(data)[0]!;
            s ^= cipher.final().length;
          }
          return s;
        },
      }),
    },
    {
      id: `${LIBRARY}:aes-256-cbc-decrypt-cipher-per-call`,
      label: `${LIBRARY} cipher/call`,
      library: LIBRARY,
      call: "createDecipheriv('aes-256-cbc', key, iv).setAutoPadding(false); update(data); final() per call",
      tables: ["cbc-dec"],
      sizes: SIZES,
      prepare: ({ data, key, iv16 }) => ({
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) {
            const decipher = createDecipheriv("aes-256-cbc", key, iv16).setAutoPadding(false);
            s ^= decipher.update(data)[0]!;
            s ^= decipher.final().length;
          }
          return s;
        },
      }),
    },
  ];
}
