"""The native AuthKey for a client's auth key bytes, shared by the fused message layers.

Clients hand over their auth key as a 256-byte ``bytes`` object on every message (Pyrogram
passes it to pack/unpack, Telethon keeps it on ``MTProtoState.auth_key.key``); building an
``AuthKey`` (a native copy plus SHA-1 for its id) per message would cost more than the
message. The cache maps the key bytes to their ``AuthKey``; a client keeps using the same
bytes object, whose hash Python computes once. It holds at most ``_LIMIT`` keys and is
emptied, never closed, when full: a thread may still be using an evicted ``AuthKey``, which
wipes its native copy when the last reference goes.
"""
import struct

from ._native import AuthKey

_LIMIT = 64
_cache = {}


def native_key(key):
    """(AuthKey, auth_key_id as 8 bytes, auth_key_id as Telethon's unsigned little-endian int)
    for ``key``, or None when ``key`` is not 256 bytes of type bytes (the caller then runs the
    client's own code, which raises what it raises)."""
    entry = _cache.get(key) if type(key) is bytes else None
    if entry is None:
        if type(key) is not bytes or len(key) != 256:
            return None
        ak = AuthKey(key)
        entry = (ak, ak.id, struct.unpack("<Q", ak.id)[0])
        if len(_cache) >= _LIMIT:
            _cache.clear()
        _cache[key] = entry
    return entry


def forget_all():
    """Drop every cached key (uninstall())."""
    _cache.clear()
