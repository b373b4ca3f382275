/**
 * What the API says when the library reports a failure that a working
 * library on this machine never gives: an unusable TGCRYPTO_BACKEND at
 * initialisation, a backend this CPU cannot run, a failed hash call, no
 * backend after a failed init. The API is bound (ts/runtime/bound.ts) to
 * the real library with single functions replaced, then bound back. Also
 * the calls a single-part hash makes (one native call, no state).
 */
import process from "node:process";

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { initialize } from "../../ts/aes/backends.ts";
import {
  backend,
  backends,
  ErrorCode,
  hashEngine,
  MtprotoSecurityError,
  setBackend,
  sha1,
  sha256,
  sha256Into,
  TgCryptoError,
} from "../../ts/mod.ts";
import { nativeError } from "../../ts/errors.ts";
import { bind } from "../../ts/runtime/bound.ts";
import { loadNative } from "../../ts/runtime/load.ts";
import type { Native } from "../../ts/runtime/native.ts";
import { expectError } from "../helpers/bytes.ts";

let native: Native;
beforeAll(() => {
  native = loadNative();
});
afterAll(() => bind(native));

/** Binds the API to the real library with `overrides` for the duration of `run`. */
function withNative(overrides: Partial<Native>, run: () => void): void {
  bind({ ...native, ...overrides });
  try {
    run();
  } finally {
    bind(native);
  }
}

const available = () => backends().filter((b) => b.available).map((b) => b.name).join(", ");

