/**
 * Soak: long runs of the TypeScript API that must leave resident memory
 * flat. Runs under Bun, Deno and Node.js:
 *
 *   bun test/soak/soak.ts [--count=N] [--only=name,...] [--baseline=F] [--tolerance=T]
 *   deno run -A --v8-flags=--expose-gc test/soak/soak.ts [same options]
 *   node --expose-gc test/soak/soak.ts [same options]
 *
 * test/soak/run.sh runs each scenario in a fresh process (one scenario's
 * garbage must not move the next one's curve).
 *
 * Scenarios (each N iterations; default N = 1,000,000, `npm run soak`):
 *   ctx-dispose     create, update, dispose a context (CTR, IGE, CBC in turn)
 *   ctx-drop        create and update contexts, never dispose them, 1000 per
 *                   event-loop turn as a server would: the FinalizationRegistry
 *                   must free them (no forced GC during the run)
 *   oneshot         one-shot calls of every mode
 *   authkey-dispose AuthKey create, encrypt + decrypt a message, dispose
 *   authkey-drop    AuthKey create + one message, never disposed, 1000 per turn
 *
 * For each: the resident set size (RSS) after every 5% of the run, and the
 * check that RSS at the end is within T (default 10%) of RSS after the
 * first F of the run (default 10%; short runs in `npm test` use 50%, after
 * the engines' heaps have warmed up). A leak or a finalizer that falls
 * behind grows it. After the run, forced GCs
 * (Bun.gc(true), or gc() under --expose-gc) and a bounded number of turns
 * must leave no native object alive: the library's count of objects neither
 * disposed nor finalized (ts/gc_pressure.ts) must be back at 0.
 *
 * Prints one line per scenario and "N passed, N failed"; exits 1 on failure.
 */
import {
  AuthKey,
  cbc256Decrypt,
  cbc256Encrypt,
  CbcContext,
  ctr256Encrypt,
  CtrContext,
  ige256Decrypt,
  ige256Encrypt,
  IgeContext,
} from "../../ts/mod.ts";
import { nativeBacklog } from "../../ts/runtime/gc_pressure.ts";

const runtimeGlobals = globalThis as { Bun?: unknown; Deno?: unknown };
const runtime = runtimeGlobals.Bun !== undefined ? "bun" : runtimeGlobals.Deno !== undefined ? "deno" : "node";

interface Args {
  count: number;
  only: string[] | null;
  tolerance: number;
  baseline: number;
}

function parseArgs(): Args {
  const argv: string[] = runtime === "deno"
    ? (globalThis as unknown as { Deno: { args: string[] } }).Deno.args
    : (globalThis as unknown as { process: { argv: string[] } }).process.argv.slice(2);
  const args: Args = { count: 1_000_000, only: null, tolerance: 0.1, baseline: 0.1 };
  for (const a of argv) {
    const [k, v] = a.replace(/^--/, "").split("=");
    if (k === "count") args.count = Number(v);
    else if (k === "only") args.only = v!.split(",");
    else if (k === "tolerance") args.tolerance = Number(v);
    else if (k === "baseline") args.baseline = Number(v);
    else throw new Error(`unknown argument ${a}`);
  }
  return args;
}

function rss(): number {
  const g = globalThis as unknown as {
    Deno?: { memoryUsage(): { rss: number } };
    process?: { memoryUsage(): { rss: number } };
  };
  return g.Deno ? g.Deno.memoryUsage().rss : g.process!.memoryUsage().rss;
}

/** A full GC where the runtime allows it; false if it cannot be forced. */
function forceGc(): boolean {
  const g = globalThis as unknown as { Bun?: { gc(sync: boolean): void }; gc?: () => void };
  if (g.Bun) {
    g.Bun.gc(true);
    return true;
  }
  if (typeof g.gc === "function") {
    g.gc();
    return true;
  }
  return false;
}

const turn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
const MiB = 1024 * 1024;

// Fixed inputs: the soak is about memory, the tests elsewhere check bytes.
const key = new Uint8Array(32).map((_, i) => i * 7 + 1);
const iv32 = new Uint8Array(32).map((_, i) => i * 13 + 5);
const iv16 = iv32.subarray(0, 16);
const data = new Uint8Array(256).map((_, i) => i);
const authKeyBytes = new Uint8Array(256).map((_, i) => (i * 31 + 17) & 0xff);
const message = new Uint8Array(64);
new DataView(message.buffer).setUint32(28, 32, true); // message_data_length = 32
const padding = new Uint8Array(16).fill(0x42);


type Step = (i: number) => void;

// Holds what it creates: the check must fail on it (run only when named, by run.sh's self-test).
const leaked: unknown[] = [];

