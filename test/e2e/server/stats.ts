/**
 * What the loopback server observed, for the tests to assert on and the
 * bench to report: connections and their transports, completed key
 * exchanges, service messages in both directions, every API call, and
 * every packet it rejected.
 */
import type { RsaScheme } from "./rsa.ts";

export interface HandshakeRecord {
  readonly keyId: string;
  readonly scheme: RsaScheme;
  readonly inner: string;
  readonly dc?: number;
  /** The auth key's first byte was zero (1 in 256): clients that strip leading zeros get a 255-byte key. */
  readonly leadingZero: boolean;
}

export interface CallRecord {
  readonly method: string;
  readonly layer?: number;
  /** initConnection's api_id and app_version, when the call was wrapped in it. */
  readonly initConnection?: { readonly apiId: number; readonly appVersion: string };
  readonly keyId: string;
  readonly sessionId: bigint;
  readonly transport: string;
  /** The RPC error returned, if any. */
  readonly error?: string;
  /** For the file methods: part number, total parts, bytes; offset and limit. */
  readonly detail?: Readonly<Record<string, number>>;
}

export interface RejectedPacket {
  /** The error the server's decryption threw: its class name and message. */
  readonly error: string;
  readonly message: string;
  readonly tampered: boolean;
}

export class ServerStats {
  connections = 0;
  readonly transports: string[] = [];
  readonly handshakes: HandshakeRecord[] = [];
  readonly calls: CallRecord[] = [];
  /** bad_server_salt sent: the bad msg_id and what the rejected message held. */
  readonly badServerSalts: { readonly badMsgId: bigint; readonly contents: string[] }[] = [];
  readonly badMsgNotifications: { readonly badMsgId: bigint; readonly code: number }[] = [];
  readonly newSessions: { readonly sessionId: bigint; readonly firstMsgId: bigint }[] = [];
  /** msg_ids the clients acknowledged (msgs_ack). */
  readonly acked = new Set<bigint>();
  /** msg_ids of the rpc_results sent. */
  readonly results = new Set<bigint>();
  containersReceived = 0;
  containersSent = 0;
  gzipReceived = 0;
  gzipSent = 0;
  pings = 0;
  futureSalts = 0;
  duplicates = 0;
  /** Unknown service constructors or methods (answered with an RPC error or ignored). */
  readonly unknown: string[] = [];
  readonly rejectedClientPackets: RejectedPacket[] = [];
  tamperedServerPackets = 0;
  unknownAuthKeys = 0;
  transportErrors: string[] = [];
  framesAcrossReads = 0;
  largestFrame = 0;
  bytesIn = 0;
  bytesOut = 0;
}
