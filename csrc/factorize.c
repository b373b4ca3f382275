/*
 * factorize.c - tg_factorize_pq: the smallest prime factor of a 64-bit
 * integer, for the auth key exchange (ResPQ.pq).
 *
 *   1. trial division by the primes below 256 (even numbers, small factors);
 *   2. deterministic Miller-Rabin (the first 12 prime bases are exact for
 *      n < 3.3 * 10^24) rejects primes;
 *   3. Pollard-Brent rho (two walks in lockstep, batched gcds) splits what is left, and the
 *      parts are split again until both are prime, so the result is the
 *      smallest prime factor even for products of three or more primes.
 *
 * All arithmetic modulo an odd n is Montgomery (R = 2^64) over a 64x64->128
 * product: the compiler's unsigned __int128 where it exists, else four
 * 32-bit products; the C tests run and compare both paths everywhere.
 * pq is public (the server sends it in the clear): no constant-time needs.
 */
#include "factorize.h"
#include "tgcrypto.h"

#include <stddef.h>

#if defined(__GNUC__)
#  define TG_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#  define TG_ALWAYS_INLINE static inline
#endif

#if defined(__SIZEOF_INT128__)
#  define TG_HAVE_INT128 1
#endif

int tg_mul_native_is_int128(void) {
#ifdef TG_HAVE_INT128
    return 1;
#else
    return 0;
#endif
}

/* ---- 64x64 -> 128 ---- */

/* hi:lo = a * b from 32-bit halves; `mid` holds at most 3 * (2^32 - 1). */
TG_ALWAYS_INLINE uint64_t mul_hi_portable(uint64_t a, uint64_t b, uint64_t *lo) {
    const uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    const uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *lo = (mid << 32) | (uint32_t)p00;
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* `path` is a constant wherever this is inlined, so the branch folds. */
TG_ALWAYS_INLINE uint64_t mul_hi(uint64_t a, uint64_t b, uint64_t *lo, int path) {
#ifdef TG_HAVE_INT128
    if (path == TG_MUL_NATIVE) {
        const unsigned __int128 t = (unsigned __int128)a * b;
        *lo = (uint64_t)t;
        return (uint64_t)(t >> 64);
    }
#endif
    (void)path;
    return mul_hi_portable(a, b, lo);
}

void tg_mul_64x64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo, int path) {
    *hi = path == TG_MUL_PORTABLE ? mul_hi_portable(a, b, lo) : mul_hi(a, b, lo, TG_MUL_NATIVE);
}

/* ---- Montgomery arithmetic modulo an odd n, R = 2^64 ---- */

typedef struct {
    uint64_t n;
    uint64_t ninv;  /* n^-1 mod 2^64 */
    uint64_t one;   /* R mod n: 1 in Montgomery form */
    uint64_t r2;    /* R^2 mod n: converts into Montgomery form */
} mont;

/* a + b mod n, for a, b < n (n may exceed 2^63, so a + b may not fit). */
static inline uint64_t add_mod(uint64_t a, uint64_t b, uint64_t n) {
    const uint64_t nb = n - b;
    return a >= nb ? a - nb : a + b;
}

static void mont_init(mont *m, uint64_t n) {
    uint64_t x = n; /* odd n: n * n == 1 mod 8, so x is right to 3 bits */
    for (int i = 0; i < 5; i++) x *= 2 - n * x; /* Newton: 6, 12, 24, 48, 96 bits */
    m->n = n;
    m->ninv = x;
    m->one = (0 - n) % n;
    uint64_t r = m->one;
    for (int i = 0; i < 64; i++) r = add_mod(r, r, n); /* R * 2^64 = R^2 */
    m->r2 = r;
}

/* a * b / R mod n, for a, b < n. a * b - k * n with k = lo * n^-1 has a zero
 * low word, so the result is hi - high(k * n), in (-n, n). */
TG_ALWAYS_INLINE uint64_t mont_mul(const mont *m, uint64_t a, uint64_t b, int path) {
    uint64_t lo, klo;
    const uint64_t hi = mul_hi(a, b, &lo, path);
    const uint64_t kn = mul_hi(lo * m->ninv, m->n, &klo, path);
    const uint64_t t = hi - kn;
    return hi < kn ? t + m->n : t;
}

/* mont_mul(y, y) + c mod n, for y, c < n, with c added to the high word
 * (known 7 cycles before k * n) rather than after the reduction: the same
 * value, 3 fewer cycles on the rho chain. */
TG_ALWAYS_INLINE uint64_t mont_sqr_add(const mont *m, uint64_t y, uint64_t c, int path) {
    uint64_t lo, klo;
    const uint64_t hi = mul_hi(y, y, &lo, path);
    const uint64_t a = add_mod(hi, c, m->n); /* hi < n since y^2 < n^2 */
    const uint64_t kn = mul_hi(lo * m->ninv, m->n, &klo, path);
    const uint64_t t = a - kn;
    return a < kn ? t + m->n : t;
}

TG_ALWAYS_INLINE uint64_t to_mont(const mont *m, uint64_t a, int path) {
    return mont_mul(m, a % m->n, m->r2, path);
}

