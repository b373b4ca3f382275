"""The mutants of a Python source file, for test/mutation/mutate_files.py
(the runner picks this generator for targets ending in .py).

Each mutant replaces the source text of one node (found with the ast
module's positions, so comments and layout elsewhere stay) by the text of a
changed copy of it:
  cmp         a comparison flipped: == <-> !=, < <-> >=, > <-> <=, is <-> is not,
              in <-> not in;
  bool        `and` <-> `or`;
  drop-operand  one operand of an and/or chain left out;
  not         `not x` -> `x`;
  negate      the test of an if / while / conditional expression negated;
  const       an integer constant +1 and -1, True <-> False;
  arith       + <-> -;
  drop-stmt   an expression statement, an assignment, a del or a raise
              replaced by `pass`: a call, a store, a check forgotten;
  return      `return X` -> `return None`.
Docstrings are left alone, and so is a line with `# no-mutate`. A mutant
that does not compile is never made."""
import ast
import copy

import c_mutants

CMP_FLIP = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
            ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}


def _offsets(text):
    """(line, utf-8 column) -> character offset in text."""
    lines = text.split("\n")
    starts, pos = [], 0
    for ln in lines:
        starts.append(pos)
        pos += len(ln) + 1

    def at(lineno, col):
        return starts[lineno - 1] + len(lines[lineno - 1].encode()[:col].decode())
    return at


def _is_docstring(node, parents):
    p = parents.get(node)
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
            and isinstance(p, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and p.body
            and p.body[0] is node)


def _changed(node):
    """(op, new node) for each expression mutant of node."""
    out = []
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in CMP_FLIP:
                n = copy.deepcopy(node)
                n.ops[i] = CMP_FLIP[type(op)]()
                out.append(("cmp", n))
    elif isinstance(node, ast.BoolOp):
        n = copy.deepcopy(node)
        n.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        out.append(("bool", n))
        for i in range(len(node.values)):
            rest = node.values[:i] + node.values[i + 1:]
            out.append(("drop-operand", rest[0] if len(rest) == 1 else ast.BoolOp(op=node.op, values=rest)))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        out.append(("not", node.operand))
    elif isinstance(node, ast.Constant) and type(node.value) is bool:
        out.append(("const", ast.Constant(not node.value)))
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        out.append(("const", ast.Constant(node.value + 1)))
        out.append(("const", ast.Constant(node.value - 1)))
    elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        n = copy.deepcopy(node)
        n.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
        out.append(("arith", n))
    return out


def generate(rel_path, root):
    text = open("%s/%s" % (root, rel_path)).read()
    tree = ast.parse(text)
    at = _offsets(text)
    lines = text.split("\n")
    parents, funcs = {}, {}
    for p in ast.walk(tree):
        for c in ast.iter_child_nodes(p):
            parents[c] = p

    def func_of(node):
        p = parents.get(node)
        while p is not None and not isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef)):
            p = parents.get(p)
        return p.name if p is not None else "<module>"

    def in_docstring(node):
        p = node
        while p is not None:
            if _is_docstring(p, parents):
                return True
            p = parents.get(p)
        return False

    out, seen = [], set()

    def add(node, op, repl, whole_lines=False):
        start = at(node.lineno, node.col_offset)
        end = at(node.end_lineno, node.end_col_offset)
        if "# no-mutate" in lines[node.lineno - 1]:
            return
        mutated = text[:start] + repl + text[end:]
        try:
            compile(mutated, rel_path, "exec")
        except SyntaxError:
            return
        m = c_mutants.Mutant(rel_path, func_of(node), node.lineno, op, start, end, repl, lines[node.lineno - 1], text)
        if m.id not in seen:
            seen.add(m.id)
            out.append(m)

    for node in ast.walk(tree):
        if not hasattr(node, "lineno") or in_docstring(node):
            continue
        if isinstance(node, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete, ast.Raise)):
            add(node, "drop-stmt", "pass")
        if isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            add(node, "return", "return None")
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            t = node.test
            add(t, "negate", "not (%s)" % ast.unparse(t))
        if isinstance(node, ast.expr):
            # a constant that is a default or a keyword value is mutated too: its node is an expr
            for op, new in _changed(node):
                add(node, op, "(%s)" % ast.unparse(new) if op != "const" else ast.unparse(new))
    out.sort(key=lambda m: (m.line_no, m.start, m.op))
    return out
