/**
 * The hostile-input suite, the non-byte arguments: options that are not
 * objects, flags that are not booleans, and callers' code that runs inside
 * a call (option getters, Proxies and getters on arrays of parts) and
 * detaches, shrinks or swaps a buffer after it was checked. The rule: every
 * option and part is read once, before any byte argument is measured, so
 * what is measured is what C gets.
 */
import { describe, expect, test } from "vitest";
import {
  AuthKey,
  CbcContext,
  CtrContext,
  ige256EncryptInto,
  IgeContext,
  OutputPool,
} from "../../ts/mod.ts";
import { expectError } from "../helpers/bytes.ts";
import { Prng } from "../helpers/prng.ts";
import { messagePlaintext } from "./calls.ts";

// deno-lint-ignore no-explicit-any
type Any = any;
const rng = new Prng("hostile options");
const KEY = rng.bytes(32);
const IV32 = rng.bytes(32);
const IV16 = rng.bytes(16);
const AUTH_KEY = new AuthKey(rng.bytes(256));
const PLAINTEXT = messagePlaintext(rng);
const PADDING = rng.bytes(16);
const PACKET = AUTH_KEY.encryptMessage(PLAINTEXT, { server: true, padding: PADDING });
const NOT_OBJECTS: unknown[] = [true, false, 1, "decrypt", null, 1n, Symbol("options")];
const NOT_BOOLEANS: unknown[] = ["yes", "", 1, 0, null, {}, [], 1n];

/** A copy of `bytes` in a fresh ArrayBuffer that `detach()` detaches. */
function detachable(bytes: Uint8Array): { view: Uint8Array; detach(): void } {
  const view = bytes.slice();
  return { view, detach: () => void view.buffer.transfer() };
}

describe("options that are not objects, flags that are not booleans", () => {
  for (const [name, make] of [
    ["IgeContext", (options: unknown) => new IgeContext(KEY, IV32, options as Any)],
    ["CbcContext", (options: unknown) => new CbcContext(KEY, IV16, options as Any)],
  ] as const) {
    test(`new ${name}(key, iv, <not an object>) is a TypeError`, () => {
      for (const options of NOT_OBJECTS) {
        expectError(() => make(options), TypeError, "options must be an object", `${name} ${String(options)}`);
      }
    });
    test(`new ${name}(key, iv, { decrypt: <not a boolean> }) is a TypeError`, () => {
      for (const decrypt of NOT_BOOLEANS) {
        expectError(() => make({ decrypt }), TypeError, "options.decrypt must be a boolean", `${name} ${String(decrypt)}`);
      }
    });
  }

  test("AuthKey options: not an object, server not a boolean: TypeError", () => {
    for (const options of NOT_OBJECTS) {
      expectError(() => AUTH_KEY.encryptMessage(PLAINTEXT, options as Any), TypeError, "options must be an object");
      expectError(() => AUTH_KEY.decryptMessage(PACKET, options as Any), TypeError, "options must be an object");
    }
    for (const server of NOT_BOOLEANS) {
      expectError(() => AUTH_KEY.encryptMessage(PLAINTEXT, { server } as Any), TypeError, "options.server must be a boolean");
      expectError(() => AUTH_KEY.decryptMessage(PACKET, { server } as Any), TypeError, "options.server must be a boolean");
    }
  });

  test("an options object with undefined members means the defaults", () => {
    const a = new IgeContext(KEY, IV32, { decrypt: undefined });
    const b = new IgeContext(KEY, IV32);
    expect(a.update(PLAINTEXT)).toEqual(b.update(PLAINTEXT));
    a.dispose();
    b.dispose();
    expect(AUTH_KEY.decryptMessage(PACKET, { server: undefined })).toEqual(AUTH_KEY.decryptMessage(PACKET));
  });
});

