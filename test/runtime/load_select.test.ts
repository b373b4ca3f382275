/**
 * Which binding ts/runtime/load.ts picks, from stub
 * globals and stub loaders: Bun and Deno are recognised before Node.js
 * (both also set process.versions.node), and any other runtime gets an
 * error naming the three it supports.
 */
import { describe, expect, test } from "vitest";

import { loadNative, type RuntimeGlobals, type RuntimeLoaders } from "../../ts/runtime/load.ts";
import type { Native } from "../../ts/runtime/native.ts";

/** Loaders that return a marker naming the runtime picked, and record the calls. */
function markerLoaders(): { loaders: RuntimeLoaders; picked: string[] } {
  const picked: string[] = [];
  const marker = (name: string) => () => {
    picked.push(name);
    return { runtime: name } as unknown as Native;
  };
  return { loaders: { bun: marker("bun"), deno: marker("deno"), node: marker("node") }, picked };
}

function pick(globals: RuntimeGlobals): string[] {
  const { loaders, picked } = markerLoaders();
  const native = loadNative(globals, loaders);
  expect(picked).toHaveLength(1);
  expect(native.runtime).toBe(picked[0]);
  return picked;
}

const node = { versions: { node: "26.12.1" } };

describe("runtime detection", () => {
  test("Bun (which also sets process.versions.node and may have a Deno shim) loads with bun:ffi", () => {
    expect(pick({ Bun: {}, process: node })).toEqual(["bun"]);
    expect(pick({ Bun: {}, Deno: {}, process: node })).toEqual(["bun"]);
    expect(pick({ Bun: null })).toEqual(["bun"]);
  });

  test("Deno (which also sets process.versions.node) loads with Deno.dlopen", () => {
    expect(pick({ Deno: {}, process: node })).toEqual(["deno"]);
    expect(pick({ Deno: 0 })).toEqual(["deno"]);
  });

  test("Node.js: a string process.versions.node loads the addon", () => {
    expect(pick({ process: node })).toEqual(["node"]);
    expect(pick({ process: { versions: { node: "" } } })).toEqual(["node"]);
  });

  test("any other runtime: an error naming the three supported ones, and no loader runs", () => {
    const message =
      "tgcrypto-ffi requires Bun (bun:ffi), Deno (Deno.dlopen) or Node.js (its Node-API addon): " +
      "this runtime is none of them.";
    for (const globals of [
      {},
      { process: {} },
      { process: { versions: {} } },
      { process: { versions: { node: 26 as unknown as string } } },
      { Bun: undefined, Deno: undefined },
    ] satisfies RuntimeGlobals[]) {
      const { loaders, picked } = markerLoaders();
      expect(() => loadNative(globals, loaders)).toThrow(new Error(message));
      expect(picked).toEqual([]);
    }
  });

  test("with no arguments, this process's runtime is detected and its real binding loads the dev build", () => {
    const runtime = "Bun" in globalThis ? "bun" : "Deno" in globalThis ? "deno" : "node";
    const native = loadNative();
    expect(native.runtime).toBe(runtime);
    expect(native.tg_version()).toMatch(/^\d+\.\d+\.\d+/);
    // small and large outputs from the real allocators (Bun: new Uint8Array below 512 bytes, Bun.allocUnsafe from there)
    for (const length of [16, 512, 4096]) {
      const out = native.allocateOutput(length);
      expect(out).toBeInstanceOf(Uint8Array);
      expect(out.length).toBe(length);
    }
  });
});
