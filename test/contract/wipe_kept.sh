#!/usr/bin/env bash
# tg_wipe (csrc/backend.h) is not optimised away: a local secret wiped right
# before it goes out of scope (a dead store an optimiser may drop) keeps its
# wipe at -O2 and -O3, both in the GNU C path (memset + asm barrier) and in
# the path of every other compiler (the volatile memset pointer; forced here
# by undefining __GNUC__ and __clang__). A control with a plain memset must
# lose its store, or this check could not see a dropped wipe.
# Reads zig cc's LLVM IR; prints one line per case and exits 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/wipe.c" <<'C'
#include "backend.h"
void use(unsigned char *p);
void wiped(void) {
    unsigned char secret[64];
    use(secret);
#ifdef PLAIN_MEMSET
    memset(secret, 0, sizeof secret);
#else
    tg_wipe(secret, sizeof secret);
#endif
}
C
failed=0
# ir FLAGS...: the IR of wiped() with those flags
ir() { ./scripts/zig cc -std=c11 -S -emit-llvm -Icsrc "$@" -o "$work/wipe.ll" "$work/wipe.c" 2>/dev/null && cat "$work/wipe.ll"; }
expect() { # expect NAME kept|dropped FLAGS...
    local name=$1 want=$2; shift 2
    local text got=dropped
    text=$(ir "$@") || { echo "FAIL $name: does not compile"; failed=1; return; }
    grep -Eq 'call void @llvm\.memset|load volatile ptr, ptr @tg_wipe\.memset_at_run_time' <<<"$text" && got=kept
    if [ "$got" = "$want" ]; then echo "ok   $name: wipe $got"; else echo "FAIL $name: wipe $got, want $want"; failed=1; fi
}
for opt in -O2 -O3; do
    expect "GNU C path $opt" kept "$opt"
    expect "other compilers' path $opt" kept "$opt" -U__GNUC__ -U__clang__
    expect "control: plain memset $opt" dropped "$opt" -DPLAIN_MEMSET
done
exit $failed
