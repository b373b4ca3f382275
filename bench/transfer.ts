/**
 * The transfer bench: what a file transfer costs the client's
 * CPU, stock vs with this library, for GramJS (telegram 2.26.22, default
 * ConnectionTCPFull), teleproto (1.229.0, GramJS's successor: the same
 * transport and installGramJS({ package: "teleproto" })) and mtcute (0.30.3,
 * default intermediate TcpTransport):
 *
 *   bun bench/transfer.ts        |   deno run -A bench/transfer.ts
 *
 * The loopback server (test/e2e/server/main.ts) runs in a process of its
 * own, in the same runtime; each client run is a fresh process (GramJS
 * stock, GramJS + installGramJS(), the same for teleproto, mtcute stock
 * NodeCryptoProvider, mtcute + nativeCrypto()) that connects, uploads 64 MiB of random bytes
 * (upload.saveBigFilePart: GramJS and teleproto in 128 KiB parts, mtcute in 512 KiB)
 * and downloads them back (upload.getFile, 512 KiB parts), checked on both
 * sides. Reported per run: wall time, MB/s (10^6 B/s) each way, the client's
 * CPU time (process.cpuUsage(): user + system, every thread of the process)
 * and the server's, apart. Each configuration runs BENCH_TRANSFER_RUNS times
 * (default 2, alternating; the run with the least client CPU is kept).
 *
 * Targets: client CPU per MiB with the library <= 1/5 of stock for GramJS,
 * <= 1/2 for mtcute; each is printed met or not, with the reason (teleproto,
 * whose stock IGE already encrypts through node:crypto, has its ratio printed
 * without a target). Writes
 * transfer-<runtime>.json in the results folder (bench/lib/results.ts). BENCH_QUICK=1: 8 MiB, one run.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import process from "node:process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

import { AuthKey, backend, ige256Decrypt, ige256Encrypt, sha256, version } from "../ts/mod.ts";
import { cpuModel, type RuntimeInfo, runtimeInfo } from "./lib/env.ts";
import { resultsDirectory } from "./lib/results.ts";

const runtime = runtimeInfo();
const quick = !!process.env.BENCH_QUICK && process.env.BENCH_QUICK !== "0";
const MIB = 1 << 20;
const SIZE = Number(process.env.BENCH_TRANSFER_MIB ?? (quick ? 8 : 64)) * MIB;
const RUNS = Number(process.env.BENCH_TRANSFER_RUNS ?? (quick ? 1 : 2));
const CHILD_TIMEOUT_MS = 15 * 60_000;

/** How each runtime runs a TypeScript file (one entry per runtime). */
const RUN_SCRIPT: Partial<Record<RuntimeInfo["name"], (script: string) => string[]>> = {
  bun: (script) => [script],
  deno: (script) => ["run", "-A", script],
  node: (script) => [script],
};
const script = (path: string) => fileURLToPath(new URL(path, import.meta.url));
function command(path: string): string[] {
  const run = RUN_SCRIPT[runtime.name];
  if (run === undefined) throw new Error(`bench/transfer.ts: no RUN_SCRIPT entry for ${runtime.name}`);
  return run(script(path));
}

/** Lines of a child's stdout, awaited one at a time. */
function lineReader(stream: NodeJS.ReadableStream): () => Promise<string> {
  const queue: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let closed = false;
  const lines = createInterface({ input: stream });
  lines.on("line", (line) => (waiting.length ? waiting.shift()!(line) : queue.push(line)));
  lines.on("close", () => {
    closed = true;
    for (const w of waiting.splice(0)) w("");
  });
  return () => (queue.length ? Promise.resolve(queue.shift()!) : closed ? Promise.resolve("") : new Promise((r) => waiting.push(r)));
}

interface Phase {
  ms: number;
  cpuUs: number;
}
interface Run {
  connect: Phase;
  upload: Phase;
  download: Phase;
  serverCpuUs: number;
  upload_method: string;
}
type Client = "gramjs" | "teleproto" | "mtcute";
const CLIENT_NAME: Record<Client, string> = { gramjs: "GramJS 2.26.22", teleproto: "teleproto 1.229.0", mtcute: "mtcute 0.30.3" };
type Mode = "stock" | "library";

// ---- the server process ----
const serverProcess = spawn(process.execPath, command("../test/e2e/server/main.ts"), { stdio: ["pipe", "pipe", "inherit"] });
const serverLine = lineReader(serverProcess.stdout!);
const ask = async (line: string): Promise<Record<string, unknown>> => {
  serverProcess.stdin!.write(`${line}\n`);
  return JSON.parse(await serverLine());
};
const addressLine = await serverLine();
if (!addressLine) throw new Error("the server process printed nothing");
const serverCpu = async () => {
  const { user, system } = (await ask("cpu")) as { user: number; system: number };
  return user + system;
};

