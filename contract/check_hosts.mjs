// Checks each host's hand-written table against the ABI read from
// csrc/tgcrypto.h (header.mjs). Every function returns a list of drifts
// (empty: in step); check.mjs prints them and fails.
//
//   - csrc/api.c: tg_strerror has a case for every return code.
//   - ts/runtime/native.ts: the `Native` interface has one member per C
//     function with as many parameters, and nativeFromSymbols fills each.
//   - bindings/node/addon.c: the registration table names every C function
//     once; each JS function reads as many arguments as the C function takes,
//     each with the marshalling of its kind (a Uint8Array for byte pointers,
//     a uint32 for uint32_t, an int32 for int, a bigint for uint64_t, a
//     type-tagged handle for contexts, a string for `const char *`), and the
//     C call passes as many arguments as the header declares.
//   - the Python extension (bindings/python/ext/*.c): it has its own
//     (TgCrypto-shaped) surface, so its tables are checked against its stubs
//     (_native.pyi: the same functions, classes, methods and attributes, and
//     METH_NOARGS / METH_O matching the stubs' parameters); every C function
//     is used by it unless listed in PYTHON_UNUSED with the reason; every
//     direct call passes the header's number of arguments.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** C functions the Python extension does not call, and why. */
export const PYTHON_UNUSED = {
  tg_sha256: "sha256(*parts) hashes its parts with tg_sha256_init/update/final",
  tg_sha1: "sha1(*parts) hashes its parts with tg_sha1_init/update/final",
};

const stripC = (text) => text.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/[^\n]*/g, "");

/** The text between the brace at `open` and its match. */
function braceBody(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(open + 1, i);
  }
  throw new Error(`unbalanced braces after offset ${open}`);
}

/** Splits a C argument list at top-level commas. */
function splitArguments(list) {
  const out = [];
  let depth = 0, start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (c === "," && depth === 0) {
      out.push(list.slice(start, i));
      start = i + 1;
    }
  }
  if (list.trim() !== "") out.push(list.slice(start));
  return out.map((s) => s.trim());
}

/** Every direct call `name(...)` in C text: its argument lists. */
function callsOf(code, name) {
  const calls = [];
  const re = new RegExp(`\\b${name}\\s*\\(`, "g");
  for (const m of code.matchAll(re)) {
    let depth = 0;
    const open = m.index + m[0].length - 1;
    for (let i = open; i < code.length; i++) {
      if (code[i] === "(") depth++;
      else if (code[i] === ")" && --depth === 0) {
        calls.push(splitArguments(code.slice(open + 1, i)));
        break;
      }
    }
  }
  return calls;
}

/** Calls whose argument count differs from the header's. */
function callArityDrifts(host, code, abi) {
  const drifts = [];
  for (const f of abi.functions) {
    for (const args of callsOf(code, f.name)) {
      if (args.length !== f.params.length) {
        drifts.push(`${host}: calls ${f.name} with ${args.length} arguments, the header declares ${f.params.length}`);
      }
    }
  }
  return drifts;
}

/* ------------------------------------------------------------------------ */
/* csrc/api.c: tg_strerror describes every code                             */

export function checkStrerror(abi, apiSource) {
  const code = stripC(apiSource);
  const start = code.indexOf("tg_strerror(int code)");
  const body = start < 0 ? "" : braceBody(code, code.indexOf("{", start));
  const described = new Set([...body.matchAll(/case (TG_\w+):/g)].map((m) => m[1]));
  return abi.errors.filter((e) => !described.has(e.name)).map((e) => `api.c: tg_strerror has no case for ${e.name}`);
}

/* ------------------------------------------------------------------------ */
/* ts/runtime/native.ts                                                     */

