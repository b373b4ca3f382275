#!/usr/bin/env node
// Generates test/contract/cases.json, the one set of rule cases every host
// runs (test/contract/host_rules.test.ts in Bun, Deno and Node.js;
// bindings/python/tests/test_contract.py in CPython):
//
//   node test/contract/gen_cases.mjs > test/contract/cases.json
//
// What must behave the same in every host: the default padding length, the
// plaintext given as parts (any split encrypts as the concatenation), the
// length rules of a received packet (out of range: before decrypting; a
// partial block: by the native check), and
// TgCrypto's and the MTProto layer's argument messages in their order.
//
// Independent of the library: node:crypto only (AES-256 from aes-256-ecb /
// -ctr / -cbc, the IGE chaining and the MTProto 2.0 key derivation written
// out from core.telegram.org/mtproto/description, as in
// test/vectors/gen_mtproto.mjs). Deterministic: bytes from a seeded SHA-256
// counter stream. The default padding length is found by search (the
// shortest p >= 12 with length + p a multiple of 16), not by the formula the
// hosts use. Expected messages are written out literally: they are what the
// users see (TgCrypto's wording), so a change to contract/rules.json that
// alters one fails here.

import crypto from "node:crypto";

let counter = 0;
function bytes(n) {
  const out = Buffer.alloc(n);
  for (let at = 0; at < n; at += 32) {
    const block = crypto.createHash("sha256").update(`tgcrypto-ffi test/contract/cases.json v1 ${counter++}`).digest();
    block.copy(out, at, 0, Math.min(32, n - at));
  }
  return out;
}
const hex = (b) => Buffer.from(b).toString("hex");
const sha256 = (...parts) => crypto.createHash("sha256").update(Buffer.concat(parts)).digest();

function aesBlock(key, block, decrypt) {
  const c = (decrypt ? crypto.createDecipheriv : crypto.createCipheriv)("aes-256-ecb", key, null);
  c.setAutoPadding(false);
  return Buffer.concat([c.update(block), c.final()]);
}
const xor = (a, b) => Buffer.from(a.map((v, i) => v ^ b[i]));

/** AES-256-IGE: iv = previous ciphertext (16) || previous plaintext (16). */
function ige(key, iv, data, decrypt) {
  let prevC = iv.subarray(0, 16), prevP = iv.subarray(16, 32);
  const out = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i += 16) {
    const block = data.subarray(i, i + 16);
    if (!decrypt) {
      const c = xor(aesBlock(key, xor(block, prevC), false), prevP);
      c.copy(out, i);
      prevC = c, prevP = block;
    } else {
      const p = xor(aesBlock(key, xor(block, prevP), true), prevC);
      p.copy(out, i);
      prevC = block, prevP = p;
    }
  }
  return out;
}

function mtprotoEncrypt(authKey, x, plaintext, padding) {
  const full = Buffer.concat([plaintext, padding]);
  const msgKey = sha256(authKey.subarray(88 + x, 120 + x), full).subarray(8, 24);
  const a = sha256(msgKey, authKey.subarray(x, x + 36));
  const b = sha256(authKey.subarray(40 + x, 76 + x), msgKey);
  const aesKey = Buffer.concat([a.subarray(0, 8), b.subarray(8, 24), a.subarray(24, 32)]);
  const aesIv = Buffer.concat([b.subarray(0, 8), a.subarray(8, 24), b.subarray(24, 32)]);
  const id = crypto.createHash("sha1").update(authKey).digest().subarray(12, 20);
  return Buffer.concat([id, msgKey, ige(aesKey, aesIv, full, false)]);
}

/** A plaintext of `length` bytes (>= 32) whose message_data_length field says length - 32. */
function message(length) {
  const p = bytes(length);
  p.writeUInt32LE(length - 32, 28);
  return p;
}

function shortestPadding(length) {
  for (let p = 12; ; p++) if ((length + p) % 16 === 0) return p;
}

const authKey = bytes(256);
const CLIENT = 0, SERVER = 8;

/* ------------------------------------------------------------------------ */

const defaultPadding = [];
for (let length = 32; length <= 80; length++) {
  defaultPadding.push({ plaintext_length: length, padding_length: shortestPadding(length) });
}

