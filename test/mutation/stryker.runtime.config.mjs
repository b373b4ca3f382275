// Stryker over the Bun and Deno bindings (ts/runtime/bun.ts, deno.ts), which
// the Node run (stryker.config.mjs) never loads: STRYKER_RUNTIME=bun or deno.
// The command runner runs the vitest suites of the layers under the binding
// (runtime, aes, mtproto) in that runtime for every mutant (no per-test
// coverage there; --bail stops at the first failure), with the mutant chosen
// by Stryker's environment variable, which vitest's child processes inherit.
import base from "./stryker.config.mjs";

const runtime = process.env.STRYKER_RUNTIME;
const vitest = {
  bun: "./node_modules/.bin/bun --bun ./node_modules/vitest/vitest.mjs",
  deno: "./node_modules/.bin/deno run -A ./node_modules/vitest/vitest.mjs",
}[runtime];
if (vitest === undefined) throw new Error("STRYKER_RUNTIME must be bun or deno");

export default {
  ...base,
  testRunner: "command",
  plugins: [],
  commandRunner: { command: `${vitest} run --bail=1 test/runtime test/aes test/mtproto test/validate.test.ts` },
  // Under Bun also the lines of ts/validate.ts that only Bun runs: its cache of the Uint8Arrays already
  // checked (checkedBytes, undefined elsewhere) in byteLength and liveByteLength.
  mutate: runtime === "bun" ? ["ts/runtime/bun.ts", "ts/validate.ts:91-152"] : [`ts/runtime/${runtime}.ts`],
  coverageAnalysis: "off",
  ignoreStatic: false,
  jsonReporter: { fileName: `test/mutation/results/stryker-${runtime}.json` },
  timeoutMS: 120000,
};
