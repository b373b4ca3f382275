/**
 * Reference implementations over node:crypto (OpenSSL in Node, BoringSSL in
 * Bun, Deno's own node:crypto), independent of the library under test.
 * IGE is written out over aes-256-ecb (OpenSSL AES_ige_encrypt convention);
 * CTR uses aes-256-ctr, CBC aes-256-cbc with setAutoPadding(false).
 */
import crypto from "node:crypto";

const u8 = (b: Uint8Array) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

function ecbBlock(key: Uint8Array, decrypt: boolean): (block: Uint8Array) => Uint8Array {
  const c = decrypt
    ? crypto.createDecipheriv("aes-256-ecb", key, null)
    : crypto.createCipheriv("aes-256-ecb", key, null);
  c.setAutoPadding(false);
  return (block) => {
    const out = c.update(block);
    if (out.length !== 16) throw new Error("aes-256-ecb did not return one block per update");
    return u8(out);
  };
}

export function aesEcbEncrypt(key: Uint8Array, data: Uint8Array): Uint8Array {
  const c = crypto.createCipheriv("aes-256-ecb", key, null);
  c.setAutoPadding(false);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}

/** IGE: iv[0..16) = previous ciphertext, iv[16..32) = previous plaintext. */
export function refIge(data: Uint8Array, key: Uint8Array, iv: Uint8Array, decrypt: boolean): Uint8Array {
  if (data.length % 16 !== 0 || iv.length !== 32) throw new Error("refIge: bad sizes");
  const aes = ecbBlock(key, decrypt);
  let yPrev = iv.slice(0, 16); // previous ciphertext block
  let xPrev = iv.slice(16, 32); // previous plaintext block
  const out = new Uint8Array(data.length);
  const t = new Uint8Array(16);
  for (let o = 0; o < data.length; o += 16) {
    const inBlock = data.slice(o, o + 16);
    const pre = decrypt ? xPrev : yPrev;
    const post = decrypt ? yPrev : xPrev;
    for (let i = 0; i < 16; i++) t[i] = inBlock[i] ^ pre[i];
    const a = aes(t);
    const outBlock = new Uint8Array(16);
    for (let i = 0; i < 16; i++) outBlock[i] = a[i] ^ post[i];
    out.set(outBlock, o);
    if (decrypt) {
      yPrev = inBlock;
      xPrev = outBlock;
    } else {
      yPrev = outBlock;
      xPrev = inBlock;
    }
  }
  return out;
}

const MASK128 = (1n << 128n) - 1n;

export function addToCounter(iv: Uint8Array, n: number | bigint): Uint8Array {
  let v = 0n;
  for (const b of iv) v = (v << 8n) | BigInt(b);
  v = (v + BigInt(n)) & MASK128;
  const out = new Uint8Array(16);
  for (let i = 15; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** CTR from counter block `iv`, starting at keystream offset `state`. */
export function refCtr(
  data: Uint8Array,
  key: Uint8Array,
  iv: Uint8Array,
  state: number,
): { out: Uint8Array; ivAfter: Uint8Array; stateAfter: number } {
  const c = crypto.createCipheriv("aes-256-ctr", key, iv);
  const padded = new Uint8Array(state + data.length);
  padded.set(data, state);
  const all = u8(Buffer.concat([c.update(padded), c.final()]));
  const next = state + data.length;
  return { out: all.slice(state), ivAfter: addToCounter(iv, Math.floor(next / 16)), stateAfter: next % 16 };
}

/** CBC without padding; ivAfter = last ciphertext block (either direction). */
export function refCbc(
  data: Uint8Array,
  key: Uint8Array,
  iv: Uint8Array,
  decrypt: boolean,
): { out: Uint8Array; ivAfter: Uint8Array } {
  const c = decrypt ? crypto.createDecipheriv("aes-256-cbc", key, iv) : crypto.createCipheriv("aes-256-cbc", key, iv);
  c.setAutoPadding(false);
  const out = new Uint8Array(Buffer.concat([c.update(data), c.final()]));
  const ct = decrypt ? data : out;
  return { out, ivAfter: ct.slice(ct.length - 16) };
}
