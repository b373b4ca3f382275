/*
 * fuzz_common.h - what every libFuzzer harness under test/fuzz/ shares: a
 * reader over the fuzz input, a failure macro that aborts (so libFuzzer
 * saves the input), and buffers with canaries around them.
 *
 * Harnesses are built with clang -fsanitize=fuzzer,address,undefined by
 * test/fuzz/run.sh; ASan catches any out-of-bounds access to heap buffers,
 * the canaries catch writes into slack bytes that ASan cannot see (bytes we
 * own but the library must not touch).
 */
#ifndef TG_FUZZ_COMMON_H
#define TG_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond, ...)                                           \
    do {                                                                \
        if (!(cond)) {                                                  \
            fprintf(stderr, "PROPERTY FAILED %s:%d: %s: ", __FILE__,    \
                    __LINE__, #cond);                                   \
            fprintf(stderr, __VA_ARGS__);                               \
            fprintf(stderr, "\n");                                      \
            abort();                                                    \
        }                                                               \
    } while (0)

/* Consumes the fuzz input front to back; past the end it yields zeros, so
 * every input is a valid (if short) test case. */
typedef struct {
    const uint8_t *p;
    size_t         n;
} fuzz_input;

static inline uint8_t fz_u8(fuzz_input *in) {
    if (in->n == 0) return 0;
    in->n--;
    return *in->p++;
}
static inline uint32_t fz_u32(fuzz_input *in) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)fz_u8(in) << (8 * i);
    return v;
}
static inline uint64_t fz_u64(fuzz_input *in) {
    return (uint64_t)fz_u32(in) | (uint64_t)fz_u32(in) << 32;
}
static inline void fz_bytes(fuzz_input *in, uint8_t *out, size_t n) {
    size_t k = n < in->n ? n : in->n;
    memcpy(out, in->p, k);
    memset(out + k, 0, n - k);
    in->p += k, in->n -= k;
}
/* Integer in [0, bound) (bound > 0). */
static inline uint32_t fz_below(fuzz_input *in, uint32_t bound) {
    return fz_u32(in) % bound;
}

/* A heap region with `lead` canary bytes before the user's `len` bytes and
 * none after (ASan's redzone follows malloc's block directly), so reads
 * or writes past the end trip ASan and writes before the start trip the
 * canary. */
#define CANARY 0xa5
typedef struct {
    uint8_t *base;
    uint8_t *data;
    size_t   lead, len;
} guarded;

static inline guarded guarded_new(size_t len, size_t lead) {
    guarded g;
    g.lead = lead;
    g.len = len;
    g.base = malloc(lead + len != 0 ? lead + len : 1); /* malloc(0) may return NULL */
    if (g.base == NULL) abort();
    memset(g.base, CANARY, lead);
    g.data = g.base + lead;
    return g;
}
static inline int guarded_intact(const guarded *g) {
    for (size_t i = 0; i < g->lead; i++)
        if (g->base[i] != CANARY) return 0;
    return 1;
}
static inline void guarded_free(guarded *g) {
    free(g->base);
    g->base = g->data = NULL;
}

#endif /* TG_FUZZ_COMMON_H */
