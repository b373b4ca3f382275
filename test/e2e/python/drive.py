"""Runs the Python client sessions against one loopback server (test/e2e/server/main.ts) and
checks each: prints one line per session, then "N passed, N failed" (each check counts one).

    python drive.py --server "bun test/e2e/server/main.ts" \
        --client telethon=/venv-telethon/bin/python --client pyrogram=/venv-pyrogram/bin/python ...

A client is telethon, or pyrogram / pyrofork (the pyrogram package's session script). Each
runs stock and with install(), over every transport it has. A session that has not finished
after E2E_PY_SESSION_TIMEOUT seconds (default 180) is killed and fails with that said.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIZE = 3 << 20
LIMIT = float(os.environ.get("E2E_PY_SESSION_TIMEOUT", "180"))
SCRIPTS = {"telethon": "telethon_session.py", "pyrogram": "pyrogram_session.py", "pyrofork": "pyrogram_session.py",
           "kurigram": "pyrogram_session.py"}
TRANSPORTS = {
    "telethon": ("full", "abridged", "intermediate", "obfuscated"),
    "pyrogram": ("full", "abridged", "intermediate", "abridged-obfuscated", "intermediate-obfuscated"),
    "pyrofork": ("full", "abridged", "intermediate", "abridged-obfuscated", "intermediate-obfuscated"),
    "kurigram": ("full", "abridged", "intermediate", "abridged-obfuscated", "intermediate-obfuscated"),
}


class Server:
    def __init__(self, command):
        env = dict(os.environ, E2E_ADVERTISE="rsa_pad,legacy")
        self.proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        self.info = json.loads(self.proc.stdout.readline())
        self.lock = threading.Lock()

    def ask(self, command):
        with self.lock:
            self.proc.stdin.write(command + "\n")
            self.proc.stdin.flush()
            return json.loads(self.proc.stdout.readline())

    def stop(self):
        try:
            self.ask("stop")
        except (OSError, ValueError):
            pass
        self.proc.wait(timeout=30)


def run_session(server, client, python, mode, transport):
    """Runs one session; (RESULT dict or None, the session's log tail, why it failed)."""
    script = HERE / SCRIPTS[client]
    path = os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, PYTHONPATH=path, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([python, str(script), mode, transport, server.info["host"], str(server.info["port"])],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    timed_out = threading.Event()

    def kill():
        timed_out.set()
        proc.kill()
    timer = threading.Timer(LIMIT, kill)
    timer.start()
    log, found = [], None
    try:
        proc.stdin.write(server.info["rsaKeys"]["legacy"]["publicPem"].replace("\n", "\\n") + "\n")
        proc.stdin.flush()
        for line in proc.stdout:
            if line.startswith("ASK "):
                proc.stdin.write(json.dumps(server.ask(line[4:].strip())) + "\n")
                proc.stdin.flush()
            elif line.startswith("RESULT "):
                found = json.loads(line[7:])
            else:
                log.append(line.rstrip())
        proc.wait()
    except (BrokenPipeError, OSError) as e:
        log.append(f"(pipe: {e})")
    finally:
        timer.cancel()
    why = None
    if timed_out.is_set():
        why = f"killed after {LIMIT:.0f} s (E2E_PY_SESSION_TIMEOUT); a slow machine may need more"
    elif proc.returncode != 0:
        why = f"exit code {proc.returncode}"
    elif found is None:
        why = "no RESULT line"
    return found, log[-25:], why


def checks(server, client, mode, out):
    """The checks of one session's RESULT: (name, ok, detail)."""
    upload = server.ask(f"file {out.get('file_id', 0)}")
    yield "auth key created", out.get("auth_key") is True, out.get("auth_key")
    yield "help.getConfig names this DC", out.get("config_this_dc") == server.info["dcId"], out.get("config_this_dc")
    yield "the server stored the 3 MiB upload with the client's SHA-256", \
        upload.get("size") == SIZE and upload.get("sha256") == out.get("sha256"), upload
    yield "the download has the upload's SHA-256", out.get("download_sha256") == out.get("sha256"), out.get("download_sha256")
    yield "a tampered server packet is rejected (the client's own security error), the genuine one taken", \
        bool(out.get("security_errors")) and out.get("config_after_tamper") == server.info["dcId"], out.get("security_errors")
    replaced = out.get("replacements", [])
    if mode == "install":
        yield "install() replaced the message layer", any("one native call" in r for r in replaced), replaced
    else:
        yield "stock: nothing replaced", replaced == [], replaced
    server.ask(f"forget {out.get('file_id', 0)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--client", action="append", default=[], help="NAME=PYTHON")
    args = ap.parse_args()
    server = Server(args.server)
    passed = failed = 0
    started = time.time()
    try:
        for spec in args.client:
            client, python = spec.split("=", 1)
            for mode in ("stock", "install"):
                for transport in os.environ.get("E2E_PY_TRANSPORTS", " ".join(TRANSPORTS[client])).split():
                    t = time.time()
                    out, log, why = run_session(server, client, python, mode, transport)
                    label = f"{client} {mode} {transport}"
                    if why is not None:
                        failed += 1
                        print(f"FAILED {label}: {why}\n  " + "\n  ".join(log))
                        continue
                    bad = [(name, detail) for name, ok, detail in checks(server, client, mode, out) if not ok]
                    n = 6
                    passed += n - len(bad)
                    failed += len(bad)
                    status = "ok" if not bad else "FAILED " + "; ".join(f"{name}: {detail}" for name, detail in bad)
                    print(f"{label}: {status} ({time.time() - t:.1f} s)", flush=True)
                    if bad:
                        print("  " + "\n  ".join(log))
        stats = server.ask("stats")
        ok = "legacy" in stats.get("handshakeSchemes", []) and not stats.get("unknown") and not stats.get("transportErrors")
        passed, failed = passed + ok, failed + (not ok)
        print(f"server: handshake schemes {sorted(set(stats.get('handshakeSchemes', [])))}, unknown constructors "
              f"{stats.get('unknown')}, transport errors {len(stats.get('transportErrors', []))}: {'ok' if ok else 'FAILED'}")
        if not ok:
            print(json.dumps(stats)[:3000])
    finally:
        server.stop()
    print(f"python e2e: {time.time() - started:.0f} s")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
