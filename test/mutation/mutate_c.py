#!/usr/bin/env python3
"""Mutation testing of csrc/ against the C tests.

Makes one small, bug-like change at a time to a temporary copy of the tree
(never to the working tree), rebuilds the C test program with the pinned
`zig cc` (only the mutated file is recompiled; the others come from objects
built once), runs it (with TG_TEST_FAIL_FAST=1 and a timeout), and, for a
mutant the tests did not catch, the valgrind constant-time check at -O2 and
at -O0 -fno-builtin (test/c/ct_check.c; for the files it runs) and, if
clang with ASan is installed (unless --no-sanitize), the C tests under
ASan + UBSan. Test knobs it sets: TG_TEST_FAIL_FAST=1 (stop at the first
failure), TG_TEST_SKIP_LONG_SHA=1 (the 2^29-byte streams, outside sha.c),
TG_TEST_ONLY=factorize (for factorize.c, which nothing else reaches), and a
second run with TGCRYPTO_BACKEND=no-such-backend (every call must refuse). A mutant is "caught" when any of them fails,
"survived" when all pass; one that does not compile is "invalid" and not
counted.

    python3 test/mutation/mutate_c.py [--jobs N] [--filter REGEX] [--list]
                                      [--no-sanitize] [--out FILE]

--list prints the mutants without running them; --filter keeps mutants
whose id or description matches. Results go to
test/mutation/results/<date>-c.txt (or --out): every mutant with its
status, then the score per file and per area. Surviving mutants listed in
test/mutation/equivalent.txt (id, then the reason no input can show them)
are reported as equivalent and left out of the score.

Operators: comparison flips (== != < <= > >=), && <-> ||, a condition's
operand dropped from an || / && chain, ! removed, integer constants +-1,
+ <-> -, | & ^ swaps, << <-> >>, |= += -= &= turned into =, `return
TG_ERR_*` turned into `return TG_OK`, a tg_wipe() call dropped. Where:
every function of api.c, mtproto.c, sha.c, factorize.c and dispatch.c's
backend choice, the wipes everywhere, and a seeded sample of the backends'
and the portable hash's inner loops (see SCOPE in c_mutants.py). Lines with the test hooks
(TG_TEST_), the constant-time annotations (DECLASSIFY) and preprocessor
lines are never mutated.
"""
import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# the lexer, the operators, Mutant, generate(), SCOPE and AREAS (mutate_files.py uses them as mutate_c.*)
from c_mutants import (AREAS, SCOPE, Mutant, blank_preprocessor, functions,  # noqa: E402,F401
                       generate, lex)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ZIG = os.path.join(ROOT, "scripts", "zig")

RESULTS = os.path.join(ROOT, "test", "mutation", "results")
EQUIVALENT = os.path.join(ROOT, "test", "mutation", "equivalent.txt")

# ---------------------------------------------------------------- building

def run(cmd, timeout=None, env=None, cwd=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, env=env, cwd=cwd)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        return "timeout", (e.stdout or b"").decode(errors="replace")


TEST_FLAGS = ["-O1", "-std=c11", "-DTG_TEST_HOOKS=1", "-fno-sanitize=undefined"]
CT_CONFIGS = {
    "ct-O2": ["-O2", "-std=c11", "-mcpu=baseline", "-DTG_CT_CHECK=1", "-I/usr/include/valgrind"],
    "ct-O0": ["-O0", "-fno-builtin", "-fno-sanitize=undefined", "-std=c11", "-mcpu=baseline", "-DTG_CT_CHECK=1",
              "-I/usr/include/valgrind"],
}
# The files whose code test/c/ct_check.c runs (soft backend, portable hashes,
# the message layer): a mutant elsewhere cannot change its verdict.
CT_REACHES = {"csrc/api.c", "csrc/aes_soft.c", "csrc/sha.c", "csrc/sha_portable.c", "csrc/mtproto.c", "csrc/dispatch.c"}
# Files whose code runs when tg_init() fails (TGCRYPTO_BACKEND bad).
INIT_ERROR_REACHES = {"csrc/api.c", "csrc/sha.c", "csrc/mtproto.c", "csrc/dispatch.c"}
SAN_FLAGS = ["-O1", "-std=c11", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer",
             "-DTG_ASAN=1", "-DTG_TEST_HOOKS=1"]