describe("backend errors, with their messages", () => {
  test("initialize(): a refused TGCRYPTO_BACKEND names the value, the reason and what would work", () => {
    const saved = process.env.TGCRYPTO_BACKEND;
    try {
      process.env.TGCRYPTO_BACKEND = "turbo";
      withNative({ tg_init: () => ErrorCode.BACKEND }, () => {
        expectError(() => initialize(), TgCryptoError,
          `tgcrypto-ffi: TGCRYPTO_BACKEND="turbo" cannot be used: ${native.tg_strerror(ErrorCode.BACKEND)}. ` +
            `Available backends: ${available()} (leave it unset to pick the fastest).`);
      });
      delete process.env.TGCRYPTO_BACKEND;
      withNative({ tg_init: () => ErrorCode.UNSUPPORTED }, () => {
        let error: unknown;
        try {
          initialize();
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(TgCryptoError);
        expect((error as TgCryptoError).code).toBe(ErrorCode.UNSUPPORTED);
        expect((error as Error).message).toBe(
          `tgcrypto-ffi: TGCRYPTO_BACKEND (value not readable here, e.g. no --allow-env) cannot be used: ` +
            `${native.tg_strerror(ErrorCode.UNSUPPORTED)}. Available backends: ${available()} (leave it unset to pick the fastest).`,
        );
      });
      withNative({ tg_init: () => ErrorCode.OK }, () => expect(initialize()).toBeUndefined());
    } finally {
      if (saved === undefined) delete process.env.TGCRYPTO_BACKEND;
      else process.env.TGCRYPTO_BACKEND = saved;
    }
  });

  test("setBackend: unknown, unavailable, a NUL inside, not a string, other failures", () => {
    const before = backend();
    const known = backends().map((b) => b.name).join(", ");
    expectError(() => setBackend("no-such-backend"), TgCryptoError,
      `Unknown backend "no-such-backend" (this build has: ${known}; available: ${available()})`);
    expectError(() => setBackend(`${before}\0x`), TgCryptoError,
      `Unknown backend ${JSON.stringify(`${before}\0x`)} (this build has: ${known}; available: ${available()})`);
    expectError(() => setBackend(5 as never), TypeError, "name must be a string");
    withNative({ tg_set_backend: () => ErrorCode.UNSUPPORTED }, () => {
      expectError(() => setBackend("vaes512"), TgCryptoError,
        `Backend "vaes512" is not available on this CPU or build (available: ${available()})`);
    });
    withNative({ tg_set_backend: () => ErrorCode.NOMEM }, () => {
      expectError(() => setBackend("soft"), TgCryptoError, native.tg_strerror(ErrorCode.NOMEM));
    });
    expect(backend()).toBe(before);
  });

  test("backends(): only the indexes the library counts; an unnamed one is #index; availability as reported", () => {
    const count = native.tg_backend_count();
    const asked: number[] = [];
    withNative({
      tg_backend_name: (i) => (asked.push(i), i === 0 ? null : native.tg_backend_name(i)),
      tg_backend_available: (i) => (i === count - 1 ? 0 : native.tg_backend_available(i)),
    }, () => {
      const list = backends();
      expect(list.length).toBe(count);
      expect(Math.max(...asked), "never past the last index").toBe(count - 1);
      expect(list[0]!.name).toBe("#0");
      expect(list[count - 1]!.available).toBe(false);
      expect(list.map((b) => b.available)).toEqual(
        Array.from({ length: count }, (_, i) => i !== count - 1 && native.tg_backend_available(i) === 1),
      );
    });
  });

  test("backend() and hashEngine() without a backend: the init error, else BACKEND", () => {
    withNative({ tg_backend: () => null, tg_hash_engine: () => null, tg_init: () => ErrorCode.NOMEM }, () => {
      for (const call of [backend, hashEngine]) {
        let error: unknown;
        try {
          call();
        } catch (e) {
          error = e;
        }
        expect((error as TgCryptoError).code, call.name).toBe(ErrorCode.NOMEM);
      }
    });
    withNative({ tg_backend: () => null, tg_hash_engine: () => null, tg_init: () => ErrorCode.OK }, () => {
      expect(() => backend()).toThrow(new TgCryptoError(ErrorCode.BACKEND));
      expect(() => hashEngine()).toThrow(new TgCryptoError(ErrorCode.BACKEND));
    });
    expect(typeof backend()).toBe("string");
    expect(["sha-ni", "armv8-sha", "portable"]).toContain(hashEngine());
  });
});

describe("hashes", () => {
  test("a failed native hash call throws its error", () => {
    withNative({ tg_sha256: () => ErrorCode.NOMEM, tg_sha1_update: () => ErrorCode.LENGTH }, () => {
      expectError(() => sha256(new Uint8Array(3)), TgCryptoError, native.tg_strerror(ErrorCode.NOMEM));
      expectError(() => sha1(new Uint8Array(3), new Uint8Array(4)), TgCryptoError, native.tg_strerror(ErrorCode.LENGTH));
    });
  });

  test("none or one part: one one-shot call; two or more: init, an update per part, final", () => {
    const calls: string[] = [];
    const spy = <K extends keyof Native>(name: K) => ((...args: unknown[]) => {
      calls.push(name);
      return (native[name] as (...a: unknown[]) => unknown)(...args);
    }) as Native[K];
    withNative({
      tg_sha256: spy("tg_sha256"), tg_sha256_init: spy("tg_sha256_init"),
      tg_sha256_update: spy("tg_sha256_update"), tg_sha256_final: spy("tg_sha256_final"),
    }, () => {
      const abc = new Uint8Array([0x61, 0x62, 0x63]);
      const expected = Buffer.from("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "hex").toString("hex");
      expect(Buffer.from(sha256(abc)).toString("hex")).toBe(expected);
      expect(calls.splice(0)).toEqual(["tg_sha256"]);
      expect(Buffer.from(sha256()).toString("hex")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
      expect(calls.splice(0)).toEqual(["tg_sha256"]);
      expect(Buffer.from(sha256Into(new Uint8Array(32), abc.subarray(0, 1), abc.subarray(1))).toString("hex")).toBe(expected);
      expect(calls.splice(0)).toEqual(["tg_sha256_init", "tg_sha256_update", "tg_sha256_update", "tg_sha256_final"]);
    });
  });

  test("a part that is not a Uint8Array: TypeError naming it", () => {
    expectError(() => sha256(new Uint8Array(1), "x" as never), TypeError, "every part must be a Uint8Array");
    expectError(() => sha256Into("x" as never), TypeError, "out must be a Uint8Array");
  });
});

describe("errors.ts", () => {
  test("TgCryptoError: its name, code and the library's message; nativeError maps only OVERLAP to RangeError", () => {
    const error = new TgCryptoError(ErrorCode.NOMEM);
    expect([error.name, error.code, error.message]).toEqual(["TgCryptoError", ErrorCode.NOMEM, native.tg_strerror(ErrorCode.NOMEM)]);
    expect(String(error)).toBe(`TgCryptoError: ${native.tg_strerror(ErrorCode.NOMEM)}`);
    expect(nativeError(ErrorCode.OVERLAP)).toBeInstanceOf(RangeError);
    for (const code of [ErrorCode.NULL, ErrorCode.LENGTH, ErrorCode.NOMEM, ErrorCode.SECURITY]) {
      const mapped = nativeError(code);
      expect(mapped, String(code)).toBeInstanceOf(TgCryptoError);
      expect((mapped as TgCryptoError).code).toBe(code);
    }
    expect(new MtprotoSecurityError()).not.toBeInstanceOf(TgCryptoError);
  });
});
