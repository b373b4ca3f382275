/**
 * The loopback server of a session file, started with a lifetime that a slow
 * run cannot reach unnoticed. Each file's afterAll stops its server; the
 * self-stop (startServer's timeoutMs) only reclaims a server whose file never
 * got there. The lifetime is longer than test/e2e/run.sh's limit per runtime
 * (run.sh exports it as E2E_SERVER_LIFETIME_MS: its E2E_TIMEOUT plus a
 * minute), so a slow run is ended by that limit, which names itself, never
 * by a server vanishing mid-session; and if a server does stop itself, it
 * says so on stderr.
 */
import process from "node:process";

import { type LoopbackServer, type ServerOptions, startServer } from "./server/server.ts";

/** Milliseconds: $E2E_SERVER_LIFETIME_MS, else 15 minutes. */
export const SESSION_SERVER_LIFETIME_MS = Number(process.env.E2E_SERVER_LIFETIME_MS ?? 15 * 60_000);

/** startServer with {@link SESSION_SERVER_LIFETIME_MS}, announcing a self-stop; `what` names the sessions it serves. */
export async function startSessionServer(what: string, options: Omit<ServerOptions, "timeoutMs"> = {}): Promise<LoopbackServer> {
  const server = await startServer({ ...options, timeoutMs: SESSION_SERVER_LIFETIME_MS });
  void server.stopped.then((why) => {
    if (why === "timeout") {
      console.error(
        `e2e: the loopback server of "${what}" stopped itself after its lifetime of ${SESSION_SERVER_LIFETIME_MS / 1000} s ` +
          `(E2E_SERVER_LIFETIME_MS); the tests still running there fail with connection errors`,
      );
    }
  });
  return server;
}
