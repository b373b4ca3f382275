"""The decisions inside install()'s client patches, each in a fresh interpreter:

- the fused Pyrogram pack/unpack and Telethon encrypt/decrypt_message_data hand every input
  they do not take natively to the client's own function (a key that is not 256 bytes, a
  key id that is not the key's, a plaintext under 32 bytes, a stream that is not a BytesIO,
  a packet under 8 bytes) and return what it returns; a plaintext of exactly 32 bytes is
  taken natively;
- install() twice patches once (one finder, one replacement each); uninstall() logs each
  restored function, forgets the cached native keys and lets a later install() patch a
  client imported in between; nothing left to patch leaves no finder behind;
- the import hook: a client module served by another meta-path finder placed before
  install() (as frozen or bundled applications have) is still patched, with that finder's
  loader doing the work (its own module object, its get_source); a finder without
  find_spec is passed over; a loader without exec_module is left unwrapped and the import
  still works.
"""
from conftest import json_from_child

PRELUDE = r"""
import asyncio, importlib, importlib.machinery, importlib.util, json, logging, os, sys, types, warnings
asyncio.set_event_loop(asyncio.new_event_loop())  # Pyrogram 2.0.106 asks for one at import
log = []
class Grab(logging.Handler):
    def emit(self, record): log.append(record.getMessage())
logging.getLogger("tgcrypto_ffi").addHandler(Grab()); logging.getLogger("tgcrypto_ffi").setLevel(logging.INFO)
import tgcrypto_ffi
from tgcrypto_ffi import _keys, _patching
out = {}
calls = []  # the client functions a fused one handed over to
def run(name, f):  # out[name]: what f returned (a str, or its type's name) and the handovers
    calls.clear(); r = f(); out[name] = [r if isinstance(r, str) else type(r).__name__, list(calls)]
"""


def child(code):
    return json_from_child(PRELUDE + code)


def test_pyrogram_layer_falls_back_to_the_clients_own_functions():
    out = child(r"""
import pyrogram.crypto.mtproto as mod
from tgcrypto_ffi import _pyrogram
from io import BytesIO
def stock_pack(*a): calls.append("pack"); return "stock pack"
def stock_unpack(*a): calls.append("unpack"); return "stock unpack"
pack, unpack = _pyrogram.fused_pair(mod, stock_pack, stock_unpack)
key = os.urandom(256); kid = tgcrypto_ffi.AuthKey(key).id; sid = os.urandom(8)
class Body:  # a message whose write() gives n bytes
    def __init__(self, n): self.n = n
    def write(self): return bytes(self.n)
run("pack, 255-byte key", lambda: pack(Body(16), 1, sid, key[:255], kid))
run("pack, key as bytearray", lambda: pack(Body(16), 1, sid, bytearray(key), kid))
run("pack, another key id", lambda: pack(Body(16), 1, sid, key, bytes(8)))
run("pack, 31-byte plaintext", lambda: pack(Body(15), 1, sid, key, kid))
run("pack, 32-byte plaintext", lambda: pack(Body(16), 1, sid, key, kid))
packet = kid + bytes(100)
run("unpack, 255-byte key", lambda: unpack(BytesIO(packet), sid, key[:255], kid))
run("unpack, another key id", lambda: unpack(BytesIO(packet), sid, key, bytes(8)))
run("unpack, not a BytesIO", lambda: unpack(packet, sid, key, kid))
import struct
plain = bytes(8) + sid + struct.pack("<qiiI", 1, 7, 4, 0x997275b5)  # msg_id 1, seq_no 7, boolTrue
good = tgcrypto_ffi.AuthKey(key).encrypt_message(plain, server=True)
run("unpack, a good packet", lambda: unpack(BytesIO(good), sid, key, kid))
run("unpack, a good packet under another key id", lambda: unpack(BytesIO(good), sid, key, bytes(8)))
out["docs"] = [pack.__doc__, unpack.__doc__]
print(json.dumps(out))
""")
    stock_pack, stock_unpack = ["stock pack", ["pack"]], ["stock unpack", ["unpack"]]
    for case in ("pack, 255-byte key", "pack, key as bytearray", "pack, another key id", "pack, 31-byte plaintext"):
        assert out[case] == stock_pack, (case, out[case])
    assert out["pack, 32-byte plaintext"] == ["bytes", []]
    assert out["unpack, a good packet"] == ["Message", []]
    for case in ("unpack, 255-byte key", "unpack, another key id", "unpack, not a BytesIO",
                 "unpack, a good packet under another key id"):
        assert out[case] == stock_unpack, (case, out[case])
    assert out["docs"] == ["pyrogram.crypto.mtproto.pack over tgcrypto_ffi.AuthKey.encrypt_message (one native call)",
                           "pyrogram.crypto.mtproto.unpack over tgcrypto_ffi.AuthKey.decrypt_message (one native call)"]


