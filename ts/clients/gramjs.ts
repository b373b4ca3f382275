/**
 * `tgcrypto-ffi/gramjs`: runs GramJS (the `telegram` package) or teleproto
 * (GramJS's successor) on this library's native crypto with one call at
 * startup.
 *
 * ```ts
 * import { installGramJS } from "tgcrypto-ffi/gramjs";
 * import { TelegramClient } from "telegram";
 *
 * installGramJS(); // before or after importing telegram, before connecting
 * ```
 *
 * It patches, in the package the application loads (`telegram`, else
 * `teleproto`, or `options.package`; resolved from the application's entry
 * script, then the current directory, or from `options.resolveFrom` /
 * `options.require`):
 *
 * - `crypto/IGE`'s `IGE` class: native AES-256-IGE, with GramJS's behaviour
 *   (random padding of a plaintext that is not a multiple of 16, `Buffer`s out);
 * - `crypto/CTR`'s `CTR` class and GramJS's `crypto/crypto` `createCipheriv` /
 *   `createDecipheriv` (the obfuscated transport and MTProxy): a native
 *   AES-256-CTR stream that continues across calls (teleproto's crypto/crypto
 *   has no such functions and is left alone);
 * - `crypto/Factorizator`'s `Factorizator.factorize` (`big-integer`s in and out);
 * - `Helpers.sha1` / `Helpers.sha256` (synchronous Buffers, as the stock ones in Node);
 * - `network/MTProtoState`'s `encryptMessageData` / `decryptMessageData`:
 *   one native call per message (AuthKey.encryptMessage / decryptMessage),
 *   GramJS's own checks and errors around it, the same bytes as stock GramJS
 *   given the same random padding (GramJS's `helpers.generateRandomBytes`).
 *
 * Whatever the native path does not cover (keys that are not 256 bits,
 * empty or odd-length IGE input, a pq of more than 64 bits, message data
 * shorter than msg_id + seq_no + length, a message body that does not parse
 * within its message_data_length) goes to the stock function.
 * `uninstallGramJS()` puts every stock function back.
 *
 * Keys are taken as the stock code takes them: GramJS's IGE and both
 * packages' CTR copy (expand) the key and iv at construction, so the native
 * ones keep copies; teleproto's IGE reads the caller's Buffers at each call,
 * so the native one does too.
 *
 * Where the results differ from stock GramJS, on purpose:
 * - `decryptMessageData` also checks message_data_length (a multiple of 4,
 *   within the packet) and the padding length (12..1024), as the MTProto
 *   security guidelines ask; GramJS does not. A packet failing them has a
 *   valid msg_key, so only the key holder can make one; it is rejected with
 *   GramJS's msg_key `SecurityError` where stock GramJS would parse it.
 * - the padding of an encrypted message comes from this library's CSPRNG
 *   while the package's random source (GramJS's `helpers.generateRandomBytes`,
 *   teleproto 1.229's node:crypto `randomFillSync`) is the one it had when
 *   `installGramJS()` ran: the same length as stock's, as random; a source
 *   replaced after installGramJS is called as stock calls it (one replaced
 *   before is taken for the stock one).
 * - `Factorizator.factorize` of 0, 1 or a prime throws (`TgCryptoError`)
 *   where stock GramJS answers `{ p: 1, q: pq }` or does not terminate.
 *
 * - teleproto's stock IGE and MTProtoState take only Buffers (a plain
 *   Uint8Array fails inside them with a TypeError); the native IGE also
 *   takes plain Uint8Arrays.
 *
 * Importing this module does not load `telegram`: only `installGramJS` does.
 *
 * @module
 */

import { sha1, sha256 } from "../mod.ts";
import { loadModules, type Patchable, TESTED_VERSIONS } from "./gramjs/package.ts";
import { makeCipherFactory, makeCtr, makeFactorize, makeHash, makeIge } from "./gramjs/primitives.ts";
import { makeDecryptMessageData, makeEncryptMessageData } from "./gramjs/state.ts";

/** The `telegram` version these patches were written against and tested with. */
export const TESTED_GRAMJS_VERSION = "2.26.22";

/** The `teleproto` versions these patches were tested with: the newest the registry serves, and its `latest` tag. */
export const TESTED_TELEPROTO_VERSIONS: readonly string[] = TESTED_VERSIONS.teleproto;

