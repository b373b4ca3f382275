/**
 * The replacement for `network/MTProtoState`'s `encryptMessageData` and
 * `decryptMessageData` in GramJS and teleproto: one native call per message
 * (AuthKey.encryptMessage / decryptMessage), the package's own checks and
 * errors around it, in its order.
 *
 * Two shapes of MTProtoState exist (see {@link StateShape}): GramJS's (also
 * teleproto 214.1.7's), and teleproto 1.229's, which draws its padding from
 * node:crypto, checks the session id and keeps received ids in a
 * ReceivedIdsManager.
 *
 * @module
 */

import { Buffer } from "node:buffer";

import { AuthKey, MtprotoSecurityError } from "../../mod.ts";
import type { BigInteger, GramModules, GramReader } from "./package.ts";
import { asBuffer, isBytes, lengthOf } from "./primitives.ts";

interface GramAuthKey {
  keyId?: BigInteger;
  getKey(): Buffer | undefined;
  waitForKey(): Promise<void>;
}

/** The MTProtoState fields used here (msgIds: GramJS's shape; receivedIds: teleproto 1.229's). */
interface GramState {
  authKey?: GramAuthKey;
  salt: BigInteger;
  id: BigInteger;
  msgIds: string[];
  receivedIds: { registerMsgId(msgId: BigInteger): string; shrink(): void };
  securityChecks: boolean;
}

/** A native AuthKey for one GramJS key Buffer, and the auth_key_id bytes of the GramJS keyId last seen with it. */
interface NativeKey {
  readonly native: AuthKey;
  keyId: BigInteger | undefined;
  keyIdBytes: Buffer | null;
}

/** One native AuthKey per GramJS key Buffer (GramJS replaces the Buffer when the key changes: AuthKey.setKey). */
const nativeKeys = new WeakMap<Uint8Array, NativeKey>();

function nativeKeyFor(key: Buffer): NativeKey {
  let entry = nativeKeys.get(key);
  if (entry === undefined) {
    entry = { native: new AuthKey(key), keyId: undefined, keyIdBytes: null };
    nativeKeys.set(key, entry);
  }
  return entry;
}

/** GramJS's keyId as the 8 bytes it writes (readBufferFromBigInt(keyId, 8)), computed once per keyId object. */
function keyIdBytes(entry: NativeKey, keyId: BigInteger, toBytes: (value: BigInteger, length: number) => Buffer): Buffer {
  if (entry.keyId !== keyId || entry.keyIdBytes === null) {
    entry.keyIdBytes = toBytes(keyId, 8);
    entry.keyId = keyId;
  }
  return entry.keyIdBytes;
}

/** salt || session_id as GramJS writes them, per MTProtoState, recomputed when either value object changes. */
interface Header {
  salt: BigInteger;
  id: BigInteger;
  bytes: Buffer;
}
const headers = new WeakMap<object, Header>();

const SALT_AND_SESSION = 16;

