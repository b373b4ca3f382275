import { expect } from "vitest";
import { bytesToHex } from "./vectors.ts";

export const hex = bytesToHex;

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Asserts `actual` is a Uint8Array with exactly the bytes of `expected` (hex diff on failure). */
export function expectBytes(actual: unknown, expected: Uint8Array, what = ""): void {
  expect(actual, what).toBeInstanceOf(Uint8Array);
  const a = actual as Uint8Array;
  if (!equalBytes(a, expected)) {
    // Only build the (possibly long) hex strings when there is a difference.
    expect(hex(a), what).toBe(hex(expected));
  }
}

/** Asserts fn throws an instance of `cls` with exactly `message`. */
export function expectError(fn: () => unknown, cls: new (...a: any[]) => Error, message: string | RegExp | undefined, what = ""): void {
  let threw = false;
  let err: unknown;
  try {
    fn();
  } catch (e) {
    threw = true;
    err = e;
  }
  expect(threw, `${what}: expected a ${cls.name} to be thrown`).toBe(true);
  expect(err, `${what}: error class (got ${String(err)})`).toBeInstanceOf(cls);
  if (typeof message === "string") expect((err as Error).message, what).toBe(message);
  else if (message) expect((err as Error).message, what).toMatch(message);
}

export function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** A copy of `b` placed at byteOffset `offset` inside a larger, sentinel-filled buffer. */
export function atOffset(b: Uint8Array, offset: number, tail = 7): Uint8Array {
  const big = new Uint8Array(offset + b.length + tail).fill(0xa5);
  big.set(b, offset);
  return big.subarray(offset, offset + b.length);
}

/** `value` with every typed array (at any depth) replaced by `{ <its class>: <hex> }`. */
function hexed(value: unknown): unknown {
  if (ArrayBuffer.isView(value)) {
    const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    return { [value.constructor.name]: Buffer.from(bytes).toString("hex") };
  }
  if (Array.isArray(value)) return value.map(hexed);
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hexed(v)]));
  }
  return value;
}

/**
 * `expect(actual).toEqual(expected)` for values holding large byte arrays: vitest compares typed arrays
 * element by element through its generic equality (seconds per MiB); here they are compared as hex, with
 * their class (a Buffer is not a Uint8Array, as for toEqual).
 */
export function expectSame(actual: unknown, expected: unknown, what = ""): void {
  expect(hexed(actual), what).toEqual(hexed(expected));
}
