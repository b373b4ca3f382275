#!/usr/bin/env bash
# get_cpython314.sh: CPython 3.14 (the GIL build) from Debian sid's binary packages, once
# per machine; prints the path of its python3.14.
#
# Debian's registry here serves sid's binary packages but not the interpreters' source
# packages (python3.13, python3.14 and pypy3 sources answer 404), and sid has no
# free-threaded build: so there is no 3.14t to be had, and 3.14 comes as Debian built it.
# sid's python3.14 needs sid's glibc (2.42+), so its packages and the runtime libraries it
# links are unpacked (dpkg-deb -x, nothing is installed into the system) into
#   ${TGFFI_PY_CACHE:-$HOME/.cache/tgcrypto-ffi/python}/3.14/VERSION/
# and the interpreter is pointed at that tree's loader and libraries (patchelf: the ELF
# interpreter and an RPATH, which the stdlib's extension modules resolve through too).
# apt runs with a private configuration under the cache (sid's index only; the system's
# sources are not touched). A finished tree carries .complete; anything else is redone.
# With TGFFI_PY_OFFLINE=1, or when sid cannot be reached, the newest cached tree is used.
set -euo pipefail
cache=${TGFFI_PY_CACHE:-$HOME/.cache/tgcrypto-ffi/python}
apt_dir=$cache/apt-sid
log() { echo "get_cpython314: $*" >&2; }

PKGS="python3.14-minimal libpython3.14-minimal libpython3.14-stdlib python3.14 python3.14-venv
 python3.14-dev libpython3.14-dev libpython3.14 python3-pip-whl python3-setuptools-whl
 libc6 libgcc-s1 libssl3t64 openssl-provider-legacy zlib1g libzstd1 libexpat1 libffi8 libbz2-1.0
 liblzma5 libsqlite3-0 libmpdec4 libuuid1 libncursesw6 libtinfo6 libreadline8t64 libdb5.3t64"

newest_cached() {
    local d best=
    for d in "$cache"/3.14/*/; do [ -e "$d.complete" ] && best=${d%/}; done
    [ -n "$best" ] && echo "$best"
}

apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::State::status=$apt_dir/status" -o "Dir::Cache=$apt_dir/cache"
    -o "APT::Architecture=amd64" -o "APT::Architectures=amd64" -o "APT::Sandbox::User=$(id -un)" -q)
sid_version() {
    mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
    : >"$apt_dir/status"
    cat >"$apt_dir/sources.list.d/sid.sources" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    apt-get "${apt_opts[@]}" update >&2 || return 1
    apt-cache "${apt_opts[@]}" policy python3.14-minimal | sed -n 's/^ *Candidate: //p'
}

unpack() { # VERSION
    local up=$1 root=$cache/3.14/$1 dl=$cache/3.14/debs-$1
    command -v patchelf >/dev/null || {
        [ "$(id -u)" -eq 0 ] || { log "patchelf is missing (apt-get install patchelf)"; return 1; }
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq patchelf >&2; }
    rm -rf "$root" "$dl" && mkdir -p "$root" "$dl"
    log "downloading Debian sid's python3.14 $up and its runtime libraries"
    # shellcheck disable=SC2086 # a list of packages
    (cd "$dl" && apt-get "${apt_opts[@]}" download $PKGS >&2)
    local deb
    for deb in "$dl"/*.deb; do dpkg-deb -x "$deb" "$root"; done
    local lib=$root/usr/lib/x86_64-linux-gnu
    [ -e "$lib/ld-linux-x86-64.so.2" ] || { log "no loader in $lib"; return 1; }
    patchelf --set-interpreter "$lib/ld-linux-x86-64.so.2" --force-rpath --set-rpath "$lib" "$root/usr/bin/python3.14"
    # Debian's ensurepip takes pip's wheel from WHEEL_PKG_DIR (/usr/share/python-wheels: this
    # system's own, older pip): the unpacked tree's instead
    sed -i "s|^_pkg_dir = sysconfig.get_config_var('WHEEL_PKG_DIR')\$|_pkg_dir = '$root/usr/share/python-wheels'|" \
        "$root/usr/lib/python3.14/ensurepip/__init__.py"
    grep -q "^_pkg_dir = '$root/" "$root/usr/lib/python3.14/ensurepip/__init__.py" || { log "ensurepip not patched"; return 1; }
    # Debian's pyconfig.h includes the multiarch one by <...>: give the header itself
    cp "$root/usr/include/x86_64-linux-gnu/python3.14/pyconfig.h" "$root/usr/include/python3.14/pyconfig.h"
    "$root/usr/bin/python3.14" -c 'import ssl, ctypes, zlib, lzma, bz2, sqlite3, decimal, hashlib, venv, ensurepip, sys
assert sys.version_info[:2] == (3, 14), sys.version' || { log "the unpacked python3.14 lacks a module"; return 1; }
    rm -rf "$dl"
    touch "$root/.complete"
    log "CPython $up unpacked into $root"
}

ver=
[ "${TGFFI_PY_OFFLINE:-}" = 1 ] || ver=$(sid_version) || { log "Debian sid unreachable: using the cache"; ver=; }
if [ -n "$ver" ] && [ "$ver" != "(none)" ]; then
    [ -e "$cache/3.14/$ver/.complete" ] || unpack "$ver"
    root=$cache/3.14/$ver
else
    root=$(newest_cached) || { log "no cached CPython 3.14 and no Debian sid"; exit 1; }
fi
echo "$root/usr/bin/python3.14"
