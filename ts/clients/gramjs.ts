/**
 * `tgcrypto-ffi/gramjs`: runs GramJS (the `telegram` package) on this
 * library's native crypto with one call at startup.
 *
 * ```ts
 * import { installGramJS } from "tgcrypto-ffi/gramjs";
 * import { TelegramClient } from "telegram";
 *
 * installGramJS(); // before or after importing telegram, before connecting
 * ```
 *
 * It patches, in the `telegram` package the application loads (resolved
 * from `process.cwd()`, or from `options.resolveFrom` / `options.require`):
 *
 * - `crypto/IGE`'s `IGE` class: native AES-256-IGE, with GramJS's behaviour
 *   (random padding of a plaintext that is not a multiple of 16, `Buffer`s out);
 * - `crypto/CTR`'s `CTR` class and `crypto/crypto`'s `createCipheriv` /
 *   `createDecipheriv` (the obfuscated transport and MTProxy): a native
 *   AES-256-CTR stream that continues across calls;
 * - `crypto/Factorizator`'s `Factorizator.factorize` (`big-integer`s in and out);
 * - `Helpers.sha1` / `Helpers.sha256` (synchronous Buffers, as GramJS's own in Bun and Deno);
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
 * Where the results differ from stock GramJS, on purpose:
 * - `decryptMessageData` also checks message_data_length (a multiple of 4,
 *   within the packet) and the padding length (12..1024), as the MTProto
 *   security guidelines ask; GramJS does not. A packet failing them has a
 *   valid msg_key, so only the key holder can make one; it is rejected with
 *   GramJS's msg_key `SecurityError` where stock GramJS would parse it.
 * - `Factorizator.factorize` of 0, 1 or a prime throws (`TgCryptoError`)
 *   where stock GramJS answers `{ p: 1, q: pq }` or does not terminate.
 *
 * Importing this module does not load `telegram`: only `installGramJS` does.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

import { AuthKey, CtrContext, factorizePQ, ige256Decrypt, ige256Encrypt, MtprotoSecurityError, sha1, sha256 } from "../mod.ts";

/** The `telegram` version these patches were written against and tested with. */
export const TESTED_GRAMJS_VERSION = "2.26.22";

/** Options of {@link installGramJS}. */
export interface GramJSOptions {
  /**
   * A `require` function that resolves `telegram` as the application does
   * (e.g. `createRequire(import.meta.url)` in the application's entry module).
   */
  readonly require?: (id: string) => unknown;
  /**
   * Where to resolve `telegram` from: a directory, a file in it, or a
   * `file:` URL (e.g. `import.meta.url` of the application's entry module,
   * or the resolved URL of telegram's own `index.js`). Default: `process.cwd()`.
   */
  readonly resolveFrom?: string | InstanceType<typeof URL>;
  /**
   * Patch a `telegram` version other than {@link TESTED_GRAMJS_VERSION}
   * (at your own risk; the shapes of the patched functions are still checked).
   */
  readonly allowUntestedVersion?: boolean;
}

/* ------------------------------------------------------------------------ */
/* The parts of GramJS that are touched, typed structurally                 */

/** A `big-integer` value: only what is used here. */
interface BigInteger {
  toString(): string;
  neq(other: unknown): boolean;
}
type BigIntegerFactory = (value: string) => BigInteger;
type Patchable = Record<string, unknown>;

interface GramAuthKey {
  keyId?: BigInteger;
  getKey(): Buffer | undefined;
  waitForKey(): Promise<void>;
}

interface GramState {
  authKey?: GramAuthKey;
  salt: BigInteger;
  id: BigInteger;
  msgIds: string[];
  securityChecks: boolean;
}

interface GramReader {
  read(length: number): Buffer;
  tgReadObject(): unknown;
}

