/*
 * fuzz_pq.c - tg_factorize_pq on any 64-bit input.
 *
 * Properties (checked here with arithmetic independent of csrc/: a sieve,
 * trial division and deterministic Miller-Rabin written below):
 *   - it returns (libFuzzer's -timeout catches a call that does not);
 *   - TG_OK: p * q == pq exactly (128-bit product), 2 <= p <= q, p prime,
 *     and p is the smallest prime factor of pq;
 *   - TG_ERR_NOT_COMPOSITE exactly for 0, 1 and primes;
 *   - nothing else for a composite (the header: any 64-bit composite is
 *     split), and TG_ERR_NULL for a NULL p or q.
 * Smallest factor: if q is prime, p <= q makes p the smallest. If q is
 * composite, its own smallest prime factor r must be >= p, so
 * pq >= p^3 and p < 2^21.34: then no prime below p may divide pq, which
 * trial division by the sieved primes below 2^22 decides.
 *
 * Input: a selector byte, then seeds. Besides raw 64-bit values, the
 * inputs libFuzzer could not find by mutation: products of two primes near
 * chosen sizes (Telegram's case: two primes below 2^32), prime squares and
 * cubes, and products of three primes.
 */
#include "fuzz_common.h"
#include "tgcrypto.h"

#define SIEVE_LIMIT (1u << 22)

static uint32_t *primes;
static size_t nprimes;

static void sieve(void) {
    uint8_t *composite = calloc(SIEVE_LIMIT, 1);
    primes = malloc(sizeof *primes * (SIEVE_LIMIT / 10));
    for (uint32_t i = 2; i < SIEVE_LIMIT; i++) {
        if (composite[i]) continue;
        primes[nprimes++] = i;
        for (uint64_t j = (uint64_t)i * i; j < SIEVE_LIMIT; j += i) composite[j] = 1;
    }
    free(composite);
}

static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m) { return (uint64_t)((unsigned __int128)a * b % m); }

static uint64_t powmod(uint64_t b, uint64_t e, uint64_t m) {
    uint64_t r = 1 % m;
    for (b %= m; e; e >>= 1, b = mulmod(b, b, m))
        if (e & 1) r = mulmod(r, b, m);
    return r;
}

/* Deterministic for n < 2^64 with the first 12 primes as bases
 * (Sorenson & Webster 2015: the bound for these bases exceeds 2^64). */
static int is_prime(uint64_t n) {
    static const uint64_t bases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
    if (n < 2) return 0;
    for (int i = 0; i < 12; i++) {
        if (n == bases[i]) return 1;
        if (n % bases[i] == 0) return 0;
    }
    uint64_t d = n - 1;
    int s = 0;
    while ((d & 1) == 0) d >>= 1, s++;
    for (int i = 0; i < 12; i++) {
        uint64_t x = powmod(bases[i], d, n);
        if (x == 1 || x == n - 1) continue;
        int witness = 1;
        for (int r = 1; r < s && witness; r++) {
            x = mulmod(x, x, n);
            if (x == n - 1) witness = 0;
        }
        if (witness) return 0;
    }
    return 1;
}

/* The smallest prime >= n (n below 2^63 here), or 0 past 2^64. */
static uint64_t next_prime(uint64_t n) {
    if (n < 2) return 2;
    for (; n != 0; n++)
        if (is_prime(n)) return n;
    return 0;
}

static uint64_t bits(uint64_t v, int k) { return k >= 64 ? v : v & ((1ULL << k) - 1); }

static void check(uint64_t pq) {
    uint64_t p = 0x1111, q = 0x2222;
    const int rc = tg_factorize_pq(pq, &p, &q);
    const int composite = pq >= 4 && !is_prime(pq);
    if (!composite) {
        FUZZ_CHECK(rc == TG_ERR_NOT_COMPOSITE, "pq = %llu (not composite): %d", (unsigned long long)pq, rc);
        return;
    }
    FUZZ_CHECK(rc == TG_OK, "pq = %llu (composite): %d (%s)", (unsigned long long)pq, rc, tg_strerror(rc));
    FUZZ_CHECK((unsigned __int128)p * q == pq, "p * q != pq for %llu: %llu * %llu", (unsigned long long)pq,
               (unsigned long long)p, (unsigned long long)q);
    FUZZ_CHECK(p >= 2 && p <= q, "pq = %llu: p = %llu, q = %llu", (unsigned long long)pq, (unsigned long long)p,
               (unsigned long long)q);
    FUZZ_CHECK(is_prime(p), "pq = %llu: p = %llu is not prime", (unsigned long long)pq, (unsigned long long)p);
    if (!is_prime(q)) {
        FUZZ_CHECK(p < SIEVE_LIMIT, "pq = %llu: q = %llu composite with p = %llu: a smaller factor exists",
                   (unsigned long long)pq, (unsigned long long)q, (unsigned long long)p);
        for (size_t i = 0; i < nprimes && primes[i] < p; i++)
            FUZZ_CHECK(pq % primes[i] != 0, "pq = %llu: %u divides it, below p = %llu", (unsigned long long)pq,
                       primes[i], (unsigned long long)p);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (primes == NULL) sieve();
    fuzz_input in = {data, size};
    const uint8_t sel = fz_u8(&in);
    const uint64_t a = fz_u64(&in), b = fz_u64(&in), c = fz_u64(&in);
    const int ka = 2 + (int)((a >> 58) % 31), kb = 2 + (int)((b >> 58) % 31); /* prime sizes: 2..32 bits */
    uint64_t pq;
    switch (sel % 6) {
    case 0: pq = a; break;
    case 1: pq = next_prime(bits(a, ka)) * next_prime(bits(b, kb)); break; /* two primes, up to 2^64 */
    case 2: { uint64_t p = next_prime(bits(a, 32)); pq = p * p; break; }  /* wraps past 2^64: still an input */
    case 3: { uint64_t p = next_prime(bits(a, 21)); pq = p * p * p; break; }
    case 4: pq = next_prime(bits(a, 21)) * next_prime(bits(b, 21)) * next_prime(bits(c, 21)); break;
    default: pq = bits(a, 8 + (int)(sel % 57)); break;                     /* small values */
    }
    check(pq);
    if ((sel & 0xc0) == 0xc0) {
        uint64_t p = 0, q = 0;
        FUZZ_CHECK(tg_factorize_pq(pq, NULL, &q) == TG_ERR_NULL, "NULL p");
        FUZZ_CHECK(tg_factorize_pq(pq, &p, NULL) == TG_ERR_NULL, "NULL q");
    }
    return 0;
}
