/**
 * installGramJS({ package }) inside the real teleproto, both tested versions:
 * 1.229.0 (the newest the registry serves: IGE encrypts through node:crypto's
 * CBC and decrypts through a JS T-table, MTProtoState draws its padding from
 * node:crypto and keeps a ReceivedIdsManager) and 214.1.7 (its `latest` tag,
 * installed as the npm alias teleproto-latest: GramJS's MTProtoState, IGE
 * block by block through node:crypto's ECB). Every patched function is
 * compared with teleproto's own stock code, with the same random bytes fed
 * to both; errors are compared by class and message.
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";

import { afterAll, afterEach, describe, expect, test } from "vitest";

import { installGramJS, isGramJSInstalled, TESTED_TELEPROTO_VERSIONS, uninstallGramJS } from "../../ts/clients/gramjs.ts";
import { Prng } from "../helpers/prng.ts";

const require = createRequire(import.meta.url);
// deno-lint-ignore no-explicit-any
type Any = any;
const nodeCrypto: Any = require("node:crypto");
const stockRandomFill = nodeCrypto.randomFillSync;
/** MTProto's padding length for a plaintext of `length` bytes (12..27, to a whole block). */
const padFor = (length: number) => ((16 - ((length + 12) % 16)) % 16) + 12;

afterAll(() => uninstallGramJS());

/** The outcome of a call: its value, or its error's class and message (compared between stock and native). */
async function outcome<T>(fn: () => T | Promise<T>): Promise<{ value?: T; error?: string }> {
  try {
    return { value: await fn() };
  } catch (error) {
    return { error: `${(error as Error)?.constructor?.name}: ${(error as Error)?.message}` };
  }
}

