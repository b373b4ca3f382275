/*
 * bench_main.c - C-level throughput of every backend, no FFI in the way.
 * Run by `zig build bench [-- --quick]`. Then SHA-256 / SHA-1 per hash engine.
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

/* SHA-256 and SHA-1 one-shots, MB/s per hash engine. The engine follows the
 * AES backend (the hardware one, or "portable" under "soft"), so each engine
 * is reached by selecting a backend that uses it. */
static void bench_hashes(int quick, uint8_t *buf) {
    static const uint32_t sizes[] = {64, 1024, 16384, 512 * 1024};
    const int nsizes = sizeof sizes / sizeof sizes[0];
    const char *done[8] = {0};
    int ndone = 0;
    printf("\nSHA one-shot throughput, MB/s\n%-10s %-8s", "engine", "hash");
    for (int s = 0; s < nsizes; s++) printf(" %9u", sizes[s]);
    printf("\n");
    for (uint32_t b = 0; b < tg_backend_count(); b++) {
        if (!tg_backend_available(b) || tg_set_backend(tg_backend_name(b)) != TG_OK) continue;
        const char *engine = tg_hash_engine();
        int seen = 0;
        for (int i = 0; i < ndone; i++) seen |= strcmp(done[i], engine) == 0;
        if (seen || ndone == 8) continue;
        done[ndone++] = engine;
        for (int h = 0; h < 2; h++) {
            printf("%-10s %-8s", engine, h ? "sha1" : "sha256");
            for (int s = 0; s < nsizes; s++) {
                const uint32_t n = sizes[s];
                long iters = (long)((quick ? 2e6 : 1e7) / n) + 1; /* short rounds, best of 5 */
                double best = 1e30;
                uint8_t digest[32];
                for (int r = 0; r < 5; r++) {
                    double t0 = now_seconds();
                    for (long i = 0; i < iters; i++) {
                        if (h) tg_sha1(digest, buf, n);
                        else tg_sha256(digest, buf, n);
                        buf[i & 63] ^= digest[0]; /* a dependency, so no call can be skipped */
                    }
                    double t = now_seconds() - t0;
                    if (t < best) best = t;
                }
                printf(" %9.0f", (double)n * (double)iters / best / 1e6);
                fflush(stdout);
            }
            printf("\n");
        }
    }
}

int main(int argc, char **argv) {
    const int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
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
    bench_hashes(quick, buf);
    free(buf);
    return 0;
}
