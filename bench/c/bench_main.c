/*
 * bench_main.c - C-level throughput of every backend, no FFI in the way.
 * Run by `zig build bench [-- --quick] [--factorize]` (--factorize: only
 * the tg_factorize_pq timing).
 *
 * For each backend this CPU has, each mode and each size: MB/s (10^6 B/s)
 * of the one-shot call, and cycles/byte where a cycle counter exists (the
 * x86 TSC counts reference cycles, not core cycles: compare backends with
 * it, not CPUs). Best of several timed rounds, so noise only makes numbers
 * worse, never better.
 */
#define _POSIX_C_SOURCE 199309L
#include "tgcrypto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#  include <x86intrin.h>
#  define HAVE_TSC 1
#endif

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum { IGE_ENC, IGE_DEC, CBC_ENC, CBC_DEC, CTR, MODES };
static const char *const mode_names[MODES] = {"ige-enc", "ige-dec", "cbc-enc", "cbc-dec", "ctr"};

static void run(int mode, uint8_t *buf, uint32_t n, const uint8_t key[32], uint8_t iv[32], uint8_t st[1]) {
    switch (mode) {
    case IGE_ENC: tg_ige256_encrypt(buf, buf, n, key, iv); break;
    case IGE_DEC: tg_ige256_decrypt(buf, buf, n, key, iv); break;
    case CBC_ENC: tg_cbc256_encrypt(buf, buf, n, key, iv); break;
    case CBC_DEC: tg_cbc256_decrypt(buf, buf, n, key, iv); break;
    default:      tg_ctr256(buf, buf, n, key, iv, st); break;
    }
}

static int compare_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* tg_factorize_pq on Telegram-sized pq (two random primes of 31-32 bits):
 * the distribution of µs per call (the rho step count varies with the
 * factors: about sqrt(p) Montgomery steps for the smaller prime p). */
static void bench_factorize(int quick) {
    enum { COUNT = 1000 };
    static uint64_t pqs[COUNT];
    uint64_t s = 0x7e1e6a3a11ULL, p, q;
    for (int i = 0; i < COUNT; i++) {
        uint64_t f[2];
        for (int j = 0; j < 2; j++) {
            do { /* xorshift64: any odd 31/32-bit candidate; a prime is not composite */
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                f[j] = (s >> 32) | 0x40000001ULL;
            } while (tg_factorize_pq(f[j], &p, &q) != TG_ERR_NOT_COMPOSITE);
        }
        pqs[i] = f[0] * f[1];
    }
    const int n = quick ? COUNT / 10 : COUNT;
    static double times[COUNT];
    double total = 0;
    uint64_t check = 0;
    for (int i = 0; i < n; i++) {
        const double t0 = now_seconds();
        const int rc = tg_factorize_pq(pqs[i], &p, &q);
        times[i] = now_seconds() - t0;
        total += times[i];
        check += rc == TG_OK ? p : 0;
    }
    qsort(times, (size_t)n, sizeof times[0], compare_double);
    printf("factorize_pq over %d random products of two 31/32-bit primes, us per call: mean %.1f, median %.1f, "
           "p90 %.1f, p99 %.1f, max %.1f%s\n",
           n, total / n * 1e6, times[n / 2] * 1e6, times[n * 9 / 10] * 1e6, times[n * 99 / 100] * 1e6, times[n - 1] * 1e6,
           check ? "" : " (FAILED)");
}

int main(int argc, char **argv) {
    int quick = 0, only_factorize = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        if (strcmp(argv[i], "--factorize") == 0) only_factorize = 1;
    }
    if (only_factorize) {
        bench_factorize(quick);
        return 0;
    }
    static const uint32_t sizes[] = {16, 256, 1024, 16384, 1 << 20};
    const int nsizes = sizeof sizes / sizeof sizes[0];
    uint8_t *buf = calloc(1, 1 << 20);
    uint8_t key[32], iv[32], st[1] = {0};
    for (int i = 0; i < 32; i++) key[i] = (uint8_t)(i * 7 + 1), iv[i] = (uint8_t)(i * 13 + 5);

    printf("tgcrypto %s C-level one-shot throughput, MB/s", tg_version());
#ifdef HAVE_TSC
    printf(" (TSC cycles/byte)");
#endif
    printf("\n%-8s %-8s", "backend", "mode");
    for (int s = 0; s < nsizes; s++) printf(" %17u", sizes[s]);
    printf("\n");

    for (uint32_t b = 0; b < tg_backend_count(); b++) {
        if (!tg_backend_available(b)) continue;
        tg_set_backend(tg_backend_name(b));
        for (int m = 0; m < MODES; m++) {
            printf("%-8s %-8s", tg_backend_name(b), mode_names[m]);
            for (int s = 0; s < nsizes; s++) {
                const uint32_t n = sizes[s];
                /* ~20 ms (quick: 4 ms) per round, best of 5 rounds */
                const double round_bytes = (quick ? 4e6 : 2e7) * (strcmp(tg_backend_name(b), "soft") ? 1.0 : 0.05);
                long iters = (long)(round_bytes / n) + 1;
                double best = 1e30, best_cycles = 0;
                for (int r = 0; r < 5; r++) {
#ifdef HAVE_TSC
                    unsigned long long c0 = __rdtsc();
#endif
                    double t0 = now_seconds();
                    for (long i = 0; i < iters; i++) run(m, buf, n, key, iv, st);
                    double t = now_seconds() - t0;
#ifdef HAVE_TSC
                    unsigned long long c = __rdtsc() - c0;
#else
                    double c = 0;
#endif
                    if (t < best) best = t, best_cycles = (double)c;
                }
                const double bytes = (double)n * (double)iters;
                printf(" %9.0f", bytes / best / 1e6);
#ifdef HAVE_TSC
                printf(" (%5.2f)", best_cycles / bytes);
#else
                printf("        ");
#endif
                fflush(stdout);
            }
            printf("\n");
        }
    }
    free(buf);
    bench_factorize(quick);
    return 0;
}
