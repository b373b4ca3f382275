"""Leaks: every buffer argument is released on every path (its reference
count comes back), Python memory (tracemalloc) stays flat over 10**6 calls,
including those that draw os.urandom, and native memory (RSS) stays flat
while contexts, AuthKeys and the temporary buffers of padded or joined
inputs are made and dropped."""
import ctypes
import gc
import os
import sys
import tracemalloc

import pytest

import tgcrypto_ffi
from tgcrypto_ffi import cryptg, tgcrypto

from conftest import cases
from test_boundary import POSITIONS, IDS

K = bytes(range(32))
IV32 = bytes(range(100, 132))
IV16 = bytes(range(200, 216))


def refcounts(objs):
    return [sys.getrefcount(o) for o in objs]


@pytest.mark.parametrize("name,fn,good,index", POSITIONS, ids=IDS)
def test_every_argument_is_released_on_success_and_on_error(name, fn, good, index):
    good = [bytes(a) + b"" for a in good]  # objects of this test's own (not interned literals)
    bad = list(good)
    bad[index] = bytes(len(good[index]) + 1) if len(good[index]) != 1 else bytes(3)
    for args in (good, bad):
        before = refcounts(args)
        for _ in range(50):
            try:
                fn(*args)
            except (ValueError, tgcrypto_ffi.MtprotoSecurityError):
                pass
        assert refcounts(args) == before, args is bad and "error path" or "success path"


def test_in_place_iv_and_state_are_released():
    iv, state = bytearray(IV16), bytearray(1)
    before = refcounts([iv, state])
    for _ in range(100):
        tgcrypto.ctr256_encrypt(b"x" * 33, K, iv, state)
        tgcrypto.cbc256_encrypt(b"x" * 32, K, iv)
        with pytest.raises(ValueError):
            tgcrypto.ctr256_encrypt(b"x", K, iv, bytearray([99]))
    assert refcounts([iv, state]) == before


