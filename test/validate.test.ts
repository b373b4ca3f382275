/**
 * ts/validate.ts's type check (assertBytes) across the API: a Uint8Array
 * made in another realm (a node:vm context: `instanceof Uint8Array` is false
 * there) is a Uint8Array like any other, for every argument of every
 * function, context, hash, AuthKey and factorizePQ; another realm's
 * Uint16Array or DataView is still a TypeError.
 */
import vm from "node:vm";
import { describe, expect, test } from "vitest";
import {
  AuthKey,
  CbcContext,
  CtrContext,
  factorizePQ,
  IgeContext,
  sha1,
  sha1Into,
  sha256,
  sha256Into,
} from "../ts/mod.ts";
import { FNS, IV_LEN } from "./helpers/aes_calls.ts";
import { expectBytes } from "./helpers/bytes.ts";
import { Prng } from "./helpers/prng.ts";

const realm = vm.createContext({});
/** A copy of `bytes` as a Uint8Array of the other realm (of `kind`, e.g. "Uint16Array", for the negative cases). */
function foreign(bytes: Uint8Array, kind = "Uint8Array"): Uint8Array {
  const array = vm.runInContext(`new ${kind}(${bytes.length})`, realm) as Uint8Array;
  for (let i = 0; i < bytes.length; i++) array[i] = bytes[i]!;
  return array;
}

describe("Uint8Arrays from another realm", () => {
  test("the other realm is real: its arrays are not instanceof this realm's Uint8Array", () => {
    const array = foreign(new Uint8Array(4));
    expect(array instanceof Uint8Array).toBe(false);
    expect(Object.prototype.toString.call(array)).toBe("[object Uint8Array]");
  });

  test("every AES one-shot takes them in every position, with the same result and iv/state updates", () => {
    const rng = new Prng("realms aes");
    for (const fn of FNS) {
      const names = ["data", "key", "iv", ...(fn.mode === "ctr" ? ["state"] : []), ...(fn.into ? ["out"] : [])];
      for (const name of names) {
        const args = {
          data: rng.bytes(48),
          key: rng.bytes(32),
          iv: rng.bytes(IV_LEN[fn.mode]),
          state: new Uint8Array([rng.int(0, 15)]),
          out: new Uint8Array(48),
        };
        const same = { ...args, iv: args.iv.slice(), state: args.state.slice(), out: new Uint8Array(48) };
        const expected = fn.call(same).slice();
        const moved = { ...args, [name]: foreign(args[name as keyof typeof args]) };
        const got = fn.call(moved);
        expectBytes(new Uint8Array(got), expected, `${fn.name}: foreign ${name}`);
        expectBytes(new Uint8Array(moved.iv), same.iv, `${fn.name}: foreign ${name}: iv after`);
        expect(moved.state[0], `${fn.name}: foreign ${name}: state after`).toBe(same.state[0]);
        if (name === "out") expect(got.buffer, `${fn.name}: the result is a view of the foreign out`).toBe(moved.out.buffer);
        for (const kind of ["Uint16Array", "Int8Array", "Uint8ClampedArray"]) {
          const bad = { ...args, [name]: foreign(args[name as keyof typeof args], kind) };
          expect(() => fn.call(bad), `${fn.name}: foreign ${kind} as ${name}`).toThrow(TypeError);
        }
      }
    }
  });

  test("contexts, hashes, AuthKey and factorizePQ take them too", () => {
    const rng = new Prng("realms rest");
    const key = rng.bytes(32), iv = rng.bytes(32), data = rng.bytes(64);
    const contexts: [string, () => { update(d: Uint8Array): Uint8Array; dispose(): void }, () => { update(d: Uint8Array): Uint8Array; dispose(): void }][] = [
      ["CtrContext", () => new CtrContext(key, iv.subarray(0, 16), 5), () => new CtrContext(foreign(key), foreign(iv.subarray(0, 16)), 5)],
      ["IgeContext", () => new IgeContext(key, iv), () => new IgeContext(foreign(key), foreign(iv))],
      ["CbcContext", () => new CbcContext(key, iv.subarray(16), { decrypt: true }), () => new CbcContext(foreign(key), foreign(iv.subarray(16)), { decrypt: true })],
    ];
    for (const [name, ours, theirs] of contexts) {
      const a = ours(), b = theirs();
      expectBytes(new Uint8Array(b.update(foreign(data))), a.update(data), `${name} over foreign key, iv and data`);
      a.dispose(), b.dispose();
    }
    expectBytes(sha256(foreign(data), foreign(iv)), sha256(data, iv), "sha256 of foreign parts");
    expectBytes(sha1(foreign(data)), sha1(data), "sha1 of a foreign part");
    const out = foreign(new Uint8Array(32));
    expectBytes(new Uint8Array(sha256Into(out, data)), sha256(data), "sha256Into a foreign out");
    expectBytes(new Uint8Array(sha1Into(foreign(new Uint8Array(20)), foreign(data))), sha1(data), "sha1Into");
    expect(() => sha256(foreign(data, "Uint16Array"))).toThrow(TypeError);

    const authKeyBytes = rng.bytes(256);
    using mine = new AuthKey(authKeyBytes);
    using theirs = new AuthKey(foreign(authKeyBytes));
    expectBytes(theirs.id, mine.id, "AuthKey from a foreign key");
    const plaintext = rng.bytes(64), padding = rng.bytes(16);
    new DataView(plaintext.buffer).setUint32(28, 32, true); // message_data_length: the 32 bytes after the header
    const packet = mine.encryptMessage(plaintext, { padding });
    expectBytes(theirs.encryptMessage(foreign(plaintext), { padding: foreign(padding) }), packet, "encryptMessage of foreign plaintext and padding");
    expectBytes(theirs.encryptMessage([foreign(plaintext.subarray(0, 16)), foreign(plaintext.subarray(16))], { padding }), packet, "foreign parts");
    expectBytes(new Uint8Array(theirs.decryptMessage(foreign(packet), { server: true })), plaintext, "decryptMessage of a foreign packet");
    expect(() => theirs.encryptMessage(foreign(plaintext, "Uint16Array"))).toThrow(TypeError);

    const [p, q] = factorizePQ(foreign(Uint8Array.from([0x17, 0xed, 0x48, 0x94, 0x1a, 0x08, 0xf9, 0x81])));
    expect([p, q].map((x) => Buffer.from(x).toString("hex"))).toEqual(["494c553b", "53911073"]);
    expect(() => factorizePQ(foreign(new Uint8Array(8), "Uint16Array"))).toThrow(TypeError);
  });
});

