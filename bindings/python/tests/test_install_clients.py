"""install()'s client patches as a whole, each case in a fresh interpreter: install() before
the client is imported patches it on import (and after, at once); the version gate leaves an
untested version alone with a RuntimeWarning unless allow_untested_versions=True;
cryptg=False leaves Telethon alone and tgcrypto=False Pyrogram; message_layer=False patches
nothing; uninstall() restores every original and a second install() patches again.
"""
import json
import subprocess
import sys

import pytest

SCRIPT = r"""
import json, logging, sys, warnings
import asyncio
asyncio.set_event_loop(asyncio.new_event_loop())  # Pyrogram 2.0.106 asks for one at import; 3.14 has none by default
case = sys.argv[1]
log = []
class Grab(logging.Handler):
    def emit(self, record): log.append((record.levelname, record.getMessage()))
logging.getLogger("tgcrypto_ffi").addHandler(Grab()); logging.getLogger("tgcrypto_ffi").setLevel(logging.INFO)
import tgcrypto_ffi
from tgcrypto_ffi import _patching
out = {}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    if case == "before-import":
        tgcrypto_ffi.install()
        import pyrogram.crypto.mtproto as m, telethon.network.mtprotostate as t
    elif case == "after-import":
        import pyrogram.crypto.mtproto as m, telethon.network.mtprotostate as t
        tgcrypto_ffi.install()
    elif case in ("untested", "untested-allowed"):
        _patching.TESTED_VERSIONS["pyrogram"] = ("0.0.0",)
        # the default must be to leave an untested version alone
        tgcrypto_ffi.install(**({"allow_untested_versions": True} if case == "untested-allowed" else {}))
        import pyrogram.crypto.mtproto as m, telethon.network.mtprotostate as t  # the untested warning's line
    elif case == "untested-imported":
        import pyrogram.crypto.mtproto as m, telethon.network.mtprotostate as t
        _patching.TESTED_VERSIONS["pyrogram"] = ("0.0.0",)
        tgcrypto_ffi.install()  # the untested warning's line
    elif case == "no-cryptg":
        tgcrypto_ffi.install(cryptg=False)
        import pyrogram.crypto.mtproto as m, telethon.network.mtprotostate as t
        out["cryptg_in_modules"] = "cryptg" in sys.modules and sys.modules["cryptg"] is tgcrypto_ffi.cryptg
    elif case == "no-tgcrypto":
        tgcrypto_ffi.install(tgcrypto=False)
        import pyrogram.crypto.mtproto as m, telethon.network.mtprotostate as t
    elif case == "no-message-layer":
        tgcrypto_ffi.install(message_layer=False)
        import pyrogram.crypto.mtproto as m, telethon.network.mtprotostate as t
out["warnings"] = [str(w.message) for w in caught if "tested version" in str(w.message)]
out["warned_at"] = [[w.filename, w.lineno] for w in caught if "tested version" in str(w.message)]
out["pyrogram"] = hasattr(m.pack, "__wrapped__") and hasattr(m.unpack, "__wrapped__")
out["telethon"] = hasattr(t.MTProtoState.encrypt_message_data, "__wrapped__")
out["replacements"] = tgcrypto_ffi.replacements()
out["info"] = [msg for level, msg in log if level == "INFO" and " -> " in msg]
out["untested_log"] = [msg for level, msg in log if level == "WARNING"]
originals = [m.pack, m.unpack, t.MTProtoState.encrypt_message_data, t.MTProtoState.decrypt_message_data]
stock = [getattr(f, "__wrapped__", f) for f in originals]
tgcrypto_ffi.uninstall()
now = [m.pack, m.unpack, t.MTProtoState.encrypt_message_data, t.MTProtoState.decrypt_message_data]
out["restored"] = now == stock and tgcrypto_ffi.replacements() == [] and _patching._finder not in sys.meta_path
tgcrypto_ffi.install()
out["reinstalled"] = len(tgcrypto_ffi.replacements()) == 5
tgcrypto_ffi.uninstall()
print(json.dumps(out))
"""


def run(case, script=None):
    """SCRIPT's output for `case`, run with -c, or from the file `script` (SCRIPT written there)."""
    if script is not None:
        script.write_text(SCRIPT)
    source = ["-c", SCRIPT] if script is None else [str(script)]
    r = subprocess.run([sys.executable, *source, case], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", ["before-import", "after-import"])
def test_install_patches_both_clients_whatever_the_import_order(case):
    out = run(case)
    assert out["pyrogram"] and out["telethon"], out
    assert len(out["replacements"]) == 5 and out["info"] == ["tgcrypto_ffi.install(): " + r for r in out["replacements"]]
    assert out["warnings"] == [] and out["restored"] and out["reinstalled"], out


def test_an_untested_version_is_left_alone_with_a_warning():
    out = run("untested")
    assert not out["pyrogram"] and out["telethon"], out
    assert len(out["warnings"]) == 1 and "pyrogram 2.0.106 is not a tested version (0.0.0)" in out["warnings"][0], out
    assert "allow_untested_versions=True" in out["warnings"][0]
    assert out["restored"], out


@pytest.mark.parametrize("case", ["untested", "untested-imported"])
def test_the_untested_warning_names_the_callers_line(case):
    # the `import` that ran the patch (install() first), or the install() call (client imported first):
    # not a line inside tgcrypto_ffi, importlib or the client
    out = run(case)
    assert len(out["warned_at"]) == 1, out
    filename, lineno = out["warned_at"][0]
    assert filename == "<string>", out
    assert SCRIPT.splitlines()[lineno - 1].endswith("# the untested warning's line"), (lineno, out)


@pytest.mark.parametrize("folder", ["importlib_app", "app_bootstrap"])
def test_the_untested_warning_names_a_script_file_whatever_its_path(tmp_path, folder):
    # a real file whose path merely contains "importlib" or "_bootstrap" is the caller's, not importlib's
    script = tmp_path / folder / "main.py"
    script.parent.mkdir()
    out = run("untested-imported", script)
    assert len(out["warned_at"]) == 1, out
    filename, lineno = out["warned_at"][0]
    assert filename == str(script), out
    assert SCRIPT.splitlines()[lineno - 1].endswith("# the untested warning's line"), (lineno, out)


def test_allow_untested_versions_patches_and_logs_it():
    out = run("untested-allowed")
    assert out["pyrogram"] and out["warnings"] == [], out
    assert any("pyrogram 2.0.106 is untested" in m for m in out["untested_log"]), out


def test_cryptg_false_leaves_telethon_alone():
    out = run("no-cryptg")
    assert out["pyrogram"] and not out["telethon"] and not out["cryptg_in_modules"], out
    assert all("telethon" not in r for r in out["replacements"]) and out["restored"], out


def test_tgcrypto_false_leaves_pyrogram_alone():
    out = run("no-tgcrypto")
    assert not out["pyrogram"] and out["telethon"], out


def test_message_layer_false_patches_nothing():
    out = run("no-message-layer")
    assert not out["pyrogram"] and not out["telethon"] and out["replacements"] == [], out
