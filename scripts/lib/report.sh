# shellcheck shell=bash
# Counting for scripts/test.sh: every suite adds to one total, printed last as
# "N passed, N failed, N skipped". Sourced; needs $results (a scratch dir).

total_passed=0
total_failed=0
total_skipped=0
skipped_list=
failed_list=
failed_logs=
status=0

# record NAME PASSED FAILED [SECONDS]
record() {
    printf '%-44s %6s passed, %s failed%s\n' "$1" "$2" "$3" "${4:+  (${4} s)}"
    total_passed=$((total_passed + $2))
    total_failed=$((total_failed + $3))
    if [ "$3" -ne 0 ] || [ "$2" -eq 0 ]; then
        status=1
        failed_list="$failed_list  $1"$'\n'
    fi
}

# step NAME COMMAND...: a build or check that counts as one test.
step() {
    local name=$1; shift
    echo "== $name"
    local t0=$SECONDS
    if "$@"; then record "$name" 1 0 $((SECONDS - t0)); else record "$name" 0 1 $((SECONDS - t0)); fi
}

# suite NAME COMMAND...: a runner that ends with "N passed, N failed"; its
# counts are recorded, and a non-zero exit or a missing summary fails it.
suite() {
    local name=$1; shift
    local log="$results/${name//[^A-Za-z0-9]/_}.log"
    echo "== $name"
    local t0=$SECONDS
    "$@" 2>&1 | tee "$log"
    local rc=${PIPESTATUS[0]}
    local line
    line=$(tr -d '\r' <"$log" | grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' | tail -1) # \r: Windows programs
    if [ -z "$line" ]; then record "$name (no summary)" 0 1; failed_logs="$failed_logs $log"; return; fi
    local p=${line%% passed*} f
    f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    record "$name" "$p" "$f" $((SECONDS - t0))
    if [ "$f" -ne 0 ] || [ "$p" -eq 0 ]; then failed_logs="$failed_logs $log"; fi
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

# report_failures: every failed suite or step by name, then the failing tests
# of each vitest run with their errors (from its JSON report in $results), and
# the error lines of each failed suite's log, so that a long log need not be searched.
report_failures() {
    [ -n "$failed_list" ] || return 0
    printf '\nFAILED (suites and steps):\n%s' "$failed_list"
    local report name log
    for report in "$results"/vitest-*.json; do
        [ -s "$report" ] || continue
        name=${report##*/}
        node scripts/lib/vitest_failures.cjs "${name%.json}" "$report"
    done
    for log in $failed_logs; do
        [ -s "$log" ] || continue
        echo "error lines of the failed suite's log ${log##*/} (the full log is above):"
        grep -aE 'FAIL|✗|×|[Ee]rror|TIMED OUT|timed out|[Aa]ssert|not ok|panic|failed' "$log" | head -40 | sed 's/^/    /'
    done
}

# report_total: the failures, the skipped suites with their reasons, then the total line.
report_total() {
    report_failures
    echo
    if [ "$total_skipped" -ne 0 ]; then
        printf 'SKIPPED (tools missing on this machine; CI runs them):\n%s' "$skipped_list"
    fi
    echo "wall time: $((SECONDS / 60)) min $((SECONDS % 60)) s"
    echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
}