uint64_t tg_mulmod_odd(uint64_t a, uint64_t b, uint64_t n, int path) {
    mont m;
    mont_init(&m, n);
    /* (a R / R) then (a R * b / R): plain a * b mod n */
    if (path == TG_MUL_PORTABLE) return mont_mul(&m, to_mont(&m, a, TG_MUL_PORTABLE), b % n, TG_MUL_PORTABLE);
    return mont_mul(&m, to_mont(&m, a, TG_MUL_NATIVE), b % n, TG_MUL_NATIVE);
}

/* ---- primality ---- */

static const uint8_t small_primes[] = {
    2,   3,   5,   7,   11,  13,  17,  19,  23,  29,  31,  37,  41,  43,  47,  53,  59,  61,
    67,  71,  73,  79,  83,  89,  97,  101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151,
    157, 163, 167, 173, 179, 181, 191, 193, 197, 199, 211, 223, 227, 229, 233, 239, 241, 251,
};
#define N_SMALL_PRIMES (sizeof small_primes / sizeof small_primes[0])
#define TRIAL_LIMIT 256u /* no prime factor below this survives trial division */

/* Miller-Rabin for odd n > 37 with the first 12 primes as bases. */
TG_ALWAYS_INLINE int miller_rabin(uint64_t n, int path) {
    mont m;
    mont_init(&m, n);
    const uint64_t minus_one = n - m.one;
    uint64_t d = n - 1;
    int s = 0;
    while ((d & 1) == 0) d >>= 1, s++;
    for (int i = 0; i < 12; i++) {
        const uint64_t a = to_mont(&m, small_primes[i], path);
        uint64_t x = m.one, base = a;
        for (uint64_t e = d; e != 0; e >>= 1) { /* x = a^d */
            if (e & 1) x = mont_mul(&m, x, base, path);
            base = mont_mul(&m, base, base, path);
        }
        if (x == m.one || x == minus_one) continue;
        int witness = 1;
        for (int r = 1; r < s && witness; r++) {
            x = mont_mul(&m, x, x, path);
            if (x == minus_one) witness = 0;
        }
        if (witness) return 0;
    }
    return 1;
}

TG_ALWAYS_INLINE int is_prime(uint64_t n, int path) {
    if (n < 2) return 0;
    for (size_t i = 0; i < 12; i++) {
        if (n % small_primes[i] == 0) return n == small_primes[i];
    }
    return miller_rabin(n, path);
}

int tg_is_prime_u64(uint64_t n, int path) {
    return path == TG_MUL_PORTABLE ? is_prime(n, TG_MUL_PORTABLE) : is_prime(n, TG_MUL_NATIVE);
}

/* ---- Pollard-Brent ---- */

