/**
 * `tgcrypto-ffi/mtcute`: {@link nativeCrypto} wraps any mtcute crypto
 * provider (`ICryptoProvider` of `@mtcute/core`: `NodeCryptoProvider`,
 * `BunCryptoProvider`, `DenoCryptoProvider`, `WebCryptoProvider`, ...) so that
 * its AES-256-IGE, AES-256-CTR, SHA-1, SHA-256 and pq factorization run in
 * this library:
 *
 * ```ts
 * import { TelegramClient } from "@mtcute/node"; // or @mtcute/bun, @mtcute/deno
 * import { NodeCryptoProvider } from "@mtcute/node/utils.js";
 * import { nativeCrypto } from "tgcrypto-ffi/mtcute";
 *
 * const tg = new TelegramClient({ apiId, apiHash, crypto: nativeCrypto(new NodeCryptoProvider()) });
 * ```
 *
 * Everything else (initialize, pbkdf2, hmacSha256, gzip, gunzip,
 * randomFill, randomBytes, and whatever else the provider has) stays the
 * provider's own, called on the provider itself. mtcute has no hook for
 * the message layer, so its `AuthKey` keeps doing the framing in JS; the
 * hashes and the cipher under it are native.
 *
 * For a provider class of your own, {@link createAesIge} and
 * {@link createAesCtr} are the two AES hooks alone:
 *
 * ```ts
 * import { createAesCtr, createAesIge } from "tgcrypto-ffi/mtcute";
 * class MyProvider extends NodeCryptoProvider {
 *   override createAesIge(key: Uint8Array, iv: Uint8Array) { return createAesIge(key, iv); }
 *   override createAesCtr(key: Uint8Array, iv: Uint8Array, encrypt: boolean) { return createAesCtr(key, iv, encrypt); }
 * }
 * ```
 *
 * This module does not import mtcute: the shapes are declared here.
 *
 * @module
 */

import { CtrContext, factorizePQ, ige256Decrypt, ige256Encrypt, sha1, sha256 } from "../mod.ts";

/** mtcute's `IEncryptionScheme`. */
export interface MtcuteEncryptionScheme {
  encrypt(data: Uint8Array): Uint8Array;
  decrypt(data: Uint8Array): Uint8Array;
}

/** mtcute's `IAesCtr`. */
export interface MtcuteAesCtr {
  process(data: Uint8Array): Uint8Array;
  close(): void;
}

/**
 * mtcute's `createAesIge(key, iv)`, native: AES-256-IGE for one message key.
 * Stateless: every `encrypt`/`decrypt` starts again from `key`/`iv` (copied,
 * as the caller may reuse its arrays); each result is a fresh array.
 */
export function createAesIge(key: Uint8Array, iv: Uint8Array): MtcuteEncryptionScheme {
  const ownKey = key.slice(), ownIv = iv.slice();
  return {
    encrypt: (data) => ige256Encrypt(data, ownKey, ownIv),
    decrypt: (data) => ige256Decrypt(data, ownKey, ownIv),
  };
}

/**
 * mtcute's `createAesCtr(key, iv, encrypt)`, native: an AES-256-CTR stream
 * (the obfuscated transport calls `process` per TCP chunk, any length, and
 * `close` when the connection resets). Encryption and decryption are the
 * same, so `encrypt` is unused.
 */
export function createAesCtr(key: Uint8Array, iv: Uint8Array, _encrypt: boolean): MtcuteAesCtr {
  const context = new CtrContext(key, iv);
  return {
    process: (data) => context.update(data),
    close: () => context.dispose(),
  };
}

/**
 * The members of mtcute's `ICryptoProvider` (`@mtcute/core`
 * utils/crypto/abstract, 0.30.3) that {@link nativeCrypto} replaces, and the
 * ones it forwards. Any provider object fits.
 */
