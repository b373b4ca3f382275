/**
 * The lifetimes of the Node-API addon's context handles, called directly
 * (bindings/node/addon.c, without the TS layer): a free empties the handle
 * so that a use after free or a second free reaches no memory, even when
 * the freed context's memory was handed out again; no JS code can run in
 * the middle of a call (so nothing can free a context C is using); handles
 * cannot leave their thread; and the finalizer of a handle never freed
 * frees its context and its box, measured in bytes of C heap per handle
 * (bindings/node/test/heap_probe.mjs).
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { arch, platform } from "node:os";
import { fileURLToPath } from "node:url";
import { MessageChannel } from "node:worker_threads";

import { describe, expect, test } from "vitest";
import { locateNative } from "../../ts/runtime/locate.ts";
import { ErrorCode, type SymbolName } from "../../ts/runtime/symbols.ts";

type AddonFunction = (...args: unknown[]) => unknown;
const addonPath = locateNative("addon").path;
const addon = createRequire(import.meta.url)(addonPath) as Record<SymbolName, AddonFunction>;
const runtime = (globalThis as { Bun?: unknown }).Bun !== undefined ? "bun"
  : (globalThis as { Deno?: unknown }).Deno !== undefined ? "deno" : "node";

const KEY = new Uint8Array(256).fill(3);
const KEY2 = new Uint8Array(256).fill(9);
const kinds = {
  ctr: {
    make: (k: Uint8Array) => addon.tg_ctr_new(k.subarray(0, 32), k.subarray(0, 16), 0),
    use: (h: unknown, out: Uint8Array) => addon.tg_ctr_update(h, out, new Uint8Array(16), 16),
    free: addon.tg_ctr_free,
  },
  ige: {
    make: (k: Uint8Array) => addon.tg_ige_new(k.subarray(0, 32), k.subarray(0, 32), 0),
    use: (h: unknown, out: Uint8Array) => addon.tg_ige_update(h, out, new Uint8Array(16), 16),
    free: addon.tg_ige_free,
  },
  cbc: {
    make: (k: Uint8Array) => addon.tg_cbc_new(k.subarray(0, 32), k.subarray(0, 16), 0),
    use: (h: unknown, out: Uint8Array) => addon.tg_cbc_update(h, out, new Uint8Array(16), 16),
    free: addon.tg_cbc_free,
  },
  key: {
    make: (k: Uint8Array) => addon.tg_auth_key_new(k),
    use: (h: unknown, out: Uint8Array) => addon.tg_auth_key_id(h, out.subarray(0, 8)),
    free: addon.tg_auth_key_free,
  },
};
type Kind = keyof typeof kinds;
const KINDS = Object.keys(kinds) as Kind[];

describe("free empties the handle", () => {
  test.each(KINDS)("%s: after free, a new context in the same memory is not reachable through the old handle", (kind) => {
    const { make, use, free } = kinds[kind];
    // What a fresh context of the second key gives on its first use.
    const fresh = new Uint8Array(16);
    const reference = make(KEY2);
    expect(use(reference, fresh)).toBe(0);
    free(reference);
    for (let i = 0; i < 8; i++) { // malloc hands the freed chunk out again (same size: last in, first out)
      const old = make(KEY);
      free(old);
      const reused = make(KEY2);
      const out = new Uint8Array(16).fill(0xee);
      expect(use(old, out), `${kind}: use after free`).toBe(ErrorCode.CONTEXT);
      expect(Array.from(out), "nothing written").toEqual(new Array(16).fill(0xee));
      free(old); // a second free must not free the context now living there
      const after = new Uint8Array(16);
      expect(use(reused, after), `${kind}: the new context is untouched`).toBe(0);
      expect(Array.from(after)).toEqual(Array.from(fresh));
      free(reused);
    }
  });

  test("every call taking a handle refuses a freed one with TG_ERR_CONTEXT, writing nothing", () => {
    const out = new Uint8Array(512).fill(0xee);
    const ctr = kinds.ctr.make(KEY);
    const ige = kinds.ige.make(KEY);
    const cbc = kinds.cbc.make(KEY);
    const key = kinds.key.make(KEY);
    for (const kind of KINDS) kinds[kind].free({ ctr, ige, cbc, key }[kind]);
    const data = new Uint8Array(512);
    const calls: [string, () => unknown][] = [
      ["ctr update", () => addon.tg_ctr_update(ctr, out, data, 16)],
      ["ctr position", () => addon.tg_ctr_position(ctr, out.subarray(0, 16), out.subarray(16, 17))],
      ["ige update", () => addon.tg_ige_update(ige, out, data, 16)],
      ["cbc update", () => addon.tg_cbc_update(cbc, out, data, 16)],
      ["auth key id", () => addon.tg_auth_key_id(key, out.subarray(0, 8))],
      ["mtproto encrypt", () => addon.tg_mtproto_encrypt(key, 0, out, data, 32, data, 16, data, 16)],
      ["mtproto decrypt", () => addon.tg_mtproto_decrypt(key, 8, out, data, 88)],
    ];
    for (const [what, call] of calls) expect(call(), what).toBe(ErrorCode.CONTEXT);
    expect(out.every((b) => b === 0xee)).toBe(true);
  });
});

describe("nothing can free a context while C uses it", () => {
  test("the addon runs no JS during a call: a valueOf that frees the handle is never called", () => {
    const handle = kinds.ctr.make(KEY);
    let called = 0;
    const length = { valueOf: () => { called++; kinds.ctr.free(handle); return 16; } };
    const call = () => addon.tg_ctr_update(handle, new Uint8Array(16), new Uint8Array(16), length);
    if (runtime === "deno") { // Deno's Node-API converts any value to a number (see addon.test.ts)
      try { call(); } catch (error) { expect(error).toBeInstanceOf(Error); }
    } else {
      expect(call).toThrow(TypeError);
      expect(called).toBe(0);
      expect(kinds.ctr.use(handle, new Uint8Array(16))).toBe(0); // still alive
    }
    kinds.ctr.free(handle);
  });

  test.runIf(runtime === "node")("a handle cannot be sent to another thread (externals are not cloneable)", () => {
    const { port1, port2 } = new MessageChannel();
    try {
      for (const kind of KINDS) {
        const handle = kinds[kind].make(KEY);
        expect(() => port1.postMessage(handle), kind).toThrow(/could not be cloned|DataCloneError/i);
        expect(kinds[kind].use(handle, new Uint8Array(16)), kind).toBe(0);
        kinds[kind].free(handle);
      }
    } finally {
      port1.close();
      port2.close();
    }
  });
});

// glibc's mallinfo2 through node:ffi (Node 26.1+), called the x86-64 way: see heap_probe.mjs.
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const canProbe = process.env.TG_ADDON_ASAN !== "1" && runtime === "node" && platform() === "linux" && arch() === "x64" && (major > 26 || (major === 26 && minor >= 1));

describe("finalizers", () => {
  test.runIf(canProbe)("a handle gives back all its C memory when collected, freed or not (bytes per handle)", () => {
    const probe = fileURLToPath(new URL("../../bindings/node/test/heap_probe.mjs", import.meta.url));
    type Result = Record<Kind, Record<"heldPerHandle" | "retainedPerHandle" | "retainedAfterFreePerHandle", number>>;
    const measure = (): Result => {
      const run = spawnSync(process.execPath, ["--expose-gc", "--no-warnings", probe, addonPath, "16000"],
        { encoding: "utf8", timeout: 120_000 });
      expect(run.status, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as Result;
    };
    // Held: the context (a key schedule, or the 256-byte key and its derived state) and the box. After
    // collection: nothing; a box alone is a 32-byte malloc chunk, and the measured noise stays under
    // 3 bytes per handle at this count. A busy machine can add noise to a run: up to three runs, the first
    // within the bounds decides (a leak shows in every run: a box alone is 32 bytes per handle).
    const within = (r: Result) => KINDS.every((kind) => r[kind].heldPerHandle > 256 &&
      Math.abs(r[kind].retainedPerHandle) < 10 && Math.abs(r[kind].retainedAfterFreePerHandle) < 10);
    let result = measure();
    for (let attempt = 1; attempt < 3 && !within(result); attempt++) result = measure();
    for (const kind of KINDS) {
      expect(result[kind].heldPerHandle, `${kind} held`).toBeGreaterThan(256);
      expect(Math.abs(result[kind].retainedPerHandle), `${kind} retained when dropped`).toBeLessThan(10);
      expect(Math.abs(result[kind].retainedAfterFreePerHandle), `${kind} retained when freed, then dropped`).toBeLessThan(10);
    }
  });
});
