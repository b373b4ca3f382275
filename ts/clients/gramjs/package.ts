/**
 * Finding and loading the GramJS-family package an application uses:
 * `telegram` (GramJS) or `teleproto` (its successor, a fork with the same
 * module layout). The package is resolved from the application, not from
 * this library: the entry script (`require.main`, `process.argv[1]`, Deno's
 * and Bun's main module), then the current directory, unless the caller
 * names the place (`resolveFrom`) or passes its own `require`.
 *
 * @module
 */

import type { Buffer } from "node:buffer";
import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** The package families the drop-in knows, by their package.json `name`. */
export type Flavour = "telegram" | "teleproto";

/** The versions of each package the patches were written against and tested with. */
export const TESTED_VERSIONS: Readonly<Record<Flavour, readonly string[]>> = {
  telegram: ["2.26.22"],
  teleproto: ["1.229.0", "214.1.7"],
};

/** How a package's MTProtoState keeps the ids of received messages (and draws its padding). */
export type StateShape =
  /** GramJS: `msgIds` (strings), padding from `helpers.generateRandomBytes`, no session id check. */
  | "msg-ids"
  /** teleproto 1.229: `receivedIds` (a ReceivedIdsManager), padding from node:crypto's randomFillSync, session id checked. */
  | "received-ids";

/** Where to look and how: the parts of the public options used here. */
export interface LocateOptions {
  readonly package?: string;
  readonly require?: (id: string) => unknown;
  readonly resolveFrom?: string | { readonly href: string };
  readonly allowUntestedVersion?: boolean;
}

/** A `big-integer` value: only what is used here. */
export interface BigInteger {
  toString(): string;
  neq(other: unknown): boolean;
}
export type BigIntegerFactory = (value: string) => BigInteger;
export type Patchable = Record<string, unknown>;

export interface GramReader {
  read(length: number): Buffer;
  tgReadObject(): unknown;
}

/** The modules of one installed package. */
export interface GramModules {
  readonly root: string;
  readonly name: Flavour;
  readonly version: string;
  readonly stateShape: StateShape;
  readonly ige: Patchable; // crypto/IGE: { IGE }
  readonly ctr: Patchable; // crypto/CTR: { CTR }
  /** crypto/crypto: `{ createCipheriv, createDecipheriv }` in GramJS; teleproto's has none (null). */
  readonly cryptoJs: Patchable | null;
  readonly factorizator: Patchable; // the Factorizator class: { factorize }
  readonly helpers: Patchable; // Helpers: { sha1, sha256, generateRandomBytes, mod, toSignedLittleBuffer, ... }
  readonly state: Patchable; // MTProtoState.prototype
  readonly errors: { SecurityError: new (message?: string) => Error; InvalidBufferError: new (payload: Buffer) => Error };
  readonly BinaryReader: new (data: Buffer) => GramReader;
  readonly TLMessage: new (msgId: BigInteger, seqNo: number, obj: unknown) => unknown;
  readonly bigInt: BigIntegerFactory;
  /** node:crypto as the package requires it (teleproto 1.229's MTProtoState draws its padding from it). */
  readonly nodeCrypto: { randomFillSync(buffer: Uint8Array, offset: number, size: number): Uint8Array };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // missing, or not readable here (Deno without --allow-read): taken as a file
  }
}

/** A file path for createRequire: a directory (with or without a trailing separator) resolves from inside it. */
function requireBase(given: string | { readonly href: string }): string {
  const text = typeof given === "string" ? given : String(given.href);
  const path = text.startsWith("file:") ? fileURLToPath(text) : text;
  return /[/\\]$/.test(path) || isDirectory(path) ? join(path, "noop.js") : path;
}

interface RuntimeGlobals {
  Deno?: { mainModule?: string };
  Bun?: { main?: string };
}

/**
 * The places the application's packages are resolved from, in order: the
 * entry script (`require.main`, then `process.argv[1]`, Deno's and Bun's
 * main module), then the current directory. Each a file path for
 * createRequire, with where it came from and what to show (for the error).
 */
