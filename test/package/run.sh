#!/usr/bin/env bash
# The npm packages as a user gets them, offline:
#   1. `npm run pack:all` stages and packs the main + 8 platform packages;
#      contents.mjs checks what each tarball holds;
#      types/run.sh type-checks consumer projects against the staged package;
#   2. the main tarball and this platform's tarball are installed into an
#      empty project with `npm install --offline` (the other platforms'
#      optional dependencies are omitted: they are not in any cache);
#   3. check.ts (FIPS-197 known answer, IGE round trip, the tgcrypto-ffi/gramjs
#      and tgcrypto-ffi/mtcute subpaths without the clients installed) runs there under Bun,
#      under Deno (bare "tgcrypto-ffi" from node_modules, and "npm:tgcrypto-ffi"),
#      with no TGCRYPTO_* variables, and must load the library from the
#      platform package in node_modules;
#   4. under Node.js 22, 24 and 26 (node_modules/node<N> of the repo): check.ts
#      as check.mts (import, through Node's type stripping) and check.cjs (require() of the
#      main entry and both subpaths, the same module instances as import()),
#      loading tgcrypto.node from the platform package, with no warning;
#   5. `bun build --compile` of check.ts runs from another empty directory
#      after node_modules is deleted: the library must be embedded; a plain
#      `bun build` bundle of it, run from there too, must load the library
#      Bun copied beside the bundle;
#   6. with NODE_ARM64 set (a command running arm64 Node, e.g. under QEMU):
#      the linux-arm64-gnu tarballs in another empty project, check.ts and
#      check.cjs on armce, neon and soft.
# Prints "N passed, N failed" last; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
bun=$repo/node_modules/.bin/bun
deno=$repo/node_modules/.bin/deno
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

