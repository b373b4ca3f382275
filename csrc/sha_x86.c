/*
 * sha_x86.c - SHA-256 and SHA-1 compression with the x86 SHA extensions
 * (SHA256RNDS2/MSG1/MSG2, SHA1RNDS4/NEXTE/MSG1/MSG2), 128-bit registers.
 *
 * The instruction sets are enabled per function (not for the whole build);
 * dispatch.c selects this engine only when CPUID leaf 7 reports SHA and
 * leaf 1 SSE4.1 + SSSE3.
 *
 * Message schedule: four xmm registers hold W[4g..4g+3] of the last four
 * groups g and each new group overwrites the oldest (ring index g % 4). The
 * loops are fully unrolled so the ring and the chaining values stay in
 * registers (no copy of the message on the stack to wipe, with clang).
 */
#include "sha.h"

#if defined(TG_HAVE_X86_BACKENDS)

#include <immintrin.h>

#pragma clang attribute push(__attribute__((target("sha,sse4.1,ssse3"))), apply_to = function)

#if defined(__clang__)
#  define TG_UNROLL _Pragma("clang loop unroll(full)")
#else
#  define TG_UNROLL
#endif

static inline __m128i load(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }

/* FIPS 180-4 4.2.2 (same table as sha_portable.c, here 16-byte aligned). */
static const uint32_t K256[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* SHA256RNDS2 works on the state split as ABEF and CDGH (A in the high
 * dword); the message words are big-endian in memory. Lane comments list
 * dwords from low to high. */
static void sha256_blocks(uint32_t h[8], const uint8_t *data, size_t nblocks) {
    if (nblocks == 0) return;
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i abcd = _mm_loadu_si128((const __m128i *)(const void *)h);      /* dwords A B C D */
    __m128i efgh = _mm_loadu_si128((const __m128i *)(const void *)(h + 4)); /* E F G H */
    abcd = _mm_shuffle_epi32(abcd, 0xb1);             /* B A D C */
    efgh = _mm_shuffle_epi32(efgh, 0x1b);             /* H G F E */
    __m128i abef = _mm_alignr_epi8(abcd, efgh, 8);    /* F E B A */
    __m128i cdgh = _mm_blend_epi16(efgh, abcd, 0xf0); /* H G D C */

    for (; nblocks > 0; nblocks--, data += 64) {
        const __m128i abef0 = abef, cdgh0 = cdgh;
        __m128i m[4];
        TG_UNROLL
        for (int g = 0; g < 16; g++) {
            if (g < 4) {
                m[g] = _mm_shuffle_epi8(load(data + 16 * g), bswap);
            } else { /* W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16], four at a time */
                __m128i t = _mm_sha256msg1_epu32(m[g % 4], m[(g + 1) % 4]);
                t = _mm_add_epi32(t, _mm_alignr_epi8(m[(g + 3) % 4], m[(g + 2) % 4], 4));
                m[g % 4] = _mm_sha256msg2_epu32(t, m[(g + 3) % 4]);
            }
            __m128i wk = _mm_add_epi32(m[g % 4], _mm_load_si128((const __m128i *)(const void *)(K256 + 4 * g)));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk); /* rounds 4g, 4g+1 */
            wk = _mm_shuffle_epi32(wk, 0x0e);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, wk); /* rounds 4g+2, 4g+3 */
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }

    const __m128i abef_r = _mm_shuffle_epi32(abef, 0x1b); /* A B E F */
    const __m128i ghcd = _mm_shuffle_epi32(cdgh, 0xb1);   /* G H C D */
    abcd = _mm_blend_epi16(abef_r, ghcd, 0xf0);           /* A B C D */
    efgh = _mm_alignr_epi8(ghcd, abef_r, 8);              /* E F G H */
    _mm_storeu_si128((__m128i *)(void *)h, abcd);
    _mm_storeu_si128((__m128i *)(void *)(h + 4), efgh);
}

/* SHA1RNDS4 keeps A in the high dword of ABCD and takes E + W[t] there too;
 * SHA1NEXTE derives the next E (rotl30 of the old A) and adds the words. */
#define SHA1_GROUP(g, func)                                                                   \
    do {                                                                                      \
        if ((g) < 4) {                                                                        \
            m[g] = _mm_shuffle_epi8(load(data + 16 * (g)), bswap);                            \
        } else { /* W[t] = rotl1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]) */                      \
            __m128i t = _mm_sha1msg1_epu32(m[(g) % 4], m[((g) + 1) % 4]);                     \
            t = _mm_xor_si128(t, m[((g) + 2) % 4]);                                           \
            m[(g) % 4] = _mm_sha1msg2_epu32(t, m[((g) + 3) % 4]);                             \
        }                                                                                     \
        const __m128i e_w = (g) == 0 ? _mm_add_epi32(e0, m[0]) : _mm_sha1nexte_epu32(prev, m[(g) % 4]); \
        prev = abcd;                                                                          \
        abcd = _mm_sha1rnds4_epu32(abcd, e_w, func);                                          \
    } while (0)

static void sha1_blocks(uint32_t h[5], const uint8_t *data, size_t nblocks) {
    if (nblocks == 0) return;
    const __m128i bswap = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL); /* W0 to the high dword */
    __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)h), 0x1b);
    __m128i e0 = _mm_set_epi32((int)h[4], 0, 0, 0);

    for (; nblocks > 0; nblocks--, data += 64) {
        const __m128i abcd0 = abcd, e00 = e0;
        __m128i m[4], prev = abcd;
        TG_UNROLL for (int g = 0; g < 5; g++) SHA1_GROUP(g, 0);   /* rounds 0..19: Ch */
        TG_UNROLL for (int g = 5; g < 10; g++) SHA1_GROUP(g, 1);  /* 20..39: Parity */
        TG_UNROLL for (int g = 10; g < 15; g++) SHA1_GROUP(g, 2); /* 40..59: Maj */
        TG_UNROLL for (int g = 15; g < 20; g++) SHA1_GROUP(g, 3); /* 60..79: Parity */
        e0 = _mm_sha1nexte_epu32(prev, e00); /* E after round 79, plus the saved E */
        abcd = _mm_add_epi32(abcd, abcd0);
    }

    _mm_storeu_si128((__m128i *)(void *)h, _mm_shuffle_epi32(abcd, 0x1b));
    h[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

#pragma clang attribute pop

const tg_hash_impl tg_hash_shani = {
    .name = "sha-ni",
    .cpu_needs = TG_CPU_SHANI,
    .sha256_blocks = sha256_blocks,
    .sha1_blocks = sha1_blocks,
};

#endif /* TG_HAVE_X86_BACKENDS */