/** The modules of one `telegram` installation. */
interface GramModules {
  readonly root: string;
  readonly version: string;
  readonly ige: Patchable; // crypto/IGE: { IGE }
  readonly ctr: Patchable; // crypto/CTR: { CTR }
  readonly cryptoJs: Patchable; // crypto/crypto: { createCipheriv, createDecipheriv }
  readonly factorizator: Patchable; // the Factorizator class: { factorize }
  readonly helpers: Patchable; // Helpers: { sha1, sha256, generateRandomBytes, mod, toSignedLittleBuffer, ... }
  readonly state: Patchable; // MTProtoState.prototype
  readonly errors: { SecurityError: new (message?: string) => Error; InvalidBufferError: new (payload: Buffer) => Error };
  readonly BinaryReader: new (data: Buffer) => GramReader;
  readonly TLMessage: new (msgId: BigInteger, seqNo: number, obj: unknown) => unknown;
  readonly bigInt: BigIntegerFactory;
}

/** What is replaced: [object, property] pairs, with the stock values kept for uninstall. */
interface Installation {
  readonly modules: GramModules;
  readonly stock: Map<Patchable, Map<string, unknown>>;
}

const installations = new Map<string, Installation>();

/* ------------------------------------------------------------------------ */
/* Finding the application's telegram                                       */

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // missing, or not readable here (Deno without --allow-read): taken as a file
  }
}

function requireFunction(options: GramJSOptions): { require: (id: string) => unknown; from: string } {
  if (options.require !== undefined) {
    if (typeof options.require !== "function") throw new TypeError("options.require must be a function");
    return { require: options.require, from: "options.require" };
  }
  let from: string;
  const given = options.resolveFrom;
  if (given === undefined) from = join(process.cwd(), "noop.js");
  else if (typeof given !== "string" && !(given instanceof URL)) {
    throw new TypeError("options.resolveFrom must be a path or a file: URL");
  } else {
    const path = given instanceof URL || given.startsWith("file:") ? fileURLToPath(given) : given;
    // createRequire takes a file: a directory (with or without a trailing separator) resolves from inside it.
    from = /[/\\]$/.test(path) || isDirectory(path) ? join(path, "noop.js") : path;
  }
  return { require: createRequire(from), from };
}

