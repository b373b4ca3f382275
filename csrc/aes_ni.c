/*
 * aes_ni.c - AES-256 with x86 AES-NI (128-bit registers).
 *
 * Serial modes (IGE, CBC-encrypt) are bound by the latency of 14 dependent
 * AES rounds per block. Every chaining XOR is folded into the first or last
 * round key, computed off the critical path, so the chain is exactly the 14
 * AES instructions. Parallel modes (CTR, CBC-decrypt) interleave 8 blocks to
 * fill the AES pipelines.
 *
 * The instruction sets are enabled per function (not for the whole build),
 * so the library still runs on CPUs without AES-NI: dispatch.c only calls
 * in here after CPUID said yes.
 */
#include "backend.h"

#if defined(TG_HAVE_X86_BACKENDS)

#include <immintrin.h>

#pragma clang attribute push(__attribute__((target("aes,sse4.1,ssse3"))), apply_to = function)

#define ENC_KEYS(s) ((s)->bytes)
#define DEC_KEYS(s) ((s)->bytes + 240)

static inline __m128i load(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }
static inline void store(uint8_t *p, __m128i v) { _mm_storeu_si128((__m128i *)(void *)p, v); }
static inline __m128i xor3(__m128i a, __m128i b, __m128i c) { return _mm_xor_si128(_mm_xor_si128(a, b), c); }

static inline void load_keys(__m128i k[15], const uint8_t *bytes) {
    for (int r = 0; r < 15; r++) k[r] = load(bytes + 16 * r);
}

/* ---- key expansion ---- */

/* w0 ^ (w0 << 32) ^ (w0 << 64) ^ (w0 << 96): the running XOR of FIPS-197's
 * w[i] = w[i-8] ^ temp across the four words of a round key. */
static inline __m128i prefix_xor(__m128i k) {
    k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
    return _mm_xor_si128(k, _mm_slli_si128(k, 8));
}

/* SubWord of the last word of `k`, optionally rotated, broadcast to all four
 * words and XORed with rcon. With identical columns ShiftRows is a no-op, so
 * AESENCLAST is exactly SubBytes + XOR; faster than AESKEYGENASSIST, which
 * is microcoded on Intel cores. */
static inline __m128i sub_last_word(__m128i k, int rotate, int rcon) {
    const __m128i rot = _mm_setr_epi8(13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12);
    const __m128i bcast = _mm_setr_epi8(12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15);
    return _mm_aesenclast_si128(_mm_shuffle_epi8(k, rotate ? rot : bcast), _mm_set1_epi32(rcon));
}

void tg_aesni_expand_key(tg_sched *s, const uint8_t key[32], int dir) {
    __m128i k[15];
    k[0] = load(key);
    k[1] = load(key + 16);
    int rcon = 1;
    for (int r = 2; r < 15; r += 2) {
        k[r] = _mm_xor_si128(prefix_xor(k[r - 2]), sub_last_word(k[r - 1], 1, rcon));
        rcon <<= 1;
        if (r + 1 < 15) k[r + 1] = _mm_xor_si128(prefix_xor(k[r - 1]), sub_last_word(k[r], 0, 0));
    }
    for (int r = 0; r < 15; r++) store(ENC_KEYS(s) + 16 * r, k[r]);
    if (dir == TG_DIR_DECRYPT) {
        /* Equivalent inverse cipher: reversed keys, InvMixColumns on the middle ones. */
        store(DEC_KEYS(s), k[14]);
        for (int r = 1; r < 14; r++) store(DEC_KEYS(s) + 16 * r, _mm_aesimc_si128(k[14 - r]));
        store(DEC_KEYS(s) + 16 * 14, k[0]);
    }
}

/* Rounds 1..13 of encryption/decryption; round 0 and the last are the caller's. */
static inline __m128i enc_middle(__m128i x, const __m128i k[15]) {
    for (int r = 1; r < 14; r++) x = _mm_aesenc_si128(x, k[r]);
    return x;
}
static inline __m128i dec_middle(__m128i x, const __m128i k[15]) {
    for (int r = 1; r < 14; r++) x = _mm_aesdec_si128(x, k[r]);
    return x;
}

