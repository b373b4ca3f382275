/**
 * installGramJS()'s MTProtoState.encryptMessageData / decryptMessageData
 * inside the real GramJS 2.26.22, against stock GramJS with the same random
 * bytes: byte-for-byte packets, the same TLMessages and errors for every data
 * length, tampering, duplicates, replaced keys, and the state GramJS keeps
 * (salt, session id, keyId, the msg_id window).
 */
import { Buffer } from "node:buffer";
import { createRequire } from "node:module";

import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";

import { installGramJS, uninstallGramJS } from "../../ts/clients/gramjs.ts";
import { AuthKey } from "../../ts/mod.ts";
import { gramjsModules } from "../helpers/clients.ts";
import {
  fileBody,
  gramState,
  padLength,
  serverPlaintext,
  stockAndNative,
  stockGramJSAfterEachTest,
  stockServerPacket,
  withRandom,
} from "../helpers/gramjs.ts";
import { Prng } from "../helpers/prng.ts";
import { expectSame } from "../helpers/bytes.ts";

const require = createRequire(import.meta.url);
// deno-lint-ignore no-explicit-any
type Any = any;
const { Helpers, bigInt } = gramjsModules();
const errors: Any = require("telegram/errors");

stockGramJSAfterEachTest();

describe("installGramJS: MTProtoState", () => {
  const sizes = [0, 4, 8, 12, 16, 60, 64, 100, 1024, 4096 + 4, 16384, 512 * 1024];

  test("encryptMessageData: byte-for-byte stock GramJS, same padding", async () => {
    const rng = new Prng("gramjs-encrypt");
    const key = rng.bytes(256);
    const lengths = [...sizes, ...Array.from({ length: 40 }, () => 4 * rng.int(0, 600))];
    using server = new AuthKey(key);
    for (const length of lengths) {
      // What MTProtoState.writeDataAsMessage produces: msg_id, seq_no, length, body.
      const data = Buffer.from(rng.bytes(16 + length));
      data.writeInt32LE(length, 12);
      const state = await gramState(key, rng);
      const [stock, native] = await stockAndNative(`pad-${length}`, () => state.encryptMessageData(data));
      expect(Buffer.isBuffer(native)).toBe(true);
      expect(native.length).toBe(24 + 32 + length + padLength(32 + length));
      expect(native.equals(stock)).toBe(true);
      // And it is a valid client message for this library's server side.
      const opened = server.decryptMessage(new Uint8Array(native), { server: true });
      expect(Buffer.from(opened.subarray(16)).equals(data)).toBe(true);
    }
  });

  test("decryptMessageData: stock and patched open each other's server messages to the same TLMessage", async () => {
    const rng = new Prng("gramjs-decrypt");
    const key = rng.bytes(256);
    using server = new AuthKey(key);
    for (const size of [0, 1, 16, 1000, 16384, 512 * 1024]) {
      const state = await gramState(key, rng);
      const plaintext = serverPlaintext(state, rng, fileBody(rng, size));
      const padding = Buffer.from(rng.bytes(padLength(plaintext.length) + 16 * rng.int(0, 3)));
      uninstallGramJS();
      const fromStock = await stockServerPacket(state, plaintext, padding); // stock GramJS primitives
      const fromNative = Buffer.from(server.encryptMessage(plaintext, { server: true, padding }));
      expect(fromNative.equals(fromStock)).toBe(true);
      const results: Any[] = [];
      for (const install of [false, true]) {
        for (const packet of [fromStock, fromNative]) {
          if (install) installGramJS();
          else uninstallGramJS();
          state.msgIds = [];
          results.push(await state.decryptMessageData(packet));
        }
      }
      uninstallGramJS();
      for (const message of results) {
        expect(message.constructor.name).toBe("TLMessage");
        expect(message.msgId.toString()).toBe(results[0].msgId.toString());
        expect(message.msgId.constructor).toBe(results[0].msgId.constructor); // the same big-integer class
        expect(message.msgId.equals(results[0].msgId)).toBe(true);
        expect(message.seqNo).toBe(results[0].seqNo);
        expect(message.obj.className).toBe("upload.File");
        expect(Buffer.from(message.obj.bytes).equals(Buffer.from(results[0].obj.bytes))).toBe(true);
        expect(message.obj.bytes.length).toBe(size);
      }
    }
  });

  test("tampered packets: GramJS's own errors (SecurityError / InvalidBufferError), duplicates rejected", async () => {
    const rng = new Prng("gramjs-tamper");
    const key = rng.bytes(256);
    using server = new AuthKey(key);
    const state = await gramState(key, rng);
    const plaintext = serverPlaintext(state, rng, fileBody(rng, 100));
    const packet = Buffer.from(server.encryptMessage(plaintext, { server: true }));
    const outcome = async (install: boolean, bytes: Buffer): Promise<string> => {
      if (install) installGramJS();
      else uninstallGramJS();
      state.msgIds = [];
      try {
        await state.decryptMessageData(bytes);
        return "accepted";
      } catch (error) {
        return `${(error as Error).constructor.name}: ${(error as Error).message}`;
      }
    };
    const tampered: Buffer[] = [];
    for (let bit = 0; bit < packet.length * 8; bit += 7) {
      const copy = Buffer.from(packet);
      copy[bit >> 3]! ^= 1 << (bit & 7);
      tampered.push(copy);
    }
    tampered.push(packet.subarray(0, 4), packet.subarray(0, 8), packet.subarray(0, packet.length - 16));
    tampered.push(Buffer.concat([packet, Buffer.alloc(16)]));
    let security = 0;
    for (const bytes of tampered) {
      const [stock, native] = [await outcome(false, bytes), await outcome(true, bytes)];
      expect(native).toBe(stock);
      expect(native).toMatch(/^(SecurityError|InvalidBufferError): /);
      if (native.startsWith("SecurityError")) security++;
    }
    expect(security).toBeGreaterThan(tampered.length - 3);
    // Bad message_data_length under a valid msg_key (only a key holder can make one): the native layer rejects it.
    const badLength = Buffer.from(plaintext);
    badLength.writeInt32LE(plaintext.length, 28);
    const forged = Buffer.from(server.encryptMessage(badLength, { server: true }));
    expect(await outcome(true, forged)).toBe("SecurityError: Received msg_key doesn't match with expected one");
    // The same message twice: GramJS's duplicate msg_id check, kept.
    installGramJS();
    state.msgIds = [];
    await state.decryptMessageData(packet);
    await expect(state.decryptMessageData(packet)).rejects.toThrow(errors.SecurityError);
    await expect(state.decryptMessageData(packet)).rejects.toThrow("Duplicate msgIds");
    state.securityChecks = false;
    await state.decryptMessageData(packet);
  });

  test("a replaced auth key (AuthKey.setKey) is picked up", async () => {
    const rng = new Prng("gramjs-rekey");
    installGramJS();
    const state = await gramState(rng.bytes(256), rng);
    const data = Buffer.from(rng.bytes(64));
    data.writeInt32LE(48, 12); // message_data_length
    await state.encryptMessageData(data);
    const newKey = rng.bytes(256);
    await state.authKey.setKey(Buffer.from(newKey));
    const packet = await withRandom("rekey", () => state.encryptMessageData(data));
    const [stock] = await stockAndNative("rekey", () => state.encryptMessageData(data));
    expect(packet.equals(stock)).toBe(true);
    using server = new AuthKey(newKey);
    expect(server.decryptMessage(new Uint8Array(packet), { server: true }).length).toBe(32 + 48);
  });
});

