"""tgffi_build: the in-tree PEP 517 build backend of tgcrypto-ffi, and the wheel
builder that build_wheels.py uses for the eight release targets.

The extension module tgcrypto_ffi._native is the C files of ext/ plus the
core's sources (csrc/*.c), compiled and linked in one `zig cc` command:

- always for an explicit target with a baseline CPU (-mcpu=baseline): the
  hardware paths are chosen at run time, so a wheel never assumes the build
  machine's CPU;
- on CPython 3.11+ on the limited API (Py_LIMITED_API=0x030B0000, wheel tag
  cp311-abi3); on 3.9/3.10, whose limited API lacks Py_buffer, from the same
  source as a version-specific module (tag cp39-cp39 ...);
- with TG_API defined empty and -fvisibility=hidden, so that the module
  exports PyInit__native only.

Which compiler (first match):
  TGCRYPTO_FFI_ZIG=/path/to/zig   that zig
  TGCRYPTO_FFI_CC="clang ..."     that C compiler, native target only (no zig)
  the `ziglang` package           `python -m ziglang`; get_requires_for_build_wheel
                                  asks for ziglang==0.17.0.* where PyPI has a wheel of it
  clang, else CC, else cc         fallback where ziglang has no wheel (e.g. Termux,
                                  FreeBSD), native target; the core needs clang (gcc 12
                                  rejects its per-function target attributes)

TGCRYPTO_FFI_WERROR=1 adds -Werror (the project's own builds and tests).
Deterministic output: files are sorted, timestamps come from
SOURCE_DATE_EPOCH (default 2000-01-01).
"""
import base64
import gzip
import hashlib
import io
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent  # bindings/python in the repository, the top folder of an sdist
NAME = "tgcrypto_ffi"
DIST_NAME = "tgcrypto-ffi"
LIMITED_API = "0x030B0000"
ZIGLANG_REQUIREMENT = "ziglang==0.17.0.*"  # 0.17.0 or 0.17.0.post0 (the latter has the Windows wheels)

# What build.zig's default optimisation (-Doptimize=ReleaseFast) passes to
# clang for C (`zig build-lib -OReleaseFast --verbose-cc`; the test suite
# checks it against the pinned zig).
RELEASE_FAST_FLAGS = ("-O2", "-DNDEBUG", "-fno-stack-protector")

# Release targets: zig triple, wheel platform tag(s), OS.
TARGETS = {
    "linux-x64-gnu": ("x86_64-linux-gnu.2.17", "manylinux_2_17_x86_64.manylinux2014_x86_64", "linux"),
    "linux-arm64-gnu": ("aarch64-linux-gnu.2.17", "manylinux_2_17_aarch64.manylinux2014_aarch64", "linux"),
    "linux-x64-musl": ("x86_64-linux-musl", "musllinux_1_2_x86_64", "linux"),
    "linux-arm64-musl": ("aarch64-linux-musl", "musllinux_1_2_aarch64", "linux"),
    "darwin-x64": ("x86_64-macos.11.0", "macosx_11_0_x86_64", "darwin"),
    "darwin-arm64": ("aarch64-macos.11.0", "macosx_11_0_arm64", "darwin"),
    "win32-x64": ("x86_64-windows-gnu", "win_amd64", "windows"),
    "win32-arm64": ("aarch64-windows-gnu", "win_arm64", "windows"),
}