def block_growth(call, n):
    """Python memory blocks still allocated after n more calls (after a warm-up):
    sys.getallocatedblocks() costs nothing per call, so n can be 10**6."""
    for _ in range(n // 10):
        call()
    gc.collect()
    start = sys.getallocatedblocks()
    for _ in range(n):
        call()
    gc.collect()
    return sys.getallocatedblocks() - start


def traced_growth(call, n):
    """Bytes of Python memory (of any size) still allocated after n more calls."""
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(n // 10):
            call()
        gc.collect()
        start = tracemalloc.get_traced_memory()[0]
        for _ in range(n):
            call()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()


def fails(fn, *args):
    try:
        fn(*args)
    except TypeError:
        return
    raise AssertionError("no TypeError")


def test_python_memory_flat_over_a_million_calls():
    data16, key = os.urandom(16), tgcrypto_ffi.AuthKey(os.urandom(256))
    plain = os.urandom(28) + (4).to_bytes(4, "little") + os.urandom(4)
    iv, state = bytearray(IV16), bytearray(1)
    for call, n in [
        (lambda: tgcrypto.ige256_encrypt(data16, K, IV32), cases(10**6)),
        (lambda: tgcrypto.ctr256_encrypt(data16, K, iv, state), cases(2 * 10**5)),
        (lambda: cryptg.encrypt_ige(b"x" * 20, K, IV32), cases(2 * 10**5)),  # 12 bytes of os.urandom padding
        (lambda: tgcrypto_ffi.sha256(data16, data16), cases(2 * 10**5)),
        (lambda: tgcrypto_ffi.CTRContext(K, IV16).update(data16), cases(2 * 10**5)),
        (lambda: tgcrypto_ffi.AuthKey(K * 8), cases(10**5)),
        (lambda: key.encrypt_message([plain[:16], plain[16:]], padding=bytes(12)), cases(10**5)),  # list -> tuple
        (lambda: key.encrypt_message((plain[:16], plain[16:24], plain[24:]), padding=bytes(12)), cases(10**5)),
        # what the error paths and the small functions make: the type names in
        # TypeErrors, the index of pq (a fresh int each call), backends()' tuples
        (lambda: fails(cryptg.factorize_pq_pair, 1.5), cases(10**5)),
        (lambda: cryptg.factorize_pq_pair(101 * int("103")), cases(10**5)),
        (lambda: fails(cryptg.encrypt_ige, 5, K, IV32), cases(10**5)),
        (lambda: fails(tgcrypto_ffi.set_backend, 5), cases(10**5)),
        (lambda: tgcrypto_ffi.backends(), cases(10**5)),
    ]:
        assert block_growth(call, n) < 1000  # one leaked object per call would be n (light: 10**6 // 7)
    # the padding pool draws os.urandom(4096) every 128 messages: a larger block than the above counts
    assert traced_growth(lambda: key.encrypt_message(plain), 128 * cases(400)) < 64 * 1024


class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def native_bytes():
    """Bytes the C heap has handed out and not taken back: glibc's mallinfo2()
    (exact, as the C code's malloc/free see it), else the RSS from /proc."""
    try:
        libc = ctypes.CDLL(None)
        libc.mallinfo2.restype = MallInfo2
    except (OSError, AttributeError):
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    info = libc.mallinfo2()
    return info.uordblks + info.hblkhd


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="glibc mallinfo2 or /proc (Linux)")
def test_native_memory_flat():
    secret = os.urandom(256)
    plain = os.urandom(28) + (996).to_bytes(4, "little") + os.urandom(996)
    key = tgcrypto_ffi.AuthKey(secret)
    parts = [plain[:10], plain[10:40], plain[40:]]  # more than two parts: joined in a temporary
    packet = key.encrypt_message(plain, padding=bytes(12))
    calls = [
        lambda: tgcrypto_ffi.CTRContext(K, IV16).update(b"x"),
        lambda: tgcrypto_ffi.IGEContext(K, IV32).close(),
        lambda: tgcrypto_ffi.CBCContext(K, IV16, True),
        lambda: tgcrypto_ffi.AuthKey(secret),
        lambda: key.encrypt_message(parts, padding=bytes(12)),
        lambda: cryptg.encrypt_ige(plain[:1000], K, IV32),  # padded in a temporary
        lambda: key.decrypt_message(packet, server=True),  # the plaintext's temporary
    ]
    n = cases(100000)
    for call in calls:
        for _ in range(n // 5):
            call()
        gc.collect()
        before = native_bytes()
        for _ in range(n):
            call()
        gc.collect()
        # any malloc kept per call (glibc's smallest chunk is 32 bytes) would be >= 32 * n
        assert native_bytes() - before < 8 * n + (64 << 10)


def test_each_object_gives_back_its_reference_to_its_type():
    # a heap type is referenced by each of its instances; dealloc must drop it
    makers = {
        tgcrypto_ffi.CTRContext: lambda: tgcrypto_ffi.CTRContext(K, IV16),
        tgcrypto_ffi.IGEContext: lambda: tgcrypto_ffi.IGEContext(K, IV32),
        tgcrypto_ffi.CBCContext: lambda: tgcrypto_ffi.CBCContext(K, IV16, True),
        tgcrypto_ffi.AuthKey: lambda: tgcrypto_ffi.AuthKey(bytes(256)),
    }
    for cls, make in makers.items():
        make()
        gc.collect()
        before = sys.getrefcount(cls)
        for _ in range(200):
            obj = make()
            del obj
        gc.collect()
        assert sys.getrefcount(cls) == before, cls.__name__


def test_close_frees_the_key_at_once():
    # close() gives the native key back while the AuthKey object lives on
    keys = [tgcrypto_ffi.AuthKey(os.urandom(256)) for _ in range(2000)]
    for k in keys:  # each used first: every call must give its use of the key back
        k.encrypt_message(bytes(36), padding=bytes(12))
        with pytest.raises(tgcrypto_ffi.MtprotoSecurityError):
            k.decrypt_message(bytes(72))
        k.decrypt_message(k.encrypt_message(bytes(36), padding=bytes(12), server=True))
    gc.collect()
    before = native_bytes()
    for k in keys:
        k.close()
    assert before - native_bytes() >= 2000 * 256  # each native key is >= 264 bytes


RACES = 600


def test_key_closed_during_a_call_is_freed_by_that_call():
    import threading

    secret = os.urandom(256)
    plain = os.urandom(28) + ((64 << 10) - 32).to_bytes(4, "little") + os.urandom((64 << 10) - 32)
    pad = bytes(16)
    tgcrypto_ffi.AuthKey(secret).encrypt_message(plain, padding=pad)  # warm up
    gc.collect()
    keys = []
    before = native_bytes()
    for _ in range(RACES):
        k = tgcrypto_ffi.AuthKey(secret)
        keys.append(k)  # kept alive: only close() or the last call may free the native key
        started = threading.Event()
        t = threading.Thread(target=lambda: (started.set(), k.encrypt_message(plain, padding=pad)))
        t.start()
        started.wait()  # the GIL comes back here once the call runs without it
        k.close()
        t.join()
    gc.collect()
    # every native key is back, whether close() or the running call freed it
    # (one kept per call that close() landed in would be >= 264 bytes each:
    # 600 races, ~158 KB; the bound leaves room for the threads' own malloc
    # arenas, which measured up to 16.4 KB over 200 races)
    assert native_bytes() - before < 64 << 10
    assert all(k.closed for k in keys)
