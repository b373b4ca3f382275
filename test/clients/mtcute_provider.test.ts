/**
 * nativeCrypto(provider) as an mtcute ICryptoProvider, member by member:
 * every member of the result behaves as the provider's own when called on
 * it, with `this` being the result, an override set on the result, or a
 * Proxy around it (mtcute's own test tools use both: `vi.spyOn(provider,
 * "randomFill")` and a Proxy that swaps randomFill); providers with
 * `#private` fields keep working; frozen or sealed providers are refused.
 * "Behaves as its own" is checked against the same call on a stock provider
 * fed the same random bytes.
 */
import { IntermediatePacketCodec, ObfuscatedPacketCodec } from "@mtcute/core";
import { createAesIgeForMessage } from "@mtcute/core/utils.js";
import { NodeCryptoProvider } from "@mtcute/node/utils.js";
import { beforeAll, describe, expect, test, vi } from "vitest";

import { nativeCrypto } from "../../ts/clients/mtcute.ts";
import { hex } from "../helpers/bytes.ts";
import { Prng } from "../helpers/prng.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const NATIVE = ["createAesIge", "createAesCtr", "sha1", "sha256", "factorizePQ"];
const MEMBERS = [...NATIVE, "initialize", "pbkdf2", "hmacSha256", "gzip", "gunzip", "randomFill", "randomBytes"];

const rng = new Prng("mtcute-provider");
const data = rng.bytes(1000), key32 = rng.bytes(32), key16 = rng.bytes(16), iv32 = rng.bytes(32), iv16 = rng.bytes(16);
let gzipped: Uint8Array;

/** Calls of each member: the native inputs and the ones that go to the provider's own method. */
const CALLS: Record<string, ((c: Any) => unknown)[]> = {
  initialize: [(c) => c.initialize?.()],
  sha1: [(c) => c.sha1(data), (c) => c.sha1("not bytes")],
  sha256: [(c) => c.sha256(data), (c) => c.sha256(new Uint8Array(0)), (c) => c.sha256("not bytes")],
  pbkdf2: [(c) => c.pbkdf2(data.subarray(0, 10), data.subarray(10, 26), 10, 32, "sha512")],
  hmacSha256: [(c) => c.hmacSha256(data, key32)],
  createAesIge: [(c) => {
    const ige = c.createAesIge(key32, iv32);
    const encrypted = ige.encrypt(data.subarray(0, 992));
    return [encrypted, ige.decrypt(encrypted)];
  }],
  createAesCtr: [32, 16].map((size) => (c: Any) => {
    const ctr = c.createAesCtr(size === 32 ? key32 : key16, iv16, true);
    return [ctr.process(data.subarray(0, 77)), ctr.process(data.subarray(77, 500))];
  }),
  // 0x17ED48941A08F981 (the pq of core.telegram.org's sample), and a 9-byte one (goes to mtcute's factorizer).
  factorizePQ: [(c) => c.factorizePQ(Uint8Array.of(0x17, 0xed, 0x48, 0x94, 0x1a, 0x08, 0xf9, 0x81)), (c) =>
    c.factorizePQ(Uint8Array.of(0x00, 0x17, 0xed, 0x48, 0x94, 0x1a, 0x08, 0xf9, 0x81))],
  gzip: [(c) => c.gzip(data, 10_000), (c) => c.gzip(data, 10)],
  gunzip: [(c) => c.gunzip(gzipped)],
  randomFill: [(c) => {
    const buf = new Uint8Array(24);
    c.randomFill(buf);
    return buf;
  }],
  randomBytes: [(c) => c.randomBytes(40)],
};

/** A value, or the error, as a comparable string (bytes as hex, whether Buffer or Uint8Array). */
async function outcome(call: () => unknown): Promise<string> {
  const show = (v: unknown): string =>
    v instanceof Uint8Array ? hex(v) : Array.isArray(v) ? `[${v.map(show).join(",")}]` : String(v);
  try {
    return show(await call());
  } catch (error) {
    return `${(error as Error).constructor.name}: ${(error as Error).message}`;
  }
}

/** A randomFill that hands out a stream seeded with `seed`. */
const seeded = (seed: string) => {
  const stream = new Prng(seed);
  return (buf: Uint8Array) => buf.set(stream.bytes(buf.length));
};

/** mtcute's withFakeRandom pattern: a Proxy that swaps randomFill and forwards the rest (receiver kept). */
const fakeRandom = <T extends object>(target: T, seed: string): T =>
  new Proxy(target, {
    get(t, prop, receiver) {
      if (prop === "randomFill") return seeded(seed);
      return Reflect.get(t, prop, receiver);
    },
  });

