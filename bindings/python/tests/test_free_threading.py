"""The module declares that it does not need the GIL (Py_MOD_GIL_NOT_USED):
on a free-threaded CPython, importing it leaves the GIL off."""
import subprocess
import sys
import sysconfig

import pytest

FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


@pytest.mark.skipif(not FREE_THREADED, reason="a GIL build of CPython: there is no GIL to keep off")
def test_import_keeps_the_gil_off():
    # a child process: this one may have imported other extensions already
    code = "import sys, tgcrypto_ffi, tgcrypto_ffi._native; print(sys._is_gil_enabled())"
    out = subprocess.run([sys.executable, "-X", "gil=0", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr
    # without -X gil=0 too: a module without the marker would turn the GIL on (with a RuntimeWarning)
    out = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "False", out.stderr

