/**
 * Every byte-buffer argument of every function of the Node-API addon
 * (bindings/node/addon.c), called directly without the TS layer, against
 * the number of bytes C reads or writes through it (EXTENTS, from the C
 * contract in csrc/tgcrypto.h):
 *
 * - exactly that many bytes, as a view with guard bytes on both sides of
 *   it: the same return value and the same bytes in every buffer as the
 *   call on plain arrays, and the guards untouched;
 * - one byte short, an empty view at the end of a buffer, a detached
 *   buffer (which has no bytes): a RangeError, and nothing written;
 * - a subclass whose length, byteLength, byteOffset and buffer getters lie,
 *   and a patched %TypedArray%.prototype: the addon reads none of them (the
 *   lengths come from the engine), so a short array stays a RangeError and
 *   an exact one gives the plain result; a Proxy around a Uint8Array is not
 *   a typed array (TypeError).
 *
 * (Read-only views do not exist in these engines: no ArrayBuffer is
 * immutable, so there is no write-protected buffer to refuse.)
 */
import { createRequire } from "node:module";

import { describe, expect, test } from "vitest";
import { locateNative } from "../../ts/runtime/locate.ts";
import { type SymbolName, symbols } from "../../ts/runtime/symbols.ts";

type AddonFunction = (...args: unknown[]) => unknown;
const addon = createRequire(import.meta.url)(locateNative("addon").path) as Record<SymbolName, AddonFunction>;

/** `n` bytes of a fixed pattern (seeded, so two calls build equal inputs). */
const bytes = (n: number, seed = 1): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed * 17) & 0xff);
const hashState = (sha1: boolean): Uint8Array => {
  const state = new Uint8Array(112);
  (sha1 ? addon.tg_sha1_init : addon.tg_sha256_init)(state);
  return state;
};
const KEY = bytes(256, 3);
const handle = {
  ctr: () => addon.tg_ctr_new(KEY.subarray(0, 32), KEY.subarray(0, 16), 3),
  ige: () => addon.tg_ige_new(KEY.subarray(0, 32), KEY.subarray(0, 32), 0),
  igeDecrypt: () => addon.tg_ige_new(KEY.subarray(0, 32), KEY.subarray(0, 32), 1),
  cbc: () => addon.tg_cbc_new(KEY.subarray(0, 32), KEY.subarray(0, 16), 0),
  key: () => addon.tg_auth_key_new(KEY),
};

type Args = unknown[];
type Extent = number | ((args: Args) => number);
/** A valid call (fresh arguments each time) and, per byte-buffer argument index, the bytes C touches. */
interface Spec { args: () => Args; extents: Record<number, Extent> }

const len = (index: number) => (args: Args) => args[index] as number;
const aes = (ivSize: number): Spec => ({
  args: () => [bytes(48, 1), bytes(48, 2), 48, bytes(32, 3), bytes(ivSize, 4)],
  extents: { 0: len(2), 1: len(2), 3: 32, 4: ivSize },
});
const update = (make: () => unknown): Spec => ({
  args: () => [make(), bytes(48, 1), bytes(48, 2), 48],
  extents: { 1: len(3), 2: len(3) },
});
const hashUpdate = (sha1: boolean): Spec => ({ args: () => [hashState(sha1), bytes(80, 2), 80], extents: { 0: 112, 1: len(2) } });

