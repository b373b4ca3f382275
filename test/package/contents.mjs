// node test/package/contents.mjs TARBALL_DIR VERSION
// Checks what scripts/pack.mjs produced: the file list and package.json of
// every tarball, read from the tarballs themselves (what npm would publish).
import { execFileSync } from "node:child_process";
import { join } from "node:path";

const [dir, version] = process.argv.slice(2);
const platforms = {
  "linux-x64-gnu": ["linux", "x64", "glibc", "libtgcrypto.so"],
  "linux-arm64-gnu": ["linux", "arm64", "glibc", "libtgcrypto.so"],
  "linux-x64-musl": ["linux", "x64", "musl", "libtgcrypto.so"],
  "linux-arm64-musl": ["linux", "arm64", "musl", "libtgcrypto.so"],
  "darwin-x64": ["darwin", "x64", undefined, "libtgcrypto.dylib"],
  "darwin-arm64": ["darwin", "arm64", undefined, "libtgcrypto.dylib"],
  "win32-x64": ["win32", "x64", undefined, "tgcrypto.dll"],
  "win32-arm64": ["win32", "arm64", undefined, "tgcrypto.dll"],
};
let problems = 0;
const expect = (ok, what) => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) problems++;
};
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Files (without the leading "package/") and parsed package.json of a tarball. */
function read(name) {
  const tarball = join(dir, `${name}-${version}.tgz`);
  const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
    .split("\n").filter(Boolean).map((f) => f.replace(/^package\//, "")).sort();
  const manifest = JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" }));
  return { files, manifest };
}

const main = read("tgcrypto-ffi");
expect(main.manifest.version === version, `tgcrypto-ffi ${version}`);
expect(
  same(main.manifest.optionalDependencies, Object.fromEntries(Object.keys(platforms).map((p) => [`tgcrypto-ffi-${p}`, version]))),
  "tgcrypto-ffi: every platform package is an optional dependency at exactly its own version",
);
expect(main.files.includes("js/mod.js") && main.files.includes("js/mod.d.ts"), "tgcrypto-ffi: js/mod.js + js/mod.d.ts");
expect(!main.files.some((f) => /(?<!\.d)\.ts$/.test(f)), "tgcrypto-ffi: no .ts sources (Deno cannot run them from node_modules)");
expect(main.manifest.exports["."].default === "./js/mod.js", "tgcrypto-ffi: exports ./js/mod.js");
expect(main.manifest.engines?.node === ">=22.12", "tgcrypto-ffi: engines.node >=22.12 (require(esm) without a flag or warning)");
for (const [subpath, file] of [["./gramjs", "clients/gramjs"], ["./mtcute", "clients/mtcute"]]) {
  expect(
    same(main.manifest.exports[subpath], { types: `./js/${file}.d.ts`, default: `./js/${file}.js` }) &&
      main.files.includes(`js/${file}.js`) && main.files.includes(`js/${file}.d.ts`),
    `tgcrypto-ffi: exports ${subpath} (js/${file}.js + .d.ts)`,
  );
}

for (const [platform, [os, cpu, libc, library]] of Object.entries(platforms)) {
  const name = `tgcrypto-ffi-${platform}`;
  const { files, manifest } = read(name);
  expect(same(files, [library, "tgcrypto.node", "LICENSE", "README.md", "index.bun.js", "index.d.ts", "index.js", "package.json"].sort()), `${name}: ${files.join(" ")}`);
  expect(
    manifest.version === version && same(manifest.os, [os]) && same(manifest.cpu, [cpu]) &&
      same(manifest.libc, libc && [libc]),
    `${name}: ${version}, os ${os}, cpu ${cpu}, libc ${libc ?? "(none)"}`,
  );
  expect(same(manifest.exports["."], { types: "./index.d.ts", bun: "./index.bun.js", default: "./index.js" }), `${name}: exports`);
}
process.exit(problems === 0 ? 0 : 1);
