#!/usr/bin/env node
// Generates test/vectors/generated.txt:
//
//   node test/vectors/generate.mjs > test/vectors/generated.txt
//
// Deterministic: all inputs come from a seeded SHA-256 counter-mode byte
// stream (no Math.random, no clock), so every run prints the same text. The
// TypeScript suite imports generateVectors() and checks that the committed
// generated.txt is identical to its output (test/vectors.test.ts).
//
// Independent of the library under test: the answers are computed with
// node:crypto (OpenSSL in Node; the same module in Bun and Deno):
//   - IGE: aes-256-ecb for the block cipher, the IGE chaining written out
//     below (OpenSSL AES_ige_encrypt convention).
//   - CTR: aes-256-ctr (whole 128-bit big-endian counter), with a start
//     offset `state` handled by discarding the first `state` keystream bytes.
//   - CBC: aes-256-cbc with setAutoPadding(false).
// Each answer is cross-checked by a second route before it is printed (IGE:
// decryption with aes-256-ecb decipher; CTR: keystream from aes-256-ecb of the
// counter blocks computed with BigInt; CBC: aes-256-ecb chaining and
// aes-256-cbc decipher), so a mistake in either route stops the generator.

import crypto from "node:crypto";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

const SEED = "tgcrypto-ffi test/vectors/generated.txt v1";

/** Deterministic byte stream: SHA-256(SEED || ":" || counter), concatenated. */
class ByteStream {
  constructor(seed) {
    this.seed = seed;
    this.counter = 0;
    this.buf = new Uint8Array(0);
    this.pos = 0;
  }
  bytes(n) {
    const out = new Uint8Array(n);
    let o = 0;
    while (o < n) {
      if (this.pos === this.buf.length) {
        this.buf = new Uint8Array(
          crypto.createHash("sha256").update(`${this.seed}:${this.counter++}`).digest(),
        );
        this.pos = 0;
      }
      const take = Math.min(n - o, this.buf.length - this.pos);
      out.set(this.buf.subarray(this.pos, this.pos + take), o);
      o += take;
      this.pos += take;
    }
    return out;
  }
}

const hex = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString("hex");
const fromHex = (s) => new Uint8Array(Buffer.from(s, "hex"));

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function xor16(a, b) {
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = a[i] ^ b[i];
  return out;
}

