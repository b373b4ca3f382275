/**
 * `tgcrypto-ffi/mtcute`: {@link nativeCrypto} makes any mtcute crypto
 * provider (`ICryptoProvider` of `@mtcute/core`: `NodeCryptoProvider`,
 * `BunCryptoProvider`, `DenoCryptoProvider`, `WebCryptoProvider`, ...) run
 * its AES-256-IGE, AES-256-CTR, SHA-1, SHA-256 and pq factorization in this
 * library (it sets them on the provider itself and returns it):
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
 * provider's own, untouched. mtcute has no hook for the message layer, so
 * its `AuthKey` keeps doing the framing in JS; the hashes and the cipher
 * under it are native.
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
import { liveByteLength } from "../validate.ts";

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
 * Stateless: every `encrypt`/`decrypt` starts again from `key`/`iv`, read
 * at each call as mtcute's own providers read them (a caller that changes
 * its arrays after creating the scheme changes later results, as with
 * stock mtcute); each result is a fresh array.
 */
export function createAesIge(key: Uint8Array, iv: Uint8Array): MtcuteEncryptionScheme {
  return {
    encrypt: (data) => ige256Encrypt(data, key, iv),
    decrypt: (data) => ige256Decrypt(data, key, iv),
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
 * utils/crypto/abstract, 0.30.3) that {@link nativeCrypto} replaces or
 * needs. Any provider object fits.
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
type NativeMember = (typeof NATIVE_MEMBERS)[number];

/** The functions nativeCrypto puts on providers (to recognise a provider it already changed). */
const nativeFunctions = new WeakSet<object>();

/** A genuine Uint8Array over a live buffer, by the engine's answer (only those take the native path). */
const isBytes = (value: unknown): value is Uint8Array => liveByteLength(value) >= 0;

/**
 * Makes `provider`'s `createAesIge`, `createAesCtr`, `sha1`, `sha256` and
 * `factorizePQ` native, on `provider` itself, and returns it (the same
 * object). The native functions are own properties of the provider
 * (writable, configurable, not enumerable, like the class methods they
 * shadow); every other member is untouched, so everything behaves as the
 * provider's own: methods run with `this` being whatever they are called on
 * (the provider, a Proxy around it such as mtcute's `withFakeRandom`), an
 * override set on it later (`provider.randomFill = ...`, `vi.spyOn`) is
 * what its other methods see, and providers with `#private` fields keep
 * working.
 *
 * - `createAesIge` / `createAesCtr`: native for 32-byte keys (all mtcute
 *   uses) and 32-/16-byte IVs; anything else goes to the provider's own
 *   method (called on the same `this`).
 * - `factorizePQ`: native for a pq of up to 8 bytes (Telegram's); longer
 *   goes to the provider's own. Returns synchronously (mtcute awaits it).
 * - `sha1` / `sha256`: native for `Uint8Array` data; they return a plain
 *   `Uint8Array` (the interface's type; NodeCryptoProvider's node:crypto
 *   digests are Buffers).
 *
 * Calling it again on the same provider changes nothing. The provider is
 * changed in place: a provider shared with code that should keep the stock
 * functions needs an instance of its own.
 *
 * @throws {TypeError} if `provider` is not an object with mtcute's crypto
 *   provider methods, or cannot take the native members as own properties
 *   (frozen, sealed or otherwise non-extensible, or a member that is
 *   non-configurable); nothing is changed then
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
  if (NATIVE_MEMBERS.every((name) => nativeFunctions.has(provider[name]))) return provider;
  for (const name of NATIVE_MEMBERS) {
    const own = Object.getOwnPropertyDescriptor(provider, name);
    if (own ? !own.configurable : !Object.isExtensible(provider)) {
      throw new TypeError(
        `nativeCrypto(provider): cannot set ${name} on this provider (it is frozen, sealed or not extensible, ` +
          `or ${name} is not configurable); pass a provider of its own, or use createAesIge/createAesCtr ` +
          `from tgcrypto-ffi/mtcute in a provider class`,
      );
    }
  }
  // The provider's own functions, for the inputs the native ones do not take; called on the receiver.
  const stockIge = provider.createAesIge, stockCtr = provider.createAesCtr, stockFactorize = provider.factorizePQ;
  const stockSha1 = provider.sha1, stockSha256 = provider.sha256;
  const members: Pick<MtcuteCryptoProvider, NativeMember> = {
    createAesIge(this: unknown, key: Uint8Array, iv: Uint8Array) {
      return liveByteLength(key) === 32 && liveByteLength(iv) === 32
        ? createAesIge(key, iv)
        : stockIge.call(this, key, iv);
    },
    createAesCtr(this: unknown, key: Uint8Array, iv: Uint8Array, encrypt: boolean) {
      return liveByteLength(key) === 32 && liveByteLength(iv) === 16
        ? createAesCtr(key, iv, encrypt)
        : stockCtr.call(this, key, iv, encrypt);
    },
    sha1(this: unknown, data: Uint8Array) {
      return isBytes(data) ? sha1(data) : stockSha1.call(this, data);
    },
    sha256(this: unknown, data: Uint8Array) {
      return isBytes(data) ? sha256(data) : stockSha256.call(this, data);
    },
    factorizePQ(this: unknown, pq: Uint8Array) {
      const pqLength = liveByteLength(pq);
      return pqLength >= 0 && pqLength <= 8 ? factorizePQ(pq) : stockFactorize.call(this, pq);
    },
  };
  for (const name of NATIVE_MEMBERS) {
    nativeFunctions.add(members[name]);
    Object.defineProperty(provider, name, { value: members[name], writable: true, configurable: true, enumerable: false });
  }
  return provider;
}
