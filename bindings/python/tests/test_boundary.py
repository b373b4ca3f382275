"""The boundary of the extension, per argument of every function: too short,
too long, zero-length, a read-only buffer where C writes, a non-contiguous
memoryview, an object whose buffer export fails, and lengths at 2**32. Each
case asserts the exact error, and that nothing the caller passed was written
or kept: every buffer exported before a failure is released again (a
bytearray argument can be resized afterwards)."""
import mmap
import re
import os
import sys

import pytest

import tgcrypto_ffi
from tgcrypto_ffi import cryptg, tgcrypto

from conftest import NON_CONTIGUOUS

TGCRYPTO_FUNCTIONS = {f"{m}256_{d}crypt" for m in ("ige", "ctr", "cbc") for d in ("en", "de")}

K = bytes(range(32))
IV32 = bytes(range(100, 132))
IV16 = bytes(range(200, 216))
AUTH = bytes(range(256))

MSG_EMPTY = "Data must not be empty"
MSG_MULTIPLE = "Data size must match a multiple of 16 bytes"
MSG_LARGE = "Data is too large (max 4294967295 bytes)"
MSG_KEY = "Key size must be exactly 32 bytes"
MSG_IV32 = "IV size must be exactly 32 bytes"
MSG_IV16 = "IV size must be exactly 16 bytes"
MSG_STATE = "State size must be exactly 1 byte"


def zero_view(n):
    """A read-only memoryview of n zero bytes that costs nothing until touched."""
    return memoryview(mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=mmap.PROT_READ))


class ExportFails:
    """Has the buffer protocol (3.12+: __buffer__), but every export raises."""

    def __buffer__(self, flags):
        raise RuntimeError("export refused")


def strided(n):
    """A non-contiguous memoryview of n bytes (every other byte of 2n)."""
    return memoryview(bytearray(2 * n))[::2]


# name -> (call(args), good args, per-argument (index, valid lengths, message for a wrong one))
def ctx_update(cls, *fixed):
    return lambda data: cls(*fixed).update(data)


FUNCTIONS = {
    "ige256_encrypt": (tgcrypto.ige256_encrypt, [b"d" * 32, K, IV32], [(1, MSG_KEY, 32), (2, MSG_IV32, 32)]),
    "ige256_decrypt": (tgcrypto.ige256_decrypt, [b"d" * 32, K, IV32], [(1, MSG_KEY, 32), (2, MSG_IV32, 32)]),
    "cbc256_encrypt": (tgcrypto.cbc256_encrypt, [b"d" * 32, K, IV16], [(1, MSG_KEY, 32), (2, MSG_IV16, 16)]),
    "cbc256_decrypt": (tgcrypto.cbc256_decrypt, [b"d" * 32, K, IV16], [(1, MSG_KEY, 32), (2, MSG_IV16, 16)]),
    "ctr256_encrypt": (tgcrypto.ctr256_encrypt, [b"d" * 5, K, IV16, b"\x00"],
                       [(1, MSG_KEY, 32), (2, MSG_IV16, 16), (3, MSG_STATE, 1)]),
    "ctr256_decrypt": (tgcrypto.ctr256_decrypt, [b"d" * 5, K, IV16, b"\x00"],
                       [(1, MSG_KEY, 32), (2, MSG_IV16, 16), (3, MSG_STATE, 1)]),
    "encrypt_ige": (cryptg.encrypt_ige, [b"d" * 20, K, IV32], [(1, "len(key) != 32", 32), (2, "len(iv) != 32", 32)]),
    "decrypt_ige": (cryptg.decrypt_ige, [b"d" * 32, K, IV32], [(1, "len(key) != 32", 32), (2, "len(iv) != 32", 32)]),
    "CTRContext": (lambda k, iv: tgcrypto_ffi.CTRContext(k, iv), [K, IV16], [(0, MSG_KEY, 32), (1, MSG_IV16, 16)]),
    "IGEContext": (lambda k, iv: tgcrypto_ffi.IGEContext(k, iv), [K, IV32], [(0, MSG_KEY, 32), (1, MSG_IV32, 32)]),
    "CBCContext": (lambda k, iv: tgcrypto_ffi.CBCContext(k, iv), [K, IV16], [(0, MSG_KEY, 32), (1, MSG_IV16, 16)]),
    "AuthKey": (tgcrypto_ffi.AuthKey, [AUTH], [(0, "Auth key size must be exactly 256 bytes", 256)]),
}

SIZED = [(name, i, msg, n) for name, (_, _, args) in FUNCTIONS.items() for i, msg, n in args]


