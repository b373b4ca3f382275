/**
 * The real clients' own message-layer code, loaded for the differential
 * tests, with their random source stubbed so the padding is known:
 * - mtcute 0.30.3: `AuthKey` from @mtcute/core (not exported by any entry
 *   point, so imported by file), with @mtcute/node's NodeCryptoProvider;
 * - GramJS (telegram 2.26.22): `MTProtoState.encryptMessageData` /
 *   `decryptMessageData`, with telegram/crypto/AuthKey.
 */
import { createRequire } from "node:module";

import { NodeCryptoProvider } from "@mtcute/node/utils.js";
import Long from "long";
/** mtcute's AuthKey is not exported by any entry point of @mtcute/core, so it is imported by file. */
const MTCUTE_AUTH_KEY_FILE = new URL("../../node_modules/@mtcute/core/network/auth-key.js", import.meta.url).href;

const require = createRequire(import.meta.url);

/* ------------------------------------------------------------------------ */
/* mtcute                                                                   */

export interface MtcuteLong {
  low: number;
  high: number;
}

interface MtcuteReader {
  raw(bytes?: number): Uint8Array;
}

interface MtcuteAuthKey {
  setup(key: Uint8Array): void;
  id: Uint8Array;
  encryptMessage(message: Uint8Array, serverSalt: MtcuteLong, sessionId: MtcuteLong): Uint8Array;
  decryptMessage(
    data: Uint8Array,
    sessionId: MtcuteLong,
    callback: (msgId: MtcuteLong, seqNo: number, reader: MtcuteReader) => void,
  ): void;
}

export interface Mtcute {
  /** An mtcute AuthKey for `key`. */
  authKey(key: Uint8Array): MtcuteAuthKey;
  /** The bytes the next randomFill calls hand out (each call takes from the front; must be used up). */
  queuePadding(bytes: Uint8Array): void;
  pendingPadding(): number;
  /** mtcute's warnings (it logs instead of throwing on a rejected packet). */
  warnings: string[];
}

let mtcuteInstance: Mtcute | undefined;

export async function loadMtcute(): Promise<Mtcute> {
  if (mtcuteInstance) return mtcuteInstance;
  const { AuthKey: MtcuteAuthKeyClass } = await import(MTCUTE_AUTH_KEY_FILE);
  const provider = new NodeCryptoProvider();
  await provider.initialize();
  let queue = new Uint8Array(0);
  // Stub the random source: encryptMessage takes its padding from randomFill.
  (provider as unknown as { randomFill(buf: Uint8Array): void }).randomFill = (buf: Uint8Array) => {
    if (queue.length < buf.length) throw new Error("mtcute stub: no padding queued");
    buf.set(queue.subarray(0, buf.length));
    queue = queue.subarray(buf.length);
  };
  const warnings: string[] = [];
  const log = { verbose() {}, debug() {}, warn: (...a: unknown[]) => warnings.push(String(a[0])) };
  mtcuteInstance = {
    authKey(key) {
      const Class = MtcuteAuthKeyClass as unknown as new (...a: unknown[]) => MtcuteAuthKey;
      const k = new Class(provider, log, {});
      k.setup(key);
      return k;
    },
    queuePadding(bytes) {
      queue = bytes.slice();
    },
    pendingPadding: () => queue.length,
    warnings,
  };
  return mtcuteInstance;
}

/** A long.js Long (what mtcute uses) from 8 little-endian bytes. */
export function longFromLE(bytes: Uint8Array, unsigned = false): MtcuteLong {
  return Long.fromBytesLE(Array.from(bytes), unsigned);
}

/* ------------------------------------------------------------------------ */
/* GramJS                                                                   */

type BigInteger = { toString(): string; eq(other: unknown): boolean };

interface GramState {
  salt: BigInteger;
  id: BigInteger;
  encryptMessageData(data: Buffer): Promise<Buffer>;
  decryptMessageData(body: Buffer): Promise<{ msgId: BigInteger; seqNo: number; obj: { getBytes(): Buffer } }>;
}

