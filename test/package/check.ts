/**
 * Run by test/package/run.sh inside an empty project where the packed
 * tarballs were installed (under Bun, Deno, and as a `bun build --compile`
 * executable): a known answer and a round trip through the installed
 * package. Prints the loaded library's path for run.sh to check; throws
 * (non-zero exit) on a wrong result.
 */
import { backend, cbc256Encrypt, ige256Decrypt, ige256Encrypt, libraryPath, version } from "tgcrypto-ffi";

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const sequence = (length: number, start = 0) => Uint8Array.from({ length }, (_, i) => (start + i) & 0xff);

// FIPS-197 C.3: AES-256, key 00..1f, plaintext 00112233..ff; one CBC block with a zero IV is plain AES.
const fips = cbc256Encrypt(Uint8Array.from(sequence(16), (b) => b * 0x11), sequence(32), new Uint8Array(16));
if (hex(fips) !== "8ea2b7ca516745bfeafc49904b496089") throw new Error(`FIPS-197 AES-256 mismatch: ${hex(fips)}`);

const message = sequence(1024, 7);
const key = sequence(32, 100);
const iv = sequence(32, 200);
const encrypted = ige256Encrypt(message, key, iv);
if (hex(encrypted) === hex(message) || hex(ige256Decrypt(encrypted, key, iv)) !== hex(message)) {
  throw new Error("IGE round trip failed");
}

console.log(`library: ${libraryPath()}`);
console.log(`version: ${version()}, backend: ${backend()}`);
console.log("check ok");
