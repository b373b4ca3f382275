/**
 * The loopback MTProto 2.0 server: a test fixture that GramJS and mtcute
 * connect to as they connect to Telegram. It listens on 127.0.0.1 only, on
 * an ephemeral port, and stops by itself after `timeoutMs` (or on
 * {@link LoopbackServer.stop}).
 *
 *   transport.ts   transports, detected from the first bytes (obfuscated CTR layer included)
 *   handshake.ts   the auth key exchange (rsa.ts: the test RSA keys)
 *   session.ts     the encrypted layer, on the library's server-direction AuthKey
 *   methods.ts     help.getConfig, upload.saveFilePart / saveBigFilePart / getFile (files.ts), ...
 *   stats.ts       what it observed, for the tests
 */
import { createServer, type Socket } from "node:net";

import { AuthKey } from "../../../ts/mod.ts";
import { HandshakeError, Handshakes, type NewAuthKey } from "./handshake.ts";
import { Methods } from "./methods.ts";
import { hex } from "./numbers.ts";
import { generateRsaKey, type RsaScheme, type ServerRsaKey } from "./rsa.ts";
import { type Controls, type KeyRecord, type Link, newKeyRecord, serverMsgId, SessionLayer } from "./session.ts";
import { ServerStats } from "./stats.ts";
import { readHandshakeRequest, TlError, TlReader, UnknownConstructorError } from "./tl.ts";
import { ServerTransport, TransportError } from "./transport.ts";

export const HOST = "127.0.0.1";

export interface ServerOptions {
  /** The DC this server is (Config.this_dc). Default 2. */
  readonly dcId?: number;
  /** The keys resPQ advertises, by scheme, in this order. Default ["rsa_pad"]. */
  readonly advertise?: readonly RsaScheme[];
  /** Stop by itself after this long. Default 120 s. */
  readonly timeoutMs?: number;
}

export interface LoopbackServer {
  readonly host: typeof HOST;
  readonly port: number;
  readonly dcId: number;
  /** The test RSA keys (generated at start): one for each scheme. */
  readonly rsaKeys: Readonly<Record<RsaScheme, ServerRsaKey>>;
  readonly stats: ServerStats;
  /** The auth key the server derived for this auth_key_id (8 bytes), if any. */
  authKey(id: Uint8Array): Uint8Array | undefined;
  /** The file uploaded with this file_id, as the server stored it. */
  file(fileId: bigint): Uint8Array;
  /** How it was uploaded: saveBigFilePart or saveFilePart, how many parts. */
  upload(fileId: bigint): { big: boolean; parts: number; totalParts?: number; size: number } | undefined;
  /** Drops an uploaded file. */
  forget(fileId: bigint): boolean;
  /** The next encrypted packet from any client gets bit 0 of byte `offset` flipped before decryption. */
  tamperNextClientPacket(offset?: number): void;
  /** The next encrypted packet to any client is sent first with bit 0 of byte `offset` flipped, then intact. */
  tamperNextServerPacket(offset?: number): void;
  /** Drops every open connection (the clients reconnect). */
  dropConnections(): void;
  stop(): Promise<void>;
  /** Resolves when the server has stopped, with why. */
  readonly stopped: Promise<"stopped" | "timeout">;
}