export interface Gram {
  /** An MTProtoState over a GramJS AuthKey for `key`. */
  state(key: Uint8Array): Promise<GramState>;
  /** The bytes generateRandomBytes returns next (once, with a length check). */
  queuePadding(bytes: Uint8Array): void;
  pendingPadding(): number;
  /** unsigned little-endian bytes as a big-integer */
  bigFromLE(bytes: Uint8Array, signed?: boolean): BigInteger;
  /** Api.Pong as TL bytes (message data GramJS can parse). */
  pong(msgId: Uint8Array, pingId: Uint8Array): Uint8Array;
  /** Api.upload.File carrying `bytes` (any length), as TL bytes. */
  uploadFile(bytes: Uint8Array): Uint8Array;
  Factorizator: { factorize(pq: BigInteger): { p: BigInteger; q: BigInteger } };
  getByteArray(value: BigInteger): Buffer;
  bigInt(value: string | number): BigInteger;
  restore(): void;
}

/**
 * The GramJS 2.26.22 modules the client tests call and installGramJS patches (CommonJS exports objects: the
 * patched functions are read from them at call time).
 */
// deno-lint-ignore no-explicit-any
export function gramjsModules(): Record<string, any> {
  return {
    telegram: require("telegram"),
    Helpers: require("telegram/Helpers"),
    IGEModule: require("telegram/crypto/IGE"),
    CTRModule: require("telegram/crypto/CTR"),
    cryptoJs: require("telegram/crypto/crypto"),
    Factorizator: require("telegram/crypto/Factorizator").Factorizator,
    MTProtoState: require("telegram/network/MTProtoState").MTProtoState,
    GramAuthKey: require("telegram/crypto/AuthKey").AuthKey,
    bigInt: require("big-integer"),
  };
}

let gramInstance: Gram | undefined;

export function loadGram(): Gram {
  if (gramInstance) return gramInstance;
  const { telegram, Helpers, MTProtoState, GramAuthKey: AuthKey, Factorizator, bigInt } = gramjsModules();
  const { Api } = telegram;
  const { Logger } = telegram.extensions;
  const original = Helpers.generateRandomBytes;
  let queued: Uint8Array | null = null;
  // MTProtoState calls helpers.generateRandomBytes (the same exports object) for the padding.
  Helpers.generateRandomBytes = (n: number) => {
    if (queued === null) return original(n); // session ids etc.
    if (queued.length !== n) throw new Error(`GramJS stub: padding of ${n} bytes asked, ${queued.length} queued`);
    const out = Buffer.from(queued);
    queued = null;
    return out;
  };
  gramInstance = {
    async state(key) {
      const authKey = new AuthKey();
      await authKey.setKey(Buffer.from(key));
      return new MTProtoState(authKey, new Logger("none")) as GramState;
    },
    queuePadding(bytes) {
      queued = bytes.slice();
    },
    pendingPadding: () => (queued === null ? 0 : queued.length),
    bigFromLE: (bytes, signed = false) => Helpers.readBigIntFromBuffer(Buffer.from(bytes), true, signed),
    pong: (msgId, pingId) =>
      new Uint8Array(
        new Api.Pong({
          msgId: Helpers.readBigIntFromBuffer(Buffer.from(msgId), true, true),
          pingId: Helpers.readBigIntFromBuffer(Buffer.from(pingId), true, true),
        }).getBytes(),
      ),
    uploadFile: (bytes) =>
      new Uint8Array(
        new Api.upload.File({ type: new Api.storage.FileUnknown(), mtime: 0, bytes: Buffer.from(bytes) }).getBytes(),
      ),
    Factorizator,
    getByteArray: (value) => Helpers.getByteArray(value),
    bigInt: (value) => bigInt(value),
    restore() {
      Helpers.generateRandomBytes = original;
    },
  };
  return gramInstance;
}
