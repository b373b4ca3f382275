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
and the portable hash's inner loops (see SCOPE). Lines with the test hooks
(TG_TEST_), the constant-time annotations (DECLASSIFY) and preprocessor
lines are never mutated.
"""
import argparse
import datetime
import hashlib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ZIG = os.path.join(ROOT, "scripts", "zig")

# file -> (functions mutated with every operator (None: all), functions sampled, sample size)
# Wipes (tg_wipe calls) are mutated in every listed file, whatever the function.
SCOPE = {
    "csrc/api.c": (None, [], 0),
    "csrc/mtproto.c": (None, [], 0),
    "csrc/sha.c": (None, [], 0),
    "csrc/factorize.c": (None, [], 0),
    "csrc/dispatch.c": (["find_backend", "best_backend", "tg_init", "tg_active_backend", "tg_set_backend",
                         "tg_backend_name", "tg_backend_available", "tg_hash_impl_at", "tg_hash_active", "is_available",
                         "tg_hash_impl_available"], [], 0),
    "csrc/aes_vaes.c": (["vaes256_ctr_xor", "vaes512_ctr_xor", "vaes256_cbc_decrypt", "vaes512_cbc_decrypt"],
                        ["vaes256_ctr_wide", "vaes512_ctr_wide", "vaes256_cbc_decrypt_wide", "vaes512_cbc_decrypt_wide"], 12),
    "csrc/aes_soft.c": (["soft_cbc_decrypt", "soft_ctr_xor"], ["soft_expand_key", "soft_ige_encrypt", "soft_ige_decrypt",
                                                                 "sub_word", "load_blocks", "store_blocks"], 12),
    "csrc/aes_ni.c": ([], ["tg_aesni_ctr_xor", "tg_aesni_cbc_decrypt", "tg_aesni_ige_encrypt", "tg_aesni_ige_decrypt",
                           "tg_aesni_expand_key"], 10),
    "csrc/sha_portable.c": ([], ["sha256_blocks", "sha1_blocks"], 8),
    "csrc/sha_x86.c": ([], None, 4),
    "csrc/mtproto_x86.c": (["tg_fused_ige_dec_sha256"], None, 4),
}
SAMPLE_SEED = 16

# Areas of the targets: every mutant of these must be caught (or be
# shown equivalent). Functions by file; "wipe" is the dropped-wipe operator anywhere.
AREAS = {
    "mtproto checks": {"csrc/mtproto.c": {"tg_mtproto_decrypt", "tg_mtproto_encrypt", "ct_differ", "overlaps", "live",
                                          "tg_auth_key_id", "tg_auth_key_new", "tg_auth_key_free", "#define PACKET_MAX",
                                          "#define PACKET_MIN"}},
    "argument checks": {"csrc/api.c": {"partial_overlap", "check_data", "one_shot", "tg_ctr256", "live", "context_new",
                                       "context_free", "tg_ctr_new", "tg_ctr_update", "tg_ctr_position", "tg_ige_update",
                                       "tg_cbc_update"},
                        "csrc/sha.c": {"ready", "oneshot", "init", "load", "update", "final"},
                        "csrc/dispatch.c": {"tg_set_backend", "find_backend"},
                        "csrc/factorize.c": {"tg_factorize_pq_path"}},
}

RESULTS = os.path.join(ROOT, "test", "mutation", "results")
EQUIVALENT = os.path.join(ROOT, "test", "mutation", "equivalent.txt")

# ---------------------------------------------------------------- C lexing

TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')
  | (?P<number>0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<op><<=|>>=|\+\+|--|->|&&|\|\||<<|>>|<=|>=|==|!=|\+=|-=|\*=|/=|%=|&=|\|=|\^=|[-+*/%&|^~!<>=?:;,.(){}\[\]\#])
""", re.S | re.X)


def lex(text):
    """(kind, value, start) for every token, comments and strings included."""
    out, pos = [], 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            out.append(("op", text[pos], pos))
            pos += 1
            continue
        out.append((m.lastgroup, m.group(), pos))
        pos = m.end()
    return out


def functions(text, toks):
    """[(name, body_start, body_end)] of top-level brace blocks that follow a
    parenthesised declarator (function definitions)."""
    res, depth, start, last_top = [], 0, None, 0
    for i, (kind, val, pos) in enumerate(toks):
        if kind != "op":
            continue
        if val == "{":
            if depth == 0:
                head = [t for t in toks[last_top:i] if t[0] not in ("ws", "comment")]
                # the declarator's parameter list: the last parenthesised group at depth 0
                name, pdepth = None, 0
                for j, t in enumerate(head):
                    if t[1] == "(":
                        if pdepth == 0 and j > 0 and head[j - 1][0] == "ident":
                            name = head[j - 1][1]
                        pdepth += 1
                    elif t[1] == ")":
                        pdepth -= 1
                if name is not None and "=" not in [t[1] for t in head] and head and head[-1][1] == ")":
                    start = (name, pos)
                else:
                    start = None
            depth += 1
        elif val == "}":
            depth -= 1
            if depth == 0:
                if start is not None:
                    res.append((start[0], start[1], pos + 1))
                start = None
                last_top = i + 1
        elif val == ";" and depth == 0:
            last_top = i + 1
    return res


