#!/usr/bin/env bash
# Reproducible release builds: `zig build dist` from two clean copies of this
# tree (different directories, fresh zig-out and local caches) must give
# bit-identical libraries and Node-API addons for every target (the copies
# have no node_modules/: the addon's headers come from this tree's), and each run's
# zig-out/dist/SHA256SUMS must verify its files and equal the other's.
#
#   test/reproducible.sh                 second build shares the global Zig cache
#   REPRO_COLD_CACHE=1 test/reproducible.sh
#                                        second build also gets an empty global
#                                        cache (rebuilds libc/compiler-rt: ~2 min CPU)
#   test/reproducible.sh --against zig-out/dist
#                                        one clean copy only, compared with a dist
#                                        this tree has just built (npm test does
#                                        this right after `zig build dist`: a
#                                        different directory and local cache all
#                                        the same, one build fewer)
# Prints "N passed, N failed" last.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
check() { # check NAME COMMAND...
    local name=$1; shift
    if "$@"; then passed=$((passed + 1)); echo "ok   $name"; else failed=$((failed + 1)); echo "FAIL $name"; fi
}

# The tree as a contributor has it: tracked and untracked-but-not-ignored
# files (so uncommitted edits are tested too); without git, everything but
# build outputs and installed tools.
copy_tree() {
    mkdir -p "$1"
    if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        (cd "$root" && git ls-files -z -co --exclude-standard |
            while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
            tar --null -T - -cf -) | tar -xf - -C "$1"
    else
        (cd "$root" && tar --exclude=./zig-out --exclude=./.zig-cache --exclude=./node_modules --exclude=./.tools -cf - .) | tar -xf - -C "$1"
    fi
}

sha256_check() { # verifies SHA256SUMS in the current directory
    if command -v sha256sum >/dev/null 2>&1; then sha256sum -c --quiet SHA256SUMS; else shasum -a 256 -c --quiet SHA256SUMS; fi
}

build() { # build DIR [GLOBAL_CACHE]
    copy_tree "$1"
    (cd "$1" && if [ -n "${2:-}" ]; then export ZIG_GLOBAL_CACHE_DIR=$2; fi
        "$root/scripts/zig" build dist -Dnode-api-headers="$root/node_modules/node-api-headers/include")
}

against=
if [ "${1:-}" = --against ]; then against=$(cd "$2" && pwd) || exit 1; fi
if [ -n "$against" ]; then
    a=$against
    echo "first build: $a (built by this tree)"
else
    check "dist build in $work/one" build "$work/one"
    a=$work/one/zig-out/dist
fi
cold=
if [ "${REPRO_COLD_CACHE:-}" = 1 ]; then cold="$work/global-cache"; fi
check "dist build in $work/two${cold:+ (empty global cache)}" build "$work/two" "$cold"

b=$work/two/zig-out/dist
for d in "$a" "$b"; do
    check "SHA256SUMS verifies in $d" bash -c "cd '$d' && $(declare -f sha256_check); sha256_check"
    # A tree's own zig-out/dist may keep files of earlier builds: only a clean copy's must hold nothing else.
    if [ "$d" = "$against" ]; then continue; fi
    check "SHA256SUMS lists every dist library ($d)" \
        bash -c "[ \"\$(find '$d' -type f ! -name SHA256SUMS | wc -l)\" -eq \"\$(wc -l <'$d/SHA256SUMS')\" ] && [ \"\$(wc -l <'$d/SHA256SUMS')\" -ge 16 ]"
done
check "SHA256SUMS identical in both builds" cmp "$a/SHA256SUMS" "$b/SHA256SUMS"
if [ -f "$a/SHA256SUMS" ]; then
    while read -r _ f; do
        check "$f bit-identical" cmp "$a/$f" "$b/$f"
    done <"$a/SHA256SUMS"
    cat "$a/SHA256SUMS"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