def test_telethon_layer_falls_back_to_the_clients_own_methods():
    out = child(r"""
import collections
import telethon.network.mtprotostate as mod
from telethon.crypto import AuthKey
from tgcrypto_ffi import _telethon
def stock_encrypt(self, data): calls.append("encrypt"); return "stock encrypt"
def stock_decrypt(self, body): calls.append("decrypt"); return "stock decrypt"
encrypt, decrypt = _telethon.fused_state_methods(mod, stock_encrypt, stock_decrypt)
key = os.urandom(256)
loggers = collections.defaultdict(lambda: logging.getLogger("telethon"))
def state():
    s = mod.MTProtoState(AuthKey(key), loggers)
    s.salt, s.id = 1, 2
    return s
run("encrypt, 15 bytes of data", lambda: encrypt(state(), bytes(15)))
run("encrypt, 16 bytes of data", lambda: encrypt(state(), bytes(16)))
s = state(); s.auth_key.key_id = s.auth_key.key_id ^ 1
run("encrypt, another key id", lambda: encrypt(s, bytes(64)))
s = state(); s.auth_key = types.SimpleNamespace(key=key[:255], key_id=1)
run("encrypt, 255-byte key", lambda: encrypt(s, bytes(64)))
s = state(); s.auth_key = types.SimpleNamespace(key=None, key_id=None)
run("encrypt, no key", lambda: encrypt(s, bytes(64)))
run("decrypt, 7-byte body", lambda: decrypt(state(), bytes(7)))
run("decrypt, another key's packet", lambda: decrypt(state(), bytes(96)))
s = state(); s.auth_key.key_id = s.auth_key.key_id ^ 1
run("decrypt, another key id", lambda: decrypt(s, bytes(96)))
s = state(); s.auth_key = types.SimpleNamespace(key=None, key_id=None)
run("decrypt, no key", lambda: decrypt(s, bytes(96)))
print(json.dumps(out))
""")
    assert out["encrypt, 16 bytes of data"] == ["bytes", []]
    for case in ("encrypt, 15 bytes of data", "encrypt, another key id", "encrypt, 255-byte key", "encrypt, no key"):
        assert out[case] == ["stock encrypt", ["encrypt"]], (case, out[case])
    for case in ("decrypt, 7-byte body", "decrypt, another key's packet", "decrypt, another key id", "decrypt, no key"):
        assert out[case] == ["stock decrypt", ["decrypt"]], (case, out[case])


def test_install_twice_patches_once_and_uninstall_undoes_and_forgets():
    out = child(r"""
import pyrogram.crypto.mtproto as m, telethon.network.mtprotostate as t
stock = m.pack
tgcrypto_ffi.install(); tgcrypto_ffi.install()
out["count"] = len(tgcrypto_ffi.replacements())
out["finders"] = sys.meta_path.count(_patching._finder)
out["wraps stock"] = m.pack.__wrapped__ is stock
m.pack(types.SimpleNamespace(write=lambda: bytes(16)), 1, bytes(8), os.urandom(256), bytes(8))  # another id: stock pack, the key cached all the same
key = os.urandom(256)
m.pack(types.SimpleNamespace(write=lambda: bytes(16)), 1, bytes(8), key, tgcrypto_ffi.AuthKey(key).id)
out["cached"] = len(_keys._cache)
descriptions = tgcrypto_ffi.replacements()
log.clear()
tgcrypto_ffi.uninstall()
out["restored log"] = [l for l in log if "restored" in l]
out["expected log"] = ["tgcrypto_ffi.uninstall(): restored " + d.split(" -> ")[0] for d in reversed(descriptions)]
out["cached after"] = len(_keys._cache)
out["stock again"] = m.pack is stock
print(json.dumps(out))
""")
    assert out["count"] == 5 and out["finders"] == 1 and out["wraps stock"], out
    assert out["cached"] == 2 and out["cached after"] == 0 and out["stock again"], out
    assert out["restored log"] == out["expected log"] and len(out["restored log"]) == 5, out


