/**
 * Where bench runs write (bench/lib/results.ts) and what publishing a run
 * does (bench/publish.ts): a run goes to a scratch folder, never to the
 * committed bench/results/; publishing copies one run's files, refuses a
 * quick run, and rewrites only the marked part of the performance page.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { afterEach, describe, expect, test } from "vitest";

import { COMMITTED_RESULTS_DIR, REPO_ROOT, resultsDirectory, SCRATCH_RESULTS_DIR } from "../../bench/lib/results.ts";
import {
  isQuickRun,
  publish,
  publishableFiles,
  replaceTables,
  TABLES_BEGIN,
  TABLES_END,
} from "../../bench/publish.ts";

const scratch: string[] = [];
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "bench-results-test-"));
  scratch.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("resultsDirectory", () => {
  test("unset or empty BENCH_RESULTS_DIR: .tools/bench-results/ of this checkout (git-ignored), not bench/results/", () => {
    for (const env of [{}, { BENCH_RESULTS_DIR: "" }]) {
      const dir = resultsDirectory(env, "/somewhere");
      expect(fileURLToPath(dir)).toBe(`${join(REPO_ROOT, ".tools", "bench-results")}/`);
      expect(fileURLToPath(dir)).not.toBe(`${COMMITTED_RESULTS_DIR}/`);
    }
    expect(SCRATCH_RESULTS_DIR).toBe(join(REPO_ROOT, ".tools", "bench-results"));
    expect(COMMITTED_RESULTS_DIR).toBe(join(REPO_ROOT, "bench", "results"));
  });

  test("BENCH_RESULTS_DIR: absolute as given, relative to the working directory; always a folder URL", () => {
    expect(resultsDirectory({ BENCH_RESULTS_DIR: "/tmp/run1" }, "/x").href).toBe("file:///tmp/run1/");
    expect(resultsDirectory({ BENCH_RESULTS_DIR: "/tmp/run1/" }, "/x").href).toBe("file:///tmp/run1/");
    expect(resultsDirectory({ BENCH_RESULTS_DIR: "out/run2" }, "/home/me").href).toBe("file:///home/me/out/run2/");
    expect(new URL("bun.json", resultsDirectory({ BENCH_RESULTS_DIR: "/tmp/r" })).href).toBe("file:///tmp/r/bun.json");
  });
});

describe("publishing a run", () => {
  const page = `# Performance\n\nintro\n\n${TABLES_BEGIN}\nold table\n${TABLES_END}\n\nafter\n`;

  test("publishableFiles: the JSON results and the chart, sorted; nothing else", () => {
    expect(publishableFiles(["node.json", "chart.svg", "notes.txt", "bun.json", "x.tmp"])).toEqual([
      "bun.json",
      "chart.svg",
      "node.json",
    ]);
  });

  test("isQuickRun: config.quick or quick true; false otherwise", () => {
    expect(isQuickRun({ config: { quick: true } })).toBe(true);
    expect(isQuickRun({ quick: true })).toBe(true);
    expect(isQuickRun({ config: { quick: false }, quick: false })).toBe(false);
    expect(isQuickRun({ quick: "yes" })).toBe(false);
    expect(isQuickRun({})).toBe(false);
    expect(isQuickRun(null)).toBe(false);
  });

  test("replaceTables: only the text between the markers changes; a page without them is an error", () => {
    const next = replaceTables(page, ["| new |", "|---|"]);
    expect(next).toBe(`# Performance\n\nintro\n\n${TABLES_BEGIN}\n| new |\n|---|\n\n${TABLES_END}\n\nafter\n`);
    expect(replaceTables(next, ["| new |", "|---|"])).toBe(next);
    expect(() => replaceTables("# no markers\n", [])).toThrow("markers");
  });

  test("publish copies the run's files and rewrites the page from the destination", () => {
    const from = folder();
    const to = folder();
    const pageFile = join(folder(), "performance.md");
    writeFileSync(pageFile, page);
    writeFileSync(join(from, "openssl.json"), JSON.stringify({ version: "OpenSSL 3" }));
    writeFileSync(join(from, "chart.svg"), "<svg/>");
    writeFileSync(join(from, "log.txt"), "not copied");
    writeFileSync(join(to, "python.json"), JSON.stringify({ quick: false, kept: true }));
    expect(publish(from, to, pageFile)).toEqual(["chart.svg", "openssl.json"]);
    expect(readFileSync(join(to, "chart.svg"), "utf8")).toBe("<svg/>");
    expect(JSON.parse(readFileSync(join(to, "python.json"), "utf8"))).toEqual({ quick: false, kept: true });
    expect(() => readFileSync(join(to, "log.txt"))).toThrow();
    // no {bun,deno,node}.json in the destination: the generated part is empty
    expect(readFileSync(pageFile, "utf8")).toBe(`# Performance\n\nintro\n\n${TABLES_BEGIN}\n\n\n${TABLES_END}\n\nafter\n`);
  });

  test("publish refuses a quick run, an empty or missing folder, and the committed folder itself, copying nothing", () => {
    const from = folder();
    const to = folder();
    const pageFile = join(folder(), "performance.md");
    writeFileSync(pageFile, page);
    writeFileSync(join(from, "bun.json"), JSON.stringify({ config: { quick: true } }));
    expect(() => publish(from, to, pageFile)).toThrow("bun.json");
    expect(() => readFileSync(join(to, "bun.json"))).toThrow();
    expect(readFileSync(pageFile, "utf8")).toBe(page);
    expect(() => publish(folder(), to, pageFile)).toThrow("run `npm run bench` first");
    expect(() => publish(join(from, "missing"), to, pageFile)).toThrow("run `npm run bench` first");
    expect(() => publish(to, to, pageFile)).toThrow("is the committed one");
  });
});
