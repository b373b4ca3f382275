/*
 * check.h - what every C test file shares: the pass/fail counters that
 * test_main.c prints at the end, CHECK, and a seeded splitmix64 stream per
 * file (each file its own seed, so adding cases to one file does not change
 * the data another file draws).
 */
#ifndef TG_TEST_CHECK_H
#define TG_TEST_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Defined in test_main.c. fail_fast (TG_TEST_FAIL_FAST=1 in the
 * environment, used by the mutation runner): exit at the first failure. */
extern unsigned passed, failed;
extern int fail_fast;
void fail_fast_exit(void);

#define CHECK(cond, ...)                                     \
    do {                                                     \
        if (cond) {                                          \
            passed++;                                        \
        } else {                                             \
            failed++;                                        \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);      \
            printf(__VA_ARGS__);                             \
            printf("\n");                                    \
            if (fail_fast) fail_fast_exit();                 \
        }                                                    \
    } while (0)

static inline uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* This file's stream: rng_state, rng(), rng_fill(p, n), rng_below(n)
 * (a file need not use all of them). */
#define TEST_RNG(seed)                                                                         \
    static uint64_t rng_state = (seed);                                                        \
    __attribute__((unused)) static uint64_t rng(void) { return splitmix64(&rng_state); }       \
    __attribute__((unused)) static void rng_fill(uint8_t *p, size_t n) {                       \
        for (size_t i = 0; i < n; i++) p[i] = (uint8_t)rng();                                  \
    }                                                                                          \
    __attribute__((unused)) static uint32_t rng_below(uint32_t n) { return (uint32_t)(rng() % n); }

/* The other test files' entry points, called by test_main.c. */
void sha_tests(const char *vectors_dir);                         /* test_sha.c: every hash engine */
void test_mtproto(const char *vectors_dir, const char *backend); /* test_mtproto.c: the backend in use */
void test_factorize(const char *vectors_dir);                    /* test_factorize.c */
void test_arguments(const char *backend);                        /* test_args.c: NULL pointers, error order */
void test_argument_codes(void);                                  /* test_args.c: lengths, overlaps, zero lengths */
void test_backend_choice(const char *default_backend);           /* test_dispatch.c: default, names, hidden CPU features */
void test_init_error(int err);                                   /* test_dispatch.c: every call refuses after tg_init failed */
void test_wipes(const char *backend);                            /* test_wipes.c: the promised wipes (TG_TEST_HOOKS) */
void test_wipes_summary(void);                                   /* test_wipes.c: no region unwiped in the whole run */

#endif
