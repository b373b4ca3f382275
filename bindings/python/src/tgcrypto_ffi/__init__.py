"""tgcrypto-ffi for Python: Telegram's AES-256 IGE/CTR/CBC, SHA-256/SHA-1, the
MTProto 2.0 message layer and PQ factorization, over the tgcrypto-ffi C core
(AES-NI, VAES, ARMv8 Crypto Extensions, or a constant-time portable
fallback, chosen at run time).

Drop-in use with Pyrogram (and its forks) or Telethon::

    import tgcrypto_ffi
    tgcrypto_ffi.install()        # before importing pyrogram / telethon
    import pyrogram               # its `import tgcrypto` now gets tgcrypto_ffi.tgcrypto

``tgcrypto_ffi.tgcrypto`` has TgCrypto's API, ``tgcrypto_ffi.cryptg``
cryptg's; see their docstrings for the exact semantics and the deliberate
differences.
"""
import importlib.util
import logging
import sys
import warnings

from . import _patching, cryptg, tgcrypto
from ._native import (
    AuthKey,
    CBCContext,
    CTRContext,
    IGEContext,
    MtprotoSecurityError,
    backends,
    get_backend,
    hash_engine,
    set_backend,
    sha1,
    sha256,
    version,
)
from ._native import factorize_pq_pair as factorize_pq

__version__ = version()

__all__ = [
    "install",
    "uninstall",
    "replacements",
    "has_aesni",
    "get_backend",
    "set_backend",
    "backends",
    "available_backends",
    "hash_engine",
    "sha256",
    "sha1",
    "AuthKey",
    "MtprotoSecurityError",
    "factorize_pq",
    "CTRContext",
    "IGEContext",
    "CBCContext",
    "tgcrypto",
    "cryptg",
]

_HARDWARE_AES = ("vaes512", "vaes256", "aesni", "armce")

# Client modules that bind their crypto module when they are imported.
_CLIENTS = {
    "tgcrypto": ("pyrogram.crypto.aes", "hydrogram.crypto.aes"),
    "cryptg": ("telethon.crypto.aes", "telethon._impl.crypto.aes"),
}
_MODULES = {"tgcrypto": tgcrypto, "cryptg": cryptg}
_saved = {}  # name -> what sys.modules held before install(), for uninstall()
_log = logging.getLogger("tgcrypto_ffi")


def available_backends():
    """Names of the AES backends this CPU runs, best first (for TGCRYPTO_BACKEND / set_backend)."""
    return [name for name, available in backends() if available]


def has_aesni():
    """True when this CPU has hardware AES that a backend uses (AES-NI/VAES on x86, the ARMv8
    Crypto Extensions on ARM), as cipheron's ``has_aesni()``; ``get_backend()`` names the
    backend actually running (which ``TGCRYPTO_BACKEND`` or ``set_backend`` may have forced)."""
    return any(name in _HARDWARE_AES for name in available_backends())


def _describe(name):
    current = sys.modules.get(name)
    if current is not None:
        where = getattr(current, "__file__", None) or repr(current)
        return f"the imported module {name!r} from {where}"
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is not None:
        return f"the installed module {name!r} at {spec.origin} (not imported)"
    return None


def install(tgcrypto=True, cryptg=True, *, message_layer=True, allow_untested_versions=False):
    """Make ``import tgcrypto`` and ``import cryptg`` give ``tgcrypto_ffi.tgcrypto`` and
    ``tgcrypto_ffi.cryptg`` in this process (through ``sys.modules``), and (``message_layer``)
    fuse the clients' MTProto message layers into one native call per message.

    Call it before the client library is imported: Pyrogram (and Hydrogram) and Telethon
    bind their crypto module when ``pyrogram.crypto.aes`` / ``telethon.crypto.aes`` is
    imported, and a RuntimeWarning is issued for each of those already imported (they keep
    the module they bound). Returns ``{name: what was replaced}`` for each name installed:
    ``None`` when nothing was, else a description of the module that ``import name`` would
    have given (imported or only installed); the same is logged at INFO level on the
    ``tgcrypto_ffi`` logger.

    The message layer (with ``tgcrypto``: Pyrogram's, Kurigram's and Pyrofork's
    ``pyrogram.crypto.mtproto.pack``/``unpack`` and Hydrogram's; with ``cryptg``: Telethon v1's
    ``MTProtoState.encrypt_message_data``/``decrypt_message_data`` and its ``AESModeCTR``,
    the MTProxy/obfuscated/CDN CTR) is patched in place, now for a client module already
    imported, else when it is imported: the same bytes and the client's own exceptions, one
    INFO line per replacement, ``replacements()`` lists them, ``uninstall()`` puts them back.
    A client version the patches were not tested with is left alone with a RuntimeWarning,
    unless ``allow_untested_versions`` is true.
    """
    replaced = {}
    for name, wanted in (("tgcrypto", tgcrypto), ("cryptg", cryptg)):
        if not wanted:
            continue
        ours = _MODULES[name]
        for client in _CLIENTS[name]:
            if client in sys.modules:
                warnings.warn(
                    f"tgcrypto_ffi.install(): {client} was imported before install() and keeps the "
                    f"crypto module it bound then; call install() before importing {client.split('.')[0]}",
                    RuntimeWarning,
                    stacklevel=2,
                )
        if sys.modules.get(name) is ours:
            replaced[name] = None
            continue
        what = _describe(name)
        if name not in _saved:
            _saved[name] = sys.modules.get(name)
        sys.modules[name] = ours
        replaced[name] = what
        if what is None:
            _log.info("tgcrypto_ffi.install(): import %s now gives %s", name, ours.__name__)
        else:
            _log.info("tgcrypto_ffi.install(): import %s now gives %s, replacing %s", name, ours.__name__, what)
    if message_layer:
        _patching.install_clients({"tgcrypto": tgcrypto, "cryptg": cryptg}, allow_untested_versions)
    return replaced


def replacements():
    """The client functions install() has replaced and uninstall() would restore, one line each."""
    return _patching.replacements()


def uninstall():
    """Undo install(): ``sys.modules`` gets back what it held before (or forgets the name), and
    the clients' patched functions are the originals again. Client modules imported in between
    keep the crypto module they bound."""
    _patching.uninstall_clients()
    for name, previous in list(_saved.items()):
        if sys.modules.get(name) is _MODULES[name]:
            if previous is None:
                del sys.modules[name]
            else:
                sys.modules[name] = previous
        del _saved[name]
