/**
 * AuthKey against the real clients' own message-layer code, byte for byte,
 * with the same padding bytes fed to both (their random source stubbed, see
 * helpers/clients.ts):
 * - mtcute 0.30.3 AuthKey.encryptMessage / decryptMessage (NodeCryptoProvider);
 * - GramJS (telegram 2.26.22) MTProtoState.encryptMessageData / decryptMessageData.
 * Both clients only encrypt as a client (x = 0) and decrypt as a client
 * (x = 8), so: their packets must equal ours (encrypt), ours decrypt theirs
 * with `server: true` (as the server would), and theirs decrypt ours made
 * with `server: true` (as the server would send them).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AuthKey, MtprotoSecurityError } from "../../ts/mod.ts";
import { concatBytes, expectBytes, expectSame } from "../helpers/bytes.ts";
import { type Gram, loadGram, loadMtcute, longFromLE, type Mtcute } from "../helpers/clients.ts";
import { buildPlaintext } from "../helpers/mtproto_reference.ts";
import { Prng } from "../helpers/prng.ts";

const shortestPadding = (length: number) => 12 + ((16 - ((length + 12) % 16)) % 16);

/** Data lengths (multiples of 4 for the message_data_length checks): small, TCP-sized, a 512 KiB file part. */
function dataLengths(rng: Prng): number[] {
  const lengths = [0, 4, 8, 12, 16, 20, 24, 28, 32, 60, 64, 1020, 1024, 4096, 512 * 1024];
  for (let i = 0; i < 40; i++) lengths.push(4 * rng.int(0, 2000));
  return lengths;
}

describe("mtcute 0.30.3 AuthKey", () => {
  let mtcute: Mtcute;
  beforeAll(async () => {
    mtcute = await loadMtcute();
  });

  test("same auth_key_id", () => {
    const rng = new Prng("mtcute-id");
    for (let i = 0; i < 10; i++) {
      const key = rng.bytes(256);
      using ours = new AuthKey(key);
      expectBytes(ours.id, mtcute.authKey(key).id);
    }
  });

  test("encryptMessage: the same packet; ours opens theirs (server: true)", () => {
    const rng = new Prng("mtcute-encrypt");
    const key = rng.bytes(256);
    using ours = new AuthKey(key);
    const theirs = mtcute.authKey(key);
    for (const dataLength of dataLengths(rng)) {
      const salt = rng.bytes(8), sessionId = rng.bytes(8);
      const plaintext = buildPlaintext({ salt, sessionId, msgId: rng.bytes(8), seqNo: rng.u32() }, rng.bytes(dataLength));
      const padding = rng.bytes(shortestPadding(plaintext.length));
      mtcute.queuePadding(padding);
      // mtcute takes the message from msg_id on, and the salt and session_id as Longs.
      const packet = theirs.encryptMessage(plaintext.subarray(16), longFromLE(salt), longFromLE(sessionId));
      expect(mtcute.pendingPadding(), "mtcute used exactly the queued padding").toBe(0);
      expectBytes(ours.encryptMessage(plaintext, { padding }), packet, `data ${dataLength}`);
      expectBytes(ours.encryptMessage([plaintext.subarray(0, 16), plaintext.subarray(16)], { padding }), packet, "as parts");
      expectBytes(ours.decryptMessage(packet, { server: true }), plaintext, `ours opens mtcute's, data ${dataLength}`);
    }
  });

  test("decryptMessage: mtcute opens ours (server: true), with any padding length", () => {
    const rng = new Prng("mtcute-decrypt");
    const key = rng.bytes(256);
    using ours = new AuthKey(key);
    const theirs = mtcute.authKey(key);
    for (const dataLength of dataLengths(rng)) {
      const sessionId = rng.bytes(8), msgId = rng.bytes(8), seqNo = rng.u32();
      const data = rng.bytes(dataLength);
      const plaintext = buildPlaintext({ salt: rng.bytes(8), sessionId, msgId, seqNo }, data);
      const minimum = shortestPadding(plaintext.length);
      for (const paddingLength of [minimum, minimum + 16 * rng.int(1, Math.floor((1024 - minimum) / 16))]) {
        const packet = ours.encryptMessage(plaintext, { server: true, padding: rng.bytes(paddingLength) });
        let called = 0;
        theirs.decryptMessage(packet, longFromLE(sessionId), (gotMsgId, gotSeqNo, reader) => {
          called++;
          expect(gotMsgId.low).toBe(longFromLE(msgId, true).low);
          expect(gotMsgId.high).toBe(longFromLE(msgId, true).high);
          expect(gotSeqNo).toBe(seqNo);
          expectBytes(reader.raw(dataLength), data, `message data, ${dataLength} bytes`);
        });
        expect(called, `mtcute accepted ours (warnings: ${mtcute.warnings.join("; ")})`).toBe(1);
      }
    }
    expectSame(mtcute.warnings, []);
  });

  test("mtcute and ours reject the same tampered packets", () => {
    const rng = new Prng("mtcute-tamper");
    const key = rng.bytes(256);
    using ours = new AuthKey(key);
    const theirs = mtcute.authKey(key);
    const sessionId = rng.bytes(8);
    const plaintext = buildPlaintext({ salt: rng.bytes(8), sessionId, msgId: rng.bytes(8), seqNo: 1 }, rng.bytes(64));
    const packet = ours.encryptMessage(plaintext, { server: true });
    for (let i = 0; i < 200; i++) {
      const copy = packet.slice();
      const bit = rng.int(8 * 8, copy.length * 8 - 1); // past the auth_key_id, which mtcute does not check here
      copy[bit >> 3]! ^= 1 << (bit & 7);
      let accepted = false;
      theirs.decryptMessage(copy, longFromLE(sessionId), () => (accepted = true));
      expect(accepted, `mtcute accepted a flip of bit ${bit}`).toBe(false);
      expect(() => ours.decryptMessage(copy)).toThrow(MtprotoSecurityError);
    }
  });
});

