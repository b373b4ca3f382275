/**
 * How the GramJS drop-in finds and checks its client package
 * (ts/clients/gramjs/package.ts: loadModules), against a stub package served
 * by a stub `require`: the package-name option, the manifest's name and
 * version, the two package layouts (GramJS's crypto/crypto ciphers,
 * teleproto's ReceivedIdsManager), and the exact error for every function
 * the patches need that the package lacks.
 */
import { describe, expect, test } from "vitest";

import { loadModules, TESTED_VERSIONS } from "../../ts/clients/gramjs/package.ts";

type Stub = Record<string, Record<string, unknown>>;
const fn = () => () => undefined;

/** A complete stub of `name`'s modules, as require ids under `specifier`. */
function stubPackage(specifier: string, manifest: Record<string, unknown>, withReceivedIds = false): Stub {
  const modules: Stub = {
    "package.json": manifest,
    "crypto/IGE": { IGE: fn() },
    "crypto/CTR": { CTR: fn() },
    "crypto/crypto": { createCipheriv: fn(), createDecipheriv: fn() },
    "crypto/Factorizator": { Factorizator: { factorize: fn() } },
    Helpers: {
      sha1: fn(), sha256: fn(), generateRandomBytes: fn(), toSignedLittleBuffer: fn(),
      readBufferFromBigInt: fn(), readBigIntFromBuffer: fn(), mod: fn(),
    },
    "network/MTProtoState": { MTProtoState: { prototype: { encryptMessageData: fn(), decryptMessageData: fn() } } },
    errors: { SecurityError: fn(), InvalidBufferError: fn() },
    extensions: { BinaryReader: fn() },
    "tl/core": { TLMessage: fn() },
  };
  if (withReceivedIds) modules["network/ReceivedIdsManager"] = { ReceivedIdsManager: fn() };
  const stub: Stub = {};
  for (const [sub, value] of Object.entries(modules)) stub[`${specifier}/${sub}`] = value;
  return stub;
}

/** A require (without .resolve) serving `stub`, big-integer and node:crypto; records what was asked. */
function stubRequire(stub: Stub, asked: string[] = []) {
  const extra: Record<string, unknown> = { "big-integer": fn(), "node:crypto": { randomFillSync: fn() } };
  return (id: string): unknown => {
    asked.push(id);
    if (id in stub) return stub[id];
    if (id in extra) return extra[id];
    throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
  };
}

const GRAMJS = TESTED_VERSIONS.telegram[0]!;
const TELEPROTO = TESTED_VERSIONS.teleproto[0]!;

