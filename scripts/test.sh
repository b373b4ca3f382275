#!/usr/bin/env bash
# Every test of the project, as `npm test` runs it:
#   - the C library built with -Wall -Wextra -Werror, and the portable build;
#   - `zig build test`: known answers + differential tests on every backend;
#   - the same C tests for aarch64 under QEMU (armce and soft);
#   - the constant-time check of the soft backend under valgrind;
#   - the C tests under AddressSanitizer + UBSan (clang, test/c/sanitize.sh);
#   - `zig build dist` for every platform, reproducible from two clean copies
#     and checksummed (test/reproducible.sh); the npm packages installed offline;
#   - the C and Python examples, the type-check of ts/, test/ and bench/;
#   - the vitest suite under Bun and under Deno, once per backend this CPU has.
# Prints each suite's counts, then the total as "N passed, N failed, N skipped".
# Exits non-zero if anything failed or a suite ran no test.
#
# System tools (QEMU, Wine, valgrind, clang, pkg-config, python3): when one is
# missing it is installed with apt-get if this is Debian/Ubuntu and we are root
# (or have password-less sudo); otherwise the suites that need it are SKIPPED
# with the command that would install it. Under CI=true nothing is skipped: a
# tool that cannot be installed fails the run. TGCRYPTO_NO_APT=1 pretends
# apt-get is absent (to see what a contributor's machine would skip).
set -uo pipefail
cd "$(dirname "$0")/.."

bin=./node_modules/.bin
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
total_passed=0
total_failed=0
total_skipped=0
skipped_list=
status=0

# record NAME PASSED FAILED
record() {
    printf '%-44s %6s passed, %s failed\n' "$1" "$2" "$3"
    total_passed=$((total_passed + $2))
    total_failed=$((total_failed + $3))
    if [ "$3" -ne 0 ] || [ "$2" -eq 0 ]; then status=1; fi
}

# step NAME COMMAND...: a build or check that counts as one test.
step() {
    local name=$1; shift
    echo "== $name"
    if "$@"; then record "$name" 1 0; else record "$name" 0 1; fi
}

# suite NAME COMMAND...: a runner that ends with "N passed, N failed"; its
# counts are recorded, and a non-zero exit or a missing summary fails it.
suite() {
    local name=$1; shift
    local log="$results/${name//[^A-Za-z0-9]/_}.log"
    echo "== $name"
    "$@" 2>&1 | tee "$log"
    local rc=${PIPESTATUS[0]}
    local line
    line=$(tr -d '\r' <"$log" | grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' | tail -1) # \r: Windows programs
    if [ -z "$line" ]; then record "$name (no summary)" 0 1; return; fi
    local p=${line%% passed*} f
    f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    record "$name" "$p" "$f"
}

# ---- system tools: install, or skip with the command that would ----

# can_install: apt-get is there and we may run it (root, or sudo without a password).
as_root=
can_install() {
    [ -z "${TGCRYPTO_NO_APT:-}" ] && command -v apt-get >/dev/null 2>&1 || return 1
    if [ "$(id -u)" -eq 0 ]; then as_root=; return 0; fi
    command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && as_root=sudo
}

# apt_install PACKAGE...: three tries, a mirror hiccup should not fail the tests.
apt_install() {
    local try
    for try in 1 2 3; do
        echo "installing $* (Debian), try $try"
        { $as_root apt-get update -qq &&
          $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; } >/dev/null && return 0
        sleep 5
    done
    return 1
}

# install_hint PACKAGE: how a contributor gets the tool on this OS.
install_hint() {
    if [ "$(uname -s)" = Darwin ]; then
        case $1 in
        qemu-user-static) echo "QEMU user mode is Linux-only: run the tests on Linux or in CI" ;;
        valgrind) echo "valgrind does not run on current macOS: run the tests on Linux or in CI" ;;
        clang*) echo "xcode-select --install (Apple clang has ASan and UBSan)" ;;
        wine64) echo "brew install --cask wine-stable" ;;
        *) echo "brew install $1" ;;
        esac
    elif command -v apt-get >/dev/null 2>&1; then echo "sudo apt-get install $*"
    elif command -v dnf >/dev/null 2>&1; then echo "sudo dnf install $1 (package name may differ)"
    else echo "install the $1 package of your distribution"
    fi
}

