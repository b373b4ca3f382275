"""What a Python client session script and the driver (drive.py) say to each other, one line
each way: the session prints ``ASK <server command>`` and reads the server's JSON reply from
stdin; it ends with ``RESULT <json>``. Everything else it prints is the client's log."""
import json
import sys


def ask(command):
    """Runs a server command (main.ts's stdin protocol) through the driver; its JSON reply."""
    print(f"ASK {command}", flush=True)
    line = sys.stdin.readline()
    if not line:
        raise SystemExit("the driver went away")
    return json.loads(line)


def result(value):
    print("RESULT " + json.dumps(value), flush=True)


def install_if_asked(mode):
    """mode "install": tgcrypto_ffi.install() before the client is imported. Returns a function
    giving the replacements in effect (they happen as the client's modules are imported)."""
    if mode == "stock":
        return lambda: []
    import tgcrypto_ffi

    tgcrypto_ffi.install()
    return tgcrypto_ffi.replacements
