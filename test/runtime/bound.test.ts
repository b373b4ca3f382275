/**
 * ts/runtime/bound.ts before and after `bind`: until a library is bound,
 * every binding and `libraryPath()` throw the "not loaded" error, and the
 * output helpers are the plain ones; `bind` points each binding at the given
 * library's function. This file imports bound.ts alone (not the package
 * entry, which binds at import), and vitest gives each file its own modules.
 */
import { describe, expect, test } from "vitest";

import * as bound from "../../ts/runtime/bound.ts";
import type { Native } from "../../ts/runtime/native.ts";
import { symbols } from "../../ts/runtime/symbols.ts";

const NOT_LOADED = new Error("tgcrypto-ffi: the native library is not loaded; import the package entry (ts/mod.ts)");

/** Each binding of bound.ts and the C function it stands for. */
const BINDINGS = {
  strerror: "tg_strerror",
  nativeVersion: "tg_version",
  nativeInit: "tg_init",
  nativeBackend: "tg_backend",
  backendCount: "tg_backend_count",
  backendName: "tg_backend_name",
  backendAvailable: "tg_backend_available",
  nativeSetBackend: "tg_set_backend",
  igeEncrypt: "tg_ige256_encrypt",
  igeDecrypt: "tg_ige256_decrypt",
  ctr256: "tg_ctr256",
  cbcEncrypt: "tg_cbc256_encrypt",
  cbcDecrypt: "tg_cbc256_decrypt",
  ctrNew: "tg_ctr_new",
  ctrUpdate: "tg_ctr_update",
  ctrPosition: "tg_ctr_position",
  ctrFree: "tg_ctr_free",
  igeNew: "tg_ige_new",
  igeUpdate: "tg_ige_update",
  igeFree: "tg_ige_free",
  cbcNew: "tg_cbc_new",
  cbcUpdate: "tg_cbc_update",
  cbcFree: "tg_cbc_free",
  hashEngineName: "tg_hash_engine",
  sha256OneShot: "tg_sha256",
  sha256Init: "tg_sha256_init",
  sha256Update: "tg_sha256_update",
  sha256Final: "tg_sha256_final",
  sha1OneShot: "tg_sha1",
  sha1Init: "tg_sha1_init",
  sha1Update: "tg_sha1_update",
  sha1Final: "tg_sha1_final",
  authKeyNew: "tg_auth_key_new",
  authKeyId: "tg_auth_key_id",
  authKeyFree: "tg_auth_key_free",
  mtprotoEncrypt: "tg_mtproto_encrypt",
  mtprotoDecrypt: "tg_mtproto_decrypt",
  factorize: "tg_factorize_pq",
} as const;

const exports = bound as unknown as Record<string, unknown>;

describe("before bind", () => {
  test("every binding and libraryPath() throw the not-loaded error; version() too", () => {
    expect(() => bound.notLoaded()).toThrow(NOT_LOADED);
    for (const name of Object.keys(BINDINGS)) {
      expect(exports[name], name).toBe(bound.notLoaded);
    }
    expect(() => bound.libraryPath()).toThrow(NOT_LOADED);
    expect(() => bound.version()).toThrow(NOT_LOADED);
  });

  test("the default output helpers: a fresh zeroed array of the length, returned as it is", () => {
    const a = bound.allocate(40);
    const b = bound.allocate(40);
    expect(a).toBeInstanceOf(Uint8Array);
    expect([a.length, a.byteOffset, a.buffer.byteLength]).toEqual([40, 0, 40]);
    expect(a.every((x) => x === 0)).toBe(true);
    expect(a.buffer).not.toBe(b.buffer);
    expect(bound.finish(a)).toBe(a);
  });
});

describe("bind", () => {
  test("every contract function has a binding here (the table above matches symbols.ts)", () => {
    expect(Object.values(BINDINGS).sort()).toEqual(Object.keys(symbols).sort());
  });

  test("each binding becomes the library's function, with its output helpers and path", () => {
    const native: Record<string, unknown> = { runtime: "node", path: "/lib/x/libtgcrypto.so" };
    for (const name of Object.keys(symbols)) native[name] = () => name;
    native.tg_version = () => "9.8.7";
    const allocateOutput = (n: number) => new Uint8Array(n + 1);
    const finishOutput = (out: Uint8Array<ArrayBuffer>) => out.subarray(1);
    Object.assign(native, { allocateOutput, finishOutput });
    bound.bind(native as unknown as Native);
    for (const [name, symbol] of Object.entries(BINDINGS)) {
      expect(exports[name], name).toBe(native[symbol]);
    }
    expect(bound.allocate).toBe(allocateOutput);
    expect(bound.finish).toBe(finishOutput);
    expect(bound.libraryPath()).toBe("/lib/x/libtgcrypto.so");
    expect(bound.version()).toBe("9.8.7");
  });
});
