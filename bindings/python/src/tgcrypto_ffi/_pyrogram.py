"""The fused MTProto 2.0 message layer for Pyrogram and its forks (Kurigram, Pyrofork: the
package ``pyrogram``; Hydrogram: ``hydrogram``): replacements for ``<pkg>.crypto.mtproto.pack``
and ``unpack`` that encrypt or check and decrypt a message in one native call
(``AuthKey.encrypt_message`` / ``decrypt_message``) instead of three SHA-256 and one IGE call
with their slicing and joining in Python.

Equivalence with the client's own functions, which stay the reference:
- pack: the same bytes for the same padding. The padding comes from the module's own
  ``urandom`` global (so a test that patches it patches both), of the same length; the header
  is built by the module's ``Long`` first, so a bad salt or session_id raises what it raised.
  When the key is not 256 bytes of type bytes, or ``auth_key_id`` is not that key's id, or
  the plaintext is under 32 bytes, the client's own pack runs.
- unpack: when the native checks pass (auth_key_id, msg_key, length, padding 12..1024), the
  session_id, the Message and the msg_id parity are checked as the client does, with its
  exception (``SecurityCheckMismatch.check`` with the client's condition text). Whenever the
  native checks fail, or reading the Message raises, the stream is rewound and the client's
  own unpack runs: it raises what it raises, in its order (its Message read comes before its
  msg_key check, so a tampered packet often fails on its session_id or an unknown
  constructor first), or accepts what only it accepts (a message_data_length that is not a
  multiple of 4).
"""
from io import BytesIO

from ._keys import native_key
from ._native import MtprotoSecurityError

PACK_MIN = 32  # salt, session_id, msg_id, seq_no, length: the native plaintext minimum


def fused_pair(module, stock_pack, stock_unpack):
    """pack and unpack for ``module`` (the client's crypto.mtproto), falling back to
    ``stock_pack`` / ``stock_unpack``."""
    g = module.__dict__

    def pack(message, salt, session_id, auth_key, auth_key_id):
        entry = native_key(auth_key)
        if entry is None or auth_key_id != entry[1]:
            return stock_pack(message, salt, session_id, auth_key, auth_key_id)
        ak = entry[0]
        head = g["Long"](salt) + session_id
        body = message.write()
        total = len(head) + len(body)
        if total < PACK_MIN:
            return stock_pack(message, salt, session_id, auth_key, auth_key_id)
        padding = g["urandom"](-(total + 12) % 16 + 12)
        return ak.encrypt_message((head, body), padding=padding)

    def unpack(b, session_id, auth_key, auth_key_id):
        entry = native_key(auth_key)
        if entry is None or auth_key_id != entry[1] or not isinstance(b, BytesIO):
            return stock_unpack(b, session_id, auth_key, auth_key_id)
        ak = entry[0]
        start = b.tell()
        try:
            plain = ak.decrypt_message(b.read())
        except MtprotoSecurityError:
            b.seek(start)
            return stock_unpack(b, session_id, auth_key, auth_key_id)
        check = g["SecurityCheckMismatch"].check
        check(plain[8:16] == session_id, "data.read(8) == session_id")
        data = BytesIO(plain)
        data.seek(16)
        try:
            message = g["Message"].read(data)
        except Exception:
            # the client's own unpack words its errors with the padding it sees
            b.seek(start)
            return stock_unpack(b, session_id, auth_key, auth_key_id)
        check(message.msg_id % 2 != 0, "message.msg_id % 2 != 0")
        return message

    pack.__doc__ = f"{module.__name__}.pack over tgcrypto_ffi.AuthKey.encrypt_message (one native call)"
    unpack.__doc__ = f"{module.__name__}.unpack over tgcrypto_ffi.AuthKey.decrypt_message (one native call)"
    pack.__wrapped__, unpack.__wrapped__ = stock_pack, stock_unpack
    return pack, unpack