@pytest.mark.parametrize("name,index,msg,size", SIZED, ids=[f"{s[0]}-arg{s[1]}" for s in SIZED])
@pytest.mark.parametrize("delta", [-1, +1, "zero", "double"])
def test_fixed_size_argument_too_short_too_long_or_empty(name, index, msg, size, delta):
    fn, good, _ = FUNCTIONS[name]
    n = {"zero": 0, "double": 2 * size}.get(delta, size + delta if isinstance(delta, int) else size)
    args = list(good)
    args[index] = bytearray(os.urandom(n))
    before = bytes(args[index])
    with pytest.raises(ValueError) as e:
        fn(*args)
    assert str(e.value) == msg
    assert args[index] == before
    args[index].extend(b"x")  # released again: a bytearray can be resized


# the data argument of every function that takes one: empty, not a multiple of 16, and 2**32 bytes
DATA_CALLS = {
    "ige256_encrypt": lambda d: tgcrypto.ige256_encrypt(d, K, IV32),
    "ige256_decrypt": lambda d: tgcrypto.ige256_decrypt(d, K, IV32),
    "cbc256_encrypt": lambda d: tgcrypto.cbc256_encrypt(d, K, bytearray(IV16)),
    "cbc256_decrypt": lambda d: tgcrypto.cbc256_decrypt(d, K, bytearray(IV16)),
    "ctr256_encrypt": lambda d: tgcrypto.ctr256_encrypt(d, K, bytearray(IV16), bytearray(1)),
    "ctr256_decrypt": lambda d: tgcrypto.ctr256_decrypt(d, K, bytearray(IV16), bytearray(1)),
    "CTRContext.update": ctx_update(tgcrypto_ffi.CTRContext, K, IV16),
    "IGEContext.update": ctx_update(tgcrypto_ffi.IGEContext, K, IV32),
    "CBCContext.update": ctx_update(tgcrypto_ffi.CBCContext, K, IV16),
    "IGEContext.update(decrypt)": ctx_update(tgcrypto_ffi.IGEContext, K, IV32, True),
    "CBCContext.update(decrypt)": ctx_update(tgcrypto_ffi.CBCContext, K, IV16, True),
}
BLOCKED = {n for n in DATA_CALLS if not n.startswith(("ctr", "CTR"))}


@pytest.mark.parametrize("name", sorted(DATA_CALLS))
def test_data_empty_partial_block_and_exactly_2_to_the_32(name):
    call = DATA_CALLS[name]
    if ".update" in name:
        # A context's empty update is an empty result, in every host (test/contract/cases.json).
        assert call(bytearray()) == b""
    else:
        with pytest.raises(ValueError, match=f"^{re.escape(MSG_EMPTY)}$"):
            call(bytearray())
    if name in BLOCKED:
        for n in (1, 15, 17, 31):
            with pytest.raises(ValueError, match=f"^{re.escape(MSG_MULTIPLE)}$"):
                call(bytearray(n))
    # exactly 2**32 bytes: a uint32 length of 0 to C, if it got there
    with pytest.raises(ValueError) as e:
        call(zero_view(2**32))
    assert str(e.value) == MSG_LARGE
    assert len(call(bytearray(16))) == 16


def test_cryptg_lengths_at_2_to_the_32():
    with pytest.raises(ValueError, match="max 4294967295"):
        cryptg.decrypt_ige(zero_view(2**32), K, IV32)
    with pytest.raises(ValueError, match="max 4294967295"):
        cryptg.encrypt_ige(zero_view(2**32), K, IV32)
    with pytest.raises(ValueError, match="max 4294967295"):
        cryptg.encrypt_ige(zero_view(2**32 - 15), K, IV32)  # pads to 2**32
    assert cryptg.encrypt_ige(b"", K, IV32) == b"" and cryptg.decrypt_ige(b"", K, IV32) == b""
    with pytest.raises(ValueError, match=r"^len\(cipher\) % 16 != 0$"):
        cryptg.decrypt_ige(b"a" * 17, K, IV32)


@pytest.mark.parametrize("fn", [tgcrypto_ffi.sha256, tgcrypto_ffi.sha1])
def test_hash_part_of_exactly_2_to_the_32(fn):
    for parts in ((zero_view(2**32),), (b"a", zero_view(2**32)), (zero_view(2**32), b"b")):
        with pytest.raises(ValueError, match=f"^{re.escape(MSG_LARGE)}$"):
            fn(*parts)


def test_auth_key_packet_and_message_limits():
    key = tgcrypto_ffi.AuthKey(AUTH)
    for n in (0, 71, 72 + 8, 2**31, 2**32 + 72):  # too short, not 24 + 16k, over 2**31 - 1
        with pytest.raises(tgcrypto_ffi.MtprotoSecurityError):
            key.decrypt_message(zero_view(n) if n else b"")
    with pytest.raises(ValueError, match="^Message is too large"):
        key.encrypt_message(zero_view(2**31 - 24 - 12))
    with pytest.raises(ValueError, match="^Plaintext must not be empty$"):
        key.encrypt_message(b"")
    with pytest.raises(ValueError, match="^Plaintext must be at least 32 bytes"):
        key.encrypt_message(bytes(31))
    for pad in (11, 1025, 13):
        with pytest.raises(ValueError, match="^(Padding must be 12 to 1024|Plaintext plus padding)"):
            key.encrypt_message(bytes(32), padding=bytes(pad))


