/**
 * installGramJS()'s options (test/clients/gramjs.test.ts has the patches
 * themselves): the type errors, every form of resolveFrom (a directory with or
 * without a trailing separator, a file in it, a file: URL string, a URL), a
 * require without resolve, and a load failure's message and cause.
 */
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { afterAll, describe, expect, test } from "vitest";
import {
  installGramJS,
  isGramJSInstalled,
  TESTED_GRAMJS_VERSION,
  TESTED_TELEPROTO_VERSIONS,
  uninstallGramJS,
} from "../../ts/clients/gramjs.ts";

const require = createRequire(import.meta.url);
afterAll(() => uninstallGramJS());

describe("installGramJS options", () => {
  test("options: their type errors, and resolveFrom as a directory, a file, a file: URL string or a URL", () => {
    uninstallGramJS();
    expect(() => installGramJS(5 as never)).toThrow(new TypeError("options must be an object"));
    expect(() => installGramJS(null as never)).toThrow(new TypeError("options must be an object"));
    expect(() => installGramJS({ require: 5 as never })).toThrow(new TypeError("options.require must be a function"));
    for (const bad of [5, {}, null]) {
      expect(() => installGramJS({ resolveFrom: bad as never }), String(bad)).toThrow(
        new TypeError("options.resolveFrom must be a path or a file: URL"),
      );
    }
    expect(isGramJSInstalled()).toBe(false);
    const root = fileURLToPath(new URL("../../", import.meta.url)); // this checkout, with telegram in node_modules
    const telegramRoot = dirname(require.resolve("telegram/package.json"));
    for (const resolveFrom of [root, root.replace(/[/\\]$/, ""), join(root, "package.json"), pathToFileURL(root).href, pathToFileURL(root)]) {
      const info = installGramJS({ resolveFrom });
      expect(info.version).toBe(TESTED_GRAMJS_VERSION);
      expect(resolve(info.root), String(resolveFrom)).toBe(telegramRoot);
      expect(isGramJSInstalled()).toBe(true);
      expect(uninstallGramJS()).toBe(1);
    }
    // A require without resolve (only the package root is known): telegram's files are required through it.
    const bare = (id: string) => require(id);
    const info = installGramJS({ require: bare });
    expect(info.version).toBe(TESTED_GRAMJS_VERSION);
    expect(isGramJSInstalled()).toBe(true);
    uninstallGramJS();
  });

  test("a load failure keeps its cause and names where it looked", () => {
    const cause = Object.assign(new Error("Cannot find module 'telegram/package.json'"), { code: "MODULE_NOT_FOUND" });
    let error: unknown;
    try {
      installGramJS({ require: () => { throw cause; } });
    } catch (e) {
      error = e;
    }
    expect((error as Error).message).toBe(
      `tgcrypto-ffi/gramjs: cannot load the "telegram" or "teleproto" package. Looked in:\n` +
        `  options.require: no telegram (Cannot find module 'telegram/package.json')\n` +
        `  options.require: no teleproto (Cannot find module 'telegram/package.json')\n` +
        `Install telegram@${TESTED_GRAMJS_VERSION} or teleproto@${TESTED_TELEPROTO_VERSIONS[0]} (tested), ` +
        `or pass installGramJS({ resolveFrom: import.meta.url }) ` +
        `or installGramJS({ require: createRequire(import.meta.url) }) from the module that imports it.`,
    );
    expect((error as Error).cause).toBe(cause);
  });
});
