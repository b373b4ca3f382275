#!/usr/bin/env bash
# Mutation run over the Python extension (bindings/python/ext/*.c and
# native.h) and the package's Python (bindings/python/src/) with mutate_files.py, against the extension's fast tests on one
# CPython (3.13 from pyenv; bindings/python/tests/quick_build.py builds the
# module), TGFFI_LEVEL=light, pytest stopping at the first failure.
#
# Two builds, because native.h has two lock implementations:
#   1. the abi3 module (LIMITED=1: PyThread locks; the wheel most CPythons
#      install), every file;
#   2. the version-specific 3.13 module (PyMutex), native.h only;
# the Python sources are mutated over the abi3 build.
# A mutant the build does not compile (the other #if branch: the module comes
# out byte-identical, --artifact) is "invalid" in that run; the two runs are
# then combined (--resume ... --no-run). Results:
# test/mutation/results/<date>-bindings-python.txt (the two runs' own files
# beside it); survivors explained in test/mutation/equivalent_bindings_python.txt.
# Extra arguments go to both runs of mutate_files.py (e.g. --filter REGEX, --jobs N).
# test_toplevel.py's distribution test and test_predecessors.py need an
# installed wheel: left out here (run.sh runs them on every interpreter).
set -euo pipefail
cd "$(dirname "$0")/../.."
# the files that test the package's Python, then those that test the C
PKG_TESTS="test_patching.py test_package.py test_pyrogram_layer.py test_telethon_layer.py"
C_TESTS="test_boundary.py test_server_flag_and_install.py test_tgcrypto.py test_cryptg.py test_vectors.py test_toplevel.py"
C_TESTS="$C_TESTS test_lifetimes.py test_leaks.py test_threads.py test_differential.py test_contract.py test_clients.py"
TESTS="$C_TESTS $PKG_TESTS"
# the Python sources: their own files first (pytest -x stops at the first failure), and also
# install()'s child-interpreter cases (9 s more per survivor)
SRC_TESTS="$PKG_TESTS test_install_clients.py $C_TESTS -k 'not test_distribution_has_no_top_level'"
TESTS="$TESTS -k 'not test_distribution_has_no_top_level'"
# once here: the venv (with cipheron and the clients for test_toplevel.py) and the core's cached objects
bindings/python/tests/quick.sh --co -q >/dev/null
LIMITED=1 bindings/python/tests/quick.sh --co -q >/dev/null
ver=$(ls -d .tools/python-quick/venv-3.13* | head -1)
"$ver/bin/pip" install --quiet --disable-pip-version-check cipheron==0.2.1 pyrogram==2.0.106 telethon==1.45.0
EXT=bindings/python/ext
FILES="$EXT/contexts.c $EXT/auth_key.c $EXT/tgcrypto_calls.c $EXT/padding_pool.c $EXT/hashes.c $EXT/cryptg_calls.c"
FILES="$FILES $EXT/args.c $EXT/backends.c $EXT/module.c $EXT/native.h"
day=$(date +%F)
res=test/mutation/results
run() {  # run NAME LIMITED TESTS TARGETS...
    local name=$1 limited=$2 tests=$3
    shift 3
    nice -n 15 python3 test/mutation/mutate_files.py --target "$@" \
        --build-cmd "LIMITED=$limited $ver/bin/python bindings/python/tests/quick_build.py .mutant-pkg" \
        --artifact ".mutant-pkg/tgcrypto_ffi/*" \
        --test-cmd "root=\$PWD; cd bindings/python/tests && PYTHONPATH=\$root/.mutant-pkg TGFFI_LEVEL=light $PWD/$ver/bin/python -m pytest -x -q -p no:cacheprovider $tests" \
        --name "$name" --equivalent test/mutation/equivalent_bindings_python.txt $EXTRA
}
EXTRA="$*"
PY_SRC=$(ls bindings/python/src/tgcrypto_ffi/*.py)
status=0
# the rule mutants first (the ones that must all be caught), then the rest of
# the C, then the Python sources
run bindings-python-abi3-rules 1 "$TESTS" $FILES --rules GIL,lock,lifetime,length || status=1
run bindings-python-abi3-other 1 "$TESTS" $FILES --rules other || status=1
run bindings-python-3.13 0 "$TESTS" $EXT/native.h || status=1
run bindings-python-src 1 "$SRC_TESTS" $PY_SRC || status=1
python3 test/mutation/mutate_files.py --target $FILES $PY_SRC --build-cmd "see mutate_python_ext.sh" \
    --test-cmd "see mutate_python_ext.sh (abi3 build, and the 3.13 build for native.h)" \
    --name bindings-python --equivalent test/mutation/equivalent_bindings_python.txt \
    --resume $res/$day-bindings-python-{abi3-rules,src,3.13,abi3-other}.txt --no-run || status=1
exit $status
