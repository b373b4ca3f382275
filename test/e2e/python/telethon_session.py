"""A Telethon v1 session against the loopback server (test/e2e/server), stock or with
tgcrypto_ffi.install():

    python telethon_session.py stock|install full|abridged|intermediate|obfuscated HOST PORT

The server's legacy-scheme RSA key is added to Telethon's key table (from the driver, which
passes its PEM on stdin first). Steps: the auth key exchange (connect), help.getConfig, a
3 MiB upload (upload.saveFilePart) whose SHA-256 the server reports, the download of that file
(upload.getFile) checked by SHA-256, and a tampered server packet (the server sends it with
a bit flipped, then intact) that Telethon must reject with its SecurityError and then take
the genuine copy. Prints RESULT with what it saw; drive.py checks it.
"""
import asyncio
import hashlib
import logging
import os
import sys
import time

from session_io import ask, install_if_asked, result

mode, transport, host, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
pem = sys.stdin.readline().replace("\\n", "\n")
replacements = install_if_asked(mode)

from telethon import TelegramClient, functions, types  # noqa: E402
from telethon.crypto import rsa  # noqa: E402
from telethon.network import connection  # noqa: E402
from telethon.sessions import MemorySession  # noqa: E402

TRANSPORTS = {
    "full": connection.ConnectionTcpFull,
    "abridged": connection.ConnectionTcpAbridged,
    "intermediate": connection.ConnectionTcpIntermediate,
    "obfuscated": connection.ConnectionTcpObfuscated,
}
SIZE = int(os.environ.get("E2E_PY_SIZE", 3 << 20))  # bench/python/transfer.py asks for 64 MiB


class Seen(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


async def main():
    seen = Seen()
    logging.getLogger("telethon").addHandler(seen)
    rsa.add_key(pem, old=False)
    session = MemorySession()
    session.set_dc(2, host, port)
    client = TelegramClient(session, 1, "0" * 32, connection=TRANSPORTS[transport], receive_updates=False,
                            request_retries=2, connection_retries=2, timeout=30)
    await client.connect()
    out = {"auth_key": client.session.auth_key is not None and len(client.session.auth_key.key) == 256}
    config = await client(functions.help.GetConfigRequest())
    out["config_this_dc"] = config.this_dc
    data = os.urandom(SIZE)
    cpu, wall = time.process_time(), time.perf_counter()
    uploaded = await client.upload_file(data, part_size_kb=512)
    out["file_id"] = str(uploaded.id)
    out["sha256"] = hashlib.sha256(data).hexdigest()
    location = types.InputDocumentFileLocation(id=uploaded.id, access_hash=0, file_reference=b"", thumb_size="")
    downloaded = await client.download_file(location, bytes, part_size_kb=512, file_size=SIZE)
    out["transfer_cpu_s"], out["transfer_wall_s"] = time.process_time() - cpu, time.perf_counter() - wall
    out["download_sha256"] = hashlib.sha256(downloaded).hexdigest()
    ask("tamper-server 40")
    before = len(seen.messages)
    again = await client(functions.help.GetConfigRequest())
    out["config_after_tamper"] = again.this_dc
    out["security_errors"] = [m for m in seen.messages[before:] if "Security error" in m]
    out["replacements"] = replacements()
    await client.disconnect()
    result(out)


asyncio.run(main())
