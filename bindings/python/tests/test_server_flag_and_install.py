"""AuthKey's server flag takes any truth value as Python does (server=1 is
the server, server=0 the client), and install()'s per-module flags and
uninstall() restoring exactly what sys.modules held (each in a child
process: they change sys.modules)."""
import os

import pytest

from conftest import json_from_child

import tgcrypto_ffi


def message(n=64):
    return os.urandom(28) + (n - 32).to_bytes(4, "little") + os.urandom(n - 32)


@pytest.mark.parametrize("true", [True, 1, 2, -1, "yes", [0], 1.5])
def test_any_true_server_value_is_the_server(true):
    key, plain, pad = tgcrypto_ffi.AuthKey(os.urandom(256)), message(), os.urandom(16)
    as_server = key.encrypt_message(plain, server=True, padding=pad)
    as_client = key.encrypt_message(plain, server=False, padding=pad)
    assert as_server != as_client  # x = 8 vs x = 0: a different msg_key and AES key
    assert key.encrypt_message(plain, server=true, padding=pad) == as_server
    # a server's packet opens as the client (server=False) and a client's as the server
    assert key.decrypt_message(as_client, server=true) == plain
    with pytest.raises(tgcrypto_ffi.MtprotoSecurityError):
        key.decrypt_message(as_server, server=true)


@pytest.mark.parametrize("false", [False, 0, None, "", [], 0.0])
def test_any_false_server_value_is_the_client(false):
    key, plain, pad = tgcrypto_ffi.AuthKey(os.urandom(256)), message(), os.urandom(16)
    as_client = key.encrypt_message(plain, padding=pad)
    assert key.encrypt_message(plain, server=false, padding=pad) == as_client
    as_server = key.encrypt_message(plain, server=True, padding=pad)
    assert key.decrypt_message(as_server, server=false) == plain
    with pytest.raises(tgcrypto_ffi.MtprotoSecurityError):
        key.decrypt_message(as_client, server=false)


def test_server_value_whose_truth_fails_raises():
    class NoTruth:
        def __bool__(self):
            raise RuntimeError("no truth value")

    key = tgcrypto_ffi.AuthKey(os.urandom(256))
    with pytest.raises(RuntimeError, match="no truth value"):
        key.encrypt_message(message(), server=NoTruth())
    with pytest.raises(RuntimeError, match="no truth value"):
        key.decrypt_message(bytes(72), server=NoTruth())


def child(code):
    return json_from_child(code)


FLAGS = r"""
import json, sys, warnings
import tgcrypto_ffi
warnings.simplefilter("ignore")
out = {}
for kw in ({"cryptg": False}, {"tgcrypto": False}, {"tgcrypto": False, "cryptg": False}):
    replaced = tgcrypto_ffi.install(**kw)
    out[json.dumps(kw)] = {"replaced": sorted(replaced),
                           "tgcrypto": sys.modules.get("tgcrypto") is tgcrypto_ffi.tgcrypto,
                           "cryptg": sys.modules.get("cryptg") is tgcrypto_ffi.cryptg}
    tgcrypto_ffi.uninstall()
print(json.dumps(out))
"""


def test_install_with_a_module_switched_off_leaves_it_alone():
    out = child(FLAGS)
    assert out['{"cryptg": false}'] == {"replaced": ["tgcrypto"], "tgcrypto": True, "cryptg": False}
    assert out['{"tgcrypto": false}'] == {"replaced": ["cryptg"], "tgcrypto": False, "cryptg": True}
    assert out['{"tgcrypto": false, "cryptg": false}'] == {"replaced": [], "tgcrypto": False, "cryptg": False}


RESTORE = r"""
import json, sys, types, warnings
import tgcrypto_ffi
warnings.simplefilter("ignore")
before = types.ModuleType("tgcrypto")    # a module imported before install()
sys.modules["tgcrypto"] = before
sys.modules.pop("cryptg", None)          # and a name nothing had imported
tgcrypto_ffi.install()
during = (sys.modules["tgcrypto"] is tgcrypto_ffi.tgcrypto, sys.modules["cryptg"] is tgcrypto_ffi.cryptg)
tgcrypto_ffi.install()                    # twice: uninstall() still restores the first state
tgcrypto_ffi.uninstall()
out = {"during": during, "restored": sys.modules.get("tgcrypto") is before, "cryptg_gone": "cryptg" not in sys.modules}
tgcrypto_ffi.uninstall()                  # again: nothing to undo, nothing dropped
out["still"] = sys.modules.get("tgcrypto") is before
print(json.dumps(out))
"""


def test_uninstall_restores_a_module_imported_before_install():
    out = child(RESTORE)
    assert out == {"during": [True, True], "restored": True, "cryptg_gone": True, "still": True}
