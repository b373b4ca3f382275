#!/usr/bin/env node
// The contract check `npm test` runs: the generated files are current, every
// host's table matches csrc/tgcrypto.h, and every message of
// contract/rules.json is written in no hand-written source.
//
//   node contract/check.mjs [--root DIR] [--header FILE]
//
// --root checks another copy of the tree and --header another header (the
// tests plant drifts in copies this way). Prints each drift; exits 1 if any.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { checkNative, checkNodeAddon, checkPython, checkStrerror, pythonExtensionSources } from "./check_hosts.mjs";
import { duplicatedMessages } from "./check_messages.mjs";
import { ROOT, staleGeneratedFiles } from "./generate.mjs";
import { readHeader } from "./header.mjs";

/** Every drift of the tree at `root` against `header` (default: its own csrc/tgcrypto.h). */
export function contractDrifts(root = ROOT, header = join(root, "csrc/tgcrypto.h")) {
  const abi = readHeader(header);
  const read = (path) => readFileSync(join(root, path), "utf8");
  const rules = JSON.parse(read("contract/rules.json"));
  return [
    ...staleGeneratedFiles(root, header).map((path) => `${path} is stale: run node contract/generate.mjs`),
    ...checkStrerror(abi, read("csrc/api.c")),
    ...checkNative(abi, read("ts/runtime/native.ts")),
    ...checkNodeAddon(abi, read("bindings/node/addon.c")),
    ...checkPython(abi, pythonExtensionSources(root), read("bindings/python/src/tgcrypto_ffi/_native.pyi")),
    ...duplicatedMessages(root, rules),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const option = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const root = option("--root") ?? ROOT;
  const drifts = contractDrifts(root, option("--header") ?? join(root, "csrc/tgcrypto.h"));
  for (const d of drifts) console.error(d);
  const abi = readHeader(option("--header") ?? join(root, "csrc/tgcrypto.h"));
  console.log(`contract: ${abi.functions.length} functions, ${abi.errors.length} codes, ${drifts.length} drifts`);
  process.exit(drifts.length === 0 ? 0 : 1);
}
