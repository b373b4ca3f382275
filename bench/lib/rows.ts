/**
 * What a benchmark row is, which tables (modes) exist, and the shared input
 * buffers every implementation works on.
 */

export const KiB = 1024;
export const MiB = 1024 * 1024;

/** Message sizes of every table column. */
export const SIZES = [16, 256, KiB, 16 * KiB, MiB] as const;
/** Sizes of the context (streaming) rows: the small messages they exist for. */
export const SMALL_SIZES = [16, 256, KiB] as const;

/** The tables printed, in order. A row may appear in several. */
export const TABLES = [
  { id: "ige-enc", title: "AES-256-IGE encrypt (one-shot; Into = caller's output buffer)" },
  { id: "ige-dec", title: "AES-256-IGE decrypt (one-shot)" },
  { id: "ige-ctx", title: "ige ctx.update: IgeContext.update (key expanded once) vs peers' per-message calls" },
  { id: "ctr", title: "AES-256-CTR (one-shot: key expanded per call; Into = caller's output buffer)" },
  { id: "ctr-ctx", title: "ctr ctx.update: streaming CTR with the key expanded once" },
  { id: "cbc-enc", title: "AES-256-CBC encrypt, no padding (one-shot)" },
  { id: "cbc-dec", title: "AES-256-CBC decrypt, no padding (one-shot; Into = caller's output buffer)" },
] as const;

export type TableId = (typeof TABLES)[number]["id"];

/** Inputs for one size, shared by every implementation (same bytes, same key). */
export interface Buffers {
  readonly size: number;
  /** Random input of `size` bytes. */
  readonly data: Uint8Array<ArrayBuffer>;
  /** A separate output of `size` bytes, for the zero-copy variants. */
  readonly out: Uint8Array<ArrayBuffer>;
  readonly key: Uint8Array<ArrayBuffer>;
  /** 32-byte IGE IV. */
  readonly iv32: Uint8Array<ArrayBuffer>;
  /** 16-byte CTR/CBC IV. */
  readonly iv16: Uint8Array<ArrayBuffer>;
}

/** A prepared row at one size: the timed loop and how to clean up after it. */
export interface Prepared {
  /** Runs `n` calls; returns a checksum of the outputs. */
  readonly run: (n: number) => number;
  readonly dispose?: () => void;
}

/** One implementation of one operation. */
export interface Row {
  /** Unique id, e.g. "tgcrypto-ffi/vaes512:ige256Encrypt". */
  readonly id: string;
  /** Row label in the tables, e.g. "tgcrypto-ffi/vaes512 Into". */
  readonly label: string;
  /** "tgcrypto-ffi", "@mtcute/wasm", "node:crypto" or "@noble/ciphers". */
  readonly library: string;
  /** tgcrypto-ffi backend selected with setBackend() while this row runs. */
  readonly backend?: string;
  /** What exactly is called, for the JSON and the reader. */
  readonly call: string;
  readonly tables: readonly TableId[];
  readonly sizes: readonly number[];
  /** Builds the loop for one size (contexts are created here, not timed). */
  prepare(buffers: Buffers): Prepared;
}

export const OURS = "tgcrypto-ffi";

function randomBytes(length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  // getRandomValues fills at most 65536 bytes per call.
  for (let offset = 0; offset < length; offset += 65536) {
    crypto.getRandomValues(bytes.subarray(offset, Math.min(length, offset + 65536)));
  }
  return bytes;
}

/** One set of buffers per size; every row of that size uses the same ones. */
export function makeBuffers(sizes: readonly number[]): Map<number, Buffers> {
  const key = randomBytes(32);
  const iv32 = randomBytes(32);
  const iv16 = randomBytes(16);
  const map = new Map<number, Buffers>();
  for (const size of sizes) {
    map.set(size, { size, data: randomBytes(size), out: new Uint8Array(size), key, iv32, iv16 });
  }
  return map;
}
