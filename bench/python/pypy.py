"""PyPy: tgcrypto-ffi's cpyext module against the PyPy builds of cryptg and TgCrypto,
and against a cffi (ABI mode) call of the same core, to tell which binding PyPy calls
faster. Run under PyPy, in a venv with tgcrypto-ffi's pp wheel, cryptg and TgCrypto:

    pypy3 -m venv v && v/bin/pip install TgCrypto==1.2.5 cryptg==0.5.0.post0 cffi
    v/bin/pip install --no-index --find-links DIST tgcrypto-ffi
    v/bin/python bench/python/pypy.py [--lib zig-out/lib/libtgcrypto.so] [--quick]

Cases: AES-256-IGE encryption of 16 B and 16 KiB, and one MTProto 2.0 message of 1 KiB
encrypted and decrypted (client to server and back): tgcrypto-ffi's AuthKey does it in one
call each way; with cryptg it is the KDF in Python over hashlib.sha256 plus cryptg's IGE,
as Telethon does it. Every case checks its outputs equal once before it is timed.
Each figure is the best of several rounds after a JIT warm-up; ratios are of one run.
"""
import argparse
import hashlib
import os
import platform
import struct
import sys
import time

import tgcrypto_ffi
from tgcrypto_ffi import tgcrypto as ffi_tgcrypto

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def best_per_call(fn, seconds, rounds=7):
    """Best time of one call (s) over `rounds` rounds of about seconds/rounds each."""
    n, t = 1, 0.0
    while t < seconds / rounds / 4:  # calibrate (also warms the JIT)
        n *= 2
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        t = time.perf_counter() - t0
    n = max(1, int(n * (seconds / rounds) / max(t, 1e-9)))
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def cffi_ige(lib_path):
    """tg_ige256_encrypt through cffi's ABI mode (dlopen of the core library), or None."""
    try:
        import cffi
    except ImportError:
        return None
    if not os.path.exists(lib_path):
        return None
    ffi = cffi.FFI()
    ffi.cdef("int tg_init(void); int tg_ige256_encrypt(uint8_t *out, const uint8_t *in, uint32_t len,"
             " const uint8_t key[32], const uint8_t iv[32]);")
    lib = ffi.dlopen(lib_path)
    assert lib.tg_init() == 0

    def encrypt(data, key, iv):
        out = ffi.new("uint8_t[]", len(data))
        rc = lib.tg_ige256_encrypt(out, ffi.from_buffer(data), len(data), ffi.from_buffer(key), ffi.from_buffer(iv))
        if rc != 0:
            raise ValueError(rc)
        return ffi.buffer(out)[:]

    return encrypt


# MTProto 2.0 in Python, as Telethon's MTProtoState does it around cryptg (x = 0 client, 8 server)
def kdf(auth_key, msg_key, x):
    a = hashlib.sha256(msg_key + auth_key[x:x + 36]).digest()
    b = hashlib.sha256(auth_key[40 + x:76 + x] + msg_key).digest()
    return a[:8] + b[8:24] + a[24:32], b[:8] + a[8:24] + b[24:32]


def py_encrypt(cryptg, auth_key, key_id, plain, padding, x):
    body = plain + padding
    msg_key = hashlib.sha256(auth_key[88 + x:120 + x] + body).digest()[8:24]
    key, iv = kdf(auth_key, msg_key, x)
    return key_id + msg_key + cryptg.encrypt_ige(body, key, iv)


def py_decrypt(cryptg, auth_key, packet, x):
    msg_key = packet[8:24]
    key, iv = kdf(auth_key, msg_key, x)
    body = cryptg.decrypt_ige(packet[24:], key, iv)
    if hashlib.sha256(auth_key[88 + x:120 + x] + body).digest()[8:24] != msg_key:
        raise ValueError("msg_key mismatch")
    return body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=os.path.join(REPO, "zig-out", "lib", "libtgcrypto.so"))
    ap.add_argument("--quick", action="store_true", help="shorter rounds (a smoke run)")
    args = ap.parse_args()
    seconds = 0.5 if args.quick else 3.0
    if sys.implementation.name != "pypy":
        print("note: not PyPy; the figures are for", sys.implementation.name)
    import cryptg
    import tgcrypto as real_tgcrypto

    print(f"{platform.python_implementation()} {sys.version.split()[0]} "
          f"({'.'.join(map(str, getattr(sys, 'pypy_version_info', ())[:3]))}), {platform.machine()}, "
          f"tgcrypto-ffi {tgcrypto_ffi.__version__} backend {tgcrypto_ffi.get_backend()}")
    key, iv = os.urandom(32), os.urandom(32)
    rows = []
    ige_cffi = cffi_ige(args.lib)
    for n in (16, 16384):
        data = os.urandom(n)
        want = real_tgcrypto.ige256_encrypt(data, key, iv)
        cands = [("tgcrypto-ffi (cpyext)", lambda: ffi_tgcrypto.ige256_encrypt(data, key, iv)),
                 ("cryptg", lambda: cryptg.encrypt_ige(data, key, iv)),
                 ("TgCrypto", lambda: real_tgcrypto.ige256_encrypt(data, key, iv))]
        if ige_cffi is not None:
            cands.insert(1, ("the same core through cffi (ABI)", lambda: ige_cffi(data, key, iv)))
        for name, fn in cands:
            assert fn() == want, name
            rows.append((f"IGE encrypt {n} B", name, best_per_call(fn, seconds)))

    auth_key = os.urandom(256)
    key_id = hashlib.sha1(auth_key).digest()[-8:]
    ak = tgcrypto_ffi.AuthKey(auth_key)
    body = os.urandom(1024 - 32)  # salt, session_id, msg_id, seq_no, length, then the message data
    msg_id = int(time.time()) << 32
    to_server = struct.pack("<qqqii", 1, 2, msg_id, 1, len(body)) + body
    to_client = struct.pack("<qqqii", 1, 2, msg_id + 1, 2, len(body)) + body
    padding = os.urandom(16)  # 1024 + 16: a multiple of 16, within 12..1024 bytes of padding

    def fused():  # client encrypts, server decrypts, server encrypts, client decrypts
        ak.decrypt_message(ak.encrypt_message(to_server, padding=padding), server=True)
        return ak.decrypt_message(ak.encrypt_message(to_client, server=True, padding=padding))

    def python_cryptg():
        py_decrypt(cryptg, auth_key, py_encrypt(cryptg, auth_key, key_id, to_server, padding, 0), 0)
        return py_decrypt(cryptg, auth_key, py_encrypt(cryptg, auth_key, key_id, to_client, padding, 8), 8)

    assert ak.encrypt_message(to_server, padding=padding) == py_encrypt(cryptg, auth_key, key_id, to_server, padding, 0)
    assert fused() == to_client and python_cryptg() == to_client + padding
    case = "1 KiB message: encrypt+decrypt, both ways"
    rows.append((case, "tgcrypto-ffi AuthKey", best_per_call(fused, seconds)))
    rows.append((case, "Python KDF + cryptg (Telethon's way)", best_per_call(python_cryptg, seconds)))

    base = {}
    for case, name, t in rows:
        base.setdefault(case, t)
    print(f"{'case':44} {'implementation':38} {'time':>10}  vs tgcrypto-ffi")
    for case, name, t in rows:
        print(f"{case:44} {name:38} {t * 1e6:8.3f} us  {t / base[case]:6.2f}x")


if __name__ == "__main__":
    main()
