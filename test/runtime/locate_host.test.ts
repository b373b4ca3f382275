/**
 * The locator's decisions (ts/runtime/locate.ts) walked through stub hosts:
 * a fake `Deno` global (environment, permissions, build) or `process`
 * global, and a fake file system that records what is stat'ed and read.
 * Each case says which path is tried, in which order, and what the error
 * says; nothing depends on the machine the tests run on.
 */
import { fileURLToPath } from "node:url";

import { describe, expect, test } from "vitest";
import {
  currentArch,
  currentLibc,
  currentPlatform,
  type LocateHost,
  locateNative,
  platformTarget,
  readEnv,
} from "../../ts/runtime/locate.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));

interface StubOptions {
  /** The environment (process.env, or what Deno.env.get answers). */
  env?: Record<string, string>;
  /** A `process` global with this platform and arch (default linux/x64); ignored when `deno` is given. */
  platform?: string;
  arch?: string;
  /** No runtime global at all. */
  bare?: boolean;
  /** A `Deno` global instead of `process`. */
  deno?: {
    os?: string;
    arch?: string;
    /** Variables and paths whose permission query answers "prompt". */
    denied?: string[];
    /** The state a denied query answers (default "prompt"). */
    deniedState?: string;
    /** Deno without `permissions.querySync` (older Deno, or a shim). */
    noQuery?: boolean;
    /** `Deno.env.get` throws (NotCapable). */
    envThrows?: boolean;
  };
  /** Regular files. */
  files?: string[];
  /** Paths that exist but are not regular files. */
  directories?: string[];
  /** Paths whose stat fails with this error code. */
  statErrors?: Record<string, string>;
  /** What /proc/self/maps holds; an Error is thrown instead. Default: a glibc process. */
  maps?: string | Error;
}

/** A host, and the record of what the locator asked of it. */
function stubHost(options: StubOptions = {}) {
  const stats: string[] = [];
  const reads: string[] = [];
  const queries: unknown[] = [];
  const envReads: string[] = [];
  const env = options.env ?? {};
  const fs: LocateHost["fs"] = {
    statSync(path) {
      // as node:fs does for a path that is not a string
      if (typeof path !== "string") throw Object.assign(new TypeError("path must be a string"), { code: "ERR_INVALID_ARG_TYPE" });
      stats.push(path);
      const code = options.statErrors?.[path];
      if (code !== undefined) throw Object.assign(new Error(`${code}: ${path}`), { code });
      if (options.files?.includes(path)) return { isFile: () => true };
      if (options.directories?.includes(path)) return { isFile: () => false };
      throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
    },
    readFileSync(path, encoding) {
      reads.push(`${path} (${encoding})`);
      const maps = options.maps ?? "7f00-7f01 r-xp 00000000 08:01 1 /usr/lib/x86_64-linux-gnu/libc.so.6\n";
      if (maps instanceof Error) throw maps;
      return maps;
    },
  };
  const d = options.deno;
  let host: LocateHost;
  if (d !== undefined) {
    const denied = new Set(d.denied ?? []);
    host = {
      Deno: {
        env: {
          get(name) {
            envReads.push(name);
            if (d.envThrows) throw new Error("NotCapable: env access");
            return env[name];
          },
        },
        permissions: d.noQuery
          ? {}
          : {
              querySync(descriptor) {
                queries.push(descriptor);
                const key = descriptor.name === "env" ? descriptor.variable : descriptor.path;
                return { state: denied.has(key) ? (d.deniedState ?? "prompt") : "granted" };
              },
            },
        build: { os: d.os ?? "linux", arch: d.arch ?? "x86_64" },
      },
      fs,
    };
  } else if (options.bare) {
    host = { fs };
  } else {
    host = { process: { env, platform: options.platform ?? "linux", arch: options.arch ?? "x64" }, fs };
  }
  return { host, stats, reads, queries, envReads };
}

function thrownMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return (error as Error).message;
  }
  throw new Error("expected a throw");
}

const devLibrary = `${root}zig-out/lib/libtgcrypto.so`;
const devAddon = `${root}zig-out/lib/tgcrypto.node`;

