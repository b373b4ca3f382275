"""TgCrypto's API (``import tgcrypto``), over the tgcrypto-ffi core.

The six functions of TgCrypto 1.2.5 with its calling convention (positional
only, any bytes-like object), its checks in its order and its messages:

    ige256_encrypt(data, key, iv) -> bytes   # iv: 32 bytes, never written
    ige256_decrypt(data, key, iv) -> bytes
    ctr256_encrypt(data, key, iv, state) -> bytes  # iv 16 bytes, state 1 byte (0..15)
    ctr256_decrypt(data, key, iv, state) -> bytes  # the same operation
    cbc256_encrypt(data, key, iv) -> bytes   # iv 16 bytes; no padding
    cbc256_decrypt(data, key, iv) -> bytes

CTR writes the advanced counter and offset back into ``iv`` and ``state``,
and CBC the last ciphertext block into ``iv``, so that consecutive calls
continue the stream or chain -- when those buffers are writable
(``bytearray``, a writable ``memoryview``). Deliberate difference from
TgCrypto: a read-only ``iv``/``state`` (``bytes``) is never written (TgCrypto
writes into the immutable object, which corrupts CPython's cached one-byte
``bytes`` when the literal ``b"\\x00"`` is the state); the result is the
same, only the stream position is not handed back. Data of 2**32 bytes or
more is rejected ("Data is too large (max 4294967295 bytes)") instead of
being silently truncated.

Plus the reusable contexts of TgCrypto-C: ``CTRContext(key, iv, state=0)``,
``IGEContext(key, iv, decrypt=False)``, ``CBCContext(key, iv,
decrypt=False)``, each with ``update(data)`` (and ``close()``, a context
manager, ``CTRContext.position()``).
"""
from ._native import (
    CBCContext,
    CTRContext,
    IGEContext,
    cbc256_decrypt,
    cbc256_encrypt,
    ctr256_decrypt,
    ctr256_encrypt,
    ige256_decrypt,
    ige256_encrypt,
)

__all__ = [
    "ige256_encrypt",
    "ige256_decrypt",
    "ctr256_encrypt",
    "ctr256_decrypt",
    "cbc256_encrypt",
    "cbc256_decrypt",
    "CTRContext",
    "IGEContext",
    "CBCContext",
]
