import { defineConfig } from "vitest/config";

// Runs unchanged under Bun, Deno and Node.js:
//   TGCRYPTO_BACKEND=soft ./node_modules/.bin/bun --bun ./node_modules/vitest/vitest.mjs run
//   TGCRYPTO_BACKEND=soft ./node_modules/.bin/deno run -A ./node_modules/vitest/vitest.mjs run
//   TGCRYPTO_BACKEND=soft ./node_modules/node26/bin/node ./node_modules/vitest/vitest.mjs run
// "forks": every test file runs in a child process of the same runtime (bun:ffi
// and Deno.dlopen both work there, and the environment, TGCRYPTO_BACKEND
// included, is inherited); a crash in native code fails that file instead of
// taking down the runner.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    testTimeout: 60_000,
  },
});
