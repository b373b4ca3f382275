/**
 * The encrypted MTProto 2.0 layer of the loopback server: every packet after
 * the key exchange is opened and sealed by the library's own AuthKey in the
 * server direction (`decryptMessage(..., { server: true })`,
 * `encryptMessage(..., { server: true })`). On top of it, as a Telegram
 * server behaves toward a client:
 *
 * - salts: a new key's salt is random, so the salt the exchange implies is
 *   refused once with bad_server_salt (on purpose: every client must retry);
 *   get_future_salts is answered with three;
 * - sessions: the first message of a new session_id gets new_session_created;
 *   server msg_ids are time-based, odd (1 mod 4 for responses, 3 otherwise),
 *   seq_no counts content-related messages;
 * - client msg_ids: a multiple of 4 and within 300 s back / 30 s ahead of now
 *   (bad_msg_notification 18 / 16 / 17 otherwise); a duplicate is ignored;
 * - msg_container and gzip_packed in, msgs_ack recorded, ping and
 *   ping_delay_disconnect answered with pong, destroy_session, msgs_state_req;
 * - API calls (methods.ts) answered with rpc_result (gzip_packed when the
 *   method says so) or rpc_error; several replies go out in one msg_container.
 *
 * A packet the AuthKey rejects closes the connection (recorded with the
 * error); an unknown auth_key_id gets the transport error -404.
 */
import { randomBytes } from "node:crypto";
import { gzipSync, unzipSync } from "node:zlib";

import type { AuthKey } from "../../../ts/mod.ts";
import { RpcFailure } from "./files.ts";
import type { Methods } from "./methods.ts";
import { hex } from "./numbers.ts";
import type { ServerStats } from "./stats.ts";
import { constructorName, ID, readCall, TlError, TlReader, TlWriter, UnknownConstructorError, write } from "./tl.ts";

export interface KeyRecord {
  readonly key: Uint8Array;
  readonly id: Uint8Array;
  readonly native: AuthKey;
  /** The current server salt (signed, as TL carries it) and every salt accepted. */
  salt: bigint;
  readonly validSalts: Set<bigint>;
  readonly sessions: Map<bigint, SessionState>;
}

interface SessionState {
  readonly id: bigint;
  contentSent: number;
  readonly seen: Set<bigint>;
}

/** What the session layer needs of a connection. */
export interface Link {
  readonly transport: string;
  /** Sends one MTProto packet (the transport frames it). */
  send(packet: Uint8Array): void;
  sendTransportError(code: number): void;
  close(reason: string): void;
}

/** One-shot tampering, armed by the tests: flip bit 0 of the byte at `offset` of the next packet. */
export interface Controls {
  tamperClient: { offset: number } | null;
  tamperServer: { offset: number } | null;
}

interface Outgoing {
  readonly body: Uint8Array;
  readonly contentRelated: boolean;
  readonly response: boolean;
  readonly isResult?: boolean;
}

let lastMsgId = 0n;

/** A server msg_id: unixtime * 2^32 plus the fraction, 1 mod 4 for responses and 3 otherwise, increasing. */
export function serverMsgId(response: boolean): bigint {
  const ms = BigInt(Date.now());
  let id = ((ms / 1000n) << 32n) | (((ms % 1000n) << 32n) / 1000n);
  id = (id & ~3n) | (response ? 1n : 3n);
  while (id <= lastMsgId) id += 4n;
  lastMsgId = id;
  return id;
}

const randomLong = () => new DataView(randomBytes(8).buffer).getBigInt64(0, true);

export function newKeyRecord(key: Uint8Array, id: Uint8Array, native: AuthKey): KeyRecord {
  const salt = randomLong();
  return { key, id, native, salt, validSalts: new Set([salt]), sessions: new Map() };
}

/** The constructor names in a message body (containers and wrappers opened), for the records. */
function describe(body: Uint8Array): string[] {
  try {
    const r = new TlReader(body);
    const id = r.view.getUint32(0, true);
    if (id === ID.msg_container) {
      r.uint();
      return r.vector((v) => {
        v.long(), v.int();
        return describe(v.raw(v.uint()));
      }, true).flat();
    }
    if (id === ID.gzip_packed) {
      r.uint();
      return describe(new Uint8Array(unzipSync(r.bytes())));
    }
    if (
      id === ID.invokeWithLayer || id === ID.invokeWithoutUpdates || id === ID.initConnection || id === ID.invokeAfterMsg ||
      id === ID.invokeAfterMsgs
    ) return [readCall(r).method._];
    return [constructorName(id)];
  } catch {
    return ["(unreadable)"];
  }
}

export class SessionLayer {
  readonly keys: Map<string, KeyRecord>;
  readonly methods: Methods;
  readonly stats: ServerStats;
  readonly controls: Controls;

  constructor(keys: Map<string, KeyRecord>, methods: Methods, stats: ServerStats, controls: Controls) {
    this.keys = keys;
    this.methods = methods;
    this.stats = stats;
    this.controls = controls;
  }

