"""Differential tests against the PyPI originals on random inputs:
TgCrypto 1.2.5 (all six functions, CTR streamed over random splits with the
iv/state compared after every call, every bad-input message), cryptg
(IGE both ways, the padding of a partial block, its messages) and cipheron
0.2.1 (the three modes, factorize). TGFFI_LEVEL=light draws fewer cases.

The originals are only ever given bytearray iv/state (TgCrypto writes even
into read-only ones)."""
import os

import pytest

import tgcrypto_ffi
from tgcrypto_ffi import cryptg, tgcrypto

from conftest import INT_NEGATIVE, INT_TOO_BIG, cases
from reference import real_cipheron, real_cryptg, real_tgcrypto
from test_tgcrypto import BAD_CALLS


def rand_len(rng, block):
    """A length in bytes (block: a multiple of 16): mostly small, sometimes past
    the GIL threshold (4 KiB), rarely up to 2 MiB."""
    unit = 16 if block else 1
    n = rng.choice((1, 2, 3, rng.randrange(1, 64), rng.randrange(1, 1024), rng.randrange(1, 16384 // unit)))
    if rng.random() < 0.02:
        n = rng.randrange(1, (2 << 20) // unit)
    return n * unit


def is_prime(n):
    """Deterministic Miller-Rabin for n < 3.3e24 (the first 12 prime bases)."""
    if n < 2:
        return False
    bases = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
    for p in bases:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in bases:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def buffer_kind(rng, data):
    return rng.choice((bytes, bytearray, memoryview))(data)


def test_ige_against_tgcrypto(rng):
    for _ in range(cases(300)):
        data, key, iv = os.urandom(rand_len(rng, True)), os.urandom(32), os.urandom(32)
        enc = real_tgcrypto.ige256_encrypt(data, key, iv)
        assert tgcrypto.ige256_encrypt(buffer_kind(rng, data), buffer_kind(rng, key), buffer_kind(rng, iv)) == enc
        assert tgcrypto.ige256_decrypt(enc, key, iv) == real_tgcrypto.ige256_decrypt(enc, key, iv) == data
        garbage = os.urandom(len(data))  # decrypting anything matches too
        assert tgcrypto.ige256_decrypt(garbage, key, iv) == real_tgcrypto.ige256_decrypt(garbage, key, iv)


def test_cbc_chained_against_tgcrypto(rng):
    for _ in range(cases(150)):
        key = os.urandom(32)
        iv_ours, iv_real = bytearray(os.urandom(16)), None
        iv_real = bytearray(iv_ours)
        decrypt = rng.random() < 0.5
        for _ in range(rng.randrange(1, 6)):
            data = os.urandom(16 * rng.randrange(1, 300))
            ours = (tgcrypto.cbc256_decrypt if decrypt else tgcrypto.cbc256_encrypt)(data, key, iv_ours)
            real = (real_tgcrypto.cbc256_decrypt if decrypt else real_tgcrypto.cbc256_encrypt)(data, key, iv_real)
            assert ours == real and iv_ours == iv_real


def test_ctr_streamed_against_tgcrypto(rng):
    for _ in range(cases(150)):
        key = os.urandom(32)
        iv0 = bytearray(os.urandom(16))
        r = rng.random()
        if r < 0.2:
            k = rng.randrange(1, 17)
            iv0[16 - k:] = b"\xff" * k  # carries, up to the full wrap of ff..ff
        s0 = rng.randrange(16)
        ours_iv, ours_st = bytearray(iv0), bytearray([s0])
        real_iv, real_st = bytearray(iv0), bytearray([s0])
        ctx = tgcrypto_ffi.CTRContext(key, bytes(iv0), s0)
        fn = rng.choice((tgcrypto.ctr256_encrypt, tgcrypto.ctr256_decrypt))
        for _ in range(rng.randrange(1, 25)):
            chunk = os.urandom(rng.choice((1, 3, rng.randrange(1, 33), rand_len(rng, False))))
            want = real_tgcrypto.ctr256_encrypt(chunk, key, real_iv, real_st)
            assert fn(buffer_kind(rng, chunk), key, ours_iv, ours_st) == want
            assert (ours_iv, ours_st) == (real_iv, real_st)
            assert ctx.update(chunk) == want and ctx.position() == (bytes(real_iv), real_st[0])


@pytest.mark.parametrize("name,args,exc,msg", BAD_CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(BAD_CALLS)])
def test_bad_input_messages_equal_tgcryptos(name, args, exc, msg):
    outcomes = []
    for mod in (real_tgcrypto, tgcrypto):
        try:
            getattr(mod, name)(*args)
            outcomes.append(None)
        except Exception as e:  # noqa: BLE001 - the type is compared
            outcomes.append((type(e), str(e)))
    assert outcomes[0] == outcomes[1] == (exc, msg)


def test_keyword_and_non_contiguous_messages_equal_tgcryptos():
    for call in (lambda m: m.ige256_encrypt(data=b"a" * 16, key=bytes(32), iv=bytes(32)),
                 lambda m: m.ctr256_decrypt(b"a", bytes(32), bytearray(16), state=bytearray(1)),
                 lambda m: m.cbc256_encrypt(memoryview(bytes(64))[::2], bytes(32), bytearray(16))):
        got = []
        for mod in (real_tgcrypto, tgcrypto):
            with pytest.raises((TypeError, BufferError)) as e:
                call(mod)
            got.append((type(e.value), str(e.value)))
        assert got[0] == got[1]


def test_ige_against_cryptg(rng):
    for _ in range(cases(200)):
        key, iv = os.urandom(32), os.urandom(32)
        data = os.urandom(rand_len(rng, True))
        enc = real_cryptg.encrypt_ige(data, key, iv)
        assert cryptg.encrypt_ige(data, key, iv) == enc
        assert cryptg.decrypt_ige(enc, key, iv) == real_cryptg.decrypt_ige(enc, key, iv) == data
        assert cryptg.encrypt_ige(plain=data, key=key, iv=iv) == real_cryptg.encrypt_ige(plain=data, key=key, iv=iv)
        # a partial block: both pad with random bytes, to the same length; each decrypts the other
        n = rng.randrange(1, 200)
        part = os.urandom(n)
        a, b = cryptg.encrypt_ige(part, key, iv), real_cryptg.encrypt_ige(part, key, iv)
        assert len(a) == len(b) == (n + 15) // 16 * 16
        assert real_cryptg.decrypt_ige(a, key, iv)[:n] == cryptg.decrypt_ige(b, key, iv)[:n] == part


def test_empty_and_messages_equal_cryptgs():
    k, iv = bytes(32), bytes(32)
    assert cryptg.encrypt_ige(b"", k, iv) == real_cryptg.encrypt_ige(b"", k, iv) == b""
    assert cryptg.decrypt_ige(b"", k, iv) == real_cryptg.decrypt_ige(b"", k, iv) == b""
    for args in ((b"a" * 16, b"k", b"i"), (b"a" * 16, k, b"i"), (b"", b"", b""), (b"a" * 16, k, iv[:31])):
        got = []
        for mod in (real_cryptg, cryptg):
            with pytest.raises(ValueError) as e:
                mod.encrypt_ige(*args)
            got.append(str(e.value))
        assert got[0] == got[1]
    for mod in (real_cryptg, cryptg):
        with pytest.raises(TypeError, match="unexpected keyword argument 'plaintext'"):
            mod.encrypt_ige(plaintext=b"", key=k, iv=iv)
        with pytest.raises(OverflowError, match=f"^{INT_TOO_BIG}$"):
            mod.factorize_pq_pair(2**64 + 1)
        with pytest.raises(OverflowError, match=f"^{INT_NEGATIVE}$"):
            mod.factorize_pq_pair(-15)


def test_factorize_against_cryptg_and_cipheron(rng):
    for _ in range(cases(40)):
        p, q = sorted(next(n for n in iter(lambda: rng.randrange(2**30, 2**32), None) if is_prime(n)) for _ in range(2))
        assert cryptg.factorize_pq_pair(p * q) == real_cryptg.factorize_pq_pair(p * q) == (p, q)
        assert real_cipheron.factorize_pq_pair(p * q) == (p, q)


def test_modes_against_cipheron(rng):
    for _ in range(cases(100)):
        key, iv = os.urandom(32), os.urandom(32)
        data = os.urandom(rand_len(rng, True))
        assert tgcrypto.ige256_encrypt(data, key, iv) == real_cipheron.ige256_encrypt(data, key, iv)
        assert tgcrypto.ige256_decrypt(data, key, iv) == real_cipheron.ige256_decrypt(data, key, iv)
        assert cryptg.encrypt_ige(data, key, iv) == real_cipheron.encrypt_ige(data, key, iv)
        # cipheron does not hand the CBC chain back: one call each, fresh ivs
        assert tgcrypto.cbc256_encrypt(data, key, bytearray(iv[:16])) == real_cipheron.cbc256_encrypt(data, key, bytearray(iv[:16]))
        assert tgcrypto.cbc256_decrypt(data, key, bytearray(iv[:16])) == real_cipheron.cbc256_decrypt(data, key, bytearray(iv[:16]))
        s0 = rng.randrange(16)
        oi, os_ = bytearray(iv[:16]), bytearray([s0])
        ci, cs = bytearray(iv[:16]), bytearray([s0])
        for _ in range(rng.randrange(1, 6)):
            chunk = os.urandom(rand_len(rng, False))
            assert tgcrypto.ctr256_encrypt(chunk, key, oi, os_) == real_cipheron.ctr256_encrypt(chunk, key, ci, cs)
            assert (oi, os_) == (ci, cs)