describe("the environment", () => {
  test("process.env: a set variable, an unset one, an empty one (unset); no process global: unset", () => {
    const { host } = stubHost({ env: { A: "1", EMPTY: "" } });
    expect(readEnv("A", host)).toBe("1");
    expect(readEnv("B", host)).toBeUndefined();
    expect(readEnv("EMPTY", host)).toBeUndefined();
    expect(readEnv("A", stubHost({ bare: true }).host)).toBeUndefined();
  });

  test("Deno: a granted variable is read; one not granted is unset without Deno.env.get being called", () => {
    const granted = stubHost({ env: { A: "1", B: "2" }, deno: { denied: ["B"] } });
    expect(readEnv("A", granted.host)).toBe("1");
    expect(readEnv("B", granted.host)).toBeUndefined();
    expect(granted.queries).toEqual([
      { name: "env", variable: "A" },
      { name: "env", variable: "B" },
    ]);
    expect(granted.envReads).toEqual(["A"]);
    // "denied" is as unset as "prompt"; only "granted" reads
    const refused = stubHost({ env: { A: "1" }, deno: { denied: ["A"], deniedState: "denied" } });
    expect(readEnv("A", refused.host)).toBeUndefined();
    expect(refused.envReads).toEqual([]);
  });

  test("Deno without permissions.querySync reads directly; a throwing Deno.env.get is unset; empty is unset", () => {
    const direct = stubHost({ env: { A: "1", EMPTY: "" }, deno: { noQuery: true } });
    expect(readEnv("A", direct.host)).toBe("1");
    expect(readEnv("EMPTY", direct.host)).toBeUndefined();
    expect(direct.envReads).toEqual(["A", "EMPTY"]);
    expect(readEnv("A", stubHost({ env: { A: "1" }, deno: { envThrows: true } }).host)).toBeUndefined();
  });
});

describe("platform names", () => {
  test("Deno's build.os and build.arch, as Node names them", () => {
    const cases: [string, string, string, string][] = [
      ["windows", "x86_64", "win32", "x64"],
      ["darwin", "aarch64", "darwin", "arm64"],
      ["linux", "riscv64", "linux", "riscv64"],
      ["freebsd", "x86_64", "freebsd", "x64"],
    ];
    for (const [os, arch, platform, nodeArch] of cases) {
      const { host } = stubHost({ deno: { os, arch } });
      expect([currentPlatform(host), currentArch(host)]).toEqual([platform, nodeArch]);
    }
  });

  test("process.platform and process.arch as they are; no runtime global: unknown", () => {
    const { host } = stubHost({ platform: "win32", arch: "arm64" });
    expect([currentPlatform(host), currentArch(host)]).toEqual(["win32", "arm64"]);
    const bare = stubHost({ bare: true }).host;
    expect([currentPlatform(bare), currentArch(bare)]).toEqual(["unknown", "unknown"]);
  });

  test("the package suffix and whether one is published, per platform", () => {
    const target = (options: StubOptions) => platformTarget(stubHost(options).host);
    expect(target({})).toEqual({ name: "linux-x64-gnu", supported: true });
    expect(target({ arch: "arm64", env: { TGCRYPTO_LIBC: "musl" } })).toEqual({ name: "linux-arm64-musl", supported: true });
    expect(target({ platform: "darwin", arch: "arm64" })).toEqual({ name: "darwin-arm64", supported: true });
    expect(target({ platform: "win32" })).toEqual({ name: "win32-x64", supported: true });
    expect(target({ platform: "freebsd" })).toEqual({ name: "freebsd-x64", supported: false });
    expect(target({ arch: "ia32" })).toEqual({ name: "linux-ia32-gnu", supported: false });
    expect(target({ platform: "darwin", arch: "riscv64" })).toEqual({ name: "darwin-riscv64", supported: false });
  });
});

