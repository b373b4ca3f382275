/**
 * Finding the native artifact (ts/runtime/locate.ts): the environment
 * overrides (TGCRYPTO_LIB, TGCRYPTO_ADDON, TGCRYPTO_LIBC) with their exact
 * errors, the dev build of this checkout, the platform names, and the
 * platform-package lookup. Runs in each runtime's own process (vitest
 * forks), so changing the environment here touches nothing else.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";

import { afterEach, describe, expect, test } from "vitest";
import {
  ADDON_FILE,
  currentArch,
  currentLibc,
  currentPlatform,
  fileInPlatformPackage,
  libraryFile,
  locateNative,
  platformTarget,
  readEnv,
} from "../../ts/runtime/locate.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const devLibrary = `${root}zig-out/lib/${libraryFile(process.platform)}`;
const devAddon = `${root}zig-out/lib/${ADDON_FILE}`;
const missing = `${root}zig-out/no-such-dir/libtgcrypto.so`;
const VARS = ["TGCRYPTO_LIB", "TGCRYPTO_ADDON", "TGCRYPTO_LIBC"] as const;
const saved = Object.fromEntries(VARS.map((name) => [name, process.env[name]]));

function setEnv(values: Partial<Record<(typeof VARS)[number], string>>): void {
  for (const name of VARS) {
    if (values[name] === undefined) delete process.env[name];
    else process.env[name] = values[name];
  }
}
afterEach(() => {
  for (const name of VARS) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe("environment overrides", () => {
  test("readEnv: a set variable, an unset one, and an empty one (unset)", () => {
    setEnv({ TGCRYPTO_LIBC: "glibc" });
    expect(readEnv("TGCRYPTO_LIBC")).toBe("glibc");
    expect(readEnv("TGCRYPTO_LIB")).toBeUndefined();
    setEnv({ TGCRYPTO_LIB: "" });
    expect(readEnv("TGCRYPTO_LIB")).toBeUndefined();
  });

  test("TGCRYPTO_LIB is the only candidate for the library: taken as given, or an error naming it", () => {
    setEnv({ TGCRYPTO_LIB: devLibrary });
    expect(locateNative("library")).toEqual({ path: devLibrary, origin: "$TGCRYPTO_LIB" });
    setEnv({ TGCRYPTO_LIB: missing });
    expect(() => locateNative("library")).toThrow(
      new Error(`tgcrypto-ffi: native library not found: TGCRYPTO_LIB=${missing} does not exist.`),
    );
  });

  test("the addon: TGCRYPTO_ADDON first, else the tgcrypto.node beside TGCRYPTO_LIB, each with its error", () => {
    setEnv({ TGCRYPTO_ADDON: devAddon, TGCRYPTO_LIB: missing });
    expect(locateNative("addon")).toEqual({ path: devAddon, origin: "$TGCRYPTO_ADDON" });
    setEnv({ TGCRYPTO_ADDON: missing });
    expect(() => locateNative("addon")).toThrow(
      new Error(`tgcrypto-ffi: Node-API addon not found: TGCRYPTO_ADDON=${missing} does not exist.`),
    );
    setEnv({ TGCRYPTO_LIB: devLibrary });
    expect(locateNative("addon")).toEqual({ path: devAddon, origin: "beside $TGCRYPTO_LIB" });
    setEnv({ TGCRYPTO_LIB: missing });
    const beside = `${root}zig-out/no-such-dir/${ADDON_FILE}`;
    expect(() => locateNative("addon")).toThrow(
      new Error(
        `tgcrypto-ffi: Node-API addon not found: TGCRYPTO_LIB=${missing} is set, and Node.js loads ` +
          `${ADDON_FILE} from the same directory (${beside} does not exist). Set TGCRYPTO_ADDON to the path of ` +
          `${ADDON_FILE}, or unset TGCRYPTO_LIB.`,
      ),
    );
  });

  test("without overrides: this checkout's dev build, before any platform package", () => {
    setEnv({});
    expect(existsSync(devLibrary) && existsSync(devAddon), "zig build has run").toBe(true);
    const asked: string[] = [];
    const fromPackage = (name: string) => (asked.push(name), "/nonexistent");
    expect(locateNative("library", fromPackage)).toEqual({ path: devLibrary, origin: "dev build" });
    expect(locateNative("addon", fromPackage)).toEqual({ path: devAddon, origin: "dev build" });
    expect(asked, "the package is not looked up when the dev build is there").toEqual([]);
  });
});

describe("platform names", () => {
  test("operating system and CPU as Node names them", () => {
    expect(currentPlatform()).toBe(process.platform);
    expect(currentArch()).toBe(process.arch);
  });

  test("the library's file name per platform, as zig build dist names it", () => {
    expect(libraryFile("linux")).toBe("libtgcrypto.so");
    expect(libraryFile("darwin")).toBe("libtgcrypto.dylib");
    expect(libraryFile("win32")).toBe("tgcrypto.dll");
    expect(libraryFile("freebsd")).toBe("libtgcrypto.so");
  });

  test.runIf(process.platform === "linux")("Linux: TGCRYPTO_LIBC overrides the detected C library; anything else is an error", () => {
    setEnv({ TGCRYPTO_LIBC: "musl" });
    expect(currentLibc()).toBe("musl");
    expect(platformTarget()).toEqual({ name: `linux-${process.arch}-musl`, supported: true });
    setEnv({ TGCRYPTO_LIBC: "glibc" });
    expect(currentLibc()).toBe("glibc");
    expect(platformTarget()).toEqual({ name: `linux-${process.arch}-gnu`, supported: true });
    setEnv({ TGCRYPTO_LIBC: "uclibc" });
    expect(() => currentLibc()).toThrow(new Error('tgcrypto-ffi: TGCRYPTO_LIBC must be "musl" or "glibc", not "uclibc"'));
    setEnv({});
    // This process's own mappings say which loader it runs under.
    const musl = /\/ld-musl-|\/libc\.musl-/.test(readFileSync("/proc/self/maps", "utf8"));
    expect(currentLibc()).toBe(musl ? "musl" : "glibc");
  });
});

describe("platform packages", () => {
  // Deno resolves bare names through deno.json / npm: specifiers, not this checkout's node_modules: the
  // package test (test/package/run.sh) installs a platform package and loads it under Deno both ways.
  const deno = (globalThis as { Deno?: unknown }).Deno !== undefined;
  test("an installed package resolves to the file beside its entry (Bun, Node); a missing one to undefined", () => {
    expect(fileInPlatformPackage("x.bin")("tgcrypto-ffi-no-such-platform")).toBeUndefined();
    if (deno) return;
    const found = fileInPlatformPackage("x.bin")("long");
    expect(found).toBeDefined();
    expect(found!.endsWith(`${sep}x.bin`)).toBe(true);
    expect(existsSync(join(dirname(found!), "index.js")) || existsSync(join(dirname(found!), "index.cjs")), found).toBe(true);
  });
});