# needs PACKAGE PROBE...: the tool is usable when PROBE succeeds; if not,
# installs the Debian PACKAGE(s) (a quoted list) where allowed. On failure
# $why says what is missing and how to get it.
why=
needs() {
    local pkgs=$1; shift
    "$@" >/dev/null 2>&1 && return 0
    if can_install; then
        # shellcheck disable=SC2086 # a list of packages
        if apt_install $pkgs; then
            "$@" >/dev/null 2>&1 && return 0
            why="'$pkgs' installed with apt-get but '$*' still fails"
        else
            why="apt-get install $pkgs failed"
        fi
    else
        why="needs $pkgs: $(install_hint $pkgs)"
    fi
    return 1
}

# skip NAME: NAME could not run ($why). Under CI=true that is a failure.
skip() {
    if [ "${CI:-}" = true ]; then
        echo "== $1: $why (CI=true: nothing may be skipped)"
        record "$1 (tool missing)" 0 1
        return
    fi
    printf '%-44s SKIPPED: %s\n' "$1" "$why"
    total_skipped=$((total_skipped + 1))
    skipped_list="$skipped_list  $1: $why"$'\n'
}

# Probes: each succeeds when the tool works here.
have() { command -v "$1"; }
have_qemu() { [ "$(uname -sm)" = "Linux aarch64" ] || command -v qemu-aarch64 || [ -x /usr/bin/qemu-aarch64-static ]; }
have_wine() { command -v wine || [ -x /usr/lib/wine/wine64 ]; }
have_valgrind() { command -v valgrind && [ -e /usr/include/valgrind/memcheck.h ]; }
have_cc_pkgconfig() { command -v pkg-config && command -v cc; }
# clang with its sanitizer runtime: Debian/Ubuntu ship ASan in
# libclang-rt-N-dev (libclang-rt-dev: the default N), not in clang itself.
have_sanitizers() { bash test/c/sanitize.sh --probe; }
needs_sanitizers() {
    needs "clang libclang-rt-dev" have_sanitizers && return 0
    # a clang that is not the distribution's default version
    command -v clang >/dev/null 2>&1 && can_install || return 1
    local major
    major=$(clang -dumpversion | cut -d. -f1)
    apt_install "libclang-rt-$major-dev" && have_sanitizers >/dev/null 2>&1 && return 0
    why="clang $major has no working ASan/UBSan runtime (libclang-rt-$major-dev)"
    return 1
}

step "zig build (shared library)" ./scripts/zig build
step "zig build -Dportable=true" ./scripts/zig build -Dportable=true --prefix "$results/portable"
suite "C tests (every backend)" ./scripts/zig build test

# aarch64: the C tests cross-built and run under QEMU user mode, which
# emulates the AES instructions; armce, neon and soft must all have run.
aarch64_tests() {
    mkdir -p .tools/qemu-bin
    if ! command -v qemu-aarch64 >/dev/null && [ -x /usr/bin/qemu-aarch64-static ]; then
        ln -sf /usr/bin/qemu-aarch64-static .tools/qemu-bin/qemu-aarch64
    fi
    PATH="$PWD/.tools/qemu-bin:$PATH" ./scripts/zig build test -Dtarget=aarch64-linux-musl -fqemu 2>&1 | tee "$results/arm.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] && grep -q '^ran  armce' "$results/arm.log" && grep -q '^ran  neon' "$results/arm.log" && grep -q '^ran  soft' "$results/arm.log" &&
        grep -q '^ran  hash armv8-sha' "$results/arm.log" && grep -q '^ran  hash portable' "$results/arm.log"
}
have_arm=0
if needs qemu-user-static have_qemu; then
    have_arm=1
    suite "C tests aarch64/QEMU (armce, neon, soft)" aarch64_tests