export function applicationPlaces(): { base: string; origin: string; shown?: string }[] {
  const places: { base: string; origin: string; shown?: string }[] = [];
  const add = (given: string | undefined, origin: string) => {
    if (typeof given !== "string" || given === "") return;
    let base: string;
    try {
      base = given.startsWith("file:") ? fileURLToPath(given) : given;
    } catch {
      return; // a main module that is not a file (https:, data:, a REPL)
    }
    if (!base.startsWith("/") && !/^[A-Za-z]:[/\\]|^\\\\/.test(base)) return; // not an absolute path
    if (places.some((place) => dirname(place.base) === dirname(base))) return;
    places.push({ base, origin });
  };
  try {
    add((createRequire(import.meta.url) as { main?: { filename?: string } }).main?.filename, "require.main");
  } catch {
    // no require.main here
  }
  try {
    add(process.argv[1], "process.argv[1]");
  } catch {
    // no argv (an embedder)
  }
  const runtime = globalThis as RuntimeGlobals;
  add(runtime.Deno?.mainModule, "Deno.mainModule");
  add(runtime.Bun?.main, "Bun.main");
  try {
    const cwd = process.cwd(); // Deno may need a permission
    places.push({ base: join(cwd, "noop.js"), origin: "the current directory", shown: cwd });
  } catch {
    // no cwd permission
  }
  return places;
}

/** The first of `names` found from the first place that has any, and the require that found it. */
function findPackage(
  options: LocateOptions,
  names: readonly string[],
): { require: (id: string) => unknown; name: string; packageJson: string; from: string } {
  const tried: string[] = [];
  let firstCause: unknown;
  const attempt = (appRequire: (id: string) => unknown, from: string) => {
    for (const name of names) {
      try {
        const resolve = (appRequire as { resolve?: (id: string) => string }).resolve;
        const packageJson = resolve ? resolve(`${name}/package.json`) : "";
        appRequire(`${name}/package.json`); // a require without resolve: loading is the test
        return { require: appRequire, name, packageJson, from };
      } catch (cause) {
        if (tried.length === 0) firstCause = cause;
        tried.push(`  ${from}: no ${name} (${String((cause as Error)?.message ?? cause).split("\n")[0]})`);
      }
    }
    return undefined;
  };
  if (options.require !== undefined) {
    if (typeof options.require !== "function") throw new TypeError("options.require must be a function");
    const found = attempt(options.require, "options.require");
    if (found) return found;
  } else if (options.resolveFrom !== undefined) {
    const given = options.resolveFrom;
    if (typeof given !== "string" && !(given instanceof URL)) { // a URL from another realm is not taken either
      throw new TypeError("options.resolveFrom must be a path or a file: URL");
    }
    const base = requireBase(given);
    const found = attempt(createRequire(base), `options.resolveFrom (${base})`);
    if (found) return found;
  } else {
    for (const place of applicationPlaces()) {
      let placeRequire: (id: string) => unknown;
      try {
        placeRequire = createRequire(place.base);
      } catch (cause) {
        tried.push(`  ${place.origin} (${place.shown ?? place.base}): ${String((cause as Error)?.message ?? cause)}`);
        continue;
      }
      const found = attempt(placeRequire, `${place.origin} (${place.shown ?? place.base})`);
      if (found) return found;
    }
  }
  const wanted = names.map((name) => `"${name}"`).join(" or ");
  const install = names.map((name) => `${name}@${TESTED_VERSIONS[name as Flavour]?.[0] ?? "<version>"}`).join(" or ");
  throw new Error(
    `tgcrypto-ffi/gramjs: cannot load the ${wanted} package. Looked in:\n${tried.join("\n")}\n` +
      `Install ${install} (tested), or pass installGramJS({ resolveFrom: import.meta.url }) ` +
      `or installGramJS({ require: createRequire(import.meta.url) }) from the module that imports it.`,
    { cause: firstCause },
  );
}