describe("the C library (Linux)", () => {
  test("TGCRYPTO_LIBC wins, without reading anything; another value is an error naming it", () => {
    for (const libc of ["musl", "glibc"] as const) {
      const stub = stubHost({ env: { TGCRYPTO_LIBC: libc }, maps: "/lib/ld-musl-x86_64.so.1" });
      expect(currentLibc(stub.host)).toBe(libc);
      expect([stub.reads, stub.stats]).toEqual([[], []]);
    }
    expect(thrownMessage(() => currentLibc(stubHost({ env: { TGCRYPTO_LIBC: "bionic" } }).host))).toBe(
      'tgcrypto-ffi: TGCRYPTO_LIBC must be "musl" or "glibc", not "bionic"',
    );
  });

  test("the process's mappings decide: either musl loader name is musl, anything else glibc", () => {
    for (const [maps, libc] of [
      ["7f00 r-xp /lib/ld-musl-x86_64.so.1\n", "musl"],
      ["7f00 r-xp /usr/lib/libc.musl-aarch64.so.1\n", "musl"],
      ["7f00 r-xp /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n", "glibc"],
      ["7f00 r-xp /opt/ld-muslx\n", "glibc"],
    ] as const) {
      const stub = stubHost({ maps, files: ["/lib/ld-musl-x86_64.so.1"] });
      expect(currentLibc(stub.host), maps).toBe(libc);
      expect(stub.reads).toEqual(["/proc/self/maps (utf8)"]);
      expect(stub.stats, "the loader file is not asked when the mappings answer").toEqual([]);
    }
  });

  test("without the mappings: the musl loader file for this CPU, present or not", () => {
    const unreadable = new Error("EACCES: /proc/self/maps");
    const x64 = stubHost({ maps: unreadable, files: ["/lib/ld-musl-x86_64.so.1"] });
    expect(currentLibc(x64.host)).toBe("musl");
    expect(x64.stats).toEqual(["/lib/ld-musl-x86_64.so.1"]);
    const arm = stubHost({ arch: "arm64", maps: unreadable, files: ["/lib/ld-musl-aarch64.so.1"] });
    expect(currentLibc(arm.host)).toBe("musl");
    expect(arm.stats).toEqual(["/lib/ld-musl-aarch64.so.1"]);
    const none = stubHost({ arch: "arm64", maps: unreadable, files: ["/lib/ld-musl-x86_64.so.1"] });
    expect(currentLibc(none.host)).toBe("glibc");
    const directory = stubHost({ maps: unreadable, directories: ["/lib/ld-musl-x86_64.so.1"] });
    expect(currentLibc(directory.host), "a directory is not the loader").toBe("glibc");
  });

  test("Deno without read permission: the mappings are not read, and a denied loader file means glibc", () => {
    const maps = "7f00 r-xp /lib/ld-musl-x86_64.so.1\n";
    const denied = stubHost({ deno: {}, maps, files: ["/lib/ld-musl-x86_64.so.1"], env: {} });
    (denied.host.Deno!.permissions as { querySync: unknown }).querySync = (descriptor: { name: string }) => {
      denied.queries.push(descriptor);
      return { state: descriptor.name === "read" ? "prompt" : "granted" };
    };
    expect(currentLibc(denied.host)).toBe("glibc");
    expect(denied.reads).toEqual([]);
    expect(denied.stats).toEqual([]);
    expect(denied.queries).toEqual([
      { name: "env", variable: "TGCRYPTO_LIBC" },
      { name: "read", path: "/proc/self/maps" },
      { name: "read", path: "/lib/ld-musl-x86_64.so.1" },
    ]);
    const mapsOnly = stubHost({ deno: { denied: ["/proc/self/maps"] }, maps, files: ["/lib/ld-musl-x86_64.so.1"] });
    expect(currentLibc(mapsOnly.host), "the loader file is still asked").toBe("musl");
    expect(mapsOnly.reads).toEqual([]);
  });
});

