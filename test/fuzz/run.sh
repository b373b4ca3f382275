#!/usr/bin/env bash
# Builds the libFuzzer harnesses of test/fuzz/ (clang, ASan + UBSan, linked
# against OpenSSL's libcrypto for the references) and runs each for a
# bounded time, starting from its seed corpus in test/fuzz/corpus/<harness>/
# (every seed, including crash-* regression inputs, runs first).
#
#   test/fuzz/run.sh [harness...]     default: modes abi mtproto pq
#   test/fuzz/run.sh --probe          exit 0 if the toolchain works here (nothing is run)
#
# Environment:
#   FUZZ_SECONDS   seconds per harness (default 15)
#   CLANG          the compiler (default: clang, else the newest clang-NN)
#
# Needs clang with its compiler-rt (Debian: clang libclang-rt-dev) and
# libssl-dev. Builds go to zig-out/fuzz/; the corpus each run grows is kept in
# zig-out/fuzz/corpus/<harness>/ (so later runs continue from it) and crash
# inputs go to zig-out/fuzz/crashes/<harness>/. Prints one line per harness
# with its executions, then "N passed, N failed"; exit 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."

seconds=${FUZZ_SECONDS:-15}
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(modes abi mtproto pq)
out=zig-out/fuzz

find_clang() {
    if [ -n "${CLANG:-}" ]; then echo "$CLANG"; return; fi
    if command -v clang >/dev/null; then echo clang; return; fi
    local c
    c=$(compgen -c clang- | grep -E '^clang-[0-9]+$' | sort -t- -k2 -n | tail -1)
    [ -n "$c" ] && echo "$c"
}
cc=$(find_clang)
if [ -z "$cc" ] || [ ! -e /usr/include/openssl/evp.h ]; then
    echo "fuzz: needs clang with compiler-rt and OpenSSL headers (Debian: apt-get install clang libclang-rt-dev libssl-dev)"
    echo "0 passed, 1 failed"
    exit 1
fi

if [ "${1:-}" = "--probe" ]; then
    probe=$(mktemp -d)
    printf '#include <openssl/evp.h>\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return EVP_aes_256_ecb() == 0; }\n' >"$probe/p.c"
    "$cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" -lcrypto -o "$probe/p" && "$probe/p" -runs=1 >/dev/null 2>&1
    rc=$?
    rm -rf "$probe"
    exit $rc
fi

flags=(-std=c11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -Wno-deprecated-declarations
       -fsanitize=address,undefined -fno-sanitize-recover=all -Icsrc)
mkdir -p "$out/obj"

# The library, instrumented for coverage; rebuilt when a source or header changed.
build_library() {
    local src obj pids=()
    for src in csrc/*.c; do
        obj="$out/obj/$(basename "${src%.c}").o"
        if [ ! -e "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find csrc -name '*.h' -newer "$obj")" ]; then
            "$cc" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj" & pids+=($!)
        fi
    done
    local ok=0 p
    for p in "${pids[@]}"; do wait "$p" || ok=1; done
    # objects of sources that no longer exist must not be linked
    for obj in "$out"/obj/*.o; do [ -e "csrc/$(basename "${obj%.o}").c" ] || rm -f "$obj"; done
    return $ok
}

# max input length per harness (bytes)
max_len() {
    case $1 in modes) echo 8400 ;; abi) echo 4096 ;; mtproto) echo 6000 ;; pq) echo 64 ;; *) echo 4096 ;; esac
}

passed=0 failed=0 total_execs=0
record() { # NAME OK DETAIL
    printf '%-16s %s  %s\n' "fuzz_$1" "$([ "$2" -eq 1 ] && echo ok || echo FAILED)" "$3"
    if [ "$2" -eq 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

if ! build_library; then
    echo "fuzz: building the library failed"
    echo "0 passed, 1 failed"
    exit 1
fi

for h in "${harnesses[@]}"; do
    bin="$out/fuzz_$h"
    if ! "$cc" "${flags[@]}" -fsanitize=fuzzer "test/fuzz/fuzz_$h.c" "$out"/obj/*.o -lcrypto -o "$bin"; then
        record "$h" 0 "build failed"
        continue
    fi
    mkdir -p "$out/corpus/$h" "$out/crashes/$h"
    log="$out/fuzz_$h.log"
    args=(-max_total_time="$seconds" -max_len="$(max_len "$h")" -timeout=10 -rss_limit_mb=2048
          -print_final_stats=1 -artifact_prefix="$out/crashes/$h/")
    start=$(date +%s)
    "$bin" "${args[@]}" "$out/corpus/$h" "test/fuzz/corpus/$h" >"$log" 2>&1
    rc=$?
    elapsed=$(($(date +%s) - start))
    execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
    execs=${execs:-0}
    total_execs=$((total_execs + execs))
    if [ "$rc" -eq 0 ] && [ "$execs" -gt 0 ]; then
        record "$h" 1 "$execs executions in ${elapsed}s, corpus $(ls "$out/corpus/$h" | wc -l) inputs"
    else
        grep -E 'PROPERTY FAILED|ERROR: (AddressSanitizer|libFuzzer)|runtime error|SUMMARY' "$log" | head -5
        record "$h" 0 "exit $rc after $execs executions in ${elapsed}s; log $log; crash inputs in $out/crashes/$h/"
    fi
done

echo "fuzz: $total_execs executions in total, $(date -u +%Y-%m-%dT%H:%MZ), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //'), $(nproc 2>/dev/null) CPUs"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
