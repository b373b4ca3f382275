#!/usr/bin/env bash
# A quick loop for contributors (`npm run test:quick`), a subset of what
# `npm test` (scripts/test.sh, the full suite CI runs) covers:
#   1. zig build: the shared library and the Node-API addon;
#   2. the C tests (zig build test: every backend this CPU has, the best and
#      soft among them);
#   3. the vitest suites under one runtime (QUICK_RUNTIME: bun, the default,
#      deno or node26) on the default backend;
#   4. the Python suite on one CPython (3.11, pyenv or python3.11 on PATH):
#      this platform's wheel, one venv (.tools/python-quick/, kept between
#      runs: the pinned test dependencies come from PyPI once), the default
#      backend, TGFFI_LEVEL=light.
# Not covered (npm test runs them): other platforms (QEMU, Wine), the other
# runtimes and backends, sanitizers, constant-time, the 8-platform dist and
# npm packages, e2e sessions, the other CPythons and the sdist, fuzz, soak.
# Prints each part's counts, the failures, and "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."

bin=./node_modules/.bin
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
source scripts/lib/report.sh
source scripts/lib/tools.sh
source scripts/lib/suites.sh

runtime=${QUICK_RUNTIME:-bun}

step "zig build (shared library, addon)" ./scripts/zig build
suite "C tests (zig build test: every backend here)" ./scripts/zig build test
vitest "$runtime" "$(available_backends | cut -d' ' -f1)"

# The pinned test dependencies of bindings/python/tests/run.sh (cryptg 0.6.0: CPython 3.11).
PINS="TgCrypto==1.2.5 cipheron==0.2.1 pyrogram==2.0.106 telethon==1.45.0 pytest==8.3.4 cryptg==0.6.0"
python_quick() {
    local py= root work=.tools/python-quick target
    root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
    for candidate in "$root"/versions/3.11.*/bin/python3.11; do [ -x "$candidate" ] && py=$candidate; done
    [ -n "$py" ] || py=$(command -v python3.11) || { echo "needs CPython 3.11 (pyenv install 3.11)"; return 1; }
    target=$("$py" -c 'import sys; sys.path.insert(0, "bindings/python/_build"); import tgffi_build; print(tgffi_build.host_target() or "")')
    [ -n "$target" ] || { echo "no release target for this platform"; return 1; }
    mkdir -p "$work"
    rm -rf "$work/dist"
    "$py" bindings/python/build_wheels.py --out "$work/dist" --targets "$target" --no-version-specific --no-sdist \
        >"$work/build.log" 2>&1 || { tail -20 "$work/build.log"; return 1; }
    if [ "$(cat "$work/pins" 2>/dev/null)" != "$py $PINS" ]; then
        rm -rf "$work/venv"
        "$py" -m venv "$work/venv" &&
            "$work/venv/bin/pip" install --quiet --disable-pip-version-check $PINS || return 1
        echo "$py $PINS" >"$work/pins"
    fi
    "$work/venv/bin/pip" install --quiet --disable-pip-version-check --no-index --no-deps --force-reinstall \
        "$work/dist"/*.whl || return 1
    local counts=$results/python-counts
    TGFFI_LEVEL=light TGFFI_COUNTS="$counts" "$work/venv/bin/python" -m pytest -q -p no:cacheprovider bindings/python/tests
    local rc=$?
    # the summary line scripts/lib/report.sh's `suite` reads (a crash without counts: no line, a failure)
    local p f
    if [ -s "$counts" ] && read -r p f <"$counts"; then
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
        echo "$p passed, $f failed"
    fi
    return "$rc"
}
if needs python3 have python3; then suite "Python suite (CPython 3.11, default backend, light)" python_quick
else skip "Python suite (CPython 3.11, default backend, light)"; fi

report_total
exit $status