/** Options of {@link installGramJS}. */
export interface GramJSOptions {
  /**
   * The package to patch: "telegram" (GramJS), "teleproto", or an npm alias
   * of one (its package.json `name` says which). Default: `telegram` if the
   * application has it, else `teleproto`.
   */
  readonly package?: string;
  /**
   * A `require` function that resolves the package as the application does
   * (e.g. `createRequire(import.meta.url)` in the application's entry module).
   */
  readonly require?: (id: string) => unknown;
  /**
   * Where to resolve the package from: a directory, a file in it, or a
   * `file:` URL (e.g. `import.meta.url` of the application's entry module,
   * or the resolved URL of the package's own `index.js`). Default: the
   * application's entry script (`require.main`, `process.argv[1]`, Deno's
   * and Bun's main module), then the current directory.
   */
  readonly resolveFrom?: string | { readonly href: string };
  /**
   * Patch a version other than the tested ones ({@link TESTED_GRAMJS_VERSION},
   * {@link TESTED_TELEPROTO_VERSIONS}) at your own risk; the shapes of the
   * patched functions are still checked.
   */
  readonly allowUntestedVersion?: boolean;
}

/** What is replaced: [object, property] pairs, with the stock values kept for uninstall. */
interface Installation {
  readonly ige: Patchable;
  readonly stock: Map<Patchable, Map<string, unknown>>;
}

const installations = new Map<string, Installation>();

function replace(installation: Installation, object: Patchable, key: string, value: unknown): void {
  let saved = installation.stock.get(object);
  if (saved === undefined) installation.stock.set(object, saved = new Map());
  if (!saved.has(key)) saved.set(key, object[key]);
  object[key] = value;
}

/** Information about one patched package. */
export interface GramJSInstallation {
  /** The directory of the patched package. */
  readonly root: string;
  /** Its package.json name: "telegram" or "teleproto". */
  readonly name: "telegram" | "teleproto";
  /** Its version. */
  readonly version: string;
}

/**
 * Replaces the AES-IGE, AES-CTR, SHA-1/SHA-256, pq factorization and
 * MTProto message encryption/decryption of GramJS (or teleproto) with this
 * library's native ones, in the package the application uses. Idempotent (a
 * second call for the same package changes nothing).
 *
 * @throws {Error} when the package cannot be found (naming every place
 *   looked in), is not a tested version or lacks a patched function
 */
export function installGramJS(options: GramJSOptions = {}): GramJSInstallation {
  if (typeof options !== "object" || options === null) throw new TypeError("options must be an object");
  const modules = loadModules(options as Parameters<typeof loadModules>[0]);
  const info: GramJSInstallation = { root: modules.root, name: modules.name, version: modules.version };
  const done = installations.get(modules.root);
  if (done !== undefined && done.ige === modules.ige) return info;
  const installation: Installation = { ige: modules.ige, stock: new Map() };
  const { ige, ctr, cryptoJs, factorizator, helpers, state } = modules;
  type Stock = Parameters<typeof makeCtr>[0];
  replace(installation, ige, "IGE", makeIge(modules, ige.IGE as Stock));
  replace(installation, ctr, "CTR", makeCtr(ctr.CTR as Stock));
  if (cryptoJs !== null) {
    type Factory = (algorithm: string, key: unknown, iv: unknown) => unknown;
    replace(installation, cryptoJs, "createCipheriv", makeCipherFactory(cryptoJs.createCipheriv as Factory));
    replace(installation, cryptoJs, "createDecipheriv", makeCipherFactory(cryptoJs.createDecipheriv as Factory));
  }
  type Factorize = Parameters<typeof makeFactorize>[1];
  replace(installation, factorizator, "factorize", makeFactorize(modules, factorizator.factorize as Factorize));
  type Hash = (data: unknown) => unknown;
  replace(installation, helpers, "sha1", makeHash(sha1, helpers.sha1 as Hash));
  replace(installation, helpers, "sha256", makeHash(sha256, helpers.sha256 as Hash));
  type Encrypt = Parameters<typeof makeEncryptMessageData>[1];
  type Decrypt = Parameters<typeof makeDecryptMessageData>[1];
  replace(installation, state, "encryptMessageData", makeEncryptMessageData(modules, state.encryptMessageData as Encrypt));
  replace(installation, state, "decryptMessageData", makeDecryptMessageData(modules, state.decryptMessageData as Decrypt));
  installations.set(modules.root, installation);
  return info;
}

/**
 * Puts back every stock function that {@link installGramJS} replaced, in
 * every patched package. Safe to call when nothing is installed. Returns how
 * many installations were restored.
 */
export function uninstallGramJS(): number {
  let restored = 0;
  for (const installation of installations.values()) {
    for (const [object, saved] of installation.stock) {
      for (const [key, value] of saved) object[key] = value;
    }
    restored++;
  }
  installations.clear();
  return restored;
}

/** Whether {@link installGramJS} is in effect (for any installation). */
export function isGramJSInstalled(): boolean {
  return installations.size > 0;
}
