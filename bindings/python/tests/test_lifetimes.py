"""Lifetimes across threads: an AuthKey or a context closed while another
thread's call (GIL released) uses it, double close and use after close, and
argument buffers held for exactly as long as C uses them (a bytearray
resized by another thread during a call is refused with BufferError)."""
import os
import sys
import sysconfig
import threading
import time

import pytest

import tgcrypto_ffi
from tgcrypto_ffi import cryptg, tgcrypto

FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
PYPY = sys.implementation.name == "pypy"
K = os.urandom(32)
IV32 = os.urandom(32)


def message(n):
    return os.urandom(28) + (n - 32).to_bytes(4, "little") + os.urandom(n - 32)


class gil_only_released_by_calls:
    """With the switch interval at 1000 s no thread is made to give up the GIL:
    a thread waiting for it gets it only when the holder blocks or a C call
    releases it. So close() below, once started.wait() returns, runs while
    the other thread is inside its GIL-free call (or after a short call
    ended), never between started.set() and the call."""

    def __enter__(self):
        self.old = sys.getswitchinterval()
        sys.setswitchinterval(1000)

    def __exit__(self, *exc):
        sys.setswitchinterval(self.old)


def race_close(call, close, tries=6):
    """Runs call() in a thread and close() as soon as it started; returns the
    call's results (one per try; a call that found the object closed gives None)."""
    results = []
    for _ in range(tries):
        with gil_only_released_by_calls():
            results.append(race_once(call, close, 0.0005 * len(results)))
    return results


def race_once(call, close, delay):
    """One race of race_close: the call in a thread, close() once it started."""
    started, out = threading.Event(), {}

    def run():
        started.set()
        try:
            out["value"] = call()
        except ValueError as e:
            out["value"] = None
            out["error"] = str(e)
        out["ended"] = time.perf_counter()

    t = threading.Thread(target=run)
    t.start()
    started.wait()
    time.sleep(delay)  # land at different points of the call
    close()
    out["closed"] = time.perf_counter()
    t.join()
    return out


def test_auth_key_closed_during_encrypt_and_decrypt_gives_the_right_bytes():
    secret = os.urandom(256)
    plain, pad = message(16 << 20), os.urandom(16)
    reference = tgcrypto_ffi.AuthKey(secret)
    want = reference.encrypt_message(plain, padding=pad)
    assert reference.decrypt_message(want, server=True) == plain
    for direction in ("encrypt", "decrypt"):
        keys = []

        def call():
            k = keys[-1]
            if direction == "encrypt":
                return k.encrypt_message(plain, padding=pad)
            return k.decrypt_message(want, server=True)

        def close():
            keys[-1].close()
            keys[-1].close()  # twice: idempotent

        results = []
        for _ in range(4):
            keys.append(tgcrypto_ffi.AuthKey(secret))
            results += race_close(call, close, tries=1)
        for out in results:
            if out["value"] is None:
                assert out["error"] == "AuthKey is closed"
            else:  # a call that started before close() finishes on the intact key
                assert out["value"] == (want if direction == "encrypt" else plain)
        assert any(out["value"] is not None for out in results), "close() always won: nothing was tested"
        for k in keys:
            assert k.closed
            with pytest.raises(ValueError, match="^AuthKey is closed$"):
                k.encrypt_message(plain[:32], padding=pad[:12] + bytes(4))
            with pytest.raises(ValueError, match="^AuthKey is closed$"):
                with k:
                    pass


@pytest.mark.parametrize("kind", ["CTR", "IGE", "CBC"])
def test_context_closed_during_update(kind):
    data = os.urandom(16 << 20)
    iv = IV32 if kind == "IGE" else IV32[:16]
    cls = getattr(tgcrypto_ffi, f"{kind}Context")
    want = cls(K, iv).update(data)
    ctxs = []

    def call():
        return ctxs[-1].update(data)

    results = []
    for _ in range(4):
        ctxs.append(cls(K, iv))
        results += race_close(call, lambda: ctxs[-1].close(), tries=1)
    for out in results:
        assert out["value"] == want if out["value"] is not None else out["error"] == f"{kind}Context is closed"
    # close() came while the update ran without the GIL: it waited for the update to end
    # (PyPy's GIL may not follow the switch interval, and free-threaded builds have none)
    if not (FREE_THREADED or PYPY):
        assert any(out["value"] is not None for out in results), "close() always won"
        # close() waited for the context's lock: it returned after the update did
        assert all(out["ended"] < out["closed"] for out in results if out["value"] is not None)
    for c in ctxs:
        assert c.closed
        with pytest.raises(ValueError, match=f"^{kind}Context is closed$"):
            c.update(data[:16])
        c.close()  # again: nothing happens
        with pytest.raises(ValueError, match=f"^{kind}Context is closed$"):
            with c:
                pass


