/**
 * The import rule of ts/: the folders are layers, and imports run one way,
 *
 *   clients/  ->  mod.ts (the public entry) -> api.ts -> aes/, mtproto/ -> errors.ts, validate.ts,
 *   contract.ts (generated from contract/rules.json) -> runtime/
 *
 * with no circle between folders, the main entry knowing no client, each
 * client (clients/<name>.ts and its own folder clients/<name>/) using only
 * the public entry and the shared argument rules (validate.ts: the engine's
 * view of a byte argument, which a drop-in asks before it goes native), and
 * the FFI modules (`bun:ffi`, the
 * platform packages) reached from runtime/ alone. A file in a folder that has
 * no rule fails too, so a new layer has to be placed here on purpose.
 * The checker is tested on planted violations first, so it cannot pass by
 * seeing nothing.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

import { describe, expect, test } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const TS = join(ROOT, "ts");

type Layer = "entry" | "aes" | "mtproto" | "shared" | "runtime" | "clients";

/** Which layer a file of ts/ (path relative to ts/, "/"-separated) belongs to; undefined: no rule. */
function layerOf(file: string): Layer | undefined {
  if (file === "mod.ts" || file === "api.ts") return "entry";
  if (file === "errors.ts" || file === "validate.ts" || file === "contract.ts") return "shared";
  const folder = file.includes("/") ? file.slice(0, file.indexOf("/")) : undefined;
  if (folder === "aes" || folder === "mtproto" || folder === "runtime" || folder === "clients") return folder;
  return undefined;
}

/** The client a file of clients/ belongs to: clients/<name>.ts and clients/<name>/... are one client. */
function clientOf(file: string): string {
  const rest = file.slice("clients/".length);
  return rest.includes("/") ? rest.slice(0, rest.indexOf("/")) : rest.replace(/\.d\.ts$|\.ts$/, "");
}

/** The layers each layer may import (besides itself, except clients: each client only its own files). */
const MAY_IMPORT: Record<Layer, readonly Layer[]> = {
  clients: ["entry", "shared"],
  entry: ["entry", "aes", "mtproto", "shared", "runtime"],
  aes: ["aes", "shared", "runtime"],
  mtproto: ["mtproto", "shared", "runtime"],
  shared: ["shared", "runtime"],
  runtime: ["runtime"],
};

/** Non-relative specifiers: Node built-ins anywhere; the FFI and the platform packages only in runtime/. */
function externalAllowed(layer: Layer, specifier: string): boolean {
  if (specifier.startsWith("node:")) return true;
  if (specifier === "bun:ffi" || specifier.startsWith("tgcrypto-ffi-")) return layer === "runtime";
  return false;
}

/** Every import/export specifier of a module (static, dynamic, side-effect), comments removed first. */
function specifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^;"'`]*?\sfrom\s*["']([^"']+)["']/g, // import x from "y", export { x } from "y"
    /\bimport\s*["']([^"']+)["']/g, // import "y"
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g, // import("y")
  ];
  for (const pattern of patterns) for (const m of code.matchAll(pattern)) found.push(m[1]!);
  return found;
}

interface Violation {
  readonly file: string;
  readonly specifier: string;
  readonly why: string;
}

/**
 * Checks a set of modules (path relative to ts/ -> source): the layer of
 * every file, every import against {@link MAY_IMPORT}, relative imports
 * that leave ts/, and circles in the graph of folders (layers).
 */
function checkImportRule(modules: ReadonlyMap<string, string>): Violation[] {
  const violations: Violation[] = [];
  const edges = new Map<Layer, Set<Layer>>();
  for (const [file, source] of modules) {
    const from = layerOf(file);
    if (from === undefined) {
      violations.push({ file, specifier: "", why: "file in no layer (place its folder in test/layout.test.ts)" });
      continue;
    }
    for (const specifier of specifiers(source)) {
      if (!specifier.startsWith(".")) {
        if (!externalAllowed(from, specifier)) violations.push({ file, specifier, why: `${from} may not import a package` });
        continue;
      }
      const target = normalize(join(dirname(file), specifier)).split("\\").join("/");
      const to = target.startsWith("..") ? undefined : layerOf(target);
      if (to === undefined) {
        violations.push({ file, specifier, why: "imports outside the layers of ts/" });
        continue;
      }
      if (from === "clients" && to === "clients") {
        if (clientOf(file) !== clientOf(target)) violations.push({ file, specifier, why: "clients may not import clients" });
        continue;
      }
      if (!MAY_IMPORT[from].includes(to)) {
        violations.push({ file, specifier, why: `${from} may not import ${to}` });
      }
      if (to !== from) {
        if (!edges.has(from)) edges.set(from, new Set());
        edges.get(from)!.add(to);
      }
    }
  }
  // A circle between folders, even through layers the table allows.
  const state = new Map<Layer, "open" | "done">();
  const visit = (layer: Layer, path: Layer[]): void => {
    if (state.get(layer) === "done") return;
    if (state.get(layer) === "open") {
      violations.push({ file: path.join(" -> "), specifier: layer, why: "circle between folders" });
      return;
    }
    state.set(layer, "open");
    for (const next of edges.get(layer) ?? []) visit(next, [...path, next]);
    state.set(layer, "done");
  };
  for (const layer of edges.keys()) visit(layer, [layer]);
  return violations;
}

/** ts/ as path -> source (".ts" files, declarations included). */
function readTree(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) readTree(path, out);
    else if (name.endsWith(".ts")) out.set(relative(TS, path).split("\\").join("/"), readFileSync(path, "utf8"));
  }
  return out;
}

