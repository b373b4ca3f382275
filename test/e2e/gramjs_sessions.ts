/**
 * Real GramJS sessions against the loopback server, one describe per
 * transport (GramJS's default ConnectionTCPFull and ConnectionTCPObfuscated),
 * for stock GramJS or with installGramJS() (gramjs_stock.e2e.ts,
 * gramjs_dropin.e2e.ts: one process each). GramJS's plain
 * ConnectionTCPAbridged is not used: in 2.26.22 it reads packets with
 * PromisedNetSockets.read(n), which returns what is buffered, so any answer
 * longer than one socket read breaks it (its obfuscated form reads exactly).
 */
import { Buffer } from "node:buffer";
import { createHash, randomBytes } from "node:crypto";
import { createRequire } from "node:module";

import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { installGramJS, isGramJSInstalled, uninstallGramJS } from "../../ts/clients/gramjs.ts";
import {
  API_ID,
  connectGramJS,
  gramDownload,
  type GramPackage,
  gramjs,
  type GramSession,
  type GramTransport,
  gramUpload,
} from "./clients/gramjs.ts";
import type { LoopbackServer } from "./server/server.ts";
import { startSessionServer } from "./server_lifetime.ts";
import { expectSame } from "../helpers/bytes.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** The file sent up and back: 3 MiB, 1 MiB for stock teleproto 214.1.7 (a node:crypto cipher per 16-byte block). */
const fileSize = (mode: string, pkg: GramPackage) => (mode === "stock" && pkg === "teleproto-latest" ? 1 : 3) << 20;
const TRANSPORT_NAME: Record<GramTransport, string> = { full: "full", abridged: "abridged", obfuscated: "obfuscated abridged" };

const keyId = (key: Uint8Array) => new Uint8Array(createHash("sha1").update(key).digest()).slice(12, 20);
/** SHA-256 in hex: megabyte arrays compared by digest (vitest's deep equality on them takes minutes). */
const digest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

