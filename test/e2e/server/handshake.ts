/**
 * The server side of the auth key exchange (core.telegram.org/mtproto/auth_key):
 *
 *   req_pq_multi          -> resPQ (a pq of two random 31-bit primes, the advertised key fingerprints)
 *   req_DH_params         -> server_DH_params_ok (p_q_inner_data unwrapped from RSA_PAD or the
 *                            older sha1 + data + padding; server_DH_inner_data IGE-encrypted)
 *   set_client_DH_params  -> dh_gen_ok (auth_key = g_b^a mod dh_prime, 256 bytes)
 *
 * RSA and DH are bigint arithmetic (rsa.ts, numbers.ts), the hashes
 * node:crypto, the IGE of the temporary key the library's ige256Encrypt /
 * ige256Decrypt. Any check that fails is a {@link HandshakeError} (the
 * server closes the connection, as Telegram does).
 */
import { createHash, randomBytes } from "node:crypto";

import { ige256Decrypt, ige256Encrypt } from "../../../ts/mod.ts";
import { bigFromBytes, bigToBytes, concat, equal, hex, modPow, randomBig, randomPq, xorBytes } from "./numbers.ts";
import type { RsaScheme, ServerRsaKey } from "./rsa.ts";
import { type HandshakeRequest, ID, type PQInnerData, readClientDHInnerData, readPQInnerData, TlReader, write } from "./tl.ts";

/** MTProto's 2048-bit safe prime (core.telegram.org/mtproto/auth_key), with g = 3 (p mod 3 = 2). */
export const DH_PRIME = BigInt(
  "0xc71caeb9c6b1c9048e6c522f70f13f73980d40238e3e21c14934d037563d930f48198a0aa7c14058229493d22530f4dbfa336f6e0ac925139543aed44cce7c3720fd51f69458705ac68cd4fe6b6b13abdc9746512969328454f18faf8c595f642477fe96bb2a941d5bcd1d4ac8cc49880708fa9b378e3c4f3a9060bee67cf9a4a4a695811051907e162753b56b0f6b410dba74d8a84b2a14b3144e0ef1284754fd17ed950d5965b4b9dd46582db1178d169c6bc465b0d6ff9ca3928fef5b9ae4e418fc15e83ebea0f87fa9ff5eed70050ded2849f47bf959d956850ce929851f0d8115f635b105ee2e4e15d04b2454bf6f4fadf034b10403119cd8e3b92fcc5b",
);
export const DH_G = 3;
const SAFETY = 1n << (2048n - 64n);

export class HandshakeError extends Error {}

/** A key made by a completed exchange. */
export interface NewAuthKey {
  readonly key: Uint8Array;
  readonly id: Uint8Array;
  /** The salt the exchange implies: substr(new_nonce, 0, 8) XOR substr(server_nonce, 0, 8). */
  readonly initialSalt: Uint8Array;
  readonly scheme: RsaScheme;
  readonly inner: PQInnerData["_"];
  readonly dc?: number;
}

interface Pending {
  readonly nonce: Uint8Array;
  readonly serverNonce: Uint8Array;
  readonly p: bigint;
  readonly q: bigint;
  readonly pq: bigint;
  dh?: {
    readonly newNonce: Uint8Array;
    readonly a: bigint;
    readonly tmpKey: Uint8Array;
    readonly tmpIv: Uint8Array;
    readonly scheme: RsaScheme;
    readonly inner: PQInnerData;
  };
}

const sha1 = (...parts: Uint8Array[]) => {
  const h = createHash("sha1");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};
const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};

/** tmp_aes_key / tmp_aes_iv from new_nonce and server_nonce. */
function tmpAes(newNonce: Uint8Array, serverNonce: Uint8Array): { key: Uint8Array; iv: Uint8Array } {
  const ns = sha1(newNonce, serverNonce), sn = sha1(serverNonce, newNonce), nn = sha1(newNonce, newNonce);
  return { key: concat(ns, sn.subarray(0, 12)), iv: concat(sn.subarray(12, 20), nn, newNonce.subarray(0, 4)) };
}

