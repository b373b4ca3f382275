/**
 * The clients bench: GramJS (telegram 2.26.22) stock vs installGramJS(), and
 * mtcute (@mtcute/core 0.30.3) with its stock NodeCryptoProvider vs
 * nativeCrypto(NodeCryptoProvider), inside the clients' own code, one
 * process per runtime:
 *
 *   bun bench/clients.ts
 *   deno run -A bench/clients.ts
 *
 * Rows: GramJS MTProtoState.encryptMessageData and decryptMessageData (a
 * server message of the same size) at 64 B, 1 KiB, 16 KiB, 512 KiB; a
 * 16 KiB chunk through the obfuscated transport's CTR stream;
 * Factorizator.factorize of a Telegram-sized pq; mtcute
 * AuthKey.encryptMessage / decryptMessage at the same sizes. Each pair is
 * timed alternately (stock, native, stock, ...) and the fastest round kept
 * (lib/timing.ts's method; BENCH_QUICK / BENCH_ROUNDS / BENCH_ROUND_MS /
 * BENCH_PASSES as in lib/env.ts). Prints a markdown table with the
 * client targets and writes clients-<runtime>.json to the results folder (bench/lib/results.ts).
 */

import { Buffer } from "node:buffer";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

import { NodeCryptoProvider } from "@mtcute/node/utils.js";
import Long from "long";

import { installGramJS, uninstallGramJS } from "../ts/clients/gramjs.ts";
import { AuthKey, backend, version } from "../ts/mod.ts";
import { nativeCrypto } from "../ts/clients/mtcute.ts";
import { gramjsStock, gramjsUploadFile, mtcuteAuthKey, mtprotoPlaintext } from "./impl/stock_clients.ts";
import { benchConfig, cpuModel, runtimeInfo } from "./lib/env.ts";
import { resultsDirectory } from "./lib/results.ts";
import { calibrateAsync, fastestRoundAsync, sink, sinkChecksum } from "./lib/timing.ts";

// deno-lint-ignore no-explicit-any
type Any = any;
const require = createRequire(import.meta.url);
const config = benchConfig();
const runtime = runtimeInfo();
const SIZES = [64, 1024, 16384, 512 * 1024];
const label = (size: number) => (size >= 1024 ? `${size / 1024} KiB` : `${size} B`);

/* ------------------------------------------------------------------------ */
/* Timing (async-capable: GramJS's message functions return promises)      */

type Run = (n: number) => number | Promise<number>;

interface Pair {
  client: "GramJS" | "mtcute";
  op: string;
  size: string;
  /** Switches the implementation before its stock / native runs (GramJS's install state). */
  use?: (native: boolean) => void;
  stock: Run;
  native: Run;
}

interface Result {
  client: string;
  op: string;
  size: string;
  stockNs: number;
  nativeNs: number;
  speedup: number;
}

async function measure(pairs: Pair[]): Promise<Result[]> {
  const best = new Map<Pair, { stock: number; native: number; calls: { stock: number; native: number } }>();
  for (const pair of pairs) {
    pair.use?.(false);
    const stockCalls = await calibrateAsync(pair.stock, config.roundMs);
    pair.use?.(true);
    const nativeCalls = await calibrateAsync(pair.native, config.roundMs);
    best.set(pair, { stock: Infinity, native: Infinity, calls: { stock: stockCalls, native: nativeCalls } });
  }
  for (let pass = 0; pass < config.passes; pass++) {
    for (const pair of pass % 2 === 0 ? pairs : [...pairs].reverse()) {
      const entry = best.get(pair)!;
      pair.use?.(false);
      entry.stock = Math.min(entry.stock, await fastestRoundAsync(pair.stock, entry.calls.stock, config.rounds));
      pair.use?.(true);
      entry.native = Math.min(entry.native, await fastestRoundAsync(pair.native, entry.calls.native, config.rounds));
    }
  }
  uninstallGramJS();
  return pairs.map((pair) => {
    const { stock, native } = best.get(pair)!;
    return { client: pair.client, op: pair.op, size: pair.size, stockNs: stock, nativeNs: native, speedup: stock / native };
  });
}

/* ------------------------------------------------------------------------ */
/* GramJS                                                                   */

const CTRModule: Any = require("telegram/crypto/CTR");
const { Factorizator }: Any = require("telegram/crypto/Factorizator");
const bigInt: Any = require("big-integer");

const key = new Uint8Array(256).map((_, i) => (i * 73 + 11) & 0xff);
const useGram = (native: boolean) => (native ? installGramJS() : uninstallGramJS());