export function gramjsSessions(mode: "stock" | "drop-in", pkg: GramPackage = "telegram"): void {
  const { version, bigInt } = gramjs(pkg);
  const label = `${pkg === "telegram" ? "GramJS" : "teleproto"} ${version}`;
  beforeAll(() => {
    if (mode === "drop-in") {
      const installed = installGramJS(pkg === "telegram" ? {} : { package: pkg });
      expect(installed.version).toBe(version);
    }
    else uninstallGramJS();
    expect(isGramJSInstalled()).toBe(mode === "drop-in");
  });
  afterAll(() => {
    uninstallGramJS();
  });

  // Stock teleproto's CTR asks node:crypto for "AES-256-CTR", a name Deno's node:crypto does not know: there,
  // stock teleproto cannot open the obfuscated transport at all (the drop-in's native CTR can).
  const stockCtrError = (() => {
    if (mode !== "stock" || pkg === "telegram") return undefined;
    const { CTR } = createRequire(import.meta.url)(`${pkg}/crypto/CTR`);
    try {
      new CTR(Buffer.alloc(32), Buffer.alloc(16));
      return undefined;
    } catch (error) {
      return error as Error & { code?: string };
    }
  })();

  for (const transport of ["full", "obfuscated"] as const) {
    if (transport === "obfuscated" && stockCtrError !== undefined) {
      test(`${label} (stock), ConnectionTCPObfuscated: stock CTR cannot start here (this runtime's node:crypto)`, () => {
        expect("Deno" in globalThis).toBe(true); // the one runtime where this is known
        expect(stockCtrError.code).toBe("ERR_CRYPTO_UNKNOWN_CIPHER");
      });
      continue;
    }
    describe(`${label} (${mode}), ${transport === "full" ? "ConnectionTCPFull (default)" : "ConnectionTCPObfuscated"}`, () => {
      let server: LoopbackServer;
      let session: GramSession;
      beforeAll(async () => {
        server = await startSessionServer(`${label} ${mode} ${transport}`);
        session = await connectGramJS(server, transport, pkg);
      });
      afterAll(async () => {
        await session?.close();
        await server?.stop();
      });

      test("connects, creates an auth key (RSA_PAD), invokeWithLayer(initConnection(help.getConfig))", async () => {
        const { stats } = server;
        expectSame(stats.transportErrors, []);
        expect(stats.transports[0]).toBe(TRANSPORT_NAME[transport]);
        const made = stats.handshakes.at(-1)!;
        expect(made.scheme).toBe("rsa_pad");
        expect(made.inner).toBe("p_q_inner_data");
        // An exchange is repeated only when its key began with a zero byte (1 in 256): GramJS strips it
        // (getByteArray), fails the new_nonce_hash check and starts again.
        for (const retried of stats.handshakes.slice(0, -1)) expect(retried.leadingZero).toBe(true);
        const first = stats.calls[0]!;
        expect(first.method).toBe("help.getConfig");
        expect(first.layer).toBe(session.layer);
        expect(first.initConnection?.apiId).toBe(API_ID);
        expect(first.error).toBeUndefined();
        const config = await session.client.invoke(new session.Api.help.GetConfig());
        expect(config).toBeInstanceOf(session.Api.Config);
        expect(config.thisDc).toBe(server.dcId);
        expect(config.dcOptions.map((dc: Any) => [dc.id, dc.ipAddress, dc.port])).toContainEqual([server.dcId, server.host, server.port]);
        expect(stats.gzipSent).toBeGreaterThan(0); // the Config went gzip_packed
        expectSame(stats.unknown, []);
      });

      test("both sides derive the same auth key", () => {
        const key = session.authKey();
        expect(key.length).toBe(256);
        expectSame(server.authKey(keyId(key)), key);
      });

      test("bad_server_salt: the first request is refused and GramJS resends it with the new salt", () => {
        const { stats } = server;
        expect(stats.badServerSalts.length).toBeGreaterThan(0);
        expect(stats.badServerSalts[0]!.contents).toContain("help.getConfig");
        expect(stats.newSessions.length).toBeGreaterThan(0);
        expect(stats.calls.filter((c) => c.method === "help.getConfig" && c.error === undefined).length).toBeGreaterThan(0);
      });

      test("ping/pong, msg_container both ways, msgs_ack", async () => {
        const before = { pings: server.stats.pings, containers: server.stats.containersReceived };
        const [pong1, pong2, config] = await Promise.all([
          session.client.invoke(new session.Api.Ping({ pingId: bigInt(1234567) })),
          session.client.invoke(new session.Api.Ping({ pingId: bigInt(-7654321) })),
          session.client.invoke(new session.Api.help.GetConfig()),
        ]);
        expect(pong1.pingId.toString()).toBe("1234567");
        expect(pong2.pingId.toString()).toBe("-7654321");
        expect(config.thisDc).toBe(server.dcId);
        expect(server.stats.pings - before.pings).toBe(2);
        expect(server.stats.containersReceived).toBeGreaterThan(before.containers); // queued together
        expect(server.stats.containersSent).toBeGreaterThan(0); // new_session_created + rpc_result
        await session.client.invoke(new session.Api.help.GetConfig()); // carries the acks of the answers above
        expect([...server.stats.results].some((id) => server.stats.acked.has(id))).toBe(true);
      });

      const size = fileSize(mode, pkg);
      test(`uploads a random ${size >> 20} MiB file and downloads it back byte-identical (512 KiB upload.getFile parts)`, async () => {
        const data = new Uint8Array(randomBytes(size));
        const { fileId } = await gramUpload(session, data, "random.bin", pkg);
        expectSame(server.upload(fileId), { big: false, parts: size >> 17, totalParts: undefined, size }); // 128 KiB saveFilePart
        expect(digest(server.file(fileId))).toBe(digest(data));
        const back = await gramDownload(session, fileId, data.length, pkg);
        expect(back.length).toBe(data.length);
        expect(digest(back)).toBe(digest(data));
        const gets = server.stats.calls.filter((c) => c.method === "upload.getFile");
        expect(gets.length).toBeGreaterThanOrEqual(size >> 19);
        for (const get of gets) expect(get.detail?.limit).toBe(512 * 1024), expect(get.error).toBeUndefined();
        expect(server.stats.largestFrame).toBeGreaterThan(128 * 1024);
        expect(server.stats.framesAcrossReads).toBeGreaterThan(0); // reassembled from several socket reads
      });

      test("the server rejects a tampered client packet (MtprotoSecurityError); GramJS reconnects and resends", async () => {
        const { stats } = server;
        const rejected = stats.rejectedClientPackets.length, connections = stats.connections;
        server.tamperNextClientPacket();
        const config = await session.client.invoke(new session.Api.help.GetConfig());
        expect(config.thisDc).toBe(server.dcId);
        expectSame(stats.rejectedClientPackets.slice(rejected), [{ error: "MtprotoSecurityError", message: "MTProto message rejected", tampered: true }]);
        expect(stats.connections).toBeGreaterThan(connections);
      });

      test("GramJS rejects a tampered server packet (SecurityError: msg_key) and takes the genuine one", async () => {
        const logged = session.log.length, tampered = server.stats.tamperedServerPackets;
        server.tamperNextServerPacket();
        const config = await session.client.invoke(new session.Api.help.GetConfig());
        expect(config.thisDc).toBe(server.dcId);
        expect(server.stats.tamperedServerPackets).toBe(tampered + 1);
        expect(session.log.slice(logged)).toContain(
          "warn: Security error while unpacking a received message: Error: Received msg_key doesn't match with expected one",
        );
      });

      test("the whole session: no transport error, no unknown constructor, no RPC error but the ones asked for", () => {
        const { stats } = server;
        expectSame(stats.transportErrors, []);
        // teleproto 1.229 (layer 229) asks for updates.getDifference in that layer's form (#19c2f763), which the
        // loopback server does not know: its one unknown constructor, every time. Nothing else may be unknown.
        expectSame([...new Set(stats.unknown)], pkg === "teleproto" ? ["#19c2f763"] : []);
        expect(stats.unknownAuthKeys).toBe(0);
        expectSame(stats.badMsgNotifications, []);
        // GramJS asks for itself (users.getUsers) after each reconnect; nobody is logged in
        // (and the server's answer to teleproto 1.229's getDifference above)
        const asked = (c: Any) =>
          (c.method === "users.getUsers" && c.error === "AUTH_KEY_UNREGISTERED") ||
          (pkg === "teleproto" && c.error === "INPUT_METHOD_INVALID_19c2f763");
        expect(stats.calls.filter((c) => c.error !== undefined && !asked(c))).toEqual([]);
      });
    });
  }
}