describe("GramJS (telegram 2.26.22) MTProtoState", () => {
  let gram: Gram;
  beforeAll(() => {
    gram = loadGram();
  });
  afterAll(() => gram.restore());

  test("encryptMessageData: the same packet; ours opens theirs (server: true)", async () => {
    const rng = new Prng("gramjs-encrypt");
    const key = rng.bytes(256);
    using ours = new AuthKey(key);
    const state = await gram.state(key);
    for (const dataLength of dataLengths(rng)) {
      const salt = rng.bytes(8), sessionId = rng.bytes(8);
      state.salt = gram.bigFromLE(salt);
      state.id = gram.bigFromLE(sessionId);
      const plaintext = buildPlaintext({ salt, sessionId, msgId: rng.bytes(8), seqNo: rng.u32() }, rng.bytes(dataLength));
      const padding = rng.bytes(shortestPadding(plaintext.length));
      gram.queuePadding(padding);
      // GramJS takes the message from msg_id on and prepends its salt and session id.
      const packet = new Uint8Array(await state.encryptMessageData(Buffer.from(plaintext.subarray(16))));
      expect(gram.pendingPadding(), "GramJS used the queued padding").toBe(0);
      expectBytes(ours.encryptMessage(plaintext, { padding }), packet, `data ${dataLength}`);
      expectBytes(ours.decryptMessage(packet, { server: true }), plaintext, `ours opens GramJS's, data ${dataLength}`);
    }
  });

  test("decryptMessageData: GramJS opens ours (server: true), TL objects of every size", async () => {
    const rng = new Prng("gramjs-decrypt");
    const key = rng.bytes(256);
    using ours = new AuthKey(key);
    const state = await gram.state(key);
    const bodies = [gram.pong(rng.bytes(8), rng.bytes(8))];
    for (const n of [0, 1, 2, 3, 100, 253, 254, 1000, 4096, 100_000, 512 * 1024 - 64]) bodies.push(gram.uploadFile(rng.bytes(n)));
    for (const body of bodies) {
      const msgId = rng.bytes(8), seqNo = rng.u32() >>> 1;
      const plaintext = buildPlaintext({ salt: rng.bytes(8), sessionId: rng.bytes(8), msgId, seqNo }, body);
      const minimum = shortestPadding(plaintext.length);
      const paddingLength = rng.pick([minimum, minimum + 16 * rng.int(1, Math.floor((1024 - minimum) / 16))]);
      const packet = ours.encryptMessage(plaintext, { server: true, padding: rng.bytes(paddingLength) });
      const message = await state.decryptMessageData(Buffer.from(packet));
      expect(message.msgId.toString()).toBe(gram.bigFromLE(msgId, true).toString());
      expect(message.seqNo).toBe(seqNo);
      expectBytes(new Uint8Array(message.obj.getBytes()), body, `TL object of ${body.length} bytes`);
    }
  });

  test("GramJS rejects what ours rejects (msg_key flips)", async () => {
    const rng = new Prng("gramjs-tamper");
    const key = rng.bytes(256);
    using ours = new AuthKey(key);
    const state = await gram.state(key);
    const plaintext = buildPlaintext({ salt: rng.bytes(8), sessionId: rng.bytes(8), msgId: rng.bytes(8), seqNo: 1 }, gram.pong(rng.bytes(8), rng.bytes(8)));
    const packet = ours.encryptMessage(plaintext, { server: true });
    for (let i = 0; i < 100; i++) {
      const copy = packet.slice();
      const bit = rng.int(0, copy.length * 8 - 1);
      copy[bit >> 3]! ^= 1 << (bit & 7);
      await expect(state.decryptMessageData(Buffer.from(copy)), `GramJS, bit ${bit}`).rejects.toThrow();
      expect(() => ours.decryptMessage(copy)).toThrow(MtprotoSecurityError);
    }
    // and the untouched packet still opens in both
    expect(ours.decryptMessage(packet).length).toBe(plaintext.length);
    expect(concatBytes([new Uint8Array((await state.decryptMessageData(Buffer.from(packet))).obj.getBytes())]).length).toBe(20);
  });
});
