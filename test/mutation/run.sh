#!/usr/bin/env bash
# npm run mutate: mutation testing (issue 16), outside `npm test`.
#
#   bash test/mutation/run.sh            every part (today: the C part only)
#   bash test/mutation/run.sh --c-only   csrc/ against the C tests
#   bash test/mutation/run.sh --c-only --filter mtproto.c --jobs 2   (options go to mutate_c.py)
#
# C part: test/mutation/mutate_c.py applies one mutant at a time to a
# temporary copy of the tree (never the working tree), rebuilds the C test
# program with the pinned zig cc, runs it with a timeout, and runs the
# valgrind constant-time check (-O2 and -O0 -fno-builtin) on mutants the
# tests miss; --sanitize adds the ASan+UBSan run. Writes
# test/mutation/results/<date>-c.txt; exits non-zero if a mutant survives
# that test/mutation/equivalent.txt does not explain. ~30 min on 2 cores.
set -uo pipefail
cd "$(dirname "$0")/../.."

part=all
args=()
for a in "$@"; do
    case $a in
    --c-only) part=c ;;
    --ts-only) part=ts ;;
    *) args+=("$a") ;;
    esac
done

status=0
if [ "$part" = all ] || [ "$part" = c ]; then
    echo "== mutation testing: csrc/ against the C tests"
    python3 test/mutation/mutate_c.py ${args[@]+"${args[@]}"} || status=1
fi

# ---- TypeScript part (ts/, Stryker): not written yet ----
# The TypeScript half of issue 16 adds it here: Stryker
# (@stryker-mutator/core with @stryker-mutator/vitest-runner) over ts/,
# results in test/mutation/results/<date>-ts.txt, run for part=all and
# --ts-only. Until then --ts-only fails and part=all runs the C part only.
if [ "$part" = ts ]; then
    echo "== mutation testing of ts/ (Stryker) is not implemented yet (issue 16, TypeScript half)"
    status=1
elif [ "$part" = all ]; then
    echo "== mutation testing of ts/ (Stryker): not implemented yet, skipped"
fi
exit $status
