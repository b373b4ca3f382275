/**
 * The Node-API addon (bindings/node/addon.c) called directly, without the
 * TypeScript checks in front of it: whatever JS value reaches it, it must
 * throw a TypeError or RangeError (or return an error code) and never read
 * or write outside an array, nor crash the process. Runs in all three
 * runtimes: Node.js is the addon's host, and Bun and Deno load Node-API
 * addons too, which also shows that the addon's core is its own copy, apart
 * from the shared library those runtimes load.
 */
import { createRequire } from "node:module";

import { describe, expect, test } from "vitest";
import { backend, ige256Encrypt, libraryPath, setBackend, sha1, sha256 } from "../../ts/mod.ts";
import { outputScratchIsClear } from "../../ts/runtime/node.ts";
import { ADDON_FILE, locateNative } from "../../ts/runtime/locate.ts";
import { ErrorCode, type SymbolName, symbols } from "../../ts/runtime/symbols.ts";

type AddonFunction = (...args: unknown[]) => unknown;
const addon = createRequire(import.meta.url)(locateNative("addon").path) as Record<SymbolName, AddonFunction>;
const runtime = (globalThis as { Bun?: unknown }).Bun !== undefined ? "bun"
  : (globalThis as { Deno?: unknown }).Deno !== undefined ? "deno" : "node";

const KEY = new Uint8Array(256).fill(3); // long enough for every fixed-size argument
const handles = {
  ctr: () => addon.tg_ctr_new(KEY.subarray(0, 32), KEY.subarray(0, 16), 0),
  ige: () => addon.tg_ige_new(KEY.subarray(0, 32), KEY.subarray(0, 32), 0),
  cbc: () => addon.tg_cbc_new(KEY.subarray(0, 32), KEY.subarray(0, 16), 1),
  key: () => addon.tg_auth_key_new(KEY),
};
type Kind = keyof typeof handles;
const kindOf = (name: string): Kind =>
  name.startsWith("tg_ctr_") ? "ctr" : name.startsWith("tg_ige_") ? "ige" : name.startsWith("tg_cbc_") ? "cbc" : "key";

/** Valid arguments for `name`: 512-byte buffers, length 16, the right handle, pq 15. */
function validArgs(name: SymbolName): unknown[] {
  return symbols[name].args.map((kind) => {
    switch (kind) {
      case "bytes": return name === "tg_set_backend" ? "soft" : new Uint8Array(512);
      case "u32": return name.startsWith("tg_mtproto") && name.endsWith("encrypt") ? 0 : 16;
      case "u64": return 15n;
      case "i32": return 0;
      case "context": return handles[kindOf(name)]();
    }
  });
}

