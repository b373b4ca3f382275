/**
 * The mtcute adapter against @mtcute/wasm, the implementation mtcute itself
 * runs: same bytes for mtcute's call patterns (per-message IGE on subarrays,
 * CTR streamed in TCP-sized chunks), plus the adapter's own contract.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import * as wasm from "@mtcute/wasm";
import { beforeAll, describe, expect, test } from "vitest";

import { mtcute } from "../ts/mod.ts";
import { Prng } from "./helpers/prng.ts";

beforeAll(() => {
  wasm.initSync(readFileSync(fileURLToPath(wasm.getWasmUrl())));
});

describe("mtcute adapter", () => {
  test("createAesIge matches @mtcute/wasm, statelessly, on subarrays", () => {
    const rng = new Prng("mtcute-ige");
    for (let i = 0; i < 300; i++) {
      const key = rng.bytes(32), iv = rng.bytes(32);
      const scheme = mtcute.createAesIge(key, iv);
      const framed = rng.bytes(24 + 16 * rng.int(1, 40)); // auth-key id + msg key, then the body
      const body = framed.subarray(24);
      const encrypted = scheme.encrypt(body);
      expect(encrypted).toEqual(wasm.ige256Encrypt(body, key, iv));
      expect(scheme.encrypt(body)).toEqual(encrypted); // no state carried between calls
      expect(scheme.decrypt(encrypted)).toEqual(body.slice());
      expect(wasm.ige256Decrypt(encrypted, key, iv)).toEqual(body.slice());
    }
  });

  test("createAesIge keeps its own copy of key and iv", () => {
    const key = new Uint8Array(32).fill(1), iv = new Uint8Array(32).fill(2);
    const scheme = mtcute.createAesIge(key, iv);
    const expected = wasm.ige256Encrypt(new Uint8Array(32), key.slice(), iv.slice());
    key.fill(9), iv.fill(9);
    expect(scheme.encrypt(new Uint8Array(32))).toEqual(expected);
  });

  test("createAesCtr streams like @mtcute/wasm's ctr256 over random chunks", () => {
    const rng = new Prng("mtcute-ctr");
    for (let i = 0; i < 50; i++) {
      const key = rng.bytes(32), iv = rng.bytes(16);
      const ours = mtcute.createAesCtr(key, iv, true);
      const theirs = wasm.createCtr256(key, iv);
      for (let chunk = 0; chunk < 20; chunk++) {
        const data = rng.bytes(rng.int(1, 600));
        expect(ours.process(data)).toEqual(wasm.ctr256(theirs, data));
      }
      ours.close();
      wasm.freeCtr256(theirs);
      expect(() => ours.process(new Uint8Array(1))).toThrow(/disposed/);
    }
  });
});
