#!/usr/bin/env python3
"""Writes the seed corpus of each harness into test/fuzz/corpus/<harness>/.

The seeds are starting points that reach every branch of each harness's
input format quickly (each mode and flag of fuzz_modes, each step kind of
fuzz_abi, each scenario of fuzz_mtproto, each selector of fuzz_pq); the
fuzzer mutates from there. Deterministic: bytes come from SHA-256 of a
label. Files named crash-* in the corpus are regression inputs kept from
crashes and are left alone. Run: python3 test/fuzz/make_seeds.py
"""
import hashlib
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def stream(label: str, n: int) -> bytes:
    out = b""
    i = 0
    while len(out) < n:
        out += hashlib.sha256(f"{label}/{i}".encode()).digest()
        i += 1
    return out[:n]


def write(harness: str, name: str, data: bytes) -> None:
    d = os.path.join(HERE, "corpus", harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"seed-{name}"), "wb") as f:
        f.write(data)


def modes() -> None:
    # flags (mode in bits 0-2, in place bit 3, counter wrap bit 4), key, iv,
    # [wrap byte], state (CTR), alignment, 16 chunk seeds, data
    for mode in range(5):
        for variant, (flags_hi, length) in enumerate([(0x00, 64), (0x08, 1040), (0x10, 333), (0x18, 4096)]):
            flags = mode | flags_hi
            body = bytes([flags]) + stream(f"modes-{mode}-{variant}", 64)
            if flags & 0x10:
                body += bytes([variant])
            if mode == 4:
                body += bytes([variant * 5 % 16])
            body += bytes([variant * 3]) + stream(f"chunks-{mode}-{variant}", 16)
            write("modes", f"{mode}-{variant}", body + stream(f"data-{mode}-{variant}", length))


def abi() -> None:
    for i in range(8):
        write("abi", str(i), stream(f"abi-{i}", 256 * (i + 1)))
    # one step of each kind, in turn
    write("abi", "each-step", stream("abi-arena", 64) + b"".join(
        bytes([k]) + stream(f"abi-step-{k}", 40) for k in range(7) for _ in range(3)))


def mtproto() -> None:
    # flags: bit 0 direction, bits 1-2 scenario (0: raw packet), 0x10 right
    # auth_key_id on a raw packet, 0x20 bad arguments, 0x40 raw length
    # field, 0x80 decrypt in the other direction
    for flags in (0x00, 0x11, 0x02, 0x03, 0x04, 0x05, 0x22, 0x43, 0x82, 0x06):
        write("mtproto", f"{flags:02x}", bytes([flags]) + stream(f"mt-{flags}", 256 + 600))


def pq() -> None:
    values = [
        0x17ED48941A08F981,  # the pq of core.telegram.org/mtproto/samples-auth_key (1229739323 * 1402015859)
        (2**31 - 1) * (2**32 - 5),  # two primes just below 2^31 and 2^32
        2**64 - 1,
        4, 6, 25, 561,  # smallest composites, a Carmichael number
        4294967291 * 4294967291,  # square of the largest prime below 2^32
        (2**61 - 1),  # a Mersenne prime: not composite
    ]
    for i, v in enumerate(values):
        write("pq", f"raw-{i}", bytes([0]) + struct.pack("<QQQ", v, 0, 0))
    for sel in range(1, 6):
        write("pq", f"sel-{sel}", bytes([sel]) + stream(f"pq-{sel}", 24))
    write("pq", "null-args", bytes([0xc0]) + struct.pack("<QQQ", 0x17ED48941A08F981, 0, 0))


if __name__ == "__main__":
    modes()
    abi()
    mtproto()
    pq()
