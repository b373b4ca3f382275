#!/usr/bin/env bash
# quick.sh [PYTEST ARGS...]: the one-CPython quick path of the Python suite.
# Builds the extension for one CPython (quick_build.py: the core's objects
# cached, ext/*.c rebuilt) into $QUICK_OUT (default .tools/python-quick/pkg),
# makes a venv with the test dependencies once (.tools/python-quick/venv-<ver>),
# and runs pytest in bindings/python/tests with the given arguments, e.g.
#   bindings/python/tests/quick.sh test_boundary.py test_lifetimes.py
# PY: the interpreter (default: pyenv's newest 3.13). LIMITED=1: the abi3 module.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
py=${PY:-$(ls -d "$HOME"/.pyenv/versions/3.13*/bin/python 2>/dev/null | sort -V | tail -1)}
[ -x "$py" ] || { echo "quick.sh: no CPython 3.13 in pyenv; set PY=/path/to/python" >&2; exit 2; }
ver=$("$py" -c 'import sys, sysconfig; print("%d.%d%s" % (sys.version_info[:2] + ("t" if sysconfig.get_config_var("Py_GIL_DISABLED") else "",)))')
venv=$repo/.tools/python-quick/venv-$ver
if [ ! -x "$venv/bin/pytest" ]; then
    "$py" -m venv "$venv"
    cryptg=cryptg==0.6.0  # 0.6.0 needs 3.11+ (run.sh pins the same)
    "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || cryptg=cryptg==0.5.2
    "$venv/bin/pip" install --quiet --disable-pip-version-check pytest==8.3.4 TgCrypto==1.2.5 "$cryptg"
fi
out=$(realpath -m "${QUICK_OUT:-$repo/.tools/python-quick/pkg}")
"$venv/bin/python" "$here/quick_build.py" "$out" >/dev/null
cd "$here"
PYTHONPATH=$out TGFFI_LEVEL=${TGFFI_LEVEL:-light} exec "$venv/bin/python" -m pytest -p no:cacheprovider "$@"
