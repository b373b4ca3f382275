// Stryker over ts/ (test/mutation/run.sh --ts). The vitest suites run under
// Node 26 (the library loads through its Node-API addon) in Stryker's sandbox,
// a copy of the sources, tests and the dev build in zig-out/lib/.
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.config.ts" },
  plugins: ["@stryker-mutator/vitest-runner"],
  mutate: ["ts/**/*.ts", "!ts/**/*.d.ts"],
  coverageAnalysis: "perTest",
  reporters: ["clear-text", "json", "progress"],
  jsonReporter: { fileName: "test/mutation/results/stryker.json" },
  concurrency: 2,
  timeoutMS: 60000,
  tempDirName: ".stryker-tmp",
  // The sandbox needs the sources and tests, not the tools, builds and results. Of bindings/ the tests
  // need bindings/node (finalization.test.ts runs its heap probe) and the files contract_check.test.ts copies.
  ignorePatterns: ["/.tools", "/.zig-cache", "/zig-out/*", "!/zig-out/lib", "/bench", "/test/fuzz", "/test/soak/results",
    "/bindings/python/*", "!/bindings/python/ext", "!/bindings/python/src", "/examples"],
  cleanTempDir: true,
  // Static mutants (module-level values: the symbol table, messages, constants) have no per-test
  // coverage, so each runs the whole suite (~30 s here: 500 of them take hours). STRYKER_STATIC=1 runs them too.
  ignoreStatic: process.env.STRYKER_STATIC !== "1",
};
