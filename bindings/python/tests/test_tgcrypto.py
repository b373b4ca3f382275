"""tgcrypto_ffi.tgcrypto: TgCrypto's semantics (iv/state in place, chaining),
its calling convention and messages, the deliberate differences (read-only
buffers never written, 2**32 rejected), and the contexts. The comparison
with the real TgCrypto on random inputs is in test_differential.py."""
import array
import mmap
import os

import pytest

import tgcrypto_ffi
from tgcrypto_ffi import tgcrypto

from conftest import NON_CONTIGUOUS, PYPY, cases, no_buffer_message

K = bytes(range(32))
IV32 = bytes(range(100, 132))
IV16 = bytes(range(200, 216))


def big_view(n=2**32 + 16):
    """A memoryview of n bytes that costs nothing until touched (nothing touches it)."""
    m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return memoryview(m)


# (call, args, exception type, message): TgCrypto 1.2.5's own messages and
# check order, measured with the real module (test_differential.py repeats
# every one of these against it).
BAD_CALLS = [
    ("ige256_encrypt", (), TypeError, "function takes exactly 3 arguments (0 given)"),
    ("ige256_encrypt", (b"x",), TypeError, "function takes exactly 3 arguments (1 given)"),
    ("ige256_decrypt", (b"x", K, IV32, 1), TypeError, "function takes exactly 3 arguments (4 given)"),
    ("ctr256_encrypt", (b"x", K, IV16), TypeError, "function takes exactly 4 arguments (3 given)"),
    ("ctr256_decrypt", (b"x",) * 5, TypeError, "function takes exactly 4 arguments (5 given)"),
    ("cbc256_encrypt", (b"x", K), TypeError, "function takes exactly 3 arguments (2 given)"),
    ("ige256_encrypt", (1, K, IV32), TypeError, no_buffer_message("int")),
    ("ige256_encrypt", (b"a" * 16, None, IV32), TypeError, no_buffer_message("NoneType")),
    ("ctr256_encrypt", (b"a", K, IV16, 3), TypeError, no_buffer_message("int")),
    ("ctr256_encrypt", ("text", K, IV16, bytearray(1)), TypeError, no_buffer_message("str")),
    ("cbc256_decrypt", (b"a" * 16, K, [0] * 16), TypeError, no_buffer_message("list")),
    # the first bad type wins, whatever the values
    ("ige256_encrypt", (b"", 1, None), TypeError, no_buffer_message("int")),
    ("ige256_encrypt", (b"", b"", b""), ValueError, "Data must not be empty"),
    ("ige256_encrypt", (b"a" * 15, b"", b""), ValueError, "Data size must match a multiple of 16 bytes"),
    ("ige256_decrypt", (b"a" * 16, b"k" * 31, b""), ValueError, "Key size must be exactly 32 bytes"),
    ("ige256_decrypt", (b"a" * 16, K, IV16), ValueError, "IV size must be exactly 32 bytes"),
    ("ctr256_encrypt", (b"", b"", b"", b""), ValueError, "Data must not be empty"),
    ("ctr256_encrypt", (b"a" * 15, b"", b"", b""), ValueError, "Key size must be exactly 32 bytes"),
    ("ctr256_encrypt", (b"a", K, IV32, b""), ValueError, "IV size must be exactly 16 bytes"),
    ("ctr256_encrypt", (b"a", K, IV16, b""), ValueError, "State size must be exactly 1 byte"),
    ("ctr256_decrypt", (b"a", K, IV16, b"\x00\x00"), ValueError, "State size must be exactly 1 byte"),
    ("ctr256_decrypt", (b"a", K, IV16, b"\x10"), ValueError, "State value must be in the range [0, 15]"),
    ("ctr256_encrypt", (b"a", K, IV16, bytearray([255])), ValueError, "State value must be in the range [0, 15]"),
    ("cbc256_encrypt", (b"", K, IV16), ValueError, "Data must not be empty"),
    ("cbc256_encrypt", (b"a" * 17, K, IV16), ValueError, "Data size must match a multiple of 16 bytes"),
    ("cbc256_decrypt", (b"a" * 32, K[:16], IV16), ValueError, "Key size must be exactly 32 bytes"),
    ("cbc256_decrypt", (b"a" * 32, K, IV32), ValueError, "IV size must be exactly 16 bytes"),
]


