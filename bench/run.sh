#!/usr/bin/env bash
# The whole benchmark (`npm run bench`):
#   1. build the library (./scripts/zig build)
#   2. C-level throughput of every backend, then OpenSSL's speed on the same
#      machine (./scripts/zig build bench, which runs bench/openssl.sh)
#   3. bench/bench.ts under Bun, then under Deno
#   4. bench/threads.ts under Bun, then under Deno
#   4b. bench/clients.ts (GramJS / mtcute stock vs integrated) under Bun, then Deno
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

for runtime in bun deno; do
    section "$runtime: bench/bench.ts"
    t=$(date +%s)
    if [ "$runtime" = bun ]; then "$bin/bun" bench/bench.ts; else "$bin/deno" run -A bench/bench.ts; fi
    echo "$runtime bench.ts: $(elapsed "$t")"
done

for runtime in bun deno; do
    section "$runtime: bench/threads.ts"
    t=$(date +%s)
    if [ "$runtime" = bun ]; then "$bin/bun" bench/threads.ts; else "$bin/deno" run -A bench/threads.ts; fi
    echo "$runtime threads.ts: $(elapsed "$t")"
done

for runtime in bun deno; do
    section "$runtime: bench/clients.ts (GramJS and mtcute, stock vs integrated)"
    t=$(date +%s)
    if [ "$runtime" = bun ]; then "$bin/bun" bench/clients.ts; else "$bin/deno" run -A bench/clients.ts; fi
    echo "$runtime clients.ts: $(elapsed "$t")"
done

section "chart: bench/chart.ts"
"$bin/bun" bench/chart.ts

section "done in $(elapsed "$started"); results in bench/results/"
ls -l bench/results/
