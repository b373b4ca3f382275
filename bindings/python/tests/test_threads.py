"""Threads: many threads calling every function at once get the
single-threaded answers; one context shared by threads is updated one call
at a time; an AuthKey closed while another thread uses it; and the GIL is
released for large inputs (another Python thread runs during the call)."""
import os
import sys
import sysconfig
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import tgcrypto_ffi
from tgcrypto_ffi import cryptg, tgcrypto

from conftest import cases
from test_lifetimes import gil_only_released_by_calls

FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def ctr_call(data, key, iv):
    state = bytearray([3])
    return tgcrypto.ctr256_encrypt(data, key, iv, state), bytes(iv), state[0]


def workload(rng, n):
    """n random calls (small and large) and their single-threaded results."""
    jobs = []
    auth = tgcrypto_ffi.AuthKey(os.urandom(256))
    for _ in range(n):
        size = rng.choice((16, 48, 4096, 16 * rng.randrange(1, 20000)))
        data, key, iv = os.urandom(size), os.urandom(32), os.urandom(32)
        kind = rng.randrange(7)
        if kind == 0:
            job = (tgcrypto.ige256_encrypt, data, key, iv)
        elif kind == 1:
            job = (tgcrypto.ige256_decrypt, data, key, iv)
        elif kind == 2:
            job = (ctr_call, data[:size - 5], key, bytearray(iv[:16]))
        elif kind == 3:
            job = (lambda d, k, i: (tgcrypto.cbc256_decrypt(d, k, i), bytes(i)), data, key, bytearray(iv[:16]))
        elif kind == 4:
            job = (cryptg.encrypt_ige, data, key, iv)
        elif kind == 5:
            job = (tgcrypto_ffi.sha256, data, key, iv)
        else:
            data = data if size >= 48 else os.urandom(48)
            plain = os.urandom(28) + (len(data) - 32).to_bytes(4, "little") + data[32:]
            job = (lambda p, pad: auth.decrypt_message(auth.encrypt_message(p, server=True, padding=pad)), plain,
                   os.urandom(16))
        fn, *args = job
        fresh = [bytearray(a) if isinstance(a, bytearray) else a for a in args]
        jobs.append((fn, args, fn(*fresh)))
    return jobs


def test_many_threads_get_single_threaded_answers(rng):
    jobs = workload(rng, cases(150))

    def run(order):
        bad = 0
        for i in order:
            fn, args, want = jobs[i]
            fresh = [bytearray(a) if isinstance(a, bytearray) else a for a in args]
            bad += fn(*fresh) != want
        return bad

    orders = [rng.sample(range(len(jobs)), len(jobs)) for _ in range(4)]
    with ThreadPoolExecutor(4) as pool:
        assert sum(pool.map(run, orders)) == 0


