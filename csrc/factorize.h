/*
 * factorize.h - the integer arithmetic under tg_factorize_pq, for the C
 * tests: every function takes the multiply path to use, so both the
 * compiler's 128-bit product and the portable 32-bit-halves product are
 * checked on every platform, whichever one the library itself uses.
 * Internal (hidden in the shared library).
 */
#ifndef TG_FACTORIZE_H
#define TG_FACTORIZE_H

#include <stdint.h>

enum {
    TG_MUL_NATIVE   = 0, /* unsigned __int128 where the compiler has it, else the portable path */
    TG_MUL_PORTABLE = 1, /* 64x64->128 from four 32x32->64 products */
};

/* 1 if TG_MUL_NATIVE really is a different (compiler 128-bit) path. */
int tg_mul_native_is_int128(void);

/* The full 128-bit product a * b as hi:lo. */
void tg_mul_64x64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo, int path);

/* a * b mod m, for odd m > 1 (the Montgomery arithmetic of the factorizer). */
uint64_t tg_mulmod_odd(uint64_t a, uint64_t b, uint64_t m, int path);

/* Deterministic Miller-Rabin for every 64-bit n: 1 if prime. */
int tg_is_prime_u64(uint64_t n, int path);

/* tg_factorize_pq on the given multiply path. */
int tg_factorize_pq_path(uint64_t pq, uint64_t *p, uint64_t *q, int path);

#if defined(TG_TEST_HOOKS)
/* Test builds only: attempt `attempt` (0..RHO_ATTEMPTS-1) of the rho search
 * on an odd composite n alone, as find_factor runs it: a factor 1 < d < n,
 * or 0 when these walk constants fail. */
uint64_t tg_rho_attempt(uint64_t n, unsigned attempt, int path);
/* The number of attempts find_factor makes (RHO_ATTEMPTS unless a test
 * lowers it to reach the TG_ERR_NO_FACTOR paths). */
extern unsigned tg_test_rho_attempts;
/* floor(sqrt(n)), as smallest_factor uses it to find squares. */
uint64_t tg_isqrt_u64(uint64_t n);
#endif

#endif /* TG_FACTORIZE_H */
