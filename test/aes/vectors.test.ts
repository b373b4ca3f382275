/**
 * The vector files themselves: generated.txt is what generate.mjs prints
 * today, and every case of every file agrees with node:crypto (in the runtime
 * running the suite, i.e. BoringSSL in Bun and Deno's own node:crypto, not the
 * Node/OpenSSL that generated them).
 */
import { describe, expect, test } from "vitest";
import { generateVectors } from "../vectors/generate.mjs";
import { aesEcbEncrypt, refCbc, refCtr, refIge } from "../helpers/reference.ts";
import { bytesToHex, loadVectors, parseVectors, readVectorText, VECTOR_FILES } from "../helpers/vectors.ts";

describe("vector files", () => {
  test("generated.txt is up to date with generate.mjs", () => {
    const expected = generateVectors();
    const committed = readVectorText("generated.txt");
    // Compare line by line first for a readable failure, then the whole text.
    expect(committed.split("\n")).toEqual(expected.split("\n"));
    expect(committed).toBe(expected);
  });

  test("every file parses, ends with a blank line and has the expected modes", () => {
    const modes = (f: string) => [...new Set(loadVectors(f).map((v) => v.mode))].sort();
    expect(modes("fips197.txt")).toEqual(["ecb"]);
    expect(modes("sp800_38a.txt")).toEqual(["cbc", "ctr"]);
    expect(modes("generated.txt")).toEqual(["cbc", "ctr", "ige"]);
    for (const f of VECTOR_FILES) {
      expect(readVectorText(f).endsWith("\n\n"), f).toBe(true);
      expect(readVectorText(f).startsWith("#"), f).toBe(true);
    }
    expect(loadVectors("fips197.txt")).toHaveLength(1);
    expect(loadVectors("sp800_38a.txt")).toHaveLength(7);
    expect(loadVectors("generated.txt").length).toBeGreaterThan(100);
  });

  test("the parser rejects malformed input", () => {
    const ok = "[ecb]\nkey = " + "00".repeat(32) + "\nplaintext = " + "00".repeat(16) + "\nciphertext = " + "00".repeat(16) + "\n";
    expect(parseVectors(ok)).toHaveLength(1);
    expect(parseVectors("# c\n" + ok + "\n\n" + ok)).toHaveLength(2);
    expect(() => parseVectors(ok.replace("[ecb]\n", ""))).toThrow(/before any \[mode\]/);
    expect(() => parseVectors(ok.replace("key", "kye"))).toThrow(/unknown field/);
    expect(() => parseVectors(ok.replace("= 00", "= 0A"))).toThrow(/cannot parse/);
    expect(() => parseVectors(ok.replace("= 00", "= 000"))).toThrow(/even length/);
    expect(() => parseVectors(ok + "key = 00\n")).toThrow(/duplicate/);
    expect(() => parseVectors(ok.replace("[ecb]", "[ofb]"))).toThrow(/unknown mode/);
    expect(() => parseVectors(ok.replace("[ecb]", "[ctr]"))).toThrow(/missing/);
    expect(() => parseVectors(ok.replace("ciphertext = " + "00".repeat(16), "ciphertext = 00"))).toThrow(/equal length/);
  });

  for (const file of VECTOR_FILES) {
    test(`${file}: every case agrees with node:crypto`, () => {
      const vectors = loadVectors(file);
      expect(vectors.length).toBeGreaterThan(0);
      for (const v of vectors) {
        const where = `${v.file}:${v.line}`;
        switch (v.mode) {
          case "ecb":
            expect(bytesToHex(aesEcbEncrypt(v.key, v.plaintext)), where).toBe(bytesToHex(v.ciphertext));
            break;
          case "ige":
            expect(bytesToHex(refIge(v.plaintext, v.key, v.iv!, false)), where).toBe(bytesToHex(v.ciphertext));
            expect(bytesToHex(refIge(v.ciphertext, v.key, v.iv!, true)), where).toBe(bytesToHex(v.plaintext));
            break;
          case "cbc": {
            const r = refCbc(v.plaintext, v.key, v.iv!, false);
            expect(bytesToHex(r.out), where).toBe(bytesToHex(v.ciphertext));
            expect(bytesToHex(r.ivAfter), where).toBe(bytesToHex(v.ivAfter!));
            expect(bytesToHex(refCbc(v.ciphertext, v.key, v.iv!, true).out), where).toBe(bytesToHex(v.plaintext));
            break;
          }
          case "ctr": {
            const r = refCtr(v.plaintext, v.key, v.iv!, v.state);
            expect(bytesToHex(r.out), where).toBe(bytesToHex(v.ciphertext));
            expect(bytesToHex(r.ivAfter), where).toBe(bytesToHex(v.ivAfter!));
            expect(r.stateAfter, where).toBe(v.stateAfter);
            break;
          }
        }
      }
    });
  }

  test("generated.txt covers the required sizes, states and counters", () => {
    const g = loadVectors("generated.txt");
    const blocks = (m: string) => new Set(g.filter((v) => v.mode === m).map((v) => v.plaintext.length / 16));
    for (const n of [1, 2, 3, 8, 9, 64]) expect(blocks("ige").has(n), `ige ${n} blocks`).toBe(true);
    for (const n of [1, 3, 17]) expect(blocks("cbc").has(n), `cbc ${n} blocks`).toBe(true);
    const ctr = g.filter((v) => v.mode === "ctr");
    for (const len of [1, 15, 16, 17, 100, 1000]) {
      for (const st of [0, 1, 15]) {
        const c = ctr.filter((v) => v.plaintext.length === len && v.state === st);
        expect(c.length, `ctr len ${len} state ${st}`).toBeGreaterThanOrEqual(3);
      }
    }
    // A full 128-bit wrap (iv_after < iv numerically) and a carry out of the low 64 bits.
    const big = (b: Uint8Array) => BigInt("0x" + bytesToHex(b));
    expect(ctr.some((v) => big(v.ivAfter!) < big(v.iv!))).toBe(true);
    expect(ctr.some((v) => (big(v.ivAfter!) >> 64n) !== (big(v.iv!) >> 64n) && big(v.ivAfter!) > big(v.iv!))).toBe(true);
  });
});
