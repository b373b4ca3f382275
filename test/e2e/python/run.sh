#!/usr/bin/env bash
# The Python client sessions of the e2e suite: Telethon 1.45.0, Pyrogram 2.0.106 and Kurigram
# 2.2.26 (a Pyrogram fork), each stock and with tgcrypto_ffi.install(), over every transport
# each has, against the loopback server (test/e2e/server/main.ts under Bun): auth key,
# help.getConfig, 3 MiB up and down by SHA-256 on both sides, a tampered packet rejected.
#
#   bash test/e2e/python/run.sh          (test/e2e/run.sh runs it after the TypeScript sessions)
#
# Builds the tgcrypto_ffi wheel for this machine (tgffi_build's native path), keeps one venv
# per client under .tools/e2e-python/ (CPython 3.11 from pyenv, else python3.11; PyPI pins
# below; remade when the pins change) and reinstalls the wheel in each. The last line is
# "N passed, N failed". E2E_PY_SESSION_TIMEOUT (s, default 180) bounds each session.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$repo"
work=$repo/.tools/e2e-python
mkdir -p "$work"

declare -A PINS=(
    [telethon]="telethon==1.45.0 cryptg==0.6.0"
    [pyrogram]="pyrogram==2.0.106 TgCrypto==1.2.5"
    [kurigram]="kurigram==2.2.26 TgCrypto==1.2.5"
)
CLIENTS="telethon pyrogram kurigram"

fail() { echo "$1"; echo "0 passed, 1 failed"; exit 1; }

py=
root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
for cand in "$root"/versions/3.11.*/bin/python3.11; do [ -x "$cand" ] && py=$cand; done
[ -n "$py" ] || py=$(command -v python3.11) || fail "e2e python: needs CPython 3.11 (pyenv install 3.11)"

rm -rf "$work/dist"
"$py" -c 'import sys; sys.path.insert(0, sys.argv[1]); import tgffi_build as t; t.build_native_wheel(sys.argv[2])' \
    bindings/python/_build "$work/dist" >"$work/build.log" 2>&1 || { tail -20 "$work/build.log"; fail "e2e python: the wheel did not build"; }

args=()
for client in $CLIENTS; do
    venv=$work/venv-$client
    if [ "$(cat "$venv/pins" 2>/dev/null)" != "${PINS[$client]}" ]; then
        rm -rf "$venv"
        { "$py" -m venv "$venv" && "$venv/bin/pip" install --quiet --disable-pip-version-check ${PINS[$client]} &&
            echo "${PINS[$client]}" >"$venv/pins"; } >"$work/venv-$client.log" 2>&1 ||
            { tail -20 "$work/venv-$client.log"; fail "e2e python: the $client venv (${PINS[$client]})"; }
    fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-index --no-deps --force-reinstall "$work"/dist/*.whl ||
        fail "e2e python: the wheel into the $client venv"
    args+=(--client "$client=$venv/bin/python")
done

exec "$py" test/e2e/python/drive.py --server "./node_modules/.bin/bun test/e2e/server/main.ts" "${args[@]}"