/** A label for any value (externals have no prototype, so no String()). */
const label = (value: unknown): string => {
  try {
    return typeof value === "bigint" ? `${value}n` : String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
};

const NOT_BYTES: unknown[] = [undefined, null, 7, "bytes", {}, [1, 2, 3], new ArrayBuffer(512), new Uint16Array(256),
  new DataView(new ArrayBuffer(512)), new Uint8ClampedArray(512), Symbol("x"), () => 0];
const NOT_HANDLES: unknown[] = [undefined, null, 0, 12345, "ctx", {}, new Uint8Array(64), () => 0];

describe("the addon's exports", () => {
  test("exactly the functions of ts/runtime/symbols.ts", () => {
    expect(Object.keys(addon).sort()).toEqual(Object.keys(symbols).sort());
    for (const name of Object.keys(symbols) as SymbolName[]) expect(typeof addon[name], name).toBe("function");
    expect(addon.tg_version()).toBe("0.1.0");
    expect(addon.tg_init()).toBe(0);
  });

  test(`the API loads the right artifact (${runtime})`, () => {
    if (runtime === "node") expect(libraryPath().endsWith(ADDON_FILE)).toBe(true);
    else expect(libraryPath()).toMatch(/libtgcrypto\.(so|dylib)$|tgcrypto\.dll$/);
  });
});

describe("every argument of every function is checked", () => {
  test("a non-Uint8Array in any byte-buffer position is a TypeError", () => {
    let checked = 0;
    for (const name of Object.keys(symbols) as SymbolName[]) {
      if (name === "tg_set_backend") continue;
      symbols[name].args.forEach((kind, index) => {
        if (kind !== "bytes") return;
        for (const bad of NOT_BYTES) {
          const args = validArgs(name);
          args[index] = bad;
          expect(() => addon[name](...args), `${name} argument ${index} = ${label(bad)}`).toThrow(TypeError);
          checked++;
        }
      });
    }
    expect(checked).toBeGreaterThan(400);
  });

  test("anything but a live handle of the right kind in a context position is a TypeError", () => {
    let checked = 0;
    for (const name of Object.keys(symbols) as SymbolName[]) {
      const index = (symbols[name].args as readonly string[]).indexOf("context");
      if (index < 0) continue;
      const wrongKinds = (Object.keys(handles) as Kind[]).filter((k) => k !== kindOf(name)).map((k) => handles[k]());
      for (const bad of [...NOT_HANDLES, ...wrongKinds]) {
        const args = validArgs(name);
        args[index] = bad;
        expect(() => addon[name](...args), `${name} handle ${label(bad)}`).toThrow(TypeError);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  test("a non-number length or flag is a TypeError (Deno: converted to a number, still checked against the buffers)", () => {
    let checked = 0;
    for (const name of Object.keys(symbols) as SymbolName[]) {
      symbols[name].args.forEach((kind, index) => {
        if (kind !== "u32" && kind !== "i32") return;
        for (const bad of [undefined, "16", {}, 16n]) {
          const args = validArgs(name);
          args[index] = bad;
          const call = () => addon[name](...args);
          // Deno's Node-API converts any value to a number instead of refusing it; a length so made is
          // still checked against its buffers, so the call throws or returns, and the process lives on.
          if (runtime === "deno") {
            try {
              call();
            } catch (error) {
              expect(error, `${name} argument ${index} = ${label(bad)}`).toBeInstanceOf(Error);
            }
          } else {
            expect(call, `${name} argument ${index} = ${label(bad)}`).toThrow(TypeError);
          }
          checked++;
        }
      });
    }
    expect(checked).toBeGreaterThan(80);
  });

  test("a length past the end of its buffer is a RangeError, and nothing is written", () => {
    const out = new Uint8Array(32).fill(0xaa);
    const data = new Uint8Array(64);
    const key = new Uint8Array(32), iv = new Uint8Array(32), state = new Uint8Array(1);
    const calls: [string, () => unknown][] = [
      ["ige, out too short", () => addon.tg_ige256_encrypt(out, data, 48, key, iv)],
      ["ige, data too short", () => addon.tg_ige256_decrypt(out, data.subarray(0, 16), 32, key, iv)],
      ["cbc", () => addon.tg_cbc256_encrypt(out, data, 64, key, iv.subarray(0, 16))],
      ["ctr", () => addon.tg_ctr256(out, data, 33, key, iv.subarray(0, 16), state)],
      ["ctr update", () => addon.tg_ctr_update(handles.ctr(), out, data, 48)],
      ["sha256", () => addon.tg_sha256(out, data, 65)],
      ["sha1 update", () => addon.tg_sha1_update(new Uint8Array(112), data, 100)],
      ["mtproto encrypt: packet", () => addon.tg_mtproto_encrypt(handles.key(), 0, out, data, 32, data, 0, data, 12)],
      ["mtproto encrypt: head", () => addon.tg_mtproto_encrypt(handles.key(), 0, new Uint8Array(200), data, 65, data, 0, data, 12)],
      ["mtproto decrypt: plaintext", () => addon.tg_mtproto_decrypt(handles.key(), 8, out, data, 64)],
      ["mtproto decrypt: packet", () => addon.tg_mtproto_decrypt(handles.key(), 8, new Uint8Array(64), data, 72)],
      ["a huge length", () => addon.tg_ige256_encrypt(out, data, 0xfffffff0, key, iv)],
      ["a negative length (wraps to 2^32 - 16)", () => addon.tg_ige256_encrypt(out, data, -16, key, iv)],
    ];
    for (const [what, call] of calls) expect(call, what).toThrow(RangeError);
    expect(out.every((b) => b === 0xaa)).toBe(true);
  });

  test("fixed-size arrays shorter than their size are a RangeError", () => {
    const out = new Uint8Array(16), data = new Uint8Array(16);
    const calls: [string, () => unknown][] = [
      ["key 31", () => addon.tg_ige256_encrypt(out, data, 16, new Uint8Array(31), new Uint8Array(32))],
      ["ige iv 31", () => addon.tg_ige256_encrypt(out, data, 16, new Uint8Array(32), new Uint8Array(31))],
      ["cbc iv 15", () => addon.tg_cbc256_decrypt(out, data, 16, new Uint8Array(32), new Uint8Array(15))],
      ["ctr state 0", () => addon.tg_ctr256(out, data, 16, new Uint8Array(32), new Uint8Array(16), new Uint8Array(0))],
      ["sha256 digest 31", () => addon.tg_sha256(new Uint8Array(31), data, 16)],
      ["sha1 digest 19", () => addon.tg_sha1(new Uint8Array(19), data, 16)],
      ["hash state 111", () => addon.tg_sha256_init(new Uint8Array(111))],
      ["auth key 255", () => addon.tg_auth_key_new(new Uint8Array(255))],
      ["auth key id 7", () => addon.tg_auth_key_id(handles.key(), new Uint8Array(7))],
      ["pq p 7", () => addon.tg_factorize_pq(15n, new Uint8Array(7), new Uint8Array(8))],
      ["ctr position iv 15", () => addon.tg_ctr_position(handles.ctr(), new Uint8Array(15), new Uint8Array(1))],
    ];
    for (const [what, call] of calls) expect(call, what).toThrow(RangeError);
  });

  test("a detached buffer has no bytes", () => {
    const data = new Uint8Array(64);
    const buffer = new ArrayBuffer(64);
    const detached = new Uint8Array(buffer);
    structuredClone(buffer, { transfer: [buffer] });
    expect(detached.length).toBe(0);
    expect(() => addon.tg_ige256_encrypt(detached, data, 16, new Uint8Array(32), new Uint8Array(32))).toThrow(RangeError);
    expect(addon.tg_ige256_encrypt(detached, detached, 0, new Uint8Array(32), new Uint8Array(32))).toBe(0);
  });

  test("pq: a bigint in [0, 2^64), the factors written without alignment", () => {
    const bytes = new Uint8Array(17);
    expect(addon.tg_factorize_pq(0x17ed48941a08f981n, bytes.subarray(1, 9), bytes.subarray(9, 17))).toBe(0);
    const view = new DataView(bytes.buffer);
    expect([view.getBigUint64(1, true), view.getBigUint64(9, true)]).toEqual([0x494c553bn, 0x53911073n]);
    for (const bad of [15, "15", undefined]) expect(() => addon.tg_factorize_pq(bad, bytes, bytes)).toThrow(TypeError);
    for (const bad of [1n << 64n, -1n]) expect(() => addon.tg_factorize_pq(bad, bytes, bytes)).toThrow(RangeError);
    expect(addon.tg_factorize_pq(13n, new Uint8Array(8), new Uint8Array(8))).toBe(ErrorCode.NOT_COMPOSITE);
  });

  test("backend names: a string, too long or with a NUL is unknown", () => {
    for (const bad of [undefined, 1, {}, new Uint8Array(4)]) expect(() => addon.tg_set_backend(bad)).toThrow(TypeError);
    expect(addon.tg_set_backend("x".repeat(200))).toBe(ErrorCode.BACKEND);
    expect(addon.tg_set_backend("soft\0x")).toBe(ErrorCode.BACKEND);
    expect(addon.tg_strerror(ErrorCode.OVERLAP)).toMatch(/overlap/);
    if (runtime !== "deno") expect(() => addon.tg_strerror("x")).toThrow(TypeError); // see above
    expect(addon.tg_backend_name(1000)).toBe(null);
  });
});

describe("handles", () => {
  test("free wipes once: a second free is harmless, a use after free is TG_ERR_CONTEXT", () => {
    const out = new Uint8Array(16), data = new Uint8Array(16);
    for (const [kind, update, free] of [
      ["ctr", addon.tg_ctr_update, addon.tg_ctr_free],
      ["ige", addon.tg_ige_update, addon.tg_ige_free],
      ["cbc", addon.tg_cbc_update, addon.tg_cbc_free],
    ] as const) {
      const handle = handles[kind]();
      expect(update(handle, out, data, 16), kind).toBe(0);
      free(handle);
      free(handle);
      expect(update(handle, out, data, 16), kind).toBe(ErrorCode.CONTEXT);
    }
    const ctr = handles.ctr();
    addon.tg_ctr_free(ctr);
    expect(addon.tg_ctr_position(ctr, new Uint8Array(16), new Uint8Array(1))).toBe(ErrorCode.CONTEXT);
    const key = handles.key();
    addon.tg_auth_key_free(key);
    addon.tg_auth_key_free(key);
    expect(addon.tg_auth_key_id(key, new Uint8Array(8))).toBe(ErrorCode.CONTEXT);
    expect(addon.tg_mtproto_decrypt(key, 8, new Uint8Array(64), new Uint8Array(88), 88)).toBe(ErrorCode.CONTEXT);
  });

  test("a bad key or iv gives null, not a handle", () => {
    expect(addon.tg_ctr_new(new Uint8Array(32), new Uint8Array(16), 16)).toBe(null); // state out of range
  });

  test("handles dropped without free are reclaimed (many thousands, no crash)", async () => {
    for (let i = 0; i < 20000; i++) handles[(["ctr", "ige", "cbc", "key"] as const)[i % 4]]();
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc) gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(addon.tg_init()).toBe(0);
  });
});

describe("small outputs (Node: through the off-heap scratch)", () => {
  test("fresh, with their own ArrayBuffer, and the scratch is wiped after each", () => {
    const key = new Uint8Array(32).fill(1), iv = new Uint8Array(32).fill(2);
    const outs = [
      ige256Encrypt(new Uint8Array(16).fill(3), key, iv),
      ige256Encrypt(new Uint8Array(64).fill(4), key, iv),
      sha256(new Uint8Array([1, 2, 3])),
      sha1(new Uint8Array([1, 2, 3])),
    ];
    for (const out of outs) {
      expect(out.buffer.byteLength).toBe(out.length);
      expect(out.some((b) => b !== 0)).toBe(true);
    }
    expect(new Set(outs.map((o) => o.buffer)).size).toBe(outs.length);
    // In Node the outputs went through the scratch: it must hold none of them now.
    if (runtime === "node") expect(outputScratchIsClear()).toBe(true);
  });
});

describe("the addon's core is its own copy", () => {
  test(runtime === "node"
    ? "Node.js: the API runs on this very addon (one instance per process)"
    : `${runtime}: the shared library and the addon keep separate process-wide backends`, () => {
    const before = backend();
    const count = addon.tg_backend_count() as number;
    const available = Array.from({ length: count }, (_, i) => i)
      .filter((i) => addon.tg_backend_available(i) === 1).map((i) => addon.tg_backend_name(i) as string);
    const other = available.find((name) => name !== before);
    if (other === undefined) { // a soft-only build or CPU: nothing to switch to
      expect(available).toEqual(["soft"]);
      return;
    }
    try {
      expect(addon.tg_set_backend(other)).toBe(0);
      expect(addon.tg_backend()).toBe(other);
      // Node: the API's backend is the addon's; Bun/Deno: the shared library is untouched.
      expect(backend()).toBe(runtime === "node" ? other : before);
      setBackend(before);
      expect(addon.tg_backend()).toBe(runtime === "node" ? before : other);
    } finally {
      addon.tg_set_backend(before);
      setBackend(before);
    }
  });
});

describe("locating the addon (ts/runtime/locate.ts)", () => {
  const env = (globalThis as unknown as { process: { env: Record<string, string | undefined> } }).process.env;
  /** Runs `fn` with the given variables set (undefined: unset), then restores them. */
  function withEnv<T>(values: Record<string, string | undefined>, fn: () => T): T {
    const saved = Object.fromEntries(Object.keys(values).map((k) => [k, env[k]]));
    const apply = (v: Record<string, string | undefined>) => {
      for (const [k, value] of Object.entries(v)) {
        if (value === undefined) delete env[k];
        else env[k] = value;
      }
    };
    apply(values);
    try {
      return fn();
    } finally {
      apply(saved);
    }
  }
  const dev = locateNative("addon", () => undefined);
  const devLibrary = locateNative("library", () => undefined);

  test("the dev build: zig-out/lib/tgcrypto.node beside the shared library", () => {
    withEnv({ TGCRYPTO_ADDON: undefined, TGCRYPTO_LIB: undefined }, () => {
      expect(locateNative("addon").path).toBe(dev.path);
    });
    expect(dev.path.endsWith(`zig-out/lib/${ADDON_FILE}`)).toBe(true);
  });

  test("TGCRYPTO_ADDON is exclusive; the shared library ignores it", () => {
    withEnv({ TGCRYPTO_ADDON: dev.path, TGCRYPTO_LIB: undefined }, () => {
      expect(locateNative("addon")).toEqual({ path: dev.path, origin: "$TGCRYPTO_ADDON" });
      expect(locateNative("library").path).toBe(devLibrary.path);
    });
    withEnv({ TGCRYPTO_ADDON: "/no/such/tgcrypto.node" }, () => {
      expect(() => locateNative("addon")).toThrow("TGCRYPTO_ADDON=/no/such/tgcrypto.node does not exist");
    });
  });

  test("with only TGCRYPTO_LIB, Node's addon is the tgcrypto.node beside it, or a clear error", () => {
    withEnv({ TGCRYPTO_ADDON: undefined, TGCRYPTO_LIB: devLibrary.path }, () => {
      expect(locateNative("addon")).toEqual({ path: dev.path, origin: "beside $TGCRYPTO_LIB" });
    });
    withEnv({ TGCRYPTO_ADDON: undefined, TGCRYPTO_LIB: import.meta.filename ?? "/no/such/libtgcrypto.so" }, () => {
      expect(() => locateNative("addon")).toThrow(/Node-API addon not found: TGCRYPTO_LIB=.* Set TGCRYPTO_ADDON/);
    });
  });
});

describe("the Node binding's output scratch (ts/runtime/node.ts, loaded here in every runtime)", () => {
  test("outputs up to 64 bytes are views of one scratch; longer ones are arrays of their own", async () => {
    const { loadNative } = await import("../../ts/runtime/node.ts");
    const native = loadNative();
    const small = [0, 1, 16, 64].map((n) => native.allocateOutput(n));
    for (const [i, n] of [0, 1, 16, 64].entries()) expect(small[i]!.length).toBe(n);
    expect(new Set(small.map((view) => view.buffer)).size, "one scratch").toBe(1);
    expect(small[3]!.buffer.byteLength).toBe(64);
    for (const n of [65, 4095, 4096, 70000]) {
      const out = native.allocateOutput(n);
      expect([out.length, out.buffer.byteLength, out.buffer === small[0]!.buffer]).toEqual([n, n, false]);
      expect(native.finishOutput(out), "a longer output is returned as it is").toBe(out);
    }
  });

  test("finishOutput copies a scratch view out and wipes the scratch; outputScratchIsClear sees any byte left", async () => {
    const { loadNative } = await import("../../ts/runtime/node.ts");
    const native = loadNative();
    expect(outputScratchIsClear()).toBe(true);
    const view = native.allocateOutput(64);
    view[63] = 7; // the last byte: a wipe one word short would leave it
    expect(outputScratchIsClear(), "a dirty scratch is seen").toBe(false);
    const copy = native.finishOutput(view);
    expect(copy).not.toBe(view);
    expect([copy.length, copy.buffer.byteLength, copy[63]]).toEqual([64, 64, 7]);
    expect(outputScratchIsClear(), "wiped").toBe(true);
    native.allocateOutput(5)[0] = 1;
    expect(outputScratchIsClear(), "the first byte too").toBe(false);
    expect(Array.from(native.finishOutput(native.allocateOutput(5)))).toEqual([1, 0, 0, 0, 0]);
    expect(outputScratchIsClear()).toBe(true);
  });
});
