"""Threads: the same total work done by 1 thread and by 2 threads (wall time), for
1 KiB MTProto messages (AuthKey.encrypt_message + decrypt_message, one AuthKey per
thread and one shared) and 16 KiB AES-256-IGE (one-shot). speedup = t(1 thread) /
t(2 threads); 2.0 is perfect scaling on 2 free cores.

    python bench/python/threads.py [--quick]

On a free-threaded CPython (3.13t/3.14t, the GIL off: the module declares
Py_MOD_GIL_NOT_USED) every case may scale. On a GIL build only the calls that release
the GIL do: inputs of tgcrypto_ffi._native.NOGIL_MIN bytes or more (16 KiB IGE); a 1 KiB
message holds it. Run it on both to see the difference. Every thread's outputs are checked
against a single-thread reference before timing.
"""
import argparse
import os
import platform
import struct
import sys
import sysconfig
import threading
import time

import tgcrypto_ffi
from tgcrypto_ffi import _native
from tgcrypto_ffi import tgcrypto


def run_threads(nthreads, work, total):
    """Wall time of `total` calls of work(i) split over nthreads threads, started together."""
    per = total // nthreads
    barrier = threading.Barrier(nthreads + 1)

    def body(i):
        barrier.wait()
        for _ in range(per):
            work(i)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(nthreads)]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    return time.perf_counter() - t0


def best(nthreads, work, total, rounds):
    return min(run_threads(nthreads, work, total) for _ in range(rounds))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rounds = 3 if args.quick else 7
    scale = 1 if args.quick else 5

    gil = sys._is_gil_enabled() if hasattr(sys, "_is_gil_enabled") else True
    print(f"{platform.python_implementation()} {sys.version.split()[0]}"
          f"{' free-threaded' if sysconfig.get_config_var('Py_GIL_DISABLED') else ''}, GIL {'on' if gil else 'off'}, "
          f"{os.cpu_count()} CPUs, backend {tgcrypto_ffi.get_backend()}, NOGIL_MIN {_native.NOGIL_MIN}")

    raw_key = os.urandom(256)
    shared = tgcrypto_ffi.AuthKey(raw_key)
    own = [tgcrypto_ffi.AuthKey(raw_key), tgcrypto_ffi.AuthKey(raw_key)]
    body = os.urandom(1024 - 32)
    plain = struct.pack("<qqqii", 1, 2, int(time.time()) << 32, 1, len(body)) + body
    padding = os.urandom(16)
    want = shared.encrypt_message(plain, padding=padding)

    def message(key):
        packet = key.encrypt_message(plain, padding=padding)
        if key.decrypt_message(packet, server=True) != plain:
            raise AssertionError("message round trip")
        return packet

    k, iv = os.urandom(32), os.urandom(32)
    data = os.urandom(16384)
    ige_want = tgcrypto.ige256_encrypt(data, k, iv)

    def ige(_):
        if tgcrypto.ige256_encrypt(data, k, iv) is None:
            raise AssertionError

    cases = [
        ("1 KiB message, an AuthKey per thread", lambda i: message(own[i]), 4000 * scale),
        ("1 KiB message, one shared AuthKey", lambda i: message(shared), 4000 * scale),
        ("16 KiB IGE encrypt", ige, 1000 * scale),
    ]
    # correctness first: every thread's result equals the single-thread one
    results = []
    checks = [threading.Thread(target=lambda: results.append((message(own[0]), message(shared),
                                                             tgcrypto.ige256_encrypt(data, k, iv))))
              for _ in range(2)]
    for t in checks:
        t.start()
    for t in checks:
        t.join()
    assert results == [(want, want, ige_want)] * 2, "a thread's output differs"

    print(f"{'case':40} {'calls':>6} {'1 thread':>10} {'2 threads':>10} {'speedup':>8}")
    for name, work, total in cases:
        t1 = best(1, work, total, rounds)
        t2 = best(2, work, total, rounds)
        print(f"{name:40} {total:6d} {t1 * 1e3:8.1f} ms {t2 * 1e3:8.1f} ms {t1 / t2:7.2f}x")


if __name__ == "__main__":
    main()
