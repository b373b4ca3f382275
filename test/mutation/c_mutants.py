"""The C mutants of the mutation runs: a small C lexer, the operators
(listed in mutate_c.py's docstring), Mutant, and which code of csrc/ is
mutated (SCOPE) and how the results are grouped (AREAS). mutate_c.py runs
these mutants against the C tests; mutate_files.py reuses the lexer,
Mutant and generate() (as mutate_c.*) for the bindings' C files."""
import hashlib
import os
import random
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

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
