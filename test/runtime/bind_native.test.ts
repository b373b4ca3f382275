/**
 * bindNative (ts/api.ts), what mod.ts calls once the library is open: it
 * binds the library and runs tg_init at once, so a TGCRYPTO_BACKEND that
 * cannot be used fails the import, not some later call. Checked with a
 * stand-in library; this file does not import the package entry.
 */
import { expect, test } from "vitest";

import { bindNative, TgCryptoError, version } from "../../ts/api.ts";
import type { Native } from "../../ts/runtime/native.ts";
import { symbols } from "../../ts/runtime/symbols.ts";

function standIn(initCode: number, calls: string[]): Native {
  const native: Record<string, unknown> = { runtime: "node", path: "/x/libtgcrypto.so" };
  for (const name of Object.keys(symbols)) native[name] = () => (calls.push(name), 0);
  native.tg_init = () => (calls.push("tg_init"), initCode);
  native.tg_version = () => "1.2.3";
  native.tg_strerror = (code: number) => `error ${code}`;
  native.tg_backend_count = () => 1;
  native.tg_backend_name = (i: number) => (i === 0 ? "soft" : null);
  native.tg_backend_available = () => 1;
  native.allocateOutput = (n: number) => new Uint8Array(n);
  native.finishOutput = (out: Uint8Array) => out;
  return native as unknown as Native;
}

test("bindNative runs tg_init; a failing one throws a TgCryptoError with its code and the backends", () => {
  const calls: string[] = [];
  bindNative(standIn(0, calls));
  expect(calls).toEqual(["tg_init"]);
  expect(version()).toBe("1.2.3");
  let error: unknown;
  try {
    bindNative(standIn(-7, []));
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(TgCryptoError);
  expect((error as TgCryptoError).code).toBe(-7);
  expect((error as Error).message).toMatch(/cannot be used: error -7\. Available backends: soft \(leave it unset/);
});
