"""Known answers from test/vectors/ (FIPS-197, NIST SP 800-38A, the
node:crypto-generated IGE/CTR/CBC file, CAVP SHAVS, hashlib-generated SHA,
the node:crypto MTProto file and the PQ file), through every Python entry
point: the tgcrypto functions, the contexts, cryptg, the hashes, AuthKey."""
import pytest

import tgcrypto_ffi
from tgcrypto_ffi import cryptg, tgcrypto

from vectors import VECTORS, aes_cases, mtproto_cases, pq_cases, sha_cases

AES = aes_cases("fips197.txt") + aes_cases("sp800_38a.txt") + aes_cases("generated.txt")
IGE = [c for m, c, _ in AES if m == "ige"]
CTR = [c for m, c, _ in AES if m == "ctr"]
CBC = [c for m, c, _ in AES if m == "cbc"]
ECB = [c for m, c, _ in AES if m == "ecb"]
MT = mtproto_cases()


def _count(name, prefix):
    return sum(1 for line in (VECTORS / name).read_text().splitlines() if line.startswith(prefix))


def test_vector_files_are_all_read():
    # every case of every file reaches the tests: one "key =" line per AES case
    assert len(AES) == sum(_count(n, "key =") for n in ("fips197.txt", "sp800_38a.txt", "generated.txt"))
    assert len(ECB) == 1 and len(IGE) > 20 and len(CTR) > 60 and len(CBC) > 10
    assert len(MT) == 58 == _count("mtproto.txt", "packet =")  # test/vectors/mtproto.txt: 58 cases
    assert len(sha_cases("sha_cavp.txt")) == 27 == _count("sha_cavp.txt", "MD =")
    assert len(sha_cases("sha_generated.txt")) == _count("sha_generated.txt", "MD =")


def test_fips197_single_block():
    # one ECB block = CBC with a zero IV over one block
    for c in ECB:
        assert tgcrypto.cbc256_encrypt(c["plaintext"], c["key"], bytearray(16)) == c["ciphertext"]
        assert tgcrypto.cbc256_decrypt(c["ciphertext"], c["key"], bytearray(16)) == c["plaintext"]


@pytest.mark.parametrize("i", range(len(IGE)))
def test_ige(i):
    c = IGE[i]
    iv = bytearray(c["iv"])
    assert tgcrypto.ige256_encrypt(c["plaintext"], c["key"], iv) == c["ciphertext"]
    assert tgcrypto.ige256_decrypt(c["ciphertext"], c["key"], iv) == c["plaintext"]
    assert iv == c["iv"]  # never written
    assert cryptg.encrypt_ige(c["plaintext"], c["key"], c["iv"]) == c["ciphertext"]
    assert cryptg.decrypt_ige(c["ciphertext"], c["key"], c["iv"]) == c["plaintext"]
    enc, dec = tgcrypto_ffi.IGEContext(c["key"], c["iv"]), tgcrypto_ffi.IGEContext(c["key"], c["iv"], decrypt=True)
    half = len(c["plaintext"]) // 32 * 16
    if half:
        assert enc.update(c["plaintext"][:half]) + enc.update(c["plaintext"][half:]) == c["ciphertext"]
        assert dec.update(c["ciphertext"][:half]) + dec.update(c["ciphertext"][half:]) == c["plaintext"]
    else:
        assert enc.update(c["plaintext"]) == c["ciphertext"] and dec.update(c["ciphertext"]) == c["plaintext"]


@pytest.mark.parametrize("i", range(len(CTR)))
def test_ctr(i):
    c = CTR[i]
    state0 = c.get("state", b"\x00")
    for fn, src, dst in ((tgcrypto.ctr256_encrypt, "plaintext", "ciphertext"), (tgcrypto.ctr256_decrypt, "ciphertext", "plaintext")):
        iv, state = bytearray(c["iv"]), bytearray(state0)
        assert fn(c[src], c["key"], iv, state) == c[dst]
        assert iv == c["iv_after"] and state == c.get("state_after", state0)
    ctx = tgcrypto_ffi.CTRContext(c["key"], c["iv"], state0[0])
    assert ctx.update(c["plaintext"]) == c["ciphertext"]
    assert ctx.position() == (c["iv_after"], c["state_after"][0])