class Builder:
    """Objects of every source, built once per configuration; a mutant
    recompiles its one file and relinks."""

    def __init__(self, work, have_valgrind, have_sanitize):
        self.work = work
        self.tree = os.path.join(work, "base")
        shutil.copytree(os.path.join(ROOT, "csrc"), os.path.join(self.tree, "csrc"))
        shutil.copytree(os.path.join(ROOT, "test"), os.path.join(self.tree, "test"),
                        ignore=shutil.ignore_patterns("mutation", "fuzz", "soak", "package", "*.ts"))
        self.csrc = sorted(f for f in os.listdir(os.path.join(self.tree, "csrc")) if f.endswith(".c"))
        tests = sorted(f for f in os.listdir(os.path.join(self.tree, "test", "c")) if re.match(r"test_.*\.c$", f))
        self.configs = {"test": (["zig"], TEST_FLAGS, ["test/c/" + t for t in tests]),
                        # the backend choice without the x86 backends (as on aarch64): dispatch.c mutants only
                        "portable": (["zig"], TEST_FLAGS + ["-DTG_PORTABLE=1"], ["test/c/" + t for t in tests])}
        if have_valgrind:
            for name, flags in CT_CONFIGS.items():
                self.configs[name] = (["zig"], flags, ["test/c/ct_check.c"])
        if have_sanitize:
            self.configs["asan"] = (["clang"], SAN_FLAGS, ["test/c/" + t for t in tests])

    def cc(self, config):
        kind = self.configs[config][0][0]
        base = [ZIG, "cc"] if kind == "zig" else ["clang"]
        if config.startswith("ct"):
            base += ["-target", "x86_64-linux-gnu"]
        return base

    def compile(self, config, tree, src, obj):
        flags = self.configs[config][1]
        return run(self.cc(config) + flags + ["-Wall", "-I" + os.path.join(tree, "csrc"), "-c",
                                             os.path.join(tree, src), "-o", obj], timeout=300)

    def objdir(self, config):
        return os.path.join(self.work, "obj-" + config)

    def build_base(self, jobs):
        todo = []
        for config, (_, _, extra) in self.configs.items():
            os.makedirs(self.objdir(config), exist_ok=True)
            for src in ["csrc/" + c for c in self.csrc] + extra:
                todo.append((config, src))
        errors = []
        lock = threading.Lock()

        def worker():
            while True:
                with lock:
                    if not todo:
                        return
                    config, src = todo.pop()
                rc, out = self.compile(config, self.tree, src, os.path.join(self.objdir(config), obj_name(src)))
                if rc != 0:
                    with lock:
                        errors.append("%s %s: %s" % (config, src, out))
        threads = [threading.Thread(target=worker) for _ in range(jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise SystemExit("base build failed:\n" + "\n".join(errors))

    def link(self, config, replaced_src, replaced_obj, exe):
        objs = []
        for f in sorted(os.listdir(self.objdir(config))):
            if replaced_src is not None and f == obj_name(replaced_src):
                objs.append(replaced_obj)
            else:
                objs.append(os.path.join(self.objdir(config), f))
        flags = [f for f in self.configs[config][1] if f.startswith("-f") or f.startswith("-O")]
        return run(self.cc(config) + flags + objs + ["-o", exe], timeout=300)


def obj_name(src):
    return src.replace("/", "_")[:-2] + ".o"


# ---------------------------------------------------------------- running

TEST_TIMEOUT = 120  # the unmutated run takes ~7 s on a shared 2-core machine


def check(builder, tree, scratch, m, base_times):
    """Builds and runs mutant m in `tree`; returns (status, detail)."""
    open(os.path.join(tree, m.path), "w").write(m.text)
    try:
        env = dict(os.environ, TG_TEST_FAIL_FAST="1")
        env.pop("TGCRYPTO_BACKEND", None)
        if m.path != "csrc/sha.c":
            env["TG_TEST_SKIP_LONG_SHA"] = "1"  # the 2^29-byte streams: only sha.c can change what they check
        if m.path == "csrc/factorize.c":
            env["TG_TEST_ONLY"] = "factorize"  # nothing else reaches factorize.c
        for config in builder.configs:
            if config.startswith("ct") and m.path not in CT_REACHES:
                continue
            if config == "portable" and m.path != "csrc/dispatch.c":
                continue
            obj = os.path.join(scratch, config + "-" + obj_name(m.path))
            rc, out = builder.compile(config, tree, m.path, obj)
            if rc != 0:
                return ("invalid", "does not compile: " + first_error(out)) if config == "test" else \
                       ("invalid", "does not compile in %s: %s" % (config, first_error(out)))
            exe = os.path.join(scratch, config + ".exe")
            rc, out = builder.link(config, m.path, obj, exe)
            if rc != 0:
                return "invalid", "does not link (%s): %s" % (config, first_error(out))
            limit = max(15, 5 * base_times.get(config, 10))
            if config == "test" and m.path == "csrc/dispatch.c":
                # TGCRYPTO_BACKEND as test.sh sets it, plus the empty and a 1-character name
                for value, want in (("", "0 failed"), ("soft", "default backend: soft"), ("x", "unknown backend name")):
                    rc, out = run([exe, os.path.join(tree, "test", "vectors")], timeout=limit,
                                  env=dict(env, TGCRYPTO_BACKEND=value, TG_TEST_ONLY="init"))
                    if rc == "timeout" or want not in out or (value == "x") != (rc != 0):
                        return "caught", "TGCRYPTO_BACKEND=%r: %s" % (value, "timed out" if rc == "timeout" else summary(out, rc))
            if config == "test" and m.path in INIT_ERROR_REACHES:
                # with a bad TGCRYPTO_BACKEND every call must refuse with tg_init()'s code
                rc, out = run([exe, os.path.join(tree, "test", "vectors")], timeout=limit,
                              env=dict(env, TGCRYPTO_BACKEND="no-such-backend"))
                if rc == "timeout" or "init error: every call refused" not in out:
                    return "caught", "TGCRYPTO_BACKEND=no-such-backend: %s" % (
                        "timed out" if rc == "timeout" else summary(out, rc))
            if config == "portable":
                rc, out = run([exe, os.path.join(tree, "test", "vectors")], timeout=limit, env=dict(env, TG_TEST_ONLY="init"))
            elif config == "test" or config == "asan":
                run_env = env
                if config == "asan":
                    run_env = dict(env, ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:halt_on_error=1",
                                   UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1")
                rc, out = run([exe, os.path.join(tree, "test", "vectors")], timeout=limit, env=run_env)
            else:
                rc, out = run(["valgrind", "-q", "--error-exitcode=1", exe], timeout=limit)
            if rc == "timeout":
                return "caught", "%s: timed out after %d s" % (config, limit)
            if rc != 0:
                return "caught", "%s: %s" % (config, summary(out, rc))
        ran = [c for c in builder.configs if not (c.startswith("ct") and m.path not in CT_REACHES)
               and not (c == "portable" and m.path != "csrc/dispatch.c")]
        return "survived", "%s pass" % ", ".join(ran)
    finally:
        shutil.copyfile(os.path.join(builder.tree, m.path), os.path.join(tree, m.path))


def first_error(out):
    for ln in out.splitlines():
        if "error" in ln:
            return ln.strip()[:160]
    return out.strip().splitlines()[-1][:160] if out.strip() else "?"


def summary(out, rc):
    fails = [ln for ln in out.splitlines() if ln.startswith("FAIL") or "uninitialised" in ln or "ERROR:" in ln
             or "runtime error" in ln or ln.startswith("dirty:")]
    if fails:
        return fails[0].strip()[:160]
    return "exit %s" % rc


def load_equivalent():
    """id -> (tag, reason): tag "equivalent" (no input can show the change:
    left out of the score) or "accepted" (a survivor kept with a reason,
    e.g. only the speed changes or the path needs an input no 64-bit pq
    gives: counted as survived)."""
    eq = {}
    if os.path.exists(EQUIVALENT):
        for ln in open(EQUIVALENT):
            ln = ln.rstrip("\n")
            if not ln or ln.startswith("#"):
                continue
            m = re.match(r"(\w+)\s+\[(equivalent|accepted)\]\s+(.*)$", ln)
            if not m:
                raise SystemExit("%s: bad line: %s" % (EQUIVALENT, ln))
            eq[m.group(1)] = (m.group(2), m.group(3).strip())
    return eq


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--filter", default=None)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--no-sanitize", action="store_true", help="skip the ASan+UBSan run of survivors (needs clang)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    mutants = []
    for f in SCOPE:
        mutants += generate(f)
    if args.filter:
        rx = re.compile(args.filter)
        mutants = [m for m in mutants if rx.search(m.id) or rx.search(m.describe())]
    if args.list:
        for m in mutants:
            print(m.id, m.describe())
        print("%d mutants" % len(mutants))
        return 0

    have_valgrind = shutil.which("valgrind") is not None and os.path.exists("/usr/include/valgrind/memcheck.h") \
        and os.uname().machine == "x86_64"
    have_sanitize = not args.no_sanitize and shutil.which("clang") is not None and \
        subprocess.run(["bash", os.path.join(ROOT, "test/c/sanitize.sh"), "--probe"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL).returncode == 0
    t0 = time.time()
    work = tempfile.mkdtemp(prefix="tg-mutate-")
    try:
        builder = Builder(work, have_valgrind, have_sanitize)
        print("building the unmutated objects (%s) in %s" % (", ".join(builder.configs), work), flush=True)
        builder.build_base(args.jobs)
        base_times = {}
        for config in builder.configs:
            exe = os.path.join(work, "base-" + config)
            rc, out = builder.link(config, None, None, exe)
            if rc != 0:
                raise SystemExit("base link failed (%s): %s" % (config, out))
            t = time.time()
            if config in ("test", "asan", "portable"):
                env = dict(os.environ, TG_TEST_SKIP_LONG_SHA="1")
                env.pop("TGCRYPTO_BACKEND", None)
                rc, out = run([exe, os.path.join(builder.tree, "test", "vectors")], timeout=600, env=env)
            else:
                rc, out = run(["valgrind", "-q", "--error-exitcode=1", exe], timeout=600)
            base_times[config] = time.time() - t
            if rc != 0:
                raise SystemExit("the unmutated %s run fails: %s" % (config, summary(out, rc)))
            print("  unmutated %-6s passes in %.1f s" % (config, base_times[config]), flush=True)
        print("%d mutants, %d jobs" % (len(mutants), args.jobs), flush=True)

        queue = list(enumerate(mutants))
        lock = threading.Lock()
        done = [0]

        def worker(n):
            tree = os.path.join(work, "w%d" % n)
            scratch = os.path.join(work, "s%d" % n)
            shutil.copytree(builder.tree, tree)
            os.makedirs(scratch)
            while True:
                with lock:
                    if not queue:
                        return
                    _, m = queue.pop(0)
                t = time.time()
                m.status, m.detail = check(builder, tree, scratch, m, base_times)
                m.seconds = time.time() - t
                with lock:
                    done[0] += 1
                    print("[%d/%d] %-8s %s %s  (%s)" % (done[0], len(mutants), m.status, m.id, m.describe(),
                                                         m.detail), flush=True)
        threads = [threading.Thread(target=worker, args=(n,)) for n in range(args.jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    eq = load_equivalent()
    for m in mutants:
        if m.status == "survived" and m.id in eq:
            m.status, m.detail = eq[m.id]
        elif m.status == "caught" and m.id in eq:
            m.detail += "  (listed in equivalent.txt: remove it there)"
    stale = sorted(set(eq) - set(m.id for m in mutants))
    report = render(mutants, builder.configs, time.time() - t0, args)
    out = args.out or os.path.join(RESULTS, "%s-c.txt" % datetime.date.today().isoformat())
    os.makedirs(os.path.dirname(out), exist_ok=True)
    open(out, "w").write(report)
    print(report[report.index("## Score"):])
    print("written to %s" % os.path.relpath(out, ROOT))
    if stale and not args.filter:
        print("equivalent.txt lists ids no longer generated: %s" % " ".join(stale))
    unexplained = [m for m in mutants if m.status == "survived"]
    return 1 if unexplained else 0


def score_line(name, ms):
    counted = [m for m in ms if m.status in ("caught", "survived", "accepted")]
    caught = sum(m.status == "caught" for m in counted)
    acc = sum(m.status == "accepted" for m in ms)
    eqn = sum(m.status == "equivalent" for m in ms)
    inv = sum(m.status == "invalid" for m in ms)
    pct = 100.0 * caught / len(counted) if counted else 100.0
    return "%-22s %4d/%-4d caught %6.1f%%   (survivors with a reason: %d; + %d equivalent, %d invalid)" % (
        name, caught, len(counted), pct, acc, eqn, inv), pct


def render(mutants, configs, seconds, args):
    out = ["# Mutation run over csrc/ (test/mutation/mutate_c.py)", "",
           "date: %s" % datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
           "commit: %s" % subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE)
           .stdout.decode().strip(),
           "checks per mutant: %s (in this order, stopping at the first that fails)" % ", ".join(
               {"test": "C tests (zig cc -O1, TG_TEST_HOOKS, fail-fast)", "ct-O2": "valgrind ct check -O2",
                "ct-O0": "valgrind ct check -O0 -fno-builtin", "asan": "C tests under ASan+UBSan (clang)",
                "portable": "-DTG_PORTABLE backend choice (dispatch.c only)"}[c]
               for c in configs),
           "jobs: %d, wall time: %.0f s" % (args.jobs, seconds), "",
           "## Score", ""]
    for name in sorted(set(m.path for m in mutants)):
        out.append(score_line(name, [m for m in mutants if m.path == name])[0])
    out.append("")
    for area in list(AREAS) + ["wipes", "other"]:
        out.append(score_line(area, [m for m in mutants if m.area() == area])[0])
    out.append("")
    out.append(score_line("csrc/ overall", mutants)[0])
    out += ["", "## Survivors without a reason (add a test, or a line to test/mutation/equivalent.txt)", ""]
    surv = [m for m in mutants if m.status == "survived"]
    out += ["%s %s" % (m.id, m.describe()) for m in surv] or ["none"]
    out += ["", "## Survivors kept with a reason ([accepted] in test/mutation/equivalent.txt; counted as survived)", ""]
    out += ["%s %s\n    %s" % (m.id, m.describe(), m.detail) for m in mutants if m.status == "accepted"] or ["none"]
    out += ["", "## Equivalent ([equivalent] in test/mutation/equivalent.txt; no input can show them)", ""]
    out += ["%s %s\n    %s" % (m.id, m.describe(), m.detail) for m in mutants if m.status == "equivalent"] or ["none"]
    out += ["", "## Every mutant", ""]
    for m in mutants:
        out.append("%-10s %s %s  (%s, %.1f s)" % (m.status, m.id, m.describe(), m.detail, m.seconds))
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
