"""The top level of tgcrypto_ffi: hashes, backends and their switch,
cipheron's introspection, the AuthKey message layer, install()."""
import hashlib
import json
import os
import subprocess
import sys

import pytest

import tgcrypto_ffi
from tgcrypto_ffi import tgcrypto

import reference
from conftest import cases
from test_tgcrypto import big_view

K = bytes(range(32))


# ---------------------------------------------------------------- hashes

def test_hashes_against_hashlib(rng):
    for _ in range(cases(200)):
        n = rng.choice((0, 1, 55, 56, 63, 64, 65, rng.randrange(0, 300), rng.randrange(0, 70000)))
        data = os.urandom(n)
        assert tgcrypto_ffi.sha256(data) == hashlib.sha256(data).digest()
        assert tgcrypto_ffi.sha1(data) == hashlib.sha1(data).digest()
        cuts = sorted(rng.randrange(0, n + 1) for _ in range(rng.randrange(0, 7)))
        parts = [data[a:b] for a, b in zip([0] + cuts, cuts + [n])]
        assert tgcrypto_ffi.sha256(*parts) == hashlib.sha256(data).digest()
        assert tgcrypto_ffi.sha1(*[bytearray(p) for p in parts]) == hashlib.sha1(data).digest()


def test_hash_arguments():
    with pytest.raises(TypeError, match="^sha256\\(\\) takes no keyword arguments$"):
        tgcrypto_ffi.sha256(data=b"")
    with pytest.raises(TypeError, match="^a bytes-like object is required, not 'str'$"):
        tgcrypto_ffi.sha1(b"a", "b")
    with pytest.raises(ValueError, match=r"^Data is too large \(max 4294967295 bytes\)$"):
        tgcrypto_ffi.sha256(b"a", big_view())
    assert len(tgcrypto_ffi.sha1()) == 20 and type(tgcrypto_ffi.sha256()) is bytes


# ---------------------------------------------------------------- backends

def test_backends_and_introspection():
    names = [n for n, _ in tgcrypto_ffi.backends()]
    available = tgcrypto_ffi.available_backends()
    assert "soft" in available and set(available) <= set(names)
    assert tgcrypto_ffi.get_backend() in available
    forced = os.environ.get("TGCRYPTO_BACKEND")
    if forced:
        assert tgcrypto_ffi.get_backend() == forced
    else:
        assert tgcrypto_ffi.get_backend() == available[0]  # the best
    assert tgcrypto_ffi.hash_engine() in ("sha-ni", "armv8-sha", "portable")
    if tgcrypto_ffi.get_backend() == "soft":
        assert tgcrypto_ffi.hash_engine() == "portable"
    # has_aesni(): the CPU has hardware AES (x86 "aes" flag / ARM "aes" feature)
    if sys.platform.startswith("linux"):
        with open("/proc/cpuinfo") as f:
            flags = set(f.read().split())
        assert tgcrypto_ffi.has_aesni() == ("aes" in flags)
    assert tgcrypto_ffi.__version__ == tgcrypto_ffi.version() and tgcrypto_ffi.__version__.count(".") == 2


def test_set_backend_switches_and_every_backend_agrees():
    start = tgcrypto_ffi.get_backend()
    data, iv = os.urandom(4096 + 48), os.urandom(32)
    results = {}
    try:
        for name in tgcrypto_ffi.available_backends():
            tgcrypto_ffi.set_backend(name)
            assert tgcrypto_ffi.get_backend() == name
            results[name] = (
                tgcrypto.ige256_encrypt(data, K, iv),
                tgcrypto.ctr256_encrypt(data, K, bytearray(iv[:16]), bytearray([5])),
                tgcrypto.cbc256_decrypt(data, K, bytearray(iv[:16])),
                tgcrypto_ffi.sha256(data),
            )
        assert len(set(results.values())) == 1, list(results)
    finally:
        tgcrypto_ffi.set_backend(start)
    with pytest.raises(ValueError, match="^cannot use backend 'nope': unknown backend name$"):
        tgcrypto_ffi.set_backend("nope")
    foreign = "armce" if "aesni" in [n for n, _ in tgcrypto_ffi.backends()] else "aesni"
    with pytest.raises(ValueError, match=f"^cannot use backend '{foreign}': backend not available on this CPU or build$"):
        tgcrypto_ffi.set_backend(foreign)
    with pytest.raises(TypeError):
        tgcrypto_ffi.set_backend(b"soft")
    assert tgcrypto_ffi.get_backend() == start


