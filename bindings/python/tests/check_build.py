"""Checks of the built artifacts, run by run.sh (each subcommand is one check;
exit status 0 = passed). Needs pyelftools and pefile (abi3audit's own
dependencies, from the tools venv).

  check_build.py wheels DIR          the 16 wheels (18 with the PyPy ones) and the sdist: names, tags, contents, RECORD
  check_build.py elf DIR             the Linux modules: abi3 imports = PYTHON_SYMBOLS, exports = PyInit__native only,
                                     NEEDED libc only, glibc symbols <= 2.17
  check_build.py pe DIR              the Windows modules: same, imports only python3.dll, KERNEL32 and the UCRT
  check_build.py sdist DIR           the sdist carries csrc/ byte for byte and builds with nothing else
  check_build.py pyconfig INCLUDE    the cross pyconfig.h compiles ext/*.c to the same objects as CPython's own

With TGFFI_PYPY_ABI set (e.g. pypy39_pp73, when build_wheels.py had --pypy), the PyPy
wheels of the two glibc Linux targets are expected too (wheels, elf).
"""
import base64
import hashlib
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY_ROOT = HERE.parent
REPO = PY_ROOT.parent.parent
sys.path.insert(0, str(PY_ROOT / "_build"))
import tgffi_build  # noqa: E402

VERSION = tgffi_build.version()
PYPY_ABI = os.environ.get("TGFFI_PYPY_ABI")  # pypy39_pp73: its wheels are tagged pp39-pypy39_pp73
SYMBOLS = {s.partition(":")[0] for s in tgffi_build.PYTHON_SYMBOLS}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def expected_wheels():
    names = {}
    for target, (_, plat, os_name) in tgffi_build.TARGETS.items():
        ext = "_native.pyd" if os_name == "windows" else "_native.abi3.so"
        names[f"tgcrypto_ffi-{VERSION}-cp311-abi3-{plat}.whl"] = ext
        if os_name == "linux":
            triple = tgffi_build.TARGETS[target][0]
            arch, libc = triple.split("-")[0], "musl" if "musl" in triple else "gnu"
            for minor in (9, 10):
                names[f"tgcrypto_ffi-{VERSION}-cp3{minor}-cp3{minor}-{plat}.whl"] = \
                    f"_native.cpython-3{minor}-{arch}-linux-{libc}.so"
            if PYPY_ABI and libc == "gnu":
                py_tag = "pp" + PYPY_ABI.split("_")[0][len("pypy"):]
                names[f"tgcrypto_ffi-{VERSION}-{py_tag}-{PYPY_ABI}-{plat}.whl"] = \
                    f"_native.{PYPY_ABI.replace('_', '-')}-{arch}-linux-gnu.so"
    return names


# Every file of the package's source folder goes into each wheel, nothing else but the module.
PACKAGE_SOURCES = sorted(p.name for p in (Path(__file__).resolve().parents[1] / "src" / "tgcrypto_ffi").iterdir()
                         if p.is_file() and p.suffix in (".py", ".pyi", ".typed"))