describe("the explicit paths", () => {
  test("TGCRYPTO_LIB: a file is taken; a directory, ENOENT or ENOTDIR is an error; an unknown stat is left to dlopen", () => {
    const lib = "/opt/tg/libtgcrypto.so";
    const env = { TGCRYPTO_LIB: lib };
    expect(locateNative("library", undefined, stubHost({ env, files: [lib] }).host)).toEqual({
      path: lib,
      origin: "$TGCRYPTO_LIB",
    });
    const notFound = `tgcrypto-ffi: native library not found: TGCRYPTO_LIB=${lib} does not exist.`;
    for (const options of [{ directories: [lib] }, { statErrors: { [lib]: "ENOENT" } }, { statErrors: { [lib]: "ENOTDIR" } }]) {
      expect(thrownMessage(() => locateNative("library", undefined, stubHost({ env, ...options }).host))).toBe(notFound);
    }
    for (const code of ["EACCES", "ELOOP"]) {
      const stub = stubHost({ env, statErrors: { [lib]: code } });
      expect(locateNative("library", undefined, stub.host)).toEqual({ path: lib, origin: "$TGCRYPTO_LIB" });
    }
    const denied = stubHost({ env, deno: { denied: [lib] } });
    expect(locateNative("library", undefined, denied.host)).toEqual({ path: lib, origin: "$TGCRYPTO_LIB" });
    expect(denied.stats, "not stat'ed without read permission").toEqual([]);
    expect(denied.queries).toContainEqual({ name: "read", path: lib });
  });

  test("an explicit path is the only candidate: nothing else is stat'ed, no package looked up", () => {
    const lib = "/opt/tg/libtgcrypto.so";
    const stub = stubHost({ env: { TGCRYPTO_LIB: lib }, files: [lib, devLibrary] });
    const asked: string[] = [];
    locateNative("library", (name) => (asked.push(name), "/x"), stub.host);
    expect([stub.stats, asked]).toEqual([[lib], []]);
  });

  test("the addon: TGCRYPTO_ADDON, else tgcrypto.node beside TGCRYPTO_LIB, each with its error", () => {
    const addon = "/opt/a/tgcrypto.node";
    const lib = "/opt/tg/libtgcrypto.so";
    const beside = "/opt/tg/tgcrypto.node";
    expect(locateNative("addon", undefined, stubHost({ env: { TGCRYPTO_ADDON: addon, TGCRYPTO_LIB: lib }, files: [addon] }).host))
      .toEqual({ path: addon, origin: "$TGCRYPTO_ADDON" });
    expect(thrownMessage(() => locateNative("addon", undefined, stubHost({ env: { TGCRYPTO_ADDON: addon }, files: [beside] }).host)))
      .toBe(`tgcrypto-ffi: Node-API addon not found: TGCRYPTO_ADDON=${addon} does not exist.`);
    expect(locateNative("addon", undefined, stubHost({ env: { TGCRYPTO_LIB: lib }, files: [beside] }).host))
      .toEqual({ path: beside, origin: "beside $TGCRYPTO_LIB" });
    expect(locateNative("addon", undefined, stubHost({ env: { TGCRYPTO_LIB: lib }, statErrors: { [beside]: "EACCES" } }).host))
      .toEqual({ path: beside, origin: "beside $TGCRYPTO_LIB" });
    expect(thrownMessage(() => locateNative("addon", undefined, stubHost({ env: { TGCRYPTO_LIB: lib }, files: [lib] }).host))).toBe(
      `tgcrypto-ffi: Node-API addon not found: TGCRYPTO_LIB=${lib} is set, and Node.js loads ` +
        `tgcrypto.node from the same directory (${beside} does not exist). Set TGCRYPTO_ADDON to the path of ` +
        `tgcrypto.node, or unset TGCRYPTO_LIB.`,
    );
    // the library itself does not need to exist for the addon
    expect(locateNative("library", undefined, stubHost({ env: { TGCRYPTO_ADDON: addon }, files: [devLibrary] }).host))
      .toEqual({ path: devLibrary, origin: "dev build" });
  });
});