@pytest.mark.parametrize("name,args,exc,msg", BAD_CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(BAD_CALLS)])
def test_bad_calls(name, args, exc, msg):
    with pytest.raises(exc) as e:
        getattr(tgcrypto, name)(*args)
    assert str(e.value) == msg
    assert type(e.value) is exc


@pytest.mark.parametrize("name", ["ige256_encrypt", "ige256_decrypt", "ctr256_encrypt", "ctr256_decrypt",
                                  "cbc256_encrypt", "cbc256_decrypt"])
def test_keywords_rejected(name):
    with pytest.raises(TypeError) as e:
        getattr(tgcrypto, name)(data=b"a" * 16, key=K, iv=IV32)
    assert str(e.value) == f"{name}() takes no keyword arguments"


def test_non_contiguous_buffer():
    strided = memoryview(bytes(64))[::2]
    with pytest.raises(NON_CONTIGUOUS[0], match=NON_CONTIGUOUS[1]):
        tgcrypto.ige256_encrypt(strided, K, IV32)


def test_api_is_exactly_tgcryptos():
    public = {n for n in dir(tgcrypto) if not n.startswith("_")}
    assert public == {"ige256_encrypt", "ige256_decrypt", "ctr256_encrypt", "ctr256_decrypt", "cbc256_encrypt",
                      "cbc256_decrypt", "CTRContext", "IGEContext", "CBCContext"}


def test_buffer_types(rng):
    data = bytes(rng.getrandbits(8) for _ in range(64))
    ref = tgcrypto.ige256_encrypt(data, K, IV32)
    padded = bytearray(b"\xee" * 5 + data + b"\xee" * 3)
    for d in (bytearray(data), memoryview(data), memoryview(padded)[5:69], array.array("B", data),
              array.array("I", data)):
        assert tgcrypto.ige256_encrypt(d, bytearray(K), memoryview(IV32)) == ref
    assert padded[:5] == b"\xee" * 5 and padded[69:] == b"\xee" * 3
    assert type(ref) is bytes


def test_ige_iv_never_written(rng):
    for fn in (tgcrypto.ige256_encrypt, tgcrypto.ige256_decrypt):
        iv = bytearray(IV32)
        fn(os.urandom(48), K, iv)
        assert iv == IV32


def test_ctr_updates_writable_iv_and_state():
    iv, state = bytearray(16), bytearray(1)
    tgcrypto.ctr256_encrypt(b"A" * 21, K, iv, state)
    assert iv == bytes(15) + b"\x01" and state == b"\x05"
    # a writable memoryview into a bigger buffer, at an offset
    store = bytearray(40)
    tgcrypto.ctr256_encrypt(b"A" * 40, K, memoryview(store)[3:19], memoryview(store)[30:31])
    assert store[3:19] == bytes(15) + b"\x02" and store[30] == 8
    assert store[:3] == bytes(3) and store[19:30] == bytes(11) and store[31:] == bytes(9)


def test_ctr_counter_wraps_through_all_16_bytes():
    iv, state = bytearray(b"\xff" * 16), bytearray(1)
    out = tgcrypto.ctr256_encrypt(bytes(32), K, iv, state)
    assert iv == bytes(15) + b"\x01" and state == b"\x00"
    # the second block used counter 00..00
    assert out[16:] == tgcrypto.ctr256_encrypt(bytes(16), K, bytearray(16), bytearray(1))


