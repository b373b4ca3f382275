"""tgcrypto_ffi.cryptg: cryptg's observable behaviour (keyword names, its
messages, empty input, random padding of a partial block) and clean
exceptions where cryptg panics or hangs."""
import os

import pytest

from tgcrypto_ffi import cryptg, tgcrypto

from conftest import INT_NEGATIVE, INT_TOO_BIG
from test_tgcrypto import big_view

K = bytes(range(32))
IV = bytes(range(50, 82))


def test_api_is_exactly_cryptgs():
    assert {n for n in dir(cryptg) if not n.startswith("_")} == {"encrypt_ige", "decrypt_ige", "factorize_pq_pair"}


def test_keywords_and_positionals():
    data = os.urandom(48)
    ref = tgcrypto.ige256_encrypt(data, K, IV)
    assert cryptg.encrypt_ige(data, K, IV) == ref
    assert cryptg.encrypt_ige(plain=data, key=K, iv=IV) == ref
    assert cryptg.encrypt_ige(data, iv=IV, key=K) == ref
    assert cryptg.decrypt_ige(cipher=ref, key=K, iv=IV) == data
    assert cryptg.factorize_pq_pair(pq=15) == (3, 5)


@pytest.mark.parametrize("call,msg", [
    (lambda: cryptg.encrypt_ige(), "encrypt_ige() missing 3 required positional arguments: 'plain', 'key', and 'iv'"),
    (lambda: cryptg.encrypt_ige(b"a"), "encrypt_ige() missing 2 required positional arguments: 'key' and 'iv'"),
    (lambda: cryptg.decrypt_ige(b"a", K), "decrypt_ige() missing 1 required positional argument: 'iv'"),
    (lambda: cryptg.decrypt_ige(b"a", iv=IV), "decrypt_ige() missing 1 required positional argument: 'key'"),
    (lambda: cryptg.encrypt_ige(b"a", K, IV, 1), "encrypt_ige() takes 3 positional arguments but 4 were given"),
    (lambda: cryptg.encrypt_ige(plaintext=b"a", key=K, iv=IV), "encrypt_ige() got an unexpected keyword argument 'plaintext'"),
    (lambda: cryptg.decrypt_ige(b"a", K, IV, key=K), "decrypt_ige() got multiple values for argument 'key'"),
    (lambda: cryptg.factorize_pq_pair(), "factorize_pq_pair() missing 1 required positional argument: 'pq'"),
    (lambda: cryptg.factorize_pq_pair(1, 2), "factorize_pq_pair() takes 1 positional argument but 2 were given"),
    (lambda: cryptg.factorize_pq_pair(1.5), "argument 'pq': 'float' object cannot be interpreted as an integer"),
    (lambda: cryptg.factorize_pq_pair("15"), "argument 'pq': 'str' object cannot be interpreted as an integer"),
    (lambda: cryptg.encrypt_ige(5, K, IV), "argument 'plain': a bytes-like object is required, not 'int'"),
    (lambda: cryptg.decrypt_ige(b"", None, IV), "argument 'key': a bytes-like object is required, not 'NoneType'"),
])
def test_type_errors(call, msg):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == msg


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: cryptg.encrypt_ige(b"a" * 16, b"k", b"i"), ValueError, "len(key) != 32"),
    (lambda: cryptg.encrypt_ige(b"", b"", b""), ValueError, "len(key) != 32"),  # cryptg checks the key first
    (lambda: cryptg.encrypt_ige(b"a" * 16, K, IV[:31]), ValueError, "len(iv) != 32"),
    (lambda: cryptg.decrypt_ige(b"a" * 17, K, IV), ValueError, "len(cipher) % 16 != 0"),
    (lambda: cryptg.factorize_pq_pair(2**64), OverflowError, INT_TOO_BIG),
    (lambda: cryptg.factorize_pq_pair(-15), OverflowError, INT_NEGATIVE),
    (lambda: cryptg.factorize_pq_pair(17), ValueError, "pq = 17 is 0, 1 or a prime: nothing to factorize"),
    (lambda: cryptg.factorize_pq_pair(0), ValueError, "pq = 0 is 0, 1 or a prime: nothing to factorize"),
    (lambda: cryptg.factorize_pq_pair(1), ValueError, "pq = 1 is 0, 1 or a prime: nothing to factorize"),
    (lambda: cryptg.factorize_pq_pair(2**64 - 59), ValueError,
     "pq = 18446744073709551557 is 0, 1 or a prime: nothing to factorize"),
])
def test_value_errors(call, exc, msg):
    with pytest.raises(exc) as e:
        call()
    assert str(e.value) == msg and type(e.value) is exc


def test_empty_input_gives_empty_output():
    assert cryptg.encrypt_ige(b"", K, IV) == b""
    assert cryptg.decrypt_ige(b"", K, IV) == b""


def test_partial_block_is_padded_with_random_bytes(rng):
    for n in (1, 15, 17, 31, 100, 4097):
        plain = os.urandom(n)
        outs = [cryptg.encrypt_ige(plain, K, IV) for _ in range(8)]
        a, b = outs[0], outs[1]
        assert all(len(o) == (n + 15) // 16 * 16 for o in outs)
        # the padding is random: with 1 byte of it (n = 15, 31) two calls agree 1 time in
        # 256, so 8 calls (all equal: a 2**-56 chance of a false failure)
        assert len(set(outs)) > 1
        # the full blocks are the same; the prefix round trips
        full = n // 16 * 16
        if full:
            assert a[:full] == b[:full] == tgcrypto.ige256_encrypt(plain[:full], K, IV)
        assert cryptg.decrypt_ige(a, K, IV)[:n] == plain
        assert cryptg.decrypt_ige(b, K, IV)[:n] == plain


def test_any_bytes_like_input():
    data = os.urandom(32)
    ref = cryptg.encrypt_ige(data, K, IV)
    assert cryptg.encrypt_ige(bytearray(data), memoryview(K), bytearray(IV)) == ref
    assert cryptg.decrypt_ige(memoryview(ref), K, IV) == data


def test_large_inputs_are_rejected():
    with pytest.raises(ValueError, match=r"^Data is too large \(max 4294967295 bytes\)$"):
        cryptg.decrypt_ige(big_view(), K, IV)
    with pytest.raises(ValueError, match="too large"):
        cryptg.encrypt_ige(big_view(2**32 - 1), K, IV)  # would pad to 2**32


def test_factorize(rng):
    assert cryptg.factorize_pq_pair(10) == (2, 5)
    assert cryptg.factorize_pq_pair(4) == (2, 2)
    assert cryptg.factorize_pq_pair(True + 14) == (3, 5)
    assert cryptg.factorize_pq_pair(2**63 + 2) == (2, 2**62 + 1)
    assert cryptg.factorize_pq_pair(1724114033281923457) == (1229739323, 1402015859)
    assert cryptg.factorize_pq_pair(2**64 - 1) == (3, (2**64 - 1) // 3)
    for _ in range(20):
        # products of two random odd numbers: p is the smallest prime factor
        a, b = rng.randrange(3, 2**32, 2), rng.randrange(3, 2**31, 2)
        p, q = cryptg.factorize_pq_pair(a * b)
        assert p * q == a * b and 1 < p <= q
        assert all(p % d for d in range(2, min(p, 1000)))  # p has no smaller factor below 1000
