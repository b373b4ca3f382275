#!/usr/bin/env node
// Generates test/vectors/mtproto.txt, MTProto 2.0 message-layer known answers:
//
//   node test/vectors/gen_mtproto.mjs > test/vectors/mtproto.txt
//   node test/vectors/gen_mtproto.mjs --reject > test/vectors/mtproto_reject.txt
//
// --reject writes packets that a receiver must reject although only one
// check can tell: see rejectCases() below.
//
// Deterministic: every byte comes from a seeded SHA-256 counter-mode stream
// (no Math.random, no clock). scripts/test.sh reruns it and diffs the output
// against the committed file.
//
// Independent of the library under test: node:crypto only (SHA-1 and SHA-256
// from createHash, AES-256 from aes-256-ecb with the IGE chaining written out
// below), following core.telegram.org/mtproto/description:
//   msg_key_large = SHA256(auth_key[88+x .. 120+x] || plaintext || padding)
//   msg_key       = msg_key_large[8 .. 24]
//   sha256_a      = SHA256(msg_key || auth_key[x .. x+36])
//   sha256_b      = SHA256(auth_key[40+x .. 76+x] || msg_key)
//   aes_key       = sha256_a[0 .. 8] || sha256_b[8 .. 24] || sha256_a[24 .. 32]
//   aes_iv        = sha256_b[0 .. 8] || sha256_a[8 .. 24] || sha256_b[24 .. 32]
//   packet        = auth_key_id || msg_key || AES-256-IGE(aes_key, aes_iv)(plaintext || padding)
// with auth_key_id = SHA1(auth_key)[12 .. 20] and x = 0 (client) or 8 (server).
// Every packet is decrypted again (aes-256-ecb decipher, IGE chaining) and its
// msg_key recomputed before it is printed.
//
// Format: one case per blank-line-separated group of `name = value` lines:
//   auth_key (256 bytes hex), x (decimal), plaintext (the 32-byte header and
//   the message data, hex), padding (hex), packet (hex).

import crypto from "node:crypto";

const REJECT = process.argv.includes("--reject");
const SEED = REJECT ? "tgcrypto-ffi test/vectors/mtproto_reject.txt v1" : "tgcrypto-ffi test/vectors/mtproto.txt v1";

let counter = 0;
let pool = new Uint8Array(0);
function bytes(n) {
  const out = new Uint8Array(n);
  let o = 0;
  while (o < n) {
    if (pool.length === 0) pool = new Uint8Array(crypto.createHash("sha256").update(`${SEED}:${counter++}`).digest());
    const take = Math.min(n - o, pool.length);
    out.set(pool.subarray(0, take), o);
    pool = pool.subarray(take);
    o += take;
  }
  return out;
}
const below = (n) => { // uniform enough for test data
  const b = bytes(4);
  return ((b[0] | (b[1] << 8) | (b[2] << 16)) >>> 0) % n;
};

const hex = (u8) => Buffer.from(u8).toString("hex");
const concat = (...parts) => new Uint8Array(Buffer.concat(parts));
const sha256 = (...parts) => {
  const h = crypto.createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};
const xor16 = (a, b) => a.map((v, i) => v ^ b[i]);

// IGE (OpenSSL AES_ige_encrypt convention): iv = y_{-1} || x_{-1};
// y_i = E(x_i ^ y_{i-1}) ^ x_{i-1}.
function ige(key, iv, data, decrypt) {
  const cipher = decrypt
    ? crypto.createDecipheriv("aes-256-ecb", key, null)
    : crypto.createCipheriv("aes-256-ecb", key, null);
  cipher.setAutoPadding(false);
  const out = new Uint8Array(data.length);
  // encrypt: prevIn = x_{i-1} (iv[16..32]), prevOut = y_{i-1} (iv[0..16]); decrypt swaps them.
  let prevOut = decrypt ? iv.subarray(16, 32) : iv.subarray(0, 16);
  let prevIn = decrypt ? iv.subarray(0, 16) : iv.subarray(16, 32);
  for (let i = 0; i < data.length; i += 16) {
    const block = data.subarray(i, i + 16);
    const o = xor16(new Uint8Array(cipher.update(xor16(block, prevOut))), prevIn);
    out.set(o, i);
    prevIn = block;
    prevOut = o;
  }
  return out;
}