for (const specifier of ["teleproto", "teleproto-latest"]) {
  const teleproto: Any = require(specifier);
  const version: string = require(`${specifier}/package.json`).version;
  const Helpers: Any = require(`${specifier}/Helpers`);
  const IGEModule: Any = require(`${specifier}/crypto/IGE`);
  const CTRModule: Any = require(`${specifier}/crypto/CTR`);
  const cryptoJs: Any = require(`${specifier}/crypto/crypto`);
  const { Factorizator }: Any = require(`${specifier}/crypto/Factorizator`);
  const { MTProtoState }: Any = require(`${specifier}/network/MTProtoState`);
  const { AuthKey }: Any = require(`${specifier}/crypto/AuthKey`);
  const bigInt: Any = createRequire(require.resolve(`${specifier}/package.json`))("big-integer");
  const { Api } = teleproto;
  const { Logger } = teleproto.extensions;
  const receivedIds = version === "1.229.0"; // the ReceivedIdsManager shape
  const stockRandom = Helpers.generateRandomBytes;
  const patchPoints: [Any, string][] = [
    [IGEModule, "IGE"],
    [CTRModule, "CTR"],
    [Factorizator, "factorize"],
    [Helpers, "sha1"],
    [Helpers, "sha256"],
    [MTProtoState.prototype, "encryptMessageData"],
    [MTProtoState.prototype, "decryptMessageData"],
  ];
  const original = patchPoints.map(([object, key]) => object[key]);
  const install = () => installGramJS({ package: specifier });

  /** Runs `fn` with both of teleproto's random sources (Helpers, node:crypto's randomFillSync) seeded. */
  async function withRandom<T>(seed: string, fn: () => T | Promise<T>): Promise<T> {
    const rng = new Prng(seed);
    Helpers.generateRandomBytes = (count: number) => Buffer.from(rng.bytes(count));
    nodeCrypto.randomFillSync = (buffer: Uint8Array, offset = 0, size = buffer.length - offset) => {
      buffer.set(rng.bytes(size), offset);
      return buffer;
    };
    try {
      return await fn();
    } finally {
      Helpers.generateRandomBytes = stockRandom;
      nodeCrypto.randomFillSync = stockRandomFill;
    }
  }

  /** The stock code that the native path replaces: counted while the patched run runs. */
  const counted: [Any, string][] = [
    [original[0].prototype, "encryptIge"],
    [original[0].prototype, "decryptIge"],
    [MTProtoState.prototype, "_calcKey"],
  ];

  /**
   * `fn` on stock teleproto, then patched, with the same random bytes: both outcomes, and how many times the
   * patched run still called stock IGE or MTProtoState._calcKey (the fallbacks).
   */
  async function stockAndNative<T>(seed: string, fn: () => T | Promise<T>) {
    uninstallGramJS();
    const stock = await withRandom(seed, () => outcome(fn));
    install();
    let stockCalls = 0;
    const saved = counted.map(([object, key]) => object[key]);
    counted.forEach(([object, key], i) => {
      object[key] = function (this: unknown, ...args: unknown[]) {
        stockCalls++;
        return saved[i].apply(this, args);
      };
    });
    try {
      const native = await withRandom(seed, () => outcome(fn));
      return [stock, native, stockCalls] as const;
    } finally {
      counted.forEach(([object, key], i) => (object[key] = saved[i]));
      uninstallGramJS();
    }
  }

  async function newState(key: Buffer, rng: Prng, securityChecks = true): Promise<Any> {
    const authKey = new AuthKey();
    await authKey.setKey(key);
    const state = new MTProtoState(authKey, new Logger("error"), securityChecks);
    state.salt = bigInt(Helpers.readBigIntFromBuffer(Buffer.from(rng.bytes(8)), true, true));
    state.id = bigInt(Helpers.readBigIntFromBuffer(Buffer.from(rng.bytes(8)), true, true));
    return state;
  }

  /** A server-direction packet, built with node:crypto and the stock IGE (an independent msg_key). */
  async function serverPacket(state: Any, plaintext: Buffer, padding: Buffer): Promise<Buffer> {
    const key: Buffer = state.authKey.getKey();
    const data = Buffer.concat([plaintext, padding]);
    const msgKey = createHash("sha256").update(key.subarray(96, 128)).update(data).digest().subarray(8, 24);
    const { iv, key: aesKey } = await state._calcKey(key, msgKey, false);
    const keyId = Helpers.readBufferFromBigInt(state.authKey.keyId, 8);
    return Buffer.concat([keyId, msgKey, new original[0](aesKey, iv).encryptIge(data)]);
  }

  /** salt, session_id, msg_id, seq_no, length, an upload.file body of `size` bytes. */
  function serverPlaintext(state: Any, rng: Prng, size: number, sessionId = state.id, msgId?: Buffer): Buffer {
    const body = new Api.upload.File({
      type: new Api.storage.FileUnknown(),
      mtime: rng.u32() >>> 1,
      bytes: Buffer.from(rng.bytes(size)),
    }).getBytes();
    const header = Buffer.alloc(32);
    Helpers.toSignedLittleBuffer(state.salt, 8).copy(header, 0);
    Helpers.toSignedLittleBuffer(sessionId, 8).copy(header, 8);
    (msgId ?? Buffer.from(rng.bytes(8))).copy(header, 16);
    header.writeInt32LE(rng.int(0, 1000) * 2 + 1, 24);
    header.writeInt32LE(body.length, 28);
    return Buffer.concat([header, body]);
  }

  const summary = (message: Any) => ({
    msgId: message.msgId.toString(),
    seqNo: message.seqNo,
    className: message.obj?.className,
    bytes: Buffer.from(message.obj?.bytes ?? []).toString("hex"),
  });

  describe(`teleproto ${version} (${specifier})`, () => {
    afterEach(() => {
      uninstallGramJS();
      Helpers.generateRandomBytes = stockRandom;
      nodeCrypto.randomFillSync = stockRandomFill;
    });

    test("install patches this teleproto (crypto/crypto has no createCipheriv: left alone), uninstall restores it", () => {
      expect(TESTED_TELEPROTO_VERSIONS).toContain(version);
      const cryptoBefore = { ...cryptoJs };
      const info = install();
      expect(info).toMatchObject({ name: "teleproto", version });
      expect(isGramJSInstalled()).toBe(true);
      patchPoints.forEach(([object, key], i) => expect(object[key], key).not.toBe(original[i]));
      expect({ ...cryptoJs }).toEqual(cryptoBefore);
      const patched = patchPoints.map(([object, key]) => object[key]);
      install();
      patchPoints.forEach(([object, key], i) => expect(object[key]).toBe(patched[i]));
      expect(uninstallGramJS()).toBe(1);
      patchPoints.forEach(([object, key], i) => expect(object[key]).toBe(original[i]));
    });

    test("the version gate: another teleproto version is refused unless allowUntestedVersion", () => {
      const other = (id: string) =>
        id === `${specifier}/package.json` ? { name: "teleproto", version: "1.0.0" } : require(id);
      expect(() => installGramJS({ package: specifier, require: other })).toThrow(
        new RegExp(`teleproto 1\\.0\\.0 is not supported: the patches are tested with teleproto 1\\.229\\.0 and 214\\.1\\.7`),
      );
      expect(isGramJSInstalled()).toBe(false);
      expect(installGramJS({ package: specifier, require: other, allowUntestedVersion: true }).version).toBe("1.0.0");
      expect(IGEModule.IGE).not.toBe(original[0]);
    });

    test("IGE: the same bytes and errors as stock (random padding of partial blocks, bad key sizes, partial decrypts)", async () => {
      const rng = new Prng(`teleproto-ige-${version}`);
      for (let i = 0; i < 40; i++) {
        const key = Buffer.from(rng.bytes(i === 1 ? 16 : 32)), iv = Buffer.from(rng.bytes(i === 2 ? 16 : 32));
        const length = i < 8 ? rng.int(0, 40) : 16 * rng.int(1, 40) + (i % 3 === 0 ? rng.int(1, 15) : 0);
        const data = Buffer.from(rng.bytes(length));
        const [stock, native, stockCalls] = await stockAndNative(`ige-${i}`, () => {
          const encrypted: Buffer = new IGEModule.IGE(key, iv).encryptIge(data);
          const partial = new IGEModule.IGE(key, iv);
          return [
            Buffer.isBuffer(encrypted),
            encrypted.toString("hex"),
            new IGEModule.IGE(key, iv).decryptIge(encrypted).toString("hex"),
            (() => {
              try {
                return partial.decryptIge(data.length % 16 === 0 ? Buffer.concat([data, Buffer.alloc(3)]) : data);
              } catch (error) {
                return String(error);
              }
            })(),
          ];
        });
        expect(native, `case ${i}`).toEqual(stock);
        // Native for a 32-byte key and iv and non-empty data: only the partial decrypt is stock's (its error).
        if (i > 2 && length > 0) expect(stockCalls, `case ${i}`).toBe(1);
      }
    });

    test("CTR: the transport's streams continue across calls, as stock", async () => {
      const rng = new Prng(`teleproto-ctr-${version}`);
      for (let i = 0; i < 20; i++) {
        const key = Buffer.from(rng.bytes(32)), iv = Buffer.from(rng.bytes(16));
        const parts = rng.chunks(rng.int(0, 300), 1).map((n) => Buffer.from(rng.bytes(n)));
        const run = (stream: { encrypt(data: unknown): Buffer }) =>
          parts.map((part) => stream.encrypt(part).toString("hex")).concat(stream.encrypt("héllo").toString("hex"));
        const [stock, native] = await stockAndNative(`ctr-${i}`, () => run(new CTRModule.CTR(key, iv)));
        if (stock.error?.includes("ERR_CRYPTO_UNKNOWN_CIPHER")) {
          // Deno's node:crypto does not know "AES-256-CTR" (upper case): stock teleproto's transport cannot start
          // there; the native stream is checked against node:crypto's lower-case cipher instead.
          const reference = nodeCrypto.createCipheriv("aes-256-ctr", key, iv);
          expect(native.value).toEqual(run({ encrypt: (data) => Buffer.from(reference.update(data)) }));
        } else {
          expect(native).toEqual(stock);
        }
      }
      const [stock, native] = await stockAndNative("ctr-bad", () => new CTRModule.CTR(Buffer.alloc(32), Buffer.alloc(8)));
      expect(native).toEqual(stock);
    });

    test("factorize, sha1, sha256: the same results as stock", async () => {
      const rng = new Prng(`teleproto-misc-${version}`);
      const pqs = ["1724114033281923457", "2090522174869285481", "998244359987710471"]; // semiprimes (1000000007 * 998244353 last)
      for (const pq of pqs) {
        const [stock, native] = await stockAndNative(pq, () => {
          const { p, q } = Factorizator.factorize(bigInt(pq));
          return `${p} ${q}`;
        });
        expect(native).toEqual(stock);
      }
      for (let i = 0; i < 10; i++) {
        const data = Buffer.from(rng.bytes(rng.int(0, 200)));
        const [stock, native] = await stockAndNative(`hash-${i}`, async () =>
          [Buffer.from(await Helpers.sha1(data)).toString("hex"), Buffer.from(await Helpers.sha256(data)).toString("hex")]);
        expect(native).toEqual(stock);
      }
    });

    test("MTProtoState.encryptMessageData: the same packets as stock, given the same padding", async () => {
      const rng = new Prng(`teleproto-encrypt-${version}`);
      const key = Buffer.from(rng.bytes(256));
      for (let i = 0; i < 20; i++) {
        const data = Buffer.from(rng.bytes(i < 3 ? i * 7 : rng.int(16, 2000)));
        const seed = `state-${i}`;
        const [stock, native, stockCalls] = await stockAndNative(seed, async () => {
          const state = await newState(key, new Prng(seed));
          return (await state.encryptMessageData(data)).toString("hex");
        });
        expect(native.value, `case ${i}`).toBeDefined();
        expect(native).toEqual(stock);
        expect(stockCalls, `case ${i}`).toBe(data.length < 16 ? 1 : 0); // short data: stock's, with its _calcKey
      }
    });

    test("MTProtoState.decryptMessageData: the same messages, replays, session and msg_key errors as stock", async () => {
      const rng = new Prng(`teleproto-decrypt-${version}`);
      const key = Buffer.from(rng.bytes(256));
      for (let i = 0; i < 12; i++) {
        const seed = `decrypt-${i}`;
        const [stock, native, stockCalls] = await stockAndNative(seed, async () => {
          const local = new Prng(seed);
          const state = await newState(key, local, i % 4 !== 3);
          const sessionId = i % 3 === 2 ? bigInt(12345) : state.id; // a wrong session id: teleproto 1.229 rejects it
          const plaintext = serverPlaintext(state, local, local.int(0, 600), sessionId);
          const packet = await serverPacket(state, plaintext, Buffer.from(local.bytes(padFor(plaintext.length))));
          const tampered = Buffer.from(packet);
          tampered[packet.length - 1]! ^= 1;
          const results = [];
          for (const body of [packet, packet, tampered, packet.subarray(0, packet.length - 5)]) {
            results.push(await outcome(async () => summary(await state.decryptMessageData(body))));
          }
          return results;
        });
        expect(native, `case ${i}`).toEqual(stock);
        expect(stock.error, `case ${i}`).toBeUndefined();
        // serverPacket's own _calcKey and IGE, and the packet that is not whole blocks (stock's _calcKey and IGE).
        expect(stockCalls, `case ${i}`).toBe(4);
      }
      // The cases above include a message that is accepted and a replay that is refused, in both versions.
      const [stock] = await stockAndNative("decrypt-0", async () => {
        const local = new Prng("decrypt-0");
        const state = await newState(key, local);
        const plaintext = serverPlaintext(state, local, 10);
        const packet = await serverPacket(state, plaintext, Buffer.from(local.bytes(padFor(plaintext.length))));
        return [await outcome(() => state.decryptMessageData(packet)), await outcome(() => state.decryptMessageData(packet))];
      });
      expect(stock.value![1]!.error).toMatch(receivedIds ? /Rejected message: duplicate/ : /Duplicate msgIds/);
    });
  });
}