# Every CPython API symbol the extension uses, for the Windows import
# library (zig dlltool). The test suite checks this list against the
# undefined symbols of the Linux build. DATA marks variables.
PYTHON_SYMBOLS = """
PyBool_FromLong PyBuffer_Release PyBytes_AsString PyBytes_AsStringAndSize PyBytes_FromStringAndSize
PyErr_Clear PyErr_Format PyErr_NewExceptionWithDoc PyErr_NoMemory PyErr_Occurred PyErr_SetString
PyEval_RestoreThread PyEval_SaveThread PyImport_ImportModule PyIndex_Check PyList_Append PyList_New
PyLong_AsUnsignedLongLong PyMem_Free PyMem_Malloc PyModule_AddIntConstant PyModule_AddObject
PyModule_Create2 PyNumber_Index PyObject_CheckBuffer PyObject_GetAttrString PyObject_GetBuffer
PyObject_IsTrue PySequence_Tuple PyThread_acquire_lock PyThread_allocate_lock PyThread_free_lock
PyThread_release_lock PyTuple_GetItem PyTuple_Size PyType_FromSpec PyType_GetFlags PyType_GetSlot
PyUnicode_AsUTF8AndSize PyUnicode_CompareWithASCIIString PyUnicode_FromString
_PyArg_ParseTupleAndKeywords_SizeT _PyObject_CallFunction_SizeT _Py_BuildValue_SizeT _Py_Dealloc
PyExc_ImportError:DATA PyExc_RuntimeError:DATA PyExc_TypeError:DATA PyExc_ValueError:DATA
_Py_FalseStruct:DATA _Py_NoneStruct:DATA _Py_TrueStruct:DATA
""".split()

# Platforms with a ziglang==0.17.0.* wheel on PyPI: (sys.platform, machine).
ZIGLANG_PLATFORMS = {
    ("linux", m) for m in ("x86_64", "aarch64", "i686", "armv7l", "ppc64le", "s390x", "riscv64")
} | {("darwin", "x86_64"), ("darwin", "arm64"), ("win32", "amd64"), ("win32", "arm64"), ("win32", "x86")}


class BuildError(RuntimeError):
    pass


# --------------------------------------------------------------------------
# Sources and metadata


def csrc_dir():
    """The core's sources: csrc/ of an sdist, else the repository's."""
    for candidate in (ROOT / "csrc", ROOT.parent.parent / "csrc"):
        if (candidate / "tgcrypto.h").is_file():
            return candidate
    raise BuildError("csrc/ not found: build from the repository or from an sdist")


def core_build_entries(kind):
    """The "<kind> VALUE" lines of csrc/core_build.txt, in order: the core's
    sources ("source", paths from the repository root) and flags ("flag"),
    the same list build.zig compiles."""
    entries = []
    for line in (csrc_dir() / "core_build.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith(kind + " "):
            entries.append(line[len(kind) + 1:].strip())
    return entries


def core_sources():
    root = csrc_dir().parent
    return [root / rel for rel in core_build_entries("source")]


def core_flags():
    """build.zig's flags; -Werror only with TGCRYPTO_FFI_WERROR=1."""
    werror = os.environ.get("TGCRYPTO_FFI_WERROR") == "1"
    return [f for f in core_build_entries("flag") if werror or f != "-Werror"]


def license_file():
    for candidate in (ROOT / "LICENSE", ROOT.parent.parent / "LICENSE"):
        if candidate.is_file():
            return candidate
    raise BuildError("LICENSE not found")


def version():
    header = (csrc_dir() / "tgcrypto.h").read_text(encoding="utf-8")
    m = re.search(r'#define TG_VERSION_STRING "([^"]+)"', header)
    if not m:
        raise BuildError("TG_VERSION_STRING not found in csrc/tgcrypto.h")
    return m.group(1)


def project():
    try:
        import tomllib
    except ImportError:  # Python < 3.11: the build requirement tomli
        import tomli as tomllib
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def metadata_text():
    p = project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {p['name']}",
        f"Version: {version()}",
        f"Summary: {p['description']}",
        f"License: {p['license']['text']}",
        f"Requires-Python: {p['requires-python']}",
    ]
    for author in p.get("authors", []):
        lines.append(f"Author: {author['name']}")
    for label, url in p.get("urls", {}).items():
        lines.append(f"Project-URL: {label}, {url}")
    for c in p.get("classifiers", []):
        lines.append(f"Classifier: {c}")
    lines.append("Description-Content-Type: text/markdown")
    readme = (ROOT / p["readme"]).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + readme


def package_files():
    """The pure-Python part of the package: {archive name: bytes}."""
    src = ROOT / "src" / NAME
    files = {}
    for path in sorted(src.iterdir()):
        if path.suffix in (".py", ".pyi") or path.name == "py.typed":
            files[f"{NAME}/{path.name}"] = path.read_bytes()
    return files


