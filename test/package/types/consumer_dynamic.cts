// A CommonJS consumer (a script: no exports): the ES module package through import(), which every
// moduleResolution allows.
async function main(): Promise<void> {
  const { sha256 } = await import("tgcrypto-ffi");
  const { installGramJS } = await import("tgcrypto-ffi/gramjs");
  const { createAesIge } = await import("tgcrypto-ffi/mtcute");
  const digest: Uint8Array = sha256(new Uint8Array(0));
  installGramJS({ resolveFrom: "/srv/bot/app.js" }); // no @types/node: no __filename
  createAesIge(digest, digest);
}
void main();