export interface MtcuteCryptoProvider {
  initialize?: () => unknown;
  sha1(data: Uint8Array): Uint8Array;
  sha256(data: Uint8Array): Uint8Array;
  createAesCtr(key: Uint8Array, iv: Uint8Array, encrypt: boolean): { process(data: Uint8Array): Uint8Array; close?: () => void };
  createAesIge(key: Uint8Array, iv: Uint8Array): MtcuteEncryptionScheme;
  factorizePQ(pq: Uint8Array): [Uint8Array, Uint8Array] | Promise<[Uint8Array, Uint8Array]>;
  randomFill(buf: Uint8Array): void;
  randomBytes(size: number): Uint8Array;
}

/** The mtcute version the wrapper is tested against. */
export const TESTED_MTCUTE_VERSION = "0.30.3";

/** The members replaced by native ones. */
const NATIVE_MEMBERS = ["createAesIge", "createAesCtr", "sha1", "sha256", "factorizePQ"] as const;

/**
 * A provider whose `createAesIge`, `createAesCtr`, `sha1`, `sha256` and
 * `factorizePQ` are native; every other member is `provider`'s (methods
 * called on `provider` itself, so class-private state keeps working).
 *
 * - `createAesIge` / `createAesCtr`: native for 32-byte keys (all mtcute
 *   uses); other key sizes go to `provider`.
 * - `factorizePQ`: native for a pq of up to 8 bytes (Telegram's); longer
 *   goes to `provider`. Returns synchronously (mtcute awaits it).
 *
 * @throws {TypeError} if `provider` is not an object with mtcute's crypto
 *   provider methods
 */
export function nativeCrypto<P extends MtcuteCryptoProvider>(provider: P): P {
  if (typeof provider !== "object" || provider === null) {
    throw new TypeError("nativeCrypto(provider): provider must be an mtcute ICryptoProvider object");
  }
  for (const name of [...NATIVE_MEMBERS, "randomFill"] as const) {
    if (typeof provider[name] !== "function") {
      throw new TypeError(
        `nativeCrypto(provider): provider has no ${name}() (an mtcute ICryptoProvider is expected; ` +
          `tested with @mtcute/core ${TESTED_MTCUTE_VERSION})`,
      );
    }
  }
  // Members come from the provider through the prototype chain; its methods
  // are forwarded so that they run on the provider itself.
  const wrapper = Object.create(provider) as Record<string, unknown>;
  const seen = new Set<string>();
  for (let object: object | null = provider; object !== null && object !== Object.prototype;) {
    for (const name of Object.getOwnPropertyNames(object)) {
      if (name === "constructor" || seen.has(name)) continue;
      seen.add(name);
      const descriptor = Object.getOwnPropertyDescriptor(object, name)!;
      if (typeof descriptor.value === "function") {
        // Looked up on each call: a method replaced on the provider later is the one used.
        const forward = provider as unknown as Record<string, (...args: unknown[]) => unknown>;
        wrapper[name] = (...args: unknown[]) => forward[name]!(...args);
      }
    }
    object = Object.getPrototypeOf(object);
  }
  const stock = {
    createAesIge: (key: Uint8Array, iv: Uint8Array) => provider.createAesIge(key, iv),
    createAesCtr: (key: Uint8Array, iv: Uint8Array, encrypt: boolean) => provider.createAesCtr(key, iv, encrypt),
    factorizePQ: (pq: Uint8Array) => provider.factorizePQ(pq),
  };
  const replaced: Pick<MtcuteCryptoProvider, (typeof NATIVE_MEMBERS)[number]> = {
    createAesIge: (key, iv) =>
      key.length === 32 && iv.length === 32 ? createAesIge(key, iv) : stock.createAesIge(key, iv),
    createAesCtr: (key, iv, encrypt) =>
      key.length === 32 && iv.length === 16 ? createAesCtr(key, iv, encrypt) : stock.createAesCtr(key, iv, encrypt),
    sha1: (data) => sha1(data),
    sha256: (data) => sha256(data),
    factorizePQ: (pq) => (pq.length <= 8 ? factorizePQ(pq) : stock.factorizePQ(pq)),
  };
  Object.assign(wrapper, replaced);
  return wrapper as unknown as P;
}
