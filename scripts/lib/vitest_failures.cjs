// Prints the failing tests of a vitest JSON report (--reporter=json): each
// failing file or test by name, with the first lines of its error, under a
// heading naming the run. Prints nothing when everything passed.
//   node scripts/lib/vitest_failures.cjs "vitest bun soft" report.json
"use strict";
const { readFileSync } = require("node:fs");
const { relative } = require("node:path");

const [, , run, file] = process.argv;
const MAX_LINES = 12;
const excerpt = (text) => {
  const lines = String(text).replace(/\x1b\[[0-9;]*m/g, "").trimEnd().split("\n").filter((line) => !line.includes("node_modules/"));
  const kept = lines.slice(0, MAX_LINES).map((line) => `        ${line}`);
  if (lines.length > MAX_LINES) kept.push(`        ... (${lines.length - MAX_LINES} more lines)`);
  return kept.join("\n");
};

let report;
try {
  report = JSON.parse(readFileSync(file, "utf8"));
} catch (error) {
  console.log(`FAILED in ${run}: no readable report (${error.message})`);
  process.exit(0);
}
const failures = [];
for (const result of report.testResults ?? []) {
  const where = relative(process.cwd(), result.name ?? "?");
  const failed = (result.assertionResults ?? []).filter((test) => test.status === "failed");
  for (const test of failed) failures.push(`  ${where} > ${test.fullName}\n${excerpt((test.failureMessages ?? []).join("\n"))}`);
  if (failed.length === 0 && result.status === "failed") failures.push(`  ${where} (the file failed)\n${excerpt(result.message || "no message")}`);
}
if (failures.length > 0) console.log(`FAILED in ${run} (${failures.length}):\n${failures.join("\n")}`);
