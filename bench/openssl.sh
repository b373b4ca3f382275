#!/usr/bin/env bash
# OpenSSL's own AES-256 speed on this machine, to set next to the C-level
# numbers of `./scripts/zig build bench`:
#   openssl speed -evp aes-256-cbc            (CBC encrypt: serial, like IGE)
#   openssl speed -decrypt -evp aes-256-cbc   (CBC decrypt: parallel)
#   openssl speed -evp aes-256-ctr
# at 16 KiB and 1 MiB. Prints MB/s (10^6 B/s) and writes
# openssl.json in the results folder ($BENCH_RESULTS_DIR, else .tools/bench-results/). Skips (exit 0) when there is no openssl binary.
# openssl speed divides by its CPU (user) time, not wall time: on an idle
# machine the two agree; under load this favours OpenSSL.
# OPENSSL_SECONDS=N sets the time per measurement (default 1 s, the minimum).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v openssl >/dev/null 2>&1; then
    echo "openssl.sh: no openssl binary on PATH; skipped"
    exit 0
fi

seconds=${OPENSSL_SECONDS:-1}
sizes=(16384 1048576)
tests=("aes-256-cbc encrypt" "aes-256-cbc decrypt" "aes-256-ctr encrypt")
version=$(openssl version)
echo "$version; openssl speed -seconds $seconds; MB/s (10^6 B/s)"
printf '%-24s %12s %12s\n' "" "16 KiB" "1 MiB"

json_tests=""
for test in "${tests[@]}"; do
    read -r cipher direction <<<"$test"
    flags=()
    [ "$direction" = decrypt ] && flags+=(-decrypt)
    row=$(printf '%-24s' "$cipher $direction")
    json_sizes=""
    for size in "${sizes[@]}"; do
        # -mr: machine-readable; the "+F:<n>:<name>:<bytes per second>" line has the result.
        bps=$(openssl speed -mr -seconds "$seconds" -bytes "$size" "${flags[@]}" -evp "$cipher" 2>/dev/null |
            awk -F: '/^\+F:/ { print $4 }' | tail -1)
        mbps=$(awk -v b="${bps:-0}" 'BEGIN { printf "%.0f", b / 1e6 }')
        row+=$(printf ' %12s' "$mbps")
        json_sizes+="${json_sizes:+, }\"$size\": $mbps"
    done
    echo "$row"
    json_tests+="${json_tests:+,
    }\"$cipher-$direction\": { $json_sizes }"
done

out=${BENCH_RESULTS_DIR:-.tools/bench-results}
mkdir -p "$out"
cat >"$out/openssl.json" <<JSON
{
  "kind": "openssl",
  "version": "$version",
  "cpu": "$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown)",
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "seconds": $seconds,
  "mbPerSec": {
    $json_tests
  }
}
JSON
echo "wrote $out/openssl.json"