else
    skip "C tests aarch64/QEMU (armce, neon, soft)"; why_arm=$why
fi

# Windows x64: the C tests cross-built and run under Wine.
wine_path() {
    mkdir -p .tools/wine-bin
    # Debian's wine64 package; elsewhere (Homebrew, other distributions) `wine` on PATH.
    if [ ! -x /usr/lib/wine/wine64 ]; then ln -sf "$(command -v wine)" .tools/wine-bin/wine; return; fi
    # zig's -fwine runs `wine`; a wrapper (not a symlink) so wine finds its loader.
    printf '#!/bin/sh\nexec /usr/lib/wine/wine64 "$@"\n' > .tools/wine-bin/wine
    chmod +x .tools/wine-bin/wine
}
windows_tests() {
    wine_path || return 1
    PATH="$PWD/.tools/wine-bin:$PATH" WINEDEBUG=-all ./scripts/zig build test -Dtarget=x86_64-windows-gnu -fwine
}
have_windows=0
if needs wine64 have_wine; then
    have_windows=1
    suite "C tests x86_64-windows/Wine (all backends)" windows_tests
else
    skip "C tests x86_64-windows/Wine (all backends)"; why_windows=$why
fi

# The hash engines: the x86 SHA extensions ran where the CPU has them, and
# portable always (the aarch64 run requires armv8-sha above).
hash_engines_ran() {
    local log="$results/C_tests__every_backend_.log"
    if grep -qw sha_ni /proc/cpuinfo 2>/dev/null; then grep -q '^ran  hash sha-ni' "$log" || return 1; fi
    grep -q '^ran  hash portable' "$log"
}
step "hash engines ran (sha-ni where the CPU has it, portable)" hash_engines_ran
if needs python3 have python3; then
    step "sha_generated.txt matches test/vectors/gen_sha.py" python3 test/vectors/gen_sha.py --check
else skip "sha_generated.txt matches test/vectors/gen_sha.py"; fi

# The same bytes everywhere: every backend on every platform printed the
# digest of one seeded workload; all of them must agree.
same_digests() {
    local digests
    digests=$(cat "$results"/C_tests*.log | tr -d '\r' | grep -o 'workload digest [0-9a-f]*' | sort | uniq -c)
    echo "$digests"
    [ "$(wc -l <<<"$digests")" -eq 1 ] && [ "$(awk '{print $1}' <<<"$digests")" -ge "$1" ]
}
if [ "$have_arm" = 1 ] && [ "$have_windows" = 1 ]; then
    step "identical output on x86-64, aarch64 and Windows (11 backend runs)" same_digests 11
else # a contributor's machine: whatever platforms ran must still agree
    step "identical output on every platform that ran" same_digests 1
fi

# TGCRYPTO_BACKEND behaves the same on every platform: a forced backend is
# the one in use; a known but unavailable one and an unknown one are refused.
# backend_env PLATFORM FOREIGN_BACKEND ZIG_BUILD_TEST_ARGS...
backend_env() {
    local platform=$1 foreign=$2; shift 2
    local out
    out=$(TGCRYPTO_BACKEND=soft ./scripts/zig build test "$@" 2>&1) || { echo "$out" | tail -5; return 1; }
    grep -q "default backend: soft" <<<"$out" || return 1
    grep -q "default hash engine: portable" <<<"$out" || return 1
    if out=$(TGCRYPTO_BACKEND=$foreign ./scripts/zig build test "$@" 2>&1); then return 1; fi
    grep -q "backend not available on this CPU or build" <<<"$out" || return 1
    if out=$(TGCRYPTO_BACKEND=no-such-backend ./scripts/zig build test "$@" 2>&1); then return 1; fi
    grep -q "unknown backend name" <<<"$out"
}
step "TGCRYPTO_BACKEND on x86_64-linux" backend_env x86_64-linux armce
if [ "$have_arm" = 1 ]; then
    step "TGCRYPTO_BACKEND on aarch64-linux/QEMU" env PATH="$PWD/.tools/qemu-bin:$PATH" \
        bash -c "$(declare -f backend_env); backend_env aarch64 aesni -Dtarget=aarch64-linux-musl -fqemu"