export function makeEncryptMessageData(modules: GramModules, stock: (this: GramState, data: Buffer) => Promise<Buffer>) {
  const helpers = modules.helpers as {
    toSignedLittleBuffer(value: BigInteger, length: number): Buffer;
    readBufferFromBigInt(value: BigInteger, length: number): Buffer;
    generateRandomBytes(count: number): Buffer;
    mod(n: number, m: number): number;
  };
  // GramJS's MTProtoState takes the padding from the package index's `helpers` (the same module object as
  // Helpers); teleproto 1.229's fills it with node:crypto's randomFillSync (looked up per call, as it does).
  const fromNodeCrypto = modules.stateShape === "received-ids";
  const nodeCrypto = modules.nodeCrypto;
  const randomPadding = (count: number): Buffer => {
    const padding = Buffer.allocUnsafe(count);
    nodeCrypto.randomFillSync(padding, 0, count);
    return padding;
  };
  const dataOk = fromNodeCrypto ? (data: unknown) => Buffer.isBuffer(data) : isBytes;
  // While the package's random source is the one it had at install, the padding is the native layer's own
  // (the shortest, 12..27 bytes, from the CSPRNG: the same length and as random as stock's): drawing it
  // through GramJS's generateRandomBytes (node:crypto's randomBytes, then a copy) was the largest part of
  // the patch's own cost on small messages. A source replaced after installGramJS (a seeded one in tests,
  // say) is called as stock calls it, and its bytes used.
  const installedRandom = fromNodeCrypto ? nodeCrypto.randomFillSync : helpers.generateRandomBytes;
  const randomReplaced = fromNodeCrypto
    ? () => nodeCrypto.randomFillSync !== installedRandom
    : () => helpers.generateRandomBytes !== installedRandom;
  return async function encryptMessageData(this: GramState, data: Buffer): Promise<Buffer> {
    // GramJS's checks and messages, in its order.
    if (!this.authKey) throw new Error("Auth key unset");
    await this.authKey.waitForKey();
    const authKey = this.authKey.getKey();
    if (!authKey) throw new Error("Auth key unset");
    if (!this.salt || !this.id || !authKey || !this.authKey.keyId) throw new Error("Unset params");
    // The native layer takes a plaintext that holds at least its 32-byte header (salt .. message_data_length):
    // GramJS's own messages always do (msg_id, seq_no and length come first), but encryptMessageData takes
    // any data, and stock GramJS encrypts shorter data too.
    // teleproto 1.229 copies data with Buffer#copy: anything but a Buffer is its TypeError.
    if (lengthOf(authKey) !== 256 || !dataOk(data) || lengthOf(data) < 32 - SALT_AND_SESSION) return stock.call(this, data);
    // big-integer -> bytes costs microseconds: the header is kept while salt and id are the same objects
    // (big-integers are immutable; GramJS assigns new ones).
    let header = headers.get(this);
    if (header === undefined || header.salt !== this.salt || header.id !== this.id) {
      const bytes = Buffer.concat([helpers.toSignedLittleBuffer(this.salt, 8), helpers.toSignedLittleBuffer(this.id, 8)]);
      header = { salt: this.salt, id: this.id, bytes };
      headers.set(this, header);
    }
    let options: { padding: Buffer } | undefined;
    if (randomReplaced()) {
      const length = SALT_AND_SESSION + lengthOf(data);
      const paddingLength = helpers.mod(-(length + 12), 16) + 12;
      options = { padding: fromNodeCrypto ? randomPadding(paddingLength) : helpers.generateRandomBytes(paddingLength) };
    }
    const entry = nativeKeyFor(authKey);
    const packet = entry.native.encryptMessage([header.bytes, data], options);
    // GramJS writes its keyId in front: the native auth_key_id (the last 8 bytes of SHA1(key)) unless the keyId
    // did not come from this key (e.g. a session's stored hash), in which case GramJS's bytes are kept.
    packet.set(keyIdBytes(entry, this.authKey.keyId, helpers.readBufferFromBigInt), 0);
    return asBuffer(packet);
  };
}

/**
 * reader.tgReadObject() without GramJS's alert(): its TypeNotFoundError calls alert() where one exists (Bun's
 * and Deno's wait for Enter on stdin). A failed native parse is handed to stock GramJS, which raises (and
 * alerts) once, as it would have alone.
 */
function readQuietly(reader: GramReader): unknown {
  const global = globalThis as { alert?: unknown };
  const alert = global.alert;
  let hidden = false;
  if (alert !== undefined) {
    try {
      global.alert = undefined;
      hidden = global.alert === undefined;
    } catch {
      // a read-only alert stays
    }
  }
  try {
    return reader.tgReadObject();
  } finally {
    if (hidden) global.alert = alert;
  }
}