const EXTENTS: Partial<Record<SymbolName, Spec>> = {
  tg_ige256_encrypt: aes(32),
  tg_ige256_decrypt: aes(32),
  tg_cbc256_encrypt: aes(16),
  tg_cbc256_decrypt: aes(16),
  tg_ctr256: {
    args: () => [bytes(40, 1), bytes(40, 2), 40, bytes(32, 3), bytes(16, 4), Uint8Array.of(5)],
    extents: { 0: len(2), 1: len(2), 3: 32, 4: 16, 5: 1 },
  },
  tg_ctr_new: { args: () => [bytes(32, 1), bytes(16, 2), 7], extents: { 0: 32, 1: 16 } },
  tg_ige_new: { args: () => [bytes(32, 1), bytes(32, 2), 0], extents: { 0: 32, 1: 32 } },
  tg_cbc_new: { args: () => [bytes(32, 1), bytes(16, 2), 1], extents: { 0: 32, 1: 16 } },
  tg_ctr_update: update(handle.ctr),
  tg_ige_update: update(handle.igeDecrypt),
  tg_cbc_update: update(handle.cbc),
  tg_ctr_position: { args: () => [handle.ctr(), bytes(16, 1), bytes(1, 2)], extents: { 1: 16, 2: 1 } },
  tg_sha256: { args: () => [bytes(32, 1), bytes(70, 2), 70], extents: { 0: 32, 1: len(2) } },
  tg_sha1: { args: () => [bytes(20, 1), bytes(70, 2), 70], extents: { 0: 20, 1: len(2) } },
  tg_sha256_init: { args: () => [bytes(112, 1)], extents: { 0: 112 } },
  tg_sha1_init: { args: () => [bytes(112, 1)], extents: { 0: 112 } },
  tg_sha256_update: hashUpdate(false),
  tg_sha1_update: hashUpdate(true),
  tg_sha256_final: { args: () => [hashState(false), bytes(32, 2)], extents: { 0: 112, 1: 32 } },
  tg_sha1_final: { args: () => [hashState(true), bytes(20, 2)], extents: { 0: 112, 1: 20 } },
  tg_auth_key_new: { args: () => [bytes(256, 1)], extents: { 0: 256 } },
  tg_auth_key_id: { args: () => [handle.key(), bytes(8, 1)], extents: { 1: 8 } },
  // (key, x, packet, head, head_len, body, body_len, padding, padding_len): packet = 24 + the three
  tg_mtproto_encrypt: {
    args: () => [handle.key(), 0, bytes(24 + 32 + 20 + 28, 1), bytes(32, 2), 32, bytes(20, 3), 20, bytes(28, 4), 28],
    extents: { 2: (a) => 24 + (a[4] as number) + (a[6] as number) + (a[8] as number), 3: len(4), 5: len(6), 7: len(8) },
  },
  // (key, x, plaintext, packet, packet_len): C writes packet_len - 24 plaintext bytes (zeros when it rejects)
  tg_mtproto_decrypt: {
    args: () => [handle.key(), 8, bytes(72, 1), bytes(96, 2), 96],
    extents: { 2: (a) => (a[4] as number) - 24, 3: len(4) },
  },
  tg_factorize_pq: { args: () => [0x17ed48941a08f981n, bytes(8, 1), bytes(8, 2)], extents: { 1: 8, 2: 8 } },
};

const extentOf = (spec: Spec, index: number, args: Args): number => {
  const e = spec.extents[index]!;
  return typeof e === "number" ? e : e(args);
};
const cases = (Object.entries(EXTENTS) as [SymbolName, Spec][]).flatMap(([name, spec]) =>
  Object.keys(spec.extents).map((index) => [name, Number(index)] as const));
const GUARD = 16;

/** `content` placed in a larger buffer between guard bytes; the view and a check of the guards. */
function guarded(content: Uint8Array): { view: Uint8Array; guardsIntact: () => boolean } {
  const whole = new Uint8Array(GUARD + content.length + GUARD).fill(0x5a);
  whole.set(content, GUARD);
  const view = whole.subarray(GUARD, GUARD + content.length);
  return {
    view,
    guardsIntact: () => whole.subarray(0, GUARD).every((b) => b === 0x5a) &&
      whole.subarray(GUARD + content.length).every((b) => b === 0x5a),
  };
}

/** The bytes of every Uint8Array argument after the call (handles and numbers skipped). */
const realLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "length")!.get!;
const snapshot = (args: Args): number[][] => args.filter((a) => a instanceof Uint8Array).map((a) =>
  Array.from({ length: realLength.call(a) as number }, (_, i) => (a as Uint8Array)[i]!)); // detached: [], a Liar: its real bytes

/** The plain call's return value and buffers. */
function plain(name: SymbolName, spec: Spec, index: number): { result: unknown; buffers: number[][] } {
  const args = spec.args();
  args[index] = (args[index] as Uint8Array).slice(0, extentOf(spec, index, args));
  return { result: addon[name](...args), buffers: snapshot(args) };
}

/** The call with argument `index` replaced by `replace(its content cut to `size`)`: throws, or result and buffers. */
function callWith(name: SymbolName, spec: Spec, index: number, size: (extent: number) => number,
  replace: (content: Uint8Array) => Uint8Array) {
  const args = spec.args();
  const content = (args[index] as Uint8Array).slice(0, size(extentOf(spec, index, args)));
  args[index] = replace(content);
  return { args, run: () => addon[name](...args) };
}