/** One client run in its own process. */
async function runClient(client: Client, mode: Mode): Promise<Run> {
  const before = await serverCpu();
  const child = spawn(process.execPath, command("./transfer_client.ts"), {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, TRANSFER_CLIENT: JSON.stringify({ server: addressLine, client, mode, size: SIZE }) },
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
  let out = "";
  child.stdout!.on("data", (chunk) => (out += String(chunk)));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  clearTimeout(timer);
  const last = out.trim().split("\n").at(-1) ?? "";
  if (code !== 0 || !last.startsWith("{")) throw new Error(`${client} ${mode}: client exited with ${code}: ${out.slice(-500)}`);
  const result = JSON.parse(last) as { connect: Phase; upload: Phase; download: Phase; fileId: string; sha256: string; ok: boolean };
  if (!result.ok) {
    const stored = await ask(`file ${result.fileId}`);
    throw new Error(
      `${client} ${mode}: the downloaded file differs from the uploaded one (${last}); the server stored ` +
        `${JSON.stringify(stored)} (uploaded sha256 ${result.sha256}); server: ${JSON.stringify(await ask("stats"))}`,
    );
  }
  const stored = await ask(`file ${result.fileId}`);
  if (stored.sha256 !== result.sha256 || stored.size !== SIZE) throw new Error(`${client} ${mode}: the server stored a different file`);
  await ask(`forget ${result.fileId}`); // the server's memory stays bounded over the runs
  const after = await serverCpu();
  return { ...result, serverCpuUs: after - before, upload_method: stored.big ? "upload.saveBigFilePart" : "upload.saveFilePart" };
}

// ---- the runs: alternating stock / library per client ----
const started = Date.now();
const load = os.loadavg()[0]!;
const results = new Map<string, Run[]>();
for (const client of ["gramjs", "teleproto", "mtcute"] as const) {
  for (let i = 0; i < RUNS; i++) {
    for (const mode of ["stock", "library"] as const) {
      process.stderr.write(`${runtime.name}: ${client} ${mode} run ${i + 1}/${RUNS}...\n`);
      const run = await runClient(client, mode);
      const key = `${client}/${mode}`;
      results.set(key, [...(results.get(key) ?? []), run]);
    }
  }
}
const serverStats = await ask("stats");
await ask("stop").catch(() => undefined);
serverProcess.kill();

// ---- the floor: what the native crypto of the same traffic costs, in this process ----
/** CPU ms per MiB of `fn`, run until it has covered SIZE bytes in `part`-byte pieces. */
function floor(part: number, fn: (piece: Uint8Array) => void): number {
  const piece = new Uint8Array(part).fill(7);
  fn(piece); // warm
  const cpu = process.cpuUsage();
  for (let done = 0; done < SIZE; done += part) fn(piece);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / (SIZE / MIB);
}
const floorKey = new AuthKey(new Uint8Array(256).fill(3));
const message = new Uint8Array(32 + 512 * 1024);
new DataView(message.buffer).setUint32(28, 512 * 1024, true); // message_data_length
const sealed = floorKey.encryptMessage(message, { server: true });
const key32 = new Uint8Array(32).fill(1), iv32 = new Uint8Array(32).fill(2);
const floors: Record<Client, { upload: number; download: number }> = {
  // GramJS with installGramJS(): one AuthKey call per message (128 KiB parts up, 512 KiB down).
  gramjs: {
    upload: floor(128 * 1024, (p) => void floorKey.encryptMessage([p.subarray(0, 32), p])),
    download: floor(512 * 1024, () => void floorKey.decryptMessage(sealed)),
  },
  // teleproto with installGramJS({ package: "teleproto" }): GramJS's message layer and parts (set below).
  teleproto: { upload: 0, download: 0 },
  // mtcute with nativeCrypto(): its AuthKey hashes the message (msg_key) and runs the provider's IGE (512 KiB both ways).
  mtcute: {
    upload: floor(512 * 1024, (p) => void (sha256(p), ige256Encrypt(p, key32, iv32))),
    download: floor(512 * 1024, (p) => void (ige256Decrypt(p, key32, iv32), sha256(p))),
  },
};

floors.teleproto = floors.gramjs;

// ---- report ----
const mib = SIZE / MIB;
const transferCpu = (r: Run) => r.upload.cpuUs + r.download.cpuUs;
const best = (key: string) => results.get(key)!.reduce((a, b) => (transferCpu(b) < transferCpu(a) ? b : a));
const mbps = (ms: number) => SIZE / 1e6 / (ms / 1000);
const rows = [...results.keys()].map((key) => {
  const r = best(key);
  return {
    key,
    client: CLIENT_NAME[key.split("/")[0] as Client],
    mode: key.endsWith("stock") ? "stock" : "tgcrypto-ffi",
    uploadS: r.upload.ms / 1000,
    downloadS: r.download.ms / 1000,
    uploadMBps: mbps(r.upload.ms),
    downloadMBps: mbps(r.download.ms),
    clientCpuS: transferCpu(r) / 1e6,
    clientCpuMsPerMiB: transferCpu(r) / 1000 / mib,
    uploadCpuMsPerMiB: r.upload.cpuUs / 1000 / mib,
    downloadCpuMsPerMiB: r.download.cpuUs / 1000 / mib,
    serverCpuS: r.serverCpuUs / 1e6,
    uploadMethod: r.upload_method,
    runs: results.get(key)!,
  };
});
const row = (key: string) => rows.find((r) => r.key === key)!;
const TARGETS = [
  { client: "gramjs", name: "GramJS", limit: 1 / 5 },
  { client: "teleproto", name: "teleproto", limit: undefined },
  { client: "mtcute", name: "mtcute", limit: 1 / 2 },
] as const;
const targets = TARGETS.map(({ client, name, limit }) => {
  const stock = row(`${client}/stock`), lib = row(`${client}/library`);
  const ratio = lib.clientCpuMsPerMiB / stock.clientCpuMsPerMiB;
  if (limit === undefined) {
    const reason = `${(1 / ratio).toFixed(1)}x less client CPU per MiB (no target: its stock IGE encrypts through node:crypto)`;
    return { target: `${name}: client CPU per MiB, library / stock`, ratio, met: true, cryptoMsPerMiB: NaN, reason };
  }
  const met = ratio <= limit;
  // With the library, what is left is the native crypto (the floor, measured above) and the client's own work.
  const crypto = (floors[client].upload + floors[client].download) / 2; // per MiB moved (one up, one down)
  const own = lib.clientCpuMsPerMiB - crypto;
  const ownShare = own / stock.clientCpuMsPerMiB;
  const head = `with the library ${lib.clientCpuMsPerMiB.toFixed(2)} ms/MiB (stock ${stock.clientCpuMsPerMiB.toFixed(2)}), of which the ` +
    `native crypto is ~${crypto.toFixed(2)}: the other ${own.toFixed(2)} ms/MiB are ${name}'s own work (framing, copies)`;
  const reason = met
    ? `${(1 / ratio).toFixed(1)}x less client CPU per MiB`
    : ownShare > limit
    ? `${head}, ${ownShare.toFixed(3)} of stock by itself: even free crypto would miss ${limit.toFixed(3)}`
    : `${head}, ${ownShare.toFixed(3)} of stock; the native crypto's share tips it over ${limit.toFixed(3)}`;
  return { target: `${name}: client CPU per MiB with the library <= 1/${1 / limit} of stock`, ratio, met, cryptoMsPerMiB: crypto, reason };
});

const f = (v: number, digits = 2) => v.toFixed(digits);
console.log(`\n## Transfer: ${mib} MiB up + ${mib} MiB down through the loopback server (${runtime.name} ${runtime.version})\n`);
console.log(`CPU: ${cpuModel()} (${os.cpus().length} logical), backend ${backend()}, tgcrypto-ffi ${version()}, load average at start ${load.toFixed(2)}\n`);
console.log("| client | crypto | upload s (MB/s) | download s (MB/s) | client CPU s | client CPU ms/MiB (up / down) | server CPU s |");
console.log("|---|---|--:|--:|--:|--:|--:|");
for (const r of rows) {
  console.log(
    `| ${r.client} | ${r.mode} | ${f(r.uploadS)} (${f(r.uploadMBps, 1)}) | ${f(r.downloadS)} (${f(r.downloadMBps, 1)}) | ${f(r.clientCpuS)} | ` +
      `${f(r.clientCpuMsPerMiB)} (${f(r.uploadCpuMsPerMiB)} / ${f(r.downloadCpuMsPerMiB)}) | ${f(r.serverCpuS)} |`,
  );
}
console.log(
  `\nNative crypto of the same traffic, in this process (the floor): GramJS ${f(floors.gramjs.upload)} ms/MiB up, ` +
    `${f(floors.gramjs.download)} down (teleproto: the same); mtcute ${f(floors.mtcute.upload)} up, ${f(floors.mtcute.download)} down.`,
);
console.log("\n| target | library / stock | met? |");
console.log("|---|--:|---|");
for (const t of targets) {
  const verdict = Number.isNaN(t.cryptoMsPerMiB) ? "-" : t.met ? "yes" : "**no**";
  console.log(`| ${t.target} | ${f(t.ratio, 3)} | ${verdict}: ${t.reason} |`);
}

const out = fileURLToPath(resultsDirectory());
mkdirSync(out, { recursive: true });
writeFileSync(
  `${out}transfer-${runtime.name}.json`,
  `${
    JSON.stringify(
      {
        runtime: runtime.name,
        version: runtime.version,
        engine: runtime.engine,
        cpu: cpuModel(),
        cpus: os.cpus().length,
        backend: backend(),
        library: version(),
        date: new Date().toISOString(),
        loadAverageAtStart: load,
        seconds: (Date.now() - started) / 1000,
        sizeBytes: SIZE,
        runsPerConfiguration: RUNS,
        rows,
        cryptoFloorMsPerMiB: floors,
        targets,
        server: serverStats,
      },
      null,
      2,
    )
  }\n`,
);
console.log(`\nwrote ${out}transfer-${runtime.name}.json`);
process.exit(0);
