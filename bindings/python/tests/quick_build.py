"""Builds tgcrypto_ffi for the running CPython only, fast, for development and
the mutation run (quick.sh drives it; run.sh builds the release wheels).

    python quick_build.py OUT_DIR     ->  OUT_DIR/tgcrypto_ffi/ (importable with PYTHONPATH=OUT_DIR)

The same sources and flags as the wheel (tgffi_build.compile_extension:
csrc/core_build.txt plus ext/*.c), but in two steps: the core's objects are
compiled once into a cache keyed by the core's sources and the flags (in
.tools/python-quick/core-<hash>/), the extension's files every time, then
linked. The module is version-specific (not abi3), so a 3.13+ build uses
PyMutex; LIMITED=1 builds the abi3 module instead (PyThread locks)."""
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY_ROOT = HERE.parent
REPO = PY_ROOT.parent.parent
sys.path.insert(0, str(PY_ROOT / "_build"))
import tgffi_build  # noqa: E402


def zig():
    z = REPO / ".tools" / "zig-0.17.0" / "ziglang" / "zig"
    return [str(z)] if z.exists() else [str(REPO / "scripts" / "zig")]


def main(out_dir):
    os.environ.setdefault("TGCRYPTO_FFI_WERROR", "1")
    limited = os.environ.get("LIMITED") == "1"
    includes = [sysconfig.get_paths()["include"]]
    flags = (tgffi_build.core_flags() + list(tgffi_build.RELEASE_FAST_FLAGS)
             + ["-fPIC", "-DTG_API=", f"-I{REPO / 'csrc'}", f"-I{PY_ROOT / 'ext'}"]
             + [f"-I{d}" for d in includes] + ([f"-DPy_LIMITED_API={tgffi_build.LIMITED_API}"] if limited else []))
    cc = zig() + ["cc", "-mcpu=baseline", "-fno-sanitize=all"]
    core = tgffi_build.core_sources()
    h = hashlib.sha256(" ".join(cc[1:] + flags).encode())
    for src in core + sorted((REPO / "csrc").glob("*.h")):
        h.update(src.name.encode() + src.read_bytes())
    cache = REPO / ".tools" / "python-quick" / f"core-{h.hexdigest()[:16]}"
    archive = cache / "core.a"
    if not archive.exists():
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache) as work:
            objs = []
            for src in core:
                obj = Path(work) / (src.stem + ".o")
                subprocess.run(cc + flags + ["-c", str(src), "-o", str(obj)], check=True)
                objs.append(str(obj))
            tmp = Path(work) / "core.a"
            subprocess.run(zig() + ["ar", "rcs", str(tmp)] + objs, check=True)
            os.replace(tmp, archive)  # atomic: parallel builds share the cache
    pkg = Path(out_dir) / "tgcrypto_ffi"
    if pkg.exists():
        shutil.rmtree(pkg)
    pkg.mkdir(parents=True)
    for f in (PY_ROOT / "src" / "tgcrypto_ffi").iterdir():
        if f.suffix in (".py", ".pyi"):
            shutil.copy(f, pkg / f.name)
    name = "_native.abi3.so" if limited else "_native" + sysconfig.get_config_var("EXT_SUFFIX")
    ext = sorted(str(p) for p in (PY_ROOT / "ext").glob("*.c"))
    subprocess.run(cc + flags + ["-shared"] + ext + [str(archive), "-s", "-o", str(pkg / name)], check=True)
    return pkg / name


if __name__ == "__main__":
    print(main(sys.argv[1]))