export async function startServer(options: ServerOptions = {}): Promise<LoopbackServer> {
  const dcId = options.dcId ?? 2;
  const rsaKeys = { rsa_pad: generateRsaKey("rsa_pad"), legacy: generateRsaKey("legacy") };
  const stats = new ServerStats();
  const keys = new Map<string, KeyRecord>();
  const controls: Controls = { tamperClient: null, tamperServer: null };
  let port = 0;
  const methods = new Methods(dcId, () => [{ id: dcId, ipAddress: HOST, port }, { id: dcId, ipAddress: HOST, port, mediaOnly: true }]);
  const sessions = new SessionLayer(keys, methods, stats, controls);
  const handshakes = new Handshakes((options.advertise ?? ["rsa_pad"]).map((scheme) => rsaKeys[scheme]), (made: NewAuthKey) => {
    keys.set(hex(made.id), newKeyRecord(made.key, made.id, new AuthKey(made.key)));
    stats.handshakes.push({ keyId: hex(made.id), scheme: made.scheme, inner: made.inner, dc: made.dc, leadingZero: made.key[0] === 0 });
  });
  const sockets = new Set<Socket>();

  const onConnection = (socket: Socket) => {
    sockets.add(socket);
    stats.connections++;
    socket.setNoDelay(true);
    const transport = new ServerTransport();
    let named = false;
    let counted = 0; // transport.framesAcrossReads already added to stats
    const link: Link = {
      get transport() {
        return transport.name ?? "(unknown)";
      },
      send(packet) {
        const bytes = transport.encode(packet);
        stats.bytesOut += bytes.length;
        socket.write(bytes);
      },
      sendTransportError(code) {
        socket.write(transport.encodeError(code));
      },
      close() {
        socket.destroy();
      },
    };
    socket.on("data", (chunk: Uint8Array) => {
      stats.bytesIn += chunk.length;
      try {
        const frames = transport.feed(chunk);
        if (!named && transport.name !== undefined) stats.transports.push(transport.name), named = true;
        for (const frame of frames) {
          if (socket.destroyed) break;
          if (frame.length >= 8 && frame.subarray(0, 8).every((b) => b === 0)) unencrypted(link, frame);
          else if (frame.length >= 8) sessions.handle(link, frame);
          else throw new TransportError(`a ${frame.length}-byte frame`);
        }
      } catch (error) {
        if (!(error instanceof TransportError || error instanceof HandshakeError || error instanceof TlError || error instanceof UnknownConstructorError)) {
          stats.transportErrors.push(`unexpected: ${(error as Error).stack ?? error}`);
        } else stats.transportErrors.push(`${(error as Error).constructor.name}: ${(error as Error).message}`);
        socket.destroy();
      } finally {
        stats.largestFrame = Math.max(stats.largestFrame, transport.largestFrame);
        stats.framesAcrossReads += transport.framesAcrossReads - counted;
        counted = transport.framesAcrossReads;
      }
    });
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };

  /** An unencrypted message: auth_key_id 0, msg_id, length, then a request of the key exchange. */
  const unencrypted = (link: Link, frame: Uint8Array) => {
    if (frame.length < 20) throw new TransportError("unencrypted message shorter than its header");
    const view = new DataView(frame.buffer, frame.byteOffset, frame.length);
    const length = view.getUint32(16, true);
    if (20 + length > frame.length) throw new TransportError("unencrypted message_data_length past the end");
    const answer = handshakes.handle(readHandshakeRequest(new TlReader(frame.subarray(20, 20 + length))));
    const out = new Uint8Array(20 + answer.length);
    const outView = new DataView(out.buffer);
    outView.setBigInt64(8, serverMsgId(true), true);
    outView.setUint32(16, answer.length, true);
    out.set(answer, 20);
    link.send(out);
  };

  const server = createServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, HOST, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("loopback server: no port");
  port = address.port;

  let resolveStopped!: (why: "stopped" | "timeout") => void;
  const stopped = new Promise<"stopped" | "timeout">((resolve) => (resolveStopped = resolve));
  let done = false;
  const shutdown = (why: "stopped" | "timeout"): Promise<void> => {
    if (done) return stopped.then(() => {});
    done = true;
    clearTimeout(timer);
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => {
      server.close(() => resolve());
    }).then(() => {
      for (const record of keys.values()) record.native.dispose();
      resolveStopped(why);
    });
  };
  const timer = setTimeout(() => void shutdown("timeout"), options.timeoutMs ?? 120_000);
  (timer as { unref?: () => void }).unref?.();

  return {
    host: HOST,
    port,
    dcId,
    rsaKeys,
    stats,
    authKey: (id) => keys.get(hex(id))?.key.slice(),
    file: (fileId) => methods.files.file(fileId),
    upload: (fileId) => methods.files.describe(fileId),
    forget: (fileId) => methods.files.forget(fileId),
    tamperNextClientPacket(offset = 40) {
      controls.tamperClient = { offset };
    },
    tamperNextServerPacket(offset = 40) {
      controls.tamperServer = { offset };
    },
    dropConnections() {
      for (const socket of sockets) socket.destroy();
    },
    stop: () => shutdown("stopped"),
    stopped,
  };
}
