"""Independent references for the differential tests: the PyPI originals
(TgCrypto 1.2.5, cryptg, cipheron) imported by their own names, and an
MTProto 2.0 packer written from core.telegram.org/mtproto/description with
hashlib and TgCrypto's AES-IGE (no code of tgcrypto_ffi involved)."""
import hashlib
import os

import tgcrypto as real_tgcrypto
import cryptg as real_cryptg
import cipheron as real_cipheron

# install() must not have run in this process: these are the originals
for _m in (real_tgcrypto, real_cryptg, real_cipheron):
    assert "tgcrypto_ffi" not in (getattr(_m, "__file__", "") or ""), _m


def _kdf(auth_key, msg_key, x):
    a = hashlib.sha256(msg_key + auth_key[x:x + 36]).digest()
    b = hashlib.sha256(auth_key[40 + x:76 + x] + msg_key).digest()
    return a[:8] + b[8:24] + a[24:32], b[:8] + a[8:24] + b[24:32]


def mtproto_encrypt(auth_key, plaintext, padding, x):
    """auth_key_id || msg_key || AES-256-IGE(plaintext || padding) for direction x (0 client, 8 server)."""
    key_id = hashlib.sha1(auth_key).digest()[-8:]
    msg_key = hashlib.sha256(auth_key[88 + x:120 + x] + plaintext + padding).digest()[8:24]
    aes_key, aes_iv = _kdf(auth_key, msg_key, x)
    return key_id + msg_key + real_tgcrypto.ige256_encrypt(plaintext + padding, aes_key, aes_iv)


def message(data_len, rng):
    """A plaintext: salt, session_id, msg_id, seq_no, message_data_length, data."""
    head = os.urandom(28) + data_len.to_bytes(4, "little")
    return head + os.urandom(data_len)
