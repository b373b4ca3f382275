/**
 * TL serialization for the loopback server, written from the schema
 * (core.telegram.org/schema/mtproto and the API schema of layers 198/227):
 * a reader and a writer of the primitive types, the constructor ids, and
 * the objects the server reads (what GramJS and mtcute send) and writes
 * (what they expect back). Only what the fixture serves is here; an unknown
 * constructor is an {@link UnknownConstructorError} (answered with an RPC
 * error, never a crash).
 */

/** Constructor ids (unsigned 32-bit). */
export const ID = {
  // the auth key exchange
  req_pq_multi: 0xbe7e8ef1,
  resPQ: 0x05162463,
  p_q_inner_data: 0x83c95aec,
  p_q_inner_data_dc: 0xa9f55f95,
  p_q_inner_data_temp: 0x3c6a84d4,
  p_q_inner_data_temp_dc: 0x56fddf88,
  req_DH_params: 0xd712e4be,
  server_DH_params_ok: 0xd0e8075c,
  server_DH_inner_data: 0xb5890dba,
  set_client_DH_params: 0xf5045f1f,
  client_DH_inner_data: 0x6643b654,
  dh_gen_ok: 0x3bcbf734,
  // service messages
  msg_container: 0x73f1f8dc,
  rpc_result: 0xf35c6d01,
  rpc_error: 0x2144ca19,
  gzip_packed: 0x3072cfa1,
  msgs_ack: 0x62d6b459,
  bad_msg_notification: 0xa7eff811,
  bad_server_salt: 0xedab447b,
  new_session_created: 0x9ec20908,
  ping: 0x7abe77ec,
  ping_delay_disconnect: 0xf3427b8c,
  pong: 0x347773c5,
  get_future_salts: 0xb921bd04,
  future_salts: 0xae500895,
  destroy_session: 0xe7512126,
  destroy_session_ok: 0xe22045fc,
  destroy_session_none: 0x62d350c9,
  msgs_state_req: 0xda69fb52,
  msgs_state_info: 0x04deb57d,
  msg_resend_req: 0x7d861a08,
  vector: 0x1cb5c415,
  boolTrue: 0x997275b5,
  boolFalse: 0xbc799737,
  // API
  invokeWithLayer: 0xda9b0d0d,
  invokeWithoutUpdates: 0xbf9459b7,
  initConnection: 0xc1cd5ea9,
  invokeAfterMsg: 0xcb9f372d,
  invokeAfterMsgs: 0x3dc4b4f0,
  inputClientProxy: 0x75588b3f,
  jsonObjectValue: 0xc0de1bd9,
  jsonNull: 0x3f6d7b68,
  jsonBool: 0xc7345e6a,
  jsonNumber: 0x2be0dfa4,
  jsonString: 0xb71e767a,
  jsonArray: 0xf7444763,
  jsonObject: 0x99c1d49d,
  "help.getConfig": 0xc4f9186b,
  config: 0xcc1a241e,
  dcOption: 0x18b7a10d,
  "help.getNearestDc": 0x1fb33026,
  "users.getUsers": 0x0d91a548,
  nearestDc: 0x8e1a1775,
  "updates.getState": 0xedd4882a,
  "updates.state": 0xa56c2a3e,
  "upload.saveFilePart": 0xb304a621,
  "upload.saveBigFilePart": 0xde7b673d,
  "upload.getFile": 0xbe5335be,
  "upload.file": 0x096a18d5,
  "storage.fileUnknown": 0xaa963b05,
  inputDocumentFileLocation: 0xbad07584,
} as const;

const NAMES = new Map<number, string>(Object.entries(ID).map(([name, id]) => [id, name]));

/** The schema name of a constructor id, or its hex. */
export function constructorName(id: number): string {
  return NAMES.get(id) ?? `#${id.toString(16).padStart(8, "0")}`;
}

export class UnknownConstructorError extends Error {
  readonly id: number;
  readonly where: string;
  constructor(id: number, where: string) {
    super(`unknown TL constructor ${constructorName(id)} in ${where}`);
    this.id = id;
    this.where = where;
  }
}

export class TlError extends Error {}

/* ------------------------------------------------------------------------ */
/* Primitives                                                               */

