/**
 * The replacements for GramJS's and teleproto's crypto primitives:
 * crypto/IGE's `IGE`, crypto/CTR's `CTR`, crypto/crypto's
 * `createCipheriv`/`createDecipheriv`, `Factorizator.factorize` and
 * `Helpers.sha1`/`sha256`. Each takes the inputs the native code covers and
 * hands every other input to the stock function.
 *
 * @module
 */

import { Buffer } from "node:buffer";

import { CtrContext, factorizePQ, ige256Decrypt, ige256Encrypt } from "../../mod.ts";
import { byteLength, isBytes as isGenuineBytes, liveByteLength } from "../../validate.ts";
import type { BigInteger, GramModules } from "./package.ts";

/** A Buffer over a fresh native result, without copying. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/**
 * Whether `value` is a genuine Uint8Array over a live buffer (the engine's
 * answer: a subclass, a Proxy or a patched prototype cannot say otherwise).
 * Only those take the native path; anything else goes to the stock code.
 */
export function isBytes(value: unknown): value is Uint8Array {
  return liveByteLength(value) >= 0;
}

/** The engine's length of `value`, -1 unless {@link isBytes}. */
export const lengthOf: (value: unknown) => number = liveByteLength;

/**
 * A copy of `bytes` in a fresh ArrayBuffer. Not `bytes.slice()`: a Buffer's
 * `slice` is a view of the caller's memory.
 */
