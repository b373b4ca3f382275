// The C ABI as csrc/tgcrypto.h declares it: every TG_API function with its
// parameters, and every return code. This parse is the one description of
// the ABI that the host tables are generated from or checked against
// (generate.mjs, check_hosts.mjs). It reads only what the header uses:
// one declaration per `TG_API ... ;`, comments removed first.

import { readFileSync } from "node:fs";

/** Removes C comments, keeping line breaks so positions stay readable. */
function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " ")).replace(/\/\/[^\n]*/g, "");
}

/**
 * The kind of one C parameter, in the vocabulary of ts/runtime/symbols.ts:
 * bytes (any byte pointer or array, `const char *` and `uint64_t *`
 * included), u32, u64, i32, or context (a pointer to an opaque tg_* type).
 */
export function parameterKind(type, declarator) {
  const pointer = type.includes("*") || declarator.includes("[");
  const base = type.replace(/\bconst\b/g, "").replace(/\*/g, "").trim();
  if (pointer) {
    if (base === "uint8_t" || base === "char" || base === "uint64_t") return "bytes";
    if (/^tg_\w+$/.test(base)) return "context";
  } else {
    if (base === "uint32_t") return "u32";
    if (base === "uint64_t") return "u64";
    if (base === "int") return "i32";
  }
  throw new Error(`tgcrypto.h: no kind for the parameter type "${type} ${declarator}"`);
}

/** The kind of a C result: i32, u32, void, context or cstring. */
export function resultKind(type) {
  const t = type.replace(/\s+/g, " ").trim();
  if (t === "int") return "i32";
  if (t === "uint32_t") return "u32";
  if (t === "void") return "void";
  if (t === "const char *" || t === "const char*") return "cstring";
  if (/^tg_\w+ ?\*$/.test(t)) return "context";
  throw new Error(`tgcrypto.h: no kind for the result type "${type}"`);
}

/** One parameter declaration ("const uint8_t key[32]") as {type, name, kind, text}. */
function parseParameter(text) {
  const t = text.replace(/\s+/g, " ").trim();
  const m = /^(.*?)(\w+)(\s*\[[^\]]*\])?$/.exec(t);
  if (!m) throw new Error(`tgcrypto.h: cannot read the parameter "${t}"`);
  const type = m[1].trim();
  const name = m[2];
  const array = m[3] ?? "";
  return { type, name, kind: parameterKind(type, array), text: t };
}

/**
 * Parses header text: { functions: [{ name, returns, resultType, params, prototype }],
 * errors: [{ name, value }] } in declaration order. `TG_OK` comes first in errors.
 */
export function parseHeader(text) {
  const code = stripComments(text);
  const functions = [];
  // TG_API <result> <name>(<params>);  -- the `#define TG_API` lines have no '('.
  const declaration = /^[ \t]*TG_API[ \t]+([^;(\n#]*?)\b(tg_\w+)\s*\(([^)]*)\)\s*;/gm;
  for (const m of code.matchAll(declaration)) {
    const resultType = m[1].replace(/\s+/g, " ").trim();
    const name = m[2];
    const list = m[3].replace(/\s+/g, " ").trim();
    const params = list === "void" || list === "" ? [] : list.split(",").map(parseParameter);
    functions.push({
      name,
      resultType,
      returns: resultKind(resultType),
      params,
      prototype: `${resultType}${resultType.endsWith("*") ? "" : " "}${name}(${list});`,
    });
  }
  if (functions.length === 0) throw new Error("tgcrypto.h: no TG_API function found");
  const names = new Set();
  for (const f of functions) {
    if (names.has(f.name)) throw new Error(`tgcrypto.h: ${f.name} is declared twice`);
    names.add(f.name);
  }
  const errors = [];
  for (const m of code.matchAll(/^\s*#\s*define\s+(TG_OK|TG_ERR_\w+)\s+(-?\d+)\s*$/gm)) {
    errors.push({ name: m[1], value: Number(m[2]) });
  }
  if (!errors.some((e) => e.name === "TG_OK")) throw new Error("tgcrypto.h: TG_OK is not defined");
  return { functions, errors };
}

/** Reads and parses a header file. */
export function readHeader(path) {
  return parseHeader(readFileSync(path, "utf8"));
}