def check_wheels(d):
    d = Path(d)
    want = expected_wheels()
    have = {p.name for p in d.glob("*.whl")}
    if have != set(want):
        fail(f"wheels: missing {sorted(set(want) - have)}, unexpected {sorted(have - set(want))}")
    for name, ext in want.items():
        with zipfile.ZipFile(d / name) as z:
            files = z.namelist()
            tops = {f.split("/")[0] for f in files}
            if tops != {"tgcrypto_ffi", f"tgcrypto_ffi-{VERSION}.dist-info"}:
                fail(f"{name}: top-level entries {tops}")
            mods = {f for f in files if f.startswith("tgcrypto_ffi/")}
            if mods != {f"tgcrypto_ffi/{m}" for m in (*PACKAGE_SOURCES, ext)}:
                fail(f"{name}: package files {sorted(mods)}")
            record = z.read(f"tgcrypto_ffi-{VERSION}.dist-info/RECORD").decode().splitlines()
            listed = {}
            for line in record:
                path, digest, size = line.rsplit(",", 2)
                listed[path] = (digest, size)
            if set(listed) != set(files):
                fail(f"{name}: RECORD lists {sorted(set(listed) ^ set(files))} differently")
            for f in files:
                if f.endswith("RECORD"):
                    continue
                data = z.read(f)
                digest = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                if listed[f] != (digest, str(len(data))):
                    fail(f"{name}: RECORD hash of {f}")
            wheel = z.read(f"tgcrypto_ffi-{VERSION}.dist-info/WHEEL").decode()
            _, _, py, abi, plat = name[:-4].split("-")
            tags = sorted(f"{py}-{abi}-{p}" for p in plat.split("."))
            if sorted(re.findall(r"^Tag: (.+)$", wheel, re.M)) != tags or "Root-Is-Purelib: false" not in wheel:
                fail(f"{name}: WHEEL {wheel!r}")
            meta = z.read(f"tgcrypto_ffi-{VERSION}.dist-info/METADATA").decode()
            for field in ("Name: tgcrypto-ffi", f"Version: {VERSION}", "Requires-Python: >=3.9"):
                if field not in meta.splitlines():
                    fail(f"{name}: METADATA lacks {field}")
    if not (d / f"tgcrypto_ffi-{VERSION}.tar.gz").is_file():
        fail("no sdist")
    print(f"{len(want)} wheels and the sdist: names, tags, contents and RECORD ok")


def modules(d, suffix, platform):
    for whl in sorted(Path(d).glob(f"*{platform}*.whl")):
        with zipfile.ZipFile(whl) as z:
            for f in z.namelist():
                if f.endswith(suffix):
                    yield whl.name, z.read(f)


def check_elf(d):
    from elftools.elf.dynamic import DynamicSection
    from elftools.elf.elffile import ELFFile
    from elftools.elf.gnuversions import GNUVerNeedSection

    n = 0
    for whl, data in modules(d, ".so", "linux"):
        elf = ELFFile(io.BytesIO(data))
        dynsym = elf.get_section_by_name(".dynsym")
        undefined, exported = set(), set()
        for s in dynsym.iter_symbols():
            if not s.name:
                continue
            if s["st_shndx"] == "SHN_UNDEF":
                undefined.add(s.name)
            elif s["st_info"]["bind"] in ("STB_GLOBAL", "STB_WEAK") and s["st_other"]["visibility"] == "STV_DEFAULT":
                exported.add(s.name)
        py = {u for u in undefined if u.startswith(("Py", "_Py"))}
        if "-abi3-" in whl and py != SYMBOLS:  # version-specific modules may use any API
            fail(f"{whl}: Python symbols differ from PYTHON_SYMBOLS: +{sorted(py - SYMBOLS)} -{sorted(SYMBOLS - py)}")
        if exported != {"PyInit__native"}:
            fail(f"{whl}: exports {sorted(exported)}")
        needed = {t.needed for sec in elf.iter_sections() if isinstance(sec, DynamicSection)
                  for t in sec.iter_tags() if t.entry.d_tag == "DT_NEEDED"}
        musl = "musllinux" in whl
        if needed != ({"libc.so"} if musl else {"libc.so.6"}):
            fail(f"{whl}: NEEDED {needed}")
        if not musl:
            versions = set()
            for sec in elf.iter_sections():
                if isinstance(sec, GNUVerNeedSection):
                    for _, aux in sec.iter_versions():
                        versions |= {a.name for a in aux}
            glibc = [tuple(int(x) for x in v[6:].split(".")) for v in versions if v.startswith("GLIBC_")]
            if not glibc or max(glibc) > (2, 17):
                fail(f"{whl}: glibc symbol versions {sorted(versions)}")
        n += 1
    want = 12 + (2 if PYPY_ABI else 0)
    if n != want:
        fail(f"{n} Linux modules, expected {want}")
    print(f"{n} Linux modules: abi3 imports are PYTHON_SYMBOLS, exports PyInit__native only, NEEDED libc, glibc <= 2.17")


