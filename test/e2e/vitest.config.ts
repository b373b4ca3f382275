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
    // Generous for a loaded machine (2 cores shared with other suites); a test or
    // hook past these fails with vitest's own "timed out in N ms" message.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
