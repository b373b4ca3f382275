/**
 * Finds the libtgcrypto shared library to load. Runtime-neutral: works in
 * Bun and Deno (and imports cleanly in Node).
 *
 * Order: `TGCRYPTO_LIB` (exclusive), then the dev build in zig-out/ (a
 * source checkout), then the platform package `tgcrypto-ffi-<platform>`
 * that npm installed as an optional dependency.
 *
 * @module
 */

import { readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

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

const runtimeGlobals = globalThis as { Deno?: DenoEnvironment; process?: ProcessEnvironment };

/**
 * False when Deno has not granted `descriptor`. Asked with `querySync` first
 * so that merely importing the package never triggers a permission prompt.
 */
function denoGranted(descriptor: { name: "env"; variable: string } | { name: "read"; path: string }): boolean {
  const permissions = runtimeGlobals.Deno?.permissions;
  return permissions?.querySync === undefined || permissions.querySync(descriptor).state === "granted";
}

/**
 * Reads an environment variable; undefined when unset, empty, or not readable.
 * In Deno a variable without `--allow-env` permission counts as unset.
 */
export function readEnv(name: string): string | undefined {
  let value: string | undefined;
  try {
    const deno = runtimeGlobals.Deno;
    if (deno !== undefined) {
      if (!denoGranted({ name: "env", variable: name })) return undefined;
      value = deno.env.get(name);
    } else {
      value = runtimeGlobals.process?.env[name];
    }
  } catch {
    return undefined; // permission errors (NotCapable/PermissionDenied): treat as unset
  }
  return value === "" ? undefined : value;
}

/** The operating system as Node names it ("linux", "darwin", "win32", ...). */
export function currentPlatform(): string {
  const deno = runtimeGlobals.Deno;
  if (deno !== undefined) return deno.build.os === "windows" ? "win32" : deno.build.os;
  return runtimeGlobals.process?.platform ?? "unknown";
}

/** The CPU architecture as Node names it ("x64", "arm64", ...). */
export function currentArch(): string {
  const deno = runtimeGlobals.Deno;
  if (deno !== undefined) {
    const arch = deno.build.arch;
    return arch === "x86_64" ? "x64" : arch === "aarch64" ? "arm64" : arch;
  }
  return runtimeGlobals.process?.arch ?? "unknown";
}

/** "missing" only when the file surely does not exist; a denied stat may still be loadable. */
function probeFile(path: string): "present" | "missing" | "unknown" {
  try {
    if (!denoGranted({ name: "read", path })) return "unknown";
    return statSync(path).isFile() ? "present" : "missing";
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
export function currentLibc(): "glibc" | "musl" {
  const override = readEnv(LIBC_ENV);
  if (override === "musl" || override === "glibc") return override;
  if (override !== undefined) {
    throw new Error(`tgcrypto-ffi: ${LIBC_ENV} must be "musl" or "glibc", not ${JSON.stringify(override)}`);
  }
  const maps = "/proc/self/maps";
  try {
    if (denoGranted({ name: "read", path: maps })) {
      return /\/ld-musl-|\/libc\.musl-/.test(readFileSync(maps, "utf8")) ? "musl" : "glibc";
    }
  } catch {
    // no /proc (or not readable): fall back to the loader file
  }
  const loader = `/lib/ld-musl-${currentArch() === "arm64" ? "aarch64" : "x86_64"}.so.1`;
  return probeFile(loader) === "present" ? "musl" : "glibc";
}

/**
 * The platform directory/package suffix this process needs, as
 * `zig build dist` names it ("linux-x64-gnu", "darwin-arm64", ...): a
 * description of the platform, and whether a package is published for it.
 */
export function platformTarget(): { readonly name: string; readonly supported: boolean } {
  const platform = currentPlatform();
  const arch = currentArch();
  const base = `${platform}-${arch}`;
  const name = platform === "linux" ? `${base}-${currentLibc() === "musl" ? "musl" : "gnu"}` : base;
  const supported = ["linux", "darwin", "win32"].includes(platform) && ["x64", "arm64"].includes(arch);
  return { name, supported };
}

/**
 * Imports the platform package and returns its default export: the path of
 * the library inside it. One literal import per package so that bundlers
 * (`bun build --compile`) see them all and embed the installed one; the
 * try/catch lets them skip the others, which are never installed together.
 * Undefined when the package is not installed.
 */
async function importPlatformPackage(target: string): Promise<string | undefined> {
  try {
    switch (target) {
      case "linux-x64-gnu": return (await import("tgcrypto-ffi-linux-x64-gnu")).default;
      case "linux-arm64-gnu": return (await import("tgcrypto-ffi-linux-arm64-gnu")).default;
      case "linux-x64-musl": return (await import("tgcrypto-ffi-linux-x64-musl")).default;
      case "linux-arm64-musl": return (await import("tgcrypto-ffi-linux-arm64-musl")).default;
      case "darwin-x64": return (await import("tgcrypto-ffi-darwin-x64")).default;
      case "darwin-arm64": return (await import("tgcrypto-ffi-darwin-arm64")).default;
      case "win32-x64": return (await import("tgcrypto-ffi-win32-x64")).default;
      case "win32-arm64": return (await import("tgcrypto-ffi-win32-arm64")).default;
    }
  } catch {
    // not installed (npm skipped it, or optional dependencies were omitted)
  }
  return undefined;
}

/** Path of the library that `zig build` produces, relative to the zig-out/ prefix. */
function devBuildFile(platform: string): string {
  if (platform === "win32") return "zig-out/bin/tgcrypto.dll";
  if (platform === "darwin") return "zig-out/lib/libtgcrypto.dylib";
  return "zig-out/lib/libtgcrypto.so";
}

/** The package root as a file: URL string; this file lives in `<root>/ts/runtime/` (`<root>/js/runtime/` when packed). */
function packageRoot(): string {
  return new URL("../../", import.meta.url).href;
}

/**
 * Returns the library to load. `TGCRYPTO_LIB` wins outright: when set it is
 * the only candidate, so a typo is reported instead of silently loading some
 * other build. Otherwise the dev build if it exists, else the platform
 * package. A candidate that cannot be checked (Deno without --allow-read) is
 * still returned and left for dlopen to judge, the platform package first.
 *
 * @throws {Error} naming the platform package it looked for, the detected
 *   platform, the environment overrides, and every path tried.
 */
export async function locateLibrary(): Promise<LibraryCandidate> {
  const fromEnv = readEnv(LIBRARY_PATH_ENV);
  if (fromEnv !== undefined) {
    if (probeFile(fromEnv) !== "missing") return { path: fromEnv, origin: `$${LIBRARY_PATH_ENV}` };
    throw new Error(`tgcrypto-ffi: native library not found: ${LIBRARY_PATH_ENV}=${fromEnv} does not exist.`);
  }

  const dev = {
    path: fileURLToPath(new URL(devBuildFile(currentPlatform()), packageRoot())),
    origin: "dev build",
  };
  const devState = probeFile(dev.path);
  if (devState === "present") return dev;

  const target = platformTarget();
  const packageName = `tgcrypto-ffi-${target.name}`;
  const packagePath = target.supported ? await importPlatformPackage(target.name) : undefined;
  if (packagePath !== undefined && probeFile(packagePath) !== "missing") {
    return { path: packagePath, origin: `package ${packageName}` };
  }
  if (devState === "unknown") {
    return { ...dev, origin: `dev build, unchecked (no read permission); ${packageName} is not installed` };
  }

  const tried = [
    `  ${dev.path} (dev build): not found`,
    packagePath === undefined
      ? `  ${packageName} (platform package): ${target.supported ? "not installed" : "not published for this platform"}`
      : `  ${packagePath} (package ${packageName}): not found`,
  ];
  throw new Error(
    `tgcrypto-ffi: native library not found (detected platform: ${target.name}). Tried:\n${tried.join("\n")}\n` +
      (target.supported
        ? `Install ${packageName} (an optional dependency of tgcrypto-ffi; check that optional ` +
          `dependencies were not omitted, e.g. by --omit=optional).\n`
        : "") +
      (currentPlatform() === "linux"
        ? `If the C library was detected wrongly, set ${LIBC_ENV}=musl or glibc (now ${readEnv(LIBC_ENV) ?? "unset"}).\n`
        : "") +
      `Or set ${LIBRARY_PATH_ENV} to the path of a libtgcrypto shared library ` +
      `(in a source checkout, \`npm run build\` builds one into zig-out/).`,
  );
}
