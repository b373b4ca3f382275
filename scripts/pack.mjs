#!/usr/bin/env node
// Stages and packs the npm packages, the way native-binary JS packages ship:
//   zig-out/npm/tgcrypto-ffi/         the API + loader (tsc's JS and .d.ts),
//                                     with every platform package as an
//                                     optional dependency at its own version
//   zig-out/npm/tgcrypto-ffi-<dir>/   one per `zig build dist` directory: the
//                                     library + an index exporting its path
//   zig-out/npm/tarballs/*.tgz        `npm pack` of each
// Run `./scripts/zig build dist` first (`npm run pack:all` does both).
// The version is the root package.json's; publish the platform packages
// before the main one, all at the same version.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = join(root, "zig-out/dist");
const stage = join(root, "zig-out/npm");
const tarballs = join(stage, "tarballs");
const rootPackage = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const { name, version, description, license } = rootPackage;

// The `zig build dist` directories; `libc` only on Linux (npm skips packages
// whose os/cpu/libc do not match; Deno ignores libc, which the loader covers).
const platforms = [
  { dir: "linux-x64-gnu", os: "linux", cpu: "x64", libc: "glibc", file: "libtgcrypto.so", label: "Linux x64 (glibc)" },
  { dir: "linux-arm64-gnu", os: "linux", cpu: "arm64", libc: "glibc", file: "libtgcrypto.so", label: "Linux arm64 (glibc)" },
  { dir: "linux-x64-musl", os: "linux", cpu: "x64", libc: "musl", file: "libtgcrypto.so", label: "Linux x64 (musl)" },
  { dir: "linux-arm64-musl", os: "linux", cpu: "arm64", libc: "musl", file: "libtgcrypto.so", label: "Linux arm64 (musl)" },
  { dir: "darwin-x64", os: "darwin", cpu: "x64", file: "libtgcrypto.dylib", label: "macOS x64" },
  { dir: "darwin-arm64", os: "darwin", cpu: "arm64", file: "libtgcrypto.dylib", label: "macOS arm64" },
  { dir: "win32-x64", os: "win32", cpu: "x64", file: "tgcrypto.dll", label: "Windows x64" },
  { dir: "win32-arm64", os: "win32", cpu: "arm64", file: "tgcrypto.dll", label: "Windows arm64" },
];

const writeJson = (path, value) => writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
const common = { version, license, type: "module" };
/** README.md/LICENSE go into every package when the repo has them. */
function copyDocs(dir) {
  for (const doc of ["README.md", "LICENSE"]) {
    if (existsSync(join(root, doc))) copyFileSync(join(root, doc), join(dir, doc));
  }
}

rmSync(stage, { recursive: true, force: true });
mkdirSync(tarballs, { recursive: true });
const staged = [];

for (const p of platforms) {
  const library = join(dist, p.dir, p.file);
  if (!existsSync(library)) throw new Error(`${library} is missing: run ./scripts/zig build dist first`);
  const dir = join(stage, `${name}-${p.dir}`);
  mkdirSync(dir);
  copyFileSync(library, join(dir, p.file));
  // Plain runtimes get the path on disk; Bun's "file" import gives the same
  // path when run, and makes `bun build --compile` embed the library.
  writeFileSync(
    join(dir, "index.js"),
    `import { fileURLToPath } from "node:url";\n\n` +
      `export default fileURLToPath(new URL("./${p.file}", import.meta.url));\n`,
  );
  writeFileSync(
    join(dir, "index.bun.js"),
    `import path from "./${p.file}" with { type: "file" };\n\nexport default path;\n`,
  );
  writeFileSync(join(dir, "index.d.ts"), `/** Path of ${p.file}. */\ndeclare const path: string;\nexport default path;\n`);
  writeJson(join(dir, "package.json"), {
    name: `${name}-${p.dir}`,
    ...common,
    description: `libtgcrypto for ${p.label}: the native part of ${name}`,
    os: [p.os],
    cpu: [p.cpu],
    ...(p.libc ? { libc: [p.libc] } : {}),
    exports: { ".": { types: "./index.d.ts", bun: "./index.bun.js", default: "./index.js" } },
    files: [p.file, "index.js", "index.bun.js", "index.d.ts"],
  });
  copyDocs(dir);
  staged.push(dir);
}

const main = join(stage, name);
execFileSync(join(root, "node_modules/.bin/tsc"), ["-p", join(root, "tsconfig.build.json"), "--outDir", join(main, "js")], {
  stdio: "inherit",
});
writeJson(join(main, "package.json"), {
  name,
  ...common,
  description,
  exports: {
    ".": { types: "./js/mod.d.ts", default: "./js/mod.js" },
    // Drop-in integrations (they load telegram / use mtcute only when called).
    "./gramjs": { types: "./js/clients/gramjs.d.ts", default: "./js/clients/gramjs.js" },
    "./mtcute": { types: "./js/clients/mtcute.d.ts", default: "./js/clients/mtcute.js" },
  },
  files: ["js/"],
  optionalDependencies: Object.fromEntries(platforms.map((p) => [`${name}-${p.dir}`, version])),
});
copyDocs(main);
staged.push(main);

for (const dir of staged) {
  execFileSync("npm", ["pack", "--silent", "--pack-destination", tarballs], { cwd: dir, stdio: ["ignore", "inherit", "inherit"] });
}
console.log(`packed ${staged.length} packages (version ${version}) into ${tarballs}`);