@pytest.mark.parametrize("chunk", [65536, 8 << 20])
def test_shared_ctr_context_updates_one_at_a_time(rng, chunk):
    # Two threads feed one CTRContext chunks of 64 KiB and 8 MiB (GIL
    # released; 8 MiB calls are long enough to overlap on two cores). Each
    # update must take one contiguous slice of the keystream: the XOR of each
    # output with its input is one of the expected slices, each used once.
    key, iv = os.urandom(32), os.urandom(16)
    per_thread = (cases(14) + 2) if chunk < 1 << 20 else 6
    total = chunk * per_thread * 2
    keystream = tgcrypto.ctr256_encrypt(bytes(total), key, bytearray(iv), bytearray(1))
    expected = sorted(keystream[i:i + chunk] for i in range(0, total, chunk))
    ctx = tgcrypto_ffi.CTRContext(key, iv)
    got, lock = [], threading.Lock()

    def feed():
        for _ in range(per_thread):
            data = os.urandom(chunk)
            out = ctx.update(data)
            ks = (int.from_bytes(out, "big") ^ int.from_bytes(data, "big")).to_bytes(chunk, "big")
            with lock:
                got.append(ks)

    threads = [threading.Thread(target=feed) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == expected
    end = (int.from_bytes(iv, "big") + total // 16) % 2**128
    assert ctx.position() == (end.to_bytes(16, "big"), 0)


def test_auth_key_closed_while_another_thread_encrypts():
    auth = tgcrypto_ffi.AuthKey(os.urandom(256))
    plain = os.urandom(28) + (8 << 20).to_bytes(4, "little") + os.urandom(8 << 20)
    pad = os.urandom(16)
    started, result = threading.Event(), {}

    def encrypt():
        started.set()
        result["packet"] = auth.encrypt_message(plain, padding=pad)

    t = threading.Thread(target=encrypt)
    t.start()
    started.wait()
    auth.close()  # the key is freed only when the running call is done
    t.join()
    assert auth.closed and len(result["packet"]) == 24 + len(plain) + 16
    try:
        auth.encrypt_message(plain[:32], padding=os.urandom(16))
        raise AssertionError("a closed AuthKey encrypted")
    except ValueError as e:
        assert str(e) == "AuthKey is closed"


def read_during(call, size):
    """Runs call(buf) on a bytearray `buf` of `size` bytes while another
    Python thread keeps writing a counter byte into its first and its last
    byte -- both in one slice assignment, so a GIL holder always sees them
    equal. call returns the bytes it read (recovered from its output). The C
    code reads the first byte at the start of the call and the last at the
    end: if the call holds the GIL the other thread cannot run in between, so
    the two are equal; if it releases it they differ (unless the counter
    happened to come round to the same value, 1 in 256). Returns (first, last)."""
    buf = bytearray(size)
    stop, ready = threading.Event(), threading.Event()

    def writer():
        n = 0
        ready.set()
        while not stop.is_set():
            n = (n + 1) & 255
            buf[0::size - 1] = bytes((n, n))  # indices 0 and size-1, one operation

    t = threading.Thread(target=writer)
    t.start()
    ready.wait()
    try:
        seen = call(buf)
    finally:
        stop.set()
        t.join()
    return seen[0], seen[-1]


def sized(measure, seconds=0.03):
    """A size (1..256 MiB, a multiple of 16) for which measure(size) runs about `seconds` here."""
    t = time.perf_counter()
    measure(1 << 20)
    per_mib = max(time.perf_counter() - t, 1e-6)
    return max(1, min(256, int(seconds / per_mib))) << 20


def test_gil_is_released_for_large_inputs():
    key, iv = os.urandom(32), os.urandom(32)

    def ige(buf):
        return tgcrypto.ige256_decrypt(tgcrypto.ige256_encrypt(buf, key, iv), key, iv)

    def cbc(buf):
        return tgcrypto.cbc256_decrypt(tgcrypto.cbc256_encrypt(buf, key, bytearray(16)), key, bytearray(16))

    def ctr(buf):
        out = tgcrypto.ctr256_encrypt(buf, key, bytearray(16), bytearray(1))
        return tgcrypto.ctr256_decrypt(out, key, bytearray(16), bytearray(1))

    def cryptg_ige(buf):
        return cryptg.decrypt_ige(cryptg.encrypt_ige(buf, key, iv), key, iv)

    def context(buf):
        return tgcrypto_ffi.IGEContext(key, iv, decrypt=True).update(tgcrypto_ffi.IGEContext(key, iv).update(buf))

    def ctr_context(buf):
        return tgcrypto_ffi.CTRContext(key, iv[:16]).update(tgcrypto_ffi.CTRContext(key, iv[:16]).update(buf))

    for name, fn in [("ige256_encrypt", ige), ("cbc256_encrypt", cbc), ("ctr256_encrypt", ctr),
                     ("encrypt_ige", cryptg_ige), ("IGEContext.update", context), ("CTRContext.update", ctr_context)]:
        size = sized(lambda n: fn(bytearray(n)))
        # The other thread must also get a CPU during the call: on a loaded
        # machine it may not, so try for up to 5 s (a call that holds the GIL
        # fails every try; the first one normally succeeds).
        deadline = time.monotonic() + 5
        while True:
            first, last = read_during(fn, size)
            if first != last or time.monotonic() > deadline:
                break
        assert first != last, name
    # the check itself: a call that holds the GIL (a plain copy) sees one counter value
    assert all(a == b for a, b in (read_during(bytes, 32 << 20) for _ in range(2)))


def test_default_padding_from_many_threads():
    # every packet, sealed with pool padding while other threads refill and
    # take from the pool (large ones without the GIL), opens again
    auth = tgcrypto_ffi.AuthKey(os.urandom(256))
    plains = [os.urandom(28) + (n - 32).to_bytes(4, "little") + os.urandom(n - 32)
              for n in (32, 36, 100, 4096, 65536) for _ in range(cases(40))]

    def seal(chunk):
        return [(p, auth.encrypt_message(p, server=True)) for p in chunk]

    with ThreadPoolExecutor(4) as pool:
        sealed = [x for part in pool.map(seal, [plains[i::4] for i in range(4)]) for x in part]
    assert len(sealed) == len(plains)
    for plain, packet in sealed:
        assert auth.decrypt_message(packet) == plain


@pytest.mark.parametrize("name", ["sha256", "sha1"])
def test_hashes_from_many_threads(name):
    # five threads hashing inputs above NOGIL_MIN (the digest object is made
    # after the GIL is taken back) and below it, each result checked
    import hashlib

    fn, ref = getattr(tgcrypto_ffi, name), getattr(hashlib, name)
    inputs = [os.urandom(n) for n in (0, 1, 64, 4095, 4096, 65536, 1 << 20)]
    want = [ref(x).digest() for x in inputs]

    def run(seed):
        bad = 0
        for i in range(300):
            j = (i * 7 + seed) % len(inputs)
            x = inputs[j]
            bad += fn(x[: len(x) // 2], x[len(x) // 2:]) != want[j]
        return bad

    with ThreadPoolExecutor(5) as pool:
        assert sum(pool.map(run, range(5))) == 0


def others_ran_during(call):
    """True when another Python thread ran while call() did. The switch
    interval is set to 1000 s, so a thread holding the GIL is never asked to
    give it up: the counter thread (which sleeps 0.1 ms between increments,
    without the GIL) can only take the GIL while the main thread releases it.
    A call that keeps the GIL therefore sees the counter unchanged, always; a
    call that releases it normally sees it move (a loaded machine may give
    the counter no CPU: the caller retries)."""
    count, stop, ready = [0], threading.Event(), threading.Event()

    def counter():
        ready.set()
        while not stop.is_set():
            count[0] += 1
            time.sleep(0.0001)

    t = threading.Thread(target=counter)
    with gil_only_released_by_calls():
        try:
            t.start()
            ready.wait()
            time.sleep(0.01)
            before = count[0]
            call()
            after = count[0]
        finally:
            stop.set()
            t.join()
    return after != before


def test_gil_is_released_by_messages_hashes_and_factorization():
    auth = tgcrypto_ffi.AuthKey(os.urandom(256))
    n = 1 << 22  # ~4 ms of work at 1 GB/s, far above NOGIL_MIN
    plain = os.urandom(28) + (n - 32).to_bytes(4, "little") + os.urandom(n - 32)
    packet = auth.encrypt_message(plain, server=True)
    big = os.urandom(1 << 24)
    key, iv = os.urandom(32), os.urandom(32)
    # products of two primes near 2^31 (the slow end of Pollard-Brent)
    pq = 2147483647 * 2147483629
    calls = [
        ("AuthKey.encrypt_message", lambda: auth.encrypt_message(plain)),
        ("AuthKey.decrypt_message", lambda: auth.decrypt_message(packet)),
        ("sha256", lambda: tgcrypto_ffi.sha256(big)),
        ("sha1", lambda: tgcrypto_ffi.sha1(big)),
        ("sha256 of parts", lambda: tgcrypto_ffi.sha256(big, b"x")),  # the parts' total decides
        ("encrypt_ige", lambda: cryptg.encrypt_ige(big, key, iv)),
        ("factorize_pq_pair", lambda: [cryptg.factorize_pq_pair(pq) for _ in range(20)]),
    ]
    for name, call in calls:
        deadline = time.monotonic() + 5
        while not others_ran_during(call):
            assert time.monotonic() < deadline, name + " kept the GIL"
    # the check itself: a call that keeps the GIL never lets the counter move
    # (on CPython with a GIL; PyPy's GIL may not follow the switch interval)
    if not FREE_THREADED and sys.implementation.name != "pypy":
        assert not any(others_ran_during(lambda: bytes(big) * 4) for _ in range(3))
