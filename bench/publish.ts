/**
 * `npm run bench:write`: copies one bench run from its results folder
 * (bench/lib/results.ts: $BENCH_RESULTS_DIR, else .tools/bench-results/)
 * into the committed bench/results/, then regenerates the AES tables of
 * docs/performance.md (between its `bench:aes-tables` markers) from
 * bench/results/. Each file copied replaces the committed one of the same
 * name, so every table still comes from one run and names its machine and
 * date. A quick run (BENCH_QUICK=1) is refused: its numbers are not meant
 * to be kept.
 *
 *   bun bench/publish.ts
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

import { aesTables } from "./markdown.ts";
import { COMMITTED_RESULTS_DIR, REPO_ROOT, resultsDirectory } from "./lib/results.ts";

/** The performance page and the markers around its generated tables. */
export const PERFORMANCE_PAGE = resolve(REPO_ROOT, "docs/performance.md");
export const TABLES_BEGIN = "<!-- bench:aes-tables:begin (bench/publish.ts writes this part) -->";
export const TABLES_END = "<!-- bench:aes-tables:end -->";

/** The files of a run worth keeping: its JSON results and the chart. */
export function publishableFiles(names: readonly string[]): string[] {
  return names.filter((name) => name.endsWith(".json") || name === "chart.svg").sort();
}

/** True for the JSON of a BENCH_QUICK run (bench.ts and node_binding.ts record it; others by their own flag). */
export function isQuickRun(json: unknown): boolean {
  const value = json as { config?: { quick?: unknown }; quick?: unknown } | null;
  return value?.config?.quick === true || value?.quick === true;
}

/** `page` with the part between the markers replaced by `tables`; throws when a marker is missing. */
export function replaceTables(page: string, tables: readonly string[]): string {
  const begin = page.indexOf(TABLES_BEGIN);
  const end = page.indexOf(TABLES_END);
  if (begin < 0 || end < begin) throw new Error(`${PERFORMANCE_PAGE}: the markers ${TABLES_BEGIN} ... ${TABLES_END} are missing`);
  return `${page.slice(0, begin + TABLES_BEGIN.length)}\n${tables.join("\n")}\n\n${page.slice(end)}`;
}

/** Copies the run in `from` to `to` and rewrites `page`; returns the names copied. */
export function publish(from: string, to: string = COMMITTED_RESULTS_DIR, page: string = PERFORMANCE_PAGE): string[] {
  if (resolve(from) === resolve(to)) throw new Error(`the results folder ${from} is the committed one: nothing to publish`);
  if (!existsSync(from)) throw new Error(`no bench results in ${from}: run \`npm run bench\` first`);
  const names = publishableFiles(readdirSync(from));
  if (names.length === 0) throw new Error(`no bench results in ${from}: run \`npm run bench\` first`);
  const quick = names.filter((name) => name.endsWith(".json") && isQuickRun(JSON.parse(readFileSync(join(from, name), "utf8"))));
  if (quick.length > 0) throw new Error(`${quick.join(", ")} in ${from} come from a quick run (BENCH_QUICK=1): not published`);
  mkdirSync(to, { recursive: true });
  for (const name of names) copyFileSync(join(from, name), join(to, name));
  writeFileSync(page, replaceTables(readFileSync(page, "utf8"), aesTables(to)));
  return names;
}

if (import.meta.main) {
  const from = fileURLToPath(resultsDirectory());
  const names = publish(from);
  console.log(`copied ${names.length} files from ${from} to bench/results/: ${names.join(", ")}`);
  console.log(`rewrote the tables of docs/performance.md`);
  process.exit(0);
}