/** A provider class with #private state that every member touches (a wrong `this` throws TypeError). */
class PrivateProvider extends NodeCryptoProvider {
  #calls: [string, unknown][] = [];
  #random = new Prng("");
  seed(seed: string): void {
    this.#random = new Prng(seed);
  }
  #log(name: string): void {
    this.#calls.push([name, this]);
  }
  calls(): [string, unknown][] {
    return this.#calls;
  }
  override sha1(d: Uint8Array) {
    this.#log("sha1");
    return super.sha1(d);
  }
  override sha256(d: Uint8Array) {
    this.#log("sha256");
    return super.sha256(d);
  }
  override createAesIge(k: Uint8Array, iv: Uint8Array) {
    this.#log("createAesIge");
    return super.createAesIge(k, iv);
  }
  override createAesCtr(k: Uint8Array, iv: Uint8Array) {
    this.#log("createAesCtr");
    return super.createAesCtr(k, iv);
  }
  override factorizePQ(pq: Uint8Array) {
    this.#log("factorizePQ");
    return super.factorizePQ(pq);
  }
  override initialize() {
    this.#log("initialize");
    return super.initialize();
  }
  override pbkdf2(...args: Parameters<NodeCryptoProvider["pbkdf2"]>) {
    this.#log("pbkdf2");
    return super.pbkdf2(...args);
  }
  override hmacSha256(d: Uint8Array, k: Uint8Array) {
    this.#log("hmacSha256");
    return super.hmacSha256(d, k);
  }
  override gzip(d: Uint8Array, max: number) {
    this.#log("gzip");
    return super.gzip(d, max);
  }
  override gunzip(d: Uint8Array) {
    this.#log("gunzip");
    return super.gunzip(d);
  }
  override randomFill(buf: Uint8Array) {
    this.#log("randomFill");
    buf.set(this.#random.bytes(buf.length)); // seeded: stock and native get the same bytes
  }
  override randomBytes(size: number) {
    this.#log("randomBytes");
    return super.randomBytes(size);
  }
}

beforeAll(async () => {
  await new NodeCryptoProvider().initialize(); // loads @mtcute/wasm once for every instance
  gzipped = new Uint8Array((await import("node:zlib")).gzipSync(data));
});

