#!/usr/bin/env bash
# The Python benchmark: builds the tgcrypto_ffi wheel for this machine
# (build_wheels.py, this platform's target only), creates a venv under
# .tools/python-bench/ with CPython 3.11 (pyenv, else python3.11 on PATH)
# holding it and TgCrypto 1.2.5, cryptg 0.6.0 and cipheron 0.2.1 from PyPI,
# then runs bench/python/bench.py, which writes python.json to the results folder
# ($BENCH_RESULTS_DIR, else .tools/bench-results/; see bench/lib/results.ts).
# BENCH_QUICK=1 for a short smoke run. Informational: a missed target never fails it.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
work=$repo/.tools/python-bench
rm -rf "$work"
mkdir -p "$work"

py=
root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
for cand in "$root"/versions/3.11.*/bin/python3.11; do [ -x "$cand" ] && py=$cand; done
[ -n "$py" ] || py=$(command -v python3.11) || { echo "bench/python: needs CPython 3.11 (pyenv install 3.11)"; exit 1; }

target=$("$py" -c 'import sys; sys.path.insert(0, "bindings/python/_build"); import tgffi_build; print(tgffi_build.host_target() or "")')
[ -n "$target" ] || { echo "bench/python: no release target for this platform"; exit 1; }
"$py" bindings/python/build_wheels.py --out "$work/dist" --targets "$target" --no-version-specific --no-sdist >"$work/build.log" 2>&1 ||
    { tail -20 "$work/build.log"; exit 1; }
"$py" -m venv "$work/venv"
pip=("$work/venv/bin/pip" --quiet --disable-pip-version-check)
"${pip[@]}" install --no-index --find-links "$work/dist" tgcrypto-ffi
"${pip[@]}" install TgCrypto==1.2.5 cryptg==0.6.0 cipheron==0.2.1
exec "$work/venv/bin/python" bench/python/bench.py