# ------------------------------------------------------------ read-only where C writes

def test_read_only_iv_and_state_are_never_written():
    iv, state = bytes(IV16), bytes([5])
    view_iv = memoryview(bytearray(IV16)).toreadonly()
    a = tgcrypto.ctr256_encrypt(b"x" * 40, K, iv, state)
    b = tgcrypto.ctr256_encrypt(b"x" * 40, K, view_iv, memoryview(bytearray([5])).toreadonly())
    assert a == b and iv == IV16 and state == b"\x05" and view_iv == IV16
    c = tgcrypto.cbc256_encrypt(b"x" * 32, K, view_iv)
    assert view_iv == IV16 and c == tgcrypto.cbc256_encrypt(b"x" * 32, K, bytearray(IV16))


def test_writable_iv_and_state_are_advanced():
    iv, state = bytearray(IV16), bytearray([5])
    tgcrypto.ctr256_encrypt(b"x" * 40, K, iv, state)
    assert state[0] == (5 + 40) % 16 and iv != IV16
    iv2 = bytearray(IV16)
    out = tgcrypto.cbc256_encrypt(b"x" * 32, K, iv2)
    assert iv2 == out[-16:]


# ------------------------------------------------------------ non-contiguous and failing exports

def all_positions():
    """(name, call, args, index) for every buffer argument of every function."""
    for name, (fn, good, _) in FUNCTIONS.items():
        for i in range(len(good)):
            yield name, fn, good, i
    for name, call in DATA_CALLS.items():
        yield name, lambda d, c=call: c(d), [b"d" * 32], 0
    yield "encrypt_message", lambda p: tgcrypto_ffi.AuthKey(AUTH).encrypt_message(p), [bytes(40)], 0
    yield "encrypt_message(padding)", lambda p: tgcrypto_ffi.AuthKey(AUTH).encrypt_message(bytes(36), padding=p), \
        [bytes(12)], 0
    yield "decrypt_message", lambda p: tgcrypto_ffi.AuthKey(AUTH).decrypt_message(p), [bytes(72)], 0
    yield "sha256", tgcrypto_ffi.sha256, [b"a", b"b", b"c"], 1
    yield "sha1", tgcrypto_ffi.sha1, [b"a", b"b", b"c"], 2


POSITIONS = list(all_positions())
IDS = [f"{p[0]}-arg{p[3]}" for p in POSITIONS]


@pytest.mark.parametrize("name,fn,good,index", POSITIONS, ids=IDS)
def test_non_contiguous_view_is_refused_and_earlier_buffers_released(name, fn, good, index):
    args = [bytearray(a) for a in good]
    args[index] = strided(max(2, len(good[index])))  # one byte is always contiguous
    # TgCrypto's functions raise what TgCrypto does on this interpreter (PyPy: a TypeError)
    with pytest.raises(NON_CONTIGUOUS[0] if name in TGCRYPTO_FUNCTIONS else BufferError):
        fn(*args)
    for i, a in enumerate(args):
        if i != index:
            a.extend(b"x")  # not still exported


@pytest.mark.skipif(sys.version_info < (3, 12), reason="__buffer__ in Python classes needs 3.12")
@pytest.mark.parametrize("name,fn,good,index", POSITIONS, ids=IDS)
def test_failing_export_propagates_and_earlier_buffers_released(name, fn, good, index):
    args = [bytearray(a) for a in good]
    args[index] = ExportFails()
    with pytest.raises(RuntimeError, match="^export refused$"):
        fn(*args)
    for i, a in enumerate(args):
        if i != index:
            a.extend(b"x")


@pytest.mark.parametrize("name,fn,good,index", POSITIONS, ids=IDS)
def test_not_a_buffer_is_a_type_error(name, fn, good, index):
    args = [bytearray(a) for a in good]
    args[index] = 12345
    with pytest.raises(TypeError):
        fn(*args)
    for i, a in enumerate(args):
        if i != index:
            a.extend(b"x")


@pytest.mark.parametrize("name,fn,good,index", POSITIONS, ids=IDS)
def test_good_call_releases_every_buffer(name, fn, good, index):
    args = [bytearray(a) for a in good]
    try:
        fn(*args)
    except tgcrypto_ffi.MtprotoSecurityError:
        pass  # decrypt_message of zeros: rejected after the export, which must be released too
    for a in args:
        a.extend(b"x")


