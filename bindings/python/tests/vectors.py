"""Readers for the project's known-answer files in test/vectors/ (format and
provenance: test/vectors/README.md)."""
from pathlib import Path

VECTORS = Path(__file__).resolve().parents[3] / "test" / "vectors"


def aes_cases(name):
    """[(mode, {field: bytes}, comment)] from a `[mode]` / `field = hex` file."""
    out, mode, case, comment = [], None, {}, ""

    def close():
        nonlocal case, comment
        if case:
            out.append((mode, case, comment))
        case, comment = {}, ""

    for line in (VECTORS / name).read_text().splitlines():
        if line.startswith("#"):
            comment = line[1:].strip() if not case else comment
            continue
        if not line.strip():
            close()
            continue
        if line.startswith("["):
            close()
            mode = line.strip("[] ")
            continue
        k, _, v = line.partition("=")
        case[k.strip()] = bytes.fromhex(v.strip())
    close()
    return out


def sha_cases(name):
    """[(algorithm, message, digest)] from a CAVP-style SHAVS file."""
    out, alg, msg, length = [], None, None, None
    for line in (VECTORS / name).read_text().splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            alg = line[1:-1]
        elif line.startswith("Len ="):
            length = int(line.split("=")[1]) // 8
        elif line.startswith("Msg ="):
            msg = bytes.fromhex(line.split("=")[1].strip())[:length]
        elif line.startswith("MD ="):
            out.append((alg, msg if length else b"", bytes.fromhex(line.split("=")[1].strip())))
    return out


def mtproto_cases():
    """[{auth_key, x, plaintext, padding, packet}] from mtproto.txt."""
    out, case = [], {}
    for line in (VECTORS / "mtproto.txt").read_text().splitlines() + [""]:
        if line.startswith("#"):
            continue
        if not line.strip():
            if case:
                out.append(case)
            case = {}
            continue
        k, _, v = line.partition("=")
        k, v = k.strip(), v.strip()
        case[k] = int(v) if k == "x" else bytes.fromhex(v)
    return out


def pq_cases():
    """[(kind, pq, p or None, q or None)] from pq.txt."""
    out = []
    for line in (VECTORS / "pq.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind, pq, p, q = line.split()
        out.append((kind, int(pq), None if p == "-" else int(p), None if q == "-" else int(q)))
    return out
