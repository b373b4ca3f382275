"""install()'s fused message layer and native CTR for Telethon v1, against Telethon's own
methods on the real cryptg (and pyaes for the CTR), in a fresh interpreter:

- encrypt_message_data: `os.urandom` of Telethon's mtprotostate is patched to a seeded
  stream; stock and fused give the same packet for data of many lengths, without the fused
  one calling Telethon's KDF;
- decrypt_message_data: two MTProtoStates in the same state read the same server packets
  (AuthKey, server=True): valid ones of many lengths, resent ones, even msg_ids, a wrong
  session id, messages too old, flipped bits, cut packets, an unknown constructor, a
  message_data_length that is not a multiple of 4: the same TLMessage or None or the same
  exception (type and text), and the same state afterwards;
- AESModeCTR: the native one and pyaes's give the same bytes over chunks of random sizes,
  encrypt and decrypt interleaved on the one keystream, incl. a counter that wraps 2^128;
  a 16-byte key stays on pyaes;
- logged, listed by replacements(), undone by uninstall().
"""
import subprocess
import sys

from conftest import cases

SCRIPT = r"""
import collections, logging, os, random, struct, sys, time
rounds, seed = int(sys.argv[1]), int(sys.argv[2])
import cryptg as real_cryptg                       # bound by Telethon's stock AES
from telethon.crypto import AuthKey, aesctr
from telethon.network import mtprotostate
from telethon.network.mtprotostate import MTProtoState
from telethon.tl.types import RpcError, Pong
from telethon.crypto import aes as telethon_aes
assert telethon_aes.cryptg is real_cryptg
stock_encrypt, stock_decrypt = MTProtoState.encrypt_message_data, MTProtoState.decrypt_message_data
stock_ctr_init = aesctr.AESModeCTR.__init__
log = []
class Grab(logging.Handler):
    def emit(self, record): log.append(record.getMessage())
logging.getLogger("tgcrypto_ffi").addHandler(Grab()); logging.getLogger("tgcrypto_ffi").setLevel(logging.INFO)
logging.getLogger("telethon").setLevel(logging.ERROR)
import tgcrypto_ffi
tgcrypto_ffi.install()
assert MTProtoState.encrypt_message_data is not stock_encrypt and aesctr.AESModeCTR.__init__ is not stock_ctr_init
assert len(tgcrypto_ffi.replacements()) == 3
assert [l for l in log if " -> " in l] == ["tgcrypto_ffi.install(): " + r for r in tgcrypto_ffi.replacements()]
rng = random.Random(seed)
checks = []

# Telethon's KDF, counted: the fused methods must not fall back to it for valid messages
kdf_calls = [0]
stock_kdf = MTProtoState._calc_key
def counting_kdf(*a):
    kdf_calls[0] += 1
    return stock_kdf(*a)
MTProtoState._calc_key = staticmethod(counting_kdf)

key = rng.randbytes(256)
server = tgcrypto_ffi.AuthKey(key)
loggers = collections.defaultdict(lambda: logging.getLogger("telethon"))
def new_state():
    s = MTProtoState(AuthKey(key), loggers)
    s.salt, s.id = 0x1122334455667788, 0x0102030405060708
    return s
stock_state, fused_state = new_state(), new_state()

def stream(seed):
    r = random.Random(seed)
    return lambda n: r.randbytes(n)

# --- encrypt: the same packet for the same padding stream
real_urandom = os.urandom
for i in range(rounds * 5):
    body = rng.randbytes(4 * rng.choice((0, 1, rng.randrange(0, 50), rng.randrange(0, 1300))))
    well_formed = i % 2 == 0
    data = struct.pack("<qii", 2 * i, i, len(body)) + body if well_formed else rng.randbytes(rng.randrange(16, 5000))
    s = rng.getrandbits(64)
    mtprotostate.os.urandom = stream(s)
    a = stock_encrypt(stock_state, data)
    mtprotostate.os.urandom = stream(s)
    before = kdf_calls[0]
    b = fused_state.encrypt_message_data(data)
    mtprotostate.os.urandom = real_urandom
    assert a == b and kdf_calls[0] == before, i
    if well_formed:
        assert server.decrypt_message(b, server=True) == struct.pack("<qq", fused_state.salt, fused_state.id) + data
checks.append("encrypt")

# --- decrypt: the same result and the same state
def packet(msg_id, body, session=None, length=None, cut=None, flip=None):
    plain = struct.pack("<qq", 99, fused_state.id if session is None else session)
    plain += struct.pack("<qii", msg_id, 5, len(body) if length is None else length) + body
    p = bytearray(server.encrypt_message(plain, server=True))
    if flip is not None:
        p[flip % len(p)] ^= 1 << rng.randrange(8)
    return bytes(p[:cut] if cut is not None else p)

def outcome(fn, state, p):
    try:
        m = fn(state, p)
        return ("ok", None if m is None else (m.msg_id, m.seq_no, bytes(m.obj)))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # cryptg panics (pyo3's PanicException) on a cut that is not 16-aligned
        return ("raised", type(e).__name__, str(e))

def view(state):
    return (state._highest_remote_id, list(state._recent_remote_ids), state.time_offset, state._ignore_count)

def both(p, fast=False):
    a = outcome(stock_decrypt, stock_state, p)
    before = kdf_calls[0]
    b = outcome(MTProtoState.decrypt_message_data, fused_state, p)
    assert a == b, (a, b)
    assert view(stock_state) == view(fused_state)
    if fast:
        assert kdf_calls[0] == before
    return a

def fresh_id():
    return ((int(time.time()) - rng.randrange(0, 20)) << 32) | (rng.getrandbits(30) << 1) | 1

kinds = collections.defaultdict(set)
for i in range(rounds * 5):
    body = bytes(RpcError(error_code=400, error_message="x" * rng.randrange(0, 3000)))
    mid = fresh_id()
    r = both(packet(mid, body), fast=True)
    assert r[0] == "ok" and r[1][0] == mid, r
    kinds["resent"].add(both(packet(mid, body))[1])  # a duplicate: None, counted as ignored
    pong = bytes(Pong(msg_id=1, ping_id=2))
    kinds["flipped"].add(both(packet(fresh_id(), pong, flip=rng.randrange(1 << 20)))[1])
    full = packet(fresh_id(), pong)
    kinds["cut"].add(both(full[: rng.randrange(0, len(full))])[1])
kinds["even"].add(both(packet(fresh_id() - 1, pong))[2])
kinds["session"].add(both(packet(fresh_id(), pong, session=7))[2])
kinds["old"].add(both(packet(((int(time.time()) - 400) << 32) | 1, pong))[1])
kinds["constructor"].add(both(packet(fresh_id(), b"\xaa\xbb\xcc\xdd" + bytes(12)))[1])
kinds["length % 4"].add(both(packet(fresh_id(), pong + b"\0\0"))[0])
assert kinds["resent"] == {None} and kinds["old"] == {None}, kinds
assert kinds["even"] == {"Server sent an even msg_id"}, kinds
assert kinds["session"] == {"Server replied with a wrong session ID (see FAQ for details)"}, kinds
assert kinds["constructor"] == {"TypeNotFoundError"} and kinds["length % 4"] == {"ok"}, kinds
assert kinds["flipped"] <= {"SecurityError", "InvalidBufferError", "PanicException"}, kinds
checks.append("decrypt")

# --- AESModeCTR: native vs pyaes, one keystream for encrypt and decrypt
def stock_ctr(k, iv):
    o = aesctr.AESModeCTR.__new__(aesctr.AESModeCTR)
    stock_ctr_init(o, k, iv)
    return o
for i in range(rounds):
    k = rng.randbytes(32)
    iv = rng.choice((rng.randbytes(16), b"\xff" * 15 + bytes([rng.randrange(250, 256)])))
    a, b = stock_ctr(k, iv), aesctr.AESModeCTR(k, iv)
    assert type(b._aes).__name__ == "NativeCTR"
    for _ in range(8):
        chunk = rng.randbytes(rng.choice((0, 1, 15, 16, 17, rng.randrange(1, 3000))))
        op = rng.choice(("encrypt", "decrypt"))
        assert getattr(a, op)(chunk) == getattr(b, op)(chunk), (i, op, len(chunk))
short = aesctr.AESModeCTR(rng.randbytes(16), bytes(16))
assert type(short._aes).__name__ == "AESModeOfOperationCTR"
checks.append("ctr")

MTProtoState._calc_key = staticmethod(stock_kdf)
tgcrypto_ffi.uninstall()
assert MTProtoState.encrypt_message_data is stock_encrypt and MTProtoState.decrypt_message_data is stock_decrypt
assert aesctr.AESModeCTR.__init__ is stock_ctr_init and tgcrypto_ffi.replacements() == []
assert b.encrypt(b"after") == a.encrypt(b"after")  # a native CTR made before uninstall() keeps working
print(" ".join(checks))
"""


def test_fused_state_and_ctr_equal_telethon(rng):
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(cases(40)), str(rng.getrandbits(32))],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    assert r.stdout.split() == ["encrypt", "decrypt", "ctr"]
