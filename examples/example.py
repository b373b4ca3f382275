"""Using libtgcrypto from Python through ctypes (no compiler, no extension module).

    python3 examples/example.py      # after `zig build`; TGCRYPTO_LIB overrides the path

Checks the FIPS-197 AES-256 answer (CBC with a zero IV = one ECB block),
then an IGE round trip, as a TgCrypto-style wrapper would.
"""
import ctypes
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NAMES = {"linux": "lib/libtgcrypto.so", "darwin": "lib/libtgcrypto.dylib", "win32": "bin/tgcrypto.dll"}


def load():
    path = os.environ.get("TGCRYPTO_LIB") or str(ROOT / "zig-out" / NAMES.get(sys.platform, NAMES["linux"]))
    lib = ctypes.CDLL(path)
    buf, u32 = ctypes.c_char_p, ctypes.c_uint32
    for name in ("tg_ige256_encrypt", "tg_ige256_decrypt", "tg_cbc256_encrypt"):
        getattr(lib, name).argtypes = [ctypes.c_void_p, buf, u32, buf, ctypes.c_void_p]
        getattr(lib, name).restype = ctypes.c_int
    lib.tg_backend.restype = ctypes.c_char_p
    lib.tg_strerror.restype = ctypes.c_char_p
    lib.tg_strerror.argtypes = [ctypes.c_int]
    return lib


def call(lib, fn, data: bytes, key: bytes, iv: bytearray) -> bytes:
    out = ctypes.create_string_buffer(len(data))
    iv_buf = (ctypes.c_uint8 * len(iv)).from_buffer(iv)
    rc = getattr(lib, fn)(out, data, len(data), key, iv_buf)
    if rc != 0:
        raise ValueError(lib.tg_strerror(rc).decode())
    return out.raw


def main() -> int:
    lib = load()
    print("backend:", lib.tg_backend().decode())
    key = bytes(range(32))
    block = call(lib, "tg_cbc256_encrypt", bytes.fromhex("00112233445566778899aabbccddeeff"), key, bytearray(16))
    assert block.hex() == "8ea2b7ca516745bfeafc49904b496089", block.hex()  # FIPS-197 C.3
    iv = bytearray(range(100, 132))
    message = os.urandom(160)
    encrypted = call(lib, "tg_ige256_encrypt", message, key, iv)
    assert call(lib, "tg_ige256_decrypt", encrypted, key, iv) == message
    assert iv == bytearray(range(100, 132)), "IGE must not modify the IV"
    print("FIPS-197 known answer and IGE round trip: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