describe("the length limits themselves", () => {
  // The checks take the engine's length as a number: no 4 GiB array is needed.
  const ofLength = (length: number) => length;
  test("CTR data of exactly 2^32 - 1 bytes passes; 2^32 is too large", async () => {
    const { checkStreamData, MAX_DATA_LENGTH } = await import("../ts/validate.ts");
    expect(MAX_DATA_LENGTH).toBe(0xffffffff);
    expect(checkStreamData(ofLength(0xffffffff))).toBe(0xffffffff);
    expect(() => checkStreamData(ofLength(2 ** 32))).toThrow(RangeError);
  });
  test("IGE/CBC data: the largest multiple of 16 below 2^32 passes, 2^32 is too large", async () => {
    const { checkBlockData } = await import("../ts/validate.ts");
    expect(checkBlockData(ofLength(0xfffffff0))).toBe(0xfffffff0);
    expect(() => checkBlockData(ofLength(2 ** 32))).toThrow(RangeError);
  });
});

describe("the checks themselves (ts/validate.ts), in every runtime (Bun's cache of checked arrays included)", () => {
  const detached = () => {
    const buffer = new ArrayBuffer(16);
    const view = new Uint8Array(buffer);
    structuredClone(buffer, { transfer: [buffer] });
    return view;
  };

  test("liveByteLength: the engine's length of a live Uint8Array, -1 for anything else, never a throw", async () => {
    const { liveByteLength } = await import("../ts/validate.ts");
    const bytes = new Uint8Array(24);
    for (let round = 0; round < 2; round++) { // the second round: Bun answers from its cache
      expect(liveByteLength(bytes)).toBe(24);
      expect(liveByteLength(bytes.subarray(5, 9))).toBe(4);
      expect(liveByteLength(new Uint8Array(0))).toBe(0);
      expect(liveByteLength(new Uint8Array(new SharedArrayBuffer(0)))).toBe(0);
      expect(liveByteLength(detached())).toBe(-1);
      for (const other of [{}, [1, 2], "abc", null, undefined, 7, new Uint16Array(4), new DataView(new ArrayBuffer(4))]) {
        expect(liveByteLength(other), String(other)).toBe(-1);
      }
      const liar = Object.defineProperty(new Uint8Array(4), "length", { value: 1 << 30 });
      expect(liveByteLength(liar)).toBe(4);
    }
  });

  test("byteLength and assertBytes: a TypeError naming the argument, a detached view refused, an empty shared one not", async () => {
    const { assertBytes, byteLength } = await import("../ts/validate.ts");
    for (let round = 0; round < 2; round++) {
      expect(byteLength(new Uint8Array(3), "key")).toBe(3);
      expect(byteLength(new Uint8Array(new SharedArrayBuffer(0)), "key"), "a SharedArrayBuffer is never detached").toBe(0);
      expect(() => byteLength(detached(), "iv")).toThrow(new TypeError("iv is a view of a detached ArrayBuffer"));
      expect(() => byteLength({ length: 3 }, "iv")).toThrow(new TypeError("iv must be a Uint8Array"));
      expect(() => assertBytes("abc", "data")).toThrow(new TypeError("data must be a Uint8Array"));
      expect(() => assertBytes(detached(), "data")).toThrow(new TypeError("data is a view of a detached ArrayBuffer"));
      expect(() => assertBytes(new Uint8Array(1), "data")).not.toThrow();
    }
  });

  test("viewOf: the bytes at begin of the view, from the engine's buffer and offset", async () => {
    const { viewOf } = await import("../ts/validate.ts");
    const base = Uint8Array.from({ length: 32 }, (_, i) => i);
    const view = viewOf(base.subarray(8), 4, 3);
    expect(Array.from(view)).toEqual([12, 13, 14]);
    expect(view.buffer).toBe(base.buffer);
  });

  test("the engine getters it captured cannot be re-pointed through their own `call`", async () => {
    const { liveByteLength } = await import("../ts/validate.ts");
    const tagGetter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag)!.get!;
    const own = Object.getOwnPropertyDescriptor(tagGetter, "call");
    expect(own?.value).toBe(Function.prototype.call);
    expect([own?.writable, own?.configurable]).toEqual([false, false]);
    expect(() => {
      "use strict";
      (tagGetter as unknown as { call: unknown }).call = () => "Uint8Array";
    }).toThrow(TypeError);
    expect(() => Object.defineProperty(tagGetter, "call", { value: () => "Uint8Array" })).toThrow(TypeError);
    expect(liveByteLength({}), "still the engine's answer").toBe(-1);
  });
});
