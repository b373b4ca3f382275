/**
 * Worker for test/threads.test.ts: loads the library in its own thread and
 * runs seeded random operations, sending inputs and outputs back so the
 * main thread can check every one against the reference.
 */
import { cbc256Decrypt, cbc256Encrypt, ctr256Encrypt, CtrContext, ige256Decrypt, ige256Encrypt } from "../../ts/mod.ts";
import { Prng } from "./prng.ts";
import { workerScope } from "./web_worker.ts";

export type ThreadOp = "ige-enc" | "ige-dec" | "cbc-enc" | "cbc-dec" | "ctr" | "ctr-context";
export interface ThreadCase {
  op: ThreadOp;
  key: Uint8Array;
  iv: Uint8Array;
  state: number;
  data: Uint8Array;
  out: Uint8Array;
}

const OPS: readonly ThreadOp[] = ["ige-enc", "ige-dec", "cbc-enc", "cbc-dec", "ctr", "ctr-context"];

function run(seed: string, count: number): ThreadCase[] {
  const rng = new Prng(seed);
  const cases: ThreadCase[] = [];
  for (let i = 0; i < count; i++) {
    const op = OPS[i % OPS.length];
    const blockMode = op !== "ctr" && op !== "ctr-context";
    const length = rng.int(1, i % 10 === 0 ? 65536 : 2048);
    const data = rng.bytes(blockMode ? Math.ceil(length / 16) * 16 : length);
    const key = rng.bytes(32);
    const iv = rng.bytes(op.startsWith("ige") ? 32 : 16);
    const state = op === "ctr" || op === "ctr-context" ? rng.int(0, 15) : 0;
    let out: Uint8Array;
    switch (op) {
      case "ige-enc": out = ige256Encrypt(data, key, iv); break;
      case "ige-dec": out = ige256Decrypt(data, key, iv); break;
      case "cbc-enc": out = cbc256Encrypt(data, key, iv.slice()); break;
      case "cbc-dec": out = cbc256Decrypt(data, key, iv.slice()); break;
      case "ctr": out = ctr256Encrypt(data, key, iv.slice(), Uint8Array.of(state)); break;
      case "ctr-context": {
        // try/finally rather than `using`: Node 22 runs this file unchanged (type stripping only), without `using`.
        const ctx = new CtrContext(key, iv, state);
        const parts: Uint8Array[] = [];
        try {
          for (let at = 0; at < data.length; at += 1000) parts.push(ctx.update(data.subarray(at, at + 1000)));
        } finally {
          ctx.dispose();
        }
        out = new Uint8Array(data.length);
        let at = 0;
        for (const p of parts) out.set(p, at), at += p.length;
        break;
      }
    }
    cases.push({ op, key, iv, state, data, out });
  }
  return cases;
}

const scope = workerScope();

scope.onmessage = (event: { data: { seed: string; count: number } }) => {
  scope.postMessage(run(event.data.seed, event.data.count));
};
// Messages sent before this module finished loading may be dropped in Bun,
// so the parent waits for this.
scope.postMessage("ready");