def source_date():
    return int(os.environ.get("SOURCE_DATE_EPOCH", "946684800"))  # 2000-01-01


# --------------------------------------------------------------------------
# Compiling


def zig_command():
    """The zig command prefix, or None when a plain C compiler is to be used."""
    if os.environ.get("TGCRYPTO_FFI_ZIG"):
        return [os.environ["TGCRYPTO_FFI_ZIG"]]
    if os.environ.get("TGCRYPTO_FFI_CC"):
        return None
    try:
        import ziglang  # noqa: F401  (the PyPI package)
    except ImportError:
        return None
    return [sys.executable, "-m", "ziglang"]


def host_target():
    """The release target this interpreter runs on, or None (unknown platform)."""
    machine = platform.machine().lower()
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine)
    if arch is None:
        return None
    if sys.platform.startswith("linux"):
        if hasattr(sys, "getandroidapilevel"):
            return None  # Android/Termux: bionic, not glibc or musl
        libc = platform.libc_ver()[0]
        if libc == "glibc":
            return f"linux-{arch}-gnu"
        if any(Path("/lib").glob("ld-musl-*.so.1")):
            return f"linux-{arch}-musl"
        return None
    if sys.platform == "darwin":
        return f"darwin-{arch}"
    if sys.platform == "win32":
        return f"win32-{arch}"
    return None


def _run(cmd, cwd=None):
    print("tgffi_build:", " ".join(shlex.quote(str(c)) for c in cmd), file=sys.stderr, flush=True)
    r = subprocess.run([str(c) for c in cmd], cwd=cwd)
    if r.returncode != 0:
        raise BuildError(f"command failed with exit code {r.returncode}: {cmd[0]} ...")


def stage_cross_headers(include_dir, work):
    """A copy of a CPython >= 3.11 Include/ folder with our target-neutral pyconfig.h."""
    include_dir = Path(include_dir)
    if not (include_dir / "Python.h").is_file():
        raise BuildError(f"no Python.h in {include_dir}")
    staged = Path(work) / "include"
    shutil.copytree(include_dir, staged)
    shutil.copyfile(HERE / "cross" / "pyconfig.h", staged / "pyconfig.h")
    return staged


def write_def(path, dll):
    lines = [f"LIBRARY {dll}", "EXPORTS"]
    for sym in PYTHON_SYMBOLS:
        name, _, kind = sym.partition(":")
        lines.append(f"    {name} DATA" if kind == "DATA" else f"    {name}")
    Path(path).write_text("\n".join(lines) + "\n", encoding="ascii")


def compile_extension(out, *, target=None, include_dirs, limited, zig, work, python_dll="python3.dll"):
    """Compiles ext/*.c + csrc/*.c into the shared module `out`.

    target: a TARGETS key (zig only), or None for the native platform with a
    plain C compiler. include_dirs: CPython headers. limited: abi3 build."""
    csrc = csrc_dir()
    sources = sorted((ROOT / "ext").glob("*.c")) + core_sources()
    # build.zig's flags (csrc/core_build.txt) and optimisation (ReleaseFast), then
    # what a Python module needs: a shared object exporting PyInit__native only
    flags = core_flags() + list(RELEASE_FAST_FLAGS) + ["-shared", "-DTG_API="]
    if limited:
        flags.append(f"-DPy_LIMITED_API={LIMITED_API}")
    flags += [f"-I{csrc}", f"-I{ROOT / 'ext'}"] + [f"-I{d}" for d in include_dirs]
    native_os = {"darwin": "darwin", "win32": "windows"}.get(sys.platform, "linux")
    if zig is not None:
        # never the build machine's CPU: plain `zig cc` would enable its AVX2/VAES everywhere
        cc = zig + ["cc", "-mcpu=baseline", "-fno-sanitize=all"]
        if target is not None:
            triple, _, os_name = TARGETS[target]
            cc += ["-target", triple]
        else:
            os_name = native_os
    else:
        # the core's per-function target attributes need clang (gcc rejects its intrinsics there)
        cc = shlex.split(os.environ.get("TGCRYPTO_FFI_CC") or ("clang" if shutil.which("clang") else None)
                         or os.environ.get("CC") or "cc")
        os_name = native_os
        if os_name == "windows":
            raise BuildError("on Windows the extension is built with zig: pip install ziglang, or set TGCRYPTO_FFI_ZIG")
    link = []
    if os_name == "linux":
        flags.append("-fPIC")
        link += ["-s"]
    elif os_name == "darwin":
        link += ["-Wl,-undefined,dynamic_lookup", "-s"]
    else:  # windows: link against python3.dll (or python3X.dll) through an import library made here
        machine = "arm64" if target and target.startswith("win32-arm64") else "i386:x86-64"
        base = python_dll[: -len(".dll")]
        write_def(Path(work) / f"{base}.def", python_dll)
        _run(zig + ["dlltool", "-d", Path(work) / f"{base}.def", "-l", Path(work) / f"{base}.lib", "-m", machine])
        link += [f"-L{work}", f"-l{base}", "-s"]
    # -o relative to the work folder: Mach-O records the output name (LC_ID_DYLIB)
    _run(cc + flags + [str(s) for s in sources] + link + ["-o", Path(out).name], cwd=Path(out).parent)