describe("caller code running inside a call", () => {
  test("an options.server getter that detaches the plaintext: read before the plaintext is measured", () => {
    const { view, detach } = detachable(PLAINTEXT);
    let reads = 0;
    const options = { padding: PADDING, get server() { reads++; detach(); return true; } };
    expectError(() => AUTH_KEY.encryptMessage(view, options), TypeError, "plaintext is a view of a detached ArrayBuffer");
    expect(reads).toBe(1);
  });

  test("an options.server getter that detaches the packet (decryptMessage, decryptMessageInto)", () => {
    for (const into of [false, true]) {
      const { view, detach } = detachable(PACKET);
      const options = { get server() { detach(); return false; } };
      const out = new Uint8Array(PACKET.length);
      expectError(
        () => (into ? AUTH_KEY.decryptMessageInto(out, view, options) : AUTH_KEY.decryptMessage(view, options)),
        TypeError,
        "packet is a view of a detached ArrayBuffer",
      );
    }
  });

  test("an options.server getter that shrinks a resizable plaintext: the shrunk plaintext is what is measured", () => {
    const buffer = new ArrayBuffer(48, { maxByteLength: 64 });
    const view = new Uint8Array(buffer);
    view.set(PLAINTEXT);
    const options = { padding: PADDING, get server() { buffer.resize(16); return false; } };
    expectError(() => AUTH_KEY.encryptMessage(view, options), RangeError, /^Plaintext must be at least 32 bytes/);
  });

  test("an options.padding getter read once: a second, shorter padding is never used", () => {
    let reads = 0;
    const short = new Uint8Array(1);
    const options = { get padding() { return reads++ === 0 ? PADDING : short; } };
    const packet = AUTH_KEY.encryptMessage(PLAINTEXT, options);
    expect(reads).toBe(1);
    expect(packet).toEqual(AUTH_KEY.encryptMessage(PLAINTEXT, { padding: PADDING }));
  });

  test("an options.padding getter that detaches the output of encryptMessageInto", () => {
    const { view, detach } = detachable(new Uint8Array(24 + 64));
    const options = { get padding() { detach(); return PADDING; } };
    expectError(() => AUTH_KEY.encryptMessageInto(view, PLAINTEXT, options), TypeError, "out is a view of a detached ArrayBuffer");
  });

  test("an options.decrypt getter that detaches the key or iv of a context", () => {
    for (const which of ["key", "iv"] as const) {
      const key = detachable(KEY), iv = detachable(IV32);
      const options = { get decrypt() { (which === "key" ? key : iv).detach(); return false; } };
      expectError(() => new IgeContext(key.view, iv.view, options), TypeError, `${which} is a view of a detached ArrayBuffer`);
    }
  });

  test("plaintext parts behind a Proxy whose get trap swaps a part for a 1-byte one on a second read: each part read once", () => {
    const parts = [PLAINTEXT.slice(0, 8), PLAINTEXT.slice(8, 40), PLAINTEXT.slice(40)];
    const reads = [0, 0, 0];
    const proxy = new Proxy(parts, {
      get(target, key, receiver) {
        const index = typeof key === "string" ? Number(key) : NaN;
        if (Number.isInteger(index) && index < 3) return reads[index]!++ === 0 ? target[index] : new Uint8Array(1);
        return Reflect.get(target, key, receiver);
      },
    });
    const packet = AUTH_KEY.encryptMessage(proxy, { padding: PADDING });
    expect(reads).toEqual([1, 1, 1]);
    expect(packet).toEqual(AUTH_KEY.encryptMessage(PLAINTEXT, { padding: PADDING }));
  });

  test("a parts array whose element getter detaches an earlier part: the detached part is a TypeError", () => {
    for (const count of [2, 3]) {
      const first = detachable(PLAINTEXT.subarray(0, 8));
      const parts: Uint8Array[] = [first.view, PLAINTEXT.slice(8, 40)];
      if (count === 3) parts.push(PLAINTEXT.slice(40));
      const last = parts[count - 1]!;
      Object.defineProperty(parts, count - 1, { get() { first.detach(); return last; } });
      expectError(
        () => AUTH_KEY.encryptMessage(parts, { padding: new Uint8Array(count === 3 ? 16 : 24) }),
        TypeError,
        "every plaintext part is a view of a detached ArrayBuffer",
        `${count} parts`,
      );
    }
  });

  test("a CtrContext state that is not a number is a TypeError, even one with valueOf", () => {
    let calls = 0;
    const state = { valueOf: () => (calls++, 3) };
    expectError(() => new CtrContext(KEY, IV16, state as Any), TypeError, "state must be a number");
    expect(calls).toBe(0);
  });
});

describe("buffers checked before", () => {
  test("a key, data and out used once, then detached: the next call is the TypeError naming each", () => {
    for (const which of ["out", "data", "key", "iv"] as const) {
      const args = { out: detachable(new Uint8Array(48)), data: detachable(PLAINTEXT), key: detachable(KEY), iv: detachable(IV32) };
      const call = () => ige256EncryptInto(args.out.view, args.data.view, args.key.view, args.iv.view);
      call();
      args[which].detach();
      expectError(call, TypeError, `${which} is a view of a detached ArrayBuffer`, which);
    }
  });
});

describe("OutputPool and transferred slabs", () => {
  test("a view of a transferred slab is a TypeError as out; the next take() is usable", () => {
    const pool = new OutputPool(256);
    const first = pool.take(48);
    structuredClone(first.buffer, { transfer: [first.buffer] });
    expectError(() => ige256EncryptInto(first, PLAINTEXT, KEY, IV32), TypeError, "out is a view of a detached ArrayBuffer");
    const next = pool.take(48);
    expect(next.length).toBe(48);
    expect(ige256EncryptInto(next, PLAINTEXT, KEY, IV32)).toBe(next);
  });
});
