/**
 * ts/runtime/native.ts, which the Bun and Deno bindings share: the Native
 * built from an FFI's symbols (the hot functions passed through untouched,
 * the C strings read, a NUL added to backend names) and the load error.
 * Checked with stand-in symbols, so it runs the same in every runtime.
 */
import { describe, expect, test } from "vitest";
import { loadFailure, nativeFromSymbols } from "../../ts/runtime/native.ts";
import { symbols } from "../../ts/runtime/symbols.ts";

describe("nativeFromSymbols", () => {
  // Stand-in FFI: every symbol a distinct function; "pointers" are strings, null for NULL.
  const strings: Record<string, string | null> = {};
  const raw: Record<string, (...args: unknown[]) => unknown> = {};
  for (const name of Object.keys(symbols)) raw[name] = () => 0;
  raw.tg_strerror = (code) => (code === -1 ? "p:null-error" : null);
  raw.tg_version = () => null;
  raw.tg_backend = () => "p:backend";
  raw.tg_backend_name = (index) => (index === 0 ? "p:name0" : null);
  raw.tg_hash_engine = () => "p:engine";
  const sent: Uint8Array[] = [];
  raw.tg_set_backend = (bytes) => (sent.push(bytes as Uint8Array), 0);
  Object.assign(strings, { "p:null-error": "NULL pointer", "p:backend": "soft", "p:name0": "vaes512", "p:engine": "portable" });
  const base = { runtime: "bun" as const, path: "/x/libtgcrypto.so", allocateOutput: (n: number) => new Uint8Array(n), finishOutput: (o: Uint8Array<ArrayBuffer>) => o };
  const native = nativeFromSymbols(base, raw as never, (pointer: string | null) => (pointer === null ? null : strings[pointer]!));

  test("the C strings are read, with the fallbacks for NULL", () => {
    expect(native.tg_strerror(-1)).toBe("NULL pointer");
    expect(native.tg_strerror(-99)).toBe("unknown error code");
    expect(native.tg_version()).toBe("");
    expect(native.tg_backend()).toBe("soft");
    expect(native.tg_backend_name(0)).toBe("vaes512");
    expect(native.tg_backend_name(7)).toBe(null);
    expect(native.tg_hash_engine()).toBe("portable");
  });

  test("a backend name goes to C NUL-terminated", () => {
    expect(native.tg_set_backend("aesni")).toBe(0);
    expect(Array.from(sent.pop()!)).toEqual([..."aesni"].map((c) => c.charCodeAt(0)).concat(0));
  });

  test("every other symbol is the FFI's own function, and the base is kept", () => {
    const wrapped = new Set(["tg_strerror", "tg_version", "tg_backend", "tg_backend_name", "tg_hash_engine", "tg_set_backend"]);
    for (const name of Object.keys(symbols)) {
      const fn = (native as unknown as Record<string, unknown>)[name];
      expect(typeof fn, name).toBe("function");
      if (!wrapped.has(name)) expect(fn, name).toBe(raw[name]);
    }
    expect([native.runtime, native.path, native.allocateOutput, native.finishOutput]).toEqual(
      [base.runtime, base.path, base.allocateOutput, base.finishOutput],
    );
  });
});

test("loadFailure: the path, where it came from, the loader's reason, and the cause", () => {
  const cause = new Error("dlopen failed: wrong ELF class");
  const error = loadFailure("/x/libtgcrypto.so", "dev build", cause);
  expect(error.message).toBe("tgcrypto-ffi: cannot load /x/libtgcrypto.so (dev build): dlopen failed: wrong ELF class");
  expect(error.cause).toBe(cause);
  expect(loadFailure("/y", "$TGCRYPTO_LIB", "not an error").message).toBe("tgcrypto-ffi: cannot load /y ($TGCRYPTO_LIB): not an error");
});
