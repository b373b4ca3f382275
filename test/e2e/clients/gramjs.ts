/**
 * A GramJS (`telegram` 2.26.22) or teleproto (its successor, the same layout:
 * `teleproto` 1.229.0, `teleproto-latest` 214.1.7) client pointed at the
 * loopback server, set up as an application would set it up, with four
 * test-only adjustments:
 *
 * - the server's test RSA key is put in GramJS's key table (crypto/RSA's
 *   `_serverKeys`, which GramJS looks fingerprints up in);
 * - the transport class is GramJS's own (ConnectionTCPFull, the default in
 *   Bun/Deno/Node; ConnectionTCPObfuscated; ConnectionTCPAbridged)
 *   subclassed only to dial the server: GramJS 2.26.22 dials port 80 (443
 *   with WSS) whatever the session or the Config say;
 * - a Logger that keeps GramJS's warnings and errors (the tests assert on
 *   the error GramJS logs when it drops a tampered packet);
 * - teleproto 1.229's media senders on the permanent key (see connectGramJS).
 */
import { Buffer } from "node:buffer";
import { createRequire } from "node:module";

import type { ServerAddress } from "./address.ts";

const require = createRequire(import.meta.url);
// deno-lint-ignore no-explicit-any
type Any = any;

export const API_ID = 123456;
export const API_HASH = "0123456789abcdef0123456789abcdef";

export type GramTransport = "full" | "abridged" | "obfuscated";

export interface GramSession {
  readonly client: Any;
  readonly Api: Any;
  /** GramJS's log lines at warn level and above ("warn: ...", "error: ..."). */
  readonly log: string[];
  /** The auth key GramJS holds (its session's key). */
  authKey(): Uint8Array;
  /** The layer GramJS speaks. */
  readonly layer: number;
  close(): Promise<void>;
}

/** The client packages these sessions run: GramJS, and teleproto's two tested versions (npm names). */
export type GramPackage = "telegram" | "teleproto" | "teleproto-latest";

/** A GramJS-family package's modules (require caches them: loaded once per process). */
export function gramjs(pkg: GramPackage = "telegram"): Any {
  const packageRequire = createRequire(require.resolve(`${pkg}/package.json`));
  return {
    telegram: require(pkg),
    version: require(`${pkg}/package.json`).version as string,
    RSA: require(`${pkg}/crypto/RSA`),
    connection: require(`${pkg}/network/connection`),
    Logger: require(`${pkg}/extensions/Logger`),
    LAYER: require(`${pkg}/tl`).LAYER ?? require(`${pkg}/tl/AllTLObjects`).LAYER,
    bigInt: packageRequire("big-integer"),
    CustomFile: require(`${pkg}/client/uploads`).CustomFile,
  };
}

/** Puts the server's RSA keys in GramJS's key table (idempotent). */
export function addGramKeys(server: Pick<ServerAddress, "rsaKeys">, pkg: GramPackage = "telegram"): void {
  const { RSA, bigInt } = gramjs(pkg);
  for (const key of Object.values(server.rsaKeys)) {
    RSA._serverKeys.set(key.fingerprint.toString(), { n: bigInt(key.n.toString()), e: Number(key.e) });
  }
}

export async function connectGramJS(
  server: ServerAddress,
  transport: GramTransport = "full",
  pkg: GramPackage = "telegram",
): Promise<GramSession> {
  const { telegram, connection, Logger, LAYER } = gramjs(pkg);
  addGramKeys(server, pkg);
  const Base = { full: connection.ConnectionTCPFull, abridged: connection.ConnectionTCPAbridged, obfuscated: connection.ConnectionTCPObfuscated }[transport];
  const Dial = class extends Base {
    constructor(params: Any) {
      super({ ...params, ip: server.host, port: server.port });
    }
  };
  const log: string[] = [];
  const GramLogger = Logger.Logger as new (level: string) => { log(level: string, message: string, color: string): void };
  const logger = new (class extends GramLogger {
    override log(level: string, message: string) {
      log.push(`${level}: ${message}`);
    }
  })(Logger.LogLevel.WARN);
  const session = new telegram.sessions.StringSession("");
  // The port GramJS stores is a signed 16-bit field (StringSession.save), too small for an ephemeral port;
  // it is not dialled anyway (Dial above), so the session says 443.
  session.setDC(server.dcId, server.host, 443);
  const client = new telegram.TelegramClient(session, API_ID, API_HASH, {
    connection: Dial,
    baseLogger: logger,
    connectionRetries: 5,
    retryDelay: 100,
    autoReconnect: true,
    timeout: 10,
  });
  await client.connect();
  // teleproto 1.229 gives media (upload/download) senders a temporary key bound with auth.bindTempAuthKey,
  // which the loopback server does not implement: the session starts where teleproto goes after a failed
  // binding (its Dcenter's mediaTempFailed), media on the permanent key as GramJS does.
  if (client._dcenters !== undefined) {
    client._dcenters.get(server.dcId, client.session.getAuthKey(server.dcId)).mediaTempFailed = true;
  }
  return {
    client,
    Api: telegram.Api,
    log,
    layer: LAYER,
    authKey: () => new Uint8Array(client.session.getAuthKey().getKey() as Buffer),
    async close() {
      // GramJS 2.26.22's destroy() walks its Maps of exported senders (the upload connection) with
      // Object.values, which finds nothing: they are disconnected here, and their release timers cleared.
      // (teleproto 1.229 keeps them elsewhere and disconnects them itself.)
      for (const promise of client._exportedSenderPromises?.values() ?? []) {
        const sender = await Promise.resolve(promise).catch(() => undefined);
        await sender?.disconnect();
      }
      for (const timer of client._exportedSenderReleaseTimeouts?.values() ?? []) clearTimeout(timer);
      client._exportedSenderPromises?.clear();
      client._exportedSenderReleaseTimeouts?.clear();
      await client.destroy();
    },
  };
}

/** Uploads `bytes` with GramJS's uploadFile; returns the file_id it chose and the InputFile. */
export async function gramUpload(
  session: GramSession,
  bytes: Uint8Array,
  name = "random.bin",
  pkg: GramPackage = "telegram",
): Promise<{ fileId: bigint; inputFile: Any }> {
  const { CustomFile } = gramjs(pkg);
  const inputFile = await session.client.uploadFile({
    file: new CustomFile(name, bytes.length, "", Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)),
    workers: 1,
    maxBufferSize: bytes.length + 1, // in memory: GramJS reads files over 20 MB from their path otherwise
  });
  return { fileId: BigInt(inputFile.id.toString()), inputFile };
}

/** Downloads the file the server stored under `fileId` (as document `fileId`), 512 KiB per upload.getFile. */
export async function gramDownload(
  session: GramSession,
  fileId: bigint,
  size: number,
  pkg: GramPackage = "telegram",
): Promise<Uint8Array> {
  const { bigInt } = gramjs(pkg);
  const location = new session.Api.InputDocumentFileLocation({
    id: bigInt(fileId.toString()),
    accessHash: bigInt(0),
    fileReference: Buffer.alloc(0),
    thumbSize: "",
  });
  const data = await session.client.downloadFile(location, { fileSize: bigInt(size), partSizeKb: 512 });
  return new Uint8Array(data as Buffer);
}
