// Stryker over the loaders alone (ts/runtime/bun.ts, deno.ts, load.ts) with
// their stub tests (test/runtime/bun_loader, deno_loader, load_select), static
// mutants included; minutes instead of the whole ts/ run:
//   node26 node_modules/@stryker-mutator/core/bin/stryker.js run test/mutation/stryker.loaders.config.mjs
// STRYKER_RUNTIME=bun runs the same tests under Bun for bun.ts (its real
// bun:ffi, Bun.allocUnsafe and require defaults run only there), with
// Stryker's command runner. Reports go to .tools/stryker-loaders/.
import { fileURLToPath } from "node:url";

import base from "./stryker.config.mjs";

const vitestConfig = "test/mutation/vitest.loaders.config.ts";
const common = {
  ...base,
  ignoreStatic: false,
  concurrency: 1,
  reporters: ["clear-text", "json"],
};

const bun = {
  ...common,
  testRunner: "command",
  plugins: [],
  // absolute paths: the sandbox's node_modules link does not carry node_modules/.bin's relative links
  commandRunner: {
    command: `${fileURLToPath(new URL("../../node_modules/bun/bin/bun.exe", import.meta.url))} --bun ` +
      `${fileURLToPath(new URL("../../node_modules/vitest/vitest.mjs", import.meta.url))} run --bail=1 --config ${vitestConfig}`,
  },
  mutate: ["ts/runtime/bun.ts"],
  coverageAnalysis: "off",
  jsonReporter: { fileName: ".tools/stryker-loaders/stryker-bun.json" },
  timeoutMS: 120000,
};

const node = {
  ...common,
  vitest: { configFile: vitestConfig },
  mutate: ["ts/runtime/bun.ts", "ts/runtime/deno.ts", "ts/runtime/load.ts"],
  jsonReporter: { fileName: ".tools/stryker-loaders/stryker.json" },
};

export default process.env.STRYKER_RUNTIME === "bun" ? bun : node;
