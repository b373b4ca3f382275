"""The fused MTProto 2.0 message layer and the native CTR for Telethon v1.

- ``MTProtoState.encrypt_message_data`` / ``decrypt_message_data``
  (telethon.network.mtprotostate): one native call per message (``AuthKey.encrypt_message`` /
  ``decrypt_message``) instead of Telethon's three SHA-256, the KDF slicing and the IGE call.
- ``AESModeCTR.__init__`` (telethon.crypto.aesctr, used by the obfuscated and MTProxy
  transports and CDN downloads): with a 32-byte key and a 16-byte iv, ``self._aes`` becomes a
  native ``CTRContext`` instead of pyaes (pure Python AES); Telethon's own ``encrypt`` and
  ``decrypt`` call ``self._aes.encrypt`` / ``decrypt`` as before, both on the one keystream
  (as pyaes's CTR, whose encrypt and decrypt share the counter and the unused keystream).
  Other key sizes (pyaes also takes 16 and 24 bytes) keep pyaes. The data must be a
  bytes-like object (pyaes also took a list of ints).

Equivalence with the client's own methods, which stay the reference:
- encrypt_message_data: the same bytes for the same padding: the padding comes from the
  module's own ``os.urandom``, of the same length, after the header (``struct.pack('<qq',
  salt, id)``, so a bad salt raises as before). When the auth key is not 256 bytes of type
  bytes, its ``key_id`` is not that key's, or the plaintext is under 32 bytes, Telethon's own
  method runs.
- decrypt_message_data: when the native checks pass (auth_key_id, msg_key, length, padding
  12..1024), the session id, msg_id parity, duplicate and time checks run as Telethon 1.45
  runs them, with its exceptions, warnings and state updates. When the native checks fail,
  or reading the object raises (before any state is changed), Telethon's own method runs on
  the same body: it raises what it raises in its order (its InvalidBufferError for under 8
  bytes, its SecurityError for the auth key or the msg_key), or accepts what only it accepts
  (a message_data_length that is not a multiple of 4, padding outside 12..1024: Telethon
  checks neither).
"""
from ._keys import native_key
from ._native import CTRContext, MtprotoSecurityError

PLAIN_MIN = 32


def _usable_key(state):
    """The AuthKey for state.auth_key when its bytes and key_id are consistent, else None."""
    auth = state.auth_key
    entry = native_key(getattr(auth, "key", None))
    if entry is None or getattr(auth, "key_id", None) != entry[2]:
        return None
    return entry[0]


def fused_state_methods(module, stock_encrypt, stock_decrypt):
    """encrypt_message_data and decrypt_message_data for ``module`` (mtprotostate)."""
    g = module.__dict__

    def encrypt_message_data(self, data):
        ak = _usable_key(self)
        if ak is None or 16 + len(data) < PLAIN_MIN:
            return stock_encrypt(self, data)
        head = g["struct"].pack("<qq", self.salt, self.id)
        total = 16 + len(data)
        padding = g["os"].urandom(-(total + 12) % 16 + 12)
        return ak.encrypt_message((head, data), padding=padding)

    def decrypt_message_data(self, body):
        now = g["time"].time()
        ak = _usable_key(self)
        if ak is None or len(body) < 8:
            return stock_decrypt(self, body)
        try:
            plain = ak.decrypt_message(body)
        except MtprotoSecurityError:
            return stock_decrypt(self, body)
        security_error = g["SecurityError"]
        reader = g["BinaryReader"](plain)
        reader.read_long()  # the server salt, not checked (as Telethon)
        if reader.read_long() != self.id:
            raise security_error("Server replied with a wrong session ID (see FAQ for details)")
        remote_msg_id = reader.read_long()
        if remote_msg_id % 2 != 1:
            raise security_error("Server sent an even msg_id")
        if remote_msg_id <= self._highest_remote_id and remote_msg_id in self._recent_remote_ids:
            self._log.warning("Server resent the older message %d, ignoring", remote_msg_id)
            self._count_ignored()
            return None
        remote_sequence = reader.read_int()
        reader.read_int()  # message_data_length, checked natively
        try:
            obj = reader.tgread_object()
        except Exception:
            # an object running into the padding, or Telethon's own error text with the bytes left
            return stock_decrypt(self, body)
        if obj.CONSTRUCTOR_ID in (g["BadServerSalt"].CONSTRUCTOR_ID, g["BadMsgNotification"].CONSTRUCTOR_ID):
            if not self._highest_remote_id and not self.time_offset:
                self.update_time_offset(remote_msg_id)
        else:
            time_delta = (now + self.time_offset) - (remote_msg_id >> 32)
            if time_delta > g["MSG_TOO_OLD_DELTA"]:
                self._log.warning(
                    "Server sent a very old message with ID %d, ignoring (see FAQ for details)", remote_msg_id)
                self._count_ignored()
                return None
            if -time_delta > g["MSG_TOO_NEW_DELTA"]:
                self._log.warning(
                    "Server sent a very new message with ID %d, ignoring (see FAQ for details)", remote_msg_id)
                self._count_ignored()
                return None
        self._recent_remote_ids.append(remote_msg_id)
        self._highest_remote_id = remote_msg_id
        self._ignore_count = 0
        return g["TLMessage"](remote_msg_id, remote_sequence, obj)

    encrypt_message_data.__doc__ = "MTProtoState.encrypt_message_data over tgcrypto_ffi.AuthKey (one native call)"
    decrypt_message_data.__doc__ = "MTProtoState.decrypt_message_data over tgcrypto_ffi.AuthKey (one native call)"
    encrypt_message_data.__wrapped__, decrypt_message_data.__wrapped__ = stock_encrypt, stock_decrypt
    return encrypt_message_data, decrypt_message_data


class NativeCTR:
    """Stands in for pyaes.AESModeOfOperationCTR as AESModeCTR's ``_aes``: encrypt and decrypt
    are the one CTRContext's update (one keystream, as pyaes); empty data gives b"" (as
    pyaes; the context refuses it)."""

    __slots__ = ("_update",)

    def __init__(self, key, iv):
        self._update = CTRContext(key, iv).update

    def encrypt(self, data):
        return self._update(data) if len(data) else b""

    decrypt = encrypt


def fused_ctr_init(stock_init):
    """AESModeCTR.__init__ that gives AES-256 keys the native CTR."""

    def __init__(self, key, iv):
        if type(key) is bytes and len(key) == 32 and type(iv) is bytes and len(iv) == 16:
            self._aes = NativeCTR(key, iv)
        else:
            stock_init(self, key, iv)

    __init__.__doc__ = "AESModeCTR.__init__: AES-256 over tgcrypto_ffi.CTRContext (else pyaes, as before)"
    __init__.__wrapped__ = stock_init
    return __init__
