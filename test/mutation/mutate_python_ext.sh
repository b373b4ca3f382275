#!/usr/bin/env bash
# Mutation run over the Python extension (bindings/python/ext/*.c) with
# mutate_files.py, against the extension's fast tests on one CPython (3.13
# from pyenv, through bindings/python/tests/quick.sh), TGFFI_LEVEL=light,
# stopping at the first failure. Extra arguments go to mutate_files.py
# (e.g. --filter REGEX, --resume LOG, --jobs N). Results:
# test/mutation/results/<date>-bindings-python.txt; survivors explained in
# test/mutation/equivalent_bindings_python.txt.
# test_toplevel.py's distribution test needs an installed wheel: left out here.
set -euo pipefail
cd "$(dirname "$0")/../.."
TESTS="test_boundary.py test_server_flag_and_install.py test_tgcrypto.py test_cryptg.py test_vectors.py test_toplevel.py"
TESTS="$TESTS test_lifetimes.py test_leaks.py test_threads.py -k 'not test_distribution_has_no_top_level'"
# once here: the venv (with cipheron for test_toplevel.py) and the core's cached objects
bindings/python/tests/quick.sh --co -q >/dev/null
ver=$(ls -d .tools/python-quick/venv-3.13* | head -1)
"$ver/bin/pip" install --quiet --disable-pip-version-check cipheron==0.2.1
exec nice -n 15 python3 test/mutation/mutate_files.py \
    --target bindings/python/ext/contexts.c bindings/python/ext/auth_key.c bindings/python/ext/tgcrypto_calls.c \
    bindings/python/ext/padding_pool.c bindings/python/ext/hashes.c bindings/python/ext/cryptg_calls.c \
    bindings/python/ext/args.c bindings/python/ext/backends.c bindings/python/ext/module.c \
    --build-cmd "$ver/bin/python bindings/python/tests/quick_build.py .mutant-pkg" \
    --test-cmd "root=\$PWD; cd bindings/python/tests && PYTHONPATH=\$root/.mutant-pkg TGFFI_LEVEL=light $PWD/$ver/bin/python -m pytest -x -q -p no:cacheprovider $TESTS" \
    --name bindings-python --equivalent test/mutation/equivalent_bindings_python.txt "$@"
