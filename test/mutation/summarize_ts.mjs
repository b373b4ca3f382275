// Turns Stryker's JSON report (test/mutation/results/stryker.json) into
// test/mutation/results/<date>-ts.txt, in the form of the C part's results:
// every mutant with its status, the score per file and per area, and the
// survivors, each matched against test/mutation/equivalent_ts.txt.
//
//   node test/mutation/summarize_ts.mjs [stryker.json ...] [--out FILE]
//
// A mutant's id is a hash of its file, the text of its line, the mutated
// text and the replacement, so it survives edits elsewhere in the file
// (Stryker's own ids are run-local numbers). Exits 1 if a mutant survived
// that equivalent_ts.txt does not explain.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync, existsSync, statSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const args = process.argv.slice(2);
const outAt = args.indexOf("--out");
const out = outAt >= 0 ? args[outAt + 1] : join(here, "results", `${new Date().toISOString().slice(0, 10)}-ts.txt`);
// Several reports. Where a later one has a file with the same source, its mutants are merged in one by one
// (a mutant caught in either run is caught; else the later run's status stands): the Bun and Deno runs of
// their bindings, and of validate.ts's Bun-only lines, replace the Node run's "no coverage" there. A file
// whose source changed between the runs (rerun after an edit) is taken whole from the later report.
const inputs = args.filter((a, i) => !a.startsWith("--") && (outAt < 0 || i !== outAt + 1));
if (inputs.length === 0) inputs.push(join(here, "results", "stryker.json"));
const report = { files: {} };
const mutantKey = (m) => [m.location.start.line, m.location.start.column, m.location.end.line, m.location.end.column,
  m.mutatorName, m.replacement ?? ""].join(":");
const caughtStatus = (m) => m.status === "Killed" || m.status === "Timeout";
for (const input of inputs) {
  for (const [path, file] of Object.entries(JSON.parse(readFileSync(input, "utf8")).files)) {
    const earlier = report.files[path];
    if (earlier === undefined || earlier.source !== file.source) {
      report.files[path] = file;
      continue;
    }
    const merged = new Map(earlier.mutants.map((m) => [mutantKey(m), m]));
    for (const m of file.mutants) {
      const before = merged.get(mutantKey(m));
      merged.set(mutantKey(m), before !== undefined && caughtStatus(before) && !caughtStatus(m) ? before : m);
    }
    report.files[path] = { ...earlier, mutants: [...merged.values()] };
  }
}

// Stryker status -> ours: caught, survived, invalid (does not compile or
// crashes the runner: not counted), static (not run: module-level values,
// see ignoreStatic in stryker.config.mjs; not counted, reported).
const STATUS = {
  Killed: "caught", Timeout: "caught",
  Survived: "survived", NoCoverage: "survived",
  CompileError: "invalid", RuntimeError: "invalid",
  Ignored: "static", Pending: "invalid",
};

/** id -> [tag, reason]; tag "equivalent" (no input can show it: out of the score) or "accepted" (counted as survived). */
function loadEquivalent() {
  const path = join(here, "equivalent_ts.txt");
  const eq = new Map();
  if (!existsSync(path)) return eq;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^(\w+)\s+\[(equivalent|accepted)\]\s+(.*)$/.exec(line);
    if (!m) throw new Error(`${path}: bad line: ${line}`);
    eq.set(m[1], [m[2], m[3].trim()]);
  }
  return eq;
}

function area(path, lineText) {
  if (/\.fill\(0|wipe/i.test(lineText)) return "wipes (lines that zero memory)";
  if (path === "ts/validate.ts") return "argument checks (ts/validate.ts)";
  const m = /^ts\/([^/]+)\//.exec(path);
  return m ? `ts/${m[1]}/` : "ts/ (entry, api, errors)";
}

const mutants = [];
const seen = new Map();
for (const [path0, file] of Object.entries(report.files)) {
  const path = relative(root, join(root, path0)).replaceAll("\\", "/");
  const lines = file.source.split("\n");
  for (const m of [...file.mutants].sort((a, b) => a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column)) {
    const { start, end } = m.location;
    const lineText = lines[start.line - 1] ?? "";
    let original;
    if (start.line === end.line) original = lineText.slice(start.column - 1, end.column - 1);
    else original = [lineText.slice(start.column - 1), ...lines.slice(start.line, end.line - 1), (lines[end.line - 1] ?? "").slice(0, end.column - 1)].join("\n");
    // The same change on two lines of the same text (e.g. two equal length checks) gets its occurrence number.
    const key = [path, lineText.trim(), original, m.mutatorName, m.replacement ?? ""].join("\0");
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    const id = createHash("sha1").update(occurrence === 0 ? key : `${key}\0${occurrence}`).digest("hex").slice(0, 10);
    const short = (s) => { const t = s.replace(/\s+/g, " ").trim(); return t.length > 70 ? t.slice(0, 67) + "..." : t; };
    mutants.push({
      id, path, line: start.line, area: area(path, lineText),
      status: STATUS[m.status] ?? "invalid", stryker: m.status,
      describe: `${path}:${start.line} [${m.mutatorName}] \`${short(original)}\` -> \`${short(m.replacement ?? "")}\``,
      detail: m.statusReason ? short(m.statusReason) : (m.killedBy?.length ? `killed by ${m.killedBy.length} test(s)` : ""),
    });
  }
}
mutants.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.id.localeCompare(b.id));

