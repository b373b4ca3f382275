/**
 * The Deno binding's decisions (ts/runtime/deno.ts), in any runtime: the
 * Deno global (dlopen, UnsafePointerView, errors) and the locator are
 * stubs, so these tests check which path is opened with which definitions,
 * which errors are rethrown as they are (permissions) and which are wrapped
 * with the path and origin, and how C strings are read.
 */
import { describe, expect, test } from "vitest";

import { type DenoFfi, denoDefinitions, loadNative } from "../../ts/runtime/deno.ts";
import type { LibraryCandidate, NativeArtifact } from "../../ts/runtime/locate.ts";
import { symbols } from "../../ts/runtime/symbols.ts";

/** Deno's type names for each kind, written out independently of deno.ts. */
const EXPECTED_PARAMETER = { bytes: "buffer", u32: "u32", u64: "u64", i32: "i32", context: "pointer" };
const EXPECTED_RESULT = { i32: "i32", u32: "u32", void: "void", context: "pointer", cstring: "pointer" };

class PermissionDenied extends Error {}
class NotCapable extends Error {}

/** A Deno whose `tg_version` returns a pointer object that reads as "1.2.3", and `tg_backend` returns NULL. */
function stubDeno(options: { dlopenError?: unknown; withNotCapable?: boolean } = {}) {
  const opened: { path: string; definitions: unknown }[] = [];
  const versionPointer = { address: 7 };
  const deno: DenoFfi = {
    dlopen(path, definitions) {
      opened.push({ path, definitions });
      if (options.dlopenError !== undefined) throw options.dlopenError;
      return {
        symbols: { tg_version: () => versionPointer, tg_backend: () => null } as never,
        close() {},
      };
    },
    UnsafePointerView: {
      getCString: (pointer) => (pointer === versionPointer ? "1.2.3" : "?"),
    },
    errors: {
      PermissionDenied: PermissionDenied as ErrorConstructor,
      ...(options.withNotCapable === false ? {} : { NotCapable: NotCapable as ErrorConstructor }),
    },
  };
  return { deno, opened };
}

function locateAt(candidate: LibraryCandidate, asked: NativeArtifact[] = []) {
  return (artifact: NativeArtifact): LibraryCandidate => {
    asked.push(artifact);
    return candidate;
  };
}

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("loadNative (Deno)", () => {
  test("opens the located library with Deno's definitions and names Deno and the path", () => {
    const { deno, opened } = stubDeno();
    const asked: NativeArtifact[] = [];
    const native = loadNative(deno, locateAt({ path: "/x/libtgcrypto.so", origin: "dev build" }, asked));
    expect(asked).toEqual(["library"]);
    expect(opened).toEqual([{ path: "/x/libtgcrypto.so", definitions: denoDefinitions() }]);
    expect(native.runtime).toBe("deno");
    expect(native.path).toBe("/x/libtgcrypto.so");
    expect(native.tg_version()).toBe("1.2.3");
    expect(native.tg_backend()).toBeNull();
  });

  test("outputs are zero-filled Uint8Arrays of the asked length, returned as they are", () => {
    const { deno } = stubDeno();
    const native = loadNative(deno, locateAt({ path: "/x", origin: "dev build" }));
    const out = native.allocateOutput(600);
    expect(out).toBeInstanceOf(Uint8Array);
    expect(out.length).toBe(600);
    expect(out.every((byte) => byte === 0)).toBe(true);
    expect(native.finishOutput(out)).toBe(out);
  });

  test("a library that cannot be opened: an error naming path, origin and Deno's reason, which is its cause", () => {
    const reason = new Error("Could not open library: invalid ELF header");
    const { deno } = stubDeno({ dlopenError: reason });
    const error = thrownBy(() => loadNative(deno, locateAt({ path: "/bad.so", origin: "$TGCRYPTO_LIB" })));
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(
      "tgcrypto-ffi: cannot load /bad.so ($TGCRYPTO_LIB): Could not open library: invalid ELF header",
    );
    expect((error as Error).cause).toBe(reason);
  });

  test("a thrown non-Error is kept as the cause and its text as the reason", () => {
    const { deno } = stubDeno({ dlopenError: "no such file" });
    const error = thrownBy(() => loadNative(deno, locateAt({ path: "/gone.so", origin: "dev build" })));
    expect((error as Error).message).toBe("tgcrypto-ffi: cannot load /gone.so (dev build): no such file");
    expect((error as Error).cause).toBe("no such file");
  });

  test("permission errors (PermissionDenied, NotCapable) are rethrown unchanged", () => {
    for (const denied of [new PermissionDenied("Requires ffi access"), new NotCapable("Requires ffi access")]) {
      const { deno } = stubDeno({ dlopenError: denied });
      expect(thrownBy(() => loadNative(deno, locateAt({ path: "/x", origin: "dev build" })))).toBe(denied);
    }
  });

  test("a Deno without NotCapable (older releases): other errors are still wrapped", () => {
    const reason = new NotCapable("looks like one, but this Deno has no such class");
    const { deno } = stubDeno({ dlopenError: reason, withNotCapable: false });
    const error = thrownBy(() => loadNative(deno, locateAt({ path: "/x", origin: "dev build" })));
    expect(error).not.toBe(reason);
    expect((error as Error).cause).toBe(reason);
    const denied = new PermissionDenied("Requires ffi access");
    const older = stubDeno({ dlopenError: denied, withNotCapable: false });
    expect(thrownBy(() => loadNative(older.deno, locateAt({ path: "/x", origin: "dev build" })))).toBe(denied);
  });

  test("a locator error reaches the caller unchanged, before dlopen", () => {
    const { deno, opened } = stubDeno();
    const notFound = new Error("tgcrypto-ffi: native library not found");
    expect(
      thrownBy(() =>
        loadNative(deno, () => {
          throw notFound;
        }),
      ),
    ).toBe(notFound);
    expect(opened).toEqual([]);
  });
});

describe("Deno definitions", () => {
  test("every symbol, each kind translated to Deno's type name", () => {
    const definitions = denoDefinitions();
    expect(Object.keys(definitions)).toEqual(Object.keys(symbols));
    for (const [name, { args, returns }] of Object.entries(symbols)) {
      expect(definitions[name], name).toEqual({
        parameters: args.map((kind) => EXPECTED_PARAMETER[kind]),
        result: EXPECTED_RESULT[returns],
      });
    }
  });
});