def run_python(code, env=None):
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, **(env or {})}, timeout=120)
    return r


def test_tgcrypto_backend_environment_variable():
    for name in tgcrypto_ffi.available_backends():
        r = run_python("import tgcrypto_ffi; print(tgcrypto_ffi.get_backend())", {"TGCRYPTO_BACKEND": name})
        assert r.returncode == 0 and r.stdout.strip() == name, r.stderr
    r = run_python("import tgcrypto_ffi", {"TGCRYPTO_BACKEND": "bogus"})
    assert r.returncode != 0
    assert ("ImportError: tgcrypto_ffi: TGCRYPTO_BACKEND='bogus' cannot be used: unknown backend name. "
            "Available backends: " + ", ".join(tgcrypto_ffi.available_backends())) in r.stderr


# ---------------------------------------------------------------- AuthKey

def test_auth_key_against_the_reference(rng):
    for _ in range(cases(60)):
        auth_key = os.urandom(256)
        data_len = 4 * rng.choice((0, 1, 2, 3, rng.randrange(0, 300), rng.randrange(0, 5000)))
        plain = reference.message(data_len, rng)
        pad_len = rng.choice([p for p in range(12, 1025) if (len(plain) + p) % 16 == 0][:rng.choice((1, 64))])
        padding = os.urandom(pad_len)
        x = rng.choice((0, 8))
        want = reference.mtproto_encrypt(auth_key, plain, padding, x)
        key = tgcrypto_ffi.AuthKey(bytearray(auth_key))
        assert key.id == hashlib.sha1(auth_key).digest()[-8:]
        assert key.encrypt_message(plain, server=x == 8, padding=padding) == want
        assert key.decrypt_message(want, server=x == 0) == plain
        # the default padding: the shortest valid one, random
        a, b = key.encrypt_message(plain, server=x == 8), key.encrypt_message(plain, server=x == 8)
        assert a != b and len(a) == len(b)
        assert 12 <= len(a) - 24 - len(plain) <= 27 and (len(a) - 24) % 16 == 0
        assert key.decrypt_message(a, server=x == 0) == plain
        key.close()


