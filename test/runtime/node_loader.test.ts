/**
 * The Node binding's loader decisions (ts/runtime/node.ts), in any runtime:
 * the locator, `require` and Node's flags are stubs, so these tests check
 * which path is required, how a refused or failed load is reported (the
 * flag to change, the path, the origin, the cause), that an addon missing
 * a contract function is refused by name, and that the addon's functions
 * are passed through untouched.
 */
import { describe, expect, test } from "vitest";

import type { LibraryCandidate } from "../../ts/runtime/locate.ts";
import { loadNative, nodeFlags, type NodeLoaderHost } from "../../ts/runtime/node.ts";
import { symbols } from "../../ts/runtime/symbols.ts";

const candidate: LibraryCandidate = { path: "/opt/tg/tgcrypto.node", origin: "$TGCRYPTO_ADDON" };

/** An addon exporting every contract function (each a distinct function). */
function fullAddon(): Record<string, unknown> {
  const addon: Record<string, unknown> = {};
  for (const name of Object.keys(symbols)) addon[name] = () => name;
  return addon;
}

function stubHost(load: (path: string) => unknown, flags: string[] = []) {
  const asked: string[] = [];
  const required: string[] = [];
  const host: NodeLoaderHost = {
    locate(artifact) {
      asked.push(artifact);
      return candidate;
    },
    require(path) {
      required.push(path);
      return load(path);
    },
    flags: () => flags,
  };
  return { host, asked, required };
}

function thrownBy(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return error as Error;
  }
  throw new Error("expected a throw");
}

describe("loading", () => {
  test("the addon the locator names is required, and its functions are passed through untouched", () => {
    const addon = fullAddon();
    const { host, asked, required } = stubHost(() => addon);
    const native = loadNative(host);
    expect([asked, required]).toEqual([["addon"], [candidate.path]]);
    expect([native.runtime, native.path]).toEqual(["node", candidate.path]);
    for (const name of Object.keys(symbols)) {
      expect((native as unknown as Record<string, unknown>)[name], name).toBe(addon[name]);
    }
    expect(typeof native.allocateOutput).toBe("function");
    expect(typeof native.finishOutput).toBe("function");
  });

  test("an addon that lacks contract functions (another version's) is refused, naming each", () => {
    const addon = fullAddon();
    delete addon.tg_ctr_position;
    addon.tg_sha1 = "not a function";
    const error = thrownBy(() => loadNative(stubHost(() => addon).host));
    expect(error.message).toBe(
      "tgcrypto-ffi: cannot load /opt/tg/tgcrypto.node ($TGCRYPTO_ADDON): " +
        "not this version's addon: it lacks tg_ctr_position, tg_sha1",
    );
    const one = fullAddon();
    delete one.tg_factorize_pq;
    expect(thrownBy(() => loadNative(stubHost(() => one).host)).message).toMatch(/: it lacks tg_factorize_pq$/);
  });

  test("a failed require: the path, the origin and the loader's own error, kept as the cause", () => {
    const cause = Object.assign(new Error("invalid ELF header"), { code: "ERR_DLOPEN_FAILED" });
    const error = thrownBy(() =>
      loadNative(
        stubHost(() => {
          throw cause;
        }, ["--no-addons"]).host,
      ),
    );
    expect(error.message).toBe("tgcrypto-ffi: cannot load /opt/tg/tgcrypto.node ($TGCRYPTO_ADDON): invalid ELF header");
    expect(error.cause).toBe(cause);
  });
});

test("a require that throws something other than an Error: reported as it is", () => {
  for (const thrown of [undefined, null, "no addon here"]) {
    const error = thrownBy(() =>
      loadNative(
        stubHost(() => {
          throw thrown;
        }).host,
      ),
    );
    expect(error.message).toBe(`tgcrypto-ffi: cannot load /opt/tg/tgcrypto.node ($TGCRYPTO_ADDON): ${String(thrown)}`);
    expect(error.cause).toBe(thrown);
  }
});

describe("addons disabled (ERR_DLOPEN_DISABLED)", () => {
  const disabled = () => Object.assign(new Error("Cannot load native addon because loading addons is disabled."), { code: "ERR_DLOPEN_DISABLED" });
  const refusal = (flags: string[]) => {
    const cause = disabled();
    const error = thrownBy(() =>
      loadNative(
        stubHost(() => {
          throw cause;
        }, flags).host,
      ),
    );
    const reason = error.cause as Error;
    expect(reason.cause, "Node's error is kept under the explanation").toBe(cause);
    return { message: error.message, reason: reason.message };
  };

  test("--no-addons (in execArgv or NODE_OPTIONS): start without it", () => {
    const expected = "Node.js was started with --no-addons: start it without that flag " +
      "(Cannot load native addon because loading addons is disabled.)";
    expect(refusal(["--no-addons"]).reason).toBe(expected);
    expect(refusal(["--max-old-space-size=64", "--no-addons"]).reason).toBe(expected);
    expect(refusal(["--no-addons"]).message).toBe(`tgcrypto-ffi: cannot load /opt/tg/tgcrypto.node ($TGCRYPTO_ADDON): ${expected}`);
  });

  test("otherwise (--permission without --allow-addons): add --allow-addons", () => {
    const expected = "Node.js runs with --permission, which disables addons: start it with --allow-addons as well " +
      "(e.g. node --permission --allow-addons --allow-fs-read=... app.js) " +
      "(Cannot load native addon because loading addons is disabled.)";
    expect(refusal(["--permission"]).reason).toBe(expected);
    expect(refusal([]).reason).toBe(expected);
    expect(refusal(["--no-addons-x"]).reason, "only the exact flag").toBe(expected);
  });
});

test("Node's flags: the command line's, then NODE_OPTIONS split at any run of white space", () => {
  expect(nodeFlags(["--permission"], "--no-addons  --max-old-space-size=64\t--trace-warnings")).toEqual(
    ["--permission", "--no-addons", "--max-old-space-size=64", "--trace-warnings"],
  );
  expect(nodeFlags([], undefined)).toEqual([""]);
  expect(nodeFlags(["--a"], "")).toEqual(["--a", ""]);
});