/** Splits of a plaintext into parts (lengths), each encrypted as the whole. */
const SPLITS = [
  [64], [32, 32], [0, 64], [64, 0], [1, 63], [63, 1], [10, 20, 34], [34, 20, 10], [20, 24, 20],
  [0, 0, 64], [64, 0, 0], [0, 64, 0], [16, 16, 16, 16], [5, 0, 0, 0, 59], [1, 1, 62], [62, 1, 1],
  [8, 8, 8, 8, 8, 8, 8, 8],
];
const parts = [];
for (const [i, split] of SPLITS.entries()) {
  const total = split.reduce((a, b) => a + b, 0);
  const plaintext = message(total);
  const padding = bytes(shortestPadding(total) + 16 * (i % 3));
  const server = i % 4 === 3;
  const pieces = [];
  let at = 0;
  for (const n of split) pieces.push(hex(plaintext.subarray(at, (at += n))));
  parts.push({
    name: `parts ${split.join("+")}${server ? " (server)" : ""}`,
    parts: pieces,
    server,
    padding: hex(padding),
    packet: hex(mtprotoEncrypt(authKey, server ? SERVER : CLIENT, plaintext, padding)),
  });
}

const encryptErrors = [
  { name: "no parts", parts: [], message: "Plaintext must not be empty" },
  { name: "empty parts", parts: ["", ""], message: "Plaintext must not be empty" },
  {
    name: "31 bytes",
    parts: [hex(bytes(31))],
    message: "Plaintext must be at least 32 bytes (salt, session_id, msg_id, seq_no, message_data_length)",
  },
  {
    name: "31 bytes in three parts",
    parts: [hex(bytes(16)), hex(bytes(10)), hex(bytes(5))],
    message: "Plaintext must be at least 32 bytes (salt, session_id, msg_id, seq_no, message_data_length)",
  },
  { name: "padding 11", parts: [hex(message(37))], padding: hex(bytes(11)), message: "Padding must be 12 to 1024 bytes (got 11)" },
  {
    name: "padding 1025",
    parts: [hex(message(39))],
    padding: hex(bytes(1025)),
    message: "Padding must be 12 to 1024 bytes (got 1025)",
  },
  {
    name: "padding 13 after 32",
    parts: [hex(message(32))],
    padding: hex(bytes(13)),
    message: "Plaintext plus padding must be a multiple of 16 bytes (got 32 + 13)",
  },
  {
    name: "empty plaintext is reported before a bad padding",
    parts: [],
    padding: hex(bytes(3)),
    message: "Plaintext must not be empty",
  },
];

/** Received packets: valid ones open to their plaintext; every other length is rejected before decrypting. */
const decrypt = [];
for (const length of [32, 36, 64, 100]) {
  const plaintext = message(length);
  const packet = mtprotoEncrypt(authKey, SERVER, plaintext, bytes(shortestPadding(length)));
  decrypt.push({ name: `valid, ${packet.length} bytes`, packet: hex(packet), plaintext: hex(plaintext) });
  decrypt.push({ name: `valid, ${packet.length} bytes, opened as the server`, packet: hex(packet), server: true, plaintext: null });
  decrypt.push({ name: `${packet.length - 1} bytes (last dropped)`, packet: hex(packet.subarray(0, -1)), plaintext: null });
  decrypt.push({ name: `${packet.length + 1} bytes (one added)`, packet: hex(Buffer.concat([packet, bytes(1)])), plaintext: null });
  decrypt.push({ name: `${packet.length + 8} bytes (8 added)`, packet: hex(Buffer.concat([packet, bytes(8)])), plaintext: null });
}
for (const length of [0, 1, 24, 40, 56, 71, 73, 87]) {
  decrypt.push({ name: `${length} random bytes`, packet: hex(bytes(length)), plaintext: null });
}

/** TgCrypto's one-shot calls: a known answer each, then each rule in TgCrypto's order (data, key, iv, state). */
const key = bytes(32), iv32 = bytes(32), iv16 = bytes(16), data48 = bytes(48), data17 = bytes(17);
const ctr = crypto.createCipheriv("aes-256-ctr", key, iv16);
const cbc = crypto.createCipheriv("aes-256-cbc", key, iv16);
cbc.setAutoPadding(false);
const aes = [
  { name: "ige256 known answer", fn: "ige256_encrypt", data: hex(data48), key: hex(key), iv: hex(iv32), out: hex(ige(key, iv32, data48, false)) },
  {
    name: "ctr256 known answer (any length)",
    fn: "ctr256_encrypt",
    data: hex(data17),
    key: hex(key),
    iv: hex(iv16),
    state: "00",
    out: hex(Buffer.concat([ctr.update(data17), ctr.final()])),
  },
  {
    name: "cbc256 known answer",
    fn: "cbc256_encrypt",
    data: hex(data48),
    key: hex(key),
    iv: hex(iv16),
    out: hex(Buffer.concat([cbc.update(data48), cbc.final()])),
  },
];
const rule = (name, fn, data, k, iv, state, message) =>
  aes.push({ name, fn, data: hex(data), key: hex(k), iv: hex(iv), ...(state ? { state: hex(state) } : {}), message });