describe("installGramJS: MTProtoState over every data length (0..320 bytes)", () => {
  const LENGTHS = Array.from({ length: 321 }, (_, i) => i);
  // GramJS's TypeNotFoundError calls alert() where one exists; Bun's and Deno's wait for Enter on stdin. Random
  // message bodies raise it (stock and patched alike), so alert is taken away while these run.
  beforeAll(() => {
    vi.stubGlobal("alert", undefined);
  });
  afterAll(() => {
    vi.unstubAllGlobals();
  });

  /** What a call did: its result, or its error's class and message. */
  async function outcome(fn: () => Promise<Any>): Promise<string> {
    try {
      const result = await fn();
      if (Buffer.isBuffer(result)) return `Buffer ${result.toString("hex")}`;
      return `TLMessage ${result.msgId} ${result.seqNo} ${result.obj?.className} ${Buffer.from(result.obj?.getBytes?.() ?? []).toString("hex")}`;
    } catch (error) {
      return `${(error as Error).constructor.name}: ${(error as Error).message}`;
    }
  }

  test("regression: encryptMessageData of 0..15 bytes is stock GramJS's packet (was RangeError: Plaintext must be at least 32 bytes)", async () => {
    const rng = new Prng("gramjs-short");
    const state = await gramState(rng.bytes(256), rng);
    for (let length = 0; length < 16; length++) {
      const data = Buffer.from(rng.bytes(length));
      const [stock, native] = await stockAndNative(`short-${length}`, () => outcome(() => state.encryptMessageData(data)));
      expect(stock).toMatch(/^Buffer /);
      expect(native, `${length} bytes`).toBe(stock);
    }
  });

  test("encryptMessageData: the same bytes as stock for every length, the same errors", async () => {
    const rng = new Prng("gramjs-every-length");
    const key = rng.bytes(256);
    const state = await gramState(key, rng);
    using server = new AuthKey(key);
    for (const length of LENGTHS) {
      const data = Buffer.from(rng.bytes(length));
      const message = length >= 16 && length % 4 === 0;
      if (message) data.writeInt32LE(length - 16, 12); // msg_id, seq_no, length, body
      const [stock, native] = await stockAndNative(`len-${length}`, () => outcome(() => state.encryptMessageData(data)));
      expect(native, `${length} bytes`).toBe(stock);
      expect(native.length).toBe("Buffer ".length + 2 * (24 + 16 + length + padLength(16 + length)));
      if (message) {
        // A whole message: this library's server side opens it.
        const packet = new Uint8Array(Buffer.from(native.slice("Buffer ".length), "hex"));
        expect(server.decryptMessage(packet, { server: true }).length).toBeGreaterThanOrEqual(32);
      }
    }
    // GramJS's own errors, in its order: no auth key, no salt.
    const noSalt = await gramState(key, rng);
    noSalt.salt = undefined;
    const noKey = await gramState(key, rng);
    noKey.authKey = undefined;
    for (const broken of [noSalt, noKey]) {
      const [stock, native] = await stockAndNative("broken", () => outcome(() => broken.encryptMessageData(Buffer.alloc(20))));
      expect(stock).toMatch(/^Error: (Unset params|Auth key unset)$/);
      expect(native).toBe(stock);
    }
  });

  test("decryptMessageData: the same TLMessage or error as stock for every length; stricter only where the security guidelines reject", async () => {
    const rng = new Prng("gramjs-every-length-decrypt");
    const key = rng.bytes(256);
    const state = await gramState(key, rng);
    let same = 0, parsed = 0, stricter = 0;
    for (const length of LENGTHS) {
      for (const shape of ["message", "random"] as const) {
        // data: what follows salt and session_id. "message": msg_id, seq_no, length and a body that is an
        // upload.file when its length allows; "random": any bytes (the length field among them).
        const data = Buffer.from(rng.bytes(length));
        const bodyLength = length - 16;
        if (shape === "message" && length >= 16) {
          data.writeInt32LE(bodyLength, 12);
          if (bodyLength >= 16 && bodyLength % 4 === 0) fileBody(rng, bodyLength < 12 + 254 ? bodyLength - 13 : bodyLength - 16).copy(data, 16);
        }
        const header = Buffer.alloc(16);
        Helpers.toSignedLittleBuffer(state.salt, 8).copy(header, 0);
        Helpers.toSignedLittleBuffer(state.id, 8).copy(header, 8);
        const plaintext = Buffer.concat([header, data]);
        const padding = Buffer.from(rng.bytes(padLength(plaintext.length)));
        uninstallGramJS();
        const packet = await stockServerPacket(state, plaintext, padding);
        const results: string[] = [];
        for (const install of [false, true]) {
          if (install) installGramJS();
          else uninstallGramJS();
          state.msgIds = [];
          results.push(await outcome(() => state.decryptMessageData(packet)));
        }
        uninstallGramJS();
        const [stock, native] = results as [string, string];
        // The checks of the security guidelines, on the known plaintext: message_data_length a multiple of 4
        // and within the packet, 12..1024 bytes of padding (and so a packet of at least 72 bytes).
        const total = plaintext.length + padding.length;
        const declared = Buffer.concat([plaintext, padding]).readUInt32LE(28); // total >= 32
        const valid = total >= 48 && declared % 4 === 0 && 32 + declared <= total && total - 32 - declared >= 12 && total - 32 - declared <= 1024;
        if (valid) {
          expect(native, `${shape}, ${length} bytes`).toBe(stock);
          same++;
          if (native.startsWith("TLMessage")) parsed++;
        } else {
          // The deliberate difference (README): rejected as a msg_key failure, where stock GramJS parses on.
          expect(native, `${shape}, ${length} bytes`).toBe("SecurityError: Received msg_key doesn't match with expected one");
          expect(stock).not.toBe(native);
          stricter++;
        }
      }
    }
    expect(same + stricter).toBe(2 * LENGTHS.length);
    expect(same).toBeGreaterThanOrEqual(76); // the messages with a body of a multiple of 4 bytes, and a few random ones
    expect(parsed).toBeGreaterThanOrEqual(72); // the upload.file messages
  });

  test("a body with an unknown constructor: stock's TypeNotFoundError, and GramJS's alert() called once, as stock does", async () => {
    const rng = new Prng("gramjs-unknown-constructor");
    const key = rng.bytes(256);
    const state = await gramState(key, rng);
    const body = Buffer.alloc(24);
    body.writeUInt32LE(0x0badc0de, 0); // no such constructor
    const header = Buffer.alloc(32);
    Helpers.toSignedLittleBuffer(state.salt, 8).copy(header, 0);
    Helpers.toSignedLittleBuffer(state.id, 8).copy(header, 8);
    header.writeUInt32LE(rng.u32(), 16), header.writeUInt32LE(0x12345678, 20), header.writeInt32LE(body.length, 28);
    const plaintext = Buffer.concat([header, body]);
    uninstallGramJS();
    const packet = await stockServerPacket(state, plaintext, Buffer.from(rng.bytes(padLength(plaintext.length))));
    const results: string[] = [], alerts: number[] = [];
    for (const install of [false, true]) {
      if (install) installGramJS();
      else uninstallGramJS();
      state.msgIds = [];
      let calls = 0;
      vi.stubGlobal("alert", () => void calls++);
      results.push(await outcome(() => state.decryptMessageData(packet)));
      vi.stubGlobal("alert", undefined);
      alerts.push(calls);
      expect(state.msgIds.length).toBe(1); // stock records the msg_id before parsing
    }
    uninstallGramJS();
    expect(results[0]).toMatch(/^TypeNotFoundError: Could not find a matching Constructor ID/);
    expect(results[1]).toBe(results[0]);
    expectSame(alerts, [1, 1]);
  });
});

