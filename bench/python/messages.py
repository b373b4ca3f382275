"""A message through each Python client's own encrypt + decrypt: Telethon v1's
MTProtoState.encrypt_message_data + decrypt_message_data on cryptg (its stock accelerator)
against the same methods after tgcrypto_ffi.install(), and Pyrogram's mtproto.pack + unpack
on TgCrypto against the same after install(); 64 B and 1 KiB of message data (the TL object
inside the message: a bytes-like RpcError / raw object of about that size). Target: install()
takes at most a third of the stock time.

Both sides run in this one process: the client is imported first (so its stock functions
bind cryptg / TgCrypto, checked below), its stock functions kept, then install() patches the
message layer in place. Timed round-robin; each sample a loop of about 10 ms (2 ms with
BENCH_QUICK=1), the figure the fastest of ROUNDS samples (7, quick 3). Prints µs per
encrypt + decrypt pair, the ratio, the target met or not; writes
bench/results/python-messages.json.

    bench/python/run.sh messages      (or: python bench/python/messages.py in a venv with
                                       telethon 1.45.0, cryptg, pyrogram 2.0.106, TgCrypto)
"""
import collections
import json
import logging
import os
import struct
import sys
import time
import warnings
from datetime import datetime, timezone
from io import BytesIO
from pathlib import Path

import cryptg
import tgcrypto
from pyrogram import raw
from pyrogram.crypto import aes as pyrogram_aes
from pyrogram.crypto import mtproto
from pyrogram.raw.core import Long, Message
from telethon.crypto import AuthKey as TelethonAuthKey
from telethon.crypto import aes as telethon_aes
from telethon.network.mtprotostate import MTProtoState
from telethon.tl.types import RpcError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import cpu_model  # noqa: E402

QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", 3 if QUICK else 7))
SAMPLE_S = 0.002 if QUICK else 0.01
OUT = Path(__file__).resolve().parents[1] / "results" / "python-messages.json"
SIZES = (64, 1024)
TARGET = 3.0

assert telethon_aes.cryptg is cryptg and pyrogram_aes.tgcrypto is tgcrypto
assert "tgcrypto_ffi" not in cryptg.__file__ and "tgcrypto_ffi" not in tgcrypto.__file__
stock = {
    "telethon": (MTProtoState.encrypt_message_data, MTProtoState.decrypt_message_data),
    "pyrogram": (mtproto.pack, mtproto.unpack),
}
import tgcrypto_ffi  # noqa: E402

logging.getLogger("tgcrypto_ffi").setLevel(logging.WARNING)
with warnings.catch_warnings():  # the clients were imported first on purpose: their stock side keeps cryptg / TgCrypto
    warnings.simplefilter("ignore", RuntimeWarning)
    tgcrypto_ffi.install()
fused = {
    "telethon": (MTProtoState.encrypt_message_data, MTProtoState.decrypt_message_data),
    "pyrogram": (mtproto.pack, mtproto.unpack),
}
assert all(fused[c][i] is not stock[c][i] for c in fused for i in (0, 1)), tgcrypto_ffi.replacements()

key = os.urandom(256)
server = tgcrypto_ffi.AuthKey(key)


def telethon_pair(size, functions):
    """One encrypt + decrypt through MTProtoState with the given methods."""
    encrypt, decrypt = functions
    state = MTProtoState(TelethonAuthKey(key), collections.defaultdict(lambda: logging.getLogger("bench")))
    state.salt = 1
    body = bytes(RpcError(error_code=400, error_message="x" * (size - 12)))
    data = struct.pack("<qii", 2, 1, len(body)) + body
    msg_id = (int(time.time()) << 32) | 1
    reply = server.encrypt_message(struct.pack("<qq", 7, state.id) + struct.pack("<qii", msg_id, 1, len(body)) + body,
                                   server=True)
    assert decrypt(state, reply).obj.error_message == "x" * (size - 12)

    def pair():
        encrypt(state, data)
        state._highest_remote_id = 0  # the same reply again, not a duplicate
        decrypt(state, reply)
    return pair


def pyrogram_pair(size, functions):
    """One pack + unpack through pyrogram.crypto.mtproto with the given functions."""
    pack, unpack = functions
    key_id, session_id, salt = server.id, os.urandom(8), 7
    obj = raw.types.RpcError(error_code=400, error_message="x" * (size - 12))
    body = obj.write()
    msg = Message(obj, msg_id=4, seq_no=1, length=len(body))
    reply = server.encrypt_message(Long(salt) + session_id + Message(obj, msg_id=5, seq_no=1, length=len(body)).write(),
                                   server=True)
    assert unpack(BytesIO(reply), session_id, key, key_id).body.error_message == "x" * (size - 12)

    def pair():
        pack(msg, salt, session_id, key, key_id)
        unpack(BytesIO(reply), session_id, key, key_id)
    return pair


def per_call(fn):
    n = 1
    while True:
        t = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t
        if dt >= SAMPLE_S:
            return n
        n *= 2


def measure(fns):
    loops = {name: per_call(fn) for name, fn in fns.items()}
    best = {name: float("inf") for name in fns}
    for _ in range(ROUNDS):
        for name, fn in fns.items():
            n = loops[name]
            t = time.perf_counter()
            for _ in range(n):
                fn()
            best[name] = min(best[name], (time.perf_counter() - t) / n)
    return best


def main():
    rows = []
    build = {"telethon": telethon_pair, "pyrogram": pyrogram_pair}
    accelerator = {"telethon": "cryptg " + getattr(cryptg, "__version__", "0.6.0"), "pyrogram": "TgCrypto 1.2.5"}
    print(f"CPU: {cpu_model()}; load average {os.getloadavg()[0]:.2f}; Python {sys.version.split()[0]}; "
          f"tgcrypto_ffi backend {tgcrypto_ffi.get_backend()}")
    print(f"{'client':10} {'size':>6} {'stock µs':>10} {'install() µs':>13} {'ratio':>7}  target ≥ {TARGET}x")
    for client in ("telethon", "pyrogram"):
        for size in SIZES:
            best = measure({"stock": build[client](size, stock[client]), "install": build[client](size, fused[client])})
            ratio = best["stock"] / best["install"]
            rows.append({"client": client, "accelerator": accelerator[client], "size": size,
                         "stock_us": best["stock"] * 1e6, "install_us": best["install"] * 1e6, "ratio": ratio,
                         "target_met": ratio >= TARGET})
            print(f"{client:10} {size:>6} {best['stock'] * 1e6:>10.2f} {best['install'] * 1e6:>13.2f} {ratio:>6.2f}x  "
                  f"{'met' if ratio >= TARGET else 'NOT met'} (stock on {accelerator[client]})")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "cpu": cpu_model(),
        "load_average": os.getloadavg()[0], "python": sys.version.split()[0], "backend": tgcrypto_ffi.get_backend(),
        "quick": QUICK, "rounds": ROUNDS, "rows": rows}, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
