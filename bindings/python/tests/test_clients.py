"""Pyrogram's and Telethon's own crypto code running on tgcrypto_ffi after
install(), each in a fresh interpreter (install() changes sys.modules):

- Pyrogram: `pyrogram.crypto.aes` binds tgcrypto_ffi.tgcrypto; its
  obfuscated transport (TCPAbridgedO: nonce, bytearray key/iv/state advanced
  in place, 1- and 4-byte length prefixes, the executor thread) talks over a
  loopback to a peer built on the real TgCrypto; `pyrogram.crypto.mtproto`
  pack/unpack exchange a Ping/Pong with tgcrypto_ffi.AuthKey as the server;
  its CDN-style CTR call matches the real TgCrypto.
- Telethon: `telethon.crypto.aes` binds tgcrypto_ffi.cryptg; AES.encrypt_ige
  (its own padding) and decrypt_ige match the real cryptg; MTProtoState
  encrypts a PingRequest that tgcrypto_ffi.AuthKey opens as the server, and
  opens the server's Pong that AuthKey encrypts.
"""
import subprocess
import sys

from conftest import cases

PYROGRAM = r"""
import asyncio, hashlib, os, random, sys
from io import BytesIO
import tgcrypto as real          # the PyPI original, imported before install(): the peer's side
import tgcrypto_ffi
replaced = tgcrypto_ffi.install()
assert replaced["tgcrypto"].startswith("the imported module 'tgcrypto'"), replaced
if sys.version_info >= (3, 14):  # Pyrogram 2.0.106 asks asyncio for a loop at import; 3.14 makes none
    asyncio.set_event_loop(asyncio.new_event_loop())
import pyrogram
from pyrogram import raw
from pyrogram.crypto import aes, mtproto
from pyrogram.raw.core import Long, Message
from pyrogram.connection.transport.tcp import tcp as tcp_mod
from pyrogram.connection.transport.tcp.tcp_abridged_o import TCPAbridgedO
assert aes.tgcrypto is tgcrypto_ffi.tgcrypto and real is not tgcrypto_ffi.tgcrypto
rounds = int(sys.argv[1])
rng = random.Random(int(sys.argv[2]))
checks = []

# --- the obfuscated transport over a loopback, the peer on the real TgCrypto
wire_out, wire_in = bytearray(), bytearray()
async def fake_connect(self, address): pass
async def fake_send(self, data): wire_out.extend(data)
async def fake_recv(self, length=0):
    chunk = bytes(wire_in[:length]); del wire_in[:length]; return chunk
tcp_mod.TCP.connect, tcp_mod.TCP.send, tcp_mod.TCP.recv = fake_connect, fake_send, fake_recv

async def transport():
    t = TCPAbridgedO(False, {})
    await t.connect(("127.0.0.1", 443))
    nonce = bytes(wire_out[:64])
    # the peer: decrypts what the client sends with nonce[8:40]/nonce[40:56]
    dkey, div, dst = nonce[8:40], bytearray(nonce[40:56]), bytearray(1)
    head = real.ctr256_decrypt(bytes(wire_out[:64]), dkey, div, dst)
    assert head[56:60] == b"\xef" * 4  # the protocol tag, the only encrypted bytes of the nonce
    del wire_out[:64]
    rev = nonce[55:7:-1]
    ekey, eiv, est = rev[0:32], bytearray(rev[32:48]), bytearray(1)
    for _ in range(rounds):
        n = 4 * rng.choice((1, 2, rng.randrange(1, 127), rng.randrange(127, 5000)))
        payload = os.urandom(n)
        await t.send(payload)  # encrypted in pyrogram.crypto_executor
        prefix = bytes([n // 4]) if n // 4 <= 126 else b"\x7f" + (n // 4).to_bytes(3, "little")
        assert real.ctr256_decrypt(bytes(wire_out), dkey, div, dst) == prefix + payload
        wire_out.clear()
        reply = os.urandom(4 * rng.choice((1, rng.randrange(1, 127), rng.randrange(127, 3000))))
        m = len(reply) // 4
        rprefix = bytes([m]) if m <= 126 else b"\x7f" + m.to_bytes(3, "little")
        wire_in.extend(real.ctr256_encrypt(rprefix + reply, ekey, eiv, est))
        assert await t.recv() == reply
    # the client's bytearray key/iv/state were advanced in place exactly like the peer's
    assert (bytes(t.encrypt[1]), t.encrypt[2][0]) == (bytes(div), dst[0])
    assert (bytes(t.decrypt[1]), t.decrypt[2][0]) == (bytes(eiv), est[0])
asyncio.run(transport())
checks.append("transport")

# --- MTProto pack/unpack against tgcrypto_ffi.AuthKey as the server
auth_key = os.urandom(256)
auth_key_id = hashlib.sha1(auth_key).digest()[-8:]
server = tgcrypto_ffi.AuthKey(auth_key)
assert server.id == auth_key_id
session_id, salt = os.urandom(8), rng.getrandbits(63)
for i in range(rounds):
    ping = raw.functions.Ping(ping_id=rng.getrandbits(63))
    body = ping.write()
    msg = Message(ping, msg_id=(rng.getrandbits(60) << 2), seq_no=2 * i + 1, length=len(body))
    packet = mtproto.pack(msg, salt, session_id, auth_key, auth_key_id)
    assert server.decrypt_message(packet, server=True) == Long(salt) + session_id + msg.write()
    pong = raw.types.Pong(msg_id=msg.msg_id, ping_id=ping.ping_id)
    pbody = pong.write()
    reply = Message(pong, msg_id=(rng.getrandbits(60) << 2) | 1, seq_no=2 * i, length=len(pbody))
    out = server.encrypt_message(Long(salt) + session_id + reply.write(), server=True)
    got = mtproto.unpack(BytesIO(out), session_id, auth_key, auth_key_id)
    assert got.body.ping_id == ping.ping_id and got.msg_id == reply.msg_id
checks.append("mtproto")

# --- CDN-style CTR (bytearray iv, default state) and IGE through pyrogram.crypto.aes
for _ in range(rounds):
    key, iv = os.urandom(32), os.urandom(16)
    chunk = os.urandom(rng.randrange(1, 70000))
    assert aes.ctr256_decrypt(chunk, key, bytearray(iv)) == real.ctr256_decrypt(chunk, key, bytearray(iv), bytearray(1))
    data = os.urandom(16 * rng.randrange(1, 3000))
    k2, iv2 = os.urandom(32), os.urandom(32)
    assert aes.ige256_encrypt(data, k2, iv2) == real.ige256_encrypt(data, k2, iv2)
    assert aes.ige256_decrypt(data, k2, iv2) == real.ige256_decrypt(data, k2, iv2)
checks.append("aes")
print(" ".join(checks))
"""