function loadModules(options: GramJSOptions): GramModules {
  let appRequire: (id: string) => unknown = () => undefined;
  let from = "the current directory";
  let packageJsonPath: string;
  let version: string;
  try {
    ({ require: appRequire, from } = requireFunction(options)); // process.cwd() may need a permission (Deno)
    const resolve = (appRequire as { resolve?: (id: string) => string }).resolve;
    packageJsonPath = resolve ? resolve("telegram/package.json") : "";
    version = String((appRequire("telegram/package.json") as { version?: unknown }).version);
  } catch (cause) {
    if (cause instanceof TypeError && String(cause.message).startsWith("options.")) throw cause;
    throw new Error(
      `tgcrypto-ffi/gramjs: cannot load the "telegram" package (GramJS) from ${from}. ` +
        `Install telegram@${TESTED_GRAMJS_VERSION} (the tested version), or pass installGramJS({ resolveFrom }) ` +
        `or installGramJS({ require: createRequire(import.meta.url) }) from the module that imports telegram.`,
      { cause },
    );
  }
  if (version !== TESTED_GRAMJS_VERSION && !options.allowUntestedVersion) {
    throw new Error(
      `tgcrypto-ffi/gramjs: telegram ${version} is not supported: the patches are tested with telegram ` +
        `${TESTED_GRAMJS_VERSION} only (pass { allowUntestedVersion: true } to try anyway).`,
    );
  }
  // Everything else is required relative to telegram's own files, so that a
  // `require` that only resolves the package root still finds them.
  const root = packageJsonPath ? packageJsonPath.slice(0, -"package.json".length) : "";
  const get = (sub: string): Patchable => appRequire(`telegram/${sub}`) as Patchable;
  const telegramRequire = root ? createRequire(join(root, "index.js")) : appRequire;
  const factorizator = get("crypto/Factorizator").Factorizator as Patchable;
  const stateClass = get("network/MTProtoState").MTProtoState as { prototype: Patchable } | undefined;
  const modules: GramModules = {
    root: root || from,
    version,
    ige: get("crypto/IGE"),
    ctr: get("crypto/CTR"),
    cryptoJs: get("crypto/crypto"),
    factorizator,
    helpers: get("Helpers"),
    state: stateClass?.prototype as Patchable,
    errors: get("errors") as unknown as GramModules["errors"],
    BinaryReader: get("extensions").BinaryReader as GramModules["BinaryReader"],
    TLMessage: get("tl/core").TLMessage as GramModules["TLMessage"],
    bigInt: telegramRequire("big-integer") as BigIntegerFactory,
  };
  const expected: [unknown, string, string][] = [
    [modules.ige, "IGE", "crypto/IGE.IGE"],
    [modules.ctr, "CTR", "crypto/CTR.CTR"],
    [modules.cryptoJs, "createCipheriv", "crypto/crypto.createCipheriv"],
    [modules.cryptoJs, "createDecipheriv", "crypto/crypto.createDecipheriv"],
    [modules.factorizator, "factorize", "Factorizator.factorize"],
    [modules.helpers, "sha1", "Helpers.sha1"],
    [modules.helpers, "sha256", "Helpers.sha256"],
    [modules.helpers, "generateRandomBytes", "Helpers.generateRandomBytes"],
    [modules.helpers, "toSignedLittleBuffer", "Helpers.toSignedLittleBuffer"],
    [modules.helpers, "readBufferFromBigInt", "Helpers.readBufferFromBigInt"],
    [modules.helpers, "readBigIntFromBuffer", "Helpers.readBigIntFromBuffer"],
    [modules.helpers, "mod", "Helpers.mod"],
    [modules.state, "encryptMessageData", "MTProtoState.prototype.encryptMessageData"],
    [modules.state, "decryptMessageData", "MTProtoState.prototype.decryptMessageData"],
    [modules.errors, "SecurityError", "errors.SecurityError"],
    [modules.errors, "InvalidBufferError", "errors.InvalidBufferError"],
    [modules, "BinaryReader", "extensions.BinaryReader"],
    [modules, "TLMessage", "tl/core.TLMessage"],
    [modules, "bigInt", "big-integer"],
  ];
  for (const [object, key, name] of expected) {
    const value = object ? (object as Patchable)[key] : undefined;
    if (typeof value !== "function") {
      throw new Error(`tgcrypto-ffi/gramjs: telegram ${version} has no ${name} (tested with ${TESTED_GRAMJS_VERSION})`);
    }
  }
  return modules;
}

/* ------------------------------------------------------------------------ */
/* The replacements                                                         */

