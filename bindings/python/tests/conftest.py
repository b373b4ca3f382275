"""Shared fixtures of the tgcrypto-ffi Python suite (see run.sh for how it is run).

TGFFI_LEVEL=full (default) or light: how many random cases the differential
and property tests draw (light: about a seventh; every test still runs).
TGFFI_COUNTS=path: the "passed failed" counts are written there for run.sh.
TGFFI_SEED: the random seed (printed in the header so a failure can be replayed).
"""
import json
import os
import random
import subprocess
import sys

import pytest

LEVEL = os.environ.get("TGFFI_LEVEL", "full")
SEED = int(os.environ.get("TGFFI_SEED", random.SystemRandom().randrange(2**32)))


# The stock modules' messages that come from the interpreter, not from them: TgCrypto's
# "y*" for a non-buffer and a strided view, and the int conversion cryptg's pyo3 uses
# (PyPy's cpyext words them its own way; the PyPy builds of TgCrypto 1.2.5 and cryptg say these).
PYPY = sys.implementation.name == "pypy"


def json_from_child(code):
    """Runs ``code`` in a fresh interpreter (for whatever touches sys.modules) and returns the
    JSON its last line of output prints; a failing child fails the test with its stderr."""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def no_buffer_message(type_name):
    if PYPY:
        return f"'{type_name}' does not have the buffer interface"
    return f"a bytes-like object is required, not '{type_name}'"


NON_CONTIGUOUS = (TypeError, "must be contiguous buffer, not memoryview") if PYPY else (BufferError, "not C-contiguous")
INT_TOO_BIG = "integer too large" if PYPY else "int too big to convert"
INT_NEGATIVE = "cannot convert negative integer to unsigned int" if PYPY else "can't convert negative int to unsigned"


def cases(full):
    """How many random cases a test draws at this level."""
    return full if LEVEL == "full" else max(3, full // 7)


@pytest.fixture
def rng(request):
    """A random.Random seeded from TGFFI_SEED and the test's name."""
    return random.Random(f"{SEED}:{request.node.nodeid}")


def pytest_report_header(config):
    import tgcrypto_ffi

    return (
        f"tgcrypto_ffi {tgcrypto_ffi.__version__} from {os.path.dirname(tgcrypto_ffi.__file__)}; "
        f"backend {tgcrypto_ffi.get_backend()}, hash engine {tgcrypto_ffi.hash_engine()}; "
        f"TGFFI_LEVEL={LEVEL} TGFFI_SEED={SEED}"
    )


def pytest_terminal_summary(terminalreporter):
    path = os.environ.get("TGFFI_COUNTS")
    if not path:
        return
    stats = terminalreporter.stats
    passed = len(stats.get("passed", []))
    # a skip, xfail or error is a failure here: nothing in this suite may be skipped
    failed = sum(len(stats.get(k, [])) for k in ("failed", "error", "skipped", "xfailed", "xpassed"))
    with open(path, "w") as f:
        f.write(f"{passed} {failed}\n")
