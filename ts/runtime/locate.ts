/**
 * Finds what a binding loads: the libtgcrypto shared library (Bun, Deno) or
 * the Node-API addon tgcrypto.node (Node.js). Runtime-neutral and
 * synchronous (no top-level await anywhere, so the package can be
 * `require()`d in Node.js).
 *
 * Order: `TGCRYPTO_LIB` (exclusive; for the addon `TGCRYPTO_ADDON`, else the
 * addon beside `TGCRYPTO_LIB`), then the dev build in zig-out/ (a source
 * checkout), then the platform package `tgcrypto-ffi-<platform>` that npm
 * installed as an optional dependency (it holds both files).
 *
 * @module
 */

import { readFileSync, statSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

/** Environment variable holding an explicit path to the shared library. */
export const LIBRARY_PATH_ENV = "TGCRYPTO_LIB";

/** Environment variable overriding the detected C library on Linux: "musl" or "glibc". */
export const LIBC_ENV = "TGCRYPTO_LIBC";

/** A place the library may be, in the order they are tried. */
export interface LibraryCandidate {
  /** Absolute (or user-given) file path. */
  readonly path: string;
  /** Where the candidate comes from, for error messages (e.g. "dev build"). */
  readonly origin: string;
}

/** Minimal view of the `Deno` global used here; avoids needing Deno's types. */
interface DenoEnvironment {
  readonly env: { get(name: string): string | undefined };
  readonly permissions?: {
    querySync?(descriptor: { name: "env"; variable: string } | { name: "read"; path: string }): { state: string };
  };
  readonly build: { readonly os: string; readonly arch: string };
}

/** Minimal view of Node's/Bun's `process` global. */
interface ProcessEnvironment {
  readonly env: Record<string, string | undefined>;
  readonly platform: string;
  readonly arch: string;
}

/** The two file-system calls made here (node:fs, which Bun and Deno provide too). */
export interface FileSystem {
  statSync(path: string): { isFile(): boolean };
  readFileSync(path: string, encoding: "utf8"): string;
}

/**
 * Everything the search reads from outside: the runtime globals (the
 * environment, the platform, Deno's permissions) and the file system. Every
 * exported function takes one, by default {@link processHost}; the tests pass
 * stubs to walk each decision.
 */
export interface LocateHost {
  readonly Deno?: DenoEnvironment;
  readonly process?: ProcessEnvironment;
  readonly fs: FileSystem;
}

/** This process: its `Deno` or `process` global, read at the call, and node:fs. */
export function processHost(): LocateHost {
  const globals = globalThis as { Deno?: DenoEnvironment; process?: ProcessEnvironment };
  return { Deno: globals.Deno, process: globals.process, fs: { statSync, readFileSync } };
}

/**
 * False when Deno has not granted `descriptor`. Asked with `querySync` first
 * so that merely importing the package never triggers a permission prompt.
 */
function denoGranted(
  host: LocateHost,
  descriptor: { name: "env"; variable: string } | { name: "read"; path: string },
): boolean {
  const permissions = host.Deno?.permissions;
  return permissions?.querySync === undefined || permissions.querySync(descriptor).state === "granted";
}

/**
 * Reads an environment variable; undefined when unset, empty, or not readable.
 * In Deno a variable without `--allow-env` permission counts as unset.
 */
export function readEnv(name: string, host: LocateHost = processHost()): string | undefined {
  let value: string | undefined;
  try {
    const deno = host.Deno;
    if (deno !== undefined) {
      if (!denoGranted(host, { name: "env", variable: name })) return undefined;
      value = deno.env.get(name);
    } else {
      value = host.process?.env[name];
    }
  } catch {
    return undefined; // permission errors (NotCapable/PermissionDenied): treat as unset
  }
  return value === "" ? undefined : value;
}

/** The operating system as Node names it ("linux", "darwin", "win32", ...). */
export function currentPlatform(host: LocateHost = processHost()): string {
  const deno = host.Deno;
  if (deno !== undefined) return deno.build.os === "windows" ? "win32" : deno.build.os;
  return host.process?.platform ?? "unknown";
}

/** The CPU architecture as Node names it ("x64", "arm64", ...). */
export function currentArch(host: LocateHost = processHost()): string {
  const deno = host.Deno;
  if (deno !== undefined) {
    const arch = deno.build.arch;
    return arch === "x86_64" ? "x64" : arch === "aarch64" ? "arm64" : arch;
  }
  return host.process?.arch ?? "unknown";
}

/** "missing" only when the file surely does not exist; a denied stat may still be loadable. */
function probeFile(host: LocateHost, path: string): "present" | "missing" | "unknown" {
  try {
    if (!denoGranted(host, { name: "read", path })) return "unknown";
    return host.fs.statSync(path).isFile() ? "present" : "missing";
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return code === "ENOENT" || code === "ENOTDIR" ? "missing" : "unknown";
  }
}

/**
 * The C library of this Linux process: `TGCRYPTO_LIBC` if set, else musl when
 * the process has the musl loader mapped, else glibc. The mapping is asked
 * rather than /lib/ld-musl-*.so.1 alone, because glibc distributions can have
 * musl installed too (Debian's `musl` package ships that file). Without read
 * permission (Deno without --allow-read) the answer is glibc.
 *
 * @throws {Error} when `TGCRYPTO_LIBC` is neither "musl" nor "glibc"
 */
export function currentLibc(host: LocateHost = processHost()): "glibc" | "musl" {
  const override = readEnv(LIBC_ENV, host);
  if (override === "musl" || override === "glibc") return override;
  if (override !== undefined) {
    throw new Error(`tgcrypto-ffi: ${LIBC_ENV} must be "musl" or "glibc", not ${JSON.stringify(override)}`);
  }
  const maps = "/proc/self/maps";
  try {
    if (denoGranted(host, { name: "read", path: maps })) {
      return /\/ld-musl-|\/libc\.musl-/.test(host.fs.readFileSync(maps, "utf8")) ? "musl" : "glibc";
    }
  } catch {
    // no /proc (or not readable): fall back to the loader file
  }
  const loader = `/lib/ld-musl-${currentArch(host) === "arm64" ? "aarch64" : "x86_64"}.so.1`;
  return probeFile(host, loader) === "present" ? "musl" : "glibc";
}

/**
 * The platform directory/package suffix this process needs, as
 * `zig build dist` names it ("linux-x64-gnu", "darwin-arm64", ...): a
 * description of the platform, and whether a package is published for it.
 */
export function platformTarget(host: LocateHost = processHost()): { readonly name: string; readonly supported: boolean } {
  const platform = currentPlatform(host);
  const arch = currentArch(host);
  const base = `${platform}-${arch}`;
  const name = platform === "linux" ? `${base}-${currentLibc(host) === "musl" ? "musl" : "gnu"}` : base;
  const supported = ["linux", "darwin", "win32"].includes(platform) && ["x64", "arm64"].includes(arch);
  return { name, supported };
}

/** What a binding loads: the shared library (bun:ffi, Deno.dlopen) or the Node-API addon (Node.js). */
export type NativeArtifact = "library" | "addon";

/** Environment variable holding an explicit path to the Node-API addon (tgcrypto.node). */
export const ADDON_PATH_ENV = "TGCRYPTO_ADDON";

/** File name of the addon, in the dev build and in every platform package. */
export const ADDON_FILE = "tgcrypto.node";

/**
 * Where a platform package's copy of an artifact is: the package name
 * (`tgcrypto-ffi-linux-x64-gnu`, ...) -> the file's path, or undefined when
 * the package is not installed. Bun passes one that `require`s the package
 * literally (so `bun build --compile` embeds the library).
 */
export type PlatformPackageFile = (packageName: string) => string | undefined;

/** File name of the shared library in a platform package (as `zig build dist` names it). */
export function libraryFile(platform: string): string {
  return platform === "win32" ? "tgcrypto.dll" : platform === "darwin" ? "libtgcrypto.dylib" : "libtgcrypto.so";
}

/** `import.meta.resolve` (typed here: not every type checker used on this file declares it). */
type ImportMetaResolve = ImportMeta & { resolve(specifier: string): string };

/**
 * The default {@link PlatformPackageFile}: resolves the package from this
 * module (synchronously, without running it: `import.meta.resolve` works the
 * same in Node.js, Deno and Bun) and takes `file` beside its index.
 */
export function fileInPlatformPackage(file: string): PlatformPackageFile {
  return (packageName) => {
    try {
      return fileURLToPath(new URL(`./${file}`, (import.meta as ImportMetaResolve).resolve(packageName)));
    } catch {
      return undefined; // not installed (npm skipped it, or optional dependencies were omitted)
    }
  };
}

/** Path of an artifact that `zig build` produces, relative to the zig-out/ prefix. */
function devBuildFile(platform: string, artifact: NativeArtifact): string {
  if (artifact === "addon") return `zig-out/lib/${ADDON_FILE}`;
  if (platform === "win32") return "zig-out/bin/tgcrypto.dll";
  return `zig-out/lib/${libraryFile(platform)}`;
}

/** The package root as a file: URL string; this file lives in `<root>/ts/runtime/` (`<root>/js/runtime/` when packed). */
function packageRoot(): string {
  return new URL("../../", import.meta.url).href;
}

/** The explicit path from the environment, if any (exclusive: a missing file is an error, never a fallback). */
function fromEnvironment(host: LocateHost, artifact: NativeArtifact): LibraryCandidate | undefined {
  const library = readEnv(LIBRARY_PATH_ENV, host);
  if (artifact === "library") {
    if (library === undefined) return undefined;
    if (probeFile(host, library) !== "missing") return { path: library, origin: `$${LIBRARY_PATH_ENV}` };
    throw new Error(`tgcrypto-ffi: native library not found: ${LIBRARY_PATH_ENV}=${library} does not exist.`);
  }
  const addon = readEnv(ADDON_PATH_ENV, host);
  if (addon !== undefined) {
    if (probeFile(host, addon) !== "missing") return { path: addon, origin: `$${ADDON_PATH_ENV}` };
    throw new Error(`tgcrypto-ffi: Node-API addon not found: ${ADDON_PATH_ENV}=${addon} does not exist.`);
  }
  if (library === undefined) return undefined;
  // TGCRYPTO_LIB names a shared library, which Node.js cannot load: the addon ships beside it.
  const beside = fileURLToPath(new URL(`./${ADDON_FILE}`, pathToFileURL(library)));
  if (probeFile(host, beside) !== "missing") return { path: beside, origin: `beside $${LIBRARY_PATH_ENV}` };
  throw new Error(
    `tgcrypto-ffi: Node-API addon not found: ${LIBRARY_PATH_ENV}=${library} is set, and Node.js loads ` +
      `${ADDON_FILE} from the same directory (${beside} does not exist). Set ${ADDON_PATH_ENV} to the path of ` +
      `${ADDON_FILE}, or unset ${LIBRARY_PATH_ENV}.`,
  );
}

/**
 * Returns the shared library (or the Node-API addon) to load, synchronously.
 * `TGCRYPTO_LIB` (`TGCRYPTO_ADDON` for the addon, else the addon beside
 * `TGCRYPTO_LIB`) wins outright: when set it is the only candidate, so a typo
 * is reported instead of silently loading some other build. Otherwise the
 * dev build if it exists, else the platform package. A candidate that cannot
 * be checked (Deno without --allow-read) is still returned and left for
 * dlopen to judge, the platform package first.
 *
 * @param fromPackage finds the artifact in an installed platform package
 *   (default: {@link fileInPlatformPackage})
 * @param host the environment and file system searched (default: {@link processHost})
 * @throws {Error} naming the platform package it looked for, the detected
 *   platform, the environment overrides, and every path tried.
 */
export function locateNative(
  artifact: NativeArtifact,
  fromPackage?: PlatformPackageFile,
  host: LocateHost = processHost(),
): LibraryCandidate {
  const explicit = fromEnvironment(host, artifact);
  if (explicit !== undefined) return explicit;

  const platform = currentPlatform(host);

  const dev = {
    path: fileURLToPath(new URL(devBuildFile(platform, artifact), packageRoot())),
    origin: "dev build",
  };
  const devState = probeFile(host, dev.path);
  if (devState === "present") return dev;

  const target = platformTarget(host);
  const packageName = `tgcrypto-ffi-${target.name}`;
  const packageFile = fromPackage ?? fileInPlatformPackage(artifact === "addon" ? ADDON_FILE : libraryFile(platform));
  const packagePath = target.supported ? packageFile(packageName) : undefined;
  if (packagePath !== undefined && probeFile(host, packagePath) !== "missing") {
    return { path: packagePath, origin: `package ${packageName}` };
  }
  if (devState === "unknown") {
    return { ...dev, origin: `dev build, unchecked (no read permission); ${packageName} is not installed` };
  }

  const what = artifact === "addon" ? `Node-API addon (${ADDON_FILE})` : "native library";
  const tried = [
    `  ${dev.path} (dev build): not found`,
    packagePath === undefined
      ? `  ${packageName} (platform package): ${target.supported ? "not installed" : "not published for this platform"}`
      : `  ${packagePath} (package ${packageName}): not found`,
  ];
  throw new Error(
    `tgcrypto-ffi: ${what} not found (detected platform: ${target.name}). Tried:\n${tried.join("\n")}\n` +
      (target.supported
        ? `Install ${packageName} (an optional dependency of tgcrypto-ffi; check that optional ` +
          `dependencies were not omitted, e.g. by --omit=optional).\n`
        : "") +
      (platform === "linux"
        ? `If the C library was detected wrongly, set ${LIBC_ENV}=musl or glibc (now ${readEnv(LIBC_ENV, host) ?? "unset"}).\n`
        : "") +
      (artifact === "addon"
        ? `Or set ${ADDON_PATH_ENV} to the path of a ${ADDON_FILE} ` +
          `(in a source checkout, \`npm run build\` builds one into zig-out/lib/).`
        : `Or set ${LIBRARY_PATH_ENV} to the path of a libtgcrypto shared library ` +
          `(in a source checkout, \`npm run build\` builds one into zig-out/).`),
  );
}
