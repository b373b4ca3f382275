// Stryker over the files named in STRYKER_FILES (comma-separated), static
// mutants included, against every vitest suite that covers them: minutes for
// a file instead of hours for ts/. Reports go to .tools/stryker-files/.
//   STRYKER_FILES=ts/runtime/locate.ts node26 node_modules/@stryker-mutator/core/bin/stryker.js \
//     run test/mutation/stryker.files.config.mjs
// Given after a whole-ts/ report, summarize_ts.mjs merges this one's files into it.
import base from "./stryker.config.mjs";

const files = (process.env.STRYKER_FILES ?? "").split(",").filter((file) => file !== "");
if (files.length === 0) throw new Error("set STRYKER_FILES to the ts/ files to mutate, comma-separated");

export default {
  ...base,
  mutate: files,
  ignoreStatic: false,
  reporters: ["clear-text", "json"],
  jsonReporter: { fileName: `.tools/stryker-files/${files.map((f) => f.replace(/^ts\//, "").replace(/[/.]/g, "_")).join("+")}.json` },
  tempDirName: ".stryker-tmp-files",
};
