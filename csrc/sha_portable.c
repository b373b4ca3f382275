/*
 * sha_portable.c - SHA-256 and SHA-1 compression functions in plain C
 * (FIPS 180-4, sections 6.2.2 and 6.1.2).
 *
 * Only additions, rotations and Boolean functions on the data: no table
 * look-up or branch depends on it, so the code is constant-time as written.
 */
#include "sha.h"

/* Full unrolling turns the ring indices into constants and the 64/80-round
 * loops into straight code (1.3x faster for SHA-256, 1.8x for SHA-1 on Zen 4). */
#if defined(__clang__)
#  define TG_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#  define TG_UNROLL _Pragma("GCC unroll 80")
#else
#  define TG_UNROLL
#endif

static inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
static inline uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
static inline uint32_t load32_be(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* FIPS 180-4 4.2.2: the first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes. Shared by every engine (sha.h); 16-byte
 * aligned for the x86 engine's aligned loads. */
#if defined(_MSC_VER)
__declspec(align(16))
#else
__attribute__((aligned(16)))
#endif
const uint32_t tg_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static void sha256_blocks(uint32_t h[8], const uint8_t *data, size_t nblocks) {
    uint32_t w[16]; /* message schedule, a 16-word ring */
    TG_TEST_SECRET(w, sizeof w);
    for (; nblocks > 0; nblocks--, data += 64) {
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
        TG_UNROLL
        for (int t = 0; t < 64; t++) {
            uint32_t wt;
            if (t < 16) {
                wt = w[t] = load32_be(data + 4 * t);
            } else {
                const uint32_t w15 = w[(t - 15) & 15], w2 = w[(t - 2) & 15];
                const uint32_t s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >> 3);
                const uint32_t s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >> 10);
                wt = w[t & 15] = w[t & 15] + s0 + w[(t - 7) & 15] + s1;
            }
            const uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + tg_sha256_k[t] + wt;
            const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
        }
        h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
    }
    tg_wipe(w, sizeof w);
    TG_TEST_CLEAN(w);
}

static void sha1_blocks(uint32_t h[5], const uint8_t *data, size_t nblocks) {
    uint32_t w[16];
    TG_TEST_SECRET(w, sizeof w);
    for (; nblocks > 0; nblocks--, data += 64) {
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
        TG_UNROLL
        for (int t = 0; t < 80; t++) {
            uint32_t wt;
            if (t < 16) {
                wt = w[t] = load32_be(data + 4 * t);
            } else {
                wt = w[t & 15] = rotl(w[(t - 3) & 15] ^ w[(t - 8) & 15] ^ w[(t - 14) & 15] ^ w[t & 15], 1);
            }
            uint32_t f, k;
            if (t < 20)      f = (b & c) | (~b & d), k = 0x5a827999;  /* Ch */
            else if (t < 40) f = b ^ c ^ d, k = 0x6ed9eba1;           /* Parity */
            else if (t < 60) f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc; /* Maj */
            else             f = b ^ c ^ d, k = 0xca62c1d6;
            const uint32_t tmp = rotl(a, 5) + f + e + k + wt;
            e = d, d = c, c = rotl(b, 30), b = a, a = tmp;
        }
        h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
    }
    tg_wipe(w, sizeof w);
    TG_TEST_CLEAN(w);
}

const tg_hash_impl tg_hash_portable = {
    .name = "portable",
    .cpu_needs = 0,
    .sha256_blocks = sha256_blocks,
    .sha1_blocks = sha1_blocks,
};
