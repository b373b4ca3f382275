#!/usr/bin/env bash
# The whole benchmark (`npm run bench`):
#   1. build the library (./scripts/zig build)
#   2. C-level throughput of every backend, then OpenSSL's speed on the same
#      machine (./scripts/zig build bench, which runs bench/openssl.sh)
#   3. bench/bench.ts under Bun, then under Deno
#   4. bench/threads.ts, bench/messages.ts (message layer, hashes, PQ vs
#      mtcute and GramJS), bench/clients.ts (stock vs integrated clients) and
#      bench/transfer.ts (file transfers through the loopback MTProto server),
#      each under Bun, then under Deno
#   5. bench/chart.ts -> bench/results/chart.svg
# BENCH_QUICK=1 for a short smoke run. Results go to bench/results/.
# Informational: a missed target never fails the run; a crash does.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=./node_modules/.bin
quick=${BENCH_QUICK:-}
[ "$quick" = 0 ] && quick=
started=$(date +%s)

section() { printf '\n######## %s\n' "$*"; }
elapsed() { echo "$(($(date +%s) - $1)) s"; }

# Warns when other processes are using the CPUs (Linux): the numbers would be noisy.
check_idle() {
    [ -r /proc/stat ] || return 0
    local u n s i w q sq st t1 i1 idle
    read -r _ u n s i w q sq st _ </proc/stat; t1=$((u + n + s + i + w + q + sq + st)); i1=$i
    sleep 2
    read -r _ u n s i w q sq st _ </proc/stat
    idle=$((100 * (i - i1) / (u + n + s + i + w + q + sq + st - t1)))
    if [ "$idle" -lt 90 ]; then
        echo "WARNING: the CPUs were only ${idle}% idle before starting; other processes will skew these numbers"
    else
        echo "CPUs ${idle}% idle before starting"
    fi
}

check_idle

section "build: ./scripts/zig build"
./scripts/zig build

section "C level, then OpenSSL: ./scripts/zig build bench${quick:+ -- --quick}"
if [ -n "$quick" ]; then ./scripts/zig build bench -- --quick; else ./scripts/zig build bench; fi

# in_both_runtimes SCRIPT WHAT: bench/SCRIPT under Bun, then under Deno.
in_both_runtimes() {
    local script=$1 what=$2 runtime t
    for runtime in bun deno; do
        section "$runtime: bench/$script${what:+ ($what)}"
        t=$(date +%s)
        if [ "$runtime" = bun ]; then "$bin/bun" "bench/$script"; else "$bin/deno" run -A "bench/$script"; fi
        echo "$runtime $script: $(elapsed "$t")"
    done
}

in_both_runtimes bench.ts ""
in_both_runtimes threads.ts ""
in_both_runtimes messages.ts "the whole MTProto message, hashes and PQ vs mtcute and GramJS"
in_both_runtimes clients.ts "GramJS and mtcute, stock vs integrated"
in_both_runtimes transfer.ts "64 MiB up and down through the loopback server, client CPU stock vs the library"

section "chart: bench/chart.ts"
"$bin/bun" bench/chart.ts

section "done in $(elapsed "$started"); results in bench/results/"
ls -l bench/results/