const scenarios: Record<string, { step: Step; selfTest?: boolean }> = {
  "leak-self-test": {
    selfTest: true,
    step: (i) => {
      const ctx = new CtrContext(key, iv16, i & 15);
      ctx.update(data);
      leaked.push(ctx);
    },
  },
  "ctx-dispose": {
    step: (i) => {
      const k = i % 3;
      const ctx = k === 0 ? new CtrContext(key, iv16, i & 15) : k === 1 ? new IgeContext(key, iv32) : new CbcContext(key, iv16);
      ctx.update(data);
      ctx.dispose();
    },
  },
  "ctx-drop": {
    step: (i) => {
      const k = i % 3;
      const ctx = k === 0 ? new CtrContext(key, iv16, i & 15) : k === 1 ? new IgeContext(key, iv32) : new CbcContext(key, iv16);
      ctx.update(data);
    },
  },
  oneshot: {
    step: (i) => {
      switch (i % 5) {
        case 0: ige256Encrypt(data, key, iv32); break;
        case 1: ige256Decrypt(data, key, iv32); break;
        case 2: cbc256Encrypt(data, key, iv16.slice()); break;
        case 3: cbc256Decrypt(data, key, iv16.slice()); break;
        default: ctr256Encrypt(data, key, iv16.slice(), Uint8Array.of(i & 15));
      }
    },
  },
  "authkey-dispose": {
    step: () => {
      const ak = new AuthKey(authKeyBytes);
      const packet = ak.encryptMessage(message, { server: true, padding });
      ak.decryptMessage(packet);
      ak.dispose();
    },
  },
  "authkey-drop": {
    step: () => {
      const ak = new AuthKey(authKeyBytes);
      ak.encryptMessage(message, { padding });
    },
  },
};

const PER_TURN = 1000;

async function run(name: string, step: Step, count: number, args: Args): Promise<boolean> {
  forceGc();
  await turn();
  const samples: number[] = [];
  const sampleEvery = Math.max(1, Math.floor(count / 20));
  const start = performance.now();
  const startRss = rss();
  const hintsBefore = nativeBacklog().hints;
  for (let i = 0; i < count;) {
    const end = Math.min(count, i + PER_TURN);
    for (; i < end; i++) {
      step(i);
      if ((i + 1) % sampleEvery === 0) samples.push(rss());
    }
    await turn(); // a server yields to the event loop between batches
  }
  const seconds = (performance.now() - start) / 1000;
  const hints = nativeBacklog().hints - hintsBefore;
  const base = samples[Math.max(0, Math.round(args.baseline * 20) - 1)] ?? samples[0]!; // after the first 10% (2 of 20 samples)
  const last = samples[samples.length - 1]!;
  const peak = Math.max(...samples);
  const curve = samples.map((s) => (s / MiB).toFixed(0)).join(" ");
  let ok = last <= base * (1 + args.tolerance);
  let detail = `RSS MiB start ${(startRss / MiB).toFixed(0)}, at ${args.baseline * 100}% ${(base / MiB).toFixed(1)}, ` +
    `end ${(last / MiB).toFixed(1)} (${((last / base - 1) * 100).toFixed(1)}%), peak ${(peak / MiB).toFixed(0)}`;
  // Every native object must be freed: disposed, or (dropped) finalized
  // after forced GCs and event-loop turns for the finalizers. The library's
  // own count (ts/gc_pressure.ts) says how many are neither.
  const canForce = forceGc();
  for (let t = 0; t < 200 && nativeBacklog().outstanding > 0; t++) {
    await turn();
    if (t % 10 === 9) forceGc();
  }
  const left = nativeBacklog().outstanding;
  detail += `; GC requests ${hints}; native objects left ${left}${canForce ? "" : " (GC could not be forced)"}`;
  if (canForce && left !== 0) ok = false;
  console.log(`${ok ? "ok  " : "FAIL"} ${runtime} ${name}: ${count} in ${seconds.toFixed(1)} s (${(count / seconds / 1000).toFixed(0)}k/s); ${detail}`);
  console.log(`     RSS curve (MiB, every 5%): ${curve}`);
  return ok;
}

const args = parseArgs();
let passed = 0;
let failed = 0;
for (const [name, s] of Object.entries(scenarios)) {
  if (args.only ? !args.only.includes(name) : s.selfTest) continue;
  if (await run(name, s.step, args.count, args)) passed++;
  else failed++;
}
console.log(`${passed} passed, ${failed} failed`);
if (failed) {
  const g = globalThis as unknown as { Deno?: { exit(code: number): never }; process?: { exit(code: number): never } };
  if (g.Deno) g.Deno.exit(1);
  else g.process!.exit(1);
}
