/**
 * {@link OutputPool}: opt-in cheap outputs for the `...Into` functions.
 *
 * @module
 */

/**
 * Output buffers carved from shared 64 KiB slabs, like Node's Buffer pool,
 * for the `...Into` functions and `updateInto`. In Deno a fresh ArrayBuffer
 * costs 0.2-1 µs, more than encrypting a short message; a view into a slab
 * costs tens of ns.
 *
 * Opt-in, because the views share an ArrayBuffer: `out.buffer` reaches the
 * bytes of other outputs taken from the same pool, and transferring it
 * (postMessage, structuredClone) empties them all. Use one pool per owner,
 * and copy (`out.slice()`) anything that leaves your code.
 *
 * ```ts
 * const pool = new OutputPool();
 * const encrypted = ige256EncryptInto(pool.take(message.length), message, key, iv);
 * ```
 */
export class OutputPool {
  readonly #slabBytes: number;
  #slab = new ArrayBuffer(0);
  #used = 0;

  /** @param slabBytes size of each slab (default 64 KiB); larger requests get their own buffer */
  constructor(slabBytes: number = 64 * 1024) {
    if (!Number.isInteger(slabBytes) || slabBytes < 16) throw new RangeError("slabBytes must be an integer >= 16");
    this.#slabBytes = slabBytes;
  }

  /** A `length`-byte view no earlier `take()` overlaps (contents unspecified). */
  take(length: number): Uint8Array<ArrayBuffer> {
    if (!Number.isInteger(length) || length < 0) throw new RangeError("length must be a non-negative integer");
    if (length > this.#slabBytes / 2) return new Uint8Array(length);
    let start = this.#used;
    // Also true for a detached slab (byteLength 0), e.g. after a view's buffer was transferred.
    if (start + length > this.#slab.byteLength) {
      this.#slab = new ArrayBuffer(this.#slabBytes);
      start = 0;
    }
    this.#used = (start + length + 7) & ~7; // 8-byte aligned starts
    return new Uint8Array(this.#slab, start, length);
  }
}