rule("ige256 empty data", "ige256_encrypt", Buffer.alloc(0), key, iv32, null, "Data must not be empty");
rule("ige256 17 bytes", "ige256_decrypt", data17, key, iv32, null, "Data size must match a multiple of 16 bytes");
rule("ige256 empty data before a bad key", "ige256_encrypt", Buffer.alloc(0), bytes(31), iv32, null, "Data must not be empty");
rule("ige256 31-byte key", "ige256_encrypt", data48, bytes(31), iv32, null, "Key size must be exactly 32 bytes");
rule("ige256 bad key before a bad iv", "ige256_encrypt", data48, bytes(33), iv16, null, "Key size must be exactly 32 bytes");
rule("ige256 16-byte iv", "ige256_encrypt", data48, key, iv16, null, "IV size must be exactly 32 bytes");
rule("cbc256 17 bytes", "cbc256_encrypt", data17, key, iv16, null, "Data size must match a multiple of 16 bytes");
rule("cbc256 32-byte iv", "cbc256_decrypt", data48, key, iv32, null, "IV size must be exactly 16 bytes");
rule("ctr256 empty data", "ctr256_encrypt", Buffer.alloc(0), key, iv16, Buffer.from([0]), "Data must not be empty");
rule("ctr256 32-byte iv", "ctr256_encrypt", data17, key, iv32, Buffer.from([0]), "IV size must be exactly 16 bytes");
rule("ctr256 2-byte state", "ctr256_encrypt", data17, key, iv16, Buffer.from([0, 0]), "State size must be exactly 1 byte");
rule("ctr256 state 16", "ctr256_decrypt", data17, key, iv16, Buffer.from([16]), "State value must be in the range [0, 15]");
rule("ctr256 bad iv before a bad state", "ctr256_encrypt", data17, key, iv32, Buffer.from([16]), "IV size must be exactly 16 bytes");

/** The contexts: chunks continue one stream (an empty chunk is an empty result), and the same rules. */
const contexts = [];
{
  const chunked = (name, kind, iv, lengths, whole) => {
    const cut = (bytes) => {
      let at = 0;
      return lengths.map((n) => hex(bytes.subarray(at, (at += n))));
    };
    contexts.push({ name, kind, key: hex(key), iv: hex(iv), chunks: cut(data48), out: cut(whole) });
  };
  chunked("ige chunks 16+0+32", "ige", iv32, [16, 0, 32], ige(key, iv32, data48, false));
  const cbcWhole = crypto.createCipheriv("aes-256-cbc", key, iv16);
  cbcWhole.setAutoPadding(false);
  chunked("cbc chunks 0+48", "cbc", iv16, [0, 48], Buffer.concat([cbcWhole.update(data48), cbcWhole.final()]));
  const ctrWhole = crypto.createCipheriv("aes-256-ctr", key, iv16);
  chunked("ctr chunks 5+0+17+26", "ctr", iv16, [5, 0, 17, 26], Buffer.concat([ctrWhole.update(data48), ctrWhole.final()]));
  const bad = (name, kind, k, iv, state, chunk, message) =>
    contexts.push({ name, kind, key: hex(k), iv: hex(iv), ...(state === null ? {} : { state }), chunks: chunk === null ? [] : [hex(chunk)], message });
  bad("ige update of 17 bytes", "ige", key, iv32, null, data17, "Data size must match a multiple of 16 bytes");
  bad("cbc update of 17 bytes", "cbc", key, iv16, null, data17, "Data size must match a multiple of 16 bytes");
  bad("ige 31-byte key", "ige", bytes(31), iv32, null, null, "Key size must be exactly 32 bytes");
  bad("ige 16-byte iv", "ige", key, iv16, null, null, "IV size must be exactly 32 bytes");
  bad("cbc 32-byte iv", "cbc", key, iv32, null, null, "IV size must be exactly 16 bytes");
  bad("ctr state 16", "ctr", key, iv16, 16, null, "State value must be in the range [0, 15]");
  bad("ctr bad key before a bad state", "ctr", bytes(16), iv16, 16, null, "Key size must be exactly 32 bytes");
}

const cases = {
  about: "Generated by test/contract/gen_cases.mjs (node:crypto reference) - do not edit. Run by " +
    "test/contract/host_rules.test.ts and bindings/python/tests/test_contract.py.",
  auth_key: hex(authKey),
  default_padding: defaultPadding,
  parts,
  encrypt_errors: encryptErrors,
  decrypt,
  aes,
  contexts,
};
process.stdout.write(`${JSON.stringify(cases, null, 1)}\n`);
