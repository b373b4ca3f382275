/**
 * The loopback server as a process of its own (bench/transfer.ts runs it, so
 * that its CPU is measured apart from the client's):
 *
 *   bun test/e2e/server/main.ts    |   deno run -A test/e2e/server/main.ts
 *
 * Prints one JSON line (host, port, dcId, the test RSA public keys), then
 * answers commands on stdin, one per line, each with one JSON line:
 *   cpu          process.cpuUsage() of this process (µs)
 *   file <id>    the stored upload of that file_id: how it came, its size and SHA-256
 *   forget <id>  drops that upload
 *   stats        what the server observed (counts)
 *   tamper-server [offset]   the next packet to a client goes first with a bit flipped, then intact
 *   tamper-client [offset]   the next packet from a client gets a bit flipped before decryption
 *   stop         stops and exits
 * E2E_ADVERTISE: the RSA keys resPQ lists, by scheme, comma-separated (default rsa_pad;
 * "rsa_pad,legacy" for clients that wrap p_q_inner_data in the older SHA-1 + data + padding).
 * It also stops when stdin closes and after E2E_SERVER_TIMEOUT_MS (default
 * 15 min; exit code 2 then). Listens on 127.0.0.1 only.
 */
import { createHash } from "node:crypto";
import process from "node:process";
import { createInterface } from "node:readline";

import type { RsaScheme } from "./rsa.ts";
import { startServer } from "./server.ts";

const advertise = (process.env.E2E_ADVERTISE ?? "rsa_pad").split(",").map((s) => s.trim());
for (const scheme of advertise) {
  if (scheme !== "rsa_pad" && scheme !== "legacy") throw new Error(`E2E_ADVERTISE: unknown scheme ${scheme} (rsa_pad, legacy)`);
}
const server = await startServer({
  timeoutMs: Number(process.env.E2E_SERVER_TIMEOUT_MS ?? 15 * 60_000),
  advertise: advertise as RsaScheme[],
});
const reply = (value: unknown) => process.stdout.write(`${JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v))}\n`);
reply({
  host: server.host,
  port: server.port,
  dcId: server.dcId,
  rsaKeys: Object.fromEntries(
    Object.entries(server.rsaKeys).map(([scheme, key]) => [scheme, {
      fingerprint: key.fingerprint.toString(),
      n: key.n.toString(16),
      e: key.e.toString(16),
      publicPem: key.publicPem,
    }]),
  ),
});

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const [command, argument] = line.trim().split(/\s+/);
  if (command === "cpu") reply(process.cpuUsage());
  else if (command === "file") {
    const id = BigInt(argument ?? "0");
    const upload = server.upload(id);
    reply(upload === undefined ? { error: "no such file" } : { ...upload, sha256: createHash("sha256").update(server.file(id)).digest("hex") });
  } else if (command === "forget") reply({ forgotten: server.forget(BigInt(argument ?? "0")) });
  else if (command === "stats") {
    const { stats } = server;
    const methods: Record<string, number> = {};
    for (const call of stats.calls) methods[call.method] = (methods[call.method] ?? 0) + 1;
    reply({
      connections: stats.connections,
      transports: [...new Set(stats.transports)],
      handshakes: stats.handshakes.length,
      methods,
      errors: stats.calls.filter((c) => c.error !== undefined).map((c) => `${c.method}: ${c.error}`),
      transportErrors: stats.transportErrors,
      rejectedClientPackets: stats.rejectedClientPackets.length,
      tamperedServerPackets: stats.tamperedServerPackets,
      handshakeSchemes: stats.handshakes.map((h) => h.scheme),
      unknown: stats.unknown,
      badServerSalts: stats.badServerSalts.length,
      framesAcrossReads: stats.framesAcrossReads,
      bytesIn: stats.bytesIn,
      bytesOut: stats.bytesOut,
    });
  } else if (command === "tamper-server" || command === "tamper-client") {
    const offset = argument === undefined ? undefined : Number(argument);
    if (command === "tamper-server") server.tamperNextServerPacket(offset);
    else server.tamperNextClientPacket(offset);
    reply({ armed: command });
  } else if (command === "stop") void server.stop();
  else reply({ error: `unknown command ${command}` });
});
lines.on("close", () => void server.stop());
const why = await server.stopped;
process.exit(why === "timeout" ? 2 : 0);