describe("the dev build, then the platform package", () => {
  test("the dev build's file per platform and artifact", () => {
    const cases: [StubOptions, "library" | "addon", string][] = [
      [{}, "library", devLibrary],
      [{}, "addon", devAddon],
      [{ platform: "darwin", arch: "arm64" }, "library", `${root}zig-out/lib/libtgcrypto.dylib`],
      [{ platform: "win32" }, "library", `${root}zig-out/bin/tgcrypto.dll`],
      [{ platform: "win32" }, "addon", devAddon],
      [{ deno: { os: "windows" } }, "library", `${root}zig-out/bin/tgcrypto.dll`],
    ];
    for (const [options, artifact, path] of cases) {
      const asked: string[] = [];
      const stub = stubHost({ ...options, files: [path] });
      expect(locateNative(artifact, (name) => (asked.push(name), "/pkg/x"), stub.host)).toEqual({ path, origin: "dev build" });
      expect(stub.stats).toEqual([path]);
      expect(asked, "the package is not looked up").toEqual([]);
    }
  });

  test("no dev build: the platform package named for this platform, if its file is there", () => {
    const asked: string[] = [];
    const pkg = "/app/node_modules/tgcrypto-ffi-linux-x64-musl/libtgcrypto.so";
    const stub = stubHost({ env: { TGCRYPTO_LIBC: "musl" }, files: [pkg] });
    expect(locateNative("library", (name) => (asked.push(name), pkg), stub.host)).toEqual({
      path: pkg,
      origin: "package tgcrypto-ffi-linux-x64-musl",
    });
    expect(asked).toEqual(["tgcrypto-ffi-linux-x64-musl"]);
    expect(stub.stats).toEqual([devLibrary, pkg]);
    // a package file that cannot be checked is still taken
    const unchecked = stubHost({ statErrors: { [pkg]: "EACCES" } });
    expect(locateNative("library", () => pkg, unchecked.host).path).toBe(pkg);
  });

  test("without read permission for the dev build: the package first, else the dev build, unchecked", () => {
    const pkg = "/app/node_modules/tgcrypto-ffi-linux-x64-gnu/libtgcrypto.so";
    const denied = { deno: { denied: [devLibrary] } };
    expect(locateNative("library", () => pkg, stubHost({ ...denied, files: [pkg] }).host)).toEqual({
      path: pkg,
      origin: "package tgcrypto-ffi-linux-x64-gnu",
    });
    expect(locateNative("library", () => undefined, stubHost(denied).host)).toEqual({
      path: devLibrary,
      origin: "dev build, unchecked (no read permission); tgcrypto-ffi-linux-x64-gnu is not installed",
    });
    expect(locateNative("library", () => pkg, stubHost(denied).host).origin, "a missing package file is skipped").toBe(
      "dev build, unchecked (no read permission); tgcrypto-ffi-linux-x64-gnu is not installed",
    );
    // a stat that fails otherwise than "does not exist" (EACCES on a directory on the way) counts the same
    expect(locateNative("library", () => undefined, stubHost({ statErrors: { [devLibrary]: "EACCES" } }).host)).toEqual({
      path: devLibrary,
      origin: "dev build, unchecked (no read permission); tgcrypto-ffi-linux-x64-gnu is not installed",
    });
  });

  test("nothing found on Linux: every path tried, the package to install, the libc and TGCRYPTO_LIB hints", () => {
    const message = thrownMessage(() => locateNative("library", () => undefined, stubHost().host));
    expect(message).toBe(
      "tgcrypto-ffi: native library not found (detected platform: linux-x64-gnu). Tried:\n" +
        `  ${devLibrary} (dev build): not found\n` +
        "  tgcrypto-ffi-linux-x64-gnu (platform package): not installed\n" +
        "Install tgcrypto-ffi-linux-x64-gnu (an optional dependency of tgcrypto-ffi; check that optional " +
        "dependencies were not omitted, e.g. by --omit=optional).\n" +
        "If the C library was detected wrongly, set TGCRYPTO_LIBC=musl or glibc (now unset).\n" +
        "Or set TGCRYPTO_LIB to the path of a libtgcrypto shared library " +
        "(in a source checkout, `npm run build` builds one into zig-out/).",
    );
    const pkg = "/app/node_modules/tgcrypto-ffi-linux-x64-musl/libtgcrypto.so";
    const stale = thrownMessage(() => locateNative("library", () => pkg, stubHost({ env: { TGCRYPTO_LIBC: "musl" } }).host));
    expect(stale).toContain(`\n  ${pkg} (package tgcrypto-ffi-linux-x64-musl): not found\n`);
    expect(stale).toContain("(now musl).\n");
  });

  test("nothing found elsewhere: no package for an unsupported platform, no libc hint off Linux, the addon's hint", () => {
    const asked: string[] = [];
    const message = thrownMessage(() =>
      locateNative("addon", (name) => (asked.push(name), "/x"), stubHost({ platform: "freebsd" }).host),
    );
    expect(asked, "no package is looked up for an unsupported platform").toEqual([]);
    expect(message).toBe(
      "tgcrypto-ffi: Node-API addon (tgcrypto.node) not found (detected platform: freebsd-x64). Tried:\n" +
        `  ${devAddon} (dev build): not found\n` +
        "  tgcrypto-ffi-freebsd-x64 (platform package): not published for this platform\n" +
        "Or set TGCRYPTO_ADDON to the path of a tgcrypto.node " +
        "(in a source checkout, `npm run build` builds one into zig-out/lib/).",
    );
    const darwin = thrownMessage(() => locateNative("library", () => undefined, stubHost({ platform: "darwin", arch: "arm64" }).host));
    expect(darwin).toContain("Install tgcrypto-ffi-darwin-arm64 (an optional dependency");
    expect(darwin).not.toContain("TGCRYPTO_LIBC");
  });

  test("the default package lookup resolves the platform's package name (none is installed in this checkout)", () => {
    const message = thrownMessage(() => locateNative("library", undefined, stubHost({ platform: "darwin", arch: "x64" }).host));
    expect(message).toContain("  tgcrypto-ffi-darwin-x64 (platform package): not installed\n");
  });
});