export class TlReader {
  readonly view: DataView;
  pos = 0;
  readonly data: Uint8Array;
  constructor(data: Uint8Array, offset = 0) {
    this.data = data;
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    this.pos = offset;
  }
  get remaining(): number {
    return this.data.length - this.pos;
  }
  #need(n: number): void {
    if (this.pos + n > this.data.length) throw new TlError(`TL: read past the end (${n} bytes at ${this.pos} of ${this.data.length})`);
  }
  uint(): number {
    this.#need(4);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }
  int(): number {
    this.#need(4);
    const v = this.view.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }
  long(): bigint {
    this.#need(8);
    const v = this.view.getBigInt64(this.pos, true);
    this.pos += 8;
    return v;
  }
  double(): number {
    this.#need(8);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }
  /** `n` raw bytes (int128, int256, ...): a view, not a copy. */
  raw(n: number): Uint8Array {
    this.#need(n);
    const v = this.data.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }
  /** TL `bytes`/`string`: a view into the data. */
  bytes(): Uint8Array {
    this.#need(1);
    let length = this.data[this.pos]!;
    let header = 1;
    if (length === 254) {
      this.#need(4);
      length = this.data[this.pos + 1]! | (this.data[this.pos + 2]! << 8) | (this.data[this.pos + 3]! << 16);
      header = 4;
    } else if (length === 255) {
      throw new TlError("TL: bytes length byte 255");
    }
    const padded = (header + length + 3) & ~3;
    this.#need(padded);
    const v = this.data.subarray(this.pos + header, this.pos + header + length);
    this.pos += padded;
    return v;
  }
  string(): string {
    return new TextDecoder().decode(this.bytes());
  }
  bool(): boolean {
    const id = this.uint();
    if (id === ID.boolTrue) return true;
    if (id === ID.boolFalse) return false;
    throw new TlError(`TL: expected a Bool, got ${constructorName(id)}`);
  }
  vector<T>(item: (r: TlReader) => T, bare = false): T[] {
    if (!bare) {
      const id = this.uint();
      if (id !== ID.vector) throw new TlError(`TL: expected a vector, got ${constructorName(id)}`);
    }
    const count = this.uint();
    if (count > this.remaining) throw new TlError(`TL: vector of ${count} items in ${this.remaining} bytes`);
    const items: T[] = [];
    for (let i = 0; i < count; i++) items.push(item(this));
    return items;
  }
}

export class TlWriter {
  #buffer: Uint8Array;
  #view: DataView;
  pos = 0;
  constructor(capacity = 256) {
    this.#buffer = new Uint8Array(capacity);
    this.#view = new DataView(this.#buffer.buffer);
  }
  #room(n: number): void {
    if (this.pos + n <= this.#buffer.length) return;
    let size = this.#buffer.length * 2;
    while (size < this.pos + n) size *= 2;
    const bigger = new Uint8Array(size);
    bigger.set(this.#buffer.subarray(0, this.pos));
    this.#buffer = bigger;
    this.#view = new DataView(bigger.buffer);
  }
  uint(v: number): this {
    this.#room(4);
    this.#view.setUint32(this.pos, v >>> 0, true);
    this.pos += 4;
    return this;
  }
  int(v: number): this {
    this.#room(4);
    this.#view.setInt32(this.pos, v | 0, true);
    this.pos += 4;
    return this;
  }
  long(v: bigint): this {
    this.#room(8);
    this.#view.setBigInt64(this.pos, BigInt.asIntN(64, v), true);
    this.pos += 8;
    return this;
  }
  raw(bytes: Uint8Array): this {
    this.#room(bytes.length);
    this.#buffer.set(bytes, this.pos);
    this.pos += bytes.length;
    return this;
  }
  bytes(bytes: Uint8Array): this {
    if (bytes.length >= 1 << 24) throw new TlError("TL: bytes too long");
    const header = bytes.length < 254 ? 1 : 4;
    const padded = (header + bytes.length + 3) & ~3;
    this.#room(padded);
    if (header === 1) this.#buffer[this.pos] = bytes.length;
    else {
      this.#buffer[this.pos] = 254;
      this.#buffer[this.pos + 1] = bytes.length & 0xff;
      this.#buffer[this.pos + 2] = (bytes.length >> 8) & 0xff;
      this.#buffer[this.pos + 3] = (bytes.length >> 16) & 0xff;
    }
    this.#buffer.set(bytes, this.pos + header);
    this.#buffer.fill(0, this.pos + header + bytes.length, this.pos + padded);
    this.pos += padded;
    return this;
  }
  string(s: string): this {
    return this.bytes(new TextEncoder().encode(s));
  }
  bool(v: boolean): this {
    return this.uint(v ? ID.boolTrue : ID.boolFalse);
  }
  vector<T>(items: readonly T[], item: (w: this, value: T) => void): this {
    this.uint(ID.vector).uint(items.length);
    for (const value of items) item(this, value);
    return this;
  }
  /** The bytes written (a copy of exactly that length). */
  result(): Uint8Array {
    return this.#buffer.slice(0, this.pos);
  }
}

export function write(build: (w: TlWriter) => void, capacity?: number): Uint8Array {
  const w = new TlWriter(capacity);
  build(w);
  return w.result();
}

/* ------------------------------------------------------------------------ */
/* What the clients send                                                    */

export interface PQInnerData {
  readonly _: "p_q_inner_data" | "p_q_inner_data_dc" | "p_q_inner_data_temp" | "p_q_inner_data_temp_dc";
  readonly pq: Uint8Array;
  readonly p: Uint8Array;
  readonly q: Uint8Array;
  readonly nonce: Uint8Array;
  readonly serverNonce: Uint8Array;
  readonly newNonce: Uint8Array;
  readonly dc?: number;
  readonly expiresIn?: number;
}

/** p_q_inner_data in any of its four forms; `end` is where the object ends (for the legacy scheme's hash). */
export function readPQInnerData(r: TlReader): PQInnerData {
  const id = r.uint();
  const name = constructorName(id);
  if (id !== ID.p_q_inner_data && id !== ID.p_q_inner_data_dc && id !== ID.p_q_inner_data_temp && id !== ID.p_q_inner_data_temp_dc) {
    throw new UnknownConstructorError(id, "P_Q_inner_data");
  }
  const pq = r.bytes(), p = r.bytes(), q = r.bytes(), nonce = r.raw(16), serverNonce = r.raw(16), newNonce = r.raw(32);
  const dc = id === ID.p_q_inner_data_dc || id === ID.p_q_inner_data_temp_dc ? r.int() : undefined;
  const expiresIn = id === ID.p_q_inner_data_temp || id === ID.p_q_inner_data_temp_dc ? r.int() : undefined;
  return { _: name as PQInnerData["_"], pq, p, q, nonce, serverNonce, newNonce, dc, expiresIn };
}

export interface ClientDHInnerData {
  readonly nonce: Uint8Array;
  readonly serverNonce: Uint8Array;
  readonly retryId: bigint;
  readonly gB: Uint8Array;
}

export function readClientDHInnerData(r: TlReader): ClientDHInnerData {
  const id = r.uint();
  if (id !== ID.client_DH_inner_data) throw new UnknownConstructorError(id, "Client_DH_Inner_Data");
  return { nonce: r.raw(16), serverNonce: r.raw(16), retryId: r.long(), gB: r.bytes() };
}

/** The unencrypted requests of the auth key exchange. */
export type HandshakeRequest =
  | { readonly _: "req_pq_multi"; readonly nonce: Uint8Array }
  | {
    readonly _: "req_DH_params";
    readonly nonce: Uint8Array;
    readonly serverNonce: Uint8Array;
    readonly p: Uint8Array;
    readonly q: Uint8Array;
    readonly fingerprint: bigint;
    readonly encryptedData: Uint8Array;
  }
  | { readonly _: "set_client_DH_params"; readonly nonce: Uint8Array; readonly serverNonce: Uint8Array; readonly encryptedData: Uint8Array };

export function readHandshakeRequest(r: TlReader): HandshakeRequest {
  const id = r.uint();
  switch (id) {
    case ID.req_pq_multi:
      return { _: "req_pq_multi", nonce: r.raw(16) };
    case ID.req_DH_params:
      return {
        _: "req_DH_params",
        nonce: r.raw(16),
        serverNonce: r.raw(16),
        p: r.bytes(),
        q: r.bytes(),
        fingerprint: r.long(),
        encryptedData: r.bytes(),
      };
    case ID.set_client_DH_params:
      return { _: "set_client_DH_params", nonce: r.raw(16), serverNonce: r.raw(16), encryptedData: r.bytes() };
    default:
      throw new UnknownConstructorError(id, "an unencrypted message");
  }
}

/** initConnection's fields (its query is unwrapped by {@link readCall}). */
export interface InitConnection {
  readonly apiId: number;
  readonly deviceModel: string;
  readonly systemVersion: string;
  readonly appVersion: string;
  readonly systemLangCode: string;
  readonly langPack: string;
  readonly langCode: string;
  readonly proxy?: { address: string; port: number };
  readonly params?: unknown;
}

export type InputFileLocation = { readonly _: "inputDocumentFileLocation"; readonly id: bigint; readonly accessHash: bigint; readonly fileReference: Uint8Array; readonly thumbSize: string };

/** The API methods the server answers. */
export type Method =
  | { readonly _: "help.getConfig" }
  | { readonly _: "users.getUsers" }
  | { readonly _: "help.getNearestDc" }
  | { readonly _: "updates.getState" }
  | { readonly _: "upload.saveFilePart"; readonly fileId: bigint; readonly filePart: number; readonly bytes: Uint8Array }
  | {
    readonly _: "upload.saveBigFilePart";
    readonly fileId: bigint;
    readonly filePart: number;
    readonly fileTotalParts: number;
    readonly bytes: Uint8Array;
  }
  | {
    readonly _: "upload.getFile";
    readonly precise: boolean;
    readonly cdnSupported: boolean;
    readonly location: InputFileLocation;
    readonly offset: bigint;
    readonly limit: number;
  };

/** One API call with the wrappers it came in. */
export interface Call {
  readonly method: Method;
  /** invokeWithLayer's layer, when it was wrapped in one. */
  readonly layer?: number;
  readonly initConnection?: InitConnection;
  readonly withoutUpdates: boolean;
  /** The msg_ids of invokeAfterMsg / invokeAfterMsgs wrappers (accepted, not waited for: the server answers in order). */
  readonly afterMsgIds: readonly bigint[];
}

function readJson(r: TlReader): unknown {
  const id = r.uint();
  switch (id) {
    case ID.jsonNull:
      return null;
    case ID.jsonBool:
      return r.bool();
    case ID.jsonNumber:
      return r.double();
    case ID.jsonString:
      return r.string();
    case ID.jsonArray:
      return r.vector(readJson);
    case ID.jsonObject:
      return Object.fromEntries(r.vector((v) => {
        const item = v.uint();
        if (item !== ID.jsonObjectValue) throw new UnknownConstructorError(item, "JSONObjectValue");
        return [v.string(), readJson(v)] as const;
      }));
    default:
      throw new UnknownConstructorError(id, "JSONValue");
  }
}

function readInputFileLocation(r: TlReader): InputFileLocation {
  const id = r.uint();
  if (id !== ID.inputDocumentFileLocation) throw new UnknownConstructorError(id, "InputFileLocation");
  return { _: "inputDocumentFileLocation", id: r.long(), accessHash: r.long(), fileReference: r.bytes(), thumbSize: r.string() };
}

/** An API call: invokeWithLayer / initConnection / invokeWithoutUpdates / invokeAfterMsg(s) unwrapped, then one of {@link Method}. */
export function readCall(r: TlReader): Call {
  let layer: number | undefined;
  let initConnection: InitConnection | undefined;
  let withoutUpdates = false;
  const afterMsgIds: bigint[] = [];
  for (;;) {
    const id = r.uint();
    switch (id) {
      case ID.invokeWithLayer:
        layer = r.int();
        continue;
      case ID.invokeWithoutUpdates:
        withoutUpdates = true;
        continue;
      case ID.invokeAfterMsg:
        afterMsgIds.push(r.long());
        continue;
      case ID.invokeAfterMsgs:
        afterMsgIds.push(...r.vector((v) => v.long()));
        continue;
      case ID.initConnection: {
        const flags = r.uint();
        const apiId = r.int(), deviceModel = r.string(), systemVersion = r.string(), appVersion = r.string();
        const systemLangCode = r.string(), langPack = r.string(), langCode = r.string();
        let proxy: InitConnection["proxy"];
        if (flags & 1) {
          const proxyId = r.uint();
          if (proxyId !== ID.inputClientProxy) throw new UnknownConstructorError(proxyId, "InputClientProxy");
          proxy = { address: r.string(), port: r.int() };
        }
        const params = flags & 2 ? readJson(r) : undefined;
        initConnection = { apiId, deviceModel, systemVersion, appVersion, systemLangCode, langPack, langCode, proxy, params };
        continue;
      }
      case ID["help.getConfig"]:
        return { method: { _: "help.getConfig" }, layer, initConnection, withoutUpdates, afterMsgIds };
      case ID["users.getUsers"]: // answered without reading its arguments (the message length bounds them)
        return { method: { _: "users.getUsers" }, layer, initConnection, withoutUpdates, afterMsgIds };
      case ID["help.getNearestDc"]:
        return { method: { _: "help.getNearestDc" }, layer, initConnection, withoutUpdates, afterMsgIds };
      case ID["updates.getState"]:
        return { method: { _: "updates.getState" }, layer, initConnection, withoutUpdates, afterMsgIds };
      case ID["upload.saveFilePart"]:
        return {
          method: { _: "upload.saveFilePart", fileId: r.long(), filePart: r.int(), bytes: r.bytes() },
          layer,
          initConnection,
          withoutUpdates,
          afterMsgIds,
        };
      case ID["upload.saveBigFilePart"]:
        return {
          method: { _: "upload.saveBigFilePart", fileId: r.long(), filePart: r.int(), fileTotalParts: r.int(), bytes: r.bytes() },
          layer,
          initConnection,
          withoutUpdates,
          afterMsgIds,
        };
      case ID["upload.getFile"]: {
        const flags = r.uint();
        return {
          method: {
            _: "upload.getFile",
            precise: (flags & 1) !== 0,
            cdnSupported: (flags & 2) !== 0,
            location: readInputFileLocation(r),
            offset: r.long(),
            limit: r.int(),
          },
          layer,
          initConnection,
          withoutUpdates,
          afterMsgIds,
        };
      }
      default:
        throw new UnknownConstructorError(id, "an API call");
    }
  }
}

/* ------------------------------------------------------------------------ */
/* What the server sends                                                    */

export interface DcOption {
  readonly id: number;
  readonly ipAddress: string;
  readonly port: number;
  readonly mediaOnly?: boolean;
}

/** A minimal `config` (layer 198 and 227 share constructor and fields): the given DCs and plausible limits. */
export function writeConfig(w: TlWriter, options: { thisDc: number; dcOptions: readonly DcOption[]; now: number }): void {
  w.uint(ID.config).uint(0); // flags: no optional field
  w.int(options.now).int(options.now + 3600).bool(false).int(options.thisDc);
  w.vector(options.dcOptions, (v, dc) => {
    v.uint(ID.dcOption).uint(dc.mediaOnly ? 2 : 0).int(dc.id).string(dc.ipAddress).int(dc.port);
  });
  w.string(""); // dc_txt_domain_name
  const ints = [
    200, // chat_size_max
    200000, // megagroup_size_max
    100, // forwarded_count_max
    210000, // online_update_period_ms
    5000, // offline_blur_timeout_ms
    30000, // offline_idle_timeout_ms
    300000, // online_cloud_timeout_ms
    30000, // notify_cloud_delay_ms
    1500, // notify_default_delay_ms
    60000, // push_chat_period_ms
    2, // push_chat_limit
    172800, // edit_time_limit
    172800, // revoke_time_limit
    2147483647, // revoke_pm_time_limit
    2419200, // rating_e_decay
    200, // stickers_recent_limit
    604800, // channels_read_media_period
    20000, // call_receive_timeout_ms
    90000, // call_ring_timeout_ms
    30000, // call_connect_timeout_ms
    10000, // call_packet_timeout_ms
  ];
  for (const v of ints) w.int(v); // tmp_sessions (flags.0, after channels_read_media_period) is absent
  w.string("https://t.me/"); // me_url_prefix
  w.int(1024).int(4096).int(4); // caption_length_max, message_length_max, webfile_dc_id
}