describe("the package", () => {
  test("GramJS: found under its name, its ciphers kept, msgIds state", () => {
    const stub = stubPackage("telegram", { name: "telegram", version: GRAMJS });
    const modules = loadModules({ require: stubRequire(stub) });
    expect([modules.name, modules.version, modules.root, modules.stateShape]).toEqual(["telegram", GRAMJS, "telegram", "msg-ids"]);
    expect(modules.cryptoJs).toBe(stub["telegram/crypto/crypto"]);
    expect(modules.ige).toBe(stub["telegram/crypto/IGE"]);
    expect(modules.state).toBe((stub["telegram/network/MTProtoState"]!.MTProtoState as { prototype: unknown }).prototype);
  });

  test("teleproto: tried after telegram; no ciphers in crypto/crypto (null); ReceivedIdsManager state", () => {
    const stub = stubPackage("teleproto", { name: "teleproto", version: TELEPROTO }, true);
    stub["teleproto/crypto/crypto"] = {};
    const asked: string[] = [];
    const modules = loadModules({ require: stubRequire(stub, asked) });
    expect(asked.slice(0, 2)).toEqual(["telegram/package.json", "teleproto/package.json"]);
    expect([modules.name, modules.cryptoJs, modules.stateShape]).toEqual(["teleproto", null, "received-ids"]);
  });

  test("options.package: an npm alias of either is taken by its manifest's name; anything else is refused", () => {
    const alias = stubPackage("tg-alias", { name: "telegram", version: GRAMJS });
    expect(loadModules({ package: "tg-alias", require: stubRequire(alias) }).name).toBe("telegram");
    const other = stubPackage("gram-fork", { name: "gram-fork", version: GRAMJS });
    expect(() => loadModules({ package: "gram-fork", require: stubRequire(other) })).toThrow(
      new Error('tgcrypto-ffi/gramjs: "gram-fork" is the package "gram-fork", neither telegram (GramJS) nor teleproto'),
    );
    const nameless = stubPackage("telegram", { version: GRAMJS });
    expect(loadModules({ require: stubRequire(nameless) }).name, "no name in the manifest: the specifier").toBe("telegram");
    const message = 'options.package must be a package name ("telegram", "teleproto" or an npm alias of one)';
    for (const bad of ["", 5, null]) {
      expect(() => loadModules({ package: bad as never, require: stubRequire(alias) })).toThrow(new TypeError(message));
    }
  });

  test("GramJS without ciphers in crypto/crypto is an error (its patches replace them); teleproto's is not", () => {
    const stub = stubPackage("telegram", { name: "telegram", version: GRAMJS });
    stub["telegram/crypto/crypto"] = {};
    expect(() => loadModules({ require: stubRequire(stub) })).toThrow(
      new Error(`tgcrypto-ffi/gramjs: telegram ${GRAMJS} has no crypto/crypto.createCipheriv (tested with ${GRAMJS})`),
    );
  });

  test("nothing found: each name tried, the first error as the cause, the versions to install", () => {
    const asked: string[] = [];
    let error: Error | undefined;
    try {
      loadModules({ require: stubRequire({}, asked) });
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toBe(
      "tgcrypto-ffi/gramjs: cannot load the \"telegram\" or \"teleproto\" package. Looked in:\n" +
        "  options.require: no telegram (Cannot find module 'telegram/package.json')\n" +
        "  options.require: no teleproto (Cannot find module 'teleproto/package.json')\n" +
        `Install telegram@${GRAMJS} or teleproto@${TELEPROTO} (tested), or pass installGramJS({ resolveFrom: import.meta.url }) ` +
        "or installGramJS({ require: createRequire(import.meta.url) }) from the module that imports it.",
    );
    expect((error?.cause as Error).message).toBe("Cannot find module 'telegram/package.json'");
    expect(() => loadModules({ package: "my-alias", require: stubRequire({}) })).toThrow(/\nInstall my-alias@<version> \(tested\)/);
  });
});

describe("every function the patches need", () => {
  const needed: [string, string, string][] = [
    ["crypto/IGE", "IGE", "crypto/IGE.IGE"],
    ["crypto/CTR", "CTR", "crypto/CTR.CTR"],
    ["Helpers", "sha1", "Helpers.sha1"],
    ["Helpers", "sha256", "Helpers.sha256"],
    ["Helpers", "generateRandomBytes", "Helpers.generateRandomBytes"],
    ["Helpers", "toSignedLittleBuffer", "Helpers.toSignedLittleBuffer"],
    ["Helpers", "readBufferFromBigInt", "Helpers.readBufferFromBigInt"],
    ["Helpers", "readBigIntFromBuffer", "Helpers.readBigIntFromBuffer"],
    ["Helpers", "mod", "Helpers.mod"],
    ["errors", "SecurityError", "errors.SecurityError"],
    ["errors", "InvalidBufferError", "errors.InvalidBufferError"],
    ["extensions", "BinaryReader", "extensions.BinaryReader"],
    ["tl/core", "TLMessage", "tl/core.TLMessage"],
    ["crypto/crypto", "createCipheriv", "crypto/crypto.createCipheriv"],
    ["crypto/crypto", "createDecipheriv", "crypto/crypto.createDecipheriv"],
  ];

  test.each(needed)("without %s's %s: an error naming %s", (sub, key, what) => {
    const stub = stubPackage("telegram", { name: "telegram", version: GRAMJS });
    stub[`telegram/${sub}`] = { ...stub[`telegram/${sub}`], [key]: "not a function" };
    expect(() => loadModules({ require: stubRequire(stub) })).toThrow(
      new Error(`tgcrypto-ffi/gramjs: telegram ${GRAMJS} has no ${what} (tested with ${GRAMJS})`),
    );
  });

  test("the others: Factorizator.factorize, the MTProtoState methods, big-integer, node:crypto.randomFillSync", () => {
    const check = (edit: (stub: Stub, extra: Record<string, unknown>) => void, what: string) => {
      const stub = stubPackage("teleproto", { name: "teleproto", version: TELEPROTO });
      const extra: Record<string, unknown> = { "big-integer": fn(), "node:crypto": { randomFillSync: fn() } };
      edit(stub, extra);
      const require = (id: string): unknown => {
        if (id in stub) return stub[id];
        if (id in extra) return extra[id];
        throw new Error(`Cannot find module '${id}'`);
      };
      expect(() => loadModules({ require }), what).toThrow(
        new Error(`tgcrypto-ffi/gramjs: teleproto ${TELEPROTO} has no ${what} (tested with ${TESTED_VERSIONS.teleproto.join(", ")})`),
      );
    };
    check((s) => void (s["teleproto/crypto/Factorizator"] = { Factorizator: {} }), "Factorizator.factorize");
    check((s) => void (s["teleproto/network/MTProtoState"] = { MTProtoState: { prototype: { decryptMessageData: fn() } } }),
      "MTProtoState.prototype.encryptMessageData");
    check((s) => void (s["teleproto/network/MTProtoState"] = { MTProtoState: { prototype: { encryptMessageData: fn() } } }),
      "MTProtoState.prototype.decryptMessageData");
    check((s) => void (s["teleproto/network/MTProtoState"] = {}), "MTProtoState.prototype.encryptMessageData");
    check((_, e) => void (e["big-integer"] = {}), "big-integer");
    check((_, e) => void (e["node:crypto"] = {}), "node:crypto.randomFillSync");
  });
});