function equal(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function check(cond, what) {
  if (!cond) throw new Error(`generate.mjs self-check failed: ${what}`);
}

/** One AES-256 block operation per call, through node:crypto aes-256-ecb. */
function ecb(key, decrypt) {
  const c = decrypt
    ? crypto.createDecipheriv("aes-256-ecb", key, null)
    : crypto.createCipheriv("aes-256-ecb", key, null);
  c.setAutoPadding(false);
  return (block) => {
    const out = c.update(block);
    check(out.length === 16, "aes-256-ecb returned a whole block per update");
    return new Uint8Array(out);
  };
}

// IGE, OpenSSL AES_ige_encrypt convention:
//   iv[0..16) = y_{-1} (previous ciphertext), iv[16..32) = x_{-1} (previous plaintext)
//   encrypt: y_i = E(x_i ^ y_{i-1}) ^ x_{i-1}
//   decrypt: x_i = D(y_i ^ x_{i-1}) ^ y_{i-1}
function igeEncrypt(key, iv, data) {
  const E = ecb(key, false);
  let yPrev = iv.subarray(0, 16);
  let xPrev = iv.subarray(16, 32);
  const out = new Uint8Array(data.length);
  for (let o = 0; o < data.length; o += 16) {
    const x = data.subarray(o, o + 16);
    const y = xor16(E(xor16(x, yPrev)), xPrev);
    out.set(y, o);
    yPrev = y;
    xPrev = x;
  }
  return out;
}

function igeDecrypt(key, iv, data) {
  const D = ecb(key, true);
  let yPrev = iv.subarray(0, 16);
  let xPrev = iv.subarray(16, 32);
  const out = new Uint8Array(data.length);
  for (let o = 0; o < data.length; o += 16) {
    const y = data.subarray(o, o + 16);
    const x = xor16(D(xor16(y, xPrev)), yPrev);
    out.set(x, o);
    yPrev = y;
    xPrev = x;
  }
  return out;
}

const MASK128 = (1n << 128n) - 1n;
const toBig = (u8) => BigInt("0x" + (hex(u8) || "0"));
const fromBig = (n) => fromHex((n & MASK128).toString(16).padStart(32, "0"));

/** CTR with a start offset, through aes-256-ctr. Returns ciphertext, iv_after, state_after. */
function ctr(key, iv, state, data) {
  const c = crypto.createCipheriv("aes-256-ctr", key, iv);
  const ks = concat([c.update(concat([new Uint8Array(state), data])), c.final()]);
  const ciphertext = ks.subarray(state);
  // The next keystream byte is byte (state + len) of the stream that starts
  // at offset 0 of block `iv`: block iv + floor(that / 16), offset that % 16.
  const next = state + data.length;
  const ivAfter = fromBig(toBig(iv) + BigInt(Math.floor(next / 16)));
  const stateAfter = next % 16;

  // Second route: keystream = E(counter blocks), counter increments in BigInt.
  const E = ecb(key, false);
  const nblocks = Math.ceil(next / 16);
  const blocks = [];
  for (let i = 0; i < nblocks; i++) blocks.push(E(fromBig(toBig(iv) + BigInt(i))));
  const ks2 = concat(blocks).subarray(state, next);
  const ct2 = ks2.map((k, i) => k ^ data[i]);
  check(equal(ciphertext, ct2), "aes-256-ctr == ECB keystream");
  return { ciphertext, ivAfter, stateAfter };
}

/** CBC without padding, through aes-256-cbc. */
function cbc(key, iv, data) {
  const c = crypto.createCipheriv("aes-256-cbc", key, iv);
  c.setAutoPadding(false);
  const ciphertext = new Uint8Array(concat([c.update(data), c.final()]));
  check(ciphertext.length === data.length, "aes-256-cbc without padding keeps the length");

  // Second route: ECB chaining; and aes-256-cbc decipher recovers the data.
  const E = ecb(key, false);
  let prev = iv;
  for (let o = 0; o < data.length; o += 16) {
    prev = E(xor16(data.subarray(o, o + 16), prev));
    check(equal(prev, ciphertext.subarray(o, o + 16)), "aes-256-cbc == ECB chaining");
  }
  const d = crypto.createDecipheriv("aes-256-cbc", key, iv);
  d.setAutoPadding(false);
  check(equal(concat([d.update(ciphertext), d.final()]), data), "aes-256-cbc decipher round trip");
  return { ciphertext, ivAfter: ciphertext.slice(data.length - 16) };
}

/** The text of generated.txt. */
export function generateVectors() {
  const rng = new ByteStream(SEED);
  const lines = [
    "# Generated by test/vectors/generate.mjs - do not edit by hand; regenerate with",
    "#   node test/vectors/generate.mjs > test/vectors/generated.txt",
    `# Inputs: SHA-256 counter-mode byte stream, seed "${SEED}".`,
    "# Answers: node:crypto (OpenSSL) - aes-256-ecb plus the IGE chaining written",
    "# out in the generator (iv[0..16) = previous ciphertext, iv[16..32) = previous",
    "# plaintext, y_i = E(x_i ^ y_{i-1}) ^ x_{i-1}); aes-256-ctr with the first",
    "# `state` keystream bytes skipped; aes-256-cbc with setAutoPadding(false).",
    "# Each answer is cross-checked by a second route (ECB decipher, ECB keystream,",
    "# ECB chaining) before it is printed. iv_after/state_after: the values after",
    "# one encryption call (CTR: counter of the block holding the next keystream",
    "# byte and its offset; CBC: last ciphertext block).",
    "",
  ];
  const emit = (comment, fields) => {
    if (comment) lines.push(`# ${comment}`);
    for (const [name, value] of fields) {
      lines.push(`${name} = ${typeof value === "string" ? value : hex(value)}`);
    }
    lines.push("");
  };

  // ---- IGE --------------------------------------------------------------
  lines.push("[ige]", "");
  const igeCase = (comment, key, iv, pt) => {
    const ct = igeEncrypt(key, iv, pt);
    check(equal(igeDecrypt(key, iv, ct), pt), "IGE ECB-decipher round trip");
    emit(comment, [["key", key], ["iv", iv], ["plaintext", pt], ["ciphertext", ct]]);
  };
  igeCase("all-zero key, iv and data, 2 blocks", new Uint8Array(32), new Uint8Array(32), new Uint8Array(32));
  for (const blocks of [1, 2, 3, 4, 7, 8, 9, 16, 17, 64]) {
    const keys = [1, 2, 3, 8, 9, 64].includes(blocks) ? 3 : 1;
    for (let k = 0; k < keys; k++) {
      igeCase(`${blocks} block(s), random key #${k + 1}`, rng.bytes(32), rng.bytes(32), rng.bytes(16 * blocks));
    }
  }
  {
    // Two chained calls: the second call's iv is (last ciphertext, last plaintext)
    // of the first one, so its answer is the tail of the 5-block encryption.
    const key = rng.bytes(32);
    const iv = rng.bytes(32);
    const pt = rng.bytes(80);
    const ct = igeEncrypt(key, iv, pt);
    const iv2 = concat([ct.subarray(32, 48), pt.subarray(32, 48)]);
    igeCase("3 blocks, then the next 2 blocks with the chained iv (case below)", key, iv, pt.subarray(0, 48));
    igeCase("continuation of the case above", key, iv2, pt.subarray(48));
    check(equal(igeEncrypt(key, iv2, pt.subarray(48)), ct.subarray(48)), "IGE chaining split");
  }

  // ---- CTR --------------------------------------------------------------
  lines.push("[ctr]", "");
  const ctrCase = (comment, key, iv, state, pt) => {
    const { ciphertext, ivAfter, stateAfter } = ctr(key, iv, state, pt);
    emit(comment, [
      ["key", key],
      ["iv", iv],
      ["state", state.toString(16).padStart(2, "0")],
      ["plaintext", pt],
      ["ciphertext", ciphertext],
      ["iv_after", ivAfter],
      ["state_after", stateAfter.toString(16).padStart(2, "0")],
    ]);
  };
  // Counter start values. For the carry cases, the start is placed so that the
  // carry happens inside the call whenever the call spans more than one block
  // (about half way through it); with <= 1 block the start is the all-ones
  // value itself, so a call ending exactly at a block boundary carries in iv_after.
  const before = (top, state, len) => top - BigInt(Math.floor(Math.floor((state + len) / 16) / 2));
  const ONES64 = (1n << 64n) - 1n;
  const counters = [
    ["random counter", () => toBig(rng.bytes(16))],
    ["counter near 0000000000000000ffffffffffffffff (carry into the high 64 bits)", (s, l) => before(ONES64, s, l)],
    ["counter near ff..ff (wraps to 00..00)", (s, l) => before(MASK128, s, l)],
  ];
  for (const len of [1, 15, 16, 17, 100, 1000]) {
    for (const state of [0, 1, 15]) {
      for (const [what, start] of counters) {
        const key = rng.bytes(32);
        const pt = rng.bytes(len);
        ctrCase(`${len} byte(s), state ${state}, ${what}`, key, fromBig(start(state, len)), state, pt);
      }
    }
  }
  for (const [len, state] of [[1, 15], [16, 0], [31, 1], [300, 7]]) {
    // Random high 64 bits with the low 64 bits about to carry, and the
    // low 32 bits about to carry (catches 32- and 64-bit-only counters).
    const hi = toBig(rng.bytes(8)) << 64n;
    ctrCase(`${len} byte(s), state ${state}, random high half, low 64 bits near ff..ff`,
      rng.bytes(32), fromBig(hi | before(ONES64, state, len)), state, rng.bytes(len));
    const hi96 = toBig(rng.bytes(12)) << 32n;
    ctrCase(`${len} byte(s), state ${state}, low 32 bits near ffffffff`,
      rng.bytes(32), fromBig(hi96 | before(0xffffffffn, state, len)), state, rng.bytes(len));
  }
  for (const len of [128, 255, 256, 257, 512, 1024]) {
    const state = rng.bytes(1)[0] & 15;
    ctrCase(`${len} bytes, state ${state}, random counter`, rng.bytes(32), rng.bytes(16), state, rng.bytes(len));
  }

  // ---- CBC --------------------------------------------------------------
  lines.push("[cbc]", "");
  const cbcCase = (comment, key, iv, pt) => {
    const { ciphertext, ivAfter } = cbc(key, iv, pt);
    emit(comment, [["key", key], ["iv", iv], ["plaintext", pt], ["ciphertext", ciphertext], ["iv_after", ivAfter]]);
  };
  for (const blocks of [1, 3, 17, 8, 9, 16, 64]) {
    const keys = [1, 3, 17].includes(blocks) ? 3 : 1;
    for (let k = 0; k < keys; k++) {
      cbcCase(`${blocks} block(s), random key #${k + 1}`, rng.bytes(32), rng.bytes(16), rng.bytes(16 * blocks));
    }
  }

  // Ends with a blank line, so the last case is closed like every other one.
  return lines.join("\n") + "\n";
}

// Print only when run as a script (not when imported by the test suite).
function isMain() {
  if (typeof process === "undefined" || !process.argv || !process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
if (isMain()) process.stdout.write(generateVectors());
