#!/usr/bin/env python3
"""Mutation testing of any C or Python file against any test command.

    python3 test/mutation/mutate_files.py --target FILE [FILE...] \\
        --build-cmd "CMD" --test-cmd "CMD" --name NAME \\
        [--equivalent FILE] [--jobs N] [--filter REGEX] [--list] [--timeout S] [--out FILE]
        [--resume LOG... [--no-run]] [--sanitize-cmd "CMD"]

Example (what `npm run mutate -- --bindings-only` runs):

    python3 test/mutation/mutate_files.py --target bindings/node/addon.c \\
        --build-cmd "./scripts/zig build" \\
        --test-cmd "./node_modules/node26/bin/node --expose-gc ./node_modules/vitest/vitest.mjs run test/runtime/addon" \\
        --name bindings-node

For each worker (--jobs, default 2) the runner copies the source tree (the
files `git ls-files -co --exclude-standard` lists: tracked and untracked
but not ignored, so uncommitted tests count) to a temporary directory, with
node_modules and .tools as symlinks to this tree's. It runs the build and
the test command once there unmutated (both must pass), then for each
mutant: writes the mutated file into the copy, runs --build-cmd (a failure
makes the mutant "invalid", not counted), then --test-cmd (a non-zero exit
or a timeout, --timeout or 5x the unmutated run and at least 30 s: "caught";
exit 0: then --sanitize-cmd if given, a build and run under sanitizers
whose failure also makes it "caught", except for a mutant the --equivalent
file already explains; else "survived"), and puts the file back. Both commands run with
`bash -c` in the copy's root, with TG_MUTANT_ID set to the mutant's id. The
working tree is never written, except the results file.

Mutants: the operators of mutate_c.py (comparison flips, && <-> ||, an
operand dropped from an if's || / && chain, ! removed, integer constants
+-1, + <-> -, bit and shift swaps, compound assignments turned into =,
`return TG_ERR_*` -> TG_OK, tg_wipe dropped) over every function of each
target, plus three for glue code:
  drop-stmt   an expression statement (a call or an assignment) never run
              (`do { if (0) STMT; } while (0)`, so the names it uses stay
              used): a check, a release, a free, a store forgotten;
  size-swap   a size constant of tgcrypto.h replaced by a smaller one
              (TG_IGE_IV_SIZE -> TG_CBC_IV_SIZE, TG_SHA256_SIZE ->
              TG_SHA1_SIZE, ...): a buffer checked against the wrong size;
  gil-held    a Py_BEGIN_ALLOW_THREADS ... Py_END_ALLOW_THREADS block run
              with the GIL kept (both macros dropped): a long call that
              stops every other thread.
Preprocessor lines (function-like macros included) and lines with TG_TEST_
are not mutated. A target ending in .py gets the mutants of py_mutants.py
instead (comparisons, and/or, constants, statements dropped, ...).

--artifact GLOB names what the build makes (relative to the tree): a
mutant whose build gives byte-identical files is not compiled in this
configuration (say, the other branch of an #if) and counts as "invalid".
Runs of one file set in two configurations are combined with --resume:
a verdict of one run beats "invalid" from the other.

--resume takes the output (or results files) of earlier runs and reuses
their "caught" and "invalid" verdicts instead of running those mutants
again (tests only added to since cannot let a caught mutant through, and
whether it builds does not depend on the tests); a survivor runs again. A
mutant whose line changed has a new id and runs. With --no-run nothing
runs: the report is made from the earlier verdicts alone, "survived" ones
included (the later file winning), and a mutant none of them decided is
"not run". The detail of a reused verdict names its file.

Surviving mutants listed in the --equivalent file (default
test/mutation/equivalent_bindings.txt; format of equivalent.txt: `<id>
[equivalent|accepted] <reason>`) are reported with their reason;
[equivalent] ones are left out of the score. Results go to
test/mutation/results/<date>-<NAME>.txt (or --out): the score per file and
per rule (length, lifetime, lock, GIL: classified by the words on the
mutated line, see RULES), survivors, every mutant. Exits non-zero if a
survivor is unexplained.
"""
import argparse
import datetime
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mutate_c  # noqa: E402  (the lexer, the operators, Mutant)
import py_mutants  # noqa: E402  (the mutants of a .py target)