# ---------------------------------------------------------------- mutants

REL = {"==": "!=", "!=": "==", "<": "<=", "<=": "<", ">": ">=", ">=": ">"}
BIT = {"|": "&", "&": "|", "^": "|"}
SHIFT = {"<<": ">>", ">>": "<<"}
ASSIGN = {"|=": "=", "&=": "=", "+=": "=", "-=": "=", "^=": "="}
ARITH = {"+": "-", "-": "+"}
VALUE_END = ("ident", "number")
KEYWORDS = {"return", "case", "else", "do", "sizeof"}  # an operator after these is unary


class Mutant:
    def __init__(self, path, func, line_no, op, start, end, repl, line_text, text):
        self.path, self.func, self.line_no, self.op = path, func, line_no, op
        self.start, self.end, self.repl = start, end, repl
        mutated_line = text[text.rfind("\n", 0, start) + 1:start] + repl + text[end:text.find("\n", end)]
        self.before = line_text.strip()
        self.after = mutated_line.strip()
        self.text = text[:start] + repl + text[end:]
        key = "%s|%s|%s|%s" % (path, func, self.before, self.after)
        self.id = hashlib.sha1(key.encode()).hexdigest()[:10]
        self.status, self.detail, self.seconds = None, "", 0.0

    def area(self):
        if self.op == "wipe":
            return "wipes"
        for name, files in AREAS.items():
            if self.func in files.get(self.path, ()):
                return name
        return "other"

    def describe(self):
        return "%s:%d %s [%s] `%s` -> `%s`" % (self.path, self.line_no, self.func, self.op, self.before, self.after)


def cond_operands(toks, i_if):
    """For `if (` at toks[i_if]: the (start, end) char ranges of the operands
    of a top-level || or && chain in its condition, each with its operator
    (the text to delete to drop that operand)."""
    j = i_if + 1
    while toks[j][0] in ("ws", "comment"):
        j += 1
    if toks[j][1] != "(":
        return []
    depth, k, seps, lo = 0, j, [], j + 1
    while k < len(toks):
        v = toks[k][1] if toks[k][0] == "op" else None
        if v == "(":
            depth += 1
        elif v == ")":
            depth -= 1
            if depth == 0:
                break
        elif depth == 1 and v in ("||", "&&"):
            seps.append(k)
        k += 1
    if not seps or k >= len(toks):
        return []
    ops = [toks[s][1] for s in seps]
    if len(set(ops)) != 1:
        return []
    bounds = [lo] + [s + 1 for s in seps]
    ends = seps + [k]
    out = []
    for n, (b, e) in enumerate(zip(bounds, ends)):
        if n < len(seps):  # operand and the operator after it
            out.append((toks[b][2], toks[seps[n] + 1][2]))
        else:  # last operand and the operator before it
            out.append((toks[seps[n - 1]][2], toks[e][2]))
    return out


DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+(.*)$")
DECL = re.compile(r"^\s*(static\s+)?(const\s+)?(u?int\d+_t|uint8x16_t|__m\d+i|char|int|unsigned|size_t|tg_\w+)\b")


def blank_preprocessor(text):
    """text with every preprocessor line (and its continuations) turned into
    spaces, except the value of an object-like `#define NAME number...`,
    which stays in place so its numbers can be mutated (function "#define NAME")."""
    out, cont, defines = [], False, []
    pos = 0
    for ln in text.split("\n"):
        directive = cont or ln.lstrip().startswith("#")
        cont = directive and ln.endswith("\\")
        if directive:
            m = DEFINE.match(ln)
            if m and not cont and re.search(r"\b\d", m.group(2)) and not ln[m.end(1):].startswith("(") and \
                    not re.match(r"TG_HAVE_|TG_ARCH_|MAGIC_", m.group(1)):  # feature flags and magic tags: any value works
                defines.append((m.group(1), pos + m.start(2), pos + len(ln)))
            out.append(" " * len(ln))
        else:
            out.append(ln)
        pos += len(ln) + 1
    return "\n".join(out), defines