/** Modules that `file` reaches through relative imports. */
function reachable(modules: ReadonlyMap<string, string>, file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file) || !modules.has(file)) return seen;
  seen.add(file);
  for (const specifier of specifiers(modules.get(file)!)) {
    if (specifier.startsWith(".")) reachable(modules, normalize(join(dirname(file), specifier)).split("\\").join("/"), seen);
  }
  return seen;
}

describe("the checker itself", () => {
  const good = new Map([
    ["mod.ts", 'import { bindNative } from "./api.ts";\nexport { x } from "./api.ts";'],
    ["api.ts", 'export * from "./aes/oneshot.ts";\nimport type { Native } from "./runtime/native.ts";'],
    ["aes/oneshot.ts", 'import { a } from "../runtime/bound.ts";\nimport { b } from "../errors.ts";'],
    ["errors.ts", 'import { s } from "./runtime/bound.ts";'],
    ["runtime/bound.ts", '/** import { x } from "../mod.ts"; (a comment) */\nimport { f } from "node:fs";'],
    ["runtime/bun.ts", 'import { dlopen } from "bun:ffi";'],
    ["clients/gramjs.ts", 'import { AuthKey } from "../mod.ts";\nimport { Buffer } from "node:buffer";'],
  ]);

  test("a tree that follows the rule passes (comments are not imports)", () => {
    expect(checkImportRule(good)).toEqual([]);
  });

  test("every kind of planted violation is reported", () => {
    const planted: [string, string, string, RegExp][] = [
      ["aes/oneshot.ts", 'import { AuthKey } from "../mtproto/auth_key.ts";', "aes importing mtproto", /aes may not import mtproto/],
      ["mod.ts", 'export { installGramJS } from "./clients/gramjs.ts";', "the entry importing a client", /entry may not import clients/],
      ["clients/mtcute.ts", 'import { sha256 } from "../mtproto/hash.ts";', "a client past the public entry", /clients may not import mtproto/],
      ["clients/mtcute.ts", 'import { x } from "./gramjs.ts";', "a client importing another", /clients may not import clients/],
      ["clients/mtcute.ts", 'import { x } from "./gramjs/state.ts";', "a client importing another's own folder", /clients may not import clients/],
      ["runtime/load.ts", 'const m = await import("../aes/oneshot.ts");', "runtime importing up (dynamic import)", /runtime may not import aes/],
      ["errors.ts", 'import "./api.ts";', "shared importing the entry (side-effect import)", /shared may not import entry/],
      ["aes/oneshot.ts", 'import { dlopen } from "bun:ffi";', "the FFI outside runtime/", /aes may not import a package/],
      ["aes/oneshot.ts", 'import x from "telegram";', "a package", /aes may not import a package/],
      ["util/helpers.ts", "export const x = 1;", "a file in no layer", /in no layer/],
      ["aes/oneshot.ts", 'import x from "../../test/helpers/bytes.ts";', "leaving ts/", /outside the layers/],
    ];
    for (const [file, source, what, expected] of planted) {
      const tree = new Map(good);
      tree.set(file, `${tree.get(file) ?? ""}\n${source}`);
      const found = checkImportRule(tree);
      expect(found.map((v) => v.why).join("; "), what).toMatch(expected);
    }
  });

  test("a circle between folders is reported even where the table allows each edge", () => {
    // runtime -> shared is refused by the table too; the graph walk must find the circle on its own.
    const tree = new Map(good);
    tree.set("runtime/bound.ts", 'import { x } from "../errors.ts";');
    const found = checkImportRule(tree);
    expect(found.some((v) => v.why === "circle between folders"), JSON.stringify(found)).toBe(true);
  });
});

describe("ts/ follows the import rule", () => {
  const tree = readTree(TS);

  test("ts/ has the layer folders, and the checker sees every file", () => {
    for (const folder of ["runtime", "aes", "mtproto", "clients"]) expect(statSync(join(TS, folder)).isDirectory()).toBe(true);
    expect(tree.size).toBeGreaterThan(20);
    expect([...tree.keys()].filter((f) => f.includes("/")).length).toBeGreaterThan(15);
  });

  test("no import breaks the rule and there is no circle between folders", () => {
    expect(checkImportRule(tree)).toEqual([]);
  });

  test("the main entry reaches no client adapter; each client reaches the core only through mod.ts (and validate.ts)", () => {
    const fromEntry = [...reachable(tree, "mod.ts")];
    expect(fromEntry.length).toBeGreaterThan(10);
    expect(fromEntry.filter((f) => f.startsWith("clients/"))).toEqual([]);
    for (const client of [...tree.keys()].filter((f) => f.startsWith("clients/"))) {
      const targets = specifiers(tree.get(client)!).filter((s) => s.startsWith("."))
        .map((s) => normalize(join(dirname(client), s)).split("\\").join("/"));
      const outside = targets.filter((t) => !(t.startsWith("clients/") && clientOf(t) === clientOf(client)));
      for (const target of outside) expect(["mod.ts", "validate.ts"], `${client} -> ${target}`).toContain(target);
    }
  });
});

describe("test/ mirrors ts/", () => {
  const TEST = fileURLToPath(new URL("./", import.meta.url));

  test("a test folder for each layer folder, and no test file over 600 lines", () => {
    for (const folder of ["runtime", "aes", "mtproto", "clients"]) expect(statSync(join(TEST, folder)).isDirectory(), folder).toBe(true);
    const long: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith(".test.ts") && readFileSync(path, "utf8").split("\n").length > 600) long.push(relative(TEST, path));
      }
    };
    walk(TEST);
    expect(long).toEqual([]);
  });
});