/** RSA_PAD, undone: key_aes_encrypted -> temp_key, AES-IGE -> data_with_hash, checked. */
function unwrapRsaPad(decrypted: Uint8Array): Uint8Array {
  const tempKeyXor = decrypted.subarray(0, 32), aesEncrypted = decrypted.subarray(32);
  const tempKey = xorBytes(tempKeyXor, sha256(aesEncrypted));
  const dataWithHash = ige256Decrypt(aesEncrypted, tempKey, new Uint8Array(32));
  const dataWithPadding = dataWithHash.slice(0, 192).reverse();
  if (!equal(dataWithHash.subarray(192), sha256(tempKey, dataWithPadding))) {
    throw new HandshakeError("req_DH_params: RSA_PAD hash mismatch");
  }
  return dataWithPadding;
}

/** The older scheme, undone: 255 bytes of SHA1(data) || data || random, checked over the object's own bytes. */
function unwrapLegacy(decrypted: Uint8Array): PQInnerData {
  if (decrypted[0] !== 0) throw new HandshakeError("req_DH_params: legacy block does not start with a zero byte");
  const block = decrypted.subarray(1);
  const reader = new TlReader(block, 20);
  const inner = readPQInnerData(reader);
  if (!equal(block.subarray(0, 20), sha1(block.subarray(20, reader.pos)))) {
    throw new HandshakeError("req_DH_params: legacy SHA1 mismatch");
  }
  return inner;
}

/** The exchanges of one server, keyed by the client's nonce (a client may restart one on the same connection). */
export class Handshakes {
  readonly #pending = new Map<string, Pending>();

  /** The keys whose fingerprints resPQ lists, in this order. */
  readonly advertised: readonly ServerRsaKey[];
  readonly onKey: (key: NewAuthKey) => void;

  constructor(advertised: readonly ServerRsaKey[], onKey: (key: NewAuthKey) => void) {
    this.advertised = advertised;
    this.onKey = onKey;
  }

  /** The response (TL) to one unencrypted request. */
  handle(request: HandshakeRequest): Uint8Array {
    switch (request._) {
      case "req_pq_multi":
        return this.#resPQ(request.nonce);
      case "req_DH_params":
        return this.#dhParams(request);
      case "set_client_DH_params":
        return this.#dhGen(request);
    }
  }

