// The Node host end to end: the package API (ts/mod.ts, which in Node.js
// runs on the addon zig-out/lib/tgcrypto.node), then the same C function
// called on the addon directly, as ts/runtime/node.ts hands it to the API.
//
//   ./scripts/zig build && node bindings/node/example.mjs
//
// (Node 22.18+, 24 or 26: they load the .ts sources as they are.)
import { createRequire } from "node:module";

import { backend, ige256Decrypt, ige256Encrypt, libraryPath, sha256 } from "../../ts/mod.ts";

const key = new Uint8Array(32).fill(1);
const iv = new Uint8Array(32).fill(2);
const message = new TextEncoder().encode("sixteen byte msg");

const ciphertext = ige256Encrypt(message, key, iv);
const roundTrip = new TextDecoder().decode(ige256Decrypt(ciphertext, key, iv));
console.log(`addon: ${libraryPath()} (AES backend ${backend()})`);
console.log(`ige256Encrypt:  ${Buffer.from(ciphertext).toString("hex")}`);
console.log(`ige256Decrypt:  ${JSON.stringify(roundTrip)}`);
console.log(`sha256("abc"):  ${Buffer.from(sha256(new TextEncoder().encode("abc"))).toString("hex")}`);

// The addon itself: the C names and argument order of csrc/tgcrypto.h, a
// return code instead of an exception, every length checked in C.
const addon = createRequire(import.meta.url)(libraryPath());
const out = new Uint8Array(16);
console.log(`tg_ige256_encrypt: ${addon.tg_ige256_encrypt(out, message, 16, key, iv)} (0 = TG_OK), same bytes: ${
  Buffer.from(out).equals(Buffer.from(ciphertext))}`);
try {
  addon.tg_ige256_encrypt(out, message, 32, key, iv); // 32 bytes asked of 16-byte arrays
} catch (error) {
  console.log(`a length past its buffer: ${error.name}: ${error.message}`);
}