static uint64_t gcd(uint64_t a, uint64_t b) {
    while (b != 0) {
        const uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static inline uint64_t abs_diff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

#define WALKS 2               /* independent rho walks run in lockstep (measured on Zen 4: 2 beats 1, 3 and 4; more spill registers) */
#define GCD_BATCH 128          /* steps per walk between gcds */
#define RHO_MAX_STEPS (1u << 24) /* per walk and attempt: ~sqrt(2^32) steps are expected */
#define RHO_ATTEMPTS 16        /* sets of WALKS constants */

/*
 * Brent's cycle search on y -> y^2/R + c_j (a polynomial map mod every p | n,
 * since R is invertible), WALKS walks with different c_j at once. One walk
 * is a serial chain of multiplications (latency-bound); independent ones
 * fill the multiplier's pipeline at little extra cost per step, and the
 * search ends when the FIRST walk finds a cycle: the expected steps drop by
 * sqrt(WALKS) and the slow tail (a walk that happens to need 3x the mean)
 * shrinks, since every walk would have to be unlucky.
 *
 * Each walk keeps its own product q_j of |x_j - y_j| (a shared one would put
 * WALKS multiplications in a row on one chain); a gcd per batch takes their
 * product. Returns a factor 1 < g < n, or 0 if these constants fail.
 */
TG_ALWAYS_INLINE uint64_t rho_brent(const mont *m, const uint64_t c[WALKS], int path) {
    const uint64_t n = m->n;
    uint64_t x[WALKS], y[WALKS], ys[WALKS], q[WALKS];
    for (int j = 0; j < WALKS; j++) y[j] = to_mont(m, c[j] + 1, path), q[j] = m->one;
    uint64_t g = 1, steps = 0;
    for (uint64_t r = 1; g == 1; r *= 2) {
        for (int j = 0; j < WALKS; j++) x[j] = y[j];
        for (uint64_t i = 0; i < r; i++)
            for (int j = 0; j < WALKS; j++) y[j] = mont_sqr_add(m, y[j], c[j], path);
        for (uint64_t k = 0; k < r && g == 1; k += GCD_BATCH) {
            for (int j = 0; j < WALKS; j++) ys[j] = y[j];
            const uint64_t lim = r - k < GCD_BATCH ? r - k : GCD_BATCH;
            for (uint64_t i = 0; i < lim; i++) {
                for (int j = 0; j < WALKS; j++) {
                    y[j] = mont_sqr_add(m, y[j], c[j], path);
                    q[j] = mont_mul(m, q[j], abs_diff(x[j], y[j]), path);
                }
            }
            uint64_t all = q[0];
            for (int j = 1; j < WALKS; j++) all = mont_mul(m, all, q[j], path);
            g = gcd(all, n);
        }
        steps += 2 * r;
        if (g == 1 && steps > RHO_MAX_STEPS) return 0;
    }
    if (g != n) return g;
    /* The batch overshot (a walk closed its cycle mod every factor, or two
     * walks found different factors): redo it walk by walk, one gcd a step. */
    for (int j = 0; j < WALKS; j++) {
        uint64_t yj = ys[j];
        for (int i = 0; i <= GCD_BATCH; i++) {
            yj = mont_sqr_add(m, yj, c[j], path);
            g = gcd(abs_diff(x[j], yj), n);
            if (g != 1) break;
        }
        if (g != 1 && g != n) return g;
    }
    return 0;
}

/* Attempt a of the search: the walk constants c = a * WALKS + 1, 2, ...
 * (never 0 or -2, degenerate maps, since n > TRIAL_LIMIT^2). */
TG_ALWAYS_INLINE uint64_t attempt_rho(const mont *m, uint64_t a, int path) {
    uint64_t c[WALKS];
    for (int j = 0; j < WALKS; j++) c[j] = a * WALKS + (uint64_t)j + 1;
    return rho_brent(m, c, path);
}

#if defined(TG_TEST_HOOKS)
unsigned tg_test_rho_attempts = RHO_ATTEMPTS;
#  define ATTEMPTS tg_test_rho_attempts
#else
#  define ATTEMPTS RHO_ATTEMPTS
#endif

/* A factor 1 < d < n of an odd composite n, or 0 when every attempt failed. */
TG_ALWAYS_INLINE uint64_t find_factor(uint64_t n, int path) {
    mont m;
    mont_init(&m, n);
    for (uint64_t a = 0; a < ATTEMPTS; a++) {
        const uint64_t d = attempt_rho(&m, a, path);
        if (d != 0) return d;
    }
    return 0;
}

#if defined(TG_TEST_HOOKS)
uint64_t tg_rho_attempt(uint64_t n, unsigned attempt, int path) {
    mont m;
    mont_init(&m, n);
    return path == TG_MUL_PORTABLE ? attempt_rho(&m, attempt, TG_MUL_PORTABLE) : attempt_rho(&m, attempt, TG_MUL_NATIVE);
}
#endif

static uint64_t isqrt(uint64_t n) {
    uint64_t r = 0;
    for (uint64_t bit = (uint64_t)1 << 62; bit != 0; bit >>= 2) {
        if (n >= r + bit) {
            n -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
    }
    return r;
}

/* Smallest prime factor of n > 1 with no prime factor below TRIAL_LIMIT,
 * or 0 if a split failed. Each split at least halves n: depth < 64. */
TG_ALWAYS_INLINE uint64_t smallest_factor(uint64_t n, int path, uint64_t (*self)(uint64_t)) {
    if (n < (uint64_t)TRIAL_LIMIT * TRIAL_LIMIT || miller_rabin(n, path)) return n;
    const uint64_t r = isqrt(n);
    if (r * r == n) return self(r);
    const uint64_t d = find_factor(n, path);
    if (d == 0) return 0;
    const uint64_t a = self(d), b = self(n / d);
    if (a == 0 || b == 0) return 0;
    return a < b ? a : b;
}

#if defined(TG_TEST_HOOKS)
uint64_t tg_isqrt_u64(uint64_t n) { return isqrt(n); }
#endif

static uint64_t smallest_factor_native(uint64_t n) { return smallest_factor(n, TG_MUL_NATIVE, smallest_factor_native); }
static uint64_t smallest_factor_portable(uint64_t n) { return smallest_factor(n, TG_MUL_PORTABLE, smallest_factor_portable); }

/* ---- the API ---- */

int tg_factorize_pq_path(uint64_t pq, uint64_t *p, uint64_t *q, int path) {
    if (p == NULL || q == NULL) return TG_ERR_NULL;
    if (pq < 4) return TG_ERR_NOT_COMPOSITE;
    uint64_t f = 0;
    for (size_t i = 0; i < N_SMALL_PRIMES && f == 0; i++) {
        if (pq % small_primes[i] == 0) f = small_primes[i];
    }
    if (f == pq) return TG_ERR_NOT_COMPOSITE;
    if (f == 0) {
        f = path == TG_MUL_PORTABLE ? smallest_factor_portable(pq) : smallest_factor_native(pq);
        if (f == pq) return TG_ERR_NOT_COMPOSITE;
        if (f == 0) return TG_ERR_NO_FACTOR;
    }
    *p = f;
    *q = pq / f;
    return TG_OK;
}

int tg_factorize_pq(uint64_t pq, uint64_t *p, uint64_t *q) {
    return tg_factorize_pq_path(pq, p, q, TG_MUL_NATIVE);
}
