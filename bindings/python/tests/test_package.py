"""The package's own Python: its public names, has_aesni(), what install()
reports, warns and logs, uninstall() after a second install(), and the
cache of native AuthKeys the fused message layers share (_keys.py).
Whatever touches sys.modules runs in a child interpreter."""
import hashlib
import os
import struct

import pytest

from conftest import json_from_child

import tgcrypto_ffi
from tgcrypto_ffi import _keys

PUBLIC = {"install", "uninstall", "replacements", "has_aesni", "get_backend", "set_backend", "backends",
          "available_backends", "hash_engine", "sha256", "sha1", "AuthKey", "MtprotoSecurityError",
          "factorize_pq", "CTRContext", "IGEContext", "CBCContext", "tgcrypto", "cryptg"}


def child(code):
    return json_from_child(code)


def test_public_names():
    assert set(tgcrypto_ffi.__all__) == PUBLIC
    assert all(hasattr(tgcrypto_ffi, n) for n in PUBLIC)
    assert isinstance(tgcrypto_ffi.__version__, str) and tgcrypto_ffi.__version__


def test_backends_lists_each_backend_once_by_name():
    listed = tgcrypto_ffi.backends()
    names = [n for n, _ in listed]
    assert all(type(n) is str and n for n in names) and len(set(names)) == len(names)
    assert all(type(a) is bool for _, a in listed) and "soft" in names
    assert tgcrypto_ffi.available_backends() == [n for n, a in listed if a]


def test_has_aesni_means_a_hardware_backend(monkeypatch):
    for listed, want in (([("soft", True)], False), ([("aesni", True), ("soft", True)], True),
                         ([("aesni", False), ("soft", True)], False), ([("armce", True)], True)):
        monkeypatch.setattr(tgcrypto_ffi, "backends", lambda listed=listed: listed)
        assert tgcrypto_ffi.has_aesni() is want, listed


REPORT = r"""
import json, logging, sys, types, warnings, importlib.util
log = []
class Grab(logging.Handler):
    def emit(self, record): log.append(record.getMessage())
logging.getLogger("tgcrypto_ffi").addHandler(Grab()); logging.getLogger("tgcrypto_ffi").setLevel(logging.INFO)
import tgcrypto_ffi
out = {}
# nothing there before: None, and a line saying what import now gives
sys.modules.pop("cryptg", None)
real_find_spec = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name == "cryptg" else real_find_spec(name, *a)
out["none"] = tgcrypto_ffi.install(tgcrypto=False, message_layer=False)
tgcrypto_ffi.uninstall()
# a spec that cannot be looked up counts as nothing there
def failing(name, *a):
    raise ValueError("no spec")
importlib.util.find_spec = failing
out["failing"] = tgcrypto_ffi.install(tgcrypto=False, message_layer=False)
tgcrypto_ffi.uninstall()
importlib.util.find_spec = real_find_spec
# an imported module without __file__: its repr; with one: the file
bare = types.ModuleType("cryptg")
sys.modules["cryptg"] = bare
out["bare"] = tgcrypto_ffi.install(tgcrypto=False, message_layer=False)
tgcrypto_ffi.uninstall()
filed = types.ModuleType("cryptg"); filed.__file__ = "/somewhere/cryptg.py"
sys.modules["cryptg"] = filed
out["filed"] = tgcrypto_ffi.install(tgcrypto=False, message_layer=False)
out["again"] = tgcrypto_ffi.install(tgcrypto=False, message_layer=False)  # already installed: None
tgcrypto_ffi.uninstall()
out["restored_filed"] = sys.modules.get("cryptg") is filed
# a second module after a full install/uninstall round is the one restored
other = types.ModuleType("cryptg"); other.__file__ = "/elsewhere/cryptg.py"
sys.modules["cryptg"] = other
tgcrypto_ffi.install(tgcrypto=False, message_layer=False)
tgcrypto_ffi.uninstall()
out["restored_other"] = sys.modules.get("cryptg") is other
out["log"] = log
print(json.dumps(out))
"""


def test_install_reports_and_logs_what_it_replaced():
    out = child(REPORT)
    assert out["none"] == {"cryptg": None}
    assert out["failing"] == {"cryptg": None}
    assert out["bare"] == {"cryptg": "the imported module 'cryptg' from <module 'cryptg'>"}
    assert out["filed"] == {"cryptg": "the imported module 'cryptg' from /somewhere/cryptg.py"}
    assert out["again"] == {"cryptg": None}
    assert out["restored_filed"] and out["restored_other"]
    gives = "tgcrypto_ffi.install(): import cryptg now gives tgcrypto_ffi.cryptg"
    assert out["log"][:2] == [gives, gives]
    assert out["log"][2] == gives + ", replacing the imported module 'cryptg' from <module 'cryptg'>"
    assert out["log"][3] == gives + ", replacing the imported module 'cryptg' from /somewhere/cryptg.py"


WARN = r"""
import json, sys, types, warnings
import tgcrypto_ffi
sys.modules["telethon.crypto.aes"] = types.ModuleType("telethon.crypto.aes")  # a client imported first
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    tgcrypto_ffi.install(tgcrypto=False, message_layer=False)  # the caller's line
print(json.dumps([(w.filename, w.lineno, str(w.message)) for w in caught]))
"""


def test_install_warns_at_the_callers_line():
    (filename, lineno, message), = child(WARN)
    assert (filename, lineno) == ("<string>", 7)
    assert message.startswith("tgcrypto_ffi.install(): telethon.crypto.aes was imported before install()")


# ------------------------------------------------------------ the AuthKey cache

@pytest.fixture
def empty_cache():
    _keys.forget_all()
    yield
    _keys.forget_all()


def test_one_auth_key_per_key_value(empty_cache):
    key = os.urandom(256)
    ak, id8, id_int = _keys.native_key(key)
    assert id8 == hashlib.sha1(key).digest()[-8:]
    assert id_int == struct.unpack("<Q", id8)[0]
    assert ak.id == id8
    assert _keys.native_key(key)[0] is ak
    assert _keys.native_key(bytes(bytearray(key)))[0] is ak  # equal bytes, another object


@pytest.mark.parametrize("key", [bytearray(256), memoryview(bytes(256)), "x" * 256, bytes(255), bytes(257), b"", None, 5])
def test_not_256_bytes_of_type_bytes_is_left_to_the_client(empty_cache, key):
    assert _keys.native_key(key) is None
    assert len(_keys._cache) == 0


def test_the_cache_holds_64_keys_then_starts_again(empty_cache):
    keys = [os.urandom(256) for _ in range(65)]
    first = [_keys.native_key(k)[0] for k in keys[:64]]
    assert len(_keys._cache) == 64
    assert all(_keys.native_key(k)[0] is a for k, a in zip(keys[:64], first))  # all 64 kept
    _keys.native_key(keys[64])  # the 65th: emptied, then this one
    assert list(_keys._cache) == [keys[64]]
    assert _keys.native_key(keys[0])[0] is not first[0]


def test_forget_all_empties_the_cache(empty_cache):
    key = os.urandom(256)
    ak = _keys.native_key(key)[0]
    _keys.forget_all()
    assert len(_keys._cache) == 0
    assert _keys.native_key(key)[0] is not ak
