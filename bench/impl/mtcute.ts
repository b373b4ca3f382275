/**
 * @mtcute/wasm rows: IGE encrypt/decrypt and CTR (the SIMD build when the
 * runtime supports WASM SIMD, as mtcute itself picks).
 *
 * mtcute has no one-shot CTR: a context is created with the key (expanding
 * it) and fed data. The one-shot CTR row therefore does createCtr256 +
 * ctr256 + freeCtr256 per call (key expansion per call, like our one-shot
 * ctr256Encrypt); the ctr-ctx row calls ctr256 on one existing context (like
 * our CtrContext.update). mtcute has no IGE context: its per-message
 * ige256Encrypt is what an mtcute client runs, so it is the peer in the
 * ige-ctx table.
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { createCtr256, ctr256, freeCtr256, getWasmUrl, ige256Decrypt, ige256Encrypt, initSync, SIMD_AVAILABLE } from "@mtcute/wasm";

import { type Row, SIZES, SMALL_SIZES } from "../lib/rows.ts";

const LIBRARY = "@mtcute/wasm";

/** Compiles and instantiates the WASM module synchronously (once). */
export function initMtcute(): { simd: boolean } {
  initSync(readFileSync(fileURLToPath(getWasmUrl())));
  return { simd: SIMD_AVAILABLE };
}

export function mtcuteRows(): Row[] {
  return [
    {
      id: `${LIBRARY}:ige256Encrypt`,
      label: LIBRARY,
      library: LIBRARY,
      call: "ige256Encrypt(data, key, iv)",
      tables: ["ige-enc", "ige-ctx"],
      sizes: SIZES,
      prepare: ({ data, key, iv32 }) => ({
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= ige256Encrypt(data, key, iv32)[0]!;
          return s;
        },
      }),
    },
    {
      id: `${LIBRARY}:ige256Decrypt`,
      label: LIBRARY,
      library: LIBRARY,
      call: "ige256Decrypt(data, key, iv)",
      tables: ["ige-dec"],
      sizes: SIZES,
      prepare: ({ data, key, iv32 }) => ({
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) s ^= ige256Decrypt(data, key, iv32)[0]!;
          return s;
        },
      }),
    },
    {
      id: `${LIBRARY}:ctr256-new-ctx-per-call`,
      label: `${LIBRARY} ctx/call`,
      library: LIBRARY,
      call: "createCtr256(key, iv); ctr256(ctx, data); freeCtr256(ctx) per call",
      tables: ["ctr"],
      sizes: SIZES,
      prepare: ({ data, key, iv16 }) => ({
        run(n) {
          let s = 0;
          for (let i = 0; i < n; i++) {
            const ctx = createCtr256(key, iv16);
            s ^= ctr256(ctx, data)[0]!;
            freeCtr256(ctx);
          }
          return s;
        },
      }),
    },
    {
      id: `${LIBRARY}:ctr256`,
      label: `${LIBRARY} ctr256(ctx)`,
      library: LIBRARY,
      call: "createCtr256(key, iv) once; ctr256(ctx, data) per call",
      tables: ["ctr-ctx"],
      sizes: SMALL_SIZES,
      prepare: ({ data, key, iv16 }) => {
        const ctx = createCtr256(key, iv16);
        return {
          run(n) {
            let s = 0;
            for (let i = 0; i < n; i++) s ^= ctr256(ctx, data)[0]!;
            return s;
          },
          dispose: () => freeCtr256(ctx),
        };
      },
    },
  ];
}
