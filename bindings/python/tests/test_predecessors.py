"""The predecessors' defects, as regression tests. Each test first
shows the defect in the PyPI original (in a child process where it crashes,
corrupts the interpreter or hangs), so the check is known to be able to
fail, then asserts that tgcrypto_ffi does not have it.

Scaled down at TGFFI_LEVEL=light: the cryptg hang is demonstrated only at
the full level (it costs a 1 s timeout); tgcrypto_ffi's side always runs."""
import os
import signal
import subprocess
import sys
import time

import pytest

import tgcrypto_ffi
from tgcrypto_ffi import cryptg, tgcrypto

from conftest import LEVEL, PYPY
from reference import real_cipheron, real_cryptg, real_tgcrypto
from test_tgcrypto import big_view

K = bytes(32)

CORRUPT = r"""
import sys, importlib
mod = importlib.import_module(sys.argv[1])
iv = bytes(16)
mod.ctr256_encrypt(b"A" * 21, bytes(32), iv, b"\x00")
civ = bytes(range(16))
mod.cbc256_encrypt(b"a" * 16, bytes(32), civ)
print(bytes([0]).hex(), iv.hex(), civ.hex())
"""


def child(code, *args, timeout=60):
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout)


def test_read_only_state_and_iv_are_never_written():
    # TgCrypto writes the CTR state into the cached b"\x00" object, the
    # counter into an immutable iv, and the CBC chain into an immutable iv
    real = child(CORRUPT, "tgcrypto").stdout.split()
    if PYPY:  # cpyext hands TgCrypto a copy of an immutable bytes: nothing is corrupted there
        assert real == ["00", "00" * 16, bytes(range(16)).hex()]
    else:
        assert real[0] == "05" and real[1] == "00" * 15 + "01" and real[2] != bytes(range(16)).hex()
    ours = child(CORRUPT, "tgcrypto_ffi.tgcrypto").stdout.split()
    assert ours == ["00", "00" * 16, bytes(range(16)).hex()]


BIG = r"""
import mmap, sys, importlib
mod = importlib.import_module(sys.argv[1])
m = memoryview(mmap.mmap(-1, 2**32 + 16, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS))
try:
    out = mod.ige256_encrypt(m, bytes(32), bytes(32))
    print("returned", len(out))
except ValueError as e:
    print("ValueError", e)
"""


def test_lengths_of_2_to_the_32_are_rejected_not_truncated():
    real = child(BIG, "tgcrypto")  # TgCrypto truncates the length to 32 bits (and crashes here)
    assert real.returncode != 0 or "ValueError" not in real.stdout
    ours = child(BIG, "tgcrypto_ffi.tgcrypto")
    assert ours.returncode == 0 and ours.stdout.strip() == "ValueError Data is too large (max 4294967295 bytes)"


def test_unaligned_decrypt_raises_a_value_error():
    with pytest.raises(BaseException) as e:  # cryptg: a Rust panic, not an Exception
        real_cryptg.decrypt_ige(b"a" * 17, K, K)
    assert not isinstance(e.value, Exception) and "size % 16 == 0" in str(e.value)
    with pytest.raises(ValueError):
        cryptg.decrypt_ige(b"a" * 17, K, K)


@pytest.mark.parametrize("pq", [17, 15, 65537, 4294967291])
def test_factorize_never_panics(pq):
    # cryptg panics on small primes and on some small composites (15), and
    # gives up on primes only after its attempts
    with pytest.raises(BaseException) as e:
        real_cryptg.factorize_pq_pair(pq)
    assert not isinstance(e.value, Exception)
    if pq == 15:
        assert cryptg.factorize_pq_pair(15) == (3, 5)
    else:
        with pytest.raises(ValueError, match="0, 1 or a prime"):
            cryptg.factorize_pq_pair(pq)


HANG = "import sys, importlib; print(importlib.import_module(sys.argv[1]).factorize_pq_pair(int(sys.argv[2])))"


@pytest.mark.parametrize("pq", [1, 2**64 - 59])
def test_factorize_never_hangs(pq):
    if LEVEL == "full":  # cryptg hangs on 1 and on large primes
        with pytest.raises(subprocess.TimeoutExpired):
            child(HANG, "cryptg", str(pq), timeout=1.0)
    start = time.monotonic()
    with pytest.raises(ValueError, match="0, 1 or a prime"):
        cryptg.factorize_pq_pair(pq)
    assert time.monotonic() - start < 1.0  # not a speed claim: "returns at all", with a wide bound


def test_factorize_zero_raises():
    real = child(HANG, "cipheron", "0")  # cipheron divides by zero: SIGFPE kills the process
    assert real.returncode == -signal.SIGFPE
    assert real_cryptg.factorize_pq_pair(0) == (2, 0)  # cryptg: a wrong answer
    with pytest.raises(ValueError, match="^pq = 0 is 0, 1 or a prime: nothing to factorize$"):
        cryptg.factorize_pq_pair(0)


def test_factorize_out_of_range_raises():
    assert real_cipheron.factorize_pq_pair(2**64 + 1) == (1, 1)  # silently truncated to 1
    assert real_cipheron.factorize_pq_pair(17) == (1, 17)  # a "factorization" of a prime
    with pytest.raises(OverflowError):
        cryptg.factorize_pq_pair(2**64 + 1)
    with pytest.raises(OverflowError):
        cryptg.factorize_pq_pair(-15)


@pytest.mark.parametrize("args,msg", [
    ((b"", K, K), "Data must not be empty"),
    ((b"a" * 15, K, K), "Data size must match a multiple of 16 bytes"),
    ((b"a" * 16, b"", K), "Key size must be exactly 32 bytes"),
])
def test_messages_are_tgcryptos_not_cipherons(args, msg):
    # cipheron words them differently ("data must not be empty", ...), which
    # fails 22 of TgCrypto's own tests when it runs as tgcrypto
    with pytest.raises(ValueError) as real:
        real_cipheron.ige256_encrypt(*args)
    assert str(real.value) != msg
    with pytest.raises(ValueError) as ours:
        tgcrypto.ige256_encrypt(*args)
    assert str(ours.value) == msg


def test_cbc_chain_is_handed_back_unlike_cipheron():
    data = os.urandom(64)
    iv_c, iv_o = bytearray(16), bytearray(16)
    real_cipheron.cbc256_encrypt(data, K, iv_c)
    out = tgcrypto.cbc256_encrypt(data, K, iv_o)
    assert iv_c == bytes(16) and iv_o == out[-16:]


def test_wheel_installs_nothing_but_the_package():
    # TgCrypto's wheel installs a top-level `tests` package; ours only tgcrypto_ffi
    from importlib.metadata import files

    assert {str(f).split("/")[0] for f in files("tgcrypto-ffi")} == {
        "tgcrypto_ffi", f"tgcrypto_ffi-{tgcrypto_ffi.__version__}.dist-info"}
    assert os.path.isdir(os.path.join(os.path.dirname(real_tgcrypto.__file__), "tests"))
