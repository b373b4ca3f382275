"""The Python host end to end: TgCrypto's and cryptg's functions, one
MTProto 2.0 message sealed and opened in one native call each, and
install() for Pyrogram/Telethon.

    pip install zig-out/python/tgcrypto_ffi-*.whl && python bindings/python/example.py

(tests/test_example.py runs it and checks what it prints.)
"""
import hashlib
import os

import tgcrypto_ffi
from tgcrypto_ffi import cryptg, tgcrypto

key, iv = bytes(range(32)), bytes(range(32, 64))
message = b"sixteen byte msg"

# TgCrypto's shape: what Pyrogram and its forks call.
ciphertext = tgcrypto.ige256_encrypt(message, key, iv)
assert tgcrypto.ige256_decrypt(ciphertext, key, iv) == message
print("backend:", tgcrypto_ffi.get_backend())
print("ige256_encrypt:", ciphertext.hex())

# cryptg's shape: what Telethon calls (same cipher, same bytes).
assert cryptg.encrypt_ige(message, key, iv) == ciphertext
print("factorize_pq_pair(1724114033281923457):", cryptg.factorize_pq_pair(1724114033281923457))

# CTR with the position handed back through a bytearray iv/state, as Pyrogram streams.
ctr_iv, state = bytearray(16), bytearray(1)
stream = tgcrypto.ctr256_encrypt(b"abc", key, ctr_iv, state) + tgcrypto.ctr256_encrypt(b"defg", key, ctr_iv, state)
assert stream == tgcrypto.ctr256_encrypt(b"abcdefg", key, bytearray(16), bytearray(1))
print("ctr256 in two calls == one call; state:", state[0])

# The whole MTProto 2.0 message: client seals, server opens (every check of the guidelines in C).
auth_key = tgcrypto_ffi.AuthKey(os.urandom(256))
plaintext = os.urandom(8) + os.urandom(8) + (1).to_bytes(8, "little") + bytes(4) + (16).to_bytes(4, "little") + os.urandom(16)
packet = auth_key.encrypt_message(plaintext)
opened = auth_key.decrypt_message(packet, server=True)
assert opened[: len(plaintext)] == plaintext
tampered = packet[:-1] + bytes([packet[-1] ^ 1])
try:
    auth_key.decrypt_message(tampered, server=True)
except tgcrypto_ffi.MtprotoSecurityError as error:
    print("tampered packet:", type(error).__name__)
auth_key.close()

assert tgcrypto_ffi.sha256(b"abc") == hashlib.sha256(b"abc").digest()
print("sha256('abc'):", tgcrypto_ffi.sha256(b"abc").hex())

# Before importing Pyrogram or Telethon: their tgcrypto/cryptg imports (and message layers) become native.
tgcrypto_ffi.install()
import tgcrypto as installed  # noqa: E402  (the name install() maps)
assert installed.ige256_encrypt(message, key, iv) == ciphertext
tgcrypto_ffi.uninstall()
print("install()/uninstall(): ok")
