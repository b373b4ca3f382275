#!/usr/bin/env bash
# The Python suite of tgcrypto-ffi (scripts/test.sh runs it; so can you, from anywhere):
#   1. builds every release artifact with build_wheels.py (cp311-abi3 wheels for the
#      eight targets, cp39/cp310 wheels for the four Linux targets, the sdist);
#   2. checks them: abi3audit on the eight abi3 wheels, names/tags/RECORD, the Linux
#      and Windows modules' imports and exports, the sdist's copy of csrc/, the cross
#      pyconfig.h; builds the sdist through pip's PEP 517 path (isolated, ziglang as the
#      build requirement, offline from a local wheelhouse) on CPython 3.9 and 3.13;
#   3. for each CPython 3.9 .. 3.13 (pyenv) and 3.14 (Debian sid's, unpacked into a
#      per-machine cache by get_cpython314.sh): a fresh venv, the wheel installed offline,
#      the PyPI test dependencies (pinned below), then bindings/python/tests with pytest
#      once per AES backend this CPU has (TGCRYPTO_BACKEND=...):
#        - the default (best) backend runs every test file, at TGFFI_LEVEL=full on 3.11
#          and 3.13 and TGFFI_LEVEL=light on 3.9, 3.10, 3.12, 3.14 (3.14: that run only);
#        - every other backend runs, light, the files whose results depend on the
#          backend: vectors, tgcrypto, cryptg, differential, threads, toplevel (without
#          its install() tests); test_clients.py and test_predecessors.py, which drive
#          Pyrogram/Telethon and the predecessors in child processes, run once per version;
#        - light = a seventh of the random cases, and no demonstration of cryptg's hang;
#      the wheels the sdist built (3.9: version-specific, 3.13: abi3) then replace the
#      release wheel in that venv and run the backend-dependent files once, light;
#   4. the fallback without zig: the module built by the system clang runs the
#      vectors, tgcrypto and cryptg files (light);
#   5. PyPy (Debian's pypy3, installed with apt-get where allowed): its cpyext wheel
#      (build_wheels.py --pypy) in a fresh venv with the PyPy builds of TgCrypto and
#      cryptg, every test file that applies to PyPy, light.
# The last line is "N passed, N failed" (each check counts one; each pytest run its tests).
# Exits non-zero on any failure. Venvs and build output go to .tools/python-test/
# (deleted first); downloaded build requirements are kept in .tools/python-wheelhouse/.
# A missing tool (a CPython version, OpenSSL headers for building cipheron, clang) fails the
# run under CI=true, and is reported as SKIPPED with its install command otherwise.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
cd "$repo"

work=$repo/.tools/python-test
wheelhouse=$repo/.tools/python-wheelhouse
rm -rf "$work"
mkdir -p "$work" "$wheelhouse"
dist=$work/dist
started=$(date +%s)

# Test dependencies, pinned (cryptg 0.6.0 requires Python >= 3.11: 0.5.2 below).
PINS_COMMON="TgCrypto==1.2.5 cipheron==0.2.1 pyrogram==2.0.106 telethon==1.45.0 pytest==8.3.4"
PIN_CRYPTG_NEW="cryptg==0.6.0"
PIN_CRYPTG_OLD="cryptg==0.5.2"
PIN_TOOLS="abi3audit==0.0.26"
PIN_ZIGLANG="ziglang==0.17.0.*"  # what the sdist asks for (get_requires_for_build_wheel)
PIN_TOMLI="tomli==2.2.1"         # the sdist's build requirement on Python < 3.11
PIN_CRYPTG_PYPY="cryptg==0.5.0.post0"  # the newest cryptg with a PyPy 3.9 wheel
VERSIONS="3.9 3.10 3.11 3.12 3.13 3.14"

passed=0
failed=0
skipped=

pip_q() { "$@" --quiet --disable-pip-version-check --no-warn-script-location; }