def check_pe(d):
    import pefile

    n = 0
    for whl, data in modules(d, ".pyd", "win"):
        pe = pefile.PE(data=data)
        exports = [e.name.decode() for e in pe.DIRECTORY_ENTRY_EXPORT.symbols]
        if exports != ["PyInit__native"]:
            fail(f"{whl}: exports {exports}")
        dlls = {}
        for imp in pe.DIRECTORY_ENTRY_IMPORT:
            dlls[imp.dll.decode().lower()] = {i.name.decode() for i in imp.imports if i.name}
        others = {k for k in dlls if k not in ("python3.dll", "kernel32.dll") and not k.startswith("api-ms-win-crt-")}
        if others or "python3.dll" not in dlls:
            fail(f"{whl}: imports DLLs {sorted(dlls)}")
        if dlls["python3.dll"] != SYMBOLS:
            fail(f"{whl}: python3.dll imports differ: {sorted(dlls['python3.dll'] ^ SYMBOLS)}")
        n += 1
    if n != 2:
        fail(f"{n} Windows modules, expected 2")
    print(f"{n} Windows modules: export PyInit__native only, import python3.dll (PYTHON_SYMBOLS), KERNEL32 and the UCRT")


def check_sdist(d):
    path = Path(d) / f"tgcrypto_ffi-{VERSION}.tar.gz"
    base = f"tgcrypto_ffi-{VERSION}/"
    with tarfile.open(path) as tar:
        members = {m.name[len(base):]: m for m in tar.getmembers() if m.isfile()}
        csrc = sorted(p for p in (REPO / "csrc").iterdir() if p.suffix in (".c", ".h") or p.name == "core_build.txt")
        for p in csrc:
            m = members.get(f"csrc/{p.name}")
            if m is None or tar.extractfile(m).read() != p.read_bytes():
                fail(f"sdist: csrc/{p.name} missing or different")
        shipped_csrc = {k for k in members if k.startswith("csrc/")}
        if shipped_csrc != {f"csrc/{p.name}" for p in csrc}:
            fail(f"sdist: csrc files {sorted(shipped_csrc)}")
        for need in ("pyproject.toml", "PKG-INFO", "LICENSE", "README.md", "_build/tgffi_build.py",
                     "_build/cross/pyconfig.h", "src/tgcrypto_ffi/__init__.py",
                     *(f"ext/{p.name}" for p in sorted((PY_ROOT / "ext").iterdir()))):
            if need not in members:
                fail(f"sdist lacks {need}")
        if any(k.startswith(("tests/", "test/")) for k in members):
            fail("sdist ships tests")
    print(f"sdist: {len(members)} files, csrc/ ({len(csrc)} files) identical to the repository's")


def check_pyconfig(include):
    """Compiles the extension's sources (ext/*.c) for x86_64 Linux twice, with
    CPython's own pyconfig.h and with the cross one: the objects must be the same bytes."""
    zig = [str(REPO / "scripts" / "zig")]
    sources = sorted((PY_ROOT / "ext").glob("*.c"))
    objs = []
    with tempfile.TemporaryDirectory() as work:
        staged = tgffi_build.stage_cross_headers(include, work)
        for i, inc in enumerate((Path(include), staged)):
            objs.append([])
            for src in sources:
                out = Path(work) / f"{src.stem}-{i}.o"
                cmd = zig + ["cc", "-target", "x86_64-linux-gnu.2.17", "-mcpu=baseline", "-fno-sanitize=all", "-c",
                             "-g0", "-std=c11", "-O3", "-fPIC", "-fvisibility=hidden", "-DTG_API=", "-DNDEBUG",
                             f"-DPy_LIMITED_API={tgffi_build.LIMITED_API}", f"-I{REPO / 'csrc'}", f"-I{inc}",
                             str(src), "-o", str(out)]
                subprocess.run(cmd, check=True)
                objs[i].append(out.read_bytes())
    if objs[0] != objs[1]:
        fail("the cross pyconfig.h gives a different object than CPython's own on x86_64 Linux")
    print(f"ext/*.c with the cross pyconfig.h: the same {len(sources)} objects as with CPython's own")


if __name__ == "__main__":
    cmd, arg = sys.argv[1], sys.argv[2]
    {"wheels": check_wheels, "elf": check_elf, "pe": check_pe, "sdist": check_sdist, "pyconfig": check_pyconfig}[cmd](arg)