def test_read_only_iv_and_state_are_never_written():
    iv, state = bytes(16), bytes(1)
    out = tgcrypto.ctr256_encrypt(b"A" * 21, K, iv, state)
    assert iv == bytes(16) and state == b"\x00"
    assert out == tgcrypto.ctr256_encrypt(b"A" * 21, K, bytearray(16), bytearray(1))
    # the literal b"\x00" is CPython's cached one-byte object: TgCrypto's write
    # into it made bytes([0]) evaluate to b"\x05" process-wide
    tgcrypto.ctr256_encrypt(b"A" * 21, K, bytes(16), b"\x00")
    assert bytes([0]) == b"\x00" and b"\x00"[0] == 0
    ro = memoryview(bytearray(IV16)).toreadonly()
    tgcrypto.cbc256_encrypt(b"a" * 32, K, ro)
    assert ro == IV16
    civ = bytes(IV16)
    tgcrypto.cbc256_decrypt(b"a" * 32, K, civ)
    assert civ == IV16


def test_cbc_hands_the_chain_back(rng):
    data = os.urandom(16 * 7)
    iv = bytearray(IV16)
    whole = tgcrypto.cbc256_encrypt(data, K, bytearray(IV16))
    parts = tgcrypto.cbc256_encrypt(data[:48], K, iv) + tgcrypto.cbc256_encrypt(data[48:], K, iv)
    assert parts == whole and iv == whole[-16:]
    iv = bytearray(IV16)
    back = tgcrypto.cbc256_decrypt(whole[:32], K, iv) + tgcrypto.cbc256_decrypt(whole[32:], K, iv)
    assert back == data and iv == whole[-16:]


def test_nothing_modified_when_rejected():
    iv, state = bytearray(IV16), bytearray([3])
    for args in ((b"a", K[:31], iv, state), (b"a", K, iv, bytearray(2)), (b"", K, iv, state)):
        with pytest.raises(ValueError):
            tgcrypto.ctr256_encrypt(*args)
    with pytest.raises(ValueError):
        tgcrypto.ctr256_encrypt(b"a", K, iv, bytearray([16]))
    assert iv == IV16 and state == b"\x03"
    with pytest.raises(ValueError):
        tgcrypto.cbc256_encrypt(b"a" * 16, K[:1], iv)
    with pytest.raises(TypeError):
        tgcrypto.ctr256_encrypt(b"a", K, iv, 7)
    assert iv == IV16


def test_lengths_of_2_to_the_32_are_rejected():
    big = big_view()
    msg = "Data is too large (max 4294967295 bytes)"
    iv, state = bytearray(IV16), bytearray(1)
    for call in (lambda: tgcrypto.ige256_encrypt(big, K, IV32), lambda: tgcrypto.ige256_decrypt(big, K, IV32),
                 lambda: tgcrypto.cbc256_encrypt(big, K, iv), lambda: tgcrypto.ctr256_encrypt(big, K, iv, state),
                 lambda: tgcrypto.ctr256_decrypt(big[:2**32], K, iv, state),
                 lambda: tgcrypto_ffi.CTRContext(K, IV16).update(big)):
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == msg
    assert iv == IV16 and state == b"\x00"
    # 2**32 - 16 is a valid length (not run: it would encrypt 4 GiB); a non-multiple still says so first
    with pytest.raises(ValueError, match="multiple of 16"):
        tgcrypto.ige256_encrypt(big[:2**32 + 1], K, IV32)


def test_ctr_streamed_over_random_splits_equals_one_shot(rng):
    for _ in range(cases(60)):
        data = os.urandom(rng.randrange(1, 3000))
        iv0 = bytearray(os.urandom(16))
        if rng.random() < 0.3:
            iv0[8:] = b"\xff" * 8  # carries out of the low 64 bits
        s0 = rng.randrange(16)
        whole = tgcrypto.ctr256_encrypt(data, K, bytearray(iv0), bytearray([s0]))
        iv, state = bytearray(iv0), bytearray([s0])
        ctx = tgcrypto_ffi.CTRContext(K, bytes(iv0), s0)
        out, at = [], 0
        while at < len(data):
            n = rng.choice((1, 3, rng.randrange(1, 40), rng.randrange(1, 600)))
            chunk = data[at:at + n]
            at += n
            piece = tgcrypto.ctr256_encrypt(chunk, K, iv, state)
            assert ctx.update(chunk) == piece
            assert ctx.position() == (bytes(iv), state[0])
            out.append(piece)
        assert b"".join(out) == whole
        assert tgcrypto.ctr256_decrypt(whole, K, bytearray(iv0), bytearray([s0])) == data


