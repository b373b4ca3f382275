#!/usr/bin/env bash
# The whole benchmark (`npm run bench`):
#   1. build the library (./scripts/zig build)
#   2. C-level throughput of every backend, then OpenSSL's speed on the same
#      machine (./scripts/zig build bench, which runs bench/openssl.sh)
#   3. bench/bench.ts under Bun, Deno, then Node.js (node_modules/node26: the
#      newest supported line)
#   4. bench/threads.ts, bench/messages.ts (message layer, hashes, PQ vs
#      mtcute and GramJS), bench/clients.ts (stock vs integrated clients) and
#      bench/transfer.ts (file transfers through the loopback MTProto server),
#      each under Bun, Deno, then Node.js; bench/node_binding.ts under Node
#      (the binding's cost, node:ffi, output strategies) after the C-level
#      call cost (bench/c/call_cost.c -> c-call.json)
#   5. bench/python/run.sh: tgcrypto_ffi vs TgCrypto, cryptg and cipheron (CPython 3.11)
#   6. bench/chart.ts -> chart.svg
# BENCH_QUICK=1 for a short smoke run.
# Results go to a scratch folder: $BENCH_RESULTS_DIR, else .tools/bench-results/
# (git-ignored; emptied at the start of each run, so it holds one run).
# The committed bench/results/ and docs/performance.md change only with
# --write (or `npm run bench:write` afterwards: bench/publish.ts), which a
# quick run refuses.
# Informational: a missed target never fails the run; a crash does.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=./node_modules/.bin
quick=${BENCH_QUICK:-}
[ "$quick" = 0 ] && quick=
write=
for argument in "$@"; do
    case $argument in
    --write) write=1 ;;
    *) echo "usage: bench/run.sh [--write]" >&2; exit 2 ;;
    esac
done
if [ -n "$write" ] && [ -n "$quick" ]; then
    echo "bench/run.sh: --write keeps a full run only; BENCH_QUICK is set" >&2
    exit 2
fi
results=${BENCH_RESULTS_DIR:-.tools/bench-results}
mkdir -p "$results"
results=$(cd "$results" && pwd)
if [ "$results" = "$PWD/bench/results" ]; then
    echo "bench/run.sh: BENCH_RESULTS_DIR is the committed bench/results/; use --write to update it" >&2
    exit 2
fi
# One run per folder: the default one is emptied of an earlier run's results;
# a folder given in BENCH_RESULTS_DIR must be empty (nothing of the caller's is deleted).
if [ -z "${BENCH_RESULTS_DIR:-}" ]; then
    find "$results" -maxdepth 1 -type f \( -name '*.json' -o -name 'chart.svg' \) -delete
elif [ -n "$(ls -A "$results")" ]; then
    echo "bench/run.sh: BENCH_RESULTS_DIR=$results is not empty; give an empty or new folder" >&2
    exit 2
fi
export BENCH_RESULTS_DIR=$results
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

node=./node_modules/node26/bin/node
# in_both_runtimes SCRIPT WHAT: bench/SCRIPT under Bun, Deno, then Node.js.
in_both_runtimes() {
    local script=$1 what=$2 runtime t
    for runtime in bun deno node; do
        section "$runtime: bench/$script${what:+ ($what)}"
        t=$(date +%s)
        case $runtime in
        bun) "$bin/bun" "bench/$script" ;;
        deno) "$bin/deno" run -A "bench/$script" ;;
        node) "$node" "bench/$script" ;;
        esac
        echo "$runtime $script: $(elapsed "$t")"
    done
}

in_both_runtimes bench.ts ""
in_both_runtimes threads.ts ""
in_both_runtimes messages.ts "the whole MTProto message, hashes and PQ vs mtcute and GramJS"
in_both_runtimes clients.ts "GramJS and mtcute, stock vs integrated"
in_both_runtimes transfer.ts "64 MiB up and down through the loopback server, client CPU stock vs the library"

section "C-level call cost (bench/c/call_cost.c), then node: bench/node_binding.ts"
LD_LIBRARY_PATH=zig-out/lib ./scripts/zig run -lc -OReleaseFast -Icsrc bench/c/call_cost.c -Lzig-out/lib -ltgcrypto \
    >"$results/c-call.json"
cat "$results/c-call.json"
"$node" bench/node_binding.ts

section "python: bench/python/run.sh (tgcrypto_ffi vs TgCrypto, cryptg, cipheron)"
bash bench/python/run.sh

section "chart: bench/chart.ts"
"$bin/bun" bench/chart.ts

section "done in $(elapsed "$started"); results in $results/"
ls -l "$results/"
if [ -n "$write" ]; then
    section "write: bench/publish.ts (bench/results/ and docs/performance.md)"
    "$bin/bun" bench/publish.ts
fi
