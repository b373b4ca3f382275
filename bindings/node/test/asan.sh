#!/usr/bin/env bash
# The Node addon's tests against an AddressSanitizer + UBSan build of the
# addon (bindings/node/addon.c and the C core, built with clang), in Node 26
# with the ASan runtime preloaded: a read or write past a buffer, a use after
# free or a double free in the addon or the core aborts the test process
# even where the plain build would not crash.
#
#   bash bindings/node/test/asan.sh            build, then run the addon tests
#   bash bindings/node/test/asan.sh --build    only build (prints the path)
#
# LeakSanitizer is off (Node itself keeps allocations to its exit); the
# finalizers' frees are measured by the heap probe in the plain build
# instead (mallinfo2 says nothing once ASan replaces malloc, so
# addon_lifetime.test.ts skips it when TG_ADDON_ASAN=1).
set -euo pipefail
cd "$(dirname "$0")/../../.."

cc=${SANITIZE_CC:-clang}
runtime=$("$cc" -print-file-name=libclang_rt.asan-x86_64.so)
if [ ! -f "$runtime" ]; then echo "asan.sh: no libclang_rt.asan-x86_64.so for $cc" >&2; exit 1; fi
# TG_ADDON_ASAN_DIR: where the build goes (default: a new temporary
# directory). The core's objects are kept there and rebuilt only when a
# source is newer, so a rebuild after a change to addon.c compiles addon.c.
out=${TG_ADDON_ASAN_DIR:-$(mktemp -d)}
mkdir -p "$out/obj"
flags=(-std=c11 -O1 -g -fPIC -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
       -DTG_API= -DTG_ASAN=1 -fvisibility=hidden -Wall -Wextra -Werror -Icsrc -isystem node_modules/node-api-headers/include)
objects=()
for src in csrc/*.c bindings/node/addon.c; do
    obj="$out/obj/$(basename "$src" .c).o"
    if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find csrc -name '*.h' -newer "$obj" | head -1)" ]; then
        "$cc" "${flags[@]}" -c "$src" -o "$obj"
    fi
    objects+=("$obj")
done
"$cc" -shared -fsanitize=address,undefined -shared-libasan "${objects[@]}" -Wl,--unresolved-symbols=ignore-all \
    -o "$out/tgcrypto.node"
if [ "${1:-}" = --build ]; then echo "$out/tgcrypto.node"; exit 0; fi

export TGCRYPTO_ADDON="$out/tgcrypto.node" TG_ADDON_ASAN=1
export LD_PRELOAD="$runtime"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1"
# Every addon test but the ones about locating the addon (TGCRYPTO_ADDON points here instead).
./node_modules/node26/bin/node ./node_modules/vitest/vitest.mjs run test/runtime/addon -t '^(?!.*locating the addon)'
