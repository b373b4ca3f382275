"""install()'s fused message layer for Pyrogram and its forks (`<pkg>.crypto.mtproto.pack` /
`unpack`), against the client's own functions on the real TgCrypto, in a fresh interpreter
per package (whichever of pyrogram / hydrogram is installed; Kurigram and Pyrofork install
as `pyrogram`):

- pack: the module's `urandom` is patched to a seeded stream; the stock and the fused pack
  give the same packet for messages of many lengths, and the fused one opens with
  tgcrypto_ffi.AuthKey as the server;
- unpack: server packets (AuthKey, server=True) of many lengths give the same Message;
  tampered packets (a flipped byte anywhere, cut, wrong session_id, even msg_id, an unknown
  constructor, a message_data_length that is not a multiple of 4, padding over 1024 bytes)
  give the same result or the same exception (type and text) as the stock unpack;
- the patch is logged, listed by replacements(), and undone by uninstall().
"""
import importlib.util
import subprocess
import sys

import pytest

from conftest import cases

SCRIPT = r"""
import hashlib, importlib, logging, os, random, struct, sys
import asyncio
asyncio.set_event_loop(asyncio.new_event_loop())  # Pyrogram 2.0.106 asks for one at import; 3.14 has none by default
from io import BytesIO
pkg, rounds, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
import tgcrypto as real_tgcrypto          # the PyPI original, bound by the client's stock aes
mtproto = importlib.import_module(pkg + ".crypto.mtproto")
raw = importlib.import_module(pkg + ".raw")
core = importlib.import_module(pkg + ".raw.core")
Long, Message = core.Long, core.Message
stock_pack, stock_unpack = mtproto.pack, mtproto.unpack
assert importlib.import_module(pkg + ".crypto.aes").tgcrypto is real_tgcrypto
log = []
class Grab(logging.Handler):
    def emit(self, record): log.append(record.getMessage())
logging.getLogger("tgcrypto_ffi").addHandler(Grab()); logging.getLogger("tgcrypto_ffi").setLevel(logging.INFO)
import tgcrypto_ffi
tgcrypto_ffi.install()
fused_pack, fused_unpack = mtproto.pack, mtproto.unpack
assert fused_pack is not stock_pack and fused_unpack is not stock_unpack
assert [l for l in log if ".pack -> " in l or ".unpack -> " in l] == ["tgcrypto_ffi.install(): " + r for r in tgcrypto_ffi.replacements()]
assert len(tgcrypto_ffi.replacements()) == 2
# the client's kdf, counted: the fused functions must not fall back to it for valid messages
kdf_calls = [0]
stock_kdf = mtproto.kdf
def counting_kdf(*a):
    kdf_calls[0] += 1
    return stock_kdf(*a)
mtproto.kdf = counting_kdf
def fused_only(fn, *args):
    before = kdf_calls[0]
    out = fn(*args)
    return out, kdf_calls[0] - before
rng = random.Random(seed)
auth_key = rng.randbytes(256)
auth_key_id = hashlib.sha1(auth_key).digest()[-8:]
server = tgcrypto_ffi.AuthKey(auth_key)
session_id, salt = rng.randbytes(8), rng.getrandbits(63)
checks = {}

def stream(seed):
    r = random.Random(seed)
    return lambda n: r.randbytes(n)

def text(n):
    return "".join(rng.choice("abcdefghé€") for _ in range(n))

def outcome(fn, *args):
    try:
        m = fn(*args)
        return ("ok", m.msg_id, m.seq_no, m.length, m.body.write())
    except Exception as e:
        return ("raised", type(e), str(e))

# --- pack: the same packet for the same padding stream
for i in range(rounds * 5):
    body = raw.types.RpcError(error_code=rng.randrange(1 << 31), error_message=text(rng.randrange(0, 1500)))
    msg = Message(body, msg_id=rng.getrandbits(62) << 1, seq_no=rng.randrange(1 << 31), length=len(body.write()))
    s = rng.getrandbits(64)
    mtproto.urandom = stream(s)
    a = stock_pack(msg, salt, session_id, auth_key, auth_key_id)
    mtproto.urandom = stream(s)
    b, stock_calls = fused_only(fused_pack, msg, salt, session_id, auth_key, auth_key_id)
    assert a == b and stock_calls == 0, i
    assert server.decrypt_message(b, server=True) == Long(salt) + session_id + msg.write()
mtproto.urandom = os.urandom
# a foreign auth_key_id and a short key: the stock function runs (same bytes, same error)
msg = Message(raw.functions.Ping(ping_id=5), msg_id=8, seq_no=1, length=12)
mtproto.urandom = stream(1); a = stock_pack(msg, salt, session_id, auth_key, b"\0" * 8)
mtproto.urandom = stream(1); b = fused_pack(msg, salt, session_id, auth_key, b"\0" * 8)
assert a == b and a[:8] == b"\0" * 8
mtproto.urandom = os.urandom
checks["pack"] = rounds * 5

# --- unpack: valid packets give the same Message
def server_packet(msg_id, body_bytes, length=None, padding=None, session=None, tamper=None):
    plain = Long(salt) + (session or session_id) + struct.pack("<qii", msg_id, 7, len(body_bytes) if length is None else length) + body_bytes
    packet = bytearray(server.encrypt_message(plain, server=True, padding=padding))
    if tamper is not None:
        packet[tamper % len(packet)] ^= 1 << rng.randrange(8)
    return bytes(packet)

def both(packet, sid=None):
    a = outcome(stock_unpack, BytesIO(packet), sid or session_id, auth_key, auth_key_id)
    b = outcome(fused_unpack, BytesIO(packet), sid or session_id, auth_key, auth_key_id)
    assert a == b, (a, b)
    return a

for i in range(rounds * 5):
    body = raw.types.RpcError(error_code=400, error_message=text(rng.randrange(0, 3000))).write()
    p = server_packet((rng.getrandbits(62) << 1) | 1, body)
    assert both(p)[0] == "ok"
    assert fused_only(fused_unpack, BytesIO(p), session_id, auth_key, auth_key_id)[1] == 0
checks["unpack"] = rounds * 5

# --- unpack: tampered and odd packets, same result or same exception
kinds = {}
def record(kind, r):
    kinds.setdefault(kind, set()).add(r[0] if r[0] == "ok" else r[1].__name__)
body = raw.types.Pong(msg_id=2, ping_id=3).write()
for i in range(rounds * 5):
    p = server_packet(rng.getrandbits(62) << 1 | 1, body, tamper=rng.randrange(1 << 20))
    record("flipped bit", both(p))
    good = server_packet(rng.getrandbits(62) << 1 | 1, body)
    record("cut", both(good[: rng.randrange(0, len(good))]))
record("wrong session_id", both(server_packet(5, body), sid=b"\1" * 8))
record("even msg_id", both(server_packet(4, body)))
record("unknown constructor", both(server_packet(5, b"\xaa\xbb\xcc\xdd" + b"\0" * 12)))
record("length not a multiple of 4", both(server_packet(5, body + b"\0\0")))
record("padding over 1024", both(server_packet(5, body + bytes(1100), length=len(body))))
record("empty", both(b""))
assert kinds["flipped bit"] <= {"SecurityCheckMismatch", "ValueError", "ConnectionError"} and "ok" not in kinds["flipped bit"], kinds
assert kinds["wrong session_id"] == {"SecurityCheckMismatch"} and kinds["even msg_id"] == {"SecurityCheckMismatch"}, kinds
assert kinds["unknown constructor"] == {"ValueError"} and kinds["padding over 1024"] == {"SecurityCheckMismatch"}, kinds
assert kinds["length not a multiple of 4"] == {"ok"}, kinds  # stock does not check it: neither does the fused one
checks["tampered"] = sum(map(len, kinds.values()))

tgcrypto_ffi.uninstall()
assert mtproto.pack is stock_pack and mtproto.unpack is stock_unpack and tgcrypto_ffi.replacements() == []
print(" ".join(sorted(checks)))
"""

PACKAGES = [p for p in ("pyrogram", "hydrogram") if importlib.util.find_spec(p) is not None]


def test_a_pyrogram_family_client_is_installed():
    assert PACKAGES, "pyrogram (or a fork) is a test dependency"


@pytest.mark.parametrize("pkg", PACKAGES)
def test_fused_pack_unpack_equal_the_client(pkg, rng):
    r = subprocess.run([sys.executable, "-c", SCRIPT, pkg, str(cases(40)), str(rng.getrandbits(32))],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    assert r.stdout.split() == ["pack", "tampered", "unpack"]
