/**
 * The Bun binding's decisions (ts/runtime/bun.ts), in any runtime: bun:ffi,
 * the locator, the platform packages and Bun.allocUnsafe are replaced by
 * stubs, so these tests check what the loader asks for and what it does
 * with each answer (which path it opens, which error says what, which
 * buffer it allocates), not whether this machine's Bun can open a library.
 */
import { describe, expect, test } from "vitest";

import {
  bunDefinitions,
  type BunFfi,
  type BunLoaderHost,
  cStringReader,
  libraryInPlatformPackage,
  loadNative,
  outputAllocator,
  requirePlatformPackage,
  UNINITIALIZED_OUTPUT_MIN_BYTES,
} from "../../ts/runtime/bun.ts";
import type { LibraryCandidate, NativeArtifact, PlatformPackageFile } from "../../ts/runtime/locate.ts";
import { symbols } from "../../ts/runtime/symbols.ts";

/** Every platform package the loader may embed (package.json optionalDependencies of a packed build). */
const PLATFORM_PACKAGES = [
  "tgcrypto-ffi-linux-x64-gnu",
  "tgcrypto-ffi-linux-arm64-gnu",
  "tgcrypto-ffi-linux-x64-musl",
  "tgcrypto-ffi-linux-arm64-musl",
  "tgcrypto-ffi-darwin-x64",
  "tgcrypto-ffi-darwin-arm64",
  "tgcrypto-ffi-win32-x64",
  "tgcrypto-ffi-win32-arm64",
];

/** bun:ffi's type names for each kind, written out independently of bun.ts. */
const EXPECTED_ARG = { bytes: "ptr", u32: "u32", u64: "u64", i32: "i32", context: "ptr" };
const EXPECTED_RESULT = { i32: "i32", u32: "u32", void: "void", context: "ptr", cstring: "ptr" };

interface Recorded {
  dlopened: { path: string; definitions: unknown }[];
  located: { artifact: NativeArtifact; fromPackage: PlatformPackageFile }[];
  allocated: number[];
}

/** A host whose bun:ffi answers `tg_version` with the C string at address 7 ("1.2.3"). */
function stubHost(
  options: { located?: LibraryCandidate; dlopenError?: unknown; requirePackage?: (name: string) => unknown } = {},
): { host: BunLoaderHost; recorded: Recorded } {
  const recorded: Recorded = { dlopened: [], located: [], allocated: [] };
  const strings = new Map<number, string>([[7, "1.2.3"], [9, "no such backend"]]);
  const ffi: BunFfi = {
    dlopen(path, definitions) {
      recorded.dlopened.push({ path, definitions });
      if (options.dlopenError !== undefined) throw options.dlopenError;
      return { symbols: { tg_version: () => 7, tg_strerror: (code: number) => (code === -3 ? 9 : null) } };
    },
    CString: class {
      readonly pointer: number;
      constructor(pointer: number) {
        this.pointer = pointer;
      }
      toString(): string {
        return strings.get(this.pointer) ?? "?";
      }
    },
  };
  const host: BunLoaderHost = {
    ffi: () => ffi,
    locate: (artifact, fromPackage) => {
      recorded.located.push({ artifact, fromPackage });
      return options.located ?? { path: "/opt/lib/libtgcrypto.so", origin: "dev build" };
    },
    requirePlatformPackage: options.requirePackage ?? (() => undefined),
    allocUnsafe: (length) => {
      recorded.allocated.push(length);
      return new Uint8Array(length).fill(0xaa);
    },
  };
  return { host, recorded };
}

