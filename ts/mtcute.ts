/**
 * The two AES hooks of mtcute's `ICryptoProvider`, backed by this library.
 *
 * mtcute (`@mtcute/core`) asks its crypto provider for `createAesIge(key, iv)`
 * (a per-message scheme: every `encrypt`/`decrypt` call starts again from the
 * original key and IV, input may be a subarray, output must be a fresh array
 * the caller keeps) and `createAesCtr(key, iv, encrypt)` (a stream over the
 * obfuscated transport: `process` is called per TCP chunk, any length, and
 * `close` when the connection resets). Override them in the provider your
 * runtime package gives you:
 *
 * ```ts
 * import { BunCryptoProvider } from "@mtcute/bun";
 * import { mtcute } from "tgcrypto-ffi";
 *
 * class NativeCryptoProvider extends BunCryptoProvider {
 *   override createAesIge(key: Uint8Array, iv: Uint8Array) { return mtcute.createAesIge(key, iv); }
 *   override createAesCtr(key: Uint8Array, iv: Uint8Array, encrypt: boolean) { return mtcute.createAesCtr(key, iv, encrypt); }
 * }
 * const tg = new TelegramClient({ apiId, apiHash, crypto: new NativeCryptoProvider() });
 * ```
 *
 * The shapes are mtcute's (`IEncryptionScheme`, `IAesCtr`), declared here so
 * that this library does not depend on mtcute.
 *
 * @module
 */

import { CtrContext, ige256Decrypt, ige256Encrypt } from "./api.ts";

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

/** AES-256-IGE for one message key: stateless, each call starts from `key`/`iv`. */
function createAesIge(key: Uint8Array, iv: Uint8Array): MtcuteEncryptionScheme {
  const ownKey = key.slice(), ownIv = iv.slice(); // the caller may reuse its arrays
  return {
    encrypt: (data) => ige256Encrypt(data, ownKey, ownIv),
    decrypt: (data) => ige256Decrypt(data, ownKey, ownIv),
  };
}

/** AES-256-CTR stream (encryption and decryption are the same, so `encrypt` is unused). */
function createAesCtr(key: Uint8Array, iv: Uint8Array, _encrypt: boolean): MtcuteAesCtr {
  const context = new CtrContext(key, iv);
  return {
    process: (data) => context.update(data),
    close: () => context.dispose(),
  };
}

/** Drop-in `createAesIge` / `createAesCtr` for an mtcute crypto provider. */
export const mtcute = { createAesIge, createAesCtr } as const;
