#!/usr/bin/env bash
# The C test suite under AddressSanitizer + UndefinedBehaviorSanitizer.
#
#   test/c/sanitize.sh             build csrc/*.c + test/c/test_*.c with clang
#                                  -fsanitize=address,undefined and run it on
#                                  every backend this CPU has
#   test/c/sanitize.sh --probe     exit 0 when the compiler can build and run
#                                  a sanitized program here (used by test.sh)
#   test/c/sanitize.sh --self-test planted bugs (heap overflow, use after
#                                  free, leak, signed overflow, misaligned
#                                  load) must each abort the program
#
# Any sanitizer report aborts the run (-fno-sanitize-recover=all, halt and
# abort on error), so it shows up as a failure. The compiler is $SANITIZE_CC,
# default clang (zig cc has UBSan but no ASan). The hardware backends are
# built too: they carry their own target attributes (see aes_vaes.c for the
# clang-version guard on "evex512").
#
# SANITIZE_TARGET=aarch64-linux-musl (say) cross-builds with the pinned
# `zig cc` instead, UBSan only (Zig's own runtime), and runs the program
# through $SANITIZE_RUNNER (e.g. qemu-aarch64): the armce and neon backends
# under UBSan.
set -euo pipefail
cd "$(dirname "$0")/../.."

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

target=${SANITIZE_TARGET:-}
runner=()
if [ -n "$target" ]; then
    cc="$PWD/scripts/zig"
    cctarget=(cc -target "$target")
    sanflags=(-fsanitize=undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
    if [ -n "${SANITIZE_RUNNER:-}" ]; then runner=("$SANITIZE_RUNNER"); fi
else
    cc=${SANITIZE_CC:-clang}
    cctarget=()
    # TG_ASAN: tests that deliberately probe freed memory (the ABI's magic
    # checks) leave those probes out; ASan would report them, rightly.
    sanflags=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -DTG_ASAN=1)
fi
# LeakSanitizer is not supported by Apple's clang: leaks are checked on Linux.
leaks=1
if [ "$(uname -s)" = Darwin ] || [ -n "$target" ]; then leaks=0; fi
export ASAN_OPTIONS="detect_leaks=$leaks:abort_on_error=1:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:detect_invalid_pointer_pairs=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

# A program with one bug per argument; clean without arguments.
planted() {
    cat >"$out/planted.c" <<'C'
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    volatile int n = argc;
    uint8_t *p = malloc(16);
    if (p == NULL) return 2;
    memset(p, 0, 16);
    int r = 0;
    if (argc > 1 && !strcmp(argv[1], "overflow")) r = p[15 + n];
    if (argc > 1 && !strcmp(argv[1], "use-after-free")) { free(p); r = p[n]; p = malloc(1); }
    if (argc > 1 && !strcmp(argv[1], "signed-overflow")) { int x = 0x7fffffff; x += n; r = x; }
    if (argc > 1 && !strcmp(argv[1], "misaligned")) { uint32_t v; memcpy(&v, p, 4); const uint32_t *q = (const uint32_t *)(p + n - 1); r = (int)*q + (int)v; }
    if (argc > 1 && !strcmp(argv[1], "leak")) { p = malloc(32); p[0] = (uint8_t)n; r = p[0]; return r == 0; }
    free(p);
    return r & 0;
}
C
    "$cc" ${cctarget[@]+"${cctarget[@]}"} -std=c11 -O0 "${sanflags[@]}" "$out/planted.c" -o "$out/planted"
}

case "${1:-}" in
--probe)
    command -v "$cc" >/dev/null 2>&1 || exit 1
    planted >/dev/null 2>&1 && ${runner[@]+"${runner[@]}"} "$out/planted" >/dev/null 2>&1
    exit $?
    ;;
--self-test)
    planted
    ${runner[@]+"${runner[@]}"} "$out/planted" || { echo "clean run of the planted program failed"; exit 1; }
    bugs="signed-overflow misaligned"
    if [ -z "$target" ]; then bugs="overflow use-after-free $bugs"; fi
    if [ "$leaks" = 1 ]; then bugs="$bugs leak"; fi
    caught=0 missed=0
    for bug in $bugs; do
        if log=$(${runner[@]+"${runner[@]}"} "$out/planted" "$bug" 2>&1); then
            echo "MISSED $bug: the program exited cleanly"; missed=$((missed + 1))
        elif grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:|panic: (signed integer overflow|load of misaligned)' <<<"$log"; then
            echo "caught $bug: $(grep -m1 -oE 'ERROR: [A-Za-z]+Sanitizer: [a-z-]+|runtime error: [^(]*|panic: [^(]*' <<<"$log")"; caught=$((caught + 1))
        else
            echo "MISSED $bug: failed without a sanitizer report"; echo "$log" | tail -5; missed=$((missed + 1))
        fi
    done
    echo "$caught passed, $missed failed"
    [ "$missed" -eq 0 ]
    exit $?
    ;;
"") ;;
*) echo "usage: $0 [--probe|--self-test]" >&2; exit 2 ;;
esac

# test_main.c and its companions (every test/c/test_*.c), over every library
# source, with the test hooks of csrc/backend.h (test_wipes.c) as in `zig build test`.
sanflags+=(-DTG_TEST_HOOKS=1)
sources=(csrc/*.c test/c/test_*.c)
echo "$("$cc" ${cctarget[@]+"${cctarget[@]}"} --version | head -1)${target:+ for $target}; ${sanflags[0]}; ${#sources[@]} sources"
"$cc" ${cctarget[@]+"${cctarget[@]}"} -std=c11 -O1 "${sanflags[@]}" -Wall -Wextra -Werror -Werror=vla -Icsrc "${sources[@]}" -o "$out/tgcrypto-test-san"
${runner[@]+"${runner[@]}"} "$out/tgcrypto-test-san" test/vectors
