#!/usr/bin/env bash
# The packed package's types in a consumer's every setup: tsc over a small
# consumer project (consumer.ts as .ts and .mts, consumer_dynamic.cts; and a
# .cts with require() of the package where TypeScript models require(esm):
# module nodenext) with only lib ["es2022"] (no DOM, no @types/node,
# skipLibCheck off, so every .d.ts of the package is checked), for
# moduleResolution node10, node16, nodenext and bundler.
# Usage: test/package/types/run.sh <staged package dir> (zig-out/npm/tgcrypto-ffi,
# as scripts/pack.mjs stages it). Prints "N passed, N failed" last.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
package=${1:?usage: run.sh <staged tgcrypto-ffi package directory>}
tsc=$repo/node_modules/.bin/tsc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
# setup <name> <module> <moduleResolution> <files...>: one consumer project, type-checked.
setup() {
    local name=$1 module=$2 resolution=$3 dir="$work/$1"
    shift 3
    mkdir -p "$dir/node_modules"
    ln -s "$package" "$dir/node_modules/tgcrypto-ffi"
    echo '{ "name": "consumer", "private": true }' >"$dir/package.json"
    local file list=""
    for file in "$@"; do
        cp "$here/${file%%:*}" "$dir/${file##*:}"
        list="$list\"${file##*:}\","
    done
    cat >"$dir/tsconfig.json" <<JSON
{ "compilerOptions": { "target": "es2022", "lib": ["es2022"], "types": [], "module": "$module",
    "moduleResolution": "$resolution", "strict": true, "noEmit": true, "skipLibCheck": false },
  "files": [${list%,}] }
JSON
    if (cd "$dir" && "$tsc" -p tsconfig.json >"$dir/out" 2>&1); then passed=$((passed + 1)); echo "ok: $name"
    else failed=$((failed + 1)); echo "FAIL: $name"; head -20 "$dir/out"; fi
}
setup node10 commonjs node10 consumer.ts:consumer.ts consumer_dynamic.cts:consumer_dynamic.cts
setup node16 node16 node16 consumer.ts:consumer.mts consumer_dynamic.cts:consumer_dynamic.cts
setup nodenext nodenext nodenext consumer.ts:consumer.mts consumer.ts:consumer_require.cts consumer_dynamic.cts:consumer_dynamic.cts
setup bundler esnext bundler consumer.ts:consumer.ts consumer.ts:consumer.mts consumer_dynamic.cts:consumer_dynamic.cts
setup preserve preserve bundler consumer.ts:consumer.ts consumer.ts:consumer.mts consumer.ts:consumer_require.cts
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