function kdf(authKey, msgKey, x) {
  const a = sha256(msgKey, authKey.subarray(x, x + 36));
  const b = sha256(authKey.subarray(40 + x, 76 + x), msgKey);
  return {
    key: concat(a.subarray(0, 8), b.subarray(8, 24), a.subarray(24, 32)),
    iv: concat(b.subarray(0, 8), a.subarray(8, 24), b.subarray(24, 32)),
  };
}

function encrypt(authKey, x, plaintext, padding) {
  const id = new Uint8Array(crypto.createHash("sha1").update(authKey).digest()).subarray(12, 20);
  const data = concat(plaintext, padding);
  const msgKey = sha256(authKey.subarray(88 + x, 120 + x), data).subarray(8, 24);
  const { key, iv } = kdf(authKey, msgKey, x);
  const packet = concat(id, msgKey, ige(key, iv, data, false));
  // second route: decrypt and re-derive
  const back = ige(key, iv, packet.subarray(24), true);
  if (Buffer.compare(back, data) !== 0) throw new Error("IGE round trip failed");
  const again = sha256(authKey.subarray(88 + x, 120 + x), back).subarray(8, 24);
  if (Buffer.compare(again, packet.subarray(8, 24)) !== 0) throw new Error("msg_key mismatch");
  return packet;
}

/** A plaintext whose header says `dataLen` bytes of message data follow. */
function message(dataLen) {
  const header = bytes(32); // salt, session_id, msg_id, seq_no, length
  new DataView(header.buffer).setUint32(28, dataLen, true);
  return concat(header, bytes(dataLen));
}

/** Padding of 12..1024 bytes making the total a multiple of 16: the shortest,
 * the longest, or a random one of the valid lengths. */
function paddingFor(plainLen, kind) {
  const shortest = 12 + ((16 - ((plainLen + 12) % 16)) % 16);
  const count = Math.floor((1024 - shortest) / 16) + 1;
  const len = kind === "short" ? shortest : kind === "long" ? shortest + 16 * (count - 1) : shortest + 16 * below(count);
  return bytes(len);
}

/** Packets that only one check of the receiver can reject; each is verified
 * here to pass every other check:
 *
 *  - "msg_key byte i": the packet's msg_key differs from the right one
 *    (SHA256(auth_key[88+x..] || plaintext || padding)[8..24]) in byte i
 *    only, by `xor`, and the data is encrypted under the aes_key/aes_iv
 *    derived from that wrong msg_key, so it decrypts to the right plaintext
 *    with valid lengths: only a compare of all 16 bytes rejects it.
 *  - "tail t": plaintext || padding (whole blocks) encrypted, then t = 1..15
 *    bytes that are not a whole block appended; msg_key is computed over
 *    plaintext || padding || tail, i.e. over exactly what a receiver that
 *    IGE-decrypts the whole blocks in place and hashes the whole buffer
 *    would see, and the length fields count the tail as padding (12..1024).
 *    Only the "ciphertext is whole blocks" check rejects it.
 */