const eq = loadEquivalent();
for (const m of mutants) {
  if (m.status === "survived" && eq.has(m.id)) [m.status, m.detail] = eq.get(m.id);
  else if (m.status === "caught" && eq.has(m.id)) m.detail += "  (listed in equivalent_ts.txt: remove it there)";
}
const stale = [...eq.keys()].filter((id) => !mutants.some((m) => m.id === id));

function scoreLine(name, ms) {
  const counted = ms.filter((m) => ["caught", "survived", "accepted"].includes(m.status));
  const caught = counted.filter((m) => m.status === "caught").length;
  const n = (s) => ms.filter((m) => m.status === s).length;
  const pct = counted.length ? (100 * caught) / counted.length : 100;
  return `${name.padEnd(34)} ${String(caught).padStart(4)}/${String(counted.length).padEnd(4)} caught ${pct.toFixed(1).padStart(6)}%   (survivors with a reason: ${n("accepted")}; + ${n("equivalent")} equivalent, ${n("invalid")} invalid, ${n("static")} static not run)`;
}

// The commit the sandbox was copied from (run.sh sets STRYKER_COMMIT when Stryker starts; HEAD may have moved since).
let commit = process.env.STRYKER_COMMIT ?? "";
if (commit === "") {
  try { commit = execFileSync("git", ["-C", root, "rev-parse", "--short", "HEAD"]).toString().trim() + " (HEAD when summarized)"; } catch { /* not a checkout */ }
}
const o = ["# Mutation run over ts/ (Stryker, test/mutation/stryker.config.mjs)", "",
  `date: ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`, `commit: ${commit}`,
  "tests per mutant: the vitest suites covering it, under Node 26 (Stryker's perTest coverage); for",
  "  ts/runtime/bun.ts and deno.ts the runtime, aes and mtproto suites under Bun / Deno (command runner)",
  `static mutants: ${process.env.STRYKER_STATIC === "1" ? "run" : "not run (STRYKER_STATIC=1 runs them)"}`,
  "reports (merged mutant by mutant where a file's source is unchanged, else a later report's file replaces it):",
  ...inputs.map((input) => `  ${relative(root, input)}: ${Object.keys(JSON.parse(readFileSync(input, "utf8")).files).length} files, ` +
    `written ${statSync(input).mtime.toISOString().slice(0, 16).replace("T", " ")} UTC`), "",
  "## Score", ""];
for (const p of [...new Set(mutants.map((m) => m.path))]) o.push(scoreLine(p, mutants.filter((m) => m.path === p)));
o.push("");
for (const a of [...new Set(mutants.map((m) => m.area))].sort()) o.push(scoreLine(a, mutants.filter((m) => m.area === a)));
o.push("", scoreLine("ts/ overall", mutants));
const section = (title, list, withDetail) => {
  o.push("", `## ${title}`, "");
  if (!list.length) o.push("none");
  for (const m of list) o.push(withDetail ? `${m.id} ${m.describe}\n    ${m.detail}` : `${m.id} ${m.describe}`);
};
section("Survivors without a reason (add a test, or a line to test/mutation/equivalent_ts.txt)", mutants.filter((m) => m.status === "survived"), false);
section("Survivors kept with a reason ([accepted] in equivalent_ts.txt; counted as survived)", mutants.filter((m) => m.status === "accepted"), true);
section("Equivalent ([equivalent] in equivalent_ts.txt; no input can show them)", mutants.filter((m) => m.status === "equivalent"), true);
o.push("", "## Every mutant", "");
for (const m of mutants) o.push(`${m.status.padEnd(10)} ${m.id} ${m.describe}  (${m.stryker}${m.detail ? ": " + m.detail : ""})`);
writeFileSync(out, o.join("\n") + "\n");
const text = o.join("\n");
console.log(text.slice(text.indexOf("## Score"), text.indexOf("## Survivors kept")));
console.log(`written to ${relative(process.cwd(), out)}`);
if (stale.length) console.log(`equivalent_ts.txt lists ids no longer generated: ${stale.join(" ")}`);
process.exit(mutants.some((m) => m.status === "survived") ? 1 : 0);