async function gramPairs(): Promise<Pair[]> {
  const salt = new Uint8Array(8).fill(21), sessionId = new Uint8Array(8).fill(42);
  const state = await gramjsStock(key, salt, sessionId); // securityChecks off: the same packet is opened repeatedly
  using server = new AuthKey(key);
  const pairs: Pair[] = [];
  for (const size of SIZES) {
    const data = Buffer.alloc(16 + size, 5); // msg_id, seq_no, length, body: as writeDataAsMessage makes it
    data.writeInt32LE(size, 12);
    const encrypt: Run = async (n) => {
      let x = 0;
      for (let i = 0; i < n; i++) x ^= (await state.encryptMessageData(data))[30]!;
      return x;
    };
    // A server message with a body GramJS parses: upload.File carrying size - 16 bytes.
    const body = gramjsUploadFile(new Uint8Array(Math.max(0, size - 16)).fill(3));
    const plaintext = mtprotoPlaintext(salt, sessionId, 0x60000000_5f000001n, 1, body);
    const packet = Buffer.from(server.encryptMessage(plaintext, { server: true }));
    const decrypt: Run = async (n) => {
      let x = 0;
      for (let i = 0; i < n; i++) {
        state.msgIds.length = 0;
        x ^= ((await state.decryptMessageData(packet)) as { seqNo: number }).seqNo;
      }
      return x;
    };
    pairs.push({ client: "GramJS", op: "encryptMessageData", size: label(size), use: useGram, stock: encrypt, native: encrypt });
    pairs.push({ client: "GramJS", op: "decryptMessageData", size: label(size), use: useGram, stock: decrypt, native: decrypt });
  }
  const chunk = Buffer.alloc(16384, 9);
  let ctr: Any = null;
  const ctrRun: Run = (n) => {
    let x = 0;
    for (let i = 0; i < n; i++) x ^= ctr.encrypt(chunk)[100];
    return x;
  };
  const useCtr = (native: boolean) => {
    useGram(native);
    ctr = new CTRModule.CTR(Buffer.alloc(32, 1), Buffer.alloc(16, 2)); // one transport stream, continued
  };
  pairs.push({ client: "GramJS", op: "obfuscated CTR chunk", size: "16 KiB", use: useCtr, stock: ctrRun, native: ctrRun });
  const pq = bigInt("1724114033281923457"); // core.telegram.org/mtproto/samples-auth_key
  const factorize: Run = (n) => {
    let x = 0;
    for (let i = 0; i < n; i++) x ^= Factorizator.factorize(pq).p.toJSNumber();
    return x;
  };
  pairs.push({ client: "GramJS", op: "Factorizator.factorize", size: "pq 64-bit", use: useGram, stock: factorize, native: factorize });
  return pairs;
}

/* ------------------------------------------------------------------------ */
/* mtcute                                                                   */

async function mtcutePairs(): Promise<Pair[]> {
  const keys = [await mtcuteAuthKey(new NodeCryptoProvider(), key), await mtcuteAuthKey(nativeCrypto(new NodeCryptoProvider()), key)];
  const salt = Long.fromInt(77), session = Long.fromInt(99);
  using server = new AuthKey(key);
  const pairs: Pair[] = [];
  for (const size of SIZES) {
    const message = new Uint8Array(16 + size).fill(5);
    new DataView(message.buffer).setUint32(12, size, true);
    const encrypt = (k: Any): Run => (n) => {
      let x = 0;
      for (let i = 0; i < n; i++) x ^= k.encryptMessage(message, salt, session)[30];
      return x;
    };
    const plaintext = new Uint8Array(32 + size).fill(3);
    const view = new DataView(plaintext.buffer);
    view.setInt32(8, 99, true), view.setInt32(12, 0, true), view.setUint32(28, size, true);
    const packet = server.encryptMessage(plaintext, { server: true });
    const decrypt = (k: Any): Run => (n) => {
      let x = 0;
      for (let i = 0; i < n; i++) k.decryptMessage(packet, session, (_id: unknown, seqNo: number) => (x ^= seqNo + 1));
      return x;
    };
    pairs.push({ client: "mtcute", op: "AuthKey.encryptMessage", size: label(size), stock: encrypt(keys[0]), native: encrypt(keys[1]) });
    pairs.push({ client: "mtcute", op: "AuthKey.decryptMessage", size: label(size), stock: decrypt(keys[0]), native: decrypt(keys[1]) });
  }
  return pairs;
}

/* ------------------------------------------------------------------------ */
/* Targets and report                                                       */

interface Target {
  client: string;
  what: string;
  ops: string[];
  size: string;
  min: number;
  runtimes?: string[];
}

