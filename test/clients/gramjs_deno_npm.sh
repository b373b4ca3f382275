#!/usr/bin/env bash
# installGramJS() under Deno with `npm:telegram@2.26.22` and NO node_modules folder
# (--node-modules-dir=none: telegram comes from Deno's global npm cache, fetched
# from the registry on first use). An application in an empty directory imports
# telegram, calls installGramJS() with no options, and checks that the telegram
# instance it imported is the one patched, and that uninstallGramJS() restores it.
# Prints "deno npm: ok" and exits 0 on success.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/app.ts" <<APP
import { helpers, TelegramClient } from "npm:telegram@2.26.22";
import { installGramJS, uninstallGramJS } from "$repo/ts/clients/gramjs.ts";
const stock = helpers.sha256;
const { root } = installGramJS();
if (helpers.sha256 === stock) throw new Error("the application's telegram was not patched (patched: " + root + ")");
const digest = Buffer.from(await helpers.sha256(Buffer.from("abc"))).toString("hex");
if (digest !== "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") throw new Error("sha256: " + digest);
uninstallGramJS();
if (helpers.sha256 !== stock) throw new Error("not restored");
if (typeof TelegramClient !== "function") throw new Error("no TelegramClient");
console.log("patched " + root);
console.log("deno npm: ok");
APP
cd "$work"
"$repo/node_modules/.bin/deno" run -A --node-modules-dir=none app.ts
