/**
 * The hostile-input suite through the drop-ins' public entry points:
 * GramJS (installGramJS: IGE, CTR, createCipheriv, the MTProtoState message
 * layer; GramJS passes Buffers) and mtcute (nativeCrypto(provider):
 * createAesIge, createAesCtr, sha1, sha256, factorizePQ; Uint8Arrays), each
 * byte argument given every kind of test/hostile/views.ts.
 *
 * Each case must leave the guard bytes around every argument untouched, and
 * its outcome must be one of: what the stock client's code does with the
 * same hostile value (the drop-in promise); for a genuine Uint8Array, what
 * the drop-in does with a plain copy of the bytes the engine says it holds
 * (the native path reads those bytes, whatever the view claims); or one of
 * the TS layer's own argument errors (a TypeError or RangeError of
 * ts/validate.ts: the drop-ins choose the native path by `instanceof` and
 * `.length`, which a hostile value can fake, and the layer then refuses
 * it), or an error of the same class as stock's (in other words). Each
 * case asserts the guards; what fits none of these is collected, and the
 * last test of the file requires that collection to be empty (it lists
 * them). The cases where the layer refused what stock handled otherwise
 * are printed at the end.
 */
import { Buffer } from "node:buffer";

import { NodeCryptoProvider } from "@mtcute/node/utils.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installGramJS, uninstallGramJS } from "../../ts/clients/gramjs.ts";
import { nativeCrypto } from "../../ts/clients/mtcute.ts";
import { gramjsModules } from "../helpers/clients.ts";
import { gramState } from "../helpers/gramjs.ts";
import { Prng } from "../helpers/prng.ts";
import type { Outcome } from "./harness.ts";
import { engineCopy, engineView, isGenuineBytes, KINDS, type Made, plainGuarded } from "./views.ts";

// deno-lint-ignore no-explicit-any
type Any = any;
const { IGEModule, CTRModule, cryptoJs } = gramjsModules();
const rng = new Prng("hostile drop-ins");
const KEY = rng.bytes(32), IV32 = rng.bytes(32), IV16 = rng.bytes(16), DATA = rng.bytes(48), PQ = new Uint8Array([0x17, 0xed, 0x48, 0x94, 0x1a, 0x08, 0xf9, 0x81]);
const AUTH_KEY = rng.bytes(256);

/** A drop-in entry point: its byte arguments and one run on stock, one on the drop-in. */
interface DropInCall {
  readonly name: string;
  readonly args: readonly Uint8Array[];
  /** As GramJS callers pass them: each argument wrapped in a Buffer over the same memory (hostile values as they are). */
  readonly buffers?: boolean;
  readonly stock: (values: unknown[]) => Promise<unknown>;
  readonly native: (values: unknown[]) => Promise<unknown>;
}

const hexOf = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
function normalize(value: unknown): unknown {
  if (isGenuineBytes(value)) return { bytes: hexOf(engineView(value)) };
  if (typeof value === "bigint") return `${value}n`;
  if (Array.isArray(value)) return value.map(normalize);
  return value;
}
async function outcomeOf(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { result: normalize(await run()) };
  } catch (error) {
    return error instanceof Error ? { error: error.constructor.name, message: error.message } : { error: typeof error, message: String(error) };
  }
}

/** A plain Uint8Array value becomes a Buffer over the same bytes (GramJS's callers pass Buffers). */
function asGiven(call: DropInCall, made: Made): unknown {
  const value = made.value;
  if (!call.buffers || made.expect !== "accept" || Object.getPrototypeOf(value) !== Uint8Array.prototype) return value;
  const view = value as Uint8Array;
  return Buffer.from(view.buffer, view.byteOffset, view.length);
}

let mtcuteStock: Any, mtcuteNative: Any;
const gram = (native: boolean, run: () => unknown) => async () => {
  if (native) installGramJS();
  else uninstallGramJS();
  try {
    return await run();
  } finally {
    uninstallGramJS();
  }
};
/** Both sides of a GramJS entry point: the same code, run with GramJS stock and with installGramJS(). */
function gramCall(name: string, args: Uint8Array[], run: (values: Any[]) => unknown): DropInCall {
  return {
    name,
    args,
    buffers: true,
    stock: (values) => gram(false, () => run(values))(),
    native: (values) => gram(true, () => run(values))(),
  };
}
function mtcuteCall(name: string, args: Uint8Array[], run: (provider: Any, values: Any[]) => unknown): DropInCall {
  return {
    name,
    args,
    stock: (values) => Promise.resolve(run(mtcuteStock, values)),
    native: (values) => Promise.resolve(run(mtcuteNative, values)),
  };
}

