"""bindings/python/example.py, the host's runnable sample, runs and prints what it says."""
import hashlib
import os
import subprocess
import sys

EXAMPLE = os.path.join(os.path.dirname(__file__), os.pardir, "example.py")


def test_example_runs():
    done = subprocess.run([sys.executable, EXAMPLE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines() if ": " in line)
    assert lines["factorize_pq_pair(1724114033281923457)"] == "(1229739323, 1402015859)"
    assert lines["ctr256 in two calls == one call; state"] == "7"
    assert lines["tampered packet"] == "MtprotoSecurityError"
    assert lines["sha256('abc')"] == hashlib.sha256(b"abc").hexdigest()
    assert lines["install()/uninstall()"] == "ok"
    assert len(bytes.fromhex(lines["ige256_encrypt"])) == 16