def test_auth_key_rejects_any_tampering(rng):
    key = tgcrypto_ffi.AuthKey(os.urandom(256))
    plain = reference.message(40, rng)
    packet = key.encrypt_message(plain, server=True)
    assert key.decrypt_message(packet) == plain
    bits = range(len(packet) * 8) if cases(2) == 2 else rng.sample(range(len(packet) * 8), 64)
    for bit in bits:
        bad = bytearray(packet)
        bad[bit // 8] ^= 1 << (bit % 8)
        with pytest.raises(tgcrypto_ffi.MtprotoSecurityError) as e:
            key.decrypt_message(bad)
        assert str(e.value) == "MTProto message rejected"
    for n in (0, 1, 24, 71, 72 + 1, len(packet) - 16, len(packet) + 16):
        with pytest.raises(tgcrypto_ffi.MtprotoSecurityError):
            key.decrypt_message((packet * 2)[:n])
    # 72 + 24 bytes decrypted: message_data_length leaving under 12 bytes of
    # padding, past the end, or not a multiple of 4 is rejected; 40 and 44 are valid
    pad = os.urandom(24)
    for length, ok in ((40, True), (44, True), (56, False), (60, False), (64, False), (68, False), (2, False),
                       (42, False), (10**6, False)):
        p2 = plain[:28] + length.to_bytes(4, "little") + plain[32:]
        packet2 = key.encrypt_message(p2, server=True, padding=pad)
        if ok:
            assert key.decrypt_message(packet2) == (p2 + pad)[:32 + length]
        else:
            with pytest.raises(tgcrypto_ffi.MtprotoSecurityError):
                key.decrypt_message(packet2)
    assert issubclass(tgcrypto_ffi.MtprotoSecurityError, Exception)


def test_auth_key_arguments_and_life_cycle():
    with pytest.raises(ValueError, match="^Auth key size must be exactly 256 bytes$"):
        tgcrypto_ffi.AuthKey(bytes(255))
    with pytest.raises(TypeError):
        tgcrypto_ffi.AuthKey("x" * 256)
    key = tgcrypto_ffi.AuthKey(bytes(256))
    msgs = [
        ((b"",), {}, ValueError, "Plaintext must not be empty"),
        ((b"a" * 31,), {}, ValueError, "Plaintext must be at least 32 bytes (salt, session_id, msg_id, seq_no, message_data_length)"),
        (([b"a" * 16, b"a" * 15],), {}, ValueError, "Plaintext must be at least 32 bytes (salt, session_id, msg_id, seq_no, message_data_length)"),
        ((b"a" * 32,), {"padding": b"p" * 11}, ValueError, "Padding must be 12 to 1024 bytes (got 11)"),
        ((b"a" * 32,), {"padding": b"p" * 1025}, ValueError, "Padding must be 12 to 1024 bytes (got 1025)"),
        ((b"a" * 32,), {"padding": b"p" * 12}, ValueError, "Plaintext plus padding must be a multiple of 16 bytes (got 32 + 12)"),
        ((b"a" * 32,), {"pad": b""}, TypeError, "encrypt_message() got an unexpected keyword argument 'pad'"),
        ((), {}, TypeError, "encrypt_message() takes exactly 1 positional argument (0 given)"),
        ((7,), {}, TypeError, "a bytes-like object is required, not 'int'"),
        (([b"a" * 32, 7],), {}, TypeError, "a bytes-like object is required, not 'int'"),
    ]
    for args, kw, exc, msg in msgs:
        with pytest.raises(exc) as e:
            key.encrypt_message(*args, **kw)
        assert str(e.value) == msg
    with pytest.raises(ValueError, match=r"^Message is too large \(max 2147483647 bytes per packet\)$"):
        key.encrypt_message(big_view(2**31 - 32))
    with pytest.raises(TypeError, match="decrypt_message\\(\\) got an unexpected keyword argument 'padding'"):
        key.decrypt_message(b"", padding=b"")
    with key:
        pass
    assert key.closed
    key.close()
    for call in (lambda: key.encrypt_message(b"a" * 32), lambda: key.decrypt_message(b"a" * 72)):
        with pytest.raises(ValueError, match="^AuthKey is closed$"):
            call()
    assert len(key.id) == 8


# ---------------------------------------------------------------- install()

INSTALL = r"""
import asyncio, json, sys, warnings, importlib

if sys.version_info >= (3, 14):  # Pyrogram 2.0.106 asks asyncio for a loop at import; 3.14 makes none
    asyncio.set_event_loop(asyncio.new_event_loop())
pre = sys.argv[1]
if pre:
    importlib.import_module(pre)
import tgcrypto_ffi
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    replaced = tgcrypto_ffi.install()
import tgcrypto, cryptg
out = {"replaced": replaced, "warnings": [str(x.message) for x in w],
       "tgcrypto_is_ours": tgcrypto is tgcrypto_ffi.tgcrypto, "cryptg_is_ours": cryptg is tgcrypto_ffi.cryptg}
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    out["again"] = tgcrypto_ffi.install()
tgcrypto_ffi.uninstall()
import tgcrypto as t2
out["after_uninstall"] = t2 is tgcrypto_ffi.tgcrypto
out["after_uninstall_file"] = getattr(t2, "__file__", "")
print(json.dumps(out))
"""


def run_install(pre=""):
    r = subprocess.run([sys.executable, "-c", INSTALL, pre], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_install_replaces_and_says_what():
    out = run_install()
    assert out["tgcrypto_is_ours"] and out["cryptg_is_ours"] and out["warnings"] == []
    # the real TgCrypto and cryptg are installed in the test environment, not imported
    assert out["replaced"]["tgcrypto"].startswith("the installed module 'tgcrypto' at ")
    assert out["replaced"]["tgcrypto"].endswith("(not imported)")
    assert "cryptg" in out["replaced"]["cryptg"]
    assert out["again"] == {"tgcrypto": None, "cryptg": None}
    # uninstall(): the real module comes back
    assert not out["after_uninstall"] and "tgcrypto_ffi" not in out["after_uninstall_file"]


def test_install_after_a_real_import():
    out = run_install("tgcrypto")
    assert out["replaced"]["tgcrypto"].startswith("the imported module 'tgcrypto' from ")
    assert out["tgcrypto_is_ours"]


@pytest.mark.parametrize("client,name", [("pyrogram.crypto.aes", "pyrogram"), ("telethon.crypto.aes", "telethon")])
def test_install_warns_when_a_client_bound_its_module(client, name):
    out = run_install(client)
    assert any(client in w and f"call install() before importing {name}" in w for w in out["warnings"]), out


def test_distribution_has_no_top_level_tgcrypto_or_cryptg():
    from importlib.metadata import files

    tops = {str(f).split("/")[0] for f in files("tgcrypto-ffi")}
    assert tops == {"tgcrypto_ffi", f"tgcrypto_ffi-{tgcrypto_ffi.__version__}.dist-info"}, tops
