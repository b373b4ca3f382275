#!/usr/bin/env bash
# build_cpython.sh FLAVOR...: CPython 3.14 built from Debian's source package, once per machine.
#   FLAVOR: 3.14 (the plain build) or 3.14t (free-threaded, --disable-gil).
# Prints, one a line, the path of each flavor's python executable.
#
# The source is the upstream tarball (python3.14_X.Y.Z.orig.tar.xz) of the newest python3.14
# in Debian sid, fetched by apt's own source mechanism with a private configuration (a deb-src
# line for sid in the cache dir; the system's apt sources are not touched), so apt checks its
# hash against the signed Release file. Debian's patches are not applied: this is upstream CPython.
# Built without PGO/LTO (make -j2) and installed into
#   ${TGFFI_PY_CACHE:-$HOME/.cache/tgcrypto-ffi/python}/FLAVOR/X.Y.Z/
# which outlives fresh clones; a finished install carries .complete, anything else is rebuilt.
# With TGFFI_PY_OFFLINE=1 (or when apt cannot reach sid) the newest cached build is used.
# Build dependencies (Debian) are installed with apt-get when root or passwordless sudo.
set -euo pipefail
cache=${TGFFI_PY_CACHE:-$HOME/.cache/tgcrypto-ffi/python}
mkdir -p "$cache"
log() { echo "build_cpython: $*" >&2; }

newest_cached() { # FLAVOR: the newest complete install
    local d best=
    for d in "$cache/$1"/*/; do
        [ -e "$d.complete" ] && best=${d%/}
    done
    [ -n "$best" ] && echo "$best"
}

# The private apt configuration: sid's source index only, state and cache under $cache/apt.
apt_dir=$cache/apt
apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o "APT::Get::Only-Source=true" -o "APT::Sandbox::User=$(id -un)")
sid_version() { # the newest python3.14 source version in sid (e.g. 3.14.10-1)
    mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
    cat >"$apt_dir/sources.list.d/sid-src.sources" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    apt-get "${apt_opts[@]}" update -qq >&2 || return 1
    apt-cache "${apt_opts[@]}" showsrc python3.14 | sed -n 's/^Version: //p' | sort -V | tail -1
}

install_build_deps() {
    local need=() p
    for p in build-essential pkg-config libssl-dev zlib1g-dev libffi-dev libbz2-dev liblzma-dev \
        libsqlite3-dev libreadline-dev libncurses-dev uuid-dev xz-utils; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
    done
    [ ${#need[@]} -eq 0 ] && return 0
    local sudo_=
    [ "$(id -u)" -eq 0 ] || { sudo -n true 2>/dev/null && sudo_=sudo; } || {
        log "missing build dependencies: ${need[*]} (apt-get install them)"; return 1; }
    log "installing ${need[*]}"
    $sudo_ apt-get update -qq && $sudo_ env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${need[@]}" >&2
}

build() { # FLAVOR UPSTREAM_VERSION DEBIAN_VERSION
    local flavor=$1 up=$2 deb=$3 prefix=$cache/$1/$2
    local src=$cache/src/$up work=$cache/build/$flavor-$up
    if [ ! -e "$src/.unpacked" ]; then
        mkdir -p "$cache/src"
        local tarball=$cache/src/python3.14_$up.orig.tar.xz
        if [ ! -s "$tarball" ]; then
            log "fetching python3.14 $deb (Debian sid source package)"
            (cd "$cache/src" && apt-get "${apt_opts[@]}" source --download-only -qq "python3.14=$deb" >&2)
        fi
        rm -rf "$src" && mkdir -p "$src"
        tar -xJf "$tarball" -C "$src" --strip-components=1
        touch "$src/.unpacked"
    fi
    local extra=()
    [ "$flavor" = 3.14t ] && extra+=(--disable-gil)
    rm -rf "$work" "$prefix" && mkdir -p "$work"
    log "building CPython $up ($flavor) into $prefix; log: $work/build.log"
    local t=$SECONDS
    (cd "$work" && "$src/configure" --prefix="$prefix" --with-ensurepip=install "${extra[@]}" &&
        make -j2 && make install) >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; return 1; }
    local py=$prefix/bin/python3.14
    [ "$flavor" = 3.14t ] && py=$prefix/bin/python3.14t
    "$py" -c 'import ssl, ctypes, zlib, lzma, bz2, sqlite3, sys, sysconfig
ft = sysconfig.get_config_var("Py_GIL_DISABLED")
assert bool(ft) == (sys.argv[1] == "3.14t"), ft' "$flavor" || { log "$py lacks a module it needs"; return 1; }
    touch "$prefix/.complete"
    rm -rf "$work"
    log "CPython $up ($flavor) built in $((SECONDS - t)) s"
}

deb=
[ "${TGFFI_PY_OFFLINE:-}" = 1 ] || deb=$(sid_version) || { log "apt cannot reach Debian sid: using the cache"; deb=; }
for flavor in "$@"; do
    case $flavor in 3.14 | 3.14t) ;; *) log "unknown flavor $flavor (3.14 or 3.14t)"; exit 2 ;; esac
    if [ -n "$deb" ]; then
        up=${deb%-*}; up=${up#*:}
        if [ ! -e "$cache/$flavor/$up/.complete" ]; then
            install_build_deps
            build "$flavor" "$up" "$deb"
        fi
        prefix=$cache/$flavor/$up
    else
        prefix=$(newest_cached "$flavor") || { log "no cached CPython $flavor and no source"; exit 1; }
    fi
    if [ "$flavor" = 3.14t ]; then echo "$prefix/bin/python3.14t"; else echo "$prefix/bin/python3.14"; fi
done
