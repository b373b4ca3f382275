/*
 * sha_arm.c - SHA-256 and SHA-1 compression with the ARMv8 SHA1/SHA2
 * instructions (SHA256H/H2/SU0/SU1, SHA1C/P/M/H/SU0/SU1), AArch64.
 *
 * The build targets a baseline CPU, so the instructions are enabled per
 * function (TG_SHA) and dispatch.c selects this engine only when the OS
 * reports both SHA1 and SHA2 (HWCAP, sysctl, IsProcessorFeaturePresent).
 *
 * Message schedule: four vectors hold W[4g..4g+3] of the last four groups g,
 * each new group overwriting the oldest (ring index g % 4); the loops are
 * fully unrolled so the ring stays in registers (with clang).
 */
#include "sha.h"

#if defined(TG_HAVE_ARM_BACKENDS)

#include <arm_neon.h>

#if defined(__clang__)
#  define TG_SHA   __attribute__((target("sha2")))
#  define TG_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#  define TG_SHA   __attribute__((target("+crypto")))
#  define TG_UNROLL _Pragma("GCC unroll 20")
#else /* MSVC: the intrinsics need no target attribute */
#  define TG_SHA
#  define TG_UNROLL
#endif

/* FIPS 180-4 4.2.2 (same table as sha_portable.c). */
static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* 16 message bytes as four big-endian words. */
TG_SHA static inline uint32x4_t load_be(const uint8_t *p) { return vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p))); }

TG_SHA static void sha256_blocks(uint32_t h[8], const uint8_t *data, size_t nblocks) {
    uint32x4_t abcd = vld1q_u32(h), efgh = vld1q_u32(h + 4);
    for (; nblocks > 0; nblocks--, data += 64) {
        const uint32x4_t abcd0 = abcd, efgh0 = efgh;
        uint32x4_t m[4];
        TG_UNROLL
        for (int g = 0; g < 16; g++) {
            if (g < 4) {
                m[g] = load_be(data + 16 * g);
            } else { /* W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16], four at a time */
                m[g % 4] = vsha256su1q_u32(vsha256su0q_u32(m[g % 4], m[(g + 1) % 4]), m[(g + 2) % 4], m[(g + 3) % 4]);
            }
            const uint32x4_t wk = vaddq_u32(m[g % 4], vld1q_u32(K256 + 4 * g));
            const uint32x4_t abcd_in = abcd;
            abcd = vsha256hq_u32(abcd, efgh, wk);
            efgh = vsha256h2q_u32(efgh, abcd_in, wk);
        }
        abcd = vaddq_u32(abcd, abcd0);
        efgh = vaddq_u32(efgh, efgh0);
    }
    vst1q_u32(h, abcd);
    vst1q_u32(h + 4, efgh);
}

/* One group of four rounds; `ROUNDS` is vsha1cq_u32 (Ch), vsha1pq_u32
 * (Parity) or vsha1mq_u32 (Maj), k the round constant. */
#define SHA1_GROUP(g, ROUNDS, k)                                                                    \
    do {                                                                                            \
        if ((g) < 4) {                                                                              \
            m[g] = load_be(data + 16 * (g));                                                        \
        } else { /* W[t] = rotl1(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16]) */                            \
            m[(g) % 4] = vsha1su1q_u32(vsha1su0q_u32(m[(g) % 4], m[((g) + 1) % 4], m[((g) + 2) % 4]), \
                                       m[((g) + 3) % 4]);                                           \
        }                                                                                           \
        const uint32x4_t wk = vaddq_u32(m[(g) % 4], vdupq_n_u32(k));                                \
        const uint32_t e_next = vsha1h_u32(vgetq_lane_u32(abcd, 0)); /* rotl30(A) */                \
        abcd = ROUNDS(abcd, e, wk);                                                                 \
        e = e_next;                                                                                 \
    } while (0)

TG_SHA static void sha1_blocks(uint32_t h[5], const uint8_t *data, size_t nblocks) {
    uint32x4_t abcd = vld1q_u32(h);
    uint32_t e = h[4];
    for (; nblocks > 0; nblocks--, data += 64) {
        const uint32x4_t abcd0 = abcd;
        const uint32_t e0 = e;
        uint32x4_t m[4];
        TG_UNROLL for (int g = 0; g < 5; g++) SHA1_GROUP(g, vsha1cq_u32, 0x5a827999);
        TG_UNROLL for (int g = 5; g < 10; g++) SHA1_GROUP(g, vsha1pq_u32, 0x6ed9eba1);
        TG_UNROLL for (int g = 10; g < 15; g++) SHA1_GROUP(g, vsha1mq_u32, 0x8f1bbcdc);
        TG_UNROLL for (int g = 15; g < 20; g++) SHA1_GROUP(g, vsha1pq_u32, 0xca62c1d6);
        abcd = vaddq_u32(abcd, abcd0);
        e += e0;
    }
    vst1q_u32(h, abcd);
    h[4] = e;
}

const tg_hash_impl tg_hash_armsha = {
    .name = "armv8-sha",
    .cpu_needs = TG_CPU_ARMSHA,
    .sha256_blocks = sha256_blocks,
    .sha1_blocks = sha1_blocks,
};

#endif /* TG_HAVE_ARM_BACKENDS */
