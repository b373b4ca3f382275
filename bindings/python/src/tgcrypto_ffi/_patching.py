"""install()'s client patches: the fused message layers (Telethon v1, Pyrogram, Kurigram,
Pyrofork, Hydrogram) and Telethon's native CTR.

A patch replaces one attribute of a client module or class and remembers the original for
uninstall(). Client modules already imported are patched at once; the others when they are
imported, through a finder on ``sys.meta_path`` that wraps their loader (so the order of
``install()`` and ``import telethon`` does not matter for these). Each patch checks the
client's version against the versions it was tested with: another version is left alone with
a RuntimeWarning unless install() was given ``allow_untested_versions=True``. Every
replacement is logged at INFO level on the ``tgcrypto_ffi`` logger, one line each.
"""
import importlib
import importlib.abc
import logging
import os
import sys
import threading
import warnings

from . import _keys, _pyrogram, _telethon

_log = logging.getLogger("tgcrypto_ffi")

# package -> the versions of its message layer the patches were written against and tested
# with (Pyrogram 2.0.106, Kurigram 2.2.26, Pyrofork 2.3.69 all install as `pyrogram`)
TESTED_VERSIONS = {
    "telethon": ("1.45.0",),
    "pyrogram": ("2.0.106", "2.2.26", "2.3.69"),
    "hydrogram": ("0.2.0",),
}

_lock = threading.RLock()
_applied = []  # (owner, attribute, original, description), in the order applied
_wanted = {}  # module name -> patcher, while installed and not yet imported
_patched = set()  # module names whose patcher ran (applied or left alone by the version gate)
_options = {"allow_untested_versions": False}


def _version(package):
    """The client's version string, or None. Pyrogram and Hydrogram set __version__ at the top
    of their __init__, before importing their submodules; Telethon keeps it in .version."""
    top = sys.modules.get(package)
    found = getattr(top, "__version__", None)
    if found is None:
        try:
            found = importlib.import_module(package + ".version").__version__
        except Exception:
            found = None
    return found if isinstance(found, str) else None


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_IMPORTLIB_DIR = os.path.dirname(os.path.abspath(importlib.__file__))


def _caller_frame(package):
    """The frame a warning should name: the first one outward that is not in tgcrypto_ffi,
    importlib or the client `package` itself (whose own imports run the patch when install()
    came first), so the user's `import` or `install()` line. None if there is none."""
    top = sys.modules.get(package)
    client_file = getattr(top, "__file__", None)
    skipped = [_PACKAGE_DIR, _IMPORTLIB_DIR]
    if isinstance(client_file, str):
        skipped.append(os.path.dirname(os.path.abspath(client_file)))
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        # importlib's own machinery: "<frozen importlib._bootstrap>" (CPython), "<builtin>/frozen
        # importlib._bootstrap_external" (PyPy); the rule CPython's warnings module uses for it
        inside = ("importlib" in name and "_bootstrap" in name) or (
            not name.startswith("<") and any(os.path.abspath(name).startswith(d + os.sep) for d in skipped))
        if not inside:
            return frame
        frame = frame.f_back
    return None


def _warn_caller(package, message):
    """A RuntimeWarning at the caller's line (see _caller_frame). warn_explicit, not warn with a
    stacklevel: warn skips importlib's frames when it counts, and not the same way everywhere."""
    frame = _caller_frame(package)
    if frame is None:
        warnings.warn(message, RuntimeWarning, stacklevel=2)
        return
    g = frame.f_globals
    # no module_globals: like warn, the source line is read from the file when it is shown (the
    # loader's get_source is not asked; __main__ under -c has none)
    warnings.warn_explicit(message, RuntimeWarning, frame.f_code.co_filename, frame.f_lineno,
                           module=g.get("__name__", "<string>"), registry=g.setdefault("__warningregistry__", {}))


def _gate(package, what):
    """True when `package`'s version is tested (or untested ones are allowed)."""
    found = _version(package)
    if found in TESTED_VERSIONS[package]:
        return True
    if _options["allow_untested_versions"]:
        _log.warning("tgcrypto_ffi.install(): %s %s is untested (tested: %s); patching %s anyway "
                     "(allow_untested_versions=True)", package, found, ", ".join(TESTED_VERSIONS[package]), what)
        return True
    _warn_caller(
        package,
        f"tgcrypto_ffi.install(): {package} {found} is not a tested version ({', '.join(TESTED_VERSIONS[package])}); "
        f"{what} is left as it is (install(allow_untested_versions=True) patches it anyway)",
    )
    return False