# check NAME COMMAND...: one test
check() {
    local name=$1; shift
    echo "== $name"
    local t=$SECONDS
    if "$@"; then passed=$((passed + 1)); echo "   ok ($((SECONDS - t)) s)"; return 0; fi
    failed=$((failed + 1))
    echo "   FAILED: $name ($((SECONDS - t)) s)"
    return 1
}

# missing NAME HINT: a tool is missing (a failure under CI=true)
missing() {
    if [ "${CI:-}" = true ]; then
        echo "== $1: missing ($2); CI=true: nothing may be skipped"
        failed=$((failed + 1))
    else
        echo "SKIPPED $1: missing; install with: $2"
        skipped="$skipped  $1 ($2)"$'\n'
    fi
}

# The fallback without zig: the system clang builds the module for this machine.
clang_build() {
    TGCRYPTO_FFI_CC=clang "$builder" -c 'import sys; sys.path.insert(0, sys.argv[1]); import tgffi_build as t
print(t.build_native_wheel(sys.argv[2]).name)' "$repo/bindings/python/_build" "$work/clang-wheel"
}
wait_for() { # PID LOG: the background job's status; its log on failure
    if wait "$1"; then cat "$2"; return 0; fi
    tail -20 "$2"
    return 1
}

# pytest_run LABEL PYTHON [ENV=VAL...] -- PYTEST ARGS...: adds that run's counts
pytest_run() {
    local label=$1 py=$2; shift 2
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    local counts="$work/counts.$RANDOM"
    echo "== pytest $label"
    local t=$SECONDS
    env "${envs[@]}" TGFFI_COUNTS="$counts" "$py" -m pytest -q -p no:cacheprovider "$@" 2>&1 | tail -n 15
    local rc=${PIPESTATUS[0]}
    if [ -s "$counts" ]; then
        local p f
        read -r p f <"$counts"
        [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
        passed=$((passed + p))
        failed=$((failed + f))
        echo "   $label: $p passed, $f failed ($((SECONDS - t)) s)"
    else
        failed=$((failed + 1))
        echo "   $label: no result (pytest exit $rc)"
    fi
}

# find_python X.Y: pyenv's newest X.Y.*, else pythonX.Y on PATH
find_python() {
    local root cand best=
    root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
    for cand in "$root"/versions/"$1".*/bin/python"$1"; do
        [ -x "$cand" ] && best=$cand
    done
    if [ -z "$best" ] && command -v "python$1" >/dev/null 2>&1; then best=$(command -v "python$1"); fi
    [ -n "$best" ] && "$best" -c "import sys; assert sys.version_info[:2] == tuple(map(int, '$1'.split('.')))" 2>/dev/null &&
        echo "$best"
}

# OpenSSL headers: cipheron (a test dependency) builds from its sdist against them
# clang: the fallback build without zig. Debian packages are installed where we may.
have_openssl_headers() { [ -e /usr/include/openssl/evp.h ] || [ -e /usr/local/include/openssl/evp.h ]; }
apt_pkgs=
have_openssl_headers || apt_pkgs="$apt_pkgs libssl-dev"
command -v clang >/dev/null 2>&1 || apt_pkgs="$apt_pkgs clang"
have_pypy() { command -v pypy3 >/dev/null 2>&1 && [ -e "$(pypy3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)/Python.h" ]; }
have_pypy || apt_pkgs="$apt_pkgs pypy3 pypy3-dev"
if [ -n "$apt_pkgs" ] && command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null; }; then
    sudo_=; [ "$(id -u)" -eq 0 ] || sudo_=sudo
    echo "installing$apt_pkgs (Debian)"
    # shellcheck disable=SC2086 # a list of packages
    { $sudo_ apt-get update -qq && $sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $apt_pkgs; } >/dev/null 2>&1
fi
openssl_ok=1
have_openssl_headers || openssl_ok=0

