#!/usr/bin/env node
// Stages and packs the npm packages, the way native-binary JS packages ship:
//   zig-out/npm/tgcrypto-ffi/         the API + loader (tsc's JS and .d.ts),
//                                     with every platform package as an
//                                     optional dependency at its own version
//   zig-out/npm/tgcrypto-ffi-<dir>/   one per `zig build dist` directory: the
//                                     library and the Node-API addon
//                                     (tgcrypto.node) + an index exporting
//                                     their paths
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

/** The Node-API addon, in every `zig build dist` directory and platform package. */
const addonFile = "tgcrypto.node";
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
  const dir = join(stage, `${name}-${p.dir}`);
  mkdirSync(dir);
  for (const file of [p.file, addonFile]) {
    const built = join(dist, p.dir, file);
    if (!existsSync(built)) throw new Error(`${built} is missing: run ./scripts/zig build dist first`);
    copyFileSync(built, join(dir, file));
  }
  // Plain runtimes get the paths on disk; Bun's "file" import gives the same
  // path when run, and makes `bun build --compile` embed the library (not
  // the addon: Bun uses bun:ffi). The loader itself (ts/runtime/locate.ts)
  // only resolves this package and takes the files beside its index, except
  // in Bun, where it requires the package for the embedding.
  const addonLine = `/** Path of the Node-API addon (Node.js loads it; Bun and Deno use the library). */\n` +
    `export const addon = fileURLToPath(new URL("./${addonFile}", import.meta.url));\n`;
  writeFileSync(
    join(dir, "index.js"),
    `import { fileURLToPath } from "node:url";\n\n` +
      `export default fileURLToPath(new URL("./${p.file}", import.meta.url));\n` + addonLine,
  );
  // A plain `bun build` (no --compile) copies the library beside the bundle
  // and gives its path as "./<name>", relative to the bundle (not to the
  // cwd): resolved against import.meta.url, which is then the bundle's.
  writeFileSync(
    join(dir, "index.bun.js"),
    `import { isAbsolute } from "node:path";\nimport { fileURLToPath } from "node:url";\n` +
      `import file from "./${p.file}" with { type: "file" };\n\n` +
      `/** Absolute when run from node_modules or a compiled executable; "./<name>" beside a plain bundle. */\n` +
      `export default isAbsolute(file) ? file : fileURLToPath(new URL(file, import.meta.url));\n` + addonLine,
  );
  writeFileSync(
    join(dir, "index.d.ts"),
    `/** Path of ${p.file}. */\ndeclare const path: string;\nexport default path;\n` +
      `/** Path of ${addonFile} (the Node-API addon). */\nexport declare const addon: string;\n`,
  );
  writeJson(join(dir, "package.json"), {
    name: `${name}-${p.dir}`,
    ...common,
    description: `libtgcrypto for ${p.label}: the native part of ${name}`,
    os: [p.os],
    cpu: [p.cpu],
    ...(p.libc ? { libc: [p.libc] } : {}),
    exports: { ".": { types: "./index.d.ts", bun: "./index.bun.js", default: "./index.js" } },
    files: [p.file, addonFile, "index.js", "index.bun.js", "index.d.ts"],
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
  // TypeScript's moduleResolution node10 reads neither "exports" nor its
  // conditions: the main entry's types and the subpaths' come from these.
  types: "./js/mod.d.ts",
  typesVersions: { "*": { gramjs: ["./js/clients/gramjs.d.ts"], mtcute: ["./js/clients/mtcute.d.ts"] } },
  files: ["js/"],
  // Node.js: require() of this ES module package (require(esm), no warning) from 22.12 on.
  engines: { node: rootPackage.engines.node },
  optionalDependencies: Object.fromEntries(platforms.map((p) => [`${name}-${p.dir}`, version])),
});
copyDocs(main);
staged.push(main);

for (const dir of staged) {
  execFileSync("npm", ["pack", "--silent", "--pack-destination", tarballs], { cwd: dir, stdio: ["ignore", "inherit", "inherit"] });
}
console.log(`packed ${staged.length} packages (version ${version}) into ${tarballs}`);