function rejectCases() {
  const out = [];
  const id = (authKey) => new Uint8Array(crypto.createHash("sha1").update(authKey).digest()).subarray(12, 20);
  const dataLens = [0, 4, 60, 200, 1000];
  for (let set = 0; set < 3; set++) {
    for (let i = 0; i < 16; i++) {
      const x = (i + set) % 2 === 0 ? 0 : 8;
      const authKey = bytes(256);
      const plaintext = message(dataLens[(i + set) % dataLens.length]);
      const padding = paddingFor(plaintext.length, i % 3 === 0 ? "random" : "short");
      const data = concat(plaintext, padding);
      const right = sha256(authKey.subarray(88 + x, 120 + x), data).subarray(8, 24);
      const xor = set === 0 ? 0x01 : set === 1 ? 0x80 : 1 + below(255);
      const wrong = right.slice();
      wrong[i] ^= xor;
      const { key, iv } = kdf(authKey, wrong, x);
      const packet = concat(id(authKey), wrong, ige(key, iv, data, false));
      // checks: decrypts (under the wrong msg_key's keys) to the right data,
      // whose msg_key differs from the packet's in byte i only
      const back = ige(key, iv, packet.subarray(24), true);
      const again = sha256(authKey.subarray(88 + x, 120 + x), back).subarray(8, 24);
      const differ = [...again].map((v, j) => (v !== packet[8 + j] ? j : -1)).filter((j) => j >= 0);
      if (Buffer.compare(back, data) !== 0 || differ.length !== 1 || differ[0] !== i) throw new Error("msg_key case");
      out.push({ what: `msg_key byte ${i} xor ${xor.toString(16).padStart(2, "0")}`, authKey, x, plaintext, padding, packet });
    }
  }
  for (let t = 1; t <= 15; t++) {
    for (const x of [0, 8]) {
      const authKey = bytes(256);
      const plaintext = message(dataLens[(t + x) % dataLens.length]);
      // whole-block padding of at least 12 - t bytes, so that with the tail it is 12..1024,
      // and a packet of at least 72 bytes (the minimum length is another check)
      let padLen = (16 - (plaintext.length % 16)) % 16;
      if (padLen + t < 12) padLen += 16;
      if (plaintext.length + padLen + t < 48) padLen += 16;
      if (t % 4 === 0) padLen += 16 * below(8);
      const padding = bytes(padLen);
      const tail = bytes(t);
      const blocks = concat(plaintext, padding);
      const msgKey = sha256(authKey.subarray(88 + x, 120 + x), blocks, tail).subarray(8, 24);
      const { key, iv } = kdf(authKey, msgKey, x);
      const packet = concat(id(authKey), msgKey, ige(key, iv, blocks, false), tail);
      // checks: whole blocks decrypt back; the hash over them and the tail is msg_key;
      // message_data_length leaves padLen + t bytes of padding, 12..1024
      const back = ige(key, iv, packet.subarray(24, packet.length - t), true);
      const again = sha256(authKey.subarray(88 + x, 120 + x), back, packet.subarray(packet.length - t)).subarray(8, 24);
      const dataLen = new DataView(plaintext.buffer, plaintext.byteOffset).getUint32(28, true);
      const pad = packet.length - 24 - 32 - dataLen;
      if (Buffer.compare(back, blocks) !== 0 || Buffer.compare(again, msgKey) !== 0 || pad < 12 || pad > 1024 ||
        packet.length < 72 || (packet.length - 24) % 16 !== t || dataLen % 4 !== 0) throw new Error("tail case");
      out.push({ what: `tail ${t}`, authKey, x, plaintext, padding: concat(padding, tail), packet });
    }
  }
  return out;
}

if (REJECT) {
  const lines = [
    "# MTProto 2.0 packets that must be rejected, written by test/vectors/gen_mtproto.mjs --reject",
    "# (node:crypto; see rejectCases() in the generator). `reject` says which single check rejects",
    "# the packet; `plaintext` and `padding` are what it decrypts to (padding includes a tail that is",
    "# not a whole block). Do not edit: regenerate with",
    "#   node test/vectors/gen_mtproto.mjs --reject > test/vectors/mtproto_reject.txt",
    "",
  ];
  for (const c of rejectCases()) {
    lines.push(`reject = ${c.what}`, `auth_key = ${hex(c.authKey)}`, `x = ${c.x}`, `plaintext = ${hex(c.plaintext)}`,
      `padding = ${hex(c.padding)}`, `packet = ${hex(c.packet)}`, "");
  }
  process.stdout.write(lines.join("\n") + "\n");
} else {
  knownAnswers();
}

/** test/vectors/mtproto.txt */
function knownAnswers() {
  const cases = [];
  const sizes = [0, 4, 8, 12, 16, 20, 28, 60, 100, 256, 1000, 1024, 4092];
  for (const x of [0, 8]) {
    for (const dataLen of sizes) {
      for (const kind of ["short", "random"]) cases.push({ x, dataLen, kind });
    }
    cases.push({ x, dataLen: 0, kind: "long" });
    cases.push({ x, dataLen: 508, kind: "long" });
  }
  cases.push({ x: 0, dataLen: 65532, kind: "short" });
  cases.push({ x: 8, dataLen: 20000, kind: "random" });

  const lines = [
    "# MTProto 2.0 message layer known answers, written by test/vectors/gen_mtproto.mjs",
    "# (node:crypto SHA-1/SHA-256 and aes-256-ecb with IGE chaining; see the generator).",
    "# Do not edit: regenerate with  node test/vectors/gen_mtproto.mjs > test/vectors/mtproto.txt",
    "",
  ];
  for (const c of cases) {
    const authKey = bytes(256);
    const plaintext = message(c.dataLen);
    const padding = paddingFor(plaintext.length, c.kind);
    const packet = encrypt(authKey, c.x, plaintext, padding);
    lines.push(`auth_key = ${hex(authKey)}`, `x = ${c.x}`, `plaintext = ${hex(plaintext)}`,
      `padding = ${hex(padding)}`, `packet = ${hex(packet)}`, "");
  }
  process.stdout.write(lines.join("\n") + "\n");
}
