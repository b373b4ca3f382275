/**
 * Every exported function of the TS API that takes bytes, as one table for
 * the hostile-input suite: for each call, its byte arguments (the name the
 * library's TypeError uses, and valid bytes for it) and how to run it. The
 * other arguments are fixed, so a call depends only on its byte arguments.
 */
import {
  AuthKey,
  cbc256Decrypt,
  cbc256DecryptInto,
  cbc256Encrypt,
  cbc256EncryptInto,
  CbcContext,
  ctr256Decrypt,
  ctr256DecryptInto,
  ctr256Encrypt,
  ctr256EncryptInto,
  CtrContext,
  factorizePQ,
  ige256Decrypt,
  ige256DecryptInto,
  ige256Encrypt,
  ige256EncryptInto,
  IgeContext,
  sha1,
  sha1Into,
  sha256,
  sha256Into,
} from "../../ts/mod.ts";
import { Prng } from "../helpers/prng.ts";

/** One byte argument of a call. */
export interface ByteArg {
  /** The name the library's errors use for it. */
  readonly name: string;
  /** Valid bytes for it (a fresh copy on every call). */
  readonly bytes: () => Uint8Array;
  /** The TypeError messages allowed for a value that is not a Uint8Array (default "<name> must be a Uint8Array"). */
  readonly typeMessages?: readonly string[];
  /** The TypeError message for an Array (where an array means something else: a list of plaintext parts). */
  readonly arrayMessage?: string;
}

export interface Call {
  readonly name: string;
  readonly args: readonly ByteArg[];
  /** Runs the call on these argument values (in `args` order). */
  readonly run: (values: readonly unknown[]) => unknown;
}

// deno-lint-ignore no-explicit-any
type Any = any;
const rng = new Prng("hostile calls");
const fixed = (bytes: Uint8Array) => () => bytes.slice();
const KEY = rng.bytes(32);
const IV32 = rng.bytes(32);
const IV16 = rng.bytes(16);
const DATA48 = rng.bytes(48);
const DATA37 = rng.bytes(37);
const AUTH_KEY_BYTES = rng.bytes(256);

const data = (bytes: Uint8Array): ByteArg => ({ name: "data", bytes: fixed(bytes) });
const key: ByteArg = { name: "key", bytes: fixed(KEY) };
const iv32: ByteArg = { name: "iv", bytes: fixed(IV32) };
const iv16: ByteArg = { name: "iv", bytes: fixed(IV16) };
const state: ByteArg = { name: "state", bytes: () => new Uint8Array([5]) };
const out = (length: number): ByteArg => ({ name: "out", bytes: () => new Uint8Array(length) });

type OneShot = (...values: Any[]) => unknown;
const f = (fn: unknown) => fn as OneShot;

function blockCalls(mode: string, encrypt: unknown, decrypt: unknown, encryptInto: unknown, decryptInto: unknown, iv: ByteArg): Call[] {
  return [
    { name: `${mode}256Encrypt`, args: [data(DATA48), key, iv], run: (v) => f(encrypt)(...v) },
    { name: `${mode}256Decrypt`, args: [data(DATA48), key, iv], run: (v) => f(decrypt)(...v) },
    { name: `${mode}256EncryptInto`, args: [out(48), data(DATA48), key, iv], run: (v) => f(encryptInto)(...v) },
    { name: `${mode}256DecryptInto`, args: [out(48), data(DATA48), key, iv], run: (v) => f(decryptInto)(...v) },
  ];
}

/** Runs `use` on a fresh context and disposes of it. */
function withContext<C extends { dispose(): void }, T>(context: C, use: (c: C) => T): T {
  try {
    return use(context);
  } finally {
    context.dispose();
  }
}

const authKey = new AuthKey(AUTH_KEY_BYTES);
/** A 48-byte MTProto plaintext: salt, session_id, msg_id, seq_no, then message_data_length = 16 and 16 bytes of data. */
export function messagePlaintext(random: Prng): Uint8Array {
  const plaintext = random.bytes(48);
  plaintext.set([16, 0, 0, 0], 28);
  return plaintext;
}
const PLAINTEXT = messagePlaintext(rng);
const PADDING = rng.bytes(16);
/** A packet from the server (x = 8), which decryptMessage opens by default. */
const PACKET = authKey.encryptMessage(PLAINTEXT, { server: true, padding: PADDING });
const part = (bytes: Uint8Array): ByteArg => ({ name: "every plaintext part", bytes: fixed(bytes) });
const hashPart = (bytes: Uint8Array): ByteArg => ({ name: "every part", bytes: fixed(bytes) });
const padding: ByteArg = { name: "options.padding", bytes: fixed(PADDING) };
const plaintext: ByteArg = {
  name: "plaintext",
  bytes: fixed(PLAINTEXT),
  arrayMessage: "every plaintext part must be a Uint8Array",
};
/** pq of the example in core.telegram.org/mtproto/samples-auth_key (0x17ED48941A08F981). */
const PQ = new Uint8Array([0x17, 0xed, 0x48, 0x94, 0x1a, 0x08, 0xf9, 0x81]);

