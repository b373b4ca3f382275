/**
 * An MTProto 2.0 message layer written from the spec
 * (core.telegram.org/mtproto/description, /mtproto/security_guidelines)
 * over node:crypto and the test IGE (helpers/reference.ts): independent of
 * the library under test. Used to craft packets the library must reject
 * (wrong lengths, paddings) with a valid msg_key, and as a third opinion.
 */
import crypto from "node:crypto";
import { concatBytes } from "./bytes.ts";
import { refIge } from "./reference.ts";

export function nodeSha256(...parts: Uint8Array[]): Uint8Array {
  const h = crypto.createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

export function nodeSha1(...parts: Uint8Array[]): Uint8Array {
  const h = crypto.createHash("sha1");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

/** auth_key_id: the low 64 bits of SHA1(auth_key), i.e. its last 8 bytes. */
export function refAuthKeyId(authKey: Uint8Array): Uint8Array {
  return nodeSha1(authKey).slice(12, 20);
}

/** aes_key, aes_iv from msg_key for direction x (0 client->server, 8 server->client). */
export function refKdf(authKey: Uint8Array, msgKey: Uint8Array, x: number): { key: Uint8Array; iv: Uint8Array } {
  const a = nodeSha256(msgKey, authKey.subarray(x, x + 36));
  const b = nodeSha256(authKey.subarray(40 + x, 76 + x), msgKey);
  return {
    key: concatBytes([a.subarray(0, 8), b.subarray(8, 24), a.subarray(24, 32)]),
    iv: concatBytes([b.subarray(0, 8), a.subarray(8, 24), b.subarray(24, 32)]),
  };
}

/**
 * Encrypts `inner` (header + data + padding, a multiple of 16) as it is,
 * whatever its length fields say: the msg_key is right for these bytes.
 */
export function refEncryptRaw(authKey: Uint8Array, x: number, inner: Uint8Array): Uint8Array {
  if (inner.length % 16 !== 0) throw new Error("refEncryptRaw: not a multiple of 16");
  const msgKey = nodeSha256(authKey.subarray(88 + x, 120 + x), inner).slice(8, 24);
  const { key, iv } = refKdf(authKey, msgKey, x);
  return concatBytes([refAuthKeyId(authKey), msgKey, refIge(inner, key, iv, false)]);
}

/** Decrypts without any check: header + data + padding. */
export function refDecryptRaw(authKey: Uint8Array, x: number, packet: Uint8Array): Uint8Array {
  const msgKey = packet.subarray(8, 24);
  const { key, iv } = refKdf(authKey, msgKey, x);
  return refIge(packet.subarray(24), key, iv, true);
}

/** The whole receive path with every check; the plaintext without padding, or null if rejected. */
export function refDecrypt(authKey: Uint8Array, x: number, packet: Uint8Array): Uint8Array | null {
  if (packet.length < 24 || (packet.length - 24) % 16 !== 0 || packet.length - 24 < 48) return null;
  const id = refAuthKeyId(authKey);
  for (let i = 0; i < 8; i++) if (packet[i] !== id[i]) return null;
  const inner = refDecryptRaw(authKey, x, packet);
  const msgKey = nodeSha256(authKey.subarray(88 + x, 120 + x), inner).subarray(8, 24);
  for (let i = 0; i < 16; i++) if (msgKey[i] !== packet[8 + i]) return null;
  const length = new DataView(inner.buffer, inner.byteOffset).getUint32(28, true);
  if (length % 4 !== 0 || length > inner.length - 32) return null;
  const paddingLength = inner.length - 32 - length;
  if (paddingLength < 12 || paddingLength > 1024) return null;
  return inner.slice(0, 32 + length);
}

/** A plaintext: salt, session_id, msg_id, seq_no, message_data_length (little-endian) and `data`. */
export function buildPlaintext(
  header: { salt: Uint8Array; sessionId: Uint8Array; msgId: Uint8Array; seqNo: number },
  data: Uint8Array,
  declaredLength = data.length,
): Uint8Array {
  const out = new Uint8Array(32 + data.length);
  out.set(header.salt, 0);
  out.set(header.sessionId, 8);
  out.set(header.msgId, 16);
  const view = new DataView(out.buffer);
  view.setUint32(24, header.seqNo, true);
  view.setUint32(28, declaredLength >>> 0, true);
  out.set(data, 32);
  return out;
}
