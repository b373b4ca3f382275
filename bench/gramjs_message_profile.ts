/**
 * The 64 B GramJS message in one runtime, for profiling: encryptMessageData
 * and decryptMessageData of a 64-byte message body (as bench/clients.ts's
 * 64 B rows), `BENCH_PROFILE_N` times (default 200000) each, with the
 * drop-in installed, then stock (a tenth as many; BENCH_PROFILE_STOCK=0:
 * not at all, to profile the drop-in alone), printing ns per call.
 * Run it under a profiler to see what of a call is the patch's own work
 * and what is GramJS's:
 *
 *   BENCH_PROFILE_STOCK=0 node --cpu-prof --cpu-prof-dir=/tmp/prof bench/gramjs_message_profile.ts
 */
import { Buffer } from "node:buffer";
import { createRequire } from "node:module";
import process from "node:process";

import { installGramJS, uninstallGramJS } from "../ts/clients/gramjs.ts";
import { AuthKey } from "../ts/mod.ts";
import { gramjsStock, gramjsUploadFile, mtprotoPlaintext } from "./impl/stock_clients.ts";

// deno-lint-ignore no-explicit-any
type Any = any;
const N = Number(process.env.BENCH_PROFILE_N ?? 200_000);
const key = new Uint8Array(256).map((_, i) => (i * 73 + 11) & 0xff);
const salt = new Uint8Array(8).fill(21), sessionId = new Uint8Array(8).fill(42);
const state = await gramjsStock(key, salt, sessionId);
const server = new AuthKey(key);
const data = Buffer.alloc(16 + 64, 5);
data.writeInt32LE(64, 12);
const plaintext = mtprotoPlaintext(salt, sessionId, 0x60000000_5f000001n, 1, gramjsUploadFile(new Uint8Array(48).fill(3)));
const packet = Buffer.from(server.encryptMessage(plaintext, { server: true }));

async function run(what: string, n: number): Promise<void> {
  let x = 0;
  let start = performance.now();
  for (let i = 0; i < n; i++) x ^= (await state.encryptMessageData(data))[30]!;
  const encrypt = ((performance.now() - start) * 1e6) / n;
  start = performance.now();
  for (let i = 0; i < n; i++) {
    state.msgIds.length = 0;
    x ^= ((await state.decryptMessageData(packet)) as { seqNo: number }).seqNo;
  }
  const decrypt = ((performance.now() - start) * 1e6) / n;
  console.log(`${what}: encryptMessageData ${encrypt.toFixed(0)} ns, decryptMessageData ${decrypt.toFixed(0)} ns (${x & 1})`);
}

// The drop-in as installed (native padding), and with GramJS's random source replaced by a function that
// calls it (the drop-in then takes its padding from GramJS, as before native padding): alternately.
const Helpers: Any = createRequire(import.meta.url)("telegram/Helpers");
const gramRandom = Helpers.generateRandomBytes;
installGramJS();
await run("warm-up", N / 10);
for (let round = 0; round < 3; round++) {
  await run("drop-in, native padding", N);
  Helpers.generateRandomBytes = (count: number) => gramRandom(count);
  await run("drop-in, padding from GramJS's generateRandomBytes", N);
  Helpers.generateRandomBytes = gramRandom;
}
uninstallGramJS();
if (process.env.BENCH_PROFILE_STOCK !== "0") await run("stock", Math.max(1, N / 10));