/* ---- serial modes ---- */

/* y_i = E(x_i ^ y_{i-1}) ^ x_{i-1}. The last round emits y_i with key
 * k14 ^ x_{i-1}; in parallel it emits the next block's round-0 state
 * x_{i+1} ^ y_i ^ k0 with key k14 ^ x_{i-1} ^ x_{i+1} ^ k0. */
void tg_aesni_ige_encrypt(const tg_sched *s, uint8_t iv[32], uint8_t *out, const uint8_t *in, size_t nblocks) {
    if (nblocks == 0) return;
    __m128i k[15];
    load_keys(k, ENC_KEYS(s));
    __m128i y_prev = load(iv), x_prev = load(iv + 16);
    __m128i x = load(in);
    __m128i state = xor3(x, y_prev, k[0]);
    for (size_t i = 0;; i++) {
        state = enc_middle(state, k);
        const __m128i last_key = _mm_xor_si128(k[14], x_prev);
        const __m128i y = _mm_aesenclast_si128(state, last_key);
        if (i + 1 == nblocks) {
            store(out + 16 * i, y);
            store(iv, y);
            store(iv + 16, x);
            break;
        }
        const __m128i x_next = load(in + 16 * (i + 1));
        state = _mm_aesenclast_si128(state, xor3(last_key, x_next, k[0]));
        store(out + 16 * i, y);
        x_prev = x;
        x = x_next;
    }
}

/* x_i = D(y_i ^ x_{i-1}) ^ y_{i-1}, folded the same way with decryption keys. */
void tg_aesni_ige_decrypt(const tg_sched *s, uint8_t iv[32], uint8_t *out, const uint8_t *in, size_t nblocks) {
    if (nblocks == 0) return;
    __m128i k[15];
    load_keys(k, DEC_KEYS(s));
    __m128i y_prev = load(iv), x_prev = load(iv + 16);
    __m128i y = load(in);
    __m128i state = xor3(y, x_prev, k[0]);
    for (size_t i = 0;; i++) {
        state = dec_middle(state, k);
        const __m128i last_key = _mm_xor_si128(k[14], y_prev);
        const __m128i x = _mm_aesdeclast_si128(state, last_key);
        if (i + 1 == nblocks) {
            store(out + 16 * i, x);
            store(iv, y);
            store(iv + 16, x);
            break;
        }
        const __m128i y_next = load(in + 16 * (i + 1));
        state = _mm_aesdeclast_si128(state, xor3(last_key, y_next, k[0]));
        store(out + 16 * i, x);
        y_prev = y;
        y = y_next;
    }
}

/* c_i = E(p_i ^ c_{i-1}); the next round-0 state p_{i+1} ^ c_i ^ k0 comes
 * out of the last round with key k14 ^ p_{i+1} ^ k0. */
void tg_aesni_cbc_encrypt(const tg_sched *s, uint8_t iv[16], uint8_t *out, const uint8_t *in, size_t nblocks) {
    if (nblocks == 0) return;
    __m128i k[15];
    load_keys(k, ENC_KEYS(s));
    __m128i state = xor3(load(in), load(iv), k[0]);
    for (size_t i = 0;; i++) {
        state = enc_middle(state, k);
        const __m128i c = _mm_aesenclast_si128(state, k[14]);
        if (i + 1 == nblocks) {
            store(out + 16 * i, c);
            store(iv, c);
            break;
        }
        state = _mm_aesenclast_si128(state, xor3(k[14], load(in + 16 * (i + 1)), k[0]));
        store(out + 16 * i, c);
    }
}

/* ---- parallel modes ---- */

#define LANES 8

/* p_i = D(c_i) ^ c_{i-1}; c_{i-1} is folded into the last round key. All
 * inputs of a group are loaded before any output is stored (in place). */
