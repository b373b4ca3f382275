import { fileURLToPath } from "node:url";

import { defineConfig } from "vitest/config";

// The end-to-end sessions (test/e2e/run.sh runs them under each runtime):
// one process per file (pool "forks"), as the main suite, all four files at
// once: the sessions mostly wait (on the clients' own reconnect and flush
// timers), so running them side by side costs little CPU.
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    include: ["test/e2e/**/*.e2e.ts"],
    pool: "forks",
    maxWorkers: 4,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