export function makeDecryptMessageData(modules: GramModules, stock: (this: GramState, body: Buffer) => Promise<unknown>) {
  const helpers = modules.helpers as {
    readBigIntFromBuffer(buffer: Buffer): BigInteger;
    readBufferFromBigInt(value: BigInteger, length: number): Buffer;
  };
  const { SecurityError, InvalidBufferError } = modules.errors;
  const { TLMessage, BinaryReader, bigInt } = modules;
  const bigIntFrom = bigInt as unknown as (value: bigint) => BigInteger;
  const receivedIds = modules.stateShape === "received-ids";
  const decryptChecked = (native: AuthKey, body: Buffer): Uint8Array => {
    try {
      return native.decryptMessage(body);
    } catch (error) {
      // The native layer checks msg_key (in constant time) and, as the security guidelines ask and GramJS does
      // not, message_data_length and the padding length: every rejection is the stock msg_key error.
      if (error instanceof MtprotoSecurityError) {
        throw new SecurityError("Received msg_key doesn't match with expected one");
      }
      throw error;
    }
  };
  /**
   * teleproto 1.229's reading after msg_key: the session id check, then ReceivedIdsManager's registration,
   * then the body. The body is parsed first here, so that a body that does not parse within
   * message_data_length goes to stock with the state untouched (stock then reads it on into the padding).
   */
  const finishReceivedIds = (state: GramState, body: Buffer, view: DataView, remoteMsgId: BigInteger): unknown => {
    const plaintext = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    const reader = new BinaryReader(asBuffer(plaintext));
    reader.read(32);
    let obj: unknown;
    try {
      obj = readQuietly(reader);
    } catch {
      return stock.call(state, body);
    }
    if (state.securityChecks && bigIntFrom(view.getBigInt64(8, true)).neq(state.id)) {
      throw new SecurityError("Server replied with a wrong session ID");
    }
    const registered = state.receivedIds.registerMsgId(remoteMsgId);
    if (registered !== "success" && state.securityChecks) throw new SecurityError(`Rejected message: ${registered}`);
    state.receivedIds.shrink();
    return new TLMessage(remoteMsgId, view.getInt32(24, true), obj);
  };
  // async like GramJS's: every error is a rejected promise, as callers expect.
  // deno-lint-ignore require-await
  return async function decryptMessageData(this: GramState, body: Buffer): Promise<unknown> {
    // GramJS's checks and errors, in its order, up to the message key.
    if (!this.authKey) throw new Error("Auth key unset");
    if (body.length < 8) throw new InvalidBufferError(body);
    const authKeyId = this.authKey.keyId;
    const key = this.authKey.getKey();
    if (!authKeyId || !key || lengthOf(key) !== 256 || !isBytes(body)) return stock.call(this, body);
    const entry = nativeKeyFor(key);
    // GramJS compares the packet's first 8 bytes, read as an unsigned little-endian integer, with keyId: the
    // same as comparing them with keyId's 8 bytes (without two big-integer conversions per message).
    let expectedId: Buffer;
    try {
      expectedId = keyIdBytes(entry, authKeyId, helpers.readBufferFromBigInt);
    } catch {
      return stock.call(this, body); // a keyId that is not 8 bytes: GramJS's own comparison
    }
    if (!expectedId.equals(body.subarray(0, 8))) throw new SecurityError("Server replied with an invalid auth key");
    // A packet that is not whole blocks after msg_key: stock's answer (teleproto's IGE throws its own error).
    const bodyLength = lengthOf(body);
    if (bodyLength < 24 || (bodyLength - 24) % 16 !== 0) return stock.call(this, body);
    const plaintext = decryptChecked(entry.native, body);
    // GramJS's reading of the header and its duplicate msg_id check, on the checked plaintext. The salt and the
    // session_id are skipped (GramJS reads and ignores them); msg_id is the signed little-endian long GramJS's
    // readLong() gives, made from a bigint (big-integer takes one directly).
    const view = new DataView(plaintext.buffer, plaintext.byteOffset, plaintext.length);
    const remoteMsgId = bigIntFrom(view.getBigInt64(16, true));
    if (receivedIds) return finishReceivedIds(this, body, view, remoteMsgId);
    if (this.msgIds.includes(remoteMsgId.toString()) && this.securityChecks) {
      throw new SecurityError("Duplicate msgIds");
    }
    const reader = new BinaryReader(asBuffer(plaintext));
    reader.read(32); // to message_data (its length was checked natively)
    let obj: unknown;
    try {
      obj = readQuietly(reader);
    } catch {
      // A body that does not parse within message_data_length: stock GramJS reads on into the padding (which
      // the native layer zeroes) and its errors count the bytes left, so the packet goes to stock GramJS,
      // whose result or error is then exactly stock's (msgIds is untouched so far, as stock expects it).
      return stock.call(this, body);
    }
    if (this.msgIds.length > 500) this.msgIds.shift();
    this.msgIds.push(remoteMsgId.toString());
    const remoteSequence = view.getInt32(24, true);
    return new TLMessage(remoteMsgId, remoteSequence, obj);
  };
}