def test_position_waits_for_a_running_update():
    # position() while another thread's update runs without the GIL waits for
    # the context's lock, and reports the position after that update
    data = os.urandom(16 << 20)
    ctx, seen = tgcrypto_ffi.CTRContext(K, IV32[:16]), []
    with gil_only_released_by_calls():
        out = race_once(lambda: ctx.update(data), lambda: seen.append(ctx.position()), 0)
    assert out["value"] == tgcrypto_ffi.CTRContext(K, IV32[:16]).update(data)
    end = ((int.from_bytes(IV32[:16], "big") + len(data) // 16) % 2**128).to_bytes(16, "big")
    # without the switch-interval guarantee position() may also come before the update
    allowed = [(end, 0)] if not (FREE_THREADED or PYPY) else [(end, 0), (IV32[:16], 0)]
    assert len(seen) == 1 and seen[0] in allowed


RESIZE_CALLS = {
    "ige256_encrypt": lambda b: tgcrypto.ige256_encrypt(b, K, IV32),
    "cbc256_decrypt": lambda b: tgcrypto.cbc256_decrypt(b, K, bytearray(16)),
    "ctr256_encrypt": lambda b: tgcrypto.ctr256_encrypt(b, K, bytearray(16), bytearray(1)),
    "encrypt_ige": lambda b: cryptg.encrypt_ige(b, K, IV32),
    "sha256": lambda b: tgcrypto_ffi.sha256(b"x", b),
    "IGEContext.update": lambda b: tgcrypto_ffi.IGEContext(K, IV32).update(b),
    "encrypt_message": lambda b: tgcrypto_ffi.AuthKey(bytes(256)).encrypt_message(b, padding=bytes(16)),
}


@pytest.mark.parametrize("name", sorted(RESIZE_CALLS))
def test_bytearray_resized_during_a_gil_free_call_is_refused(name):
    call = RESIZE_CALLS[name]
    original = bytearray(message(8 << 20))
    want = call(bytes(original))
    deadline = time.monotonic() + 10
    while True:
        buf = bytearray(original)
        calling, done, refused, grew = threading.Event(), threading.Event(), [0], [0]

        def resize():
            # growing by 1 MiB makes realloc move (or unmap) the old block: were it
            # released too early, the call would read freed memory
            calling.wait()  # with the GIL, runs once the call released it
            while not done.is_set():
                try:
                    buf.extend(bytes(1 << 20))
                    del buf[len(original):]
                    grew[0] += 1
                except BufferError:
                    refused[0] += 1

        t = threading.Thread(target=resize)
        t.start()
        try:
            calling.set()
            got = call(buf)
        finally:
            done.set()
            t.join()
        if got != want:
            # only a free-threaded build lets the other thread grow the buffer
            # before the call exported it; with a GIL it waits for the call
            assert FREE_THREADED and grew[0] > 0, "the call read a buffer another thread resized"
        elif refused[0] or (PYPY and grew[0]):
            # PyPy's cpyext exports a bytearray as a copy: resizing it is allowed, and the
            # call read the original bytes while the other thread did
            break
        assert time.monotonic() < deadline, "the resizing thread never ran during the call"
    assert buf == original


@pytest.mark.parametrize("kind", ["CTR", "IGE", "CBC"])
def test_a_closed_context_refuses_an_empty_update_too(kind):
    c = getattr(tgcrypto_ffi, f"{kind}Context")(K, IV32 if kind == "IGE" else IV32[:16])
    assert c.update(b"") == b""
    c.close()
    with pytest.raises(ValueError, match=f"^{kind}Context is closed$"):
        c.update(b"")



def test_the_module_keeps_its_own_reference_to_the_security_error():
    # The extension raises MtprotoSecurityError through a C pointer, so it
    # must own a reference of its own besides the module attribute: one more
    # than every object the garbage collector can see holding it.
    import gc
    from tgcrypto_ffi import _native

    # (no local name for the class, not even pytest's assert temporaries: a
    # running frame holds what it names without being seen)
    # (CPython's reference counts only: PyPy has none, and 3.14t defers those of types)
    if not (PYPY or FREE_THREADED):
        seen = len(gc.get_referrers(_native.MtprotoSecurityError))
        unseen = sys.getrefcount(_native.MtprotoSecurityError) - 1 - seen
        assert unseen >= 1
    with pytest.raises(_native.MtprotoSecurityError, match="^MTProto message rejected$"):
        tgcrypto_ffi.AuthKey(bytes(256)).decrypt_message(bytes(72))