# --------------------------------------------------------------------------
# Wheels and sdists


def _zip_write(zf, name, data, executable=False):
    info = zipfile.ZipInfo(name, date_time=_zip_time())
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = ((0o755 if executable else 0o644) | 0o100000) << 16
    zf.writestr(info, data)


def _zip_time():
    import time

    t = time.gmtime(max(source_date(), 315532800))  # zip cannot go before 1980
    return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec)


def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(out_dir, python_tag, abi_tag, platform_tag, ext_name, ext_bytes):
    """Writes the wheel; returns its path. platform_tag may be a compressed tag set (a.b)."""
    ver = version()
    dist_info = f"{NAME}-{ver}.dist-info"
    files = package_files()
    files[f"{NAME}/{ext_name}"] = ext_bytes
    tags = [f"{py}-{abi_tag}-{plat}" for py in python_tag.split(".") for plat in platform_tag.split(".")]
    wheel_meta = "Wheel-Version: 1.0\nGenerator: tgffi_build\nRoot-Is-Purelib: false\n"
    wheel_meta += "".join(f"Tag: {t}\n" for t in tags)
    files[f"{dist_info}/METADATA"] = metadata_text().encode("utf-8")
    files[f"{dist_info}/WHEEL"] = wheel_meta.encode("ascii")
    files[f"{dist_info}/licenses/LICENSE"] = license_file().read_bytes()
    record = "".join(f"{name},{_record_hash(data)},{len(data)}\n" for name, data in files.items())
    record += f"{dist_info}/RECORD,,\n"
    files[f"{dist_info}/RECORD"] = record.encode("utf-8")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{NAME}-{ver}-{python_tag}-{abi_tag}-{platform_tag}.whl"
    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w") as zf:
        for name, data in files.items():  # package first, dist-info (RECORD last) after
            _zip_write(zf, name, data, executable=name.endswith((".so", ".pyd")))
    os.replace(tmp, path)
    return path


def build_for_target(out_dir, target, *, include_dir, zig, limited=True, python_tag=None, ext_suffix=None):
    """A release wheel for one target (cross-compiled). limited: abi3 from a
    >= 3.11 include_dir (staged with the cross pyconfig.h); else a
    version-specific Linux wheel from that interpreter's own headers."""
    triple, plat, os_name = TARGETS[target]
    with tempfile.TemporaryDirectory(prefix="tgffi-") as work:
        if limited:
            includes = [stage_cross_headers(include_dir, work)]
            ext_name = "_native.pyd" if os_name == "windows" else "_native.abi3.so"
            py_tag, abi_tag = "cp311", "abi3"
        else:
            if os_name != "linux":
                raise BuildError("version-specific cross builds are made for Linux targets only")
            includes = [include_dir]
            ext_name = "_native" + ext_suffix
            py_tag = abi_tag = python_tag
        out = Path(work) / ext_name
        compile_extension(out, target=target, include_dirs=includes, limited=limited, zig=zig, work=work)
        return write_wheel(out_dir, py_tag, abi_tag, plat, ext_name, out.read_bytes())


