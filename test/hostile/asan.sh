#!/usr/bin/env bash
# The hostile-input suite (test/hostile, the TS layer's own files) against an AddressSanitizer build of
# the library, under Deno: Deno allocates ArrayBuffer storage with malloc,
# which the preloaded ASan runtime surrounds with redzones, so a read or
# write by C past a JS buffer aborts with a report even where it would
# neither crash nor change a guard byte.
#
#   test/hostile/asan.sh              build, self-test, then the suite
#   test/hostile/asan.sh --self-test  build, then only the planted over-read
#
# The self-test first shows the setup catches what the suite is about: a
# native call handed a length past its 16-byte buffer (test/hostile/
# asan_planted.ts) must abort with an ASan report, and the same call with
# the true length must pass. The library is clang -fsanitize=address over
# csrc/*.c in .tools/asan/; leaks are not checked (the runtime's own
# allocations outlive the process on purpose). Prints "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/../.."

cc=${SANITIZE_CC:-clang}
runtime_lib=$("$cc" -print-file-name=libclang_rt.asan-x86_64.so)
[ -f "$runtime_lib" ] || { echo "no ASan runtime for $cc ($runtime_lib)"; echo "0 passed, 1 failed"; exit 1; }
lib=.tools/asan/libtgcrypto.so
mkdir -p .tools/asan
"$cc" -std=c11 -O1 -g -fsanitize=address -fno-omit-frame-pointer -shared -fPIC -Icsrc csrc/*.c -o "$lib"

export TGCRYPTO_LIB=$PWD/$lib
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
deno=./node_modules/.bin/deno
asan_deno() { LD_PRELOAD=$runtime_lib "$deno" "$@"; }

passed=0 failed=0
pass() { echo "ok: $1"; passed=$((passed + 1)); }
fail() { echo "FAILED: $1"; failed=$((failed + 1)); }

if asan_deno run -A test/hostile/asan_planted.ts 16 >/dev/null 2>&1; then
    pass "the true length runs clean under ASan"
else fail "the true length failed under ASan"; fi
if log=$(asan_deno run -A test/hostile/asan_planted.ts 64 2>&1); then
    fail "planted over-read: the call returned (ASan did not see it)"
elif grep -q 'ERROR: AddressSanitizer: heap-buffer-overflow' <<<"$log"; then
    pass "planted over-read caught: $(grep -m1 -oE 'READ of size [0-9]+' <<<"$log")"
else
    fail "planted over-read: failed without an ASan report"; tail -5 <<<"$log"
fi

if [ "${1:-}" != --self-test ]; then
    out=$(mktemp --suffix=.json)
    trap 'rm -f "$out"' EXIT
    # The layer's own suites (the drop-ins reach C only through the same calls).
    if asan_deno run -A ./node_modules/vitest/vitest.mjs run test/hostile/arguments.test.ts \
        test/hostile/options.test.ts test/hostile/globals.test.ts test/hostile/property.test.ts \
        --reporter=dot --reporter=json --outputFile.json="$out"; then :; fi
    if [ -s "$out" ]; then
        read -r p f < <(node -e 'const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")); console.log(r.numPassedTests, r.numFailedTests + r.numFailedTestSuites)' "$out")
        passed=$((passed + p)) failed=$((failed + f))
    else fail "test/hostile under ASan: no report (a crash or an ASan abort)"; fi
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
