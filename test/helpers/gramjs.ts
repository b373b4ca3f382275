/**
 * Stock-vs-patched GramJS comparisons for the GramJS suites
 * (test/clients/gramjs*.test.ts): the patched functions as loaded, GramJS's
 * random source fed from a seeded generator, MTProtoStates and server
 * packets built from GramJS's own primitives.
 */
import { Buffer } from "node:buffer";

import { afterAll, afterEach } from "vitest";
import { installGramJS, uninstallGramJS } from "../../ts/clients/gramjs.ts";
import { gramjsModules } from "./clients.ts";
import { Prng } from "./prng.ts";

// deno-lint-ignore no-explicit-any
type Any = any;
const { telegram, Helpers, IGEModule, CTRModule, cryptoJs, Factorizator, MTProtoState, GramAuthKey, bigInt } = gramjsModules();
const { Api } = telegram;
const { Logger } = telegram.extensions;

// Every function installGramJS may replace, as loaded (before any install).
export const patchPoints: [Any, string][] = [
  [IGEModule, "IGE"],
  [CTRModule, "CTR"],
  [cryptoJs, "createCipheriv"],
  [cryptoJs, "createDecipheriv"],
  [Factorizator, "factorize"],
  [Helpers, "sha1"],
  [Helpers, "sha256"],
  [MTProtoState.prototype, "encryptMessageData"],
  [MTProtoState.prototype, "decryptMessageData"],
];
export const original = patchPoints.map(([object, key]) => object[key]);
export const stockRandom = Helpers.generateRandomBytes;

/** For a GramJS suite: stock GramJS (uninstalled, its own random source) after each test and at the end. */
export function stockGramJSAfterEachTest(): void {
  afterEach(() => {
    uninstallGramJS();
    Helpers.generateRandomBytes = stockRandom;
  });
  afterAll(() => uninstallGramJS());
}

/** Runs `fn` with GramJS's random source replaced by a PRNG seeded with `seed`. */
export async function withRandom<T>(seed: string, fn: () => T | Promise<T>): Promise<T> {
  const rng = new Prng(seed);
  Helpers.generateRandomBytes = (count: number) => Buffer.from(rng.bytes(count));
  try {
    return await fn();
  } finally {
    Helpers.generateRandomBytes = stockRandom;
  }
}

/** Runs `fn` once on stock GramJS and once patched, with the same random bytes; returns both results. */
export async function stockAndNative<T>(seed: string, fn: () => T | Promise<T>): Promise<[T, T]> {
  uninstallGramJS();
  const stock = await withRandom(seed, fn);
  installGramJS();
  const native = await withRandom(seed, fn);
  uninstallGramJS();
  return [stock, native];
}

export async function gramState(key: Uint8Array, rng: Prng, securityChecks = true): Promise<Any> {
  const authKey = new GramAuthKey();
  await authKey.setKey(Buffer.from(key));
  const state = new MTProtoState(authKey, new Logger("error"), securityChecks);
  state.salt = bigInt(Helpers.readBigIntFromBuffer(Buffer.from(rng.bytes(8)), true, true));
  return state;
}

/** The TL body of a server message: upload.file with `size` bytes (parses with GramJS's reader). */
export function fileBody(rng: Prng, size: number): Buffer {
  return new Api.upload.File({ type: new Api.storage.FileUnknown(), mtime: rng.u32() >>> 1, bytes: Buffer.from(rng.bytes(size)) })
    .getBytes();
}

let messages = 0;

/** A server's plaintext: salt, session_id (the state's), msg_id, seq_no, length, body. */
export function serverPlaintext(state: Any, rng: Prng, body: Buffer): Buffer {
  const header = Buffer.alloc(32);
  Helpers.toSignedLittleBuffer(state.salt, 8).copy(header, 0);
  Helpers.toSignedLittleBuffer(state.id, 8).copy(header, 8);
  header.writeUInt32LE(rng.u32(), 16);
  // Alternately negative and positive: GramJS reads msg_id as a signed long.
  header.writeUInt32LE(((rng.u32() >>> 1) | (++messages % 2 === 0 ? 0x80000000 : 0)) >>> 0, 20);
  header.writeInt32LE(rng.int(0, 1000) * 2 + 1, 24);
  header.writeInt32LE(body.length, 28);
  return Buffer.concat([header, body]);
}

/** A server-direction packet built from stock GramJS's own primitives (_calcKey, Helpers.sha256, IGE). */
export async function stockServerPacket(state: Any, plaintext: Buffer, padding: Buffer): Promise<Buffer> {
  const key: Buffer = state.authKey.getKey();
  const data = Buffer.concat([plaintext, padding]);
  const msgKey = (await Helpers.sha256(Buffer.concat([key.slice(96, 128), data]))).slice(8, 24);
  const { iv, key: aesKey } = await state._calcKey(key, msgKey, false);
  const keyId = Helpers.readBufferFromBigInt(state.authKey.keyId, 8);
  return Buffer.concat([keyId, msgKey, new IGEModule.IGE(aesKey, iv).encryptIge(data)]);
}

export const padLength = (length: number) => ((16 - ((length + 12) % 16)) % 16) + 12;