def test_plaintext_in_parts_encrypts_as_the_whole():
    # Three or more parts are joined on the shorter side (C takes a head and
    # a body): joined sides of 0, 1 and many bytes, on either side.
    key = tgcrypto_ffi.AuthKey(AUTH)
    plain = os.urandom(28) + (100 - 32).to_bytes(4, "little") + os.urandom(68)
    pad = os.urandom(12)
    want = key.encrypt_message(plain, padding=pad)
    splits = [(0, 0), (1, 1), (0, 1), (1, 2), (99, 99), (99, 100), (98, 99), (40, 60), (0, 100), (100, 100)]
    for a, b in splits:
        parts = (plain[:a], plain[a:b], plain[b:])
        assert key.encrypt_message(parts, padding=pad) == want, (a, b)
        assert key.encrypt_message([bytearray(x) for x in parts], padding=pad) == want, (a, b)
    assert key.encrypt_message([plain[i:i + 1] for i in range(100)], padding=pad) == want


def test_default_padding_is_fresh_random_bytes_across_pool_refills():
    # The pool hands out 128 slots of 32 bytes, then draws 4 KiB again: over
    # three refills every padding (read back by decrypting the packet with
    # the MTProto 2.0 key derivation, hashlib's SHA-256) differs from every
    # other and from zeros.
    import hashlib

    secret = os.urandom(256)
    key = tgcrypto_ffi.AuthKey(secret)
    plain = os.urandom(28) + (4).to_bytes(4, "little") + os.urandom(4)  # 36 bytes: 12 of padding
    seen = set()
    for _ in range(3 * 128 + 5):
        packet = key.encrypt_message(plain)
        msg_key = packet[8:24]
        a = hashlib.sha256(msg_key + secret[0:36]).digest()  # client -> server: x = 0
        b = hashlib.sha256(secret[40:76] + msg_key).digest()
        aes_key, aes_iv = a[:8] + b[8:24] + a[24:32], b[:8] + a[8:24] + b[24:32]
        whole = tgcrypto.ige256_decrypt(packet[24:], aes_key, aes_iv)
        assert whole[:36] == plain
        seen.add(whole[36:])
    assert len(seen) == 3 * 128 + 5 and bytes(12) not in seen


@pytest.mark.parametrize("kind,iv", [("CTR", 16), ("IGE", 32), ("CBC", 16)])
def test_context_argument_errors_name_their_class(kind, iv):
    cls = getattr(tgcrypto_ffi, f"{kind}Context")
    with pytest.raises(TypeError, match=f"{kind}Context"):
        cls(bytes(32), bytes(iv), nonsense=1)
    with pytest.raises(TypeError, match=f"{kind}Context"):
        cls(bytes(32))


def test_in_place_iv_and_state_are_written_exactly_and_only_where_writable():
    # iv and state as views into larger buffers: the bytes around them stay
    # (16 bytes of iv, 1 of state, not one more); a read-only one beside a
    # writable one stays as it was.
    def views(n):
        whole = bytearray(b"\xa5" * (n + 32))
        return whole, memoryview(whole)[16:16 + n]

    data = b"x" * 40
    want_ctr_iv, want_state = bytearray(IV16), bytearray([5])
    want_ctr = tgcrypto.ctr256_encrypt(data, K, want_ctr_iv, want_state)
    iv_whole, iv = views(16)
    iv[:] = IV16
    st_whole, st = views(1)
    st[0] = 5
    assert tgcrypto.ctr256_encrypt(data, K, iv, st) == want_ctr
    assert bytes(iv) == want_ctr_iv and st[0] == want_state[0]
    assert iv_whole[:16] == iv_whole[32:] == b"\xa5" * 16 and st_whole[:16] == st_whole[17:] == b"\xa5" * 16
    # one of the two read-only: only the other is written
    ro_iv = bytes(IV16)
    st2 = bytearray([5])
    assert tgcrypto.ctr256_encrypt(data, K, ro_iv, st2) == want_ctr
    assert ro_iv == IV16 and st2[0] == want_state[0]
    iv3 = bytearray(IV16)
    assert tgcrypto.ctr256_encrypt(data, K, iv3, bytes([5])) == want_ctr
    assert iv3 == want_ctr_iv
    # CBC writes its last ciphertext block into a writable iv, and nothing past it
    want_cbc_iv = bytearray(IV16)
    want_cbc = tgcrypto.cbc256_encrypt(b"y" * 32, K, want_cbc_iv)
    cbc_whole, cbc_iv = views(16)
    cbc_iv[:] = IV16
    assert tgcrypto.cbc256_encrypt(b"y" * 32, K, cbc_iv) == want_cbc
    assert bytes(cbc_iv) == want_cbc_iv == want_cbc[-16:]
    assert cbc_whole[:16] == cbc_whole[32:] == b"\xa5" * 16
