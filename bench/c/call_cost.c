/*
 * The C-level cost of the calls bench/node_binding.ts times through the
 * bindings: a 16-byte tg_ige256_encrypt (key expansion, one block, wipe),
 * called through the shared library as an FFI would. Prints one JSON line:
 * {"ige256_encrypt_16_ns": N, "sha256_16_ns": N} (the fastest of 7 rounds).
 * Built and run by bench/run.sh: zig run ... -ltgcrypto.
 */
#include <stdio.h>
#include <time.h>

#include "tgcrypto.h"

/* The thread's CPU time, like bench/node_binding.ts: on a shared machine wall
 * time also counts the waits for a core. */
static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(void) {
    static uint8_t out[32], in[16], key[32], iv[32];
    const long calls = 2000000;
    double best_ige = 1e30, best_sha = 1e30;
    if (tg_init() != 0) return 1;
    for (int round = 0; round < 7; round++) {
        double t = now_ns();
        for (long i = 0; i < calls; i++) {
            in[0] = (uint8_t)i;
            tg_ige256_encrypt(out, in, 16, key, iv);
        }
        double ns = (now_ns() - t) / (double)calls;
        if (ns < best_ige) best_ige = ns;
        t = now_ns();
        for (long i = 0; i < calls; i++) {
            in[0] = (uint8_t)i;
            tg_sha256(out, in, 16);
        }
        ns = (now_ns() - t) / (double)calls;
        if (ns < best_sha) best_sha = ns;
    }
    printf("{\"backend\": \"%s\", \"ige256_encrypt_16_ns\": %.1f, \"sha256_16_ns\": %.1f, \"check\": %u}\n", tg_backend(),
           best_ige, best_sha, out[0]);
    return 0;
}