# check NAME [EXPECTED...] -- COMMAND...: one test. It passes when COMMAND
# succeeds and its output contains every EXPECTED string (and none of those
# written !TEXT).
check() {
    local name=$1 want=() text ok=1; shift
    while [ "$1" != -- ]; do want+=("$1"); shift; done; shift
    echo "== $name"
    "$@" >"$work/out" 2>&1 || ok=0
    cat "$work/out"
    for text in "${want[@]}"; do
        if [[ $text == '!'* ]]; then
            if grep -qF -- "${text:1}" "$work/out"; then echo "unexpected in the output: ${text:1}"; ok=0; fi
        else
            grep -qF -- "$text" "$work/out" || { echo "missing in the output: $text"; ok=0; }
        fi
    done
    if [ $ok = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $name"; fi
}

# No overrides, no dev build: only the installed package may be found.
unset TGCRYPTO_LIB TGCRYPTO_LIBC TGCRYPTO_BACKEND
# The platform package this machine needs, named like `zig build dist` does.
platform=$(node -p 'const { platform, arch } = process;
    platform + "-" + arch + (platform !== "linux" ? "" : process.report.getReport().header.glibcVersionRuntime ? "-gnu" : "-musl")')
version=$(node -p 'require("./package.json").version')
tarballs=$repo/zig-out/npm/tarballs

check "pack every package (npm run pack:all)" -- npm run --silent pack:all
check "tarball contents" -- node test/package/contents.mjs "$tarballs" "$version"
check "types: lib es2022 only; node10, node16, nodenext, bundler; .ts, .mts, .cts (test/package/types/run.sh)" \
    "5 passed, 0 failed" -- bash test/package/types/run.sh "$repo/zig-out/npm/tgcrypto-ffi"

# An empty project, its own npm cache and a dead registry: npm cannot fetch anything.
project=$work/project
mkdir -p "$project"
cp "$tarballs/tgcrypto-ffi-$version.tgz" "$tarballs/tgcrypto-ffi-$platform-$version.tgz" test/package/check.ts test/package/check.cjs "$project/"
echo '{ "nodeModulesDir": "manual" }' >"$project/deno.json" # Deno: use npm's node_modules, install nothing
# Node: the same check as an .mts (always an ES module: the project's package.json has no "type")
cp test/package/check.ts "$project/check.mts"
sed -e 's/from "tgcrypto-ffi"/from "npm:tgcrypto-ffi"/' -e 's/from "tgcrypto-ffi\//from "npm:tgcrypto-ffi\//' \
    test/package/check.ts >"$project/check_npm.ts"
cd "$project" || exit 1
check "npm install --offline (main + $platform)" -- bash -c '
    npm install --offline --omit=optional --no-audit --no-fund --ignore-scripts \
        --cache "$1/npm-cache" --registry http://127.0.0.1:9/ ./tgcrypto-ffi-"$3".tgz ./tgcrypto-ffi-"$2-$3".tgz &&
    ls node_modules && [ "$(ls node_modules | tr "\n" " ")" = "tgcrypto-ffi tgcrypto-ffi-$2 " ]' _ "$work" "$platform" "$version"

loaded_from="library: $project/node_modules/tgcrypto-ffi-$platform/"
export DENO_DIR=$work/deno-dir DENO_NO_UPDATE_CHECK=1 # an empty cache, and --cached-only: no downloads
check "bun: import \"tgcrypto-ffi\"" "$loaded_from" "check ok" -- "$bun" --no-install check.ts
check "deno: import \"tgcrypto-ffi\" (node_modules)" "$loaded_from" "check ok" -- \
    "$deno" run --cached-only --allow-ffi --allow-read --allow-env check.ts
check "deno: import \"npm:tgcrypto-ffi\"" "$loaded_from" "check ok" -- \
    "$deno" run --cached-only --allow-ffi --allow-read --allow-env check_npm.ts
check "deno: only --allow-ffi" "$loaded_from" "check ok" -- "$deno" run --cached-only --allow-ffi check.ts
# Node.js: the addon from the same platform package, import and require, every supported line
# (NODE_LINES: the lines installed in the repo's node_modules; test.sh narrows it only where npm skipped them).
for line in ${NODE_LINES-22 24 26}; do
    node_bin=$repo/node_modules/node$line/bin/node
    check "node $line: import \"tgcrypto-ffi\" (check.mts)" "library: $project/node_modules/tgcrypto-ffi-$platform/tgcrypto.node" \
        "subpaths ok" "check ok" "!Warning" -- "$node_bin" check.mts
    check "node $line: require(\"tgcrypto-ffi\") and both subpaths (check.cjs)" \
        "require: library: $project/node_modules/tgcrypto-ffi-$platform/tgcrypto.node" "one module instance" "check.cjs ok" \
        "!Warning" -- "$node_bin" check.cjs
done

# Forcing the other C library must look for the other package and say so.
if [[ $platform == linux-* ]]; then
    if [[ $platform == *-gnu ]]; then libc=musl other=${platform%-gnu}-musl; else libc=glibc other=${platform%-musl}-gnu; fi
    check "TGCRYPTO_LIBC=$libc: clear error naming tgcrypto-ffi-$other" \
        "detected platform: $other" "tgcrypto-ffi-$other (platform package): not installed" \
        "TGCRYPTO_LIBC=musl or glibc (now $libc)" "set TGCRYPTO_LIB to the path" -- \
        bash -c '! TGCRYPTO_LIBC=$1 "$2" --no-install check.ts' _ "$libc" "$bun"
fi

check "bun build --compile" -- "$bun" build --compile check.ts --outfile "$work/check-bin"
# A plain bundle: Bun copies the library beside it; the bundle must find it there, whatever the cwd.
check "bun build (plain bundle)" -- "$bun" build check.ts --target bun --outdir "$work/bundle"
rm -rf node_modules
mkdir -p "$work/elsewhere" && cd "$work/elsewhere" || exit 1
check "compiled executable, node_modules deleted, run elsewhere" 'library: /$bunfs/' "check ok" -- "$work/check-bin"
check "plain bundle, node_modules deleted, run elsewhere" "library: $work/bundle/libtgcrypto" "check ok" -- \
    "$bun" --no-install "$work/bundle/check.js"

# arm64 Node (under QEMU here): the arm64 packages, installed the same way into another empty project.
if [ -n "${NODE_ARM64:-}" ]; then
    arm=$work/project-arm64
    mkdir -p "$arm"
    cp "$tarballs/tgcrypto-ffi-$version.tgz" "$tarballs/tgcrypto-ffi-linux-arm64-gnu-$version.tgz" \
        "$repo/test/package/check.cjs" "$arm/"
    cp "$repo/test/package/check.ts" "$arm/check.mts"
    cd "$arm" || exit 1
    check "npm install --offline --cpu=arm64 --force (main + linux-arm64-gnu: npm refuses another CPU's package without --force)" -- bash -c '
        npm install --offline --omit=optional --no-audit --no-fund --ignore-scripts --cpu=arm64 --force \
            --cache "$1/npm-cache-arm64" --registry http://127.0.0.1:9/ ./tgcrypto-ffi-"$2".tgz ./tgcrypto-ffi-linux-arm64-gnu-"$2".tgz' _ "$work" "$version"
    for backend in armce neon soft; do
        # shellcheck disable=SC2086 # NODE_ARM64 is a command line
        check "node arm64 ($NODE_ARM64), $backend: import and require" \
            "library: $arm/node_modules/tgcrypto-ffi-linux-arm64-gnu/tgcrypto.node" "backend: $backend" "check ok" \
            "backend $backend, node" "one module instance" "check.cjs ok" -- \
            bash -c 'TGCRYPTO_BACKEND=$1 $2 check.mts && TGCRYPTO_BACKEND=$1 $2 check.cjs' _ "$backend" "$NODE_ARM64"
    done
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
