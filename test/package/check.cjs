// Run by test/package/run.sh under Node.js 22, 24 and 26 (and arm64 Node under
// QEMU), in the empty project where the packed tarballs were installed: the
// CommonJS side. require() of the main entry and both subpaths must work
// (require(esm): the package is one ES module build with no top-level await),
// give the same module instances as import() (no dual-package hazard: one
// TgCryptoError class, one library binding), and compute right.
"use strict";
const assert = require("node:assert/strict");

const main = require("tgcrypto-ffi");
const gramjs = require("tgcrypto-ffi/gramjs");
const mtcute = require("tgcrypto-ffi/mtcute");
const hex = (bytes) => Buffer.from(bytes).toString("hex");
const sequence = (length, start = 0) => Uint8Array.from({ length }, (_, i) => (start + i) & 0xff);

// FIPS-197 C.3 (AES-256) as one CBC block with a zero IV, and an IGE round trip.
const fips = main.cbc256Encrypt(Uint8Array.from(sequence(16), (b) => b * 0x11), sequence(32), new Uint8Array(16));
assert.equal(hex(fips), "8ea2b7ca516745bfeafc49904b496089");
const message = sequence(1024, 7), key = sequence(32, 100), iv = sequence(32, 200);
assert.equal(hex(main.ige256Decrypt(main.ige256Encrypt(message, key, iv), key, iv)), hex(message));
assert.throws(() => main.ige256Encrypt(new Uint8Array(15), key, iv), {
  name: "RangeError",
  message: "Data size must match a multiple of 16 bytes",
});
console.log(`require: library: ${main.libraryPath()}`);
console.log(`require: version ${main.version()}, backend ${main.backend()}, node ${process.version}`);

// The GramJS drop-in without telegram installed: a clear error naming the version to install.
assert.throws(() => gramjs.installGramJS(), /telegram@2\.26\.22/);
// The mtcute drop-in over a provider-shaped object: sha256("abc") and a known pq, natively.
const notCalled = () => { throw new Error("the wrapped provider's hook was called instead of the native one"); };
const provider = mtcute.nativeCrypto({
  sha1: notCalled, sha256: notCalled, createAesCtr: notCalled, createAesIge: notCalled, factorizePQ: notCalled,
  randomFill: (buf) => buf.fill(7), randomBytes: (size) => new Uint8Array(size).fill(7),
});
assert.equal(hex(provider.sha256(Buffer.from("abc"))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
const [p, q] = provider.factorizePQ(Uint8Array.from([0x17, 0xed, 0x48, 0x94, 0x1a, 0x08, 0xf9, 0x81]));
assert.equal(`${hex(p)} ${hex(q)}`, "494c553b 53911073");

// One instance for require and import.
(async () => {
  const imported = await import("tgcrypto-ffi");
  assert.equal(imported.TgCryptoError, main.TgCryptoError, "import and require gave two TgCryptoError classes");
  assert.equal(imported.ige256Encrypt, main.ige256Encrypt);
  assert.equal((await import("tgcrypto-ffi/gramjs")).installGramJS, gramjs.installGramJS);
  assert.equal((await import("tgcrypto-ffi/mtcute")).nativeCrypto, mtcute.nativeCrypto);
  console.log("require and import: one module instance");
  console.log("check.cjs ok");
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