describe("nativeCrypto(provider): the provider itself, with native members", () => {
  test("regression: an override of randomFill on the result is what randomBytes uses", () => {
    const c: Any = nativeCrypto(new NodeCryptoProvider());
    c.randomFill = (b: Uint8Array) => b.fill(0x42);
    expect(c.randomBytes(4)).toEqual(Uint8Array.of(0x42, 0x42, 0x42, 0x42));
  });

  test("every member, called on the result: what the provider's own gives, with `this` the result (a #private class)", async () => {
    const stock: Any = new PrivateProvider(), inner: Any = new PrivateProvider();
    const native: Any = nativeCrypto(inner);
    expect(native).toBe(inner);
    for (const name of MEMBERS) {
      for (const [i, call] of CALLS[name]!.entries()) {
        const before = native.calls().length;
        stock.seed(`${name}${i}`), inner.seed(`${name}${i}`);
        const [s, n] = [await outcome(() => call(stock)), await outcome(() => call(native))];
        expect(n, `${name} #${i}`).toBe(s);
        expect(n, `${name} #${i}`).not.toMatch(/^TypeError: Cannot (read|write) private/);
        // Whatever ran of the provider's own code ran on the result itself.
        for (const [, self] of native.calls().slice(before)) expect(self).toBe(native);
        const ownCalls = native.calls().slice(before).map(([m]: [string]) => m);
        if (!NATIVE.includes(name)) expect(ownCalls, name).toContain(name);
      }
    }
    // The native inputs did not reach the provider's own sha256 / createAesIge; the fallbacks did.
    const names = native.calls().map(([m]: [string]) => m);
    expect(names.filter((m: string) => m === "sha256")).toHaveLength(1); // sha256("not bytes")
    expect(names.filter((m: string) => m === "sha1")).toHaveLength(1); // sha1("not bytes")
    expect(names.filter((m: string) => m === "createAesIge")).toHaveLength(0);
    expect(names.filter((m: string) => m === "createAesCtr")).toHaveLength(1); // the 16-byte key
    expect(names.filter((m: string) => m === "factorizePQ")).toHaveLength(1); // the 9-byte pq
  });

  test("a Proxy around the result (mtcute's withFakeRandom): its randomFill is what every member sees", async () => {
    for (const name of MEMBERS) {
      for (const [i, call] of CALLS[name]!.entries()) {
        const stock = fakeRandom(new NodeCryptoProvider(), `proxy-${name}${i}`);
        const native = fakeRandom(nativeCrypto(new NodeCryptoProvider()), `proxy-${name}${i}`);
        expect(await outcome(() => call(native)), `${name} #${i}`).toBe(await outcome(() => call(stock)));
      }
    }
    // mtcute's own obfuscated codec draws its 64-byte header through randomBytes -> this.randomFill.
    const header = async (crypto: Any) => {
      const codec = new ObfuscatedPacketCodec(new IntermediatePacketCodec());
      codec.setup(crypto, { create: () => ({}) } as Any);
      return hex(await codec.tag());
    };
    const stockHeader = await header(fakeRandom(new NodeCryptoProvider(), "tag"));
    expect(await header(fakeRandom(nativeCrypto(new NodeCryptoProvider()), "tag"))).toBe(stockHeader);
    expect(await header(fakeRandom(new NodeCryptoProvider(), "tag"))).toBe(stockHeader); // and it is deterministic
  });

  test("a Proxy around a #private provider: the provider's own members fail or work exactly as on stock", async () => {
    for (const name of MEMBERS.filter((m) => !NATIVE.includes(m))) {
      for (const call of CALLS[name]!) {
        const stock = await outcome(() => call(fakeRandom(new PrivateProvider(), name)));
        const native = await outcome(() => call(fakeRandom(nativeCrypto(new PrivateProvider()), name)));
        expect(native, name).toBe(stock);
      }
    }
    // The inputs the native members hand to the provider's own methods: called on the same receiver (the Proxy),
    // so they fail as on stock, not on the provider behind it.
    const fallbacks: ((c: Any) => unknown)[] = [
      (c) => c.createAesIge(key16, iv32).encrypt(data.subarray(0, 32)),
      (c) => c.createAesCtr(key16, iv16, true).process(data.subarray(0, 5)),
      (c) => c.sha1("not bytes"),
      (c) => c.sha256("not bytes"),
      (c) => c.factorizePQ(Uint8Array.of(0x00, 0x17, 0xed, 0x48, 0x94, 0x1a, 0x08, 0xf9, 0x81)),
    ];
    for (const [i, call] of fallbacks.entries()) {
      const stock = await outcome(() => call(fakeRandom(new PrivateProvider(), "fallback")));
      expect(stock, `fallback #${i} on stock: a TypeError (no #private field on the Proxy)`).toMatch(/^TypeError: /);
      expect(await outcome(() => call(fakeRandom(nativeCrypto(new PrivateProvider()), "fallback"))), `fallback #${i}`).toBe(stock);
    }
    // (The native members themselves touch no #private state, so through such a Proxy they work where the
    // provider's own would throw.)
  });

  test("vi.spyOn on the result, and overrides of any member, are what mtcute's code calls", async () => {
    const c: Any = nativeCrypto(new NodeCryptoProvider());
    const spy = vi.spyOn(c, "randomFill");
    c.randomBytes(8);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
    const stock: Any = new NodeCryptoProvider();
    const sha = vi.spyOn(c, "sha256");
    const ige = vi.spyOn(c, "createAesIge");
    const msgKey = data.subarray(0, 16), authKey = rng.bytes(256);
    const expected = createAesIgeForMessage(stock, authKey, msgKey, true).encrypt(data.subarray(0, 160));
    expect(hex(createAesIgeForMessage(c, authKey, msgKey, true).encrypt(data.subarray(0, 160)))).toBe(hex(expected));
    expect(sha).toHaveBeenCalledTimes(2);
    expect(ige).toHaveBeenCalledTimes(1);
    for (const name of MEMBERS) {
      const override = vi.fn(() => "override");
      c[name] = override;
      expect(c[name]).toBe(override);
    }
    expect(c.randomBytes(4)).toBe("override");
  });

  test("returns the provider itself, changed in place: own non-enumerable members, the class untouched, idempotent", () => {
    const p: Any = new NodeCryptoProvider();
    const keys = Object.keys(p), spread = { ...p };
    const c: Any = nativeCrypto(p);
    expect(c).toBe(p);
    expect(Object.keys(c)).toEqual(keys);
    expect({ ...c }).toEqual(spread);
    const members = NATIVE.map((name) => c[name]);
    for (const name of NATIVE) {
      expect(Object.getOwnPropertyDescriptor(c, name)).toMatchObject({ writable: true, enumerable: false, configurable: true });
      expect(c[name]).not.toBe((NodeCryptoProvider.prototype as Any)[name]);
      expect(new NodeCryptoProvider()[name as "sha1"]).toBe((NodeCryptoProvider.prototype as Any)[name]);
    }
    expect(nativeCrypto(c)).toBe(c);
    expect(NATIVE.map((name) => c[name])).toEqual(members);
    // A plain object provider (no class) works the same way.
    const literal: Any = {
      randomFill: seeded("literal"),
      randomBytes(n: number) {
        const b = new Uint8Array(n);
        this.randomFill(b);
        return b;
      },
      sha1: () => new Uint8Array(20),
      sha256: () => new Uint8Array(32),
      createAesIge: () => null,
      createAesCtr: () => null,
      factorizePQ: () => null,
    };
    const lit = nativeCrypto(literal);
    expect(lit).toBe(literal);
    expect(hex(lit.sha256(data))).toBe(hex(new NodeCryptoProvider().sha256(data)));
    literal.randomFill = (b: Uint8Array) => b.fill(7);
    expect(lit.randomBytes(3)).toEqual(Uint8Array.of(7, 7, 7));
  });

  test("frozen, sealed and non-extensible providers, or a non-configurable member: TypeError, nothing changed", () => {
    for (const lock of [Object.freeze, Object.seal, Object.preventExtensions]) {
      const p = lock(new NodeCryptoProvider());
      const own = Object.getOwnPropertyNames(p);
      expect(() => nativeCrypto(p)).toThrow(TypeError);
      expect(() => nativeCrypto(p)).toThrow(/cannot set createAesIge on this provider/);
      expect(Object.getOwnPropertyNames(p)).toEqual(own);
    }
    const p: Any = new NodeCryptoProvider();
    Object.defineProperty(p, "sha256", { value: p.sha256, writable: true, configurable: false });
    expect(() => nativeCrypto(p)).toThrow(/cannot set sha256/);
    expect(Object.getOwnPropertyNames(p)).toEqual(["sha256"]); // createAesIge etc. were not set either
  });

  test("not a provider: TypeError with the message; the exact refusal text for a frozen one", () => {
    for (const bad of [null, undefined, "x", 5, () => null]) {
      expect(() => nativeCrypto(bad as never), String(bad)).toThrow(
        new TypeError("nativeCrypto(provider): provider must be an mtcute ICryptoProvider object"),
      );
    }
    expect(() => nativeCrypto(Object.freeze(new NodeCryptoProvider()))).toThrow(new TypeError(
      "nativeCrypto(provider): cannot set createAesIge on this provider (it is frozen, sealed or not extensible, " +
        "or createAesIge is not configurable); pass a provider of its own, or use createAesIge/createAesCtr " +
        "from tgcrypto-ffi/mtcute in a provider class",
    ));
  });

  test("a provider with some members already native gets the rest set too", () => {
    const done: Any = nativeCrypto(new NodeCryptoProvider());
    const half: Any = new NodeCryptoProvider();
    half.sha1 = done.sha1; // one member native, the others stock
    const stockIge = half.createAesIge;
    nativeCrypto(half);
    expect(half.createAesIge).not.toBe(stockIge);
    expect(hex(half.sha256(data))).toBe(hex(new NodeCryptoProvider().sha256(data)));
  });

  test("the AES hooks take the native path only for Uint8Array key and iv of the right sizes", () => {
    const calls: string[] = [];
    const p: Any = new NodeCryptoProvider();
    const ownIge = p.createAesIge.bind(p), ownCtr = p.createAesCtr.bind(p);
    p.createAesIge = (key: Any, iv: Any) => (calls.push("ige"), ownIge(key, iv));
    p.createAesCtr = (key: Any, iv: Any, encrypt: boolean) => (calls.push("ctr"), ownCtr(key, iv, encrypt));
    const c: Any = nativeCrypto(p);
    const key = new Uint8Array(32).fill(1);
    c.createAesIge(key, new Uint8Array(32));
    c.createAesCtr(key, new Uint8Array(16), true);
    expect(calls, "native: the provider's own are not called").toEqual([]);
    for (const [k, iv] of [[key, new Uint8Array(31)], [Buffer.from(key).toString("hex"), new Uint8Array(32)], [key, "iv"]] as const) {
      try {
        c.createAesIge(k, iv);
      } catch { /* the provider's own may refuse it; which path ran is what counts */ }
    }
    for (const [k, iv] of [[key, new Uint8Array(15)], ["key", new Uint8Array(16)], [key, "iv"]] as const) {
      try {
        c.createAesCtr(k, iv, true);
      } catch { /* as above */ }
    }
    expect(calls).toEqual(["ige", "ige", "ige", "ctr", "ctr", "ctr"]);
  });
});