  /** One encrypted packet from a client. */
  handle(link: Link, frame: Uint8Array): void {
    const record = this.keys.get(hex(frame.subarray(0, 8)));
    if (record === undefined) {
      this.stats.unknownAuthKeys++;
      link.sendTransportError(-404);
      link.close("unknown auth_key_id");
      return;
    }
    let packet = frame;
    const tamper = this.controls.tamperClient;
    if (tamper !== null) {
      this.controls.tamperClient = null;
      packet = frame.slice();
      packet[Math.min(tamper.offset, packet.length - 1)]! ^= 1;
    }
    let plaintext: Uint8Array;
    try {
      plaintext = record.native.decryptMessage(packet, { server: true });
    } catch (error) {
      const e = error as Error;
      this.stats.rejectedClientPackets.push({ error: e.constructor.name, message: e.message, tampered: tamper !== null });
      link.close(`rejected packet: ${e.message}`);
      return;
    }
    const view = new DataView(plaintext.buffer, plaintext.byteOffset, plaintext.length);
    const salt = view.getBigInt64(0, true), sessionId = view.getBigInt64(8, true), msgId = view.getBigInt64(16, true);
    const seqNo = view.getInt32(24, true), length = view.getUint32(28, true);
    const body = plaintext.subarray(32, 32 + length);
    const out: Outgoing[] = [];

    const code = this.#checkMsgId(msgId);
    if (code !== 0) {
      this.stats.badMsgNotifications.push({ badMsgId: msgId, code });
      const notification = write((w) => w.uint(ID.bad_msg_notification).long(msgId).int(seqNo).int(code));
      this.#send(link, record, sessionId, [{ body: notification, contentRelated: false, response: false }]);
      return;
    }
    if (!record.validSalts.has(salt)) {
      this.stats.badServerSalts.push({ badMsgId: msgId, contents: describe(body) });
      const notification = write((w) => w.uint(ID.bad_server_salt).long(msgId).int(seqNo).int(48).long(record.salt));
      this.#send(link, record, sessionId, [{ body: notification, contentRelated: false, response: false }]);
      return;
    }
    let session = record.sessions.get(sessionId);
    if (session === undefined) {
      session = { id: sessionId, contentSent: 0, seen: new Set() };
      record.sessions.set(sessionId, session);
      this.stats.newSessions.push({ sessionId, firstMsgId: msgId });
      const created = write((w) => w.uint(ID.new_session_created).long(msgId).long(randomLong()).long(record.salt));
      out.push({ body: created, contentRelated: true, response: false });
    }
    this.#message({ link, record, session }, msgId, body, out);
    this.#send(link, record, sessionId, out);
  }

