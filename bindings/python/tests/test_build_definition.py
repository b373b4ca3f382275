"""The Python build compiles the same C sources with the same flags as build.zig:
both read csrc/core_build.txt. These tests fail when either stops reading it,
when a core source is left out of it, or when the Python build's command
differs from the list."""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "bindings" / "python" / "_build"))
import tgffi_build  # noqa: E402

BUILD_ZIG = (REPO / "build.zig").read_text(encoding="utf-8")
LIST = REPO / "csrc" / "core_build.txt"


def listed(kind):
    return [line.split(" ", 1)[1] for line in LIST.read_text(encoding="utf-8").splitlines()
            if line.startswith(kind + " ")]


def test_build_zig_reads_the_list_and_lists_no_source_itself():
    assert '@embedFile("csrc/core_build.txt")' in BUILD_ZIG
    assert re.search(r'const c_sources = coreBuildEntries\("source"\);', BUILD_ZIG)
    assert re.search(r'const c_flags = coreBuildEntries\("flag"\);', BUILD_ZIG)
    # no core source or flag spelled out in build.zig beside the list
    assert not re.findall(r'"csrc/[a-z_0-9]+\.c"', BUILD_ZIG)
    assert '"-std=c11"' not in BUILD_ZIG


def test_every_core_source_is_listed_once_and_exists():
    sources = listed("source")
    assert len(sources) == len(set(sources))
    on_disk = sorted(f"csrc/{p.name}" for p in (REPO / "csrc").glob("*.c"))
    assert sorted(sources) == on_disk
    assert listed("flag"), "no flags listed"


def compile_command(monkeypatch, werror):
    """The zig cc command compile_extension runs (captured, not run)."""
    seen = []
    monkeypatch.setattr(tgffi_build, "_run", lambda cmd, cwd=None: seen.append([str(c) for c in cmd]))
    if werror:
        monkeypatch.setenv("TGCRYPTO_FFI_WERROR", "1")
    else:
        monkeypatch.delenv("TGCRYPTO_FFI_WERROR", raising=False)
    with tempfile.TemporaryDirectory() as work:
        tgffi_build.compile_extension(Path(work) / "_native.abi3.so", target="linux-x64-gnu",
                                      include_dirs=["/nonexistent"], limited=True, zig=["zig"], work=work)
    (cmd,) = seen
    return cmd


@pytest.mark.parametrize("werror", [True, False])
def test_python_build_compiles_the_listed_sources_with_the_listed_flags(monkeypatch, werror):
    cmd = compile_command(monkeypatch, werror)
    sources = [c for c in cmd if c.endswith(".c")]
    core = [os.path.relpath(c, REPO) for c in sources if "/csrc/" in c]
    assert core == listed("source")
    ext = sorted(Path(c).name for c in sources if "/bindings/python/ext/" in c)
    assert ext == sorted(p.name for p in (REPO / "bindings" / "python" / "ext").glob("*.c"))
    assert len(sources) == len(core) + len(ext)
    flags = [f for f in listed("flag") if werror or f != "-Werror"]
    at = cmd.index(flags[0])
    assert cmd[at:at + len(flags)] == flags
    assert ("-Werror" in cmd) == werror
    for f in tgffi_build.RELEASE_FAST_FLAGS:
        assert f in cmd
    assert "-O3" not in cmd


def test_release_fast_flags_are_what_the_pinned_zig_gives_c():
    """build.zig compiles the core at ReleaseFast; ask zig which optimisation
    flags that means for C, and find them in the Python build's flags."""
    zig = REPO / "scripts" / "zig"
    with tempfile.TemporaryDirectory() as work:
        src = Path(work) / "probe.c"
        src.write_text("int probe(int x) { return x + 1; }\n")
        r = subprocess.run([str(zig), "build-lib", "-OReleaseFast", "-lc", str(src), "--verbose-cc"],
                           cwd=work, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    cc_args = r.stderr.split()
    opt = [a for a in cc_args if re.fullmatch(r"-O[0-3sz]", a)]
    assert opt and opt[-1] in tgffi_build.RELEASE_FAST_FLAGS
    for f in tgffi_build.RELEASE_FAST_FLAGS:
        assert f in cc_args, f