let state: Any;
const CALLS: DropInCall[] = [
  gramCall("GramJS new IGE(key, iv).encryptIge(data)", [KEY, IV32, DATA], ([k, v, d]) => new IGEModule.IGE(k, v).encryptIge(d)),
  gramCall("GramJS new IGE(key, iv).decryptIge(data)", [KEY, IV32, DATA], ([k, v, d]) => new IGEModule.IGE(k, v).decryptIge(d)),
  gramCall("GramJS new CTR(key, iv).encrypt(data)", [KEY, IV16, DATA], ([k, v, d]) => new CTRModule.CTR(k, v).encrypt(d)),
  gramCall("GramJS createCipheriv('AES-256-CTR', key, iv).update(data)", [KEY, IV16, DATA], ([k, v, d]) =>
    cryptoJs.createCipheriv("AES-256-CTR", k, v).update(d)),
  gramCall("GramJS MTProtoState.encryptMessageData(data)", [DATA], ([d]) => state.encryptMessageData(d).then((p: Buffer) => p.length)),
  mtcuteCall("mtcute createAesIge(key, iv).encrypt(data)", [KEY, IV32, DATA], (p, [k, v, d]) => p.createAesIge(k, v).encrypt(d)),
  mtcuteCall("mtcute createAesIge(key, iv).decrypt(data)", [KEY, IV32, DATA], (p, [k, v, d]) => p.createAesIge(k, v).decrypt(d)),
  mtcuteCall("mtcute createAesCtr(key, iv).process(data)", [KEY, IV16, DATA], (p, [k, v, d]) => p.createAesCtr(k, v, true).process(d)),
  mtcuteCall("mtcute sha256(data)", [DATA], (p, [d]) => p.sha256(d)),
  mtcuteCall("mtcute sha1(data)", [DATA], (p, [d]) => p.sha1(d)),
  mtcuteCall("mtcute factorizePQ(pq)", [PQ], async (p, [pq]) => await p.factorizePQ(pq)),
];

/** The TS layer's own argument errors (ts/validate.ts, the AES, hash, AuthKey and factorizePQ checks). */
function isLayerArgumentError(outcome: Outcome): boolean {
  if (!("error" in outcome)) return false;
  if (outcome.error === "TypeError") return /(must be a Uint8Array|is a view of a detached ArrayBuffer|must be a bigint or a Uint8Array)$/.test(outcome.message);
  return outcome.error === "RangeError" &&
    /^(Data must not be empty|Data size must match a multiple of 16 bytes|Key size must be exactly 32 bytes|IV size must be exactly (16|32) bytes|pq must be at most 8 bytes|Padding must be 12 to 1024 bytes|Plaintext plus padding must be a multiple of 16 bytes)/
      .test(outcome.message);
}
const unlikeStock: string[] = [];
/** Outcomes that are neither stock's, nor the plain copy's, nor a layer error, nor stock's class of error. */
const divergent: string[] = [];

beforeAll(async () => {
  mtcuteStock = new NodeCryptoProvider();
  mtcuteNative = nativeCrypto(new NodeCryptoProvider());
  await mtcuteStock.initialize?.();
  await mtcuteNative.initialize?.();
  state = await gramState(AUTH_KEY, new Prng("hostile drop-ins state"));
});
afterAll(() => {
  uninstallGramJS();
  if (unlikeStock.length > 0) {
    console.log(`${unlikeStock.length} hostile cases where a drop-in refuses what stock code handles otherwise:\n  ${unlikeStock.join("\n  ")}`);
  }
});

for (const call of CALLS) {
  describe(call.name, () => {
    call.args.forEach((_bytes, index) => {
      for (const kind of KINDS) {
        test(`argument ${index}: ${kind.name}`, async () => {
          const build = () => call.args.map((b, i) => (i === index ? kind.make(b) : plainGuarded(b)));
          const hostile = build();
          const native = await outcomeOf(() => call.native(hostile.map((m) => asGiven(call, m))));
          expect(hostile.every((m) => m.guardsIntact()), "guard bytes").toBe(true);
          const allowed: Outcome[] = [];
          const forStock = build();
          allowed.push(await outcomeOf(() => call.stock(forStock.map((m) => asGiven(call, m)))));
          if (hostile.every((m) => m.expect === "accept")) {
            const plain = call.args.map((b, i) => (i === index ? plainGuarded(engineCopy(kind.make(b).genuine())) : plainGuarded(b)));
            allowed.push(await outcomeOf(() => call.native(plain.map((m) => asGiven(call, m)))));
          }
          const what = `${call.name} argument ${index}: ${kind.name}`;
          if (allowed.some((a) => JSON.stringify(a) === JSON.stringify(native))) return;
          // Stock threw the same class of error (with its own wording), or the layer refused the value.
          const sameClass = "error" in native && "error" in allowed[0]! && native.error === allowed[0]!.error;
          if (!sameClass && !isLayerArgumentError(native)) {
            divergent.push(`${what}: ${JSON.stringify(native)}, stock ${JSON.stringify(allowed[0])}`);
            return;
          }
          unlikeStock.push(`${what}: ${JSON.stringify(native)} (stock: ${JSON.stringify(allowed[0])})`);
        });
      }
    });
  });
}

test("every drop-in outcome above is stock's, the plain copy's or an argument error (the list of those that are not)", () => {
  expect(divergent).toEqual([]);
});
