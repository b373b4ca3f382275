// The byte helpers the suites rely on: they must fail on a difference.
import { expect, test } from "vitest";
import { expectBytes, expectSame } from "./bytes.ts";

test("expectSame: equal bytes pass; a changed byte, a length or a class (Buffer vs Uint8Array) fails", () => {
  const a = Uint8Array.from([1, 2, 3]);
  expectSame({ x: [a, "s"], n: 1 }, { x: [a.slice(), "s"], n: 1 });
  expectSame(a.subarray(1), Uint8Array.from([2, 3]));
  expect(() => expectSame({ x: [a] }, { x: [Uint8Array.from([1, 2, 4])] })).toThrow();
  expect(() => expectSame(a, a.subarray(0, 2))).toThrow();
  expect(() => expectSame(Buffer.from(a), a)).toThrow();
  expect(() => expectSame(new Uint16Array(2), new Uint8Array(4))).toThrow();
  expect(() => expectSame({ n: 1 }, { n: 2 })).toThrow();
});

test("expectBytes: a changed byte or a non-Uint8Array fails", () => {
  expectBytes(Uint8Array.from([1, 2]), Uint8Array.from([1, 2]));
  expect(() => expectBytes(Uint8Array.from([1, 2]), Uint8Array.from([1, 3]))).toThrow();
  expect(() => expectBytes([1, 2], Uint8Array.from([1, 2]))).toThrow();
});