declare -A PY
for v in $VERSIONS; do
    if p=$(find_python "$v"); then PY[$v]=$p
    elif [ "$v" = 3.14 ] && p=$("$here/get_cpython314.sh" 2>"$work/get_cpython314.log"); then PY[$v]=$p
    elif [ "$v" = 3.14 ]; then tail -5 "$work/get_cpython314.log"; missing "CPython 3.14" "bindings/python/tests/get_cpython314.sh (Debian sid's packages, patchelf)"
    else missing "CPython $v" "pyenv install $v"; fi
done
builder=${PY[3.11]:-${PY[3.12]:-${PY[3.13]:-}}}
if [ -z "$builder" ]; then
    echo "no CPython >= 3.11 to build with"
    echo "$passed passed, $((failed + 1)) failed"
    exit 1
fi

# Venvs with the pinned test dependencies (PyPI) and the tools venv are prepared
# in the background while the wheels build; the wheel goes in offline later.
prep_venv() {
    local v=$1 venv=$work/venv-$1 cryptg=$PIN_CRYPTG_NEW
    [ "$v" = 3.9 ] || [ "$v" = 3.10 ] && cryptg=$PIN_CRYPTG_OLD
    "${PY[$v]}" -m venv "$venv" && pip_q "$venv/bin/pip" install $PINS_COMMON "$cryptg"
}
declare -A PREP
if [ "$openssl_ok" = 1 ]; then
    for v in $VERSIONS; do
        [ -n "${PY[$v]:-}" ] || continue
        prep_venv "$v" >"$work/venv-$v.log" 2>&1 &
        PREP[$v]=$!
    done
fi
pypy_pid=
if have_pypy && [ "$openssl_ok" = 1 ]; then
    { pypy3 -m venv "$work/venv-pypy" &&
        pip_q "$work/venv-pypy/bin/pip" install $PINS_COMMON "$PIN_CRYPTG_PYPY"; } >"$work/venv-pypy.log" 2>&1 &
    pypy_pid=$!
fi
tools=$work/venv-tools
{ "$builder" -m venv "$tools" && pip_q "$tools/bin/pip" install "$PIN_TOOLS"; } >"$work/venv-tools.log" 2>&1 &
tools_pid=$!

# ---- 1. build
vs_args=()
[ -n "${PY[3.9]:-}" ] && vs_args+=(--python39 "${PY[3.9]}")
[ -n "${PY[3.10]:-}" ] && vs_args+=(--python310 "${PY[3.10]}")
[ -z "${PY[3.9]:-}" ] || [ -z "${PY[3.10]:-}" ] || vs_args+=(--strict)
have_pypy && vs_args+=(--pypy "$(command -v pypy3)")
check "build_wheels.py: 8 abi3 wheels, cp39/cp310 and PyPy Linux wheels, sdist" \
    bash -c '"$@" >"$0/build.log" 2>&1 || { tail -30 "$0/build.log"; exit 1; }; tail -1 "$0/build.log"' \
    "$work" "$builder" bindings/python/build_wheels.py --out "$dist" "${vs_args[@]}"