else why=$why_arm; skip "TGCRYPTO_BACKEND on aarch64-linux/QEMU"; fi
if [ "$have_windows" = 1 ]; then
    step "TGCRYPTO_BACKEND on x86_64-windows/Wine" env PATH="$PWD/.tools/wine-bin:$PATH" WINEDEBUG=-all \
        bash -c "$(declare -f backend_env); backend_env windows armce -Dtarget=x86_64-windows-gnu -fwine"
else why=$why_windows; skip "TGCRYPTO_BACKEND on x86_64-windows/Wine"; fi

# Constant time: the soft backend under valgrind with secrets marked undefined
# (test/c/ct_check.c); the self-test proves a planted secret-indexed look-up
# is caught, for the right reason.
ct_build() {
    ./scripts/zig cc -target x86_64-linux-gnu -mcpu=baseline -O2 -std=c11 -Wall -Wextra -Werror \
        -DTG_CT_CHECK=1 -Icsrc -I/usr/include/valgrind csrc/*.c test/c/ct_check.c -o "$results/ct_check"
}
# -O0 -fno-builtin: library calls stay calls (a memcmp'd msg_key would show; see ct_check.c)
ct_build_O0() {
    ./scripts/zig cc -target x86_64-linux-gnu -mcpu=baseline -O0 -fno-builtin -fno-sanitize=undefined -std=c11 -Wall -Wextra -Werror \
        -DTG_CT_CHECK=1 -Icsrc -I/usr/include/valgrind csrc/*.c test/c/ct_check.c -o "$results/ct_check_O0"
}
ct_self_test_memcmp() {
    local log
    if log=$(valgrind -q --error-exitcode=1 "$results/ct_check_O0" --self-test-memcmp 2>&1); then return 1; fi
    grep -q "uninitialised" <<<"$log"
}
ct_self_test() {
    local log
    if log=$(valgrind -q --error-exitcode=1 "$results/ct_check" --self-test 2>&1); then return 1; fi
    grep -q "uninitialised" <<<"$log"
}
if [ "$(uname -sm)" = "Linux x86_64" ]; then
    if needs valgrind have_valgrind; then
        step "constant-time check: build" ct_build
        step "constant-time check: soft under valgrind" valgrind -q --error-exitcode=1 "$results/ct_check"
        step "constant-time check: catches a planted leak" ct_self_test
        step "constant-time check -O0: build" ct_build_O0
        step "constant-time check -O0: soft under valgrind" valgrind -q --error-exitcode=1 "$results/ct_check_O0"
        step "constant-time check -O0: catches a planted memcmp" ct_self_test_memcmp
    else
        skip "constant-time check (valgrind)"
    fi
else
    why="the valgrind constant-time check runs on Linux x86-64 only"
    skip "constant-time check (valgrind)"
fi

# Sanitizers: the C tests (every backend this CPU has) under ASan + UBSan;
# the self-test proves planted bugs abort the program.
if needs_sanitizers; then
    suite "sanitizers: catch planted bugs" bash test/c/sanitize.sh --self-test
    suite "C tests under ASan + UBSan (every backend)" bash test/c/sanitize.sh
else
    skip "C tests under ASan + UBSan (clang)"
fi
# aarch64 (armce, neon, soft) under UBSan: zig cc's own runtime, run by QEMU.
arm_runner() {
    if [ "$(uname -sm)" = "Linux aarch64" ]; then return; fi
    command -v qemu-aarch64 || echo /usr/bin/qemu-aarch64-static
}
if [ "$have_arm" = 1 ]; then
    suite "sanitizers aarch64: catch planted bugs (UBSan)" \
        env SANITIZE_TARGET=aarch64-linux-musl SANITIZE_RUNNER="$(arm_runner)" bash test/c/sanitize.sh --self-test
    suite "C tests aarch64/QEMU under UBSan (zig cc)" \
        env SANITIZE_TARGET=aarch64-linux-musl SANITIZE_RUNNER="$(arm_runner)" bash test/c/sanitize.sh
else why=$why_arm; skip "C tests aarch64/QEMU under UBSan (zig cc)"; fi

# aes_neon.c's tables are derived by a generator; the copy in the source must match it.
neon_tables_current() {
    diff <(python3 test/c/gen_neon_tables.py) <(sed -n '/^\/\* GENERATED by/,/^\/\* END GENERATED \*\//p' csrc/aes_neon.c)
}
if needs python3 have python3; then
    step "aes_neon.c tables match test/c/gen_neon_tables.py" neon_tables_current
    step "test/vectors/pq.txt matches test/vectors/gen_pq.py" bash -c 'diff <(python3 test/vectors/gen_pq.py) test/vectors/pq.txt'
else skip "aes_neon.c tables and pq.txt match their Python generators"; fi

# mtproto.txt is generated (node:crypto); the committed copy must match its generator.
step "test/vectors/mtproto.txt matches gen_mtproto.mjs" bash -c 'node test/vectors/gen_mtproto.mjs | cmp - test/vectors/mtproto.txt'

step "zig build dist (8 platforms)" ./scripts/zig build dist
step "zig-out/dist/SHA256SUMS verifies" bash -c 'cd zig-out/dist && if command -v sha256sum >/dev/null; then sha256sum -c SHA256SUMS; else shasum -a 256 -c SHA256SUMS; fi'
suite "reproducible dist: two clean copies, bit-identical" bash test/reproducible.sh
suite "npm packages (test/package/run.sh)" bash test/package/run.sh
step "C example (zig build examples)" ./scripts/zig build examples
if needs pkg-config have_cc_pkgconfig; then
    step "C example via pkg-config and system cc" bash -c '
        export PKG_CONFIG_PATH=zig-out/lib/pkgconfig
        cc examples/example.c $(pkg-config --cflags --libs tgcrypto) -o "$0/example" &&
            LD_LIBRARY_PATH=zig-out/lib DYLD_LIBRARY_PATH=zig-out/lib "$0/example"' "$results"
else skip "C example via pkg-config and system cc"; fi
if needs python3 have python3; then
    step "Python ctypes example" python3 examples/example.py
else skip "Python ctypes example"; fi
step "type-check (tsc --noEmit: ts/, test/, bench/)" "$bin/tsc" --noEmit -p tsconfig.json
step "type-check against Deno's own types (deno check)" "$bin/deno" check ts/mod.ts ts/ffi_deno.ts ts/gramjs.ts ts/mtcute_provider.ts
step "lint (deno lint ts/)" "$bin/deno" lint ts/

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
        local p f
        read -r p f < <(node -e 'const r = require(process.argv[1]); console.log(r.numPassedTests, r.numFailedTests + r.numFailedTestSuites)' "$out")
        record "vitest $runtime $backend" "$p" "$f"
    else
        record "vitest $runtime $backend (no report)" 0 1
    fi
}
for backend in $backends; do
    vitest bun "$backend"
    vitest deno "$backend"
done

# Coverage-guided fuzzing (libFuzzer, ASan + UBSan, references from OpenSSL's
# libcrypto): every harness of test/fuzz/ for FUZZ_SECONDS (default 15) each.
have_fuzzer() { bash test/fuzz/run.sh --probe; }
if needs "clang libclang-rt-dev libssl-dev" have_fuzzer; then suite "fuzz (test/fuzz/run.sh)" bash test/fuzz/run.sh
else skip "fuzz (test/fuzz/run.sh)"; fi
# Soak (memory stays flat over 200,000 contexts / AuthKeys / one-shots, dropped
# ones reclaimed) and 8 Workers x 3,000 mixed calls, under Bun and Deno.
suite "soak and Worker stress (test/soak/run.sh --quick)" bash test/soak/run.sh --quick

echo
if [ "$total_skipped" -ne 0 ]; then
    printf 'SKIPPED (tools missing on this machine; CI runs them):\n%s' "$skipped_list"
fi
echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
exit $status
