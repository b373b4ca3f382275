/**
 * The padding of encryptMessageData with the drop-in, in GramJS and both
 * teleproto versions. While the package's random source (GramJS's
 * helpers.generateRandomBytes, teleproto 1.229's node:crypto randomFillSync)
 * is the one it had at install, the padding is the native layer's: the same
 * length as stock's (the packet is as long), random (two packets of the same
 * message differ in it), and the packet opens to the message. A source
 * replaced after install is called, and its bytes are the padding.
 */
import { Buffer } from "node:buffer";
import { createRequire } from "node:module";

import { afterAll, expect, test } from "vitest";

import { installGramJS, uninstallGramJS } from "../../ts/clients/gramjs.ts";
import { AuthKey } from "../../ts/mod.ts";
import { Prng } from "../helpers/prng.ts";

const require = createRequire(import.meta.url);
// deno-lint-ignore no-explicit-any
type Any = any;
const nodeCrypto: Any = require("node:crypto");

afterAll(() => uninstallGramJS());

for (const specifier of ["telegram", "teleproto", "teleproto-latest"]) {
  const version: string = require(`${specifier}/package.json`).version;
  const Helpers: Any = require(`${specifier}/Helpers`);
  const { MTProtoState }: Any = require(`${specifier}/network/MTProtoState`);
  const { AuthKey: GramAuthKey }: Any = require(`${specifier}/crypto/AuthKey`);
  const { Logger }: Any = require(`${specifier}/extensions/Logger`);
  const bigInt: Any = createRequire(require.resolve(`${specifier}/package.json`))("big-integer");
  const fromNodeCrypto = specifier === "teleproto"; // 1.229.0

  test(`${specifier} ${version}: native padding while the random source is stock's; a replaced one is called`, async () => {
    const rng = new Prng(`padding-${specifier}`);
    const key = Buffer.from(rng.bytes(256));
    const authKey = new GramAuthKey();
    await authKey.setKey(key);
    const state = new MTProtoState(authKey, new Logger("error"), false);
    state.salt = bigInt(Helpers.readBigIntFromBuffer(Buffer.from(rng.bytes(8)), true, true));
    state.id = bigInt(Helpers.readBigIntFromBuffer(Buffer.from(rng.bytes(8)), true, true));
    const server = new AuthKey(key);
    const header = Buffer.concat([Helpers.toSignedLittleBuffer(state.salt, 8), Helpers.toSignedLittleBuffer(state.id, 8)]);
    for (const body of [0, 4, 84, 984]) {
      // msg_id, seq_no, message_data_length, message_data: what writeDataAsMessage hands encryptMessageData
      const data = Buffer.concat([Buffer.from(rng.bytes(12)), Buffer.alloc(4), Buffer.from(rng.bytes(body))]);
      data.writeInt32LE(body, 12);
      const size = data.length;
      uninstallGramJS();
      const stockPacket: Buffer = await state.encryptMessageData(data);
      installGramJS({ package: specifier });
      const stockRandom = fromNodeCrypto ? nodeCrypto.randomFillSync : Helpers.generateRandomBytes;
      let calls = 0;
      const counting = (...args: Any[]) => (calls++, stockRandom(...args));
      if (fromNodeCrypto) nodeCrypto.randomFillSync = counting;
      else Helpers.generateRandomBytes = counting;
      try {
        // Replaced after install: called, once per message, as stock calls it.
        const called: Buffer = await state.encryptMessageData(data);
        expect(calls).toBe(1);
        expect(called.length).toBe(stockPacket.length);
      } finally {
        if (fromNodeCrypto) nodeCrypto.randomFillSync = stockRandom;
        else Helpers.generateRandomBytes = stockRandom;
      }
      uninstallGramJS();
      installGramJS({ package: specifier }); // the source is stock's again at install
      calls = 0;
      const packets: Buffer[] = [];
      for (let i = 0; i < 2; i++) packets.push(await state.encryptMessageData(data));
      expect(calls).toBe(0);
      const padded = stockPacket.length - 24 - 16 - size;
      expect(padded).toBeGreaterThanOrEqual(12);
      expect(padded).toBeLessThanOrEqual(27);
      const opened = packets.map((packet) => {
        expect(packet.length).toBe(stockPacket.length);
        expect(packet.subarray(0, 8).equals(stockPacket.subarray(0, 8))).toBe(true); // auth_key_id
        return Buffer.from(server.decryptMessage(packet, { server: true }));
      });
      for (const plain of opened) expect(plain.subarray(0, 16 + size).equals(Buffer.concat([header, data]))).toBe(true);
      expect(packets[0]!.equals(packets[1]!)).toBe(false); // fresh random padding each time
    }
    uninstallGramJS();
  });
}
