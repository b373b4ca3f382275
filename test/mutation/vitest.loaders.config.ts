import { defineConfig } from "vitest/config";

// The loaders' stub tests alone, for the narrowed Stryker run (stryker.loaders.config.mjs).
export default defineConfig({
  test: {
    include: ["test/runtime/bun_loader.test.ts", "test/runtime/deno_loader.test.ts", "test/runtime/load_select.test.ts"],
    pool: "forks",
    testTimeout: 60_000,
  },
});