ROOT = mutate_c.ROOT
RESULTS = mutate_c.RESULTS
DEFAULT_EQUIVALENT = os.path.join(ROOT, "test", "mutation", "equivalent_bindings.txt")

# A size constant -> a smaller one (tgcrypto.h): the wrong size for a check.
SIZE_SWAP = {
    "TG_KEY_SIZE": "TG_BLOCK_SIZE",
    "TG_IGE_IV_SIZE": "TG_CBC_IV_SIZE",
    "TG_SHA256_SIZE": "TG_SHA1_SIZE",
    "TG_SHA256_STATE_SIZE": "TG_SHA256_SIZE",
    "TG_SHA1_STATE_SIZE": "TG_SHA1_SIZE",
    "TG_AUTH_KEY_SIZE": "TG_KEY_SIZE",
    "TG_MTPROTO_OVERHEAD": "TG_BLOCK_SIZE",
}

# The rules every mutant of which must be caught, by words on the mutated
# line (first match wins; a line can only be in one).
RULES = [
    ("GIL rule", re.compile(r"ALLOW_THREADS|PyGILState|PyEval_(Save|Restore)Thread|\bGIL\b")),
    ("lock rule", re.compile(r"[Ll]ock|[Mm]utex")),
    ("lifetime rule", re.compile(r"free|[Ff]inali[sz]|release|Release|\bbox\b|->ptr|INCREF|DECREF|closed|\bref\b|_ref\(")),
    ("length rule", re.compile(r"length|_len\b|\blen\b|_size\b|_SIZE\b|OVERHEAD|\bfits\(|\bfixed\(|\bbytes\(|Py_buffer|\.len\b")),
]

STATEMENT_KEYWORDS = {"return", "if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue",
                      "goto", "sizeof", "static", "const", "struct", "typedef", "enum", "union"}


def rule_of(m):
    for name, rx in RULES:
        if rx.search(m.before):
            return name
    return "other"


def glue_mutants(rel_path):
    """The drop-stmt and size-swap mutants of one file."""
    text = open(os.path.join(ROOT, rel_path)).read()
    code_text, _ = mutate_c.blank_preprocessor(text)
    toks = mutate_c.lex(code_text)
    funcs = mutate_c.functions(code_text, toks)
    lines = text.split("\n")
    code = [t for t in toks if t[0] not in ("ws", "comment")]

    def line_of(pos):
        return text.count("\n", 0, pos)

    def func_of(pos):
        for name, b, e in funcs:
            if b <= pos < e:
                return name
        return None

    def opens_control(ci):
        """code[ci] is `)`: does it close the parenthesis of an if/while/for?"""
        depth = 0
        for k in range(ci, -1, -1):
            v = code[k][1]
            if v == ")":
                depth += 1
            elif v == "(":
                depth -= 1
                if depth == 0:
                    return k > 0 and code[k - 1][1] in ("if", "while", "for")
        return False

    out = []
    for ci, (kind, val, pos) in enumerate(code):
        f = func_of(pos)
        if f is None or "TG_TEST_" in lines[line_of(pos)]:
            continue
        if kind == "ident" and val in SIZE_SWAP:
            out.append(mutate_c.Mutant(rel_path, f, line_of(pos) + 1, "size-swap", pos, pos + len(val), SIZE_SWAP[val],
                                       lines[line_of(pos)], text))
            continue
        if kind != "ident" or val in STATEMENT_KEYWORDS or ci == 0 or ci + 1 >= len(code):
            continue
        prev, nxt = code[ci - 1][1], code[ci + 1][1]
        starts = prev in (";", "{", "}", "else") or (prev == ")" and opens_control(ci - 1))
        if not starts or nxt not in ("(", "->", ".", "[", "="):
            continue
        # the statement's end: the first `;` outside parentheses
        depth, k = 0, ci
        while k < len(code):
            v = code[k][1]
            if v in ("(", "["):
                depth += 1
            elif v in (")", "]"):
                depth -= 1
            elif v in ("{", "}"):
                break
            elif v == ";" and depth == 0:
                break
            k += 1
        if k >= len(code) or code[k][1] != ";":
            continue
        # kept in the text, never run: the names it uses stay used (no unused-variable error)
        stmt = text[pos:code[k][2]]
        out.append(mutate_c.Mutant(rel_path, f, line_of(pos) + 1, "drop-stmt", pos, code[k][2],
                                   "do { if (0) %s; } while (0)" % stmt, lines[line_of(pos)], text))
    # gil-held: a Py_BEGIN_ALLOW_THREADS ... Py_END_ALLOW_THREADS block run
    # with the GIL kept (the two macros dropped, the code between kept): a
    # long C call that stops every other thread.
    for b in re.finditer(r"Py_BEGIN_ALLOW_THREADS\b", text):
        f = func_of(b.start())
        e = text.find("Py_END_ALLOW_THREADS", b.end())
        if f is None or e < 0:
            continue
        e_end = e + len("Py_END_ALLOW_THREADS")
        inner = text[b.end():e].strip()
        out.append(mutate_c.Mutant(rel_path, f, line_of(b.start()) + 1, "gil-held", b.start(), e_end,
                                   "{ %s }" % " ".join(inner.split()), lines[line_of(b.start())], text))
    return out


