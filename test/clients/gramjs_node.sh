#!/usr/bin/env bash
# installGramJS() in a Node.js application, CommonJS (GramJS applications
# mostly are) and ES module, on Node 22 and 26, for GramJS and for teleproto:
# an empty project whose node_modules links telegram@2.26.22 (or teleproto,
# and not telegram) and this checkout as tgcrypto-ffi. The application loads
# its package, calls installGramJS() with no options, and checks that the
# package it loaded is the one patched (IGE through the addon: the same bytes
# as stock; sha256; the message layer's encryptMessageData replaced), and that
# uninstallGramJS() restores it. Bun runs the same applications. Each runs twice: from its own
# directory and from / (as a service manager starts it), where only the entry
# script leads to its node_modules.
# Prints "N passed, N failed" last.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
passed=0 failed=0

# app_for <package>: builds $scratch/<package>/ (app.cjs, app.mjs) with only that package in node_modules.
app_for() {
work="$scratch/$1"
mkdir -p "$work/node_modules"
ln -s "$repo/node_modules/$1" "$work/node_modules/$1"
ln -s "$repo" "$work/node_modules/tgcrypto-ffi"
echo '{ "name": "gramjs-app", "private": true }' >"$work/package.json"

# The body, shared by both module kinds; `telegramRequire`, `pkg` and `gramjs` come from the header.
cat >"$work/body.js" <<'JS'
const assert = require("node:assert/strict");
const { helpers } = telegramRequire(pkg);
const igeModule = telegramRequire(`${pkg}/crypto/IGE`);
const { MTProtoState } = telegramRequire(`${pkg}/network/MTProtoState`);
const key = Buffer.alloc(32, 7), iv = Buffer.alloc(32, 9), data = Buffer.alloc(64, 5);
const stockIge = igeModule.IGE, stockSha256 = helpers.sha256, stockEncrypt = MTProtoState.prototype.encryptMessageData;
const stockBytes = new stockIge(key, iv).encryptIge(data);

const { root, name } = gramjs.installGramJS();
assert.equal(name, pkg, "installGramJS patched another package");
assert.notEqual(igeModule.IGE, stockIge, `the application's telegram was not patched (patched: ${root})`);
assert.notEqual(MTProtoState.prototype.encryptMessageData, stockEncrypt, "encryptMessageData not replaced");
const nativeBytes = new igeModule.IGE(key, iv).encryptIge(data);
assert.ok(Buffer.isBuffer(nativeBytes), "IGE must give Buffers, as GramJS's");
assert.equal(nativeBytes.toString("hex"), Buffer.from(stockBytes).toString("hex"), "native IGE differs from stock");
assert.equal(new igeModule.IGE(key, iv).decryptIge(nativeBytes).toString("hex"), data.toString("hex"));
Promise.resolve(helpers.sha256(Buffer.from("abc"))).then((digest) => {
  assert.equal(Buffer.from(digest).toString("hex"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.match(main.libraryPath(), process.versions.bun ? /libtgcrypto\./ : /tgcrypto\.node$/, "not the runtime's binding");
  gramjs.uninstallGramJS();
  assert.equal(igeModule.IGE, stockIge, "uninstallGramJS did not restore IGE");
  assert.equal(helpers.sha256, stockSha256, "uninstallGramJS did not restore sha256");
  console.log(`${kind} ${pkg} app on node ${process.version} from ${process.cwd()}: patched ${root}, ok`);
}).catch((error) => { console.error(error); process.exit(1); });
JS
{ echo '"use strict";'
  echo "const pkg = \"$1\";"
  echo 'const kind = "CommonJS", telegramRequire = require;'
  echo 'const gramjs = require("tgcrypto-ffi/gramjs"), main = require("tgcrypto-ffi");'
  cat "$work/body.js"; } >"$work/app.cjs"
{ echo 'import { createRequire } from "node:module";'
  echo 'import * as gramjs from "tgcrypto-ffi/gramjs";'
  echo 'import * as main from "tgcrypto-ffi";'
  echo 'const require = createRequire(import.meta.url);'
  echo "const pkg = \"$1\";"
  echo 'const kind = "ES module", telegramRequire = require;' # telegram is CommonJS with no exports map
  cat "$work/body.js"; } >"$work/app.mjs"

for from in "$work" /; do
    cd "$from" || exit 1
    for line in 22 26; do
        for app in app.cjs app.mjs; do
            if "$repo/node_modules/node$line/bin/node" "$work/$app"; then passed=$((passed + 1))
            else echo "FAIL node $line $1 $app from $from"; failed=$((failed + 1)); fi
        done
    done
    # Bun runs the same applications (it loads the shared library, not the addon).
    for app in app.cjs app.mjs; do
        if "$repo/node_modules/.bin/bun" "$work/$app"; then passed=$((passed + 1))
        else echo "FAIL bun $1 $app from $from"; failed=$((failed + 1)); fi
    done
done
}

app_for telegram
app_for teleproto

# An application with neither package, started from /: the error names the entry script and the cwd, each
# with both packages.
empty="$scratch/empty"
mkdir -p "$empty/node_modules" && ln -s "$repo" "$empty/node_modules/tgcrypto-ffi"
printf 'import { installGramJS } from "tgcrypto-ffi/gramjs";\ntry { installGramJS(); } catch (e) { console.log(e.message); }\n' >"$empty/app.mjs"
message=$(cd / && "$repo/node_modules/node26/bin/node" "$empty/app.mjs" 2>/dev/null)
if grep -qF "process.argv[1] ($empty/app.mjs): no teleproto" <<<"$message" &&
    grep -qF "the current directory (/): no telegram" <<<"$message" &&
    grep -qF 'cannot load the "telegram" or "teleproto" package. Looked in:' <<<"$message"; then passed=$((passed + 1))
else echo "FAIL: the not-found error does not name every place: $message"; failed=$((failed + 1)); fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
