"""Two builds of tgcrypto_ffi measured side by side: the 16 B IGE encrypt in
TgCrypto's shape (tgcrypto_ffi.tgcrypto.ige256_encrypt), each build in its own
interpreter (a venv with that build's wheel), alternating many short runs so
that both see the same machine load; prints the fastest per-call thread CPU
time of each.

    python bench/python/side_by_side.py BEFORE_PYTHON AFTER_PYTHON
"""
import subprocess
import sys

# Thread CPU time (CLOCK_THREAD_CPUTIME_ID, exact), not wall time: on a
# loaded machine the waits for a core would otherwise dominate.
CHILD = r"""
import time
from tgcrypto_ffi import tgcrypto
data, key, iv = bytes(16), bytes(32), bytes(32)
f = tgcrypto.ige256_encrypt
n = 100000
best = float("inf")
for _ in range(5):
    start = time.thread_time_ns()
    for _ in range(n):
        f(data, key, iv)
    best = min(best, (time.thread_time_ns() - start) / n)
print(best)
"""


def best_of(python):
    return float(subprocess.run([python, "-c", CHILD], check=True, capture_output=True, text=True).stdout)


def main():
    before, after = sys.argv[1:3]
    best = {before: float("inf"), after: float("inf")}
    for i in range(12):
        for python in (before, after) if i % 2 == 0 else (after, before):
            best[python] = min(best[python], best_of(python))
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"CPython {sys.version.split()[0]}, {cpu}: 16 B ige256_encrypt (tgcrypto shape)")
    print(f"  before ({before}): {best[before]:.1f} ns")
    print(f"  after  ({after}): {best[after]:.1f} ns  ({(best[after] / best[before] - 1) * 100:+.1f}%)")


if __name__ == "__main__":
    main()