# ---- 2. artifact checks (abi3audit and the ELF/PE readers live in the tools venv)
check "tools venv ($PIN_TOOLS)" wait_for "$tools_pid" "$work/venv-tools.log"
audit_all() {
    local w n=0
    for w in "$dist"/*-abi3-*.whl; do
        "$tools/bin/abi3audit" --assume-minimum-abi3 3.11 --strict "$w" >"$work/abi3audit.log" 2>&1 || { cat "$work/abi3audit.log"; return 1; }
        n=$((n + 1))
    done
    echo "   abi3audit: $n wheels clean"
    [ "$n" -eq 8 ]
}
check "abi3audit --strict on the 8 abi3 wheels" audit_all
pypy_abi=
have_pypy && pypy_abi=$(pypy3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX").split(".")[1].rsplit("-", 3)[0].replace("-", "_"))')
for c in wheels elf pe sdist; do
    check "check_build.py $c" env TGFFI_PYPY_ABI="$pypy_abi" "$tools/bin/python" "$here/check_build.py" "$c" "$dist"
done
check "check_build.py pyconfig (cross pyconfig.h = CPython's own on x86_64 Linux)" \
    "$tools/bin/python" "$here/check_build.py" pyconfig "$("$builder" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"

# The sdist through pip's PEP 517 path: build isolation, ziglang (and tomli on 3.9)
# resolved by the backend's requirements, offline from the wheelhouse.
fill_wheelhouse() { # ziglang for this platform; tomli as 3.9 needs it (tomli has per-version wheels)
    "$builder" -m pip download --quiet --disable-pip-version-check --only-binary :all: -d "$wheelhouse" "$PIN_ZIGLANG" &&
        { [ -z "${PY[3.9]:-}" ] ||
            "${PY[3.9]}" -m pip download --quiet --disable-pip-version-check --only-binary :all: -d "$wheelhouse" "$PIN_TOMLI"; }
}
sdist_build() {
    local v=$1 py=${PY[$1]}
    local out=$work/sdist-wheel-$v
    # pip wheel installs nothing into the interpreter: the build runs in its own isolated env
    "$py" -m pip wheel --quiet --disable-pip-version-check --no-deps --no-cache-dir --no-index \
        --find-links "$wheelhouse" -w "$out" "$dist"/tgcrypto_ffi-*.tar.gz >"$work/sdist-$v.log" 2>&1 ||
        { tail -20 "$work/sdist-$v.log"; return 1; }
    ls "$out"
}
clang_pid=
if command -v clang >/dev/null 2>&1; then
    clang_build >"$work/clang-build.log" 2>&1 &
    clang_pid=$!
else
    missing "the system-clang fallback build" "sudo apt-get install clang"
fi
# both in the background (checked when their version's turn comes)
declare -A SDIST
if fill_wheelhouse; then
    for v in 3.9 3.13; do
        [ -n "${PY[$v]:-}" ] || continue
        sdist_build "$v" >"$work/sdist-check-$v.log" 2>&1 &
        SDIST[$v]=$!
    done
else
    check "download $PIN_ZIGLANG and $PIN_TOMLI into .tools/python-wheelhouse" false
fi

# ---- 3. the suite on every CPython and backend
install_wheel() {
    local venv=$1
    pip_q "$venv/bin/pip" install --no-index --find-links "$dist" tgcrypto-ffi &&
        "$venv/bin/python" -c "import tgcrypto_ffi, sys; print('   ', sys.version.split()[0], tgcrypto_ffi.__file__)"
}

backend_files=("$here"/test_vectors.py "$here"/test_tgcrypto.py "$here"/test_cryptg.py
    "$here"/test_differential.py "$here"/test_threads.py "$here"/test_toplevel.py)
backends=
for v in $VERSIONS; do
    [ -n "${PY[$v]:-}" ] || continue
    if [ "$openssl_ok" = 0 ]; then
        missing "the suite on CPython $v (cipheron needs OpenSSL headers)" "sudo apt-get install libssl-dev (macOS: brew install openssl)"
        continue
    fi
    venv=$work/venv-$v
    check "CPython $v: fresh venv with the pinned test dependencies" wait_for "${PREP[$v]}" "$work/venv-$v.log" || continue
    check "CPython $v: the wheel installed offline" install_wheel "$venv" || continue
    if [ -z "$backends" ]; then
        backends=$("$venv/bin/python" -c "import tgcrypto_ffi; print(' '.join(tgcrypto_ffi.available_backends()))")
        echo "== backends this CPU runs: $backends"
    fi
    best=${backends%% *}
    for b in $backends; do
        if [ "$b" = "$best" ]; then
            level=light
            [ "$v" = 3.11 ] || [ "$v" = 3.13 ] && level=full
            # test_free_threading.py is for free-threaded builds only (none of these is one);
            # the __buffer__ export test needs 3.12 (Python classes export buffers from then on)
            only=()
            case $v in 3.9 | 3.10 | 3.11) only=(-k "not failing_export_propagates") ;; esac
            pytest_run "CPython $v, TGCRYPTO_BACKEND=$b, $level, every file" "$venv/bin/python" \
                TGCRYPTO_BACKEND="$b" TGFFI_LEVEL="$level" -- "$here" --ignore="$here/test_free_threading.py" "${only[@]}"
        elif [ "$v" != 3.14 ]; then
            pytest_run "CPython $v, TGCRYPTO_BACKEND=$b, light, backend-dependent files" "$venv/bin/python" \
                TGCRYPTO_BACKEND="$b" TGFFI_LEVEL=light -- "${backend_files[@]}" -k "not install and not distribution"
        fi
    done
    # the wheel pip built from the sdist, in place of the release wheel: once, light
    if [ -n "${SDIST[$v]:-}" ] &&
        check "sdist builds with pip (PEP 517, isolated, $PIN_ZIGLANG) on CPython $v" \
            wait_for "${SDIST[$v]}" "$work/sdist-check-$v.log"; then
        check "CPython $v: the wheel built from the sdist replaces the release wheel" \
            pip_q "$venv/bin/pip" install --no-index --no-deps --force-reinstall "$work/sdist-wheel-$v"/*.whl &&
            pytest_run "CPython $v, the sdist-built wheel, light, backend-dependent files" "$venv/bin/python" \
                TGFFI_LEVEL=light -- "${backend_files[@]}" -k "not install and not distribution"
    fi
done

# The clang-built module (no zig) runs the files that need only pytest, light
if [ -n "$clang_pid" ] && check "the module built by the system clang (no zig)" wait_for "$clang_pid" "$work/clang-build.log"; then
    venv=$work/venv-clang
    check "CPython 3.11 venv with the clang-built wheel" bash -c '"$1" -m venv "$2" && "$2/bin/pip" install --quiet \
        --disable-pip-version-check "$3" "$4"/*.whl' _ "$builder" "$venv" "pytest==8.3.4" "$work/clang-wheel" &&
        pytest_run "the clang-built wheel: vectors, tgcrypto, cryptg, light" "$venv/bin/python" TGFFI_LEVEL=light -- \
            "$here"/test_vectors.py "$here"/test_tgcrypto.py "$here"/test_cryptg.py
fi

# ---- 5. PyPy: the cpyext wheel, every file, light
if [ -z "$pypy_pid" ]; then
    missing "the suite on PyPy" "sudo apt-get install pypy3 pypy3-dev libssl-dev"
elif check "PyPy: fresh venv with the pinned test dependencies ($PIN_CRYPTG_PYPY)" \
    wait_for "$pypy_pid" "$work/venv-pypy.log" &&
    check "PyPy: the pp wheel installed offline" install_wheel "$work/venv-pypy"; then
    # not there: test_leaks.py (CPython's tracemalloc and reference counts), test_free_threading.py
    # (no GIL to keep off), and the __buffer__ export test (Python classes export from 3.12; PyPy is 3.9)
    pytest_run "PyPy $(pypy3 -c 'import sys; print(sys.pypy_version_info[:3])' | tr -d '() ' | tr , .), light, every file" \
        "$work/venv-pypy/bin/python" TGFFI_LEVEL=light -- "$here" --ignore="$here/test_leaks.py" \
        --ignore="$here/test_free_threading.py" -k "not failing_export_propagates"
fi

echo
echo "Python suite: $(($(date +%s) - started)) s; artifacts in $dist"
[ -n "$skipped" ] && printf 'SKIPPED (missing tools; CI installs them):\n%s' "$skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