  /** 0, or the bad_msg_notification code for a client msg_id. */
  #checkMsgId(msgId: bigint): number {
    if (msgId % 4n !== 0n) return 18;
    const seconds = Number(msgId >> 32n), now = Date.now() / 1000;
    if (seconds < now - 300) return 16;
    if (seconds > now + 30) return 17;
    return 0;
  }

  #message(ctx: { link: Link; record: KeyRecord; session: SessionState }, msgId: bigint, body: Uint8Array, out: Outgoing[]): void {
    if (ctx.session.seen.has(msgId)) {
      this.stats.duplicates++;
      return;
    }
    ctx.session.seen.add(msgId);
    const r = new TlReader(body);
    const id = body.length >= 4 ? r.uint() : 0;
    switch (id) {
      case ID.msg_container: {
        this.stats.containersReceived++;
        const count = r.uint();
        for (let i = 0; i < count; i++) {
          const innerId = r.long();
          r.int(); // seq_no
          this.#message(ctx, innerId, r.raw(r.uint()), out);
        }
        return;
      }
      case ID.gzip_packed: {
        this.stats.gzipReceived++;
        ctx.session.seen.delete(msgId); // the same message, unpacked
        this.#message(ctx, msgId, new Uint8Array(unzipSync(r.bytes())), out);
        return;
      }
      case ID.msgs_ack:
        for (const acked of r.vector((v) => v.long())) this.stats.acked.add(acked);
        return;
      case ID.ping:
      case ID.ping_delay_disconnect: {
        this.stats.pings++;
        const pingId = r.long();
        out.push({ body: write((w) => w.uint(ID.pong).long(msgId).long(pingId)), contentRelated: false, response: true });
        return;
      }
      case ID.get_future_salts: {
        this.stats.futureSalts++;
        const now = Math.floor(Date.now() / 1000);
        const salts = [ctx.record.salt, randomLong(), randomLong()];
        for (const salt of salts) ctx.record.validSalts.add(salt);
        // salts:vector<future_salt> is bare: a count, then bare future_salt items (no constructor ids).
        const w = new TlWriter().uint(ID.future_salts).long(msgId).int(now).uint(salts.length);
        salts.forEach((salt, i) => w.int(now - 60 + 1800 * i).int(now + 1800 * (i + 1)).long(salt));
        out.push({ body: w.result(), contentRelated: true, response: true });
        return;
      }
      case ID.destroy_session: {
        const target = r.long();
        const existed = target !== ctx.session.id && ctx.record.sessions.delete(target);
        const answer = write((w) => w.uint(existed ? ID.destroy_session_ok : ID.destroy_session_none).long(target));
        out.push({ body: answer, contentRelated: true, response: true });
        return;
      }
      case ID.msgs_state_req: {
        const ids = r.vector((v) => v.long());
        const info = new Uint8Array(ids.length).fill(1); // 1: nothing is known about the message
        const answer = write((w) => w.uint(ID.msgs_state_info).long(msgId).bytes(info));
        out.push({ body: answer, contentRelated: false, response: true });
        return;
      }
      case ID.msg_resend_req:
      case ID.bad_msg_notification:
        this.stats.unknown.push(constructorName(id));
        return;
      default:
        out.push(this.#call(ctx, msgId, body));
    }
  }

  /** An API call: its rpc_result (the method's result or an rpc_error). */
  #call(ctx: { link: Link; record: KeyRecord; session: SessionState }, msgId: bigint, body: Uint8Array): Outgoing {
    let method = "(unreadable)";
    let layer: number | undefined;
    let init: { apiId: number; appVersion: string } | undefined;
    let result: Uint8Array;
    let error: string | undefined;
    let detail: Record<string, number> | undefined;
    try {
      const call = readCall(new TlReader(body));
      method = call.method._, layer = call.layer;
      const m = call.method;
      if (m._ === "upload.saveFilePart") detail = { part: m.filePart, bytes: m.bytes.length };
      else if (m._ === "upload.saveBigFilePart") detail = { part: m.filePart, totalParts: m.fileTotalParts, bytes: m.bytes.length };
      else if (m._ === "upload.getFile") detail = { offset: Number(m.offset), limit: m.limit };
      if (call.initConnection) init = { apiId: call.initConnection.apiId, appVersion: call.initConnection.appVersion };
      const answer = this.methods.call(call.method);
      result = answer.gzip ? this.#gzip(answer.bytes) : answer.bytes;
    } catch (e) {
      let failure: RpcFailure;
      if (e instanceof RpcFailure) failure = e;
      else if (e instanceof UnknownConstructorError) {
        this.stats.unknown.push(constructorName(e.id));
        failure = new RpcFailure(400, `INPUT_METHOD_INVALID_${e.id.toString(16)}`);
      } else if (e instanceof TlError) failure = new RpcFailure(400, "INPUT_REQUEST_INVALID");
      else throw e;
      error = failure.text;
      result = write((w) => w.uint(ID.rpc_error).int(failure.code).string(failure.text));
    }
    this.stats.calls.push({
      method,
      layer,
      initConnection: init,
      keyId: hex(ctx.record.id),
      sessionId: ctx.session.id,
      transport: ctx.link.transport,
      error,
      detail,
    });
    const w = new TlWriter(result.length + 16);
    w.uint(ID.rpc_result).long(msgId).raw(result);
    return { body: w.result(), contentRelated: true, response: true, isResult: true };
  }

  #gzip(bytes: Uint8Array): Uint8Array {
    this.stats.gzipSent++;
    return write((w) => w.uint(ID.gzip_packed).bytes(new Uint8Array(gzipSync(bytes))));
  }

  /** Seals the replies (one message, or a msg_container of several) and sends them. */
  #send(link: Link, record: KeyRecord, sessionId: bigint, out: Outgoing[]): void {
    if (out.length === 0) return;
    const session = record.sessions.get(sessionId);
    let content = session?.contentSent ?? 0;
    const seqNo = (contentRelated: boolean) => (contentRelated ? 2 * content++ + 1 : 2 * content);
    const messages = out.map((m) => ({ ...m, msgId: serverMsgId(m.response), seqNo: seqNo(m.contentRelated) }));
    for (const m of messages) if (m.isResult) this.stats.results.add(m.msgId);
    let msgId: bigint, seq: number, body: Uint8Array;
    if (messages.length === 1) {
      ({ msgId, seqNo: seq, body } = messages[0]!);
    } else {
      this.stats.containersSent++;
      const w = new TlWriter(messages.reduce((n, m) => n + m.body.length + 16, 8));
      w.uint(ID.msg_container).uint(messages.length);
      for (const m of messages) w.long(m.msgId).int(m.seqNo).uint(m.body.length).raw(m.body);
      msgId = serverMsgId(false), seq = seqNo(false), body = w.result();
    }
    if (session) session.contentSent = content;
    const header = new Uint8Array(32);
    const view = new DataView(header.buffer);
    view.setBigInt64(0, record.salt, true);
    view.setBigInt64(8, sessionId, true);
    view.setBigInt64(16, msgId, true);
    view.setInt32(24, seq, true);
    view.setUint32(28, body.length, true);
    const packet = record.native.encryptMessage([header, body], { server: true });
    const tamper = this.controls.tamperServer;
    if (tamper !== null) {
      // A copy with one flipped bit goes first; the genuine packet follows, so the client's request still completes.
      this.controls.tamperServer = null;
      const bad = packet.slice();
      bad[Math.min(tamper.offset, bad.length - 1)]! ^= 1;
      this.stats.tamperedServerPackets++;
      link.send(bad);
    }
    link.send(packet);
  }
}
