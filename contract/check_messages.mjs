// Fails when a message of contract/rules.json is written as a string literal
// in any hand-written source of a host: each message exists once, in
// rules.json, and reaches the hosts through the generated ts/contract.ts and
// bindings/python/ext/contract.h. Comments and Python docstrings may quote
// a message (documentation); code may not.

import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** Folders holding the hosts' hand-written sources, and the generated files inside them. */
export const SOURCE_FOLDERS = ["ts", "bindings/node", "bindings/python/ext", "bindings/python/src", "csrc"];
export const GENERATED = new Set(["ts/contract.ts", "ts/runtime/abi_table.ts", "bindings/python/ext/contract.h"]);
const SOURCE_FILE = /\.(ts|mts|js|mjs|c|h|py|pyi)$/;

/** The code of a source file with its comments (and Python docstrings) blanked. */
export function codeOf(path, text) {
  if (path.endsWith(".py") || path.endsWith(".pyi")) {
    return text.replace(/("""|''')[\s\S]*?\1/g, " ").replace(/#[^\n]*/g, "");
  }
  // C and TS: block and line comments (a `//` inside a string literal is rare enough in these sources).
  return text.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/(^|[^:"'`])\/\/[^\n]*/g, "$1");
}

/** The fixed start of each message (up to its first placeholder). */
export function messageKeys(rules) {
  return Object.entries(rules.messages).map(([name, m]) => ({ name, text: m.text.split("{")[0] }));
}

function sourceFiles(root) {
  const files = [];
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "tests" && entry.name !== "node_modules" && !entry.name.startsWith(".")) walk(path);
      } else if (SOURCE_FILE.test(entry.name)) files.push(relative(root, path));
    }
  };
  for (const folder of SOURCE_FOLDERS) walk(join(root, folder));
  return files.filter((f) => !GENERATED.has(f)).sort();
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Every place a message is written in a hand-written source: ["path: NAME", ...]. */
export function duplicatedMessages(root, rules) {
  const keys = messageKeys(rules).map((k) => ({ ...k, re: new RegExp(`["'\`]${escape(k.text)}`) }));
  const found = [];
  for (const file of sourceFiles(root)) {
    const code = codeOf(file, readFileSync(join(root, file), "utf8"));
    for (const k of keys) {
      if (k.re.test(code)) found.push(`${file}: writes the message ${k.name} ("${k.text}...") that contract/rules.json defines`);
    }
  }
  return found;
}
