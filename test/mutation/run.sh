#!/usr/bin/env bash
# npm run mutate: mutation testing, outside `npm test`.
#
#   bash test/mutation/run.sh            every part
#   bash test/mutation/run.sh --c-only   csrc/ against the C tests
#   bash test/mutation/run.sh --ts-only  ts/ against the vitest suites (Stryker)
#   bash test/mutation/run.sh --bindings-only   bindings/node/addon.c against the addon tests, then the Python part
#   bash test/mutation/run.sh --python-only     bindings/python/ext/ and src/ against the Python tests
#   python3 test/mutation/mutate_files.py --target FILE... --build-cmd "..." --test-cmd "..." --name NAME
#                                        any C file against any test command (see its docstring)
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
    --bindings-only) part=bindings ;;
    --python-only) part=python ;;
    *) args+=("$a") ;;
    esac
done

status=0
if [ "$part" = all ] || [ "$part" = c ]; then
    echo "== mutation testing: csrc/ against the C tests"
    python3 test/mutation/mutate_c.py ${args[@]+"${args[@]}"} || status=1
fi

# TypeScript part: Stryker over ts/ (test/mutation/stryker.config.mjs), the
# vitest suites under Node 26 in Stryker's sandbox against the dev build in
# zig-out/lib/; summarize_ts.mjs writes test/mutation/results/<date>-ts.txt
# and fails on a survivor test/mutation/equivalent_ts.txt does not explain.
# Static mutants (module-level values) run only with STRYKER_STATIC=1.
# ~1.5 h on 2 cores.
if [ "$part" = all ] || [ "$part" = ts ]; then
    echo "== mutation testing: ts/ against the vitest suites (Stryker)"
    node=./node_modules/node26/bin/node
    # the tree Stryker copies now, for the results' header
    STRYKER_COMMIT=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- ts test || echo " + uncommitted changes")
    export STRYKER_COMMIT
    if ! ./scripts/zig build; then
        status=1
    elif ! "$node" node_modules/@stryker-mutator/core/bin/stryker.js run test/mutation/stryker.config.mjs; then
        echo "Stryker failed"; status=1
    else
        # The Bun and Deno bindings, which Node never loads: in their own runtimes.
        for runtime in bun deno; do
            echo "== mutation testing: ts/runtime/$runtime.ts under $runtime (Stryker, command runner)"
            STRYKER_RUNTIME=$runtime "$node" node_modules/@stryker-mutator/core/bin/stryker.js run \
                test/mutation/stryker.runtime.config.mjs || { echo "Stryker failed ($runtime)"; status=1; }
        done
        "$node" test/mutation/summarize_ts.mjs test/mutation/results/stryker.json \
            test/mutation/results/stryker-bun.json test/mutation/results/stryker-deno.json || status=1
    fi
fi
# Bindings part: bindings/node/addon.c against the addon's vitest files
# (test/runtime/addon*.test.ts) under Node 26, each mutant built with zig
# build in a copy of the tree, and a mutant they miss again under ASan+UBSan
# (bindings/node/test/asan.sh); writes test/mutation/results/<date>-bindings-node.txt
# and fails on a survivor test/mutation/equivalent_bindings.txt does not
# explain. ~45 min on a shared 2-core machine (ASan runs only for survivors the
# equivalent file does not explain).
if [ "$part" = all ] || [ "$part" = bindings ]; then
    echo "== mutation testing: bindings/node/addon.c against the addon tests"
    python3 test/mutation/mutate_files.py --target bindings/node/addon.c --name bindings-node \
        --build-cmd "./scripts/zig build" \
        --test-cmd "./node_modules/node26/bin/node ./node_modules/vitest/vitest.mjs run --bail=1 test/runtime/addon" \
        --sanitize-cmd "TG_ADDON_ASAN_DIR=\$PWD/.asan-build bash bindings/node/test/asan.sh" \
        ${args[@]+"${args[@]}"} || status=1
fi
# Python part: the extension (bindings/python/ext/, abi3 and 3.13 builds)
# and the package's Python (bindings/python/src/) against the extension's
# fast tests on CPython 3.13 (test/mutation/mutate_python_ext.sh); writes
# test/mutation/results/<date>-bindings-python.txt and fails on a survivor
# test/mutation/equivalent_bindings_python.txt does not explain. ~2 h on 2 cores.
if [ "$part" = all ] || [ "$part" = bindings ] || [ "$part" = python ]; then
    echo "== mutation testing: bindings/python/ext/ and bindings/python/src/ against the Python tests"
    bash test/mutation/mutate_python_ext.sh ${args[@]+"${args[@]}"} || status=1
fi
exit $status
