/*
 * mtproto_x86.c - IGE decryption (AES-NI) fused with SHA-256 of the
 * plaintext (SHA extensions), for the MTProto message layer.
 *
 * Each step decrypts 4 blocks (a serial AES chain: every block needs the
 * previous plaintext) and runs the 64 SHA-256 rounds of those 64 bytes
 * (a second serial chain, on other execution units). The hash of step i
 * and the decryption of step i + 1 are independent, so the core runs them
 * at the same time; the plaintext goes from the AES registers to the hash
 * without a reload. Valid for every backend that uses the AES-NI key
 * schedule (aesni, vaes256, vaes512: tg_aesni_expand_key).
 */
#include "mtproto_fused.h"

#if defined(TG_HAVE_X86_BACKENDS)

#include <immintrin.h>

#pragma clang attribute push(__attribute__((target("aes,sha,sse4.1,ssse3"))), apply_to = function)

static inline __m128i load(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }
static inline void store(uint8_t *p, __m128i v) { _mm_storeu_si128((__m128i *)(void *)p, v); }

/* FIPS 180-4 4.2.2 */
static const uint32_t K[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* Four rounds: W (four message words) + K, two SHA256RNDS2. */
#define ROUNDS4(w, g)                                                                   \
    do {                                                                                \
        __m128i wk = _mm_add_epi32((w), _mm_load_si128((const __m128i *)(const void *)(K + 4 * (g)))); \
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);                                   \
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0e));          \
    } while (0)

/* W[t..t+3] from the four previous groups (a, b, c, d oldest first),
 * written over a. */
#define SCHEDULE(a, b, c, d) \
    (a) = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32((a), (b)), _mm_alignr_epi8((d), (c), 4)), (d))

/* Rounds 16q .. 16q+15 of one block whose message words are w (q = 0..3,
 * a constant after inlining). */
static inline __attribute__((always_inline)) void sha_quarter(int q, __m128i w[4], __m128i *abef_p, __m128i *cdgh_p) {
    __m128i abef = *abef_p, cdgh = *cdgh_p;
    const int g = 4 * q;
    if (q > 0) SCHEDULE(w[0], w[1], w[2], w[3]);
    ROUNDS4(w[0], g);
    if (q > 0) SCHEDULE(w[1], w[2], w[3], w[0]);
    ROUNDS4(w[1], g + 1);
    if (q > 0) SCHEDULE(w[2], w[3], w[0], w[1]);
    ROUNDS4(w[2], g + 2);
    if (q > 0) SCHEDULE(w[3], w[0], w[1], w[2]);
    ROUNDS4(w[3], g + 3);
    *abef_p = abef, *cdgh_p = cdgh;
}

/* x = D(y ^ x_prev) ^ y_prev; round keys read from the schedule (memory
 * operands), so none is copied to the stack. */
static inline __attribute__((always_inline)) __m128i ige_block(const uint8_t *kp, __m128i y, __m128i x_prev,
                                                               __m128i y_prev) {
    __m128i st = _mm_xor_si128(_mm_xor_si128(y, x_prev), load(kp));
    for (int r = 1; r < 14; r++) st = _mm_aesdec_si128(st, load(kp + 16 * r));
    return _mm_aesdeclast_si128(st, _mm_xor_si128(load(kp + 16 * 14), y_prev));
}

/* Software-pipelined: while the 4 blocks of group i are decrypted, the 64
 * rounds of group i - 1 are issued between them, a quarter per block, so
 * both chains are always in the scheduler together. */
static void ige_dec_sha256(const tg_sched *s, uint8_t iv[32], uint8_t *out, const uint8_t *in, size_t nblocks,
                           uint32_t h[8]) {
    if (nblocks == 0) return;
    const uint8_t *kp = s->bytes + 240; /* aesdec order */
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);

    /* SHA256RNDS2 state: ABEF and CDGH */
    __m128i abcd = _mm_shuffle_epi32(load((const uint8_t *)h), 0xb1);
    __m128i efgh = _mm_shuffle_epi32(load((const uint8_t *)(h + 4)), 0x1b);
    __m128i abef = _mm_alignr_epi8(abcd, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, abcd, 0xf0);

    __m128i y_prev = load(iv), x_prev = load(iv + 16), w[4];
    for (int j = 0; j < 4; j++) { /* group 0: decrypt only */
        const __m128i y = load(in + 16 * j);
        const __m128i x = ige_block(kp, y, x_prev, y_prev);
        store(out + 16 * j, x);
        w[j] = _mm_shuffle_epi8(x, bswap);
        y_prev = y, x_prev = x;
    }
    for (size_t i = 4; i < nblocks; i += 4) {
        const __m128i abef0 = abef, cdgh0 = cdgh;
        __m128i next[4];
        /* unrolled by hand: q must be a constant in sha_quarter */
#define STEP(j)                                                             \
        do {                                                                \
            const __m128i y = load(in + 16 * (i + (j)));                    \
            const __m128i x = ige_block(kp, y, x_prev, y_prev);             \
            store(out + 16 * (i + (j)), x);                                 \
            next[j] = _mm_shuffle_epi8(x, bswap);                           \
            y_prev = y, x_prev = x;                                         \
            sha_quarter(j, w, &abef, &cdgh); /* group i/4 - 1 */            \
        } while (0)
        STEP(0);
        STEP(1);
        STEP(2);
        STEP(3);
#undef STEP
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
        w[0] = next[0], w[1] = next[1], w[2] = next[2], w[3] = next[3];
    }
    { /* the last group */
        const __m128i abef0 = abef, cdgh0 = cdgh;
        sha_quarter(0, w, &abef, &cdgh);
        sha_quarter(1, w, &abef, &cdgh);
        sha_quarter(2, w, &abef, &cdgh);
        sha_quarter(3, w, &abef, &cdgh);
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }
    store(iv, y_prev);
    store(iv + 16, x_prev);

    const __m128i feba = _mm_shuffle_epi32(abef, 0x1b);
    const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1);
    store((uint8_t *)h, _mm_blend_epi16(feba, dchg, 0xf0));
    store((uint8_t *)(h + 4), _mm_alignr_epi8(dchg, feba, 8));
}

#pragma clang attribute pop

tg_ige_dec_sha256_fn tg_fused_ige_dec_sha256(const tg_aes_backend *be, const tg_hash_impl *hash) {
    const int aesni_schedule = be == &tg_backend_aesni || be == &tg_backend_vaes256 || be == &tg_backend_vaes512;
    return aesni_schedule && hash == &tg_hash_shani ? ige_dec_sha256 : NULL;
}

#endif /* TG_HAVE_X86_BACKENDS */
