#!/usr/bin/env bash
# Runtimes' permission models name their flags: an application that loads the
# library under Node's --permission without --allow-addons (or with
# --no-addons) gets an error naming --allow-addons (--no-addons); with
# --allow-addons it works. Deno without --allow-ffi names --allow-ffi (Deno's
# own message). Prints "N passed, N failed" last.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'import { sha256 } from "%s/ts/mod.ts";\nconsole.log(Buffer.from(sha256(new Uint8Array(0))).toString("hex"));\n' "$repo" >"$work/app.mjs"
printf 'import { sha256 } from "%s/ts/mod.ts";\nconsole.log(sha256(new Uint8Array(0)).length);\n' "$repo" >"$work/app.ts"
empty_sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
passed=0 failed=0
# expect <description> <regex the output must match> <command...>
expect() {
    local what=$1 pattern=$2 out
    shift 2
    out=$("$@" 2>&1)
    if grep -qE -- "$pattern" <<<"$out"; then passed=$((passed + 1))
    else echo "FAIL $what: expected /$pattern/, got:"; echo "$out" | head -5; failed=$((failed + 1)); fi
}
for line in 22 24 26; do
    node="$repo/node_modules/node$line/bin/node"
    [ -x "$node" ] || continue
    expect "node $line --permission" "start it with --allow-addons" "$node" --permission "--allow-fs-read=*" "$work/app.mjs"
    expect "node $line --permission --allow-addons" "^$empty_sha256\$" \
        "$node" --permission "--allow-fs-read=*" --allow-addons "$work/app.mjs"
    expect "node $line --no-addons" "started with --no-addons" "$node" --no-addons "$work/app.mjs"
done
expect "deno without --allow-ffi" "run again with the --allow-ffi flag" \
    "$repo/node_modules/.bin/deno" run --allow-read --allow-env --no-prompt "$work/app.ts"
expect "deno with --allow-ffi" "^32\$" "$repo/node_modules/.bin/deno" run --allow-read --allow-env --allow-ffi --no-prompt "$work/app.ts"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
