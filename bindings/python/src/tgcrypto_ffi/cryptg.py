"""cryptg's API (``import cryptg``), over the tgcrypto-ffi core.

    encrypt_ige(plain, key, iv) -> bytes      # AES-256-IGE; a partial last block is padded with os.urandom bytes
    decrypt_ige(cipher, key, iv) -> bytes
    factorize_pq_pair(pq) -> (p, q)           # p <= q, p the smallest prime factor

Keyword arguments work, as in cryptg; wrong sizes raise cryptg's
``ValueError("len(key) != 32")`` / ``ValueError("len(iv) != 32")``; empty
input returns ``b""``.

Deliberate differences from cryptg 0.6.0, where it panics, hangs or is
narrower:

- any bytes-like object is accepted (cryptg takes only ``bytes``);
- ``decrypt_ige`` of a length that is not a multiple of 16 raises
  ``ValueError("len(cipher) % 16 != 0")`` (cryptg: a ``PanicException``,
  which ``except Exception`` does not catch);
- ``factorize_pq_pair`` of 0, 1 or a prime raises ``ValueError`` (cryptg
  returns ``(2, 0)`` for 0, hangs on 1 and large primes, panics on small
  primes and on some small composites such as 15), and any 64-bit composite
  is split;
- data of 2**32 bytes or more raises ``ValueError``;
- the GIL is released for large inputs (cryptg holds it).
"""
from ._native import decrypt_ige, encrypt_ige, factorize_pq_pair

__all__ = ["encrypt_ige", "decrypt_ige", "factorize_pq_pair"]