export function copyOf(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

type StockClass = new (...args: never[]) => Record<string, (...args: never[]) => unknown>;
type StockIge = { encryptIge(data: Buffer): Buffer; decryptIge(data: Buffer): Buffer };
type StockIgeClass = new (key: unknown, iv: unknown) => StockIge;

/**
 * crypto/IGE's `IGE`: `new IGE(key, iv).encryptIge(data)` / `.decryptIge(data)`.
 *
 * GramJS's IGE expands its key and iv at construction: the native one keeps
 * copies. teleproto's keeps the caller's Buffers and reads them at every call
 * (a caller that changes them changes later results), and checks their
 * lengths in its constructor: the native one does the same, through a stock
 * instance made at construction.
 */
export function makeIge(modules: GramModules, Stock: StockClass) {
  const helpers = modules.helpers;
  const StockIge = Stock as unknown as StockIgeClass;
  const readsAtCall = modules.name === "teleproto";
  return class IGE {
    /** The key and IV the native cipher uses: copies (GramJS) or the caller's (teleproto); null: stock only. */
    readonly #key: Uint8Array | null;
    readonly #iv: Uint8Array | null;
    #stock: StockIge | null = null;

    constructor(key: Buffer, iv: Buffer) {
      if (readsAtCall) {
        this.#stock = new StockIge(key, iv); // teleproto's length checks and messages
        this.#key = isBytes(key) ? key : null;
        this.#iv = isBytes(iv) ? iv : null;
        return;
      }
      const native = lengthOf(key) === 32 && lengthOf(iv) === 32;
      this.#key = native ? copyOf(key) : null;
      this.#iv = native ? copyOf(iv) : null;
      if (!native) this.#stock = new StockIge(key, iv);
    }

    /** Whether the native cipher takes this call's key and iv (teleproto's may have been changed since). */
    #nativeKey(): boolean {
      return this.#key !== null && lengthOf(this.#key) === 32 && lengthOf(this.#iv) === 32;
    }

    /** The stock cipher, for the inputs the native one does not take (empty, or a decrypt of a partial block). */
    #fallback(): StockIge {
      this.#stock ??= new StockIge(Buffer.from(this.#key!), Buffer.from(this.#iv!));
      return this.#stock;
    }

    decryptIge(cipherText: Buffer): Buffer {
      const length = lengthOf(cipherText);
      if (!this.#nativeKey() || length <= 0 || length % 16 !== 0) {
        return this.#fallback().decryptIge(cipherText);
      }
      return asBuffer(ige256Decrypt(cipherText, this.#key!, this.#iv!));
    }

    encryptIge(plainText: Buffer): Buffer {
      const length = lengthOf(plainText);
      if (!this.#nativeKey() || length <= 0) {
        return this.#fallback().encryptIge(plainText);
      }
      const remainder = length % 16;
      if (remainder !== 0) {
        // Both pad with random bytes to a whole block (Helpers.generateRandomBytes, looked up per call as they do).
        const random = (helpers.generateRandomBytes as (n: number) => Buffer)(16 - remainder);
        plainText = Buffer.concat([plainText, random]);
      }
      return asBuffer(ige256Encrypt(plainText, this.#key!, this.#iv!));
    }
  };
}

/** A native AES-256-CTR stream with the methods of crypto/crypto's CTR (`update`, `encrypt`); key and iv copied. */
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
    // A view of a detached buffer is the layer's TypeError (stock throws too, with its own words).
    if (!isBytes(data) && isGenuineBytes(data)) byteLength(data, "data");
    const bytes = isBytes(data) ? data : Buffer.from(data as unknown as number[]);
    if (lengthOf(bytes) === 0) return Buffer.alloc(0);
    return asBuffer(this.#context.update(bytes));
  }
}

/** GramJS's crypto/crypto createCipheriv/createDecipheriv: native for a 32-byte key and a 16-byte counter block. */
export function makeCipherFactory(stock: (algorithm: string, key: unknown, iv: unknown) => unknown) {
  return function createCipheriv(algorithm: string, key: unknown, iv: unknown): unknown {
    if (
      typeof algorithm === "string" && !algorithm.includes("ECB") && lengthOf(key) === 32 &&
      lengthOf(iv) === 16
    ) {
      return new NativeCtrStream(key as Uint8Array, iv as Uint8Array);
    }
    return stock(algorithm, key, iv);
  };
}

/**
 * crypto/CTR's `CTR`: the transport's stream (`new CTR(key, iv).encrypt(data)`).
 * Both packages' stock CTR take the key and iv at construction (GramJS's JS
 * AES expands them, teleproto's node:crypto copies them): so does this one.
 */
export function makeCtr(Stock: StockClass) {
  type Stream = { encrypt(data: Buffer): Buffer };
  const StockCtr = Stock as unknown as new (key: Buffer, iv: Buffer) => Stream;
  return class CTR {
    readonly #stream: Stream;
    constructor(key: Buffer, iv: Buffer) {
      if (!Buffer.isBuffer(key) || !Buffer.isBuffer(iv) || iv.length !== 16) {
        throw new Error("Key and iv need to be a buffer"); // the stock check and message
      }
      // A string is UTF-8 to both stock streams (Buffer.from / node:crypto's update), as to the native one.
      this.#stream = lengthOf(key) === 32 && lengthOf(iv) === 16 ? new NativeCtrStream(key, iv) : new StockCtr(key, iv);
    }
    encrypt(data: Buffer): Buffer {
      return this.#stream.encrypt(data);
    }
  };
}

const MAX_U64 = (1n << 64n) - 1n;

/** Factorizator.factorize: `{ p, q }` big-integers, p <= q, for a pq below 2^64. */
export function makeFactorize(modules: GramModules, stock: (pq: BigInteger) => { p: BigInteger; q: BigInteger }) {
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
 * Helpers.sha1 / sha256. Typed as returning a Promise, the Node builds of
 * GramJS and teleproto return the digest Buffer synchronously (node:crypto's
 * `digest()`), and their callers `await` it: the native digest is returned
 * the same way.
 */
export function makeHash(hash: (...parts: Uint8Array[]) => Uint8Array, stock: (data: unknown) => unknown) {
  return function digest(data: Buffer): unknown {
    if (!isBytes(data)) return stock(data);
    return asBuffer(hash(data));
  };
}