export function checkNative(abi, nativeSource) {
  const drifts = [];
  const iface = nativeSource.slice(nativeSource.indexOf("export interface Native"));
  const members = new Map();
  for (const m of iface.matchAll(/readonly (tg_\w+): \(([^)]*)\) =>/g)) {
    members.set(m[1], splitArguments(m[2].replace(/\n/g, " ")).filter((a) => a !== "").length);
  }
  const filled = new Set([...nativeSource.matchAll(/^\s*(tg_\w+): /gm)].map((m) => m[1]));
  for (const f of abi.functions) {
    if (!members.has(f.name)) drifts.push(`native.ts: Native has no member ${f.name}`);
    else if (members.get(f.name) !== f.params.length) {
      drifts.push(`native.ts: Native.${f.name} takes ${members.get(f.name)} parameters, the header ${f.params.length}`);
    }
    if (!filled.has(f.name)) drifts.push(`native.ts: nativeFromSymbols does not set ${f.name}`);
  }
  const names = new Set(abi.functions.map((f) => f.name));
  for (const name of members.keys()) if (!names.has(name)) drifts.push(`native.ts: Native.${name} is not in the header`);
  return drifts;
}

/* ------------------------------------------------------------------------ */
/* bindings/node/addon.c                                                    */

/** What each argument reader of addon.c gives, as a header kind. */
const NODE_READERS = [
  [/\b(?:bytes|fixed)\(&?a, (\d+)/g, "bytes"],
  [/\bu32\(&?a, (\d+)\)/g, "u32"],
  [/\bhandle\(&?a, (\d+)/g, "context"],
  [/napi_get_value_int32\(env, a\.argv\[(\d+)\]/g, "i32"],
  [/napi_get_value_bigint_uint64\(env, a\.argv\[(\d+)\]/g, "u64"],
  [/napi_get_value_string_utf8\(env, a\.argv\[(\d+)\]/g, "bytes"],
];

/** The body of a helper that reads arguments from an args_t (data_args), or null. */
function argumentHelperBody(code, name) {
  const m = new RegExp(`static \\w+ \\*?${name}\\(args_t \\*a[^)]*\\)\\s*\\{`).exec(code);
  return m ? braceBody(code, m.index + m[0].length - 1) : null;
}

function nodeFunctionBody(code, name) {
  const m = new RegExp(`static napi_value ${name}\\(napi_env env, napi_callback_info info[^)]*\\)\\s*\\{`).exec(code);
  return m ? braceBody(code, m.index + m[0].length - 1) : null;
}

/** The arguments one JS function reads: {count, kinds by index}, following one shared helper. */
function nodeMarshalling(code, jsName) {
  let body = nodeFunctionBody(code, jsName);
  if (body === null) return null;
  if (!/get_args\(/.test(body)) {
    const helper = /\b(\w+)\(env, info\b/.exec(body);
    if (helper) body = nodeFunctionBody(code, helper[1]) ?? body;
  }
  for (const call of body.matchAll(/\b(\w+)\(&a, &/g)) body += argumentHelperBody(code, call[1]) ?? "";
  const count = /get_args\(env, info, (\d+)/.exec(body);
  const kinds = new Map();
  for (const [re, kind] of NODE_READERS) for (const m of body.matchAll(re)) kinds.set(Number(m[1]), kind);
  return { count: count ? Number(count[1]) : 0, kinds };
}

export function checkNodeAddon(abi, addonSource) {
  const code = stripC(addonSource);
  const drifts = [];
  const table = new Map();
  for (const m of code.matchAll(/\bFN\("(\w+)", (\w+)\)/g)) {
    if (table.has(m[1])) drifts.push(`addon.c: ${m[1]} is registered twice`);
    table.set(m[1], m[2]);
  }
  const names = new Set(abi.functions.map((f) => f.name));
  for (const name of table.keys()) if (!names.has(name)) drifts.push(`addon.c: registers ${name}, which the header lacks`);
  for (const f of abi.functions) {
    const jsName = table.get(f.name);
    if (jsName === undefined) {
      drifts.push(`addon.c: no function registered for ${f.name}`);
      continue;
    }
    const read = nodeMarshalling(code, jsName);
    if (read === null) {
      drifts.push(`addon.c: ${jsName} (for ${f.name}) is not defined`);
      continue;
    }
    if (read.count !== f.params.length) {
      drifts.push(`addon.c: ${jsName} reads ${read.count} arguments, ${f.name} takes ${f.params.length}`);
    }
    f.params.forEach((p, i) => {
      const kind = read.kinds.get(i);
      if (kind !== p.kind) {
        drifts.push(`addon.c: ${jsName} reads argument ${i} (${p.name}) as ${kind ?? "nothing"}, the header has ${p.kind}`);
      }
    });
  }
  return drifts.concat(callArityDrifts("addon.c", code, abi));
}

/* ------------------------------------------------------------------------ */
/* The Python extension and its stubs                                       */

/** Expands the object-like macros defined in `code` wherever they stand alone in an initializer. */
function expandMacros(code) {
  const macros = new Map();
  const joined = code.replace(/\\\n/g, " ");
  for (const m of joined.matchAll(/^\s*#\s*define\s+([A-Z_][A-Z0-9_]*)[ \t]+(\{[^\n]*)$/gm)) macros.set(m[1], m[2]);
  let out = joined;
  for (const [name, value] of macros) out = out.replace(new RegExp(`(^|[,{]\\s*)${name}\\b(?!\\s*\\()`, "gm"), `$1${value}`);
  return out;
}

/** PyMethodDef arrays: name -> [{name, flags}]; PyGetSetDef arrays: name -> [attribute]. */
function pythonTables(code) {
  const methods = new Map();
  for (const m of code.matchAll(/static PyMethodDef (\w+)\[\]\s*=\s*\{/g)) {
    const body = braceBody(code, m.index + m[0].length - 1);
    const entries = [];
    for (const e of body.matchAll(/\{\s*"(\w+)",\s*[^,]+,\s*(METH_[A-Z_| ]+)/g)) entries.push({ name: e[1], flags: e[2].trim() });
    for (const e of body.matchAll(/\bFAST\(\s*"(\w+)"/g)) entries.push({ name: e[1], flags: "METH_FASTCALL | METH_KEYWORDS" });
    methods.set(m[1], entries);
  }
  const getsets = new Map();
  for (const m of code.matchAll(/static PyGetSetDef (\w+)\[\]\s*=\s*\{/g)) {
    const body = braceBody(code, m.index + m[0].length - 1);
    getsets.set(m[1], [...body.matchAll(/\{\s*"(\w+)"/g)].map((e) => e[1]));
  }
  const slots = new Map();
  for (const m of code.matchAll(/static PyType_Slot (\w+)\[\]\s*=\s*\{/g)) {
    const body = braceBody(code, m.index + m[0].length - 1);
    slots.set(m[1], {
      methods: /Py_tp_methods,\s*(\w+)/.exec(body)?.[1],
      getset: /Py_tp_getset,\s*(\w+)/.exec(body)?.[1],
    });
  }
  const classes = new Map();
  for (const m of code.matchAll(/PyType_Spec \w+\s*=\s*\{\s*"[\w.]*?\.(\w+)"[^;]*?(\w+)\s*\}\s*;/g)) {
    const s = slots.get(m[2]);
    classes.set(m[1], {
      methods: s?.methods ? methods.get(s.methods) ?? [] : [],
      attributes: s?.getset ? getsets.get(s.getset) ?? [] : [],
    });
  }
  return { module: methods.get("methods") ?? [], classes };
}

/** _native.pyi: module functions and classes (methods with their positional parameters, attributes). */
function pythonStubs(pyi) {
  const module = new Map();
  const classes = new Map();
  let current = null;
  // One line per declaration: a def whose parentheses span lines is joined.
  const lines = [];
  for (const line of pyi.split("\n")) {
    const last = lines.length - 1;
    const open = last >= 0 ? (lines[last].match(/\(/g) ?? []).length - (lines[last].match(/\)/g) ?? []).length : 0;
    if (open > 0) lines[last] += " " + line.trim();
    else lines.push(line);
  }
  for (const line of lines) {
    const cls = /^class (\w+)(\(([^)]*)\))?:/.exec(line);
    if (cls) {
      current = cls[3] === "Exception" ? null : { methods: new Map(), attributes: [] };
      if (current) classes.set(cls[1], current);
      continue;
    }
    const def = /^(\s*)def (\w+)\((.*)\)/.exec(line);
    if (def) {
      const params = splitArguments(def[3]).filter((p) => p !== "self" && p !== "/" && p !== "*" && !p.startsWith("**"));
      const target = def[1] === "" ? module : current?.methods;
      target?.set(def[2], params);
      continue;
    }
    const attribute = /^\s+(\w+): /.exec(line);
    if (attribute && current) current.attributes.push(attribute[1]);
    if (/^\S/.test(line) && !line.startsWith("class")) current = null;
  }
  return { module, classes };
}

/** Whether METH_* flags accept the stub's parameter list. */
function flagsFit(flags, params) {
  if (flags.includes("METH_NOARGS")) return params.length === 0;
  if (flags.includes("METH_O")) return params.length === 1 && !params[0].startsWith("*");
  return true; // METH_VARARGS, METH_FASTCALL: parsed by the function itself
}

export function checkPython(abi, extSources, pyi) {
  const code = expandMacros(stripC(extSources.join("\n")));
  const drifts = [];
  const ext = pythonTables(code);
  const stubs = pythonStubs(pyi);
  const compare = (where, entries, stubbed) => {
    const names = new Set(entries.map((e) => e.name));
    for (const e of entries) {
      if (!stubbed.has(e.name)) drifts.push(`_native.pyi: ${where}${e.name} is in the extension, not in the stubs`);
      else if (!flagsFit(e.flags, stubbed.get(e.name))) {
        drifts.push(`_native.pyi: ${where}${e.name} (${e.flags}) does not take (${stubbed.get(e.name).join(", ")})`);
      }
    }
    for (const name of stubbed.keys()) {
      if (name !== "__init__" && !names.has(name)) drifts.push(`_native.pyi: ${where}${name} is not in the extension`);
    }
  };
  compare("", ext.module, stubs.module);
  for (const [name, cls] of ext.classes) {
    const stub = stubs.classes.get(name);
    if (!stub) {
      drifts.push(`_native.pyi: class ${name} is in the extension, not in the stubs`);
      continue;
    }
    compare(`${name}.`, cls.methods, stub.methods);
    if ([...cls.attributes].sort().join() !== [...stub.attributes].sort().join()) {
      drifts.push(`_native.pyi: ${name} attributes (${stub.attributes}) differ from the extension's (${cls.attributes})`);
    }
  }
  for (const name of stubs.classes.keys()) {
    if (!ext.classes.has(name)) drifts.push(`_native.pyi: class ${name} is not in the extension`);
  }
  for (const f of abi.functions) {
    const used = new RegExp(`\\b${f.name}\\b`).test(code);
    if (!used && !(f.name in PYTHON_UNUSED)) {
      drifts.push(`Python extension: ${f.name} is not used (use it, or list it in PYTHON_UNUSED with the reason)`);
    }
  }
  return drifts.concat(callArityDrifts("Python extension", code, abi));
}

/** The C sources of the Python extension (every .c and .h under its folder, sorted). */
export function pythonExtensionSources(root) {
  const dir = join(root, "bindings/python/ext");
  const files = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.[ch]$/.test(entry.name)) files.push(path);
    }
  };
  walk(dir);
  return files.sort().map((path) => readFileSync(path, "utf8"));
}
