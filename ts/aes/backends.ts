/**
 * The AES backends: which one runs, which exist, switching, and the
 * `TGCRYPTO_BACKEND` check at load time.
 *
 * @module
 */

import {
  backendAvailable,
  backendCount,
  backendName,
  nativeBackend,
  nativeInit,
  nativeSetBackend,
  strerror,
} from "../runtime/bound.ts";
import { TgCryptoError } from "../errors.ts";
import { readEnv } from "../runtime/locate.ts";
import { ErrorCode } from "../runtime/symbols.ts";

/**
 * Runs `tg_init()`. Internal: called once by `bindNative`.
 *
 * @throws {TgCryptoError} when `TGCRYPTO_BACKEND` names an unknown or
 *   unavailable backend (the message names the value, the reason and the
 *   backends that would work).
 */
export function initialize(): void {
  const code = nativeInit();
  if (code !== ErrorCode.OK) {
    const value = readEnv("TGCRYPTO_BACKEND");
    const setting = value === undefined
      ? "TGCRYPTO_BACKEND (value not readable here, e.g. no --allow-env)"
      : `TGCRYPTO_BACKEND=${JSON.stringify(value)}`;
    throw new TgCryptoError(
      code,
      `tgcrypto-ffi: ${setting} cannot be used: ${strerror(code)}. ` +
        `Available backends: ${availableBackendNames().join(", ")} (leave it unset to pick the fastest).`,
    );
  }
}

/** One AES implementation compiled into the library. */
export interface BackendInfo {
  /** "vaes512", "vaes256", "aesni", "armce" or "soft". */
  readonly name: string;
  /** Whether this CPU can run it. */
  readonly available: boolean;
}

/**
 * The backend running now: "vaes512" | "vaes256" | "aesni" | "armce" | "soft".
 *
 * @throws {TgCryptoError} if the library failed to initialise
 */
export function backend(): string {
  const name = nativeBackend();
  if (name !== null) return name;
  const code = nativeInit();
  throw new TgCryptoError(code !== ErrorCode.OK ? code : ErrorCode.BACKEND);
}

/** The backends compiled into this build, best first, and whether each can run here. */
export function backends(): BackendInfo[] {
  const list: BackendInfo[] = [];
  const count = backendCount();
  for (let index = 0; index < count; index++) {
    list.push({ name: backendName(index) ?? `#${index}`, available: backendAvailable(index) === 1 });
  }
  return list;
}

function availableBackendNames(): string[] {
  return backends().filter((b) => b.available).map((b) => b.name);
}

/**
 * Switches the process-wide backend (for tests and benchmarks). Existing
 * contexts keep the backend they were created with.
 *
 * @param name one of the names from {@link backends}
 * @throws {TgCryptoError} for an unknown name, or one this CPU/build cannot run
 */
export function setBackend(name: string): void {
  if (typeof name !== "string") throw new TypeError("name must be a string");
  // An embedded NUL would make C see a shorter, possibly valid, name.
  const code = name.includes("\0") ? ErrorCode.BACKEND : nativeSetBackend(name);
  if (code === ErrorCode.OK) return;
  const available = availableBackendNames().join(", ");
  if (code === ErrorCode.BACKEND) {
    const known = backends().map((b) => b.name).join(", ");
    throw new TgCryptoError(code, `Unknown backend ${JSON.stringify(name)} (this build has: ${known}; available: ${available})`);
  }
  if (code === ErrorCode.UNSUPPORTED) {
    throw new TgCryptoError(
      code,
      `Backend ${JSON.stringify(name)} is not available on this CPU or build (available: ${available})`,
    );
  }
  throw new TgCryptoError(code);
}