def test_ige_chained_contexts_equal_one_shot(rng):
    for _ in range(cases(30)):
        blocks = rng.randrange(1, 80)
        data = os.urandom(16 * blocks)
        enc = tgcrypto.ige256_encrypt(data, K, IV32)
        e, d = tgcrypto_ffi.IGEContext(K, IV32), tgcrypto_ffi.IGEContext(K, IV32, True)
        cut = 16 * rng.randrange(0, blocks + 1)
        parts = [p for p in (data[:cut], data[cut:]) if p]
        assert b"".join(e.update(p) for p in parts) == enc
        assert b"".join(d.update(c) for c in (enc[:cut], enc[cut:]) if c) == data


def test_contexts_arguments_and_life_cycle():
    with pytest.raises(ValueError, match="^Key size must be exactly 32 bytes$"):
        tgcrypto_ffi.CTRContext(K[:5], IV16)
    with pytest.raises(ValueError, match="^IV size must be exactly 16 bytes$"):
        tgcrypto_ffi.CTRContext(K, IV32)
    with pytest.raises(ValueError, match=r"^IV size must be exactly 32 bytes$"):
        tgcrypto_ffi.IGEContext(K, IV16)
    with pytest.raises(ValueError, match=r"^State value must be in the range \[0, 15\]$"):
        tgcrypto_ffi.CTRContext(K, IV16, 16)
    with pytest.raises(ValueError, match=r"^State value must be in the range \[0, 15\]$"):
        tgcrypto_ffi.CTRContext(K, IV16, state=-1)
    with pytest.raises(TypeError, match="bytes-like object is required, not 'int'"):
        tgcrypto_ffi.CBCContext(K, 5)
    with pytest.raises(TypeError):
        tgcrypto_ffi.CBCContext(K)
    ige = tgcrypto_ffi.IGEContext(key=K, iv=IV32, decrypt=False)
    assert ige.update(b"") == b""  # an empty chunk, as in the TypeScript contexts
    with pytest.raises(ValueError, match="^Data size must match a multiple of 16 bytes$"):
        ige.update(b"a" * 17)
    ctr = tgcrypto_ffi.CTRContext(K, IV16)
    assert ctr.update(bytearray()) == b""
    assert ctr.update(b"abc") == tgcrypto.ctr256_encrypt(b"abc", K, bytearray(IV16), bytearray(1))
    # key and iv are copied at construction
    key, iv = bytearray(K), bytearray(IV16)
    c2 = tgcrypto_ffi.CBCContext(key, iv)
    key[:] = bytes(32)
    iv[:] = bytes(16)
    assert c2.update(b"a" * 16) == tgcrypto.cbc256_encrypt(b"a" * 16, K, bytearray(IV16))
    with tgcrypto_ffi.CTRContext(K, IV16) as c3:
        c3.update(b"x")
    assert c3.closed
    for c in (ige, ctr, c3):
        c.close()
        c.close()  # idempotent
        with pytest.raises(ValueError, match=r"^(IGE|CTR)Context is closed$"):
            c.update(b"a" * 16)
    with pytest.raises(ValueError, match="CTRContext is closed"):
        ctr.position()
    if PYPY:  # cpyext ignores Py_TPFLAGS_BASETYPE: a subclass runs the type's own C state
        class Sub(tgcrypto_ffi.CTRContext):
            def update(self, data):
                return super().update(data)
        assert Sub(K, IV16).update(b"a" * 33) == tgcrypto_ffi.CTRContext(K, IV16).update(b"a" * 33)
    else:
        with pytest.raises(TypeError):
            class Sub(tgcrypto_ffi.CTRContext):  # not a base type
                pass
