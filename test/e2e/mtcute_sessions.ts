/**
 * Real mtcute sessions against the loopback server, one describe per
 * transport (mtcute's default TcpTransport with the intermediate codec, and
 * its ObfuscatedPacketCodec around intermediate and padded intermediate),
 * plus a key exchange with a key mtcute marks "old" (the legacy RSA
 * scheme), for the stock NodeCryptoProvider or nativeCrypto() around one
 * (mtcute_stock.e2e.ts, mtcute_dropin.e2e.ts: one process each).
 */
import { createHash, randomBytes } from "node:crypto";

import { NodeCryptoProvider } from "@mtcute/node/utils.js";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";

import { nativeCrypto } from "../../ts/clients/mtcute.ts";
import { API_ID, connectMtcute, mtcuteDownload, type MtcuteSession, type MtcuteTransport, mtcuteUpload } from "./clients/mtcute.ts";
import type { LoopbackServer } from "./server/server.ts";
import { startSessionServer } from "./server_lifetime.ts";
import { expectSame } from "../helpers/bytes.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const FILE_SIZE = 3 << 20;
const PART = 512 * 1024;
const TRANSPORT_NAME: Record<MtcuteTransport, string> = {
  intermediate: "intermediate",
  obfuscated: "obfuscated intermediate",
  "obfuscated padded": "obfuscated padded intermediate",
};

const keyId = (key: Uint8Array) => new Uint8Array(createHash("sha1").update(key).digest()).slice(12, 20);
/** SHA-256 in hex: megabyte arrays compared by digest (vitest's deep equality on them takes minutes). */
const digest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function provider(mode: "stock" | "drop-in"): Any {
  const stock = new NodeCryptoProvider();
  if (mode === "stock") return stock;
  const native = nativeCrypto(stock);
  for (const name of ["createAesIge", "createAesCtr", "sha1", "sha256", "factorizePQ"] as const) {
    expect(native[name]).not.toBe(NodeCryptoProvider.prototype[name]); // the native members are in place
  }
  return native;
}

/**
 * The key exchange that made the session's key: [scheme, inner data, dc]. An exchange is repeated only when
 * its key began with a zero byte (1 in 256): both clients strip it (a 255-byte key), fail the
 * new_nonce_hash check and start again.
 */
function completedKey(stats: LoopbackServer["stats"]): [string, string, number | undefined] {
  const last = stats.handshakes.at(-1)!;
  for (const retried of stats.handshakes.slice(0, -1)) expect(retried.leadingZero).toBe(true);
  return [last.scheme, last.inner, last.dc];
}

