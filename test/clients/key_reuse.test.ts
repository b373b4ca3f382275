/**
 * Key handling exactly as stock: a caller that changes (reuses, zeroes) its
 * key and iv buffers after constructing a cipher sees the same results from
 * the drop-in as from the stock code. Stock code differs here, and the test
 * holds each drop-in to its own stock:
 * - GramJS's IGE expands the key and iv at construction (later changes are
 *   not seen); teleproto's IGE and mtcute's createAesIge read them at every
 *   call (later changes are seen);
 * - every CTR (GramJS, teleproto, mtcute) takes them at construction.
 * Each with Buffers and with plain Uint8Arrays, where the stock code takes
 * them (GramJS's and teleproto's CTR take only Buffers).
 */
import { Buffer } from "node:buffer";
import { createRequire } from "node:module";

import { NodeCryptoProvider } from "@mtcute/node/utils.js";
import { afterAll, describe, expect, test } from "vitest";

import { installGramJS, uninstallGramJS } from "../../ts/clients/gramjs.ts";
import { createAesCtr, createAesIge } from "../../ts/clients/mtcute.ts";
import { Prng } from "../helpers/prng.ts";

const require = createRequire(import.meta.url);
// deno-lint-ignore no-explicit-any
type Any = any;

afterAll(() => uninstallGramJS());

type Kind = "Buffer" | "Uint8Array";
const kinds: Kind[] = ["Buffer", "Uint8Array"];
const make = (kind: Kind, bytes: Uint8Array) => (kind === "Buffer" ? Buffer.from(bytes) : new Uint8Array(bytes));
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** What a caller may do to its buffers after construction. */
const mutations: [string, (bytes: Uint8Array) => void][] = [
  ["zeroed", (bytes) => bytes.fill(0)],
  ["reused for the next key", (bytes) => bytes.set(new Prng(`next-${bytes.length}`).bytes(bytes.length))],
  ["one byte flipped", (bytes) => (bytes[bytes.length - 1]! ^= 0x80)],
];

/**
 * The results of `run` on a cipher built by `build` over the caller's key and iv, which are then mutated:
 * the stock and the drop-in results, each over its own copy of the same caller buffers.
 */
function afterMutation(
  kind: Kind,
  ivSize: number,
  mutate: (bytes: Uint8Array) => void,
  build: (key: Uint8Array, iv: Uint8Array) => Any,
  run: (cipher: Any) => string[],
): string[] | string {
  const rng = new Prng(`key-reuse-${kind}-${ivSize}`);
  const key = make(kind, rng.bytes(32)), iv = make(kind, rng.bytes(ivSize));
  try {
    const cipher = build(key, iv);
    mutate(key);
    mutate(iv);
    return run(cipher);
  } catch (error) {
    return `throws ${(error as Error).message}`;
  }
}

const data = Buffer.from(new Prng("key-reuse-data").bytes(96)); // whole blocks: no random padding

for (const specifier of ["telegram", "teleproto", "teleproto-latest"]) {
  const version = require(`${specifier}/package.json`).version;
  const IGEModule: Any = require(`${specifier}/crypto/IGE`);
  const CTRModule: Any = require(`${specifier}/crypto/CTR`);
  const stockIge = IGEModule.IGE, stockCtr = CTRModule.CTR;
  const seesChanges = specifier !== "telegram"; // teleproto's IGE keeps the caller's Buffers

  describe(`${specifier} ${version}: the caller's key and iv changed after construction`, () => {
    for (const kind of kinds) {
      for (const [what, mutate] of mutations) {
        test(`IGE and CTR, ${kind}, ${what}: as stock`, () => {
          uninstallGramJS();
          installGramJS({ package: specifier });
          const nativeIge = IGEModule.IGE, nativeCtr = CTRModule.CTR;
          expect(nativeIge).not.toBe(stockIge);
          const ige = (Cipher: Any) => (key: Uint8Array, iv: Uint8Array) => new Cipher(key, iv);
          // teleproto 1.229's decryptIge reads the iv with Buffer methods: a plain Uint8Array iv is its TypeError.
          const igeRun = (cipher: Any) => {
            const encrypted = cipher.encryptIge(data);
            let decrypted: string;
            try {
              decrypted = hex(cipher.decryptIge(encrypted));
            } catch (error) {
              decrypted = `throws ${(error as Error).name}`;
            }
            return [hex(encrypted), decrypted];
          };
          const stock = afterMutation(kind, 32, mutate, ige(stockIge), igeRun);
          const native = afterMutation(kind, 32, mutate, ige(nativeIge), igeRun);
          expect(typeof stock, `stock ${specifier} takes a ${kind} key`).not.toBe("string");
          if ((stock as string[])[1]!.startsWith("throws")) {
            expect(native[0]).toBe(stock[0]); // stock fails its decrypt: the encrypts agree, the native decrypt works
          } else {
            expect(native).toEqual(stock);
          }
          // The mutation is visible to stock exactly when it reads at call time.
          const untouched = afterMutation(kind, 32, () => {}, ige(stockIge), igeRun);
          expect(stock[0] !== untouched[0]).toBe(seesChanges);

          const ctr = (Cipher: Any) => (key: Uint8Array, iv: Uint8Array) => new Cipher(key, iv);
          const ctrRun = (cipher: Any) => [hex(cipher.encrypt(data.subarray(0, 33))), hex(cipher.encrypt(data.subarray(33)))];
          const stockStream = afterMutation(kind, 16, mutate, ctr(stockCtr), ctrRun);
          if (typeof stockStream === "string" && stockStream.includes("Unknown cipher")) return; // Deno: stock CTR cannot run
          expect(afterMutation(kind, 16, mutate, ctr(nativeCtr), ctrRun)).toEqual(stockStream);
          expect(stockStream).toEqual(kind === "Buffer" ? afterMutation(kind, 16, () => {}, ctr(stockCtr), ctrRun) : "throws Key and iv need to be a buffer");
        });
      }
    }
  });
}

describe("mtcute: createAesIge / createAesCtr against NodeCryptoProvider, the caller's key and iv changed after creation", () => {
  const provider: Any = new NodeCryptoProvider();
  for (const kind of kinds) {
    for (const [what, mutate] of mutations) {
      test(`${kind}, ${what}: as stock`, async () => {
        await provider.initialize();
        const igeRun = (ige: Any) => {
          const encrypted = ige.encrypt(data);
          return [hex(encrypted), hex(ige.decrypt(encrypted))];
        };
        const stock = afterMutation(kind, 32, mutate, (key, iv) => provider.createAesIge(key, iv), igeRun);
        expect(afterMutation(kind, 32, mutate, createAesIge, igeRun)).toEqual(stock);
        // NodeCryptoProvider's IGE reads the key and iv at every call: the mutation shows.
        expect(stock[0]).not.toBe(afterMutation(kind, 32, () => {}, (key, iv) => provider.createAesIge(key, iv), igeRun)[0]);

        const ctrRun = (ctr: Any) => [hex(ctr.process(data.subarray(0, 33))), hex(ctr.process(data.subarray(33)))];
        const stockCtr = afterMutation(kind, 16, mutate, (key, iv) => provider.createAesCtr(key, iv, true), ctrRun);
        expect(afterMutation(kind, 16, mutate, (key, iv) => createAesCtr(key, iv, true), ctrRun)).toEqual(stockCtr);
        // Its CTR takes them at creation: the mutation does not show.
        expect(stockCtr).toEqual(afterMutation(kind, 16, () => {}, (key, iv) => provider.createAesCtr(key, iv, true), ctrRun));
      });
    }
  }
});
