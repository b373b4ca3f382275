/**
 * The mixed workload of the Worker stress test (test/soak/stress.ts): a
 * seeded sequence of calls over the whole API, each call's result folded
 * into a 32-bit digest (FNV-1a) so a Worker can compare every call with the
 * digest the main thread computed single-threaded for the same seed.
 *
 * Calls: the six one-shots (IGE, CBC both ways, CTR at any state), CTR /
 * IGE / CBC contexts fed in random chunks, the MTProto message layer
 * (AuthKey encrypt with given padding, then decrypt), SHA-256 and SHA-1,
 * factorizePQ. Every 1000 calls the process-wide backend is switched to a
 * random available one (contexts keep theirs): all backends give the same
 * bytes, so the digests must not change while other threads switch too.
 */
import {
  AuthKey,
  backends,
  cbc256Decrypt,
  cbc256Encrypt,
  CbcContext,
  ctr256Encrypt,
  CtrContext,
  factorizePQ,
  ige256Decrypt,
  ige256Encrypt,
  IgeContext,
  setBackend,
  sha1,
  sha256,
} from "../../ts/mod.ts";
import { Prng } from "../helpers/prng.ts";

/** `using` without the syntax (Node 22 runs this file unchanged, type stripping only): fn(ctx), then dispose. */
function disposing<C extends { dispose(): void }, R>(ctx: C, fn: (ctx: C) => R): R {
  try {
    return fn(ctx);
  } finally {
    ctx.dispose();
  }
}

function fnv(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193) >>> 0;
  return h;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, at), at += p.length;
  return out;
}

/** Feeds `data` to `update` in random chunks (multiples of `unit`). */
function chunked(rng: Prng, data: Uint8Array, unit: number, update: (d: Uint8Array) => Uint8Array): Uint8Array {
  if (data.length === 0) return update(data);
  return concat(rng.chunks(data.length, unit, 6).reduce<{ at: number; out: Uint8Array[] }>((acc, n) => {
    acc.out.push(update(data.subarray(acc.at, acc.at + n)));
    acc.at += n;
    return acc;
  }, { at: 0, out: [] }).out);
}

const OPS = 13;

/** Runs `count` calls for `seed`; returns one digest per call. */
export function workload(seed: string, count: number, switchBackends: boolean): Uint32Array {
  const rng = new Prng(seed);
  const switcher = new Prng(`${seed}/backends`); // its own stream: switching must not change the calls
  const available = backends().filter((b) => b.available).map((b) => b.name);
  const digests = new Uint32Array(count);
  const authKey = new AuthKey(rng.bytes(256));
  try {
    for (let i = 0; i < count; i++) {
      if (switchBackends && i % 1000 === 0) setBackend(switcher.pick(available));
      const op = rng.int(0, OPS - 1);
      const len = rng.int(0, rng.int(0, 9) === 0 ? 16384 : 512);
      const blocks = Math.max(16, len - (len % 16));
      const key = rng.bytes(32);
      let out: Uint8Array;
      switch (op) {
        case 0: out = ige256Encrypt(rng.bytes(blocks), key, rng.bytes(32)); break;
        case 1: out = ige256Decrypt(rng.bytes(blocks), key, rng.bytes(32)); break;
        case 2: {
          const iv = rng.bytes(16);
          out = concat([cbc256Encrypt(rng.bytes(blocks), key, iv), iv]);
          break;
        }
        case 3: {
          const iv = rng.bytes(16);
          out = concat([cbc256Decrypt(rng.bytes(blocks), key, iv), iv]);
          break;
        }
        case 4: {
          const iv = rng.bytes(16), state = Uint8Array.of(rng.int(0, 15));
          if (rng.int(0, 3) === 0) iv.fill(0xff, 0, 15); // near the counter wrap
          out = concat([ctr256Encrypt(rng.bytes(Math.max(1, len)), key, iv, state), iv, state]);
          break;
        }
        case 5: {
          out = disposing(new CtrContext(key, rng.bytes(16), rng.int(0, 15)), (ctx) => {
            const stream = chunked(rng, rng.bytes(len), 1, (d) => ctx.update(d));
            const pos = ctx.position();
            return concat([stream, pos.iv, Uint8Array.of(pos.state)]);
          });
          break;
        }
        case 6:
        case 7: {
          out = disposing(new IgeContext(key, rng.bytes(32), { decrypt: op === 7 }),
            (ctx) => chunked(rng, rng.bytes(blocks), 16, (d) => ctx.update(d)));
          break;
        }
        case 8:
        case 9: {
          out = disposing(new CbcContext(key, rng.bytes(16), { decrypt: op === 9 }),
            (ctx) => chunked(rng, rng.bytes(blocks), 16, (d) => ctx.update(d)));
          break;
        }
        case 10: {
          // MTProto: a message with a consistent header and given padding, then back
          const body = rng.bytes(len - (len % 4));
          const header = rng.bytes(32);
          new DataView(header.buffer).setUint32(28, body.length, true);
          const plaintext = concat([header, body]);
          const padLen = 12 + ((16 - ((plaintext.length + 12) % 16)) % 16) + 16 * rng.int(0, 4);
          const server = rng.int(0, 1) === 1;
          const packet = authKey.encryptMessage(plaintext, { server, padding: rng.bytes(padLen) });
          const back = authKey.decryptMessage(packet, { server: !server });
          if (fnv(back) !== fnv(plaintext)) throw new Error("MTProto round trip differs");
          out = packet;
          break;
        }
        case 11: out = rng.int(0, 1) ? sha256(rng.bytes(len)) : sha1(rng.bytes(len), rng.bytes(7)); break;
        default: {
          // a semiprime of two 16..31-bit odd numbers (not always primes: any composite is split)
          const a = BigInt(rng.int(1 << 15, 0x7fffffff) | 1), b = BigInt(rng.int(1 << 15, 0x7fffffff) | 1);
          const [p, q] = factorizePQ(a * b);
          out = new Uint8Array(new BigUint64Array([p, q]).buffer);
        }
      }
      digests[i] = fnv(out, op);
    }
  } finally {
    authKey.dispose();
  }
  return digests;
}
