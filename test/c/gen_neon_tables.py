#!/usr/bin/env python3
"""Generate the constant tables of csrc/aes_neon.c from the field math.

    python3 test/c/gen_neon_tables.py > /tmp/neon_tables.h

and paste the output into aes_neon.c (between the GENERATED markers).
Everything below is derived here; nothing is copied from other AES code.

Model (see aes_neon.c for how the tables are used):
  * GF(16) = GF(2)[w]/(w^4 + w + 1); w is primitive (order 15).
  * The tower GF(256) = GF(16)[t]/(t^2 + t + LAM); a byte (a << 4) | b of
    the tower is a*t + b. LAM is the first value making t^2 + t + LAM
    irreducible.
  * L: AES field -> tower, the field isomorphism sending x (0x02) to a root
    of the AES polynomial in the tower. L is GF(2)-linear on bytes.
  * (a t + b)^-1 = (a t + (a + b)) / N,  N = LAM a^2 + a b + b^2.
    Computed with logarithms: log(0) is stored as 0x40, so any sum
    involving a zero is >= 32, and TBL returns 0 for an index out of range
    (exactly the product with zero). Nonzero sums are <= 28.
  * Encryption state is kept as L(s); decryption state as BD(s), with
    BD = L o Minv (Minv: linear part of the inverse affine map), so that the
    inverse S-box's inversion input, Minv s ^ 0x05, is BD(s) ^ L(0x05) in
    tower coordinates. That constant is folded into the decryption round
    keys, so both directions share the input-side tables.
"""


def aes_mul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        if a & 0x100:
            a ^= 0x11B
        b >>= 1
    return r


def g16_mul(a, b):
    r = 0
    for i in range(4):
        if (b >> i) & 1:
            r ^= a << i
    for i in (6, 5, 4):
        if (r >> i) & 1:
            r ^= 0b10011 << (i - 4)
    return r


def g16_pow(a, n):
    r = 1
    for _ in range(n):
        r = g16_mul(r, a)
    return r


EXP16 = [g16_pow(2, i) for i in range(15)]
assert sorted(EXP16) == list(range(1, 16))  # w is primitive
LOG16 = {v: i for i, v in enumerate(EXP16)}
ZLOG = 0x40  # log(0): pushes every sum with it out of TBL range

# t^2 + t + lam irreducible <=> no root in GF(16)
LAM = next(l for l in range(1, 16) if all(g16_mul(x, x) ^ x ^ l for x in range(16)))


def tw_mul(x, y):
    a, b, c, e = x >> 4, x & 15, y >> 4, y & 15
    ac = g16_mul(a, c)
    hi = ac ^ g16_mul(a, e) ^ g16_mul(b, c)
    lo = g16_mul(ac, LAM) ^ g16_mul(b, e)
    return (hi << 4) | lo


def tw_pow(x, n):
    r = 1
    for _ in range(n):
        r = tw_mul(r, x)
    return r


def aes_poly_in_tower(g):
    v = 0
    for e in (8, 4, 3, 1, 0):
        v ^= tw_pow(g, e)
    return v


# root of x^8 + x^4 + x^3 + x + 1 in the tower, generating the whole field
ROOT = next(g for g in range(2, 256) if aes_poly_in_tower(g) == 0)
L = [0] * 256
for x in range(256):
    v = 0
    for i in range(8):
        if (x >> i) & 1:
            v ^= tw_pow(ROOT, i)
    L[x] = v
assert sorted(L) == list(range(256))
LINV = [0] * 256
for x in range(256):
    LINV[L[x]] = x
for x in range(256):  # isomorphism check
    for y in (3, 0x53, 0xCA, x):
        assert L[aes_mul(x, y)] == tw_mul(L[x], L[y])


def aes_inv(x):
    return next((y for y in range(1, 256) if aes_mul(x, y) == 1), 0)


def rotl8(x, n):
    return ((x << n) | (x >> (8 - n))) & 0xFF


def M(x):  # linear part of the S-box affine map
    return x ^ rotl8(x, 1) ^ rotl8(x, 2) ^ rotl8(x, 3) ^ rotl8(x, 4)


def MINV(x):  # linear part of the inverse affine map
    return rotl8(x, 1) ^ rotl8(x, 3) ^ rotl8(x, 6)


SBOX = [M(aes_inv(x)) ^ 0x63 for x in range(256)]
assert SBOX[0x00] == 0x63 and SBOX[0x53] == 0xED
assert all(MINV(M(x)) == x for x in range(256)) and MINV(0x63) == 0x05


def BD(x):
    return L[MINV(x)]


BDINV = [0] * 256
for x in range(256):
    BDINV[BD(x)] = x


def exp32(i):
    return EXP16[i % 15]


# ---- input-side tables (16 entries, indexed by a state nibble) ----
IN = {
    "log": [LOG16[v] if v else ZLOG for v in range(16)],
    "sqa": [g16_mul(LAM, g16_mul(a, a)) for a in range(16)],  # LAM a^2
    "sqb": [g16_mul(b, b) for b in range(16)],                # b^2
}
NEGLOG = [ZLOG] + [(15 - LOG16[n]) % 15 for n in range(1, 16)]
EXP = [exp32(i) for i in range(32)]