  #state(nonce: Uint8Array, serverNonce: Uint8Array | undefined, step: string): Pending {
    const state = this.#pending.get(hex(nonce));
    if (state === undefined) throw new HandshakeError(`${step}: unknown nonce`);
    if (serverNonce !== undefined && !equal(serverNonce, state.serverNonce)) throw new HandshakeError(`${step}: wrong server_nonce`);
    return state;
  }

  #resPQ(nonce: Uint8Array): Uint8Array {
    const serverNonce = new Uint8Array(randomBytes(16));
    const { p, q, pq } = randomPq();
    this.#pending.set(hex(nonce), { nonce: nonce.slice(), serverNonce, p, q, pq });
    return write((w) => {
      w.uint(ID.resPQ).raw(nonce).raw(serverNonce).bytes(bigToBytes(pq));
      w.vector(this.advertised, (v, key) => v.long(key.fingerprint));
    });
  }

  #dhParams(request: Extract<HandshakeRequest, { _: "req_DH_params" }>): Uint8Array {
    const state = this.#state(request.nonce, request.serverNonce, "req_DH_params");
    const key = this.advertised.find((k) => k.fingerprint === request.fingerprint);
    if (key === undefined) throw new HandshakeError("req_DH_params: fingerprint of no advertised key");
    if (bigFromBytes(request.p) !== state.p || bigFromBytes(request.q) !== state.q) throw new HandshakeError("req_DH_params: wrong p, q");
    if (request.encryptedData.length !== 256) throw new HandshakeError("req_DH_params: encrypted_data is not 256 bytes");
    const decrypted = key.decrypt(request.encryptedData);
    const inner = key.scheme === "rsa_pad" ? readPQInnerData(new TlReader(unwrapRsaPad(decrypted))) : unwrapLegacy(decrypted);
    if (
      bigFromBytes(inner.pq) !== state.pq || bigFromBytes(inner.p) !== state.p || bigFromBytes(inner.q) !== state.q ||
      !equal(inner.nonce, state.nonce) || !equal(inner.serverNonce, state.serverNonce)
    ) {
      throw new HandshakeError("req_DH_params: p_q_inner_data does not match the exchange");
    }
    let a: bigint, gA: bigint;
    do {
      a = randomBig(256);
      gA = modPow(BigInt(DH_G), a, DH_PRIME);
    } while (gA <= SAFETY || gA >= DH_PRIME - SAFETY);
    const newNonce = inner.newNonce.slice();
    const { key: tmpKey, iv: tmpIv } = tmpAes(newNonce, state.serverNonce);
    state.dh = { newNonce, a, tmpKey, tmpIv, scheme: key.scheme, inner };
    const answer = write((w) => {
      w.uint(ID.server_DH_inner_data).raw(state.nonce).raw(state.serverNonce).int(DH_G);
      w.bytes(bigToBytes(DH_PRIME, 256)).bytes(bigToBytes(gA, 256)).int(Math.floor(Date.now() / 1000));
    });
    const withHash = concat(sha1(answer), answer);
    const padded = concat(withHash, randomBytes((16 - (withHash.length % 16)) % 16));
    return write((w) => {
      w.uint(ID.server_DH_params_ok).raw(state.nonce).raw(state.serverNonce).bytes(ige256Encrypt(padded, tmpKey, tmpIv));
    });
  }

  #dhGen(request: Extract<HandshakeRequest, { _: "set_client_DH_params" }>): Uint8Array {
    const state = this.#state(request.nonce, request.serverNonce, "set_client_DH_params");
    const dh = state.dh;
    if (dh === undefined) throw new HandshakeError("set_client_DH_params before req_DH_params");
    if (request.encryptedData.length === 0 || request.encryptedData.length % 16 !== 0) {
      throw new HandshakeError("set_client_DH_params: encrypted_data is not whole AES blocks");
    }
    const plain = ige256Decrypt(request.encryptedData, dh.tmpKey, dh.tmpIv);
    const reader = new TlReader(plain, 20);
    const inner = readClientDHInnerData(reader);
    if (!equal(plain.subarray(0, 20), sha1(plain.subarray(20, reader.pos)))) throw new HandshakeError("set_client_DH_params: SHA1 mismatch");
    if (plain.length - reader.pos >= 16) throw new HandshakeError("set_client_DH_params: 16 or more padding bytes");
    if (!equal(inner.nonce, state.nonce) || !equal(inner.serverNonce, state.serverNonce)) {
      throw new HandshakeError("set_client_DH_params: client_DH_inner_data nonces do not match");
    }
    const gB = bigFromBytes(inner.gB);
    if (gB <= SAFETY || gB >= DH_PRIME - SAFETY) throw new HandshakeError("set_client_DH_params: g_b out of range");
    const key = bigToBytes(modPow(gB, dh.a, DH_PRIME), 256);
    const keySha = sha1(key);
    const newNonceHash1 = sha1(dh.newNonce, Uint8Array.of(1), keySha.subarray(0, 8)).subarray(4, 20);
    this.#pending.delete(hex(state.nonce));
    this.onKey({
      key,
      id: keySha.slice(12, 20),
      initialSalt: xorBytes(dh.newNonce.subarray(0, 8), state.serverNonce.subarray(0, 8)),
      scheme: dh.scheme,
      inner: dh.inner._,
      dc: dh.inner.dc,
    });
    return write((w) => w.uint(ID.dh_gen_ok).raw(state.nonce).raw(state.serverNonce).raw(newNonceHash1));
  }
}