def all_mutants(targets):
    mutants, seen = [], set()
    for rel in targets:
        made = py_mutants.generate(rel, ROOT) if rel.endswith(".py") else mutate_c.generate(rel) + glue_mutants(rel)
        for m in made:
            if m.id not in seen:
                seen.add(m.id)
                mutants.append(m)
    return mutants


def copy_tree(dest):
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "-co", "--exclude-standard"], stdout=subprocess.PIPE,
                           check=True).stdout.decode().split("\0")
    for rel in files:
        src = os.path.join(ROOT, rel)
        if not rel or rel in ("node_modules", ".tools") or not os.path.isfile(src) or os.path.islink(src):
            continue
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        shutil.copy2(src, os.path.join(dest, rel))
    for link in ("node_modules", ".tools"):
        if os.path.exists(os.path.join(ROOT, link)):
            os.symlink(os.path.realpath(os.path.join(ROOT, link)), os.path.join(dest, link))


def shell(cmd, tree, timeout, mutant_id):
    env = dict(os.environ, TG_MUTANT_ID=mutant_id)
    return mutate_c.run(["bash", "-c", cmd], timeout=timeout, env=env, cwd=tree)


def last_lines(out, n=2):
    keep = [ln.strip() for ln in out.splitlines() if re.search(r"FAIL|Error|error|expected|Abort|Segmentation", ln)]
    return " | ".join((keep or [ln.strip() for ln in out.strip().splitlines()[-n:]])[:n])[:200]


def artifact_digest(tree, pattern):
    """sha256 over the files of `pattern` (a glob relative to the tree), in name order."""
    h = hashlib.sha256()
    for f in sorted(f for f in glob.glob(os.path.join(tree, pattern)) if os.path.isfile(f)):
        h.update(os.path.relpath(f, tree).encode() + b"\0" + open(f, "rb").read())
    return h.hexdigest()


def check(m, tree, args, limit):
    path = os.path.join(tree, m.path)
    original = open(path).read()
    try:
        open(path, "w").write(m.text)
        rc, out = shell(args.build_cmd, tree, 600, m.id)
        if rc != 0:
            return "invalid", "does not build: " + mutate_c.first_error(out)
        if args.artifact and artifact_digest(tree, args.artifact) == args.baseline[tree]:
            return "invalid", "not compiled into this build (the built files are byte-identical to the original's)"
        rc, out = shell(args.test_cmd, tree, limit, m.id)
        if rc == "timeout":
            return "caught", "timed out after %d s" % limit
        if rc != 0:
            return "caught", "exit %s: %s" % (rc, last_lines(out))
        if args.sanitize_cmd and m.id in args.listed:
            return "survived", "tests pass (no sanitizer run: the equivalent file gives its reason)"
        if args.sanitize_cmd:
            rc, out = shell(args.sanitize_cmd, tree, max(limit, 600), m.id)
            if rc != 0:
                return "caught", "sanitizer run: exit %s: %s" % (rc, last_lines(out))
            return "survived", "tests pass, and under the sanitizers"
        return "survived", "tests pass"
    finally:
        open(path, "w").write(original)


