/**
 * An mtcute 0.30.3 client (@mtcute/core's TelegramClient over
 * @mtcute/node's TcpTransport and NodePlatform, a MemoryStorage) pointed at
 * the loopback server through its public options: `defaultDcs` names the
 * server, `addPublicKey` (@mtcute/core/utils.js) puts the server's test RSA
 * key in mtcute's key table, `crypto` is the provider under test, and the
 * transport is mtcute's own TcpTransport with its default codec
 * (intermediate) or mtcute's ObfuscatedPacketCodec around it. mtcute's log
 * handler keeps its warnings (the tests assert on the one it logs when it
 * drops a tampered packet).
 */
import { IntermediatePacketCodec, MemoryStorage, ObfuscatedPacketCodec, PaddedIntermediatePacketCodec } from "@mtcute/core";
import { BaseTelegramClient, TelegramClient } from "@mtcute/core/client.js";
import { addPublicKey } from "@mtcute/core/utils.js";
import { NodePlatform, TcpTransport } from "@mtcute/node";
import Long from "long";

import type { ServerAddress } from "./address.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

export const API_ID = 123456;
export const API_HASH = "0123456789abcdef0123456789abcdef";

export type MtcuteTransport = "intermediate" | "obfuscated" | "obfuscated padded";

export interface MtcuteSession {
  readonly client: Any;
  /** mtcute's log lines at warn level and above, formatted. */
  readonly log: string[];
  authKey(): Uint8Array | null;
  readonly layer: number;
  close(): Promise<void>;
}

class ObfuscatedTcpTransport extends TcpTransport {
  readonly padded: boolean;
  constructor(padded: boolean) {
    super();
    this.padded = padded;
  }
  override packetCodec(): Any {
    return new ObfuscatedPacketCodec(this.padded ? new PaddedIntermediatePacketCodec() : new IntermediatePacketCodec());
  }
}

/** Formats an mtcute log call ("%s", "%d", "%h" ... already partly applied by mtcute). */
function format(fmt: string, args: unknown[]): string {
  let i = 0;
  return fmt.replace(/%[a-zA-Z]/g, () => String(args[i++]));
}

/** Puts the server's keys in mtcute's table: the RSA_PAD key as current, the legacy one as "old" (mtcute's flag for it). */
export function addMtcuteKeys(server: Pick<ServerAddress, "rsaKeys">, crypto: Any): void {
  addPublicKey(crypto, server.rsaKeys.rsa_pad.publicPem, false);
  addPublicKey(crypto, server.rsaKeys.legacy.publicPem, true);
}

export async function connectMtcute(
  server: ServerAddress,
  crypto: Any,
  transport: MtcuteTransport = "intermediate",
): Promise<MtcuteSession> {
  await crypto.initialize?.();
  addMtcuteKeys(server, crypto);
  const storage = new MemoryStorage();
  const dc = { id: server.dcId, ipAddress: server.host, port: server.port };
  const base = new BaseTelegramClient({
    apiId: API_ID,
    apiHash: API_HASH,
    crypto,
    storage,
    platform: new NodePlatform(),
    transport: transport === "intermediate" ? new TcpTransport() : new ObfuscatedTcpTransport(transport === "obfuscated padded"),
    defaultDcs: { main: dc, media: { ...dc, mediaOnly: true } },
    disableUpdates: true,
    reconnectionStrategy: () => 100,
  } as Any);
  const log: string[] = [];
  const manager = (base as Any).log.mgr;
  manager.level = 2; // warnings and errors
  manager.handler = (_color: number, level: number, tag: string, fmt: string, args: unknown[]) => {
    log.push(`${level === 1 ? "error" : "warn"}: [${tag}] ${format(fmt, args)}`);
  };
  const client = new TelegramClient({ client: base, disableUpdates: true } as Any);
  await client.connect();
  // Not logged in: the current user is none (uploadFile reads it for the premium part limit), which mtcute
  // records as null.
  await (base as Any).storage.self.store(null);
  return {
    client,
    log,
    layer: (base as Any).mt?._layer ?? (base as Any)._layer,
    authKey: () => {
      const key = storage.authKeys.get(server.dcId) as Uint8Array | null;
      return key === null ? null : new Uint8Array(key);
    },
    async close() {
      await client.destroy();
    },
  };
}

export async function mtcuteUpload(session: MtcuteSession, bytes: Uint8Array, name = "random.bin"): Promise<{ fileId: bigint; inputFile: Any }> {
  const uploaded = await session.client.uploadFile({ file: bytes, fileName: name, fileSize: bytes.length, partSize: 512 });
  return { fileId: BigInt(uploaded.inputFile.id.toString()), inputFile: uploaded.inputFile };
}

export async function mtcuteDownload(session: MtcuteSession, fileId: bigint, size: number): Promise<Uint8Array> {
  const location = {
    _: "inputDocumentFileLocation",
    id: Long.fromString(fileId.toString()),
    accessHash: Long.ZERO,
    fileReference: new Uint8Array(0),
    thumbSize: "",
  };
  return new Uint8Array(await session.client.downloadAsBuffer(location, { fileSize: size, partSize: 512 }));
}