def test_a_client_imported_after_uninstall_is_patched_by_the_next_install():
    out = child(r"""
tgcrypto_ffi.install()
tgcrypto_ffi.uninstall()
import pyrogram.crypto.mtproto as m, telethon.network.mtprotostate as t
out["after uninstall"] = hasattr(m.pack, "__wrapped__")
tgcrypto_ffi.install()
out["after install"] = hasattr(m.pack, "__wrapped__") and hasattr(t.MTProtoState.encrypt_message_data, "__wrapped__")
print(json.dumps(out))
""")
    assert out == {"after uninstall": False, "after install": True}


def test_nothing_left_to_patch_leaves_no_finder():
    out = child(r"""
import telethon.network.mtprotostate, telethon.crypto.aesctr
tgcrypto_ffi.install(tgcrypto=False)
out["patched"] = len(tgcrypto_ffi.replacements())
out["finder"] = _patching._finder in sys.meta_path
print(json.dumps(out))
""")
    assert out == {"patched": 3, "finder": False}


def test_clients_served_by_other_import_hooks_are_patched_through_their_loader():
    out = child(r"""
class HookModule(types.ModuleType):
    pass
class HookLoader(importlib.machinery.SourceFileLoader):
    def create_module(self, spec):
        return HookModule(spec.name)
class Hook:  # serves pyrogram.crypto.mtproto itself, as a bundler's or freezer's finder does
    def find_spec(self, name, path, target=None):
        if name != "pyrogram.crypto.mtproto":
            return None
        found = importlib.machinery.PathFinder.find_spec(name, path, target)
        return importlib.util.spec_from_file_location(name, found.origin, loader=HookLoader(name, found.origin))
class Legacy:  # a finder of the old protocol: no find_spec
    def find_module(self, name, path=None):
        return None
sys.meta_path.insert(0, Hook())
sys.meta_path.insert(0, Legacy())  # asked before the hook
tgcrypto_ffi.install(cryptg=False)
out["ours first"] = sys.meta_path.index(_patching._finder) == 0
import pyrogram.crypto.mtproto as m
out["patched"] = hasattr(m.pack, "__wrapped__")
out["hook's module"] = type(m) is HookModule
with open(m.__file__) as f:
    out["get_source"] = m.__spec__.loader.get_source(m.__name__) == f.read()
print(json.dumps(out))
""")
    assert out == {"ours first": True, "patched": True, "hook's module": True, "get_source": True}


def test_a_loader_without_exec_module_is_left_unwrapped():
    out = child(r"""
class OldLoader:  # the old loader protocol: load_module only
    def __init__(self, origin): self.origin = origin
    def load_module(self, name):
        module = types.ModuleType(name); module.__file__ = self.origin; module.__loader__ = self
        sys.modules[name] = module
        with open(self.origin) as f:
            exec(compile(f.read(), self.origin, "exec"), module.__dict__)
        return module
class Hook:
    def find_spec(self, name, path, target=None):
        if name != "pyrogram.crypto.mtproto":
            return None
        found = importlib.machinery.PathFinder.find_spec(name, path, target)
        return importlib.util.spec_from_loader(name, OldLoader(found.origin), origin=found.origin)
sys.meta_path.insert(0, Hook())
tgcrypto_ffi.install(cryptg=False)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # ImportWarning: load_module() is deprecated
    import pyrogram.crypto.mtproto as m
out["imported"] = callable(m.pack)
out["loader"] = type(m.__spec__.loader).__name__
print(json.dumps(out))
""")
    assert out == {"imported": True, "loader": "OldLoader"}