@pytest.mark.parametrize("i", range(len(CBC)))
def test_cbc(i):
    c = CBC[i]
    iv = bytearray(c["iv"])
    assert tgcrypto.cbc256_encrypt(c["plaintext"], c["key"], iv) == c["ciphertext"]
    assert iv == c["iv_after"]
    iv = bytearray(c["iv"])
    assert tgcrypto.cbc256_decrypt(c["ciphertext"], c["key"], iv) == c["plaintext"]
    assert iv == c["iv_after"]
    enc = tgcrypto_ffi.CBCContext(c["key"], c["iv"])
    dec = tgcrypto_ffi.CBCContext(c["key"], c["iv"], decrypt=True)
    blocks = [c["plaintext"][j:j + 16] for j in range(0, len(c["plaintext"]), 16)]
    assert b"".join(enc.update(b) for b in blocks) == c["ciphertext"]
    cblocks = [c["ciphertext"][j:j + 16] for j in range(0, len(c["ciphertext"]), 16)]
    assert b"".join(dec.update(b) for b in cblocks) == c["plaintext"]


@pytest.mark.parametrize("name", ["sha_cavp.txt", "sha_generated.txt"])
def test_sha(name):
    n = 0
    for alg, msg, md in sha_cases(name):
        fn = tgcrypto_ffi.sha256 if alg == "SHA-256" else tgcrypto_ffi.sha1
        assert fn(msg) == md, (alg, len(msg))
        cut = len(msg) // 3
        assert fn(msg[:cut], bytearray(msg[cut:2 * cut]), memoryview(msg)[2 * cut:]) == md
        n += 1
    assert n >= 27


def test_sha_fips180_examples():
    # FIPS 180-4 examples ("abc", the 448-bit message, one million 'a')
    assert tgcrypto_ffi.sha256(b"abc").hex() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert tgcrypto_ffi.sha1(b"abc").hex() == "a9993e364706816aba3e25717850c26c9cd0d89d"
    m448 = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
    assert tgcrypto_ffi.sha256(m448).hex() == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    assert tgcrypto_ffi.sha1(b"a" * 1000000).hex() == "34aa973cd4c4daa4f61eeb2bdbad27316534016f"
    assert tgcrypto_ffi.sha256().hex() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"



@pytest.mark.parametrize("i", range(len(MT)))
def test_mtproto(i):
    c = MT[i]
    server = c["x"] == 8
    with tgcrypto_ffi.AuthKey(c["auth_key"]) as key:
        assert key.id == c["packet"][:8]
        assert key.encrypt_message(c["plaintext"], server=server, padding=c["padding"]) == c["packet"]
        # a head/body split and a many-part plaintext give the same packet
        p = c["plaintext"]
        assert key.encrypt_message((p[:16], p[16:]), server=server, padding=c["padding"]) == c["packet"]
        assert key.encrypt_message([p[:8], p[8:20], p[20:33], p[33:]], server=server, padding=c["padding"]) == c["packet"]
        # the receiver of an x-direction message is the other side
        assert key.decrypt_message(c["packet"], server=not server) == c["plaintext"]
        with pytest.raises(tgcrypto_ffi.MtprotoSecurityError):
            key.decrypt_message(c["packet"], server=server)


PQ = pq_cases()


def test_pq():
    assert len(PQ) > 300
    for kind, pq, p, q in PQ:
        if p is None:
            with pytest.raises(ValueError, match="0, 1 or a prime"):
                cryptg.factorize_pq_pair(pq)
        else:
            assert cryptg.factorize_pq_pair(pq) == (p, q), (kind, pq)
            assert tgcrypto_ffi.factorize_pq(pq) == (p, q)
