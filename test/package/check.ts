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

// The drop-in subpaths. No client is installed here: importing them must not need one, installGramJS must say
// which telegram version to install, and nativeCrypto sets its native members on any provider-shaped object.
const gramjs = await import("tgcrypto-ffi/gramjs");
try {
  gramjs.installGramJS();
  throw new Error("installGramJS succeeded without telegram installed");
} catch (error) {
  const message = String((error as Error).message);
  if (!message.includes("telegram@2.26.22")) throw new Error(`installGramJS: unclear error: ${message}`);
}
const { nativeCrypto } = await import("tgcrypto-ffi/mtcute");
const notCalled = (..._args: unknown[]): never => {
  throw new Error("the provider's own hook was called instead of the native one");
};
const provider = nativeCrypto({
  sha1: notCalled,
  sha256: notCalled,
  createAesCtr: notCalled,
  createAesIge: notCalled,
  factorizePQ: notCalled,
  randomFill: (buf: Uint8Array) => buf.fill(7),
  randomBytes: (size: number) => new Uint8Array(size).fill(7),
});
// FIPS 180-4 example: SHA-256("abc").
const abc = hex(provider.sha256(new Uint8Array([0x61, 0x62, 0x63])));
if (abc !== "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") throw new Error(`sha256: ${abc}`);
const [p, q] = provider.factorizePQ(Uint8Array.from([0x17, 0xed, 0x48, 0x94, 0x1a, 0x08, 0xf9, 0x81])) as Uint8Array[];
if (hex(p!) !== "494c553b" || hex(q!) !== "53911073") throw new Error(`factorizePQ: ${hex(p!)} ${hex(q!)}`);
console.log("subpaths ok");
console.log("check ok");
