#!/usr/bin/env bash
# The Python client benchmarks: builds the tgcrypto_ffi wheel for this machine (the
# system-compiler path of tgffi_build, as the sdist does without zig), creates a venv under
# .tools/python-clients-bench/ with CPython 3.11 (pyenv, else python3.11 on PATH) holding it
# and Telethon 1.45.0, cryptg 0.6.0, Pyrogram 2.0.106, TgCrypto 1.2.5, cipheron 0.2.1 from
# PyPI, then runs what is asked:
#   bench/python/clients.sh messages     64 B and 1 KiB messages through each client (messages.py)
#   bench/python/clients.sh transfer     64 MiB up and down against the loopback server (transfer.py)
#   bench/python/clients.sh              both
# BENCH_QUICK=1 for a short smoke run. Informational: a missed target never fails it.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
work=$repo/.tools/python-clients-bench
what=${1:-all}

py=
root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
for cand in "$root"/versions/3.11.*/bin/python3.11; do [ -x "$cand" ] && py=$cand; done
[ -n "$py" ] || py=$(command -v python3.11) || { echo "bench/python: needs CPython 3.11 (pyenv install 3.11)"; exit 1; }

rm -rf "$work"
mkdir -p "$work"
"$py" -c 'import sys; sys.path.insert(0, sys.argv[1]); import tgffi_build as t; t.build_native_wheel(sys.argv[2])' \
    bindings/python/_build "$work/dist" >"$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 1; }
"$py" -m venv "$work/venv"
pip=("$work/venv/bin/pip" --quiet --disable-pip-version-check)
"${pip[@]}" install --no-index --find-links "$work/dist" tgcrypto-ffi
"${pip[@]}" install telethon==1.45.0 cryptg==0.6.0 pyrogram==2.0.106 TgCrypto==1.2.5 cipheron==0.2.1
if [ "$what" = messages ] || [ "$what" = all ]; then "$work/venv/bin/python" bench/python/messages.py; fi
if [ "$what" = transfer ] || [ "$what" = all ]; then "$work/venv/bin/python" bench/python/transfer.py; fi
