/**
 * One Worker API for the three runtimes: Bun and Deno have the web `Worker`;
 * Node.js has `node:worker_threads`, wrapped here into the same shape
 * (`onmessage` / `onerror` / `postMessage` / `terminate`, messages as
 * `{ data }`). Used by the thread tests, the Worker stress and the threads
 * bench, so each runs unchanged under Node. Worker scripts are TypeScript:
 * Node runs them with its built-in type stripping (22.18 and later).
 */
import { parentPort, Worker as NodeWorker } from "node:worker_threads";

const runtimeGlobals = globalThis as { Bun?: unknown; Deno?: unknown; Worker?: unknown };
/** True in Node.js (Bun and Deno have web Workers and are used as they are). */
export const isNode = runtimeGlobals.Bun === undefined && runtimeGlobals.Deno === undefined;

/** The part of a web Worker the tests use. */
export interface WebWorker {
  onmessage: ((event: { data: any }) => void) | null;
  onerror: ((event: { message: string }) => void) | null;
  postMessage(message: unknown): void;
  terminate(): void;
}

/** A module Worker running `url` (a web Worker, or a worker_threads Worker behind the same interface in Node). */
export function startWorker(url: URL): WebWorker {
  if (!isNode) {
    const WebWorkerClass = runtimeGlobals.Worker as new (url: URL, options: { type: "module" }) => WebWorker;
    return new WebWorkerClass(url, { type: "module" });
  }
  const worker = new NodeWorker(url);
  const wrapper: WebWorker = {
    onmessage: null,
    onerror: null,
    postMessage: (message) => worker.postMessage(message),
    terminate: () => void worker.terminate(),
  };
  worker.on("message", (data) => wrapper.onmessage?.({ data }));
  worker.on("error", (error: Error) => wrapper.onerror?.({ message: error.message }));
  return wrapper;
}

/** Inside a Worker: receive and send, the same in every runtime. */
export interface WorkerScope {
  set onmessage(handler: (event: { data: any }) => void);
  postMessage(message: unknown): void;
}

/** This Worker's side of the channel (the web Worker global scope, or worker_threads' parentPort). */
export function workerScope(): WorkerScope {
  if (!isNode) return globalThis as unknown as WorkerScope;
  const port = parentPort;
  if (port === null) throw new Error("workerScope() outside a Worker");
  return {
    set onmessage(handler: (event: { data: any }) => void) {
      port.on("message", (data) => handler({ data }));
    },
    postMessage: (message) => port.postMessage(message),
  };
}
