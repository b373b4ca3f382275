/**
 * contract/check.mjs, the check `npm test` runs: the tree is in step with
 * csrc/tgcrypto.h and contract/rules.json, and each kind of drift planted in
 * a copy of the tree (a new C function with no host entry, a changed or
 * added argument, a new return code (also without a tg_strerror text), a host table that loses or misreads a
 * function, a message written a second time) is reported.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { contractDrifts } from "../../contract/check.mjs";
import { ROOT } from "../../contract/generate.mjs";

const COPIED = ["contract", "csrc", "ts", "bindings/node", "bindings/python/ext", "bindings/python/src"];
const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the checked part of the tree with `edit(root)` applied; returns the drifts found in it. */
function driftsAfter(edit: (root: string) => void): string[] {
  const root = mkdtempSync(join(tmpdir(), "tgcrypto-contract-"));
  copies.push(root);
  for (const path of COPIED) cpSync(join(ROOT, path), join(root, path), { recursive: true });
  edit(root);
  return contractDrifts(root);
}

/** Replaces `from` (which must occur) by `to` in root/path. */
function replaceIn(root: string, path: string, from: string, to: string): void {
  const text = readFileSync(join(root, path), "utf8");
  expect(text.includes(from), `${path} contains ${from}`).toBe(true);
  writeFileSync(join(root, path), text.replace(from, to));
}

const HEADER = "csrc/tgcrypto.h";

describe("contract check", () => {
  test("this tree is in step with tgcrypto.h and rules.json", () => {
    expect(contractDrifts()).toEqual([]);
  });

  test("an untouched copy is in step too (the copy itself plants nothing)", () => {
    expect(driftsAfter(() => {})).toEqual([]);
  });

  test("a new C function with no host entry fails for every host", () => {
    const drifts = driftsAfter((root) =>
      replaceIn(root, HEADER, "#ifdef __cplusplus\n}", "TG_API int tg_planted(uint8_t *out, uint32_t len);\n\n#ifdef __cplusplus\n}")
    );
    expect(drifts).toEqual(expect.arrayContaining([
      "ts/runtime/abi_table.ts is stale: run node contract/generate.mjs",
      "native.ts: Native has no member tg_planted",
      "native.ts: nativeFromSymbols does not set tg_planted",
      "addon.c: no function registered for tg_planted",
      "Python extension: tg_planted is not used (use it, or list it in PYTHON_UNUSED with the reason)",
    ]));
  });

  test("a changed argument type fails the generated table and the addon's marshalling", () => {
    const drifts = driftsAfter((root) =>
      replaceIn(root, HEADER, "const uint8_t iv[16], uint32_t state);", "const uint8_t iv[16], int state);")
    );
    expect(drifts).toEqual(expect.arrayContaining([
      "ts/runtime/abi_table.ts is stale: run node contract/generate.mjs",
      "addon.c: js_ctr_new reads argument 2 (state) as u32, the header has i32",
    ]));
  });

  test("an added argument fails Native, the addon and the Python extension's call", () => {
    const drifts = driftsAfter((root) =>
      replaceIn(root, HEADER, "tg_auth_key_id(const tg_auth_key *key, uint8_t id[8]);",
        "tg_auth_key_id(const tg_auth_key *key, uint8_t id[8], uint32_t id_len);")
    );
    expect(drifts).toEqual(expect.arrayContaining([
      "native.ts: Native.tg_auth_key_id takes 2 parameters, the header 3",
      "addon.c: js_auth_key_id reads 2 arguments, tg_auth_key_id takes 3",
      "addon.c: js_auth_key_id reads argument 2 (id_len) as nothing, the header has u32",
      "addon.c: calls tg_auth_key_id with 2 arguments, the header declares 3",
      "Python extension: calls tg_auth_key_id with 2 arguments, the header declares 3",
    ]));
  });

  test("a new return code fails the generated ErrorCode", () => {
    const drifts = driftsAfter((root) =>
      replaceIn(root, HEADER, "#define TG_ERR_NO_FACTOR  -14", "#define TG_ERR_PLANTED -15\n#define TG_ERR_NO_FACTOR  -14")
    );
    expect(drifts).toEqual([
      "ts/runtime/abi_table.ts is stale: run node contract/generate.mjs",
      "api.c: tg_strerror has no case for TG_ERR_PLANTED",
    ]);
  });

  test("the addon losing a function, or reading an argument as another kind, fails", () => {
    const drifts = driftsAfter((root) => {
      replaceIn(root, "bindings/node/addon.c", ' FN("tg_ctr_position", js_ctr_position),', "");
      replaceIn(root, "bindings/node/addon.c", "uint32_t packet_len = u32(&a, 4);", "uint32_t packet_len = 0;");
    });
    expect(drifts).toEqual(expect.arrayContaining([
      "addon.c: no function registered for tg_ctr_position",
      "addon.c: js_mtproto_decrypt reads argument 4 (packet_len) as nothing, the header has u32",
    ]));
  });

  test("Native losing a member fails", () => {
    const drifts = driftsAfter((root) =>
      replaceIn(root, "ts/runtime/native.ts", "readonly tg_backend_count: () => number;", "")
    );
    expect(drifts).toContain("native.ts: Native has no member tg_backend_count");
  });

  test("the Python stubs and the extension's tables must agree", () => {
    const drifts = driftsAfter((root) => {
      const pyi = "bindings/python/src/tgcrypto_ffi/_native.pyi";
      replaceIn(root, pyi, "def hash_engine() -> str: ...\n", "");
      replaceIn(root, pyi, "def version() -> str: ...", "def version(verbose: bool) -> str: ...");
    });
    expect(drifts).toEqual(expect.arrayContaining([
      "_native.pyi: hash_engine is in the extension, not in the stubs",
      "_native.pyi: version (METH_NOARGS) does not take (verbose: bool)",
    ]));
  });

  test("a message of rules.json written again in a host source fails", () => {
    const drifts = driftsAfter((root) => {
      replaceIn(root, "ts/aes/contexts.ts", "throw new RangeError(DATA_TOO_LARGE)",
        'throw new RangeError("Data is too large (max 4294967295 bytes)")');
      writeFileSync(join(root, "bindings/python/ext/planted.c"), 'static const char m[] = "MTProto message rejected";\n');
    });
    expect(drifts).toEqual(expect.arrayContaining([
      'ts/aes/contexts.ts: writes the message DATA_TOO_LARGE ("Data is too large (max 4294967295 bytes)...") that contract/rules.json defines',
      'bindings/python/ext/planted.c: writes the message MTPROTO_REJECTED ("MTProto message rejected...") that contract/rules.json defines',
    ]));
  });

  test("a message quoted in a comment or a Python docstring is documentation, not a second definition", () => {
    const drifts = driftsAfter((root) => {
      writeFileSync(join(root, "ts/planted_comment.ts"), '// raises "MTProto message rejected"\nexport {};\n');
      writeFileSync(join(root, "bindings/python/src/planted_doc.py"), '"""Raises ("MTProto message rejected")."""\n');
    });
    expect(drifts).toEqual([]);
  });
});
