/**
 * Finds the libtgcrypto shared library to load. Runtime-neutral: works in
 * Bun and Deno (and imports cleanly in Node).
 *
 * @module
 */

import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Environment variable holding an explicit path to the shared library. */
export const LIBRARY_PATH_ENV = "TGCRYPTO_LIB";

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
    querySync?(descriptor: { name: "env"; variable: string }): { state: string };
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
 * Reads an environment variable; undefined when unset, empty, or not readable.
 * In Deno a variable without `--allow-env` permission counts as unset, and is
 * checked with `querySync` first so that reading never triggers a prompt.
 */
export function readEnv(name: string): string | undefined {
  let value: string | undefined;
  try {
    const deno = runtimeGlobals.Deno;
    if (deno !== undefined) {
      const query = deno.permissions?.querySync;
      if (query !== undefined && query.call(deno.permissions, { name: "env", variable: name }).state !== "granted") {
        return undefined;
      }
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

/** Path of the library that `zig build` produces, relative to the zig-out/ prefix. */
function devBuildFile(platform: string): string {
  if (platform === "win32") return "zig-out/bin/tgcrypto.dll";
  if (platform === "darwin") return "zig-out/lib/libtgcrypto.dylib";
  return "zig-out/lib/libtgcrypto.so";
}

/** The package root as a file: URL string; this file lives in `<root>/ts/`. */
function packageRoot(): string {
  return new URL("../", import.meta.url).href;
}

/**
 * All places to look for the library, best first. `TGCRYPTO_LIB` wins
 * outright: when set it is the only candidate, so a typo is reported instead
 * of silently loading some other build.
 */
export function libraryCandidates(): LibraryCandidate[] {
  const fromEnv = readEnv(LIBRARY_PATH_ENV);
  if (fromEnv !== undefined) return [{ path: fromEnv, origin: `$${LIBRARY_PATH_ENV}` }];

  const candidates: LibraryCandidate[] = [];
  // Per-platform npm packages (tgcrypto-ffi-<os>-<arch>[-musl]) will go here, before the dev build.
  candidates.push({
    path: fileURLToPath(new URL(devBuildFile(currentPlatform()), packageRoot())),
    origin: "dev build",
  });
  return candidates;
}

/** "missing" only when the file surely does not exist; a denied stat may still be loadable. */
function probeFile(path: string): "present" | "missing" | "unknown" {
  try {
    return statSync(path).isFile() ? "present" : "missing";
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return code === "ENOENT" || code === "ENOTDIR" ? "missing" : "unknown";
  }
}

/**
 * Returns the first library candidate that exists (or cannot be ruled out,
 * e.g. when Deno denies reading it).
 *
 * @throws {Error} naming `TGCRYPTO_LIB`, every path tried, and `npm run build`.
 */
export function locateLibrary(): LibraryCandidate {
  const candidates = libraryCandidates();
  for (const candidate of candidates) {
    if (probeFile(candidate.path) !== "missing") return candidate;
  }
  const tried = candidates.map((c) => `  ${c.path} (${c.origin})`).join("\n");
  throw new Error(
    `tgcrypto-ffi: native library not found. Tried:\n${tried}\n` +
      `Set ${LIBRARY_PATH_ENV} to the path of the shared library, or run \`npm run build\` ` +
      `in ${fileURLToPath(packageRoot())} to build it.`,
  );
}