def _native_platform_tag():
    return re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


def build_native_wheel(out_dir):
    """The PEP 517 wheel: for the running interpreter and platform."""
    if sys.implementation.name != "cpython":
        raise BuildError("tgcrypto-ffi's extension is for CPython")
    limited = sys.version_info >= (3, 11) and not sysconfig.get_config_var("Py_GIL_DISABLED")
    target = host_target()
    zig = zig_command()
    paths = sysconfig.get_paths()
    includes = [paths["include"]] + ([paths["platinclude"]] if paths.get("platinclude") not in (None, paths["include"]) else [])
    ver_tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    windows = sys.platform == "win32"
    with tempfile.TemporaryDirectory(prefix="tgffi-") as work:
        if limited:
            ext_name = "_native.pyd" if windows else "_native.abi3.so"
            py_tag, abi_tag = "cp311", "abi3"
            if windows:  # CPython's PC/pyconfig.h targets MSVC; the cross header is made for this
                includes = [stage_cross_headers(paths["include"], work)]
        else:
            ext_name = "_native" + sysconfig.get_config_var("EXT_SUFFIX")
            py_tag = ver_tag
            abi_tag = ver_tag + ("t" if sysconfig.get_config_var("Py_GIL_DISABLED") else "")
        out = Path(work) / ext_name
        dll = "python3.dll" if limited else f"python{sys.version_info.major}{sys.version_info.minor}.dll"
        if zig is None or target is None:
            target = None  # the native platform: zig without -target, or the system C compiler
        compile_extension(out, target=target, include_dirs=includes, limited=limited, zig=zig, work=work,
                          python_dll=dll)
        plat = TARGETS[target][1] if target is not None else _native_platform_tag()
        return write_wheel(out_dir, py_tag, abi_tag, plat, ext_name, out.read_bytes())


SDIST_FILES = ("pyproject.toml", "README.md", "_build/tgffi_build.py", "_build/cross/pyconfig.h") + tuple(
    f"ext/{p.name}" for p in sorted((ROOT / "ext").iterdir()) if p.suffix in (".c", ".h"))


def build_sdist_to(out_dir):
    ver = version()
    base = f"{NAME}-{ver}"
    members = {}
    for rel in SDIST_FILES:
        members[rel] = (ROOT / rel).read_bytes()
    for path in sorted((ROOT / "src" / NAME).iterdir()):
        if path.suffix in (".py", ".pyi") or path.name == "py.typed":
            members[f"src/{NAME}/{path.name}"] = path.read_bytes()
    for path in sorted(csrc_dir().iterdir()):
        if path.suffix in (".c", ".h") or path.name == "core_build.txt":
            members[f"csrc/{path.name}"] = path.read_bytes()
    members["LICENSE"] = license_file().read_bytes()
    members["PKG-INFO"] = metadata_text().encode("utf-8")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{base}.tar.gz"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel in sorted(members):
            data = members[rel]
            info = tarfile.TarInfo(f"{base}/{rel}")
            info.size = len(data)
            info.mtime = source_date()
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    with open(path, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=source_date(), filename="") as gz:
        gz.write(raw.getvalue())
    return path


# --------------------------------------------------------------------------
# PEP 517 hooks


def get_requires_for_build_wheel(config_settings=None):
    if os.environ.get("TGCRYPTO_FFI_ZIG") or os.environ.get("TGCRYPTO_FFI_CC"):
        return []
    machine = platform.machine().lower()
    if sys.platform == "darwin":
        release = platform.mac_ver()[0]
        if not release or int(release.split(".")[0]) < 13:  # ziglang's macOS wheels need 13+
            return []
    if hasattr(sys, "getandroidapilevel") or (sys.platform, machine) not in ZIGLANG_PLATFORMS:
        return []  # no ziglang wheel here: the system C compiler is used
    return [ZIGLANG_REQUIREMENT]


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return build_native_wheel(wheel_directory).name


def build_sdist(sdist_directory, config_settings=None):
    return build_sdist_to(sdist_directory).name
