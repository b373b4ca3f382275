// Measures the C heap the addon's handles keep, for
// test/runtime/addon_lifetime.test.ts: run as
//   node --expose-gc bindings/node/test/heap_probe.mjs ADDON_PATH COUNT
// (Node 26.1+, for node:ffi; Linux x86-64 glibc). Prints one JSON line:
// per kind, the malloc'd bytes in use per handle while COUNT handles are
// held, after they were dropped and collected (finalizers run), and after
// COUNT handles were freed explicitly (tg_*_free), then dropped and
// collected.
//
// The bytes in use come from glibc's mallinfo2(), called through node:ffi:
// uordblks (allocated arena bytes) + hblkhd (mmapped blocks). mallinfo2
// returns its 80-byte struct in memory, so on x86-64 the caller passes the
// address of the result as a hidden first argument: that is the buffer
// argument declared here.
import { createRequire } from "node:module";

const [addonPath, countText] = process.argv.slice(2);
const count = Number(countText);
const addon = createRequire(import.meta.url)(addonPath);
const ffi = process.getBuiltinModule("node:ffi");
const { functions } = ffi.dlopen("libc.so.6", { mallinfo2: { arguments: ["buffer"], return: "pointer" } });
const info = new BigUint64Array(10);
const infoBytes = new Uint8Array(info.buffer);
const inUse = () => {
  functions.mallinfo2(infoBytes);
  return Number(info[7] + info[4]);
};

const key = new Uint8Array(256).fill(3);
const free = { ctr: addon.tg_ctr_free, ige: addon.tg_ige_free, cbc: addon.tg_cbc_free, key: addon.tg_auth_key_free };
const make = {
  ctr: () => addon.tg_ctr_new(key.subarray(0, 32), key.subarray(0, 16), 0),
  ige: () => addon.tg_ige_new(key.subarray(0, 32), key.subarray(0, 32), 0),
  cbc: () => addon.tg_cbc_new(key.subarray(0, 32), key.subarray(0, 16), 1),
  key: () => addon.tg_auth_key_new(key),
};

/**
 * Full collections until the finalizers (run from the event loop after a
 * GC) are done: until the bytes in use stop falling (three rounds in a row
 * within 1 KiB of the lowest), at most 60 rounds.
 */
async function collect() {
  let lowest = Infinity, steady = 0;
  for (let i = 0; i < 60 && steady < 3; i++) {
    globalThis.gc();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 1));
    const now = inUse();
    steady = now > lowest - 1024 ? steady + 1 : 0;
    lowest = Math.min(lowest, now);
  }
}

function round(kind) {
  const handles = [];
  for (let i = 0; i < count; i++) handles.push(make[kind]());
  return handles;
}

/** Bytes in use per handle: while `count` handles are held, and after they were (freed and) dropped and collected. */
async function measure(kind, freeFirst) {
  const before = inUse();
  let handles = round(kind);
  const held = inUse() - before;
  if (freeFirst) for (const handle of handles) free[kind](handle);
  handles = null;
  await collect();
  return { held: held / count, retained: (inUse() - before) / count };
}

// Warm-up, every kind and way twice: the arrays, the JIT's and Node-API's
// own allocations (a finalizer queue grown once stays grown).
for (let pass = 0; pass < 2; pass++) {
  for (const kind of Object.keys(make)) {
    await measure(kind, false);
    await measure(kind, true);
  }
}
const result = {};
for (const kind of Object.keys(make)) {
  const dropped = await measure(kind, false);
  const freed = await measure(kind, true);
  result[kind] = { heldPerHandle: dropped.held, retainedPerHandle: dropped.retained, retainedAfterFreePerHandle: freed.retained };
}
console.log(JSON.stringify(result));