describe("installGramJS: the state GramJS keeps", () => {
  /** Runs `run` on stock GramJS and patched, each on a state of its own made by `make`; returns both results. */
  async function onBoth<T>(make: () => Promise<Any>, run: (state: Any) => Promise<T>): Promise<[T, T]> {
    uninstallGramJS();
    const stock = await run(await make());
    installGramJS();
    const native = await run(await make());
    uninstallGramJS();
    return [stock, native];
  }
  const outcome = async (promise: Promise<unknown>) => {
    try {
      await promise;
      return "accepted";
    } catch (error) {
      return `${(error as Error).constructor.name}: ${(error as Error).message}`;
    }
  };

  test("the msg_id window: 500 ids remembered, the oldest forgotten after that, as stock", async () => {
    const rng = new Prng("gramjs-msgids");
    const key = rng.bytes(256);
    using server = new AuthKey(key);
    const template = await gramState(key, rng);
    const packets = Array.from({ length: 503 }, () =>
      Buffer.from(server.encryptMessage(serverPlaintext(template, rng, fileBody(rng, 4)), { server: true })));
    const make = async () => {
      const state = await gramState(key, new Prng("same"));
      state.salt = template.salt, state.id = template.id;
      return state;
    };
    const [stock, native] = await onBoth(make, async (state) => {
      const seen: string[] = [];
      for (const packet of packets) seen.push(await outcome(state.decryptMessageData(packet)));
      // packets[0] and [1] have left the window (503 > 501 kept), packets[2] and the newest have not.
      for (const i of [0, 1, 2, 400, 502]) seen.push(`${i} again: ${await outcome(state.decryptMessageData(packets[i]!))}`);
      return { seen, kept: state.msgIds.length, first: state.msgIds[0] };
    });
    expect(native).toEqual(stock);
    expect(native.seen.slice(0, 503).every((s) => s === "accepted")).toBe(true);
    // A replay of an id that left the window is accepted (and pushes out the next oldest); recent ones are not.
    expect(native.seen[503]).toBe("0 again: accepted");
    expect(native.seen.slice(-2)).toEqual(["400 again: SecurityError: Duplicate msgIds", "502 again: SecurityError: Duplicate msgIds"]);
    expect(native.kept).toBe(501);
  });

  test("a new salt, session id or keyId is written into the next packet, as stock writes it", async () => {
    const rng = new Prng("gramjs-header");
    const key = rng.bytes(256);
    const salts = [rng.bytes(8), rng.bytes(8)].map((b) => bigInt(Helpers.readBigIntFromBuffer(Buffer.from(b), true, true)));
    const ids = [rng.bytes(8), rng.bytes(8)].map((b) => bigInt(Helpers.readBigIntFromBuffer(Buffer.from(b), true, true)));
    const keyIds = [rng.bytes(8)].map((b) => bigInt(Helpers.readBigIntFromBuffer(Buffer.from(b), true, false)));
    const data = Buffer.alloc(16 + 8);
    data.writeInt32LE(8, 12);
    const make = async () => {
      const state = await gramState(key, new Prng("header-state"));
      state.id = bigInt(12345); // the constructor's session id is random
      return state;
    };
    const [stock, native] = await onBoth(make, async (state) => {
      const packets: string[] = [];
      const send = async (seed: string) =>
        packets.push((await withRandom(seed, () => state.encryptMessageData(data)) as Buffer).toString("hex"));
      await send("a");
      state.salt = salts[0], await send("b");
      state.id = ids[0], await send("c");
      state.salt = salts[1], state.id = ids[1], await send("d");
      state.authKey.keyId = keyIds[0], await send("e"); // GramJS writes its keyId as it is, even one not from this key
      return packets;
    });
    expect(native).toEqual(stock);
    expect(new Set(native).size, "every change shows in the packet").toBe(native.length);
  });

  test("no auth key, or no key in it: GramJS's own errors, in its order", async () => {
    const rng = new Prng("gramjs-unset");
    const key = rng.bytes(256);
    const packet = Buffer.alloc(88, 1);
    const data = Buffer.alloc(24);
    for (const unset of [(s: Any) => (s.authKey = undefined), (s: Any) => (s.authKey._key = undefined)]) {
      const [stock, native] = await onBoth(() => gramState(key, rng), async (state) => {
        unset(state);
        return [await outcome(state.encryptMessageData(data)), await outcome(state.decryptMessageData(packet))];
      });
      expect(native).toEqual(stock);
      expect(native.join(" ")).toMatch(/Error: /);
    }
  });
});
