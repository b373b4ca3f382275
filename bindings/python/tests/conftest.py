"""Shared fixtures of the tgcrypto-ffi Python suite (see run.sh for how it is run).

TGFFI_LEVEL=full (default) or light: how many random cases the differential
and property tests draw (light: about a seventh; every test still runs).
TGFFI_COUNTS=path: the "passed failed" counts are written there for run.sh.
TGFFI_SEED: the random seed (printed in the header so a failure can be replayed).
"""
import os
import random

import pytest

LEVEL = os.environ.get("TGFFI_LEVEL", "full")
SEED = int(os.environ.get("TGFFI_SEED", random.SystemRandom().randrange(2**32)))


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