def _replace(owner, attribute, new, description):
    original = owner.__dict__[attribute]
    setattr(owner, attribute, new)
    _applied.append((owner, attribute, original, description))
    _log.info("tgcrypto_ffi.install(): %s", description)


def _patch_pyrogram(module):
    package = module.__name__.split(".")[0]
    if not _gate(package, f"{module.__name__}.pack/unpack"):
        return
    pack, unpack = _pyrogram.fused_pair(module, module.pack, module.unpack)
    where = f"{package} {_version(package)}: {module.__name__}"
    _replace(module, "pack", pack, f"{where}.pack -> one native call (AuthKey.encrypt_message)")
    _replace(module, "unpack", unpack, f"{where}.unpack -> one native call (AuthKey.decrypt_message)")


def _patch_telethon_state(module):
    if not _gate("telethon", f"{module.__name__}.MTProtoState"):
        return
    cls = module.MTProtoState
    enc, dec = _telethon.fused_state_methods(module, cls.encrypt_message_data, cls.decrypt_message_data)
    where = f"telethon {_version('telethon')}: {module.__name__}.MTProtoState"
    _replace(cls, "encrypt_message_data", enc, f"{where}.encrypt_message_data -> one native call (AuthKey.encrypt_message)")
    _replace(cls, "decrypt_message_data", dec, f"{where}.decrypt_message_data -> one native call (AuthKey.decrypt_message)")


def _patch_telethon_ctr(module):
    if not _gate("telethon", f"{module.__name__}.AESModeCTR"):
        return
    cls = module.AESModeCTR
    _replace(cls, "__init__", _telethon.fused_ctr_init(cls.__init__),
             f"telethon {_version('telethon')}: {module.__name__}.AESModeCTR -> tgcrypto_ffi.CTRContext for AES-256 keys")


# module -> (patcher, the install() flag it belongs to)
PATCHERS = {
    "telethon.network.mtprotostate": (_patch_telethon_state, "cryptg"),
    "telethon.crypto.aesctr": (_patch_telethon_ctr, "cryptg"),
    "pyrogram.crypto.mtproto": (_patch_pyrogram, "tgcrypto"),
    "hydrogram.crypto.mtproto": (_patch_pyrogram, "tgcrypto"),
}


def _run(name, module):
    with _lock:
        patcher = _wanted.pop(name, None)
        if patcher is not None:
            _patched.add(name)
            patcher(module)


class _PatchingLoader:
    """Wraps a client module's loader: executes it, then applies the patch."""

    def __init__(self, loader, name):
        self._loader, self._name = loader, name

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _run(self._name, module)

    def __getattr__(self, attribute):
        return getattr(self._loader, attribute)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: asks the finders after it, and wraps the loader of a client
    module that install() still has to patch."""

    def find_spec(self, fullname, path, target=None):
        if fullname not in _wanted:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _PatchingLoader(spec.loader, fullname)
                return spec
        return None


_finder = _Finder()


def install_clients(flags, allow_untested_versions):
    """Patches what `flags` ({'tgcrypto': bool, 'cryptg': bool}) selects, now or on import."""
    with _lock:
        _options["allow_untested_versions"] = bool(allow_untested_versions)
        for name, (patcher, flag) in PATCHERS.items():
            if not flags.get(flag) or name in _wanted or name in _patched:
                continue
            _wanted[name] = patcher
            module = sys.modules.get(name)
            if module is not None:
                _run(name, module)
        if _wanted and _finder not in sys.meta_path:
            sys.meta_path.insert(0, _finder)


def uninstall_clients():
    """Puts every replaced attribute back (the latest first) and stops patching on import."""
    with _lock:
        _wanted.clear()
        _patched.clear()
        if _finder in sys.meta_path:
            sys.meta_path.remove(_finder)
        while _applied:
            owner, attribute, original, description = _applied.pop()
            setattr(owner, attribute, original)
            _log.info("tgcrypto_ffi.uninstall(): restored %s", description.split(" -> ")[0])
        _keys.forget_all()


def replacements():
    """Descriptions of the client patches in effect, in the order applied."""
    with _lock:
        return [description for _, _, _, description in _applied]
