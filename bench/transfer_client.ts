/**
 * One client of bench/transfer.ts, in a process of its own: connects GramJS,
 * teleproto or mtcute (stock, or with this library) to the loopback server process,
 * uploads `size` random bytes, downloads them back, checks them, and prints
 * one JSON line: wall time and process.cpuUsage() of each phase.
 *
 * Its input is the TRANSFER_CLIENT environment variable (JSON):
 *   { "server": <server/main.ts's first line>, "client": "gramjs" | "teleproto" | "mtcute",
 *     "mode": "stock" | "library", "size": bytes }
 */
import { createHash, randomBytes } from "node:crypto";
import process from "node:process";

import { NodeCryptoProvider } from "@mtcute/node/utils.js";

import { installGramJS } from "../ts/clients/gramjs.ts";
import { nativeCrypto } from "../ts/clients/mtcute.ts";
import { parseServerAddress } from "../test/e2e/clients/address.ts";
import { connectGramJS, gramDownload, gramUpload } from "../test/e2e/clients/gramjs.ts";
import { connectMtcute, mtcuteDownload, mtcuteUpload } from "../test/e2e/clients/mtcute.ts";

interface Args {
  server: string;
  client: "gramjs" | "teleproto" | "mtcute";
  mode: "stock" | "library";
  size: number;
}
const args = JSON.parse(process.env.TRANSFER_CLIENT ?? "{}") as Args;
const server = parseServerAddress(args.server);

/** Wall time (ms) and CPU time of this process (µs, user + system) of one phase. */
async function phase<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; cpuUs: number }> {
  const cpu = process.cpuUsage(), start = performance.now();
  const value = await fn();
  const used = process.cpuUsage(cpu);
  return { value, ms: performance.now() - start, cpuUs: used.user + used.system };
}

const data = new Uint8Array(randomBytes(args.size));
const digest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
let session: { close(): Promise<void> };
let result: Record<string, unknown>;
if (args.client === "gramjs" || args.client === "teleproto") {
  const pkg = args.client === "gramjs" ? "telegram" : "teleproto";
  if (args.mode === "library") installGramJS({ package: pkg });
  const connect = await phase(() => connectGramJS(server, "full", pkg));
  session = connect.value;
  const upload = await phase(() => gramUpload(connect.value, data, "random.bin", pkg));
  const download = await phase(() => gramDownload(connect.value, upload.value.fileId, data.length, pkg));
  result = { connect, upload, download, fileId: upload.value.fileId, ok: digest(download.value) === digest(data), back: download.value };
} else {
  const crypto = args.mode === "library" ? nativeCrypto(new NodeCryptoProvider()) : new NodeCryptoProvider();
  const connect = await phase(() => connectMtcute(server, crypto));
  session = connect.value;
  const upload = await phase(() => mtcuteUpload(connect.value, data));
  const download = await phase(() => mtcuteDownload(connect.value, upload.value.fileId, data.length));
  result = { connect, upload, download, fileId: upload.value.fileId, ok: digest(download.value) === digest(data), back: download.value };
}
/** Where the download first differs from the upload (for the error report). */
function firstDifference(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : Math.min(a.length, b.length);
}
const strip = (p: unknown) => {
  const { ms, cpuUs } = p as { ms: number; cpuUs: number };
  return { ms, cpuUs };
};
process.stdout.write(
  `${JSON.stringify({
    connect: strip(result.connect),
    upload: strip(result.upload),
    download: strip(result.download),
    fileId: String(result.fileId),
    sha256: digest(data),
    ok: result.ok,
    ...(result.ok ? {} : { downloadedBytes: (result.back as Uint8Array).length, firstDifference: firstDifference(result.back as Uint8Array, data) }),
  })}\n`,
);
await session.close();
process.exit(0);
