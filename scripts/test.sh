#!/usr/bin/env bash
# Every test of the project, as `npm test` runs it:
#   1. the C library built with -Wall -Wextra -Werror, and the portable build;
#   2. `zig build test`: known answers + differential tests on every backend;
#   3. type-check of ts/, test/ and bench/;
#   4. the vitest suite under Bun and under Deno, once per backend this CPU has.
# Prints each suite's counts, then the total as "N passed, N failed".
# Exits non-zero if anything failed or a suite ran no test.
set -uo pipefail
cd "$(dirname "$0")/.."

bin=./node_modules/.bin
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
total_passed=0
total_failed=0
status=0

# record NAME PASSED FAILED
record() {
    printf '%-40s %6s passed, %s failed\n' "$1" "$2" "$3"
    total_passed=$((total_passed + $2))
    total_failed=$((total_failed + $3))
    if [ "$3" -ne 0 ] || [ "$2" -eq 0 ]; then status=1; fi
}

# step NAME COMMAND...: a build/check step that counts as one test.
step() {
    local name=$1; shift
    echo "== $name"
    if "$@"; then record "$name" 1 0; else record "$name" 0 1; fi
}

step "zig build (shared library)" ./scripts/zig build
step "zig build -Dportable=true" ./scripts/zig build -Dportable=true --prefix "$results/portable"

echo "== zig build test"
./scripts/zig build test 2>&1 | tee "$results/c.log"
c_line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$results/c.log" | tail -1)
record "C tests (every backend)" "${c_line%% passed*}" "$(echo "$c_line" | sed -E 's/.* ([0-9]+) failed/\1/')"
if [ -z "$c_line" ]; then record "C tests produced no summary" 0 1; fi

# aarch64: the same C tests cross-built and run under QEMU user mode, which
# emulates the AES instructions, so both `armce` and `soft` run.
aarch64_tests() {
    if ! command -v qemu-aarch64-static >/dev/null; then
        echo "installing qemu-user-static (Debian) for the aarch64 tests"
        { apt-get update -qq && apt-get install -y -qq qemu-user-static; } >/dev/null || return 1
    fi
    mkdir -p .tools/qemu-bin
    ln -sf "$(command -v qemu-aarch64-static)" .tools/qemu-bin/qemu-aarch64
    PATH="$PWD/.tools/qemu-bin:$PATH" ./scripts/zig build test -Dtarget=aarch64-linux-musl -fqemu 2>&1 | tee "$results/arm.log"
    grep -q '^ran  armce' "$results/arm.log" && grep -q '^ran  soft' "$results/arm.log"
}
echo "== zig build test on aarch64-linux-musl under QEMU"
aarch64_tests
a_line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$results/arm.log" 2>/dev/null | tail -1)
if [ -n "$a_line" ] && grep -q '^ran  armce' "$results/arm.log"; then
    record "C tests aarch64/QEMU (armce, soft)" "${a_line%% passed*}" "$(echo "$a_line" | sed -E 's/.* ([0-9]+) failed/\1/')"
else
    record "C tests aarch64/QEMU did not run armce" 0 1
fi

step "zig build dist (8 platforms)" ./scripts/zig build dist
step "npm packages (test/package/run.sh)" bash test/package/run.sh

step "C example (zig build examples)" ./scripts/zig build examples
step "C example via pkg-config and the system cc" bash -c '
    export PKG_CONFIG_PATH=zig-out/lib/pkgconfig
    cc examples/example.c $(pkg-config --cflags --libs tgcrypto) -o "$0/example" && LD_LIBRARY_PATH=zig-out/lib "$0/example"' "$results"
step "Python ctypes example" python3 examples/example.py

step "type-check (tsc --noEmit)" "$bin/tsc" --noEmit -p tsconfig.json

# The backends this CPU runs, as the library itself reports them.
backends=$("$bin/bun" -e 'import { backends } from "./ts/mod.ts"; console.log(backends().filter(b => b.available).map(b => b.name).join(" "))')
if [ -z "$backends" ]; then record "list of available backends" 0 1; fi
echo "== available backends: $backends"

# vitest RUNTIME BACKEND
vitest() {
    local runtime=$1 backend=$2 out="$results/vitest-$1-$2.json"
    echo "== vitest under $runtime, TGCRYPTO_BACKEND=$backend"
    local cmd
    if [ "$runtime" = bun ]; then cmd=("$bin/bun" --bun ./node_modules/vitest/vitest.mjs)
    else cmd=("$bin/deno" run -A ./node_modules/vitest/vitest.mjs); fi
    TGCRYPTO_BACKEND=$backend "${cmd[@]}" run --reporter=dot --reporter=json --outputFile.json="$out"
    if [ -s "$out" ]; then
        read -r p f < <(node -e 'const r = require(process.argv[1]); console.log(r.numPassedTests, r.numFailedTests + (r.numTotalTestSuites > 0 && r.numFailedTestSuites ? r.numFailedTestSuites : 0))' "$out")
        record "vitest $runtime $backend" "$p" "$f"
    else
        record "vitest $runtime $backend (no report)" 0 1
    fi
}
for backend in $backends; do
    vitest bun "$backend"
    vitest deno "$backend"
done

echo
echo "$total_passed passed, $total_failed failed"
exit $status