void tg_aesni_cbc_decrypt(const tg_sched *s, uint8_t iv[16], uint8_t *out, const uint8_t *in, size_t nblocks) {
    __m128i k[15];
    load_keys(k, DEC_KEYS(s));
    __m128i prev = load(iv);
    size_t i = 0;
    for (; i + LANES <= nblocks; i += LANES) {
        __m128i c[LANES], x[LANES];
        for (int j = 0; j < LANES; j++) {
            c[j] = load(in + 16 * (i + j));
            x[j] = _mm_xor_si128(c[j], k[0]);
        }
        for (int r = 1; r < 14; r++)
            for (int j = 0; j < LANES; j++) x[j] = _mm_aesdec_si128(x[j], k[r]);
        for (int j = 0; j < LANES; j++) {
            const __m128i chain = j == 0 ? prev : c[j - 1];
            store(out + 16 * (i + j), _mm_aesdeclast_si128(x[j], _mm_xor_si128(k[14], chain)));
        }
        prev = c[LANES - 1];
    }
    for (; i < nblocks; i++) {
        const __m128i c = load(in + 16 * i);
        const __m128i x = dec_middle(_mm_xor_si128(c, k[0]), k);
        store(out + 16 * i, _mm_aesdeclast_si128(x, _mm_xor_si128(k[14], prev)));
        prev = c;
    }
    store(iv, prev);
}

/* The counter as two native 64-bit halves of the 128-bit big-endian value. */
static inline __m128i counter_block(uint64_t hi, uint64_t lo) {
    return _mm_set_epi64x((long long)__builtin_bswap64(lo), (long long)__builtin_bswap64(hi));
}

void tg_aesni_ctr_xor(const tg_sched *s, uint8_t ctr[16], uint8_t *out, const uint8_t *in, size_t nblocks) {
    __m128i k[15];
    load_keys(k, ENC_KEYS(s));
    uint64_t hi = tg_load64_be(ctr), lo = tg_load64_be(ctr + 8);
    /* Byte-reversing a block turns the big-endian counter into a little-endian
     * one, whose low 64 bits a vector add can step. */
    const __m128i reverse = _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    size_t i = 0;
    while (i + LANES <= nblocks) {
        __m128i x[LANES];
        if (lo <= UINT64_MAX - LANES) { /* no carry into the high half in this group */
            const __m128i base = _mm_set_epi64x((long long)hi, (long long)lo);
            for (int j = 0; j < LANES; j++)
                x[j] = _mm_xor_si128(_mm_shuffle_epi8(_mm_add_epi64(base, _mm_set_epi64x(0, j)), reverse), k[0]);
            lo += LANES;
        } else { /* the counter is public: branching on it is fine */
            for (int j = 0; j < LANES; j++) {
                x[j] = _mm_xor_si128(counter_block(hi, lo), k[0]);
                hi += (++lo == 0);
            }
        }
        for (int r = 1; r < 14; r++)
            for (int j = 0; j < LANES; j++) x[j] = _mm_aesenc_si128(x[j], k[r]);
        /* AESENCLAST(x, k ^ d) == AESENCLAST(x, k) ^ d: the data XOR rides the last round. */
        for (int j = 0; j < LANES; j++)
            store(out + 16 * (i + j), _mm_aesenclast_si128(x[j], _mm_xor_si128(k[14], load(in + 16 * (i + j)))));
        i += LANES;
    }
    for (; i < nblocks; i++) {
        const __m128i x = enc_middle(_mm_xor_si128(counter_block(hi, lo), k[0]), k);
        hi += (++lo == 0);
        store(out + 16 * i, _mm_aesenclast_si128(x, _mm_xor_si128(k[14], load(in + 16 * i))));
    }
    tg_store64_be(ctr, hi);
    tg_store64_be(ctr + 8, lo);
}

#pragma clang attribute pop

const tg_aes_backend tg_backend_aesni = {
    .name = "aesni",
    .cpu_needs = TG_CPU_AESNI,
    .sched_size = 480,
    .expand_key = tg_aesni_expand_key,
    .ige_encrypt = tg_aesni_ige_encrypt,
    .ige_decrypt = tg_aesni_ige_decrypt,
    .cbc_encrypt = tg_aesni_cbc_encrypt,
    .cbc_decrypt = tg_aesni_cbc_decrypt,
    .ctr_xor = tg_aesni_ctr_xor,
    .sched_size_encrypt = 240, /* ENC_KEYS only */
};

#endif /* TG_HAVE_X86_BACKENDS */