TELETHON = r"""
import collections, logging, os, random, struct, sys, time
from io import BytesIO
import cryptg as real            # the PyPI original, imported before install()
import tgcrypto_ffi
tgcrypto_ffi.install()
from telethon.crypto import AES, AuthKey
from telethon.crypto import aes as telethon_aes
from telethon.network.mtprotostate import MTProtoState
from telethon.tl.functions import PingRequest
from telethon.tl.types import Pong
assert telethon_aes.cryptg is tgcrypto_ffi.cryptg and real is not tgcrypto_ffi.cryptg
rounds = int(sys.argv[1])
rng = random.Random(int(sys.argv[2]))
checks = []

for _ in range(rounds):
    key, iv = os.urandom(32), os.urandom(32)
    n = rng.choice((1, 15, 16, 17, rng.randrange(1, 5000), rng.randrange(1, 600000)))
    plain = os.urandom(n)
    enc = AES.encrypt_ige(plain, key, iv)  # Telethon pads to 16 with os.urandom itself
    assert len(enc) == (n + 15) // 16 * 16
    assert real.decrypt_ige(enc, key, iv)[:n] == plain and AES.decrypt_ige(enc, key, iv)[:n] == plain
    aligned = plain[: n // 16 * 16]
    if aligned:
        assert AES.encrypt_ige(aligned, key, iv) == real.encrypt_ige(aligned, key, iv)
checks.append("aes")

auth_key = os.urandom(256)
loggers = collections.defaultdict(lambda: logging.getLogger("telethon"))
state = MTProtoState(AuthKey(auth_key), loggers)
state.salt = rng.getrandbits(63)
server = tgcrypto_ffi.AuthKey(auth_key)
for i in range(rounds):
    ping_id = rng.getrandbits(63)
    buf = BytesIO()
    msg_id = state.write_data_as_message(buf, bytes(PingRequest(ping_id)), content_related=True)
    data = buf.getvalue()
    packet = state.encrypt_message_data(data)
    assert server.decrypt_message(packet, server=True) == struct.pack("<qq", state.salt, state.id) + data
    body = bytes(Pong(msg_id=msg_id, ping_id=ping_id))
    remote_id = (int(time.time()) << 32) | (4 * i + 1)
    plain = struct.pack("<qq", state.salt, state.id) + struct.pack("<qii", remote_id, 2 * i + 1, len(body)) + body
    reply = state.decrypt_message_data(server.encrypt_message(plain, server=True))
    assert reply is not None and reply.obj.ping_id == ping_id and reply.msg_id == remote_id
checks.append("mtproto")
print(" ".join(checks))
"""


def run(script, rng):
    r = subprocess.run([sys.executable, "-c", script, str(cases(40)), str(rng.getrandbits(32))],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    return r.stdout.split()


def test_pyrogram_runs_on_tgcrypto_ffi(rng):
    assert run(PYROGRAM, rng) == ["transport", "mtproto", "aes"]


def test_telethon_runs_on_tgcrypto_ffi(rng):
    assert run(TELETHON, rng) == ["aes", "mtproto"]
