"""A Pyrogram (or Pyrofork: the same `pyrogram` package) session against the loopback server
(test/e2e/server), stock or with tgcrypto_ffi.install():

    python pyrogram_session.py stock|install full|abridged|intermediate|abridged-obfuscated|intermediate-obfuscated HOST PORT

The client's DataCenter table is pointed at the server and its transport chosen; the server's
legacy-scheme RSA key (its PEM on stdin) goes into pyrogram.crypto.rsa's key table. Steps:
Client.connect() (the auth key exchange, then InvokeWithLayer(InitConnection(help.getConfig))
wrapped in InvokeWithoutUpdates), help.getConfig, a 3 MiB upload (save_file, on a media
session of the same key), the download of that file by upload.getFile checked by SHA-256,
and a tampered server packet (sent with a bit flipped, then intact) that the client's unpack
must reject with its SecurityError and then take the genuine copy. Prints RESULT.
"""
import asyncio
import base64
import hashlib
import logging
import os
import sys
import time
from io import BytesIO
from types import SimpleNamespace

from session_io import ask, install_if_asked, result

mode, transport, host, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
pem = sys.stdin.readline().replace("\\n", "\n")
replacements = install_if_asked(mode)

import pyrogram  # noqa: E402
from pyrogram import Client, raw  # noqa: E402
from pyrogram.connection import connection as connection_module  # noqa: E402
from pyrogram.connection.transport import TCPAbridged, TCPAbridgedO, TCPFull, TCPIntermediate, TCPIntermediateO  # noqa: E402
from pyrogram.crypto import mtproto, rsa  # noqa: E402
from pyrogram.errors import SecurityError  # noqa: E402

TRANSPORTS = {"full": TCPFull, "abridged": TCPAbridged, "intermediate": TCPIntermediate,
              "abridged-obfuscated": TCPAbridgedO, "intermediate-obfuscated": TCPIntermediateO}
SIZE = int(os.environ.get("E2E_PY_SIZE", 3 << 20))  # bench/python/transfer.py asks for 64 MiB
PART = 512 << 10


def pkcs1_public_numbers(text):
    """(n, e) of a PKCS#1 "RSA PUBLIC KEY" PEM: SEQUENCE { INTEGER n, INTEGER e }."""
    der = base64.b64decode("".join(line for line in text.splitlines() if line and not line.startswith("-----")))

    def read(at):
        tag, length = der[at], der[at + 1]
        at += 2
        if length & 0x80:
            count = length & 0x7F
            length, at = int.from_bytes(der[at:at + count], "big"), at + count
        return tag, der[at:at + length], at + length
    tag, body, _ = read(0)
    assert tag == 0x30
    der = body
    _, n, at = read(0)
    _, e, _ = read(at)
    return int.from_bytes(n, "big"), int.from_bytes(e, "big")


def fingerprint(n, e):
    """MTProto's key fingerprint: the low 64 bits of SHA1(n:bytes e:bytes), signed."""
    def tl_bytes(b):
        head = bytes([len(b)]) if len(b) < 254 else b"\xfe" + len(b).to_bytes(3, "little")
        return head + b + bytes(-(len(head) + len(b)) % 4)
    nb, eb = n.to_bytes((n.bit_length() + 7) // 8, "big"), e.to_bytes((e.bit_length() + 7) // 8, "big")
    return int.from_bytes(hashlib.sha1(tl_bytes(nb) + tl_bytes(eb)).digest()[-8:], "little", signed=True)


def point_at_server():
    connection_module.DataCenter = lambda *args, **kwargs: (host, port)
    chosen = TRANSPORTS[transport]
    connection_module.TCPAbridged = chosen  # Pyrogram 2.0.106 builds TCPAbridged() on connect
    init = connection_module.Connection.__init__

    def forced(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if hasattr(self, "protocol_factory"):  # Pyrofork: a protocol_factory argument
            self.protocol_factory = chosen
        self.address = (host, port)
        if hasattr(self, "server_address"):  # Kurigram: the address as arguments
            self.server_address, self.port, self.ipv6 = host, port, False
    connection_module.Connection.__init__ = forced


rejected = []


def count_rejections():
    """Wraps the unpack in effect (stock or installed): records the security errors it raises
    (the session_id check, with the tamper offset in the first ciphertext block)."""
    unpack = mtproto.unpack

    def counted(*args):
        try:
            return unpack(*args)
        except SecurityError as e:
            rejected.append(f"{type(e).__name__}: {e}")
            raise
    mtproto.unpack = counted


async def main():
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # the rejected packet's task error
    n, e = pkcs1_public_numbers(pem)
    rsa.server_public_keys[fingerprint(n, e)] = rsa.PublicKey(n, e)
    point_at_server()
    count_rejections()
    client = Client("e2e", api_id=1, api_hash="0" * 32, in_memory=True, no_updates=True)
    await client.connect()
    key = await client.storage.auth_key()
    out = {"auth_key": isinstance(key, bytes) and len(key) == 256, "client": f"{pyrogram.__name__} {pyrogram.__version__}"}
    config = await client.invoke(raw.functions.help.GetConfig())
    out["config_this_dc"] = config.this_dc
    data = os.urandom(SIZE)
    client.me = SimpleNamespace(is_premium=False)  # save_file reads the size limit off the logged-in user
    cpu, wall = time.process_time(), time.perf_counter()
    uploaded = await client.save_file(BytesIO(data))
    out["file_id"] = str(uploaded.id)
    out["sha256"] = hashlib.sha256(data).hexdigest()
    location = raw.types.InputDocumentFileLocation(id=uploaded.id, access_hash=0, file_reference=b"", thumb_size="")
    got = bytearray()
    while len(got) < SIZE:
        part = await client.invoke(raw.functions.upload.GetFile(location=location, offset=len(got), limit=PART))
        if not part.bytes:
            break
        got += part.bytes
    out["transfer_cpu_s"], out["transfer_wall_s"] = time.process_time() - cpu, time.perf_counter() - wall
    out["download_sha256"] = hashlib.sha256(got).hexdigest()
    ask("tamper-server 30")  # in the first ciphertext block: the session_id decrypts wrong
    before = len(rejected)
    again = await client.invoke(raw.functions.help.GetConfig())
    out["config_after_tamper"] = again.this_dc
    out["security_errors"] = rejected[before:]
    out["replacements"] = replacements()
    await client.disconnect()
    result(out)


asyncio.run(main())