export const CALLS: readonly Call[] = [
  ...blockCalls("ige", ige256Encrypt, ige256Decrypt, ige256EncryptInto, ige256DecryptInto, iv32),
  ...blockCalls("cbc", cbc256Encrypt, cbc256Decrypt, cbc256EncryptInto, cbc256DecryptInto, iv16),
  { name: "ctr256Encrypt", args: [data(DATA37), key, iv16, state], run: (v) => f(ctr256Encrypt)(...v) },
  { name: "ctr256Decrypt", args: [data(DATA37), key, iv16, state], run: (v) => f(ctr256Decrypt)(...v) },
  { name: "ctr256EncryptInto", args: [out(37), data(DATA37), key, iv16, state], run: (v) => f(ctr256EncryptInto)(...v) },
  { name: "ctr256DecryptInto", args: [out(37), data(DATA37), key, iv16, state], run: (v) => f(ctr256DecryptInto)(...v) },

  { name: "new CtrContext", args: [key, iv16], run: ([k, v]) => withContext(new CtrContext(k as Any, v as Any, 3), (c) => [c.update(DATA37), c.position()]) },
  { name: "new IgeContext", args: [key, iv32], run: ([k, v]) => withContext(new IgeContext(k as Any, v as Any), (c) => c.update(DATA48)) },
  { name: "new CbcContext (decrypt)", args: [key, iv16], run: ([k, v]) => withContext(new CbcContext(k as Any, v as Any, { decrypt: true }), (c) => c.update(DATA48)) },
  { name: "CtrContext.update", args: [data(DATA37)], run: ([d]) => withContext(new CtrContext(KEY, IV16), (c) => c.update(d as Any)) },
  { name: "CtrContext.updateInto", args: [out(37), data(DATA37)], run: ([o, d]) => withContext(new CtrContext(KEY, IV16), (c) => c.updateInto(o as Any, d as Any)) },
  { name: "IgeContext.update", args: [data(DATA48)], run: ([d]) => withContext(new IgeContext(KEY, IV32), (c) => c.update(d as Any)) },
  { name: "IgeContext.updateInto", args: [out(48), data(DATA48)], run: ([o, d]) => withContext(new IgeContext(KEY, IV32, { decrypt: true }), (c) => c.updateInto(o as Any, d as Any)) },
  { name: "CbcContext.update", args: [data(DATA48)], run: ([d]) => withContext(new CbcContext(KEY, IV16), (c) => c.update(d as Any)) },
  { name: "CbcContext.updateInto", args: [out(48), data(DATA48)], run: ([o, d]) => withContext(new CbcContext(KEY, IV16), (c) => c.updateInto(o as Any, d as Any)) },

  { name: "sha256", args: [hashPart(DATA37)], run: (v) => f(sha256)(...v) },
  { name: "sha256 of two parts", args: [hashPart(DATA37), hashPart(DATA48)], run: (v) => f(sha256)(...v) },
  { name: "sha1", args: [hashPart(DATA37)], run: (v) => f(sha1)(...v) },
  { name: "sha1 of two parts", args: [hashPart(DATA37), hashPart(DATA48)], run: (v) => f(sha1)(...v) },
  { name: "sha256Into", args: [out(32), hashPart(DATA48)], run: (v) => f(sha256Into)(...v) },
  { name: "sha1Into", args: [out(20), hashPart(DATA48), hashPart(DATA37)], run: (v) => f(sha1Into)(...v) },

  { name: "new AuthKey", args: [{ name: "key", bytes: fixed(AUTH_KEY_BYTES) }], run: ([k]) => withContext(new AuthKey(k as Any), (a) => [a.id, a.encryptMessage(PLAINTEXT, { padding: PADDING })]) },
  { name: "AuthKey.encryptMessage", args: [plaintext], run: ([p]) => authKey.encryptMessage(p as Any, { padding: PADDING }) },
  { name: "AuthKey.encryptMessage of two parts", args: [part(PLAINTEXT.subarray(0, 40)), part(PLAINTEXT.subarray(40))], run: (v) => authKey.encryptMessage(v as Any, { padding: PADDING }) },
  {
    name: "AuthKey.encryptMessage of three parts",
    args: [part(PLAINTEXT.subarray(0, 8)), part(PLAINTEXT.subarray(8, 40)), part(PLAINTEXT.subarray(40))],
    run: (v) => authKey.encryptMessage(v as Any, { padding: PADDING }),
  },
  { name: "AuthKey.encryptMessage padding", args: [padding], run: ([p]) => authKey.encryptMessage(PLAINTEXT, { padding: p as Any }) },
  { name: "AuthKey.encryptMessageInto", args: [out(24 + 48 + 16), plaintext, padding], run: ([o, p, pad]) => authKey.encryptMessageInto(o as Any, p as Any, { server: true, padding: pad as Any }) },
  { name: "AuthKey.decryptMessage", args: [{ name: "packet", bytes: fixed(PACKET) }], run: ([p]) => authKey.decryptMessage(p as Any) },
  { name: "AuthKey.decryptMessageInto", args: [out(PACKET.length - 24), { name: "packet", bytes: fixed(PACKET) }], run: ([o, p]) => authKey.decryptMessageInto(o as Any, p as Any) },

  { name: "factorizePQ", args: [{ name: "pq", bytes: fixed(PQ), typeMessages: ["pq must be a bigint or a Uint8Array", "pq must be a Uint8Array"] }], run: ([pq]) => factorizePQ(pq as Any) },
];