describe("every byte-buffer argument, against the bytes C touches through it", () => {
  test("the table covers every byte-buffer argument of ts/runtime/symbols.ts", () => {
    const wanted = (Object.keys(symbols) as SymbolName[]).filter((name) => name !== "tg_set_backend") // its one "bytes" is a string
      .flatMap((name) => symbols[name].args.flatMap((kind, index) => (kind === "bytes" ? [`${name} ${index}`] : [])));
    expect(cases.map(([name, index]) => `${name} ${index}`).sort()).toEqual(wanted.sort());
    expect(cases.length).toBe(59);
  });

  test.each(cases)("%s argument %i: exactly its extent between guard bytes gives the plain call's result", (name, index) => {
    const spec = EXTENTS[name]!;
    const want = plain(name, spec, index);
    let guards = () => false;
    const { args, run } = callWith(name, spec, index, (e) => e, (content) => {
      const g = guarded(content);
      guards = g.guardsIntact;
      return g.view;
    });
    expect(typeof want.result, "a code, a handle or null").toMatch(/^(number|object)$/);
    expect(run()).toEqual(want.result);
    expect(snapshot(args)).toEqual(want.buffers);
    expect(guards(), "guard bytes").toBe(true);
  });

  test.each(cases)("%s argument %i: one byte short, empty or detached is a RangeError, and nothing is written", (name, index) => {
    const spec = EXTENTS[name]!;
    const detach = (content: Uint8Array) => {
      const view = new Uint8Array(content);
      structuredClone(view.buffer, { transfer: [view.buffer] });
      return view;
    };
    const emptyAtEnd = (content: Uint8Array) => new Uint8Array(content.length + 4).subarray(content.length + 4);
    let guards = () => true;
    const short = (content: Uint8Array) => {
      const g = guarded(content);
      guards = g.guardsIntact;
      return g.view;
    };
    for (const [what, size, replace] of [
      ["one byte short", (e: number) => e - 1, short],
      ["empty, at the end of a buffer", (e: number) => e, emptyAtEnd],
      ["detached", (e: number) => e, detach],
    ] as const) {
      const { args, run } = callWith(name, spec, index, size, replace);
      const before = snapshot(args);
      expect(run, what).toThrow(RangeError);
      expect(snapshot(args), `${what}: nothing written`).toEqual(before);
      expect(guards(), `${what}: guard bytes`).toBe(true);
    }
  });
});

/** A Uint8Array subclass whose every size getter claims 1 MiB of a buffer of its own. */
class Liar extends Uint8Array {
  static fake = new ArrayBuffer(1 << 20);
  override get length(): number { return 1 << 20; }
  override get byteLength(): number { return 1 << 20; }
  override get byteOffset(): number { return 0; }
  override get buffer(): ArrayBuffer { return Liar.fake; }
}

describe("the addon reads no property a caller can redefine", () => {
  test.each(cases)("%s argument %i: a subclass with lying size getters is taken at its real size", (name, index) => {
    const spec = EXTENTS[name]!;
    const want = plain(name, spec, index);
    const exact = callWith(name, spec, index, (e) => e, (c) => new Liar(c));
    expect(exact.run()).toEqual(want.result);
    expect(snapshot(exact.args)).toEqual(want.buffers);
    const short = callWith(name, spec, index, (e) => e - 1, (c) => new Liar(c));
    expect(short.run).toThrow(RangeError);
  });

  test("a patched %TypedArray%.prototype changes nothing", () => {
    const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
    const saved = ["length", "byteLength", "byteOffset", "buffer"].map((key) =>
      [key, Object.getOwnPropertyDescriptor(typedArrayPrototype, key)!] as const);
    const want = new Uint8Array(32);
    expect(addon.tg_sha256(want, bytes(16), 16)).toBe(0);
    const digest = new Uint8Array(32);
    let shortThrew: unknown;
    try {
      for (const [key] of saved) Object.defineProperty(typedArrayPrototype, key, { get: () => 1 << 20, configurable: true });
      expect(addon.tg_sha256(digest, bytes(16), 16)).toBe(0);
      try {
        addon.tg_sha256(new Uint8Array(31), bytes(16), 16);
      } catch (error) {
        shortThrew = error;
      }
    } finally {
      for (const [key, descriptor] of saved) Object.defineProperty(typedArrayPrototype, key, descriptor);
    }
    expect(Array.from(digest)).toEqual(Array.from(want));
    expect(shortThrew).toBeInstanceOf(RangeError);
  });

  test("a Proxy around a Uint8Array, or an object made to look like one, is a TypeError", () => {
    const lookAlike = Object.setPrototypeOf({ length: 32, byteLength: 32, byteOffset: 0, buffer: new ArrayBuffer(32) },
      Uint8Array.prototype);
    for (const fake of [new Proxy(new Uint8Array(32), {}), lookAlike]) {
      expect(() => addon.tg_sha256(fake, new Uint8Array(16), 16)).toThrow(TypeError);
      expect(() => addon.tg_sha256(new Uint8Array(32), fake, 16)).toThrow(TypeError);
    }
  });
});