def generate(rel_path):
    path = os.path.join(ROOT, rel_path)
    text = open(path).read()
    code_text, defines = blank_preprocessor(text)
    toks = lex(code_text)
    funcs = functions(code_text, toks)
    # object-like #defines with numeric values: their numbers are mutated (const)
    for name, b, e in defines:
        sub = lex(text[b:e])
        toks += [(k, v, b + p) for k, v, p in sub]
        funcs.append(("#define " + name, b, e))
    toks.sort(key=lambda t: t[2])
    full, sampled, nsample = SCOPE.get(rel_path, (None, [], 0))  # a file outside SCOPE: every function
    lines = text.split("\n")
    line_starts = [0]
    for ln in lines:
        line_starts.append(line_starts[-1] + len(ln) + 1)

    def line_of(pos):
        lo, hi = 0, len(line_starts) - 1
        while lo < hi - 1:
            mid = (lo + hi) // 2
            if line_starts[mid] <= pos:
                lo = mid
            else:
                hi = mid
        return lo

    def func_of(pos):
        for name, b, e in funcs:
            if b <= pos < e:
                return name
        return None

    skip_lines = set()
    # test-only code: lines inside #if defined(TG_TEST_HOOKS) ... #endif (nesting followed)
    depth_stack = []
    for n, ln in enumerate(lines):
        st = ln.strip()
        if re.match(r"#\s*if", st):
            depth_stack.append("TG_TEST_HOOKS" in st and "!" not in st)
        elif re.match(r"#\s*endif", st) and depth_stack:
            depth_stack.pop()
        elif re.match(r"#\s*else", st) and depth_stack:
            depth_stack[-1] = False
        if any(depth_stack):
            skip_lines.add(n)
    for n, ln in enumerate(lines):
        s = ln.strip()
        if "TG_TEST_" in ln or "DECLASSIFY" in ln or "WIPE_KEYS" in ln or (s.startswith("#") and not DEFINE.match(ln)):
            skip_lines.add(n)
        # numeric tables (round constants, IVs): mutated by the known answers anyway, not worth a run each
        if len(re.findall(r"\b0x[0-9a-fA-F]+", ln)) > 3 or len(re.findall(r"\b\d+\b", ln)) > 8:
            skip_lines.add(n)

    full_muts, sample_pool = [], []
    code = [(i, t) for i, t in enumerate(toks) if t[0] not in ("ws", "comment")]
    for ci, (i, (kind, val, pos)) in enumerate(code):
        f = func_of(pos)
        if f is None:
            continue
        ln = line_of(pos)
        if ln in skip_lines:
            continue
        in_full = full is None or f in full
        in_sample = (sampled is None or f in sampled) and not in_full
        if not (in_full or in_sample):
            # wipes are mutated everywhere in the listed files
            if not (kind == "ident" and val == "tg_wipe"):
                continue
        prev = code[ci - 1][1] if ci > 0 else ("op", "", 0)
        cands = []
        if kind == "op":
            v = val
            binary = (prev[0] in VALUE_END and prev[1] not in KEYWORDS) or prev[1] in (")", "]")
            if v in REL:
                cands.append(("rel", REL[v]))
            if v == "&&":
                cands.append(("logic", "||"))
            if v == "||":
                cands.append(("logic", "&&"))
            if v in BIT and binary:
                cands.append(("bit", BIT[v]))
            if v in SHIFT:
                cands.append(("shift", SHIFT[v]))
            if v in ASSIGN:
                cands.append(("assign", ASSIGN[v]))
            if v in ARITH and binary:
                cands.append(("arith", ARITH[v]))
            if v == "!":
                cands.append(("not", ""))
        elif kind == "number":
            nxt = code[ci + 1][1] if ci + 1 < len(code) else ("op", "", 0)
            if prev[1] == "[" and nxt[1] == "]" and DECL.match(lines[ln]):
                continue  # an array size in a declaration: bigger is harmless, smaller is a sanitizer's job
            m = re.match(r"(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)$", val)
            num = int(m.group(1), 0)
            if num < (1 << 32):
                fmt = (lambda x: hex(x)) if m.group(1).lower().startswith("0x") else str
                cands.append(("const", fmt(num + 1) + m.group(2)))
                if num > 0:
                    cands.append(("const", fmt(num - 1) + m.group(2)))
        elif kind == "ident" and val == "return":
            nxt = code[ci + 1][1] if ci + 1 < len(code) else None
            if nxt and nxt[0] == "ident" and nxt[1].startswith("TG_ERR_"):
                muts = [(nxt[2], nxt[2] + len(nxt[1]), "TG_OK", "return-ok")]
                for s, e, r, op in muts:
                    m = Mutant(rel_path, f, ln + 1, op, s, e, r, lines[ln], text)
                    (full_muts if in_full else sample_pool).append(m)
        elif kind == "ident" and val == "tg_wipe" and prev[1] != "void":
            # the statement tg_wipe(...); dropped
            end = text.find(";", pos)
            full_muts.append(Mutant(rel_path, f, ln + 1, "wipe", pos, end, "(void)0", lines[ln], text))
            continue
        elif kind == "ident" and val == "if":
            for s, e in cond_operands([t for t in toks], i):
                m = Mutant(rel_path, f, ln + 1, "drop-operand", s, e, "", lines[ln], text)
                (full_muts if in_full else sample_pool).append(m)
        for op, repl in cands:
            m = Mutant(rel_path, f, ln + 1, op, pos, pos + len(val), repl, lines[ln], text)
            (full_muts if in_full else sample_pool).append(m)
    rnd = random.Random("%s:%d" % (rel_path, SAMPLE_SEED))
    sample_pool = [m for m in sample_pool if m.op != "wipe"]
    sample = rnd.sample(sample_pool, min(nsample, len(sample_pool)))
    seen, out = set(), []
    for m in full_muts + sample:
        if m.id in seen or m.text == text:
            continue
        seen.add(m.id)
        out.append(m)
    return out


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
