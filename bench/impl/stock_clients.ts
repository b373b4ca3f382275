/**
 * The real clients' own message layers, set up exactly as they run in an
 * application, for the benchmarks: mtcute 0.30.3's `AuthKey` with its stock
 * `NodeCryptoProvider`, and GramJS 2.26.22's `MTProtoState`. Also the MTProto
 * plaintexts they exchange.
 *
 * mtcute's AuthKey is not in its package's `exports` map, so it is imported
 * by file path; GramJS is CommonJS and is loaded with `createRequire`.
 */

import { createRequire } from "node:module";

import { NodeCryptoProvider } from "@mtcute/node/utils.js";
// @ts-ignore: no exports entry (and so no types) for the file; its shape is declared below.
import { AuthKey as MtcuteAuthKeyClass } from "../../node_modules/@mtcute/core/network/auth-key.js";

const require = createRequire(import.meta.url);

/** The 64-bit values mtcute passes around (its `Long`). */
interface MtcuteLong {
  readonly low: number;
  readonly high: number;
  neq(other: MtcuteLong): boolean;
}

/** The part of mtcute's AuthKey the benchmarks call. */
export interface MtcuteAuthKey {
  setup(key: Uint8Array): void;
  encryptMessage(message: Uint8Array, serverSalt: MtcuteLong, sessionId: MtcuteLong): Uint8Array;
  decryptMessage(packet: Uint8Array, sessionId: MtcuteLong, callback: (msgId: unknown, seqNo: number) => void): void;
}

/** An mtcute AuthKey over `provider` (initialized here), set up with `key`. */
export async function mtcuteAuthKey(provider: { initialize?: () => unknown }, key: Uint8Array): Promise<MtcuteAuthKey> {
  await provider.initialize?.();
  const log = { verbose() {}, warn() {}, debug() {} };
  const authKey = new (MtcuteAuthKeyClass as new (c: unknown, l: unknown, r: unknown) => MtcuteAuthKey)(provider, log, {});
  authKey.setup(key);
  return authKey;
}

/** mtcute's 64-bit value of 8 little-endian bytes. */
export function mtcuteLong(bytes: Uint8Array): MtcuteLong {
  const Long = require("long") as { fromBytesLE(bytes: number[]): MtcuteLong };
  return Long.fromBytesLE([...bytes]);
}

/** An mtcute AuthKey over the stock NodeCryptoProvider, and the Longs its calls take. */
export async function mtcuteStock(key: Uint8Array, salt: Uint8Array, sessionId: Uint8Array): Promise<{
  authKey: MtcuteAuthKey;
  salt: MtcuteLong;
  sessionId: MtcuteLong;
}> {
  return { authKey: await mtcuteAuthKey(new NodeCryptoProvider(), key), salt: mtcuteLong(salt), sessionId: mtcuteLong(sessionId) };
}

/** The part of GramJS's MTProtoState the benchmarks call. */
export interface GramjsState {
  salt: unknown;
  id: unknown;
  msgIds: string[];
  encryptMessageData(data: Buffer): Promise<Buffer>;
  decryptMessageData(body: Buffer): Promise<unknown>;
}

/**
 * A GramJS MTProtoState over an AuthKey, with the given salt and session id.
 * securityChecks = false turns off only GramJS's duplicate-msg_id check,
 * which would reject a benchmark's repeated packet.
 */
export async function gramjsStock(key: Uint8Array, salt: Uint8Array, sessionId: Uint8Array): Promise<GramjsState> {
  const { MTProtoState } = require("telegram/network/MTProtoState");
  const { AuthKey } = require("telegram/crypto/AuthKey");
  const { readBigIntFromBuffer } = require("telegram/Helpers");
  const authKey = new AuthKey();
  await authKey.setKey(Buffer.from(key));
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  const state = new MTProtoState(authKey, quiet, false) as GramjsState;
  state.salt = readBigIntFromBuffer(Buffer.from(salt), true, true);
  state.id = readBigIntFromBuffer(Buffer.from(sessionId), true, true);
  return state;
}

/** GramJS's `Api.upload.File` TL bytes carrying `size` bytes (what a file download's message holds). */
export function gramjsUploadFile(payload: Uint8Array): Uint8Array {
  const { Api } = require("telegram/tl");
  const file = new Api.upload.File({ type: new Api.storage.FileUnknown(), mtime: 0, bytes: Buffer.from(payload) });
  return new Uint8Array(file.getBytes());
}

/**
 * An MTProto 2.0 plaintext without padding: salt (8), session_id (8),
 * msg_id (8), seq_no (4), message_data_length (4), message_data.
 */
export function mtprotoPlaintext(
  salt: Uint8Array,
  sessionId: Uint8Array,
  msgId: bigint,
  seqNo: number,
  data: Uint8Array,
): Uint8Array<ArrayBuffer> {
  const plaintext = new Uint8Array(32 + data.length);
  const view = new DataView(plaintext.buffer);
  plaintext.set(salt, 0);
  plaintext.set(sessionId, 8);
  view.setBigUint64(16, msgId, true);
  view.setUint32(24, seqNo, true);
  view.setUint32(28, data.length, true);
  plaintext.set(data, 32);
  return plaintext;
}