# ---- output tables (32 entries, indexed by a log sum) ----
# hi: tower high nibble EXP[s] of the inverse, lo: the low nibble.
def out_pair(f):
    hi = [f(LINV[exp32(s) << 4]) for s in range(32)]
    lo = [f(LINV[exp32(s)]) for s in range(32)]
    return hi, lo


ENC_OUT = {  # rounds 1..13: L(c * M(inv)); c = 1, 2. Constant 0x63 is in the keys.
    "o1": out_pair(lambda v: L[M(v)]),
    "o2": out_pair(lambda v: L[aes_mul(2, M(v))]),
    "ofin": out_pair(lambda v: M(v)),  # last round: standard basis
}
DEC_OUT = {  # rounds 13..1: BD(c * inv); final round: inv, standard basis
    "o9": out_pair(lambda v: BD(aes_mul(9, v))),
    "o11": out_pair(lambda v: BD(aes_mul(11, v))),
    "o13": out_pair(lambda v: BD(aes_mul(13, v))),
    "o14": out_pair(lambda v: BD(aes_mul(14, v))),
    "ofin": out_pair(lambda v: v),
}


def split_pair(f):  # byte map f linear: f(x) = hi[x >> 4] ^ lo[x & 15]
    for x in range(256):
        assert f(x) == f(x & 0xF0) ^ f(x & 0x0F)
    return [f(h << 4) for h in range(16)], [f(l) for l in range(16)]


BASIS = {
    "l": split_pair(lambda x: L[x]),
    "bd": split_pair(BD),
}


# ---- byte permutations (TBL indices: out[i] = in[idx[i]]), byte i = 4c + r ----
def sr_src(c, r):
    return 4 * ((c + r) % 4) + r


def isr_src(c, r):
    return 4 * ((c - r) % 4) + r


def perm(src, j):
    return [src(i // 4, (i % 4 + j) % 4) for i in range(16)]


PERM_ENC = [perm(sr_src, j) for j in range(4)]   # rot_j o ShiftRows
PERM_DEC = [perm(isr_src, j) for j in range(4)]  # rot_j o InvShiftRows
PERM_ROT = [perm(lambda c, r: 4 * c + r, j) for j in range(1, 4)]  # rot_j alone (key schedule)


# ---- self-check: the table-driven rounds against the reference S-box ----
def sub_core(y):
    a, b = y >> 4, y & 15
    la, lb, lc = IN["log"][a], IN["log"][b], IN["log"][a ^ b]
    ab = EXP[la + lb] if la + lb < 32 else 0
    n = IN["sqa"][a] ^ IN["sqb"][b] ^ ab
    ln = NEGLOG[n]
    return la + ln, lc + ln


def tbl(t, i):
    return t[i] if i < len(t) else 0


for x in range(256):
    s1, s2 = sub_core(L[x])
    hi, lo = ENC_OUT["ofin"]
    assert tbl(hi, s1) ^ tbl(lo, s2) ^ 0x63 == SBOX[x]
    hi, lo = ENC_OUT["o2"]
    assert tbl(hi, s1) ^ tbl(lo, s2) == L[aes_mul(2, SBOX[x] ^ 0x63)]
    s1, s2 = sub_core(BD(x) ^ L[0x05])
    hi, lo = DEC_OUT["ofin"]
    assert SBOX[tbl(hi, s1) ^ tbl(lo, s2)] == x
    hi, lo = DEC_OUT["o13"]
    assert tbl(hi, s1) ^ tbl(lo, s2) == BD(aes_mul(13, SBOX.index(x)))


def c_array(name, vals):
    rows = [", ".join("0x%02x" % v for v in vals[i:i + 16]) for i in range(0, len(vals), 16)]
    return "static const uint8_t %s[%d] = {\n    %s,\n};" % (name, len(vals), ",\n    ".join(rows))


def main():
    out = []
    out.append("/* GENERATED by test/c/gen_neon_tables.py: do not edit by hand. */")
    out.append("/* GF(16) = GF(2)[w]/(w^4+w+1), tower t^2 + t + 0x%x, L(0x02) = 0x%02x */" % (LAM, ROOT))
    out.append("#define TW_L_0x63 0x%02x /* L(0x63): S-box constant in the encryption basis */" % L[0x63])
    out.append("#define TW_L_0x05 0x%02x /* L(0x05): InvSubBytes' constant in tower coordinates */" % L[0x05])
    for k in ("log", "sqa", "sqb"):
        out.append(c_array("T_%s" % k, IN[k]))
    out.append(c_array("T_neglog", NEGLOG))
    out.append(c_array("T_exp", EXP))
    for pre, tout in (("enc", ENC_OUT), ("dec", DEC_OUT)):
        for k, (hi, lo) in tout.items():
            out.append(c_array("T_%s_%s_hi" % (pre, k), hi))
            out.append(c_array("T_%s_%s_lo" % (pre, k), lo))
    for k, (hi, lo) in BASIS.items():
        out.append(c_array("T_basis_%s_hi" % k, hi))
        out.append(c_array("T_basis_%s_lo" % k, lo))
    out.append(c_array("T_perm_enc", sum(PERM_ENC, [])))
    out.append(c_array("T_perm_dec", sum(PERM_DEC, [])))
    out.append(c_array("T_perm_rot", sum(PERM_ROT, [])))
    out.append("/* END GENERATED */")
    print("\n".join(out))


if __name__ == "__main__":
    main()