describe("loadNative (Bun)", () => {
  test("opens the located library with bun:ffi's definitions and names Bun and the path", () => {
    const { host, recorded } = stubHost({ located: { path: "/x/libtgcrypto.so", origin: "$TGCRYPTO_LIB" } });
    const native = loadNative(host);
    expect(recorded.located.map((call) => call.artifact)).toEqual(["library"]);
    expect(recorded.dlopened).toEqual([{ path: "/x/libtgcrypto.so", definitions: bunDefinitions() }]);
    expect(native.runtime).toBe("bun");
    expect(native.path).toBe("/x/libtgcrypto.so");
    expect(native.tg_version()).toBe("1.2.3");
    expect(native.tg_strerror(-3)).toBe("no such backend");
    expect(native.tg_strerror(-4)).toBe("unknown error code");
  });

  test("the locator's platform-package lookup reads the package's default export", () => {
    const required: string[] = [];
    const { host, recorded } = stubHost({
      requirePackage: (name) => {
        required.push(name);
        return { default: `/pkg/${name}/libtgcrypto.so` };
      },
    });
    loadNative(host);
    const fromPackage = recorded.located[0]!.fromPackage;
    expect(fromPackage("tgcrypto-ffi-linux-x64-gnu")).toBe("/pkg/tgcrypto-ffi-linux-x64-gnu/libtgcrypto.so");
    expect(required).toEqual(["tgcrypto-ffi-linux-x64-gnu"]);
  });

  test("a library that cannot be opened: an error naming path, origin and the FFI's reason, which is its cause", () => {
    const reason = new Error("dlopen: invalid ELF header");
    const { host } = stubHost({
      located: { path: "/bad/libtgcrypto.so", origin: "package tgcrypto-ffi-linux-x64-gnu" },
      dlopenError: reason,
    });
    let thrown: unknown;
    try {
      loadNative(host);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toBe(
      "tgcrypto-ffi: cannot load /bad/libtgcrypto.so (package tgcrypto-ffi-linux-x64-gnu): dlopen: invalid ELF header",
    );
    expect((thrown as Error).cause).toBe(reason);
  });

  test("a locator error reaches the caller unchanged, before bun:ffi opens anything", () => {
    const { host, recorded } = stubHost();
    const notFound = new Error("tgcrypto-ffi: native library not found");
    const failing: BunLoaderHost = {
      ...host,
      locate: () => {
        throw notFound;
      },
    };
    expect(() => loadNative(failing)).toThrow(notFound);
    expect(recorded.dlopened).toEqual([]);
  });

  test("outputs: small ones zero-filled by new Uint8Array, from the threshold on from allocUnsafe", () => {
    const { host, recorded } = stubHost();
    const native = loadNative(host);
    expect(UNINITIALIZED_OUTPUT_MIN_BYTES).toBe(512);
    const small = native.allocateOutput(511);
    expect(small.length).toBe(511);
    expect(small.every((byte) => byte === 0)).toBe(true);
    expect(native.allocateOutput(0).length).toBe(0);
    expect(recorded.allocated).toEqual([]);
    const large = native.allocateOutput(512);
    expect(recorded.allocated).toEqual([512]);
    expect(large[0]).toBe(0xaa);
    expect(native.allocateOutput(65536).length).toBe(65536);
    expect(recorded.allocated).toEqual([512, 65536]);
    const out = new Uint8Array(3);
    expect(native.finishOutput(out)).toBe(out);
  });

  test("outputAllocator returns allocUnsafe's own buffer at and above the threshold", () => {
    const own = new Uint8Array(1024);
    const allocate = outputAllocator(() => own);
    expect(allocate(1024)).toBe(own);
    expect(allocate(511)).not.toBe(own);
  });
});

describe("C strings", () => {
  test("NULL (null, 0) and a 64-bit pointer (bigint) read as null without touching CString", () => {
    const made: number[] = [];
    const read = cStringReader({
      dlopen: () => ({ symbols: {} }),
      CString: class {
        constructor(pointer: number) {
          made.push(pointer);
        }
        toString(): string {
          return "text";
        }
      },
    });
    expect(read(null)).toBeNull();
    expect(read(0)).toBeNull();
    expect(read(5n)).toBeNull();
    expect(made).toEqual([]);
    expect(read(4096)).toBe("text");
    expect(made).toEqual([4096]);
  });
});

describe("bun:ffi definitions", () => {
  test("every symbol, each kind translated to bun:ffi's type name", () => {
    const definitions = bunDefinitions() as unknown as Record<string, { args: string[]; returns: string }>;
    expect(Object.keys(definitions)).toEqual(Object.keys(symbols));
    for (const [name, { args, returns }] of Object.entries(symbols)) {
      expect(definitions[name], name).toEqual({
        args: args.map((kind) => EXPECTED_ARG[kind]),
        returns: EXPECTED_RESULT[returns],
      });
    }
  });
});

describe("platform packages", () => {
  test("each name requires exactly that package (none is installed in a checkout: each require fails naming it)", () => {
    for (const name of PLATFORM_PACKAGES) {
      expect(() => requirePlatformPackage(name), name).toThrow(`'${name}'`);
    }
  });

  test("any other name requires nothing", () => {
    expect(requirePlatformPackage("tgcrypto-ffi-freebsd-x64")).toBeUndefined();
    expect(requirePlatformPackage("")).toBeUndefined();
  });

  test("libraryInPlatformPackage: the default export; undefined when not installed or unknown", () => {
    expect(libraryInPlatformPackage("p", () => ({ default: "/lib/p.so" }))).toBe("/lib/p.so");
    expect(libraryInPlatformPackage("p", () => undefined)).toBeUndefined();
    expect(
      libraryInPlatformPackage("p", () => {
        throw new Error("Cannot find module 'p'");
      }),
    ).toBeUndefined();
    expect(libraryInPlatformPackage("tgcrypto-ffi-linux-x64-gnu")).toBeUndefined();
  });
});
