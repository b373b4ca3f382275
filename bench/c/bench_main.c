/*
 * bench_main.c - C-level throughput of every backend, no FFI in the way.
 * Run by `zig build bench [-- --quick] [-- --mtproto] [-- --factorize]`. Then
 * SHA-256 / SHA-1 per hash engine, the MTProto message layer (--mtproto: only
 * that) and tg_factorize_pq (--factorize: only that).
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

/* ---- MTProto message layer next to its parts ---- */

enum { MT_SHA, MT_IGE_ENC, MT_IGE_DEC, MT_ENC, MT_DEC, MT_OPS };
static const char *const mt_names[MT_OPS] = {"sha256", "ige-enc", "ige-dec", "mt-enc", "mt-dec"};

typedef struct {
    tg_auth_key *key;
    uint8_t     *buf, *packet, *out, padding[16], aes_key[32], iv[32];
    uint32_t     n; /* bytes hashed and encrypted: plaintext + 16 bytes of padding */
} mt_state;

static void mt_run(int op, mt_state *m) {
    uint8_t digest[32];
    switch (op) {
    case MT_SHA:     tg_sha256(digest, m->buf, m->n); break;
    case MT_IGE_ENC: tg_ige256_encrypt(m->buf, m->buf, m->n, m->aes_key, m->iv); break;
    case MT_IGE_DEC: tg_ige256_decrypt(m->buf, m->buf, m->n, m->aes_key, m->iv); break;
    case MT_ENC:
        tg_mtproto_encrypt(m->key, 0, m->packet, m->buf, 32, m->buf + 32, m->n - 48, m->padding, 16);
        break;
    default:
        if (tg_mtproto_decrypt(m->key, 8, m->out, m->packet, m->n + 24) < 0) abort();
        break;
    }
}

/* MB/s of the message layer at each size, next to SHA-256 alone and IGE
 * alone over the same bytes, and the targets: encrypt within 1.15x
 * of (SHA-256 + IGE-encrypt), decrypt within 1.2x of the slower of SHA-256
 * and IGE-decrypt. Sizes count plaintext + padding (the bytes hashed and
 * encrypted; the packet adds 24). */
static void mtproto_bench(int quick) {
    static const uint32_t sizes[] = {64, 1024, 16384, 512 * 1024};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    mt_state m;
    uint8_t auth_key[256];
    for (int i = 0; i < 256; i++) auth_key[i] = (uint8_t)(i * 31 + 7);
    for (int i = 0; i < 32; i++) m.aes_key[i] = (uint8_t)(i * 5 + 3), m.iv[i] = (uint8_t)(i * 11 + 1);
    memset(m.padding, 0x42, sizeof m.padding);
    m.key = tg_auth_key_new(auth_key);
    m.buf = calloc(1, 512 * 1024);
    m.packet = calloc(1, 512 * 1024 + 24);
    m.out = calloc(1, 512 * 1024);
    printf("\nMTProto 2.0 message layer, MB/s of plaintext+padding (hash engine: the backend's; portable under soft)\n%-8s %-8s",
           "backend", "op");
    for (int s = 0; s < NS; s++) printf(" %9u", sizes[s]);
    printf("\n");
    for (uint32_t b = 0; b < tg_backend_count(); b++) {
        if (!tg_backend_available(b)) continue;
        tg_set_backend(tg_backend_name(b));
        const int soft = strcmp(tg_backend_name(b), "soft") == 0;
        double secs[MT_OPS][NS];
        for (int op = 0; op < MT_OPS; op++) {
            printf("%-8s %-8s", tg_backend_name(b), mt_names[op]);
            for (int s = 0; s < NS; s++) {
                m.n = sizes[s];
                /* a valid message: header length field = data length */
                const uint32_t data_len = m.n - 48;
                for (int i = 0; i < 4; i++) m.buf[28 + i] = (uint8_t)(data_len >> (8 * i));
                tg_mtproto_encrypt(m.key, 8, m.packet, m.buf, 32, m.buf + 32, data_len, m.padding, 16);
                const double round_bytes = (quick ? 4e6 : 2e7) * (soft ? 0.05 : 1.0);
                const long iters = (long)(round_bytes / m.n) + 1;
                double best = 1e30;
                for (int r = 0; r < 5; r++) {
                    const double t0 = now_seconds();
                    for (long i = 0; i < iters; i++) mt_run(op, &m);
                    const double t = now_seconds() - t0;
                    if (t < best) best = t;
                }
                secs[op][s] = best / (double)iters;
                printf(" %9.0f", (double)m.n / secs[op][s] / 1e6);
                fflush(stdout);
                /* the IGE runs scrambled the header: restore a valid packet for mt-dec */
                for (int i = 0; i < 4; i++) m.buf[28 + i] = (uint8_t)(data_len >> (8 * i));
            }
            printf("\n");
        }
        printf("%-8s %-8s", tg_backend_name(b), "enc/sum");
        for (int s = 0; s < NS; s++) printf(" %8.2fx", secs[MT_ENC][s] / (secs[MT_SHA][s] + secs[MT_IGE_ENC][s]));
        printf("   (target <= 1.15x at 512 KiB)\n%-8s %-8s", tg_backend_name(b), "dec/max");
        for (int s = 0; s < NS; s++) {
            const double slower = secs[MT_SHA][s] > secs[MT_IGE_DEC][s] ? secs[MT_SHA][s] : secs[MT_IGE_DEC][s];
            printf(" %8.2fx", secs[MT_DEC][s] / slower);
        }
        printf("   (target <= 1.2x at 512 KiB)\n");
    }
    tg_auth_key_free(m.key);
    free(m.buf), free(m.packet), free(m.out);
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
    int quick = 0, mtproto_only = 0, only_factorize = 0; /* --quick: shorter rounds; --mtproto / --factorize: only that */
    for (int i = 1; i < argc; i++) {
        quick |= strcmp(argv[i], "--quick") == 0;
        mtproto_only |= strcmp(argv[i], "--mtproto") == 0;
        only_factorize |= strcmp(argv[i], "--factorize") == 0;
    }
    if (mtproto_only) {
        mtproto_bench(quick);
        return 0;
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
    bench_hashes(quick, buf);
    free(buf);
    mtproto_bench(quick);
    bench_factorize(quick);
    return 0;
}