def render(mutants, args, seconds):
    out = ["# Mutation run over %s (test/mutation/mutate_files.py)" % " ".join(args.target), "",
           "date: %s" % datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
           "commit: %s" % subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE)
           .stdout.decode().strip(),
           "build: %s" % args.build_cmd, "test: %s" % args.test_cmd,
           "sanitizer run (mutants the tests miss): %s" % (args.sanitize_cmd or "none"),
           "jobs: %d, wall time: %.0f s" % (args.jobs, seconds), "", "## Score", ""]
    for name in sorted(set(m.path for m in mutants)):
        out.append(mutate_c.score_line(name, [m for m in mutants if m.path == name])[0])
    out.append("")
    for rule in [r for r, _ in RULES] + ["other"]:
        ms = [m for m in mutants if rule_of(m) == rule]
        if ms:
            out.append(mutate_c.score_line(rule, ms)[0])
    out.append("")
    out.append(mutate_c.score_line("overall", mutants)[0])
    not_run = [m for m in mutants if m.status == "not-run"]
    if not_run:
        out.append("not run (--no-run: no earlier run decided them; not in the score): %d" % len(not_run))
    eq = os.path.relpath(args.equivalent, ROOT)
    out += ["", "## Survivors without a reason (add a test, or a line to %s)" % eq, ""]
    out += ["%s [%s] %s" % (m.id, rule_of(m), m.describe()) for m in mutants if m.status == "survived"] or ["none"]
    out += ["", "## Survivors kept with a reason ([accepted]; counted as survived)", ""]
    out += ["%s %s\n    %s" % (m.id, m.describe(), m.detail) for m in mutants if m.status == "accepted"] or ["none"]
    out += ["", "## Equivalent ([equivalent]; no input can show them)", ""]
    out += ["%s %s\n    %s" % (m.id, m.describe(), m.detail) for m in mutants if m.status == "equivalent"] or ["none"]
    out += ["", "## Every mutant", ""]
    for m in mutants:
        out.append("%-10s %s %s  (%s, %.1f s)" % (m.status, m.id, m.describe(), m.detail, m.seconds))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", nargs="+", required=True, help="C files to mutate, relative to the repository root")
    ap.add_argument("--build-cmd", required=True)
    ap.add_argument("--test-cmd", required=True)
    ap.add_argument("--name", required=True, help="results go to test/mutation/results/<date>-<NAME>.txt")
    ap.add_argument("--equivalent", default=DEFAULT_EQUIVALENT)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--filter", default=None)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--rules", default=None, help="only the mutants of these rules, e.g. GIL,lock,lifetime,length or other")
    ap.add_argument("--timeout", type=float, default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--sanitize-cmd", default=None, help="run on a mutant the tests miss; failing catches it")
    ap.add_argument("--resume", nargs="+", default=[], help="earlier runs' output: their verdicts are reused")
    ap.add_argument("--no-run", action="store_true", help="with --resume: only report, run nothing")
    ap.add_argument("--keep-survivors", action="store_true",
                    help="with --resume: an earlier survivor is not run again (the tests have not changed since)")
    ap.add_argument("--artifact", default=None,
                    help="glob (relative to the tree) of what the build makes: a mutant that builds to the same bytes "
                         "is not compiled in this configuration (an #if branch not taken) and counts as invalid")
    args = ap.parse_args()
    args.equivalent = os.path.abspath(args.equivalent)
    mutate_c.EQUIVALENT = args.equivalent
    args.listed = set(mutate_c.load_equivalent())

    mutants = all_mutants(args.target)
    if args.filter:
        rx = re.compile(args.filter)
        mutants = [m for m in mutants if rx.search(m.id) or rx.search(m.describe())]
    if args.rules:
        keep = set(r.strip() for r in args.rules.split(","))
        mutants = [m for m in mutants if rule_of(m).replace(" rule", "") in keep]
    if args.list:
        for m in mutants:
            print(m.id, "[%s]" % rule_of(m), m.describe())
        print("%d mutants" % len(mutants))
        return 0

    earlier = {}
    for log in args.resume:
        for ln in open(log):
            m = re.match(r"(?:\[\d+/\d+\]\s+)?(caught|survived|invalid)\s+([0-9a-f]{10})\s.*\((.*)\)\s*$", ln)
            # a verdict beats "invalid" from a run that did not compile the mutant (another #if branch)
            if m and not (m.group(1) == "invalid" and earlier.get(m.group(2), ("invalid",))[0] != "invalid"):
                earlier[m.group(2)] = (m.group(1), log, m.group(3))
    for m in mutants:
        if m.id in earlier and (args.no_run or args.keep_survivors or earlier[m.id][0] != "survived"):
            status, log, detail = earlier[m.id]
            m.status, m.detail = status, "%s; in an earlier run (%s)" % (detail[:160], os.path.basename(log))
        elif args.no_run:
            m.status, m.detail = "not-run", "no earlier run decided it"
    if args.no_run:
        mutate_c.EQUIVALENT = args.equivalent
        eq = mutate_c.load_equivalent()
        for m in mutants:
            if m.status == "survived" and m.id in eq:
                m.status, m.detail = eq[m.id]
        report = render(mutants, args, 0)
        out = args.out or os.path.join(RESULTS, "%s-%s.txt" % (datetime.date.today().isoformat(), args.name))
        open(out, "w").write(report)
        print(report[report.index("## Score"):report.index("## Every mutant")])
        print("written to %s" % os.path.relpath(out, ROOT))
        return 1 if any(m.status in ("survived", "not-run") for m in mutants) else 0
    t0 = time.time()
    work = tempfile.mkdtemp(prefix="tg-mutate-files-")
    try:
        trees = []
        for n in range(args.jobs):
            tree = os.path.join(work, "w%d" % n)
            copy_tree(tree)
            trees.append(tree)
        base = 0.0
        args.baseline = {}
        for tree in trees:
            rc, out = shell(args.build_cmd, tree, 1200, "none")
            if rc != 0:
                raise SystemExit("the unmutated build fails in %s:\n%s" % (tree, out[-3000:]))
            if args.artifact:
                if not glob.glob(os.path.join(tree, args.artifact)):
                    raise SystemExit("--artifact %s matches no file after the build" % args.artifact)
                args.baseline[tree] = artifact_digest(tree, args.artifact)
        if args.sanitize_cmd:
            for tree in trees:
                rc, out = shell(args.sanitize_cmd, tree, 1800, "none")
                if rc != 0:
                    raise SystemExit("the unmutated sanitizer run fails:\n%s" % out[-3000:])
        t = time.time()
        rc, out = shell(args.test_cmd, trees[0], 1200, "none")
        base = time.time() - t
        if rc != 0:
            raise SystemExit("the unmutated tests fail:\n%s" % out[-3000:])
        limit = args.timeout or max(30.0, 5 * base)
        print("unmutated: build and tests pass (tests %.1f s; timeout per mutant %.0f s); %d mutants, %d jobs"
              % (base, limit, len(mutants), args.jobs), flush=True)

        queue = [m for m in mutants if m.status is None]
        lock = threading.Lock()
        done = [0]

        def worker(tree):
            while True:
                with lock:
                    if not queue:
                        return
                    m = queue.pop(0)
                t = time.time()
                m.status, m.detail = check(m, tree, args, limit)
                m.seconds = time.time() - t
                with lock:
                    done[0] += 1
                    print("[%d/%d] %-8s %s %s  (%s)" % (done[0], len(mutants), m.status, m.id, m.describe(), m.detail),
                          flush=True)
        threads = [threading.Thread(target=worker, args=(tree,)) for tree in trees]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    mutate_c.EQUIVALENT = args.equivalent
    eq = mutate_c.load_equivalent()
    for m in mutants:
        if m.status == "survived" and m.id in eq:
            m.status, m.detail = eq[m.id]
        elif m.status == "caught" and m.id in eq:
            m.detail += "  (listed in %s: remove it there)" % os.path.basename(args.equivalent)
    report = render(mutants, args, time.time() - t0)
    out = args.out or os.path.join(RESULTS, "%s-%s.txt" % (datetime.date.today().isoformat(), args.name))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    open(out, "w").write(report)
    print(report[report.index("## Score"):report.index("## Every mutant")])
    print("written to %s" % os.path.relpath(out, ROOT))
    return 1 if any(m.status == "survived" for m in mutants) else 0


if __name__ == "__main__":
    sys.exit(main())
