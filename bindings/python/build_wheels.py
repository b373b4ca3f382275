#!/usr/bin/env python3
"""Builds tgcrypto-ffi's Python release artifacts into zig-out/python/:

  - cp311-abi3 wheels for the eight targets (linux x64/arm64 glibc 2.17 and
    musl, macOS x64/arm64 11.0+, Windows x64/arm64), cross-compiled here by
    the project's pinned Zig with a baseline CPU;
  - version-specific cp39 and cp310 wheels for the four Linux targets (the
    limited API has no Py_buffer before 3.11), from those interpreters' own
    headers; other platforms on 3.9/3.10 build from the sdist;
  - PyPy wheels (pp39-pypy39_pp73 ...) for the two glibc Linux targets, the
    same C extension through PyPy's cpyext, from the headers of the PyPy
    given with --pypy (its own version tags the wheel);
  - the sdist, which carries a copy of csrc/ and builds anywhere through
    the `ziglang` package (or the system C compiler where ziglang has no wheel).

    python3 bindings/python/build_wheels.py [--out DIR] [--targets a,b] [--zig ZIG]
                                            [--python39 PY] [--python310 PY] [--no-sdist]
                                            [--no-version-specific] [--pypy PYPY] [--strict]

Runs under CPython >= 3.11 (its headers serve the abi3 builds). The 3.9 and
3.10 interpreters are looked up under pyenv and on PATH unless given;
without them those wheels are skipped with a message (an error with --strict).
Also run by `./scripts/zig build python-wheels`. -Werror is on.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE / "_build"))
import tgffi_build  # noqa: E402


def find_python(minor):
    """A CPython 3.<minor> executable: pyenv's newest, else python3.<minor> on PATH."""
    names = []
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    names += sorted(glob.glob(f"{root}/versions/3.{minor}.*/bin/python3.{minor}"),
                    key=lambda p: [int(x) for x in Path(p).parts[-3].split(".") if x.isdigit()])[::-1]
    on_path = shutil.which(f"python3.{minor}")
    if on_path:
        names.append(on_path)
    for exe in names:
        r = subprocess.run([exe, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip() == f"(3, {minor})":
            return exe
    return None


def interpreter_paths(exe):
    code = "import sysconfig; print(sysconfig.get_paths()['include']); print(sysconfig.get_config_var('EXT_SUFFIX'))"
    out = subprocess.run([exe, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    return out[0], out[1]


def pypy_tags(exe):
    """(include dir, python tag, abi tag) of a PyPy executable, e.g. ('/usr/include/pypy3.9', 'pp39', 'pypy39_pp73')."""
    code = ("import sys, sysconfig; assert sys.implementation.name == 'pypy', sys.implementation.name; "
            "print(sysconfig.get_paths()['include']); print(sysconfig.get_config_var('EXT_SUFFIX')); "
            "print(sys.version_info[0], sys.version_info[1])")
    inc, suffix, ver = subprocess.run([exe, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")[:3]
    major, minor = ver.split()
    # EXT_SUFFIX .pypy39-pp73-x86_64-linux-gnu.so: the abi tag is pypy39_pp73
    abi = suffix.split(".")[1].rsplit("-", 3)[0].replace("-", "_")
    assert abi.startswith(f"pypy{major}{minor}_pp"), suffix
    return inc, f"pp{major}{minor}", abi


def build_pypy(out, exe, targets, zig):
    """The cpyext wheels for the glibc Linux targets, from this PyPy's headers."""
    inc, py_tag, abi_tag = pypy_tags(exe)
    built = []
    for t in targets:
        triple, plat, os_name = tgffi_build.TARGETS[t]
        if os_name != "linux" or "musl" in triple:
            continue  # PyPy publishes glibc Linux builds; elsewhere the sdist applies
        arch = triple.split("-")[0]
        ext_name = f"_native.{abi_tag.replace('_', '-')}-{arch}-linux-gnu.so"
        with tempfile.TemporaryDirectory(prefix="tgffi-pypy-") as work:
            so = Path(work) / ext_name
            tgffi_build.compile_extension(so, target=t, include_dirs=[inc], limited=False, zig=zig, work=work)
            built.append(tgffi_build.write_wheel(out, py_tag, abi_tag, plat, ext_name, so.read_bytes()))
        print(f"built {built[-1].name}", flush=True)
    return built


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(REPO / "zig-out" / "python"))
    ap.add_argument("--targets", default=",".join(tgffi_build.TARGETS))
    ap.add_argument("--zig", default=str(REPO / "scripts" / "zig"), help="zig executable (default: scripts/zig)")
    ap.add_argument("--python39")
    ap.add_argument("--python310")
    ap.add_argument("--no-sdist", action="store_true")
    ap.add_argument("--no-version-specific", action="store_true")
    ap.add_argument("--pypy", help="a PyPy executable: build its cpyext wheels (Linux glibc targets)")
    ap.add_argument("--strict", action="store_true", help="fail instead of skipping missing interpreters")
    args = ap.parse_args()
    if sys.version_info < (3, 11):
        sys.exit("build_wheels.py needs CPython >= 3.11 (its headers serve the abi3 builds)")
    os.environ["TGCRYPTO_FFI_WERROR"] = "1"
    zig = [args.zig]
    targets = [t for t in args.targets.split(",") if t]
    for t in targets:
        if t not in tgffi_build.TARGETS:
            sys.exit(f"unknown target {t!r}; known: {', '.join(tgffi_build.TARGETS)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    include = sysconfig.get_paths()["include"]
    built = []
    started = time.time()
    for t in targets:
        built.append(tgffi_build.build_for_target(out, t, include_dir=include, zig=zig))
        print(f"built {built[-1].name}", flush=True)
    if not args.no_version_specific:
        for minor, given in ((9, args.python39), (10, args.python310)):
            exe = given or find_python(minor)
            if exe is None:
                msg = f"no CPython 3.{minor} found (pyenv or PATH): its version-specific wheels are not built"
                if args.strict:
                    sys.exit(msg)
                print("WARNING:", msg, flush=True)
                continue
            inc, suffix = interpreter_paths(exe)
            for t in targets:
                triple, _, os_name = tgffi_build.TARGETS[t]
                if os_name != "linux":
                    continue
                # the interpreter's EXT_SUFFIX names its own platform; give each target its own
                arch = triple.split("-")[0]
                libc = "musl" if "musl" in triple else "gnu"
                ext_suffix = f".cpython-3{minor}-{arch}-linux-{libc}.so"
                assert suffix.startswith(f".cpython-3{minor}-"), suffix
                built.append(tgffi_build.build_for_target(out, t, include_dir=inc, zig=zig, limited=False,
                                                          python_tag=f"cp3{minor}", ext_suffix=ext_suffix))
                print(f"built {built[-1].name}", flush=True)
    if args.pypy:
        built += build_pypy(out, args.pypy, targets, zig)
    if not args.no_sdist:
        built.append(tgffi_build.build_sdist_to(out))
        print(f"built {built[-1].name}", flush=True)
    print(f"{len(built)} artifacts in {out} ({time.time() - started:.0f} s)")


if __name__ == "__main__":
    main()