export function mtcuteSessions(mode: "stock" | "drop-in"): void {
  for (const transport of ["intermediate", "obfuscated", "obfuscated padded"] as const) {
    describe(`mtcute 0.30.3 (${mode}), ${transport === "intermediate" ? "TcpTransport (default, intermediate)" : `ObfuscatedPacketCodec (${transport})`}`, () => {
      let server: LoopbackServer;
      let session: MtcuteSession;
      beforeAll(async () => {
        server = await startSessionServer(`mtcute ${mode} ${transport}`);
        session = await connectMtcute(server, provider(mode), transport);
      });
      afterAll(async () => {
        await session?.close();
        await server?.stop();
      });

      test("connects, creates an auth key (RSA_PAD, p_q_inner_data_dc), invokeWithLayer(initConnection(help.getConfig))", async () => {
        const config = await session.client.call({ _: "help.getConfig" });
        const { stats } = server;
        expectSame(stats.transportErrors, []);
        expect(stats.transports[0]).toBe(TRANSPORT_NAME[transport]);
        expectSame(completedKey(stats), ["rsa_pad", "p_q_inner_data_dc", server.dcId]);
        const first = stats.calls[0]!;
        expect(first.method).toBe("help.getConfig");
        expect(first.layer).toBe(session.layer);
        expect(first.initConnection?.apiId).toBe(API_ID);
        expect(config._).toBe("config");
        expect(config.thisDc).toBe(server.dcId);
        expect(config.dcOptions.map((dc: Any) => [dc.id, dc.ipAddress, dc.port])).toContainEqual([server.dcId, server.host, server.port]);
        expect(stats.gzipSent).toBeGreaterThan(0); // the Config went gzip_packed (mtcute's gunzip: the provider's own)
        expectSame(stats.unknown, []);
      });

      test("both sides derive the same auth key", () => {
        const key = session.authKey()!;
        expect(key.length).toBe(256);
        expectSame(server.authKey(keyId(key)), key);
      });

      test("bad_server_salt retried, new_session_created, future_salts and mtcute's pings answered", async () => {
        const { stats } = server;
        expect(stats.badServerSalts.length).toBeGreaterThan(0);
        expect(stats.badServerSalts[0]!.contents).toContain("help.getConfig");
        expect(stats.newSessions.length).toBeGreaterThan(0);
        expect(stats.futureSalts).toBeGreaterThan(0);
        // mtcute pings on its own timer: a fast run can get here before the first one.
        await vi.waitFor(() => expect(stats.pings).toBeGreaterThan(0), { timeout: 90_000, interval: 100 });
        expect(stats.containersReceived).toBeGreaterThan(0); // get_future_salts + the call, at least
        expect(stats.containersSent).toBeGreaterThan(0);
      });

      test("uploads a random 3 MiB file (saveFilePart) and downloads it back byte-identical in 512 KiB parts", async () => {
        const data = new Uint8Array(randomBytes(FILE_SIZE));
        const { fileId } = await mtcuteUpload(session, data);
        expectSame(server.upload(fileId), { big: false, parts: FILE_SIZE / PART, totalParts: undefined, size: FILE_SIZE });
        expect(digest(server.file(fileId))).toBe(digest(data));
        const back = await mtcuteDownload(session, fileId, data.length);
        expect(back.length).toBe(data.length);
        expect(digest(back)).toBe(digest(data));
        const gets = server.stats.calls.filter((c) => c.method === "upload.getFile");
        expect(gets.length).toBe(FILE_SIZE / PART);
        for (const get of gets) expect(get.detail?.limit).toBe(PART), expect(get.error).toBeUndefined();
        expect(server.stats.largestFrame).toBeGreaterThan(PART);
        expect(server.stats.framesAcrossReads).toBeGreaterThan(0); // reassembled from several socket reads
        expect([...server.stats.results].some((id) => server.stats.acked.has(id))).toBe(true); // msgs_ack
      });

      test("uploads a stream of unknown size: saveBigFilePart, file_total_parts -1 until the last part", async () => {
        // Not a multiple of the part size: the last part is short, so mtcute knows it is the last.
        const data = new Uint8Array(randomBytes(FILE_SIZE - 1000));
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            for (let i = 0; i < data.length; i += 100_000) controller.enqueue(data.slice(i, i + 100_000));
            controller.close();
          },
        });
        const uploaded = await session.client.uploadFile({ file: stream, fileName: "stream.bin", partSize: 512 });
        const fileId = BigInt(uploaded.inputFile.id.toString());
        expect(uploaded.inputFile._).toBe("inputFileBig");
        expectSame(server.upload(fileId), { big: true, parts: FILE_SIZE / PART, totalParts: FILE_SIZE / PART, size: data.length });
        const parts = server.stats.calls.filter((c) => c.method === "upload.saveBigFilePart").map((c) => c.detail!.totalParts);
        expectSame(parts, [-1, -1, -1, -1, -1, FILE_SIZE / PART]);
        expect(digest(server.file(fileId))).toBe(digest(data));
      });

      test("the server rejects a tampered client packet (MtprotoSecurityError); mtcute reconnects and resends", async () => {
        const { stats } = server;
        const rejected = stats.rejectedClientPackets.length, connections = stats.connections;
        server.tamperNextClientPacket();
        const config = await session.client.call({ _: "help.getConfig" });
        expect(config.thisDc).toBe(server.dcId);
        expectSame(stats.rejectedClientPackets.slice(rejected), [{ error: "MtprotoSecurityError", message: "MTProto message rejected", tampered: true }]);
        expect(stats.connections).toBeGreaterThan(connections);
      });

      test("mtcute rejects a tampered server packet (invalid messageKey) and takes the genuine one", async () => {
        const logged = session.log.length, tampered = server.stats.tamperedServerPackets;
        server.tamperNextServerPacket();
        const config = await session.client.call({ _: "help.getConfig" });
        expect(config.thisDc).toBe(server.dcId);
        expect(server.stats.tamperedServerPackets).toBe(tampered + 1);
        const warnings = session.log.slice(logged).filter((line) => line.includes("invalid messageKey"));
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/^warn: \[.*\] received message with invalid messageKey = [0-9a-f]{32} \(expected [0-9a-f]{32}\)$/);
      });

      test("the whole session: no transport error, no unknown constructor, no RPC error", () => {
        const { stats } = server;
        expectSame(stats.transportErrors, []);
        expectSame(stats.unknown, []);
        expect(stats.unknownAuthKeys).toBe(0);
        expectSame(stats.badMsgNotifications, []);
        expectSame(stats.calls.filter((c) => c.error !== undefined), []);
      });
    });
  }

  describe(`mtcute 0.30.3 (${mode}), a server key mtcute marks "old": the legacy RSA scheme`, () => {
    let server: LoopbackServer;
    let session: MtcuteSession;
    beforeAll(async () => {
      server = await startSessionServer(`mtcute ${mode} legacy RSA`, { advertise: ["legacy"] });
      session = await connectMtcute(server, provider(mode));
    });
    afterAll(async () => {
      await session?.close();
      await server?.stop();
    });

    test("sha1 + data + padding under RSA, then help.getConfig; the same key on both sides", async () => {
      const config = await session.client.call({ _: "help.getConfig" });
      expect(config.thisDc).toBe(server.dcId);
      expectSame(completedKey(server.stats), ["legacy", "p_q_inner_data_dc", server.dcId]);
      const key = session.authKey()!;
      expectSame(server.authKey(keyId(key)), key);
    });
  });
}