/** A Buffer over a fresh native result, without copying. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

type StockClass = new (...args: never[]) => Record<string, (...args: never[]) => unknown>;

/** crypto/IGE's `IGE`: `new IGE(key, iv).encryptIge(data)` / `.decryptIge(data)`. */
function makeIge(modules: GramModules, Stock: StockClass) {
  const helpers = modules.helpers;
  type StockIge = { encryptIge(data: Buffer): Buffer; decryptIge(data: Buffer): Buffer };
  return class IGE {
    /** Copies of a 32-byte key and IV (the caller may reuse its buffers); null: anything else, done by stock. */
    readonly #key: Uint8Array | null;
    readonly #iv: Uint8Array | null;
    #stock: StockIge | null = null;

    constructor(key: Buffer, iv: Buffer) {
      const native = isBytes(key) && isBytes(iv) && key.length === 32 && iv.length === 32;
      this.#key = native ? key.slice() : null;
      this.#iv = native ? iv.slice() : null;
      if (!native) this.#stock = new (Stock as unknown as new (key: unknown, iv: unknown) => StockIge)(key, iv);
    }

    /** The stock cipher, for the inputs the native one does not take (empty, or a decrypt of a partial block). */
    #fallback(): StockIge {
      this.#stock ??= new (Stock as unknown as new (key: Buffer, iv: Buffer) => StockIge)(
        Buffer.from(this.#key!),
        Buffer.from(this.#iv!),
      );
      return this.#stock;
    }

    decryptIge(cipherText: Buffer): Buffer {
      if (this.#key === null || !isBytes(cipherText) || cipherText.length === 0 || cipherText.length % 16 !== 0) {
        return this.#fallback().decryptIge(cipherText);
      }
      return asBuffer(ige256Decrypt(cipherText, this.#key, this.#iv!));
    }

    encryptIge(plainText: Buffer): Buffer {
      if (this.#key === null || !isBytes(plainText) || plainText.length === 0) {
        return this.#fallback().encryptIge(plainText);
      }
      const remainder = plainText.length % 16;
      if (remainder !== 0) {
        // GramJS pads with random bytes to a whole block (Helpers.generateRandomBytes, looked up per call as GramJS does).
        const random = (helpers.generateRandomBytes as (n: number) => Buffer)(16 - remainder);
        plainText = Buffer.concat([plainText, random]);
      }
      return asBuffer(ige256Encrypt(plainText, this.#key, this.#iv!));
    }
  };
}

/** A native AES-256-CTR stream with the methods of crypto/crypto's CTR (`update`, `encrypt`). */
class NativeCtrStream {
  readonly #context: CtrContext;
  constructor(key: Uint8Array, iv: Uint8Array) {
    this.#context = new CtrContext(key, iv);
  }
  update(data: Uint8Array): Buffer {
    return this.encrypt(data);
  }
  encrypt(data: Uint8Array): Buffer {
    // Stock copies its input with Buffer.from (so it also takes arrays) and XORs it: empty in, empty out.
    const bytes = isBytes(data) ? data : Buffer.from(data as unknown as number[]);
    if (bytes.length === 0) return Buffer.alloc(0);
    return asBuffer(this.#context.update(bytes));
  }
}

/** crypto/crypto's createCipheriv/createDecipheriv: native for a 32-byte key and a 16-byte counter block. */
function makeCipherFactory(stock: (algorithm: string, key: unknown, iv: unknown) => unknown) {
  return function createCipheriv(algorithm: string, key: unknown, iv: unknown): unknown {
    if (
      typeof algorithm === "string" && !algorithm.includes("ECB") && isBytes(key) && key.length === 32 &&
      isBytes(iv) && iv.length === 16
    ) {
      return new NativeCtrStream(key, iv);
    }
    return stock(algorithm, key, iv);
  };
}

/** crypto/CTR's `CTR`: the transport's stream (`new CTR(key, iv).encrypt(data)`). */
function makeCtr(Stock: StockClass) {
  return class CTR {
    readonly #stream: { encrypt(data: Buffer): Buffer };
    constructor(key: Buffer, iv: Buffer) {
      if (!Buffer.isBuffer(key) || !Buffer.isBuffer(iv) || iv.length !== 16) {
        throw new Error("Key and iv need to be a buffer"); // GramJS's check and message
      }
      this.#stream = key.length === 32
        ? new NativeCtrStream(key, iv)
        : new (Stock as unknown as new (key: Buffer, iv: Buffer) => { encrypt(data: Buffer): Buffer })(key, iv);
    }
    encrypt(data: Buffer): Buffer {
      return this.#stream.encrypt(data);
    }
  };
}

const MAX_U64 = (1n << 64n) - 1n;

/** Factorizator.factorize: `{ p, q }` big-integers, p <= q, for a pq below 2^64. */
function makeFactorize(modules: GramModules, stock: (pq: BigInteger) => { p: BigInteger; q: BigInteger }) {
  const bigInt = modules.bigInt;
  return function factorize(pq: BigInteger): { p: BigInteger; q: BigInteger } {
    let value: bigint;
    try {
      value = BigInt(pq.toString());
    } catch {
      return stock(pq);
    }
    if (value < 4n || value > MAX_U64) return stock(pq);
    const [p, q] = factorizePQ(value);
    return { p: bigInt(p.toString()), q: bigInt(q.toString()) };
  };
}

/**
 * Helpers.sha1 / sha256. Typed as returning a Promise, GramJS's Node build
 * returns the digest Buffer synchronously (node:crypto's `digest()`), and its
 * callers `await` it: the native digest is returned the same way.
 */
function makeHash(hash: (...parts: Uint8Array[]) => Uint8Array, stock: (data: unknown) => unknown) {
  return function digest(data: Buffer): unknown {
    if (!isBytes(data)) return stock(data);
    return asBuffer(hash(data));
  };
}

/* ------------------------------------------------------------------------ */
/* MTProtoState                                                             */

/** A native AuthKey for one GramJS key Buffer, and the auth_key_id bytes of the GramJS keyId last seen with it. */
interface NativeKey {
  readonly native: AuthKey;
  keyId: BigInteger | undefined;
  keyIdBytes: Buffer | null;
}

/** One native AuthKey per GramJS key Buffer (GramJS replaces the Buffer when the key changes: AuthKey.setKey). */
const nativeKeys = new WeakMap<Uint8Array, NativeKey>();

function nativeKeyFor(key: Buffer): NativeKey {
  let entry = nativeKeys.get(key);
  if (entry === undefined) {
    entry = { native: new AuthKey(key), keyId: undefined, keyIdBytes: null };
    nativeKeys.set(key, entry);
  }
  return entry;
}

/** GramJS's keyId as the 8 bytes it writes (readBufferFromBigInt(keyId, 8)), computed once per keyId object. */
function keyIdBytes(entry: NativeKey, keyId: BigInteger, toBytes: (value: BigInteger, length: number) => Buffer): Buffer {
  if (entry.keyId !== keyId || entry.keyIdBytes === null) {
    entry.keyIdBytes = toBytes(keyId, 8);
    entry.keyId = keyId;
  }
  return entry.keyIdBytes;
}

/** salt || session_id as GramJS writes them, per MTProtoState, recomputed when either value object changes. */
interface Header {
  salt: BigInteger;
  id: BigInteger;
  bytes: Buffer;
}
const headers = new WeakMap<object, Header>();

const SALT_AND_SESSION = 16;

function makeEncryptMessageData(modules: GramModules, stock: (this: GramState, data: Buffer) => Promise<Buffer>) {
  const helpers = modules.helpers as {
    toSignedLittleBuffer(value: BigInteger, length: number): Buffer;
    readBufferFromBigInt(value: BigInteger, length: number): Buffer;
    generateRandomBytes(count: number): Buffer;
    mod(n: number, m: number): number;
  };
  // MTProtoState takes the padding from the package index's `helpers` (the same module object as Helpers).
  return async function encryptMessageData(this: GramState, data: Buffer): Promise<Buffer> {
    // GramJS's checks and messages, in its order.
    if (!this.authKey) throw new Error("Auth key unset");
    await this.authKey.waitForKey();
    const authKey = this.authKey.getKey();
    if (!authKey) throw new Error("Auth key unset");
    if (!this.salt || !this.id || !authKey || !this.authKey.keyId) throw new Error("Unset params");
    // The native layer takes a plaintext that holds at least its 32-byte header (salt .. message_data_length):
    // GramJS's own messages always do (msg_id, seq_no and length come first), but encryptMessageData takes
    // any data, and stock GramJS encrypts shorter data too.
    if (authKey.length !== 256 || !isBytes(data) || data.length < 32 - SALT_AND_SESSION) return stock.call(this, data);
    // big-integer -> bytes costs microseconds: the header is kept while salt and id are the same objects
    // (big-integers are immutable; GramJS assigns new ones).
    let header = headers.get(this);
    if (header === undefined || header.salt !== this.salt || header.id !== this.id) {
      const bytes = Buffer.concat([helpers.toSignedLittleBuffer(this.salt, 8), helpers.toSignedLittleBuffer(this.id, 8)]);
      header = { salt: this.salt, id: this.id, bytes };
      headers.set(this, header);
    }
    const length = SALT_AND_SESSION + data.length;
    const padding = helpers.generateRandomBytes(helpers.mod(-(length + 12), 16) + 12);
    const entry = nativeKeyFor(authKey);
    const packet = entry.native.encryptMessage([header.bytes, data], { padding });
    // GramJS writes its keyId in front: the native auth_key_id (the last 8 bytes of SHA1(key)) unless the keyId
    // did not come from this key (e.g. a session's stored hash), in which case GramJS's bytes are kept.
    packet.set(keyIdBytes(entry, this.authKey.keyId, helpers.readBufferFromBigInt), 0);
    return asBuffer(packet);
  };
}

/**
 * reader.tgReadObject() without GramJS's alert(): its TypeNotFoundError calls alert() where one exists (Bun's
 * and Deno's wait for Enter on stdin). A failed native parse is handed to stock GramJS, which raises (and
 * alerts) once, as it would have alone.
 */
function readQuietly(reader: GramReader): unknown {
  const global = globalThis as { alert?: unknown };
  const alert = global.alert;
  let hidden = false;
  if (alert !== undefined) {
    try {
      global.alert = undefined;
      hidden = global.alert === undefined;
    } catch {
      // a read-only alert stays
    }
  }
  try {
    return reader.tgReadObject();
  } finally {
    if (hidden) global.alert = alert;
  }
}

function makeDecryptMessageData(modules: GramModules, stock: (this: GramState, body: Buffer) => Promise<unknown>) {
  const helpers = modules.helpers as {
    readBigIntFromBuffer(buffer: Buffer): BigInteger;
    readBufferFromBigInt(value: BigInteger, length: number): Buffer;
  };
  const { SecurityError, InvalidBufferError } = modules.errors;
  const { TLMessage, BinaryReader, bigInt } = modules;
  const bigIntFrom = bigInt as unknown as (value: bigint) => BigInteger;
  // async like GramJS's: every error is a rejected promise, as callers expect.
  // deno-lint-ignore require-await
  return async function decryptMessageData(this: GramState, body: Buffer): Promise<unknown> {
    // GramJS's checks and errors, in its order, up to the message key.
    if (!this.authKey) throw new Error("Auth key unset");
    if (body.length < 8) throw new InvalidBufferError(body);
    const authKeyId = this.authKey.keyId;
    const key = this.authKey.getKey();
    if (!authKeyId || !key || key.length !== 256 || !isBytes(body)) return stock.call(this, body);
    const entry = nativeKeyFor(key);
    // GramJS compares the packet's first 8 bytes, read as an unsigned little-endian integer, with keyId: the
    // same as comparing them with keyId's 8 bytes (without two big-integer conversions per message).
    let expectedId: Buffer;
    try {
      expectedId = keyIdBytes(entry, authKeyId, helpers.readBufferFromBigInt);
    } catch {
      return stock.call(this, body); // a keyId that is not 8 bytes: GramJS's own comparison
    }
    if (!expectedId.equals(body.subarray(0, 8))) throw new SecurityError("Server replied with an invalid auth key");
    let plaintext: Uint8Array;
    try {
      plaintext = entry.native.decryptMessage(body);
    } catch (error) {
      // The native layer checks msg_key (in constant time) and, as the security guidelines ask and GramJS does
      // not, message_data_length and the padding length: every rejection is GramJS's msg_key error.
      if (error instanceof MtprotoSecurityError) {
        throw new SecurityError("Received msg_key doesn't match with expected one");
      }
      throw error;
    }
    // GramJS's reading of the header and its duplicate msg_id check, on the checked plaintext. The salt and the
    // session_id are skipped (GramJS reads and ignores them); msg_id is the signed little-endian long GramJS's
    // readLong() gives, made from a bigint (big-integer takes one directly).
    const view = new DataView(plaintext.buffer, plaintext.byteOffset, plaintext.length);
    const remoteMsgId = bigIntFrom(view.getBigInt64(16, true));
    if (this.msgIds.includes(remoteMsgId.toString()) && this.securityChecks) {
      throw new SecurityError("Duplicate msgIds");
    }
    const reader = new BinaryReader(asBuffer(plaintext));
    reader.read(32); // to message_data (its length was checked natively)
    let obj: unknown;
    try {
      obj = readQuietly(reader);
    } catch {
      // A body that does not parse within message_data_length: stock GramJS reads on into the padding (which
      // the native layer zeroes) and its errors count the bytes left, so the packet goes to stock GramJS,
      // whose result or error is then exactly stock's (msgIds is untouched so far, as stock expects it).
      return stock.call(this, body);
    }
    if (this.msgIds.length > 500) this.msgIds.shift();
    this.msgIds.push(remoteMsgId.toString());
    const remoteSequence = view.getInt32(24, true);
    return new TLMessage(remoteMsgId, remoteSequence, obj);
  };
}

/* ------------------------------------------------------------------------ */
/* Install / uninstall                                                      */

function replace(installation: Installation, object: Patchable, key: string, value: unknown): void {
  let saved = installation.stock.get(object);
  if (saved === undefined) installation.stock.set(object, saved = new Map());
  if (!saved.has(key)) saved.set(key, object[key]);
  object[key] = value;
}

/** Information about one patched `telegram` installation. */
export interface GramJSInstallation {
  /** The directory of the patched `telegram` package. */
  readonly root: string;
  /** Its version. */
  readonly version: string;
}

/**
 * Replaces GramJS's AES-IGE, AES-CTR, SHA-1/SHA-256, pq factorization and
 * MTProto message encryption/decryption with this library's native ones, in
 * the `telegram` package the application uses. Idempotent (a second call
 * for the same package changes nothing).
 *
 * @throws {Error} when `telegram` cannot be found, is not the tested
 *   version ({@link TESTED_GRAMJS_VERSION}) or lacks a patched function
 */
export function installGramJS(options: GramJSOptions = {}): GramJSInstallation {
  if (typeof options !== "object" || options === null) throw new TypeError("options must be an object");
  const modules = loadModules(options);
  const done = installations.get(modules.root);
  if (done !== undefined && done.modules.ige === modules.ige) return { root: modules.root, version: modules.version };
  const installation: Installation = { modules, stock: new Map() };
  const { ige, ctr, cryptoJs, factorizator, helpers, state } = modules;
  replace(installation, ige, "IGE", makeIge(modules, ige.IGE as StockClass));
  replace(installation, ctr, "CTR", makeCtr(ctr.CTR as StockClass));
  type Factory = (algorithm: string, key: unknown, iv: unknown) => unknown;
  replace(installation, cryptoJs, "createCipheriv", makeCipherFactory(cryptoJs.createCipheriv as Factory));
  replace(installation, cryptoJs, "createDecipheriv", makeCipherFactory(cryptoJs.createDecipheriv as Factory));
  type Factorize = (pq: BigInteger) => { p: BigInteger; q: BigInteger };
  replace(installation, factorizator, "factorize", makeFactorize(modules, factorizator.factorize as Factorize));
  type Hash = (data: unknown) => unknown;
  replace(installation, helpers, "sha1", makeHash(sha1, helpers.sha1 as Hash));
  replace(installation, helpers, "sha256", makeHash(sha256, helpers.sha256 as Hash));
  type Encrypt = (this: GramState, data: Buffer) => Promise<Buffer>;
  type Decrypt = (this: GramState, body: Buffer) => Promise<unknown>;
  replace(installation, state, "encryptMessageData", makeEncryptMessageData(modules, state.encryptMessageData as Encrypt));
  replace(installation, state, "decryptMessageData", makeDecryptMessageData(modules, state.decryptMessageData as Decrypt));
  installations.set(modules.root, installation);
  return { root: modules.root, version: modules.version };
}

/**
 * Puts back every stock GramJS function that {@link installGramJS}
 * replaced, in every patched `telegram` installation. Safe to call when
 * nothing is installed. Returns how many installations were restored.
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

/** Whether {@link installGramJS} is in effect (for any `telegram` installation). */
export function isGramJSInstalled(): boolean {
  return installations.size > 0;
}
