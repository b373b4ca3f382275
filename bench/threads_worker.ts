/**
 * One thread of bench/threads.ts. Loads the library (through ts/mod.ts, as
 * any Worker using tgcrypto-ffi would), then on each "run" message encrypts
 * a 1 MiB message with AES-256-IGE over and over for the given time and
 * reports the bytes done.
 */

import { backend, ige256Encrypt, ige256EncryptInto } from "../ts/mod.ts";
import { workerScope } from "../test/helpers/web_worker.ts";

export type Variant = "ige256Encrypt" | "ige256EncryptInto";

export interface RunMessage {
  readonly type: "run";
  readonly variant: Variant;
  readonly durationMs: number;
}

export type WorkerReply =
  | { readonly type: "ready"; readonly backend: string }
  | { readonly type: "done"; readonly bytes: number; readonly ms: number; readonly checksum: number };

const scope = workerScope();

const SIZE = 1024 * 1024;
const data = new Uint8Array(SIZE);
for (let offset = 0; offset < SIZE; offset += 65536) crypto.getRandomValues(data.subarray(offset, offset + 65536));
const out = new Uint8Array(SIZE);
const key = crypto.getRandomValues(new Uint8Array(32));
const iv = crypto.getRandomValues(new Uint8Array(32));

function run(variant: Variant, durationMs: number): WorkerReply {
  let checksum = 0;
  let calls = 0;
  const start = performance.now();
  let now = start;
  // Check the clock every 4 calls (~3 ms): rare enough to cost nothing.
  while (now - start < durationMs) {
    for (let i = 0; i < 4; i++) {
      checksum ^= variant === "ige256Encrypt" ? ige256Encrypt(data, key, iv)[0]! : ige256EncryptInto(out, data, key, iv)[0]!;
    }
    calls += 4;
    now = performance.now();
  }
  return { type: "done", bytes: calls * SIZE, ms: now - start, checksum };
}

scope.onmessage = (event: { data: RunMessage }) => {
  const message = event.data;
  if (message.type === "run") scope.postMessage(run(message.variant, message.durationMs));
};

// Warm up both loops before saying ready.
run("ige256Encrypt", 50);
run("ige256EncryptInto", 50);
scope.postMessage({ type: "ready", backend: backend() });