const TARGETS: Target[] = [
  { client: "GramJS", what: "encrypt+decrypt 64 B", ops: ["encryptMessageData", "decryptMessageData"], size: "64 B", min: 8, runtimes: ["bun"] },
  { client: "GramJS", what: "encrypt+decrypt 512 KiB", ops: ["encryptMessageData", "decryptMessageData"], size: "512 KiB", min: 6, runtimes: ["bun"] },
  { client: "GramJS", what: "encrypt+decrypt 512 KiB", ops: ["encryptMessageData", "decryptMessageData"], size: "512 KiB", min: 30, runtimes: ["deno"] },
  { client: "GramJS", what: "obfuscated CTR 16 KiB", ops: ["obfuscated CTR chunk"], size: "16 KiB", min: 10 },
  { client: "mtcute", what: "encrypt+decrypt 64 B", ops: ["AuthKey.encryptMessage", "AuthKey.decryptMessage"], size: "64 B", min: 2, runtimes: ["bun", "deno"] },
  { client: "mtcute", what: "encrypt+decrypt 512 KiB", ops: ["AuthKey.encryptMessage", "AuthKey.decryptMessage"], size: "512 KiB", min: 3.5, runtimes: ["bun", "deno"] },
  // Node.js through the addon.
  { client: "GramJS", what: "encrypt+decrypt 64 B", ops: ["encryptMessageData", "decryptMessageData"], size: "64 B", min: 15, runtimes: ["node"] },
  { client: "GramJS", what: "encrypt+decrypt 512 KiB", ops: ["encryptMessageData", "decryptMessageData"], size: "512 KiB", min: 6, runtimes: ["node"] },
  { client: "mtcute", what: "encrypt+decrypt 64 B", ops: ["AuthKey.encryptMessage", "AuthKey.decryptMessage"], size: "64 B", min: 1.5, runtimes: ["node"] },
  { client: "mtcute", what: "encrypt+decrypt 512 KiB", ops: ["AuthKey.encryptMessage", "AuthKey.decryptMessage"], size: "512 KiB", min: 3, runtimes: ["node"] },
];

function fmtNs(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

function packageVersion(name: string): string {
  return JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), "utf8")).version;
}

const started = performance.now();
const results = await measure([...(await gramPairs()), ...(await mtcutePairs())]);
const lines = [
  `Clients bench — ${runtime.name} ${runtime.version}, tgcrypto-ffi ${version()} (${backend()}), ${cpuModel()}` +
    `${config.quick ? ", BENCH_QUICK" : ""}`,
  `telegram ${packageVersion("telegram")}, @mtcute/core ${packageVersion("@mtcute/core")} + @mtcute/node NodeCryptoProvider`,
  "",
  "| client | operation | size | stock | with tgcrypto-ffi | speedup |",
  "|---|---|---|---:|---:|---:|",
  ...results.map((r) =>
    `| ${r.client} | ${r.op} | ${r.size} | ${fmtNs(r.stockNs)} | ${fmtNs(r.nativeNs)} | ${r.speedup.toFixed(2)}x |`
  ),
  "",
  `| target (issue ${runtime.name === "node" ? "13; CTR: 8" : "8"}) | runtime | speedup | required | met |`,
  "|---|---|---:|---:|---|",
];
const targetResults = [];
for (const t of TARGETS) {
  if (t.runtimes && !t.runtimes.includes(runtime.name)) continue;
  const rows = results.filter((r) => r.client === t.client && t.ops.includes(r.op) && r.size === t.size);
  const speedup = rows.reduce((a, r) => a + r.stockNs, 0) / rows.reduce((a, r) => a + r.nativeNs, 0);
  const met = speedup >= t.min;
  targetResults.push({ ...t, runtime: runtime.name, speedup, met });
  lines.push(`| ${t.client} ${t.what} | ${runtime.name} | ${speedup.toFixed(2)}x | ≥ ${t.min}x | ${met ? "yes" : "NO"} |`);
}
console.log(lines.join("\n"));
console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s, checksum ${sinkChecksum()})`);
const resultsDir = resultsDirectory();
mkdirSync(resultsDir, { recursive: true });
writeFileSync(
  new URL(`clients-${runtime.name}.json`, resultsDir),
  JSON.stringify(
    {
      runtime,
      library: { version: version(), backend: backend() },
      cpu: cpuModel(),
      packages: { telegram: packageVersion("telegram"), "@mtcute/core": packageVersion("@mtcute/core"), "@mtcute/node": packageVersion("@mtcute/node") },
      config,
      date: new Date().toISOString(),
      results,
      targets: targetResults,
    },
    null,
    2,
  ) + "\n",
);