/** Loads the package's modules, checks its version and the shape of everything that is patched. */
export function loadModules(options: LocateOptions): GramModules {
  if (options.package !== undefined && (typeof options.package !== "string" || options.package === "")) {
    throw new TypeError("options.package must be a package name (\"telegram\", \"teleproto\" or an npm alias of one)");
  }
  const names = options.package === undefined ? ["telegram", "teleproto"] : [options.package];
  const { require: appRequire, name: specifier, packageJson } = findPackage(options, names);
  const manifest = appRequire(`${specifier}/package.json`) as { version?: unknown; name?: unknown };
  const version = String(manifest.version);
  const name = typeof manifest.name === "string" ? manifest.name : specifier;
  if (name !== "telegram" && name !== "teleproto") {
    throw new Error(`tgcrypto-ffi/gramjs: "${specifier}" is the package "${name}", neither telegram (GramJS) nor teleproto`);
  }
  const tested = TESTED_VERSIONS[name];
  if (!tested.includes(version) && !options.allowUntestedVersion) {
    throw new Error(
      `tgcrypto-ffi/gramjs: ${name} ${version} is not supported: the patches are tested with ${name} ` +
        `${tested.join(" and ")} only (pass { allowUntestedVersion: true } to try anyway).`,
    );
  }
  // Everything else is required relative to the package's own files, so that a
  // `require` that only resolves the package root still finds them.
  const root = packageJson ? packageJson.slice(0, -"package.json".length) : "";
  const get = (sub: string): Patchable => appRequire(`${specifier}/${sub}`) as Patchable;
  const packageRequire = root ? createRequire(join(root, "index.js")) : appRequire;
  const optional = (sub: string): Patchable | null => {
    try {
      return get(sub);
    } catch {
      return null;
    }
  };
  const cryptoJs = get("crypto/crypto");
  const hasCipheriv = typeof cryptoJs.createCipheriv === "function" || name === "telegram";
  const stateClass = get("network/MTProtoState").MTProtoState as { prototype: Patchable } | undefined;
  const modules: GramModules = {
    root: root || specifier,
    name,
    version,
    // teleproto 1.229 replaced msgIds with network/ReceivedIdsManager (and checks the session id).
    stateShape: optional("network/ReceivedIdsManager") === null ? "msg-ids" : "received-ids",
    ige: get("crypto/IGE"),
    ctr: get("crypto/CTR"),
    cryptoJs: hasCipheriv ? cryptoJs : null,
    factorizator: get("crypto/Factorizator").Factorizator as Patchable,
    helpers: get("Helpers"),
    state: stateClass?.prototype as Patchable,
    errors: get("errors") as unknown as GramModules["errors"],
    BinaryReader: get("extensions").BinaryReader as GramModules["BinaryReader"],
    TLMessage: get("tl/core").TLMessage as GramModules["TLMessage"],
    bigInt: packageRequire("big-integer") as BigIntegerFactory,
    nodeCrypto: packageRequire("node:crypto") as GramModules["nodeCrypto"],
  };
  const expected: [unknown, string, string][] = [
    [modules.ige, "IGE", "crypto/IGE.IGE"],
    [modules.ctr, "CTR", "crypto/CTR.CTR"],
    [modules.factorizator, "factorize", "Factorizator.factorize"],
    [modules.helpers, "sha1", "Helpers.sha1"],
    [modules.helpers, "sha256", "Helpers.sha256"],
    [modules.helpers, "generateRandomBytes", "Helpers.generateRandomBytes"],
    [modules.helpers, "toSignedLittleBuffer", "Helpers.toSignedLittleBuffer"],
    [modules.helpers, "readBufferFromBigInt", "Helpers.readBufferFromBigInt"],
    [modules.helpers, "readBigIntFromBuffer", "Helpers.readBigIntFromBuffer"],
    [modules.helpers, "mod", "Helpers.mod"],
    [modules.state, "encryptMessageData", "MTProtoState.prototype.encryptMessageData"],
    [modules.state, "decryptMessageData", "MTProtoState.prototype.decryptMessageData"],
    [modules.errors, "SecurityError", "errors.SecurityError"],
    [modules.errors, "InvalidBufferError", "errors.InvalidBufferError"],
    [modules, "BinaryReader", "extensions.BinaryReader"],
    [modules, "TLMessage", "tl/core.TLMessage"],
    [modules, "bigInt", "big-integer"],
    [modules.nodeCrypto, "randomFillSync", "node:crypto.randomFillSync"],
  ];
  if (modules.cryptoJs !== null) {
    expected.push([modules.cryptoJs, "createCipheriv", "crypto/crypto.createCipheriv"]);
    expected.push([modules.cryptoJs, "createDecipheriv", "crypto/crypto.createDecipheriv"]);
  }
  for (const [object, key, what] of expected) {
    const value = object ? (object as Patchable)[key] : undefined;
    if (typeof value !== "function") {
      throw new Error(`tgcrypto-ffi/gramjs: ${name} ${version} has no ${what} (tested with ${tested.join(", ")})`);
    }
  }
  return modules;
}
