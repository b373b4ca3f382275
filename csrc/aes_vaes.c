/*
 * aes_vaes.c - AES-256 with VAES: the AES-NI round instructions on 256-bit
 * (2 blocks per ymm) and 512-bit (4 blocks per zmm) registers.
 *
 * Only the parallel modes (CTR, CBC-decrypt) get wide loops. A serial chain
 * (IGE, CBC-encrypt) is one block at a time whatever the register width, so
 * those, the key schedule and its layout are aes_ni.c's.
 *
 * Short inputs step down a width: vaes512 hands inputs below its cutoff to
 * the vaes256 loops, which hand theirs to the AES-NI loops (cutoffs below).
 * Every AVX-512F CPU has AVX2, so vaes512 may call the ymm loops.
 *
 * Round keys are broadcast to every 128-bit lane. The main loops keep 12
 * ymm (24 blocks) or 8 zmm (32 blocks) in flight: more than AES latency
 * times issue rate (3 x 2 ymm, 3 x 1 zmm on Intel; up to 4 x 2 on Zen 5).
 *
 * As in aes_ni.c the instruction sets are enabled per function; dispatch.c
 * calls in here only after CPUID and XCR0 said yes.
 */
#include "backend.h"

#if defined(TG_HAVE_X86_BACKENDS)

#include <immintrin.h>

#define ENC_KEYS(s) ((s)->bytes)
#define DEC_KEYS(s) ((s)->bytes + 240)

/* Cutoffs in blocks, measured on a Sapphire-Rapids-class Xeon (one-shot
 * calls, key expansion included). vaes256 beats AES-NI from about 4 blocks
 * (CTR from 2, CBC-decrypt from 4-5). Warm zmm beats ymm at every size, by
 * 10-25% below 256 bytes, i.e. 10-20 cycles a call; but after idle time the
 * 512-bit units first run for a few hundred cycles at a fraction of their
 * rate (worse license changes on other Intel parts). Like OpenSSL we keep
 * inputs under 256 bytes off zmm, so short messages never wake it. */
#ifndef TG_VAES256_MIN_BLOCKS
#  define TG_VAES256_MIN_BLOCKS 4
#endif
/* CBC-decrypt on Zen 4 (EPYC 9004): the AES-NI loop still wins by ~10% at
 * 4-5 blocks and 2-5% at 6 (the ymm call's fixed cost); ymm wins from 7. */
#ifndef TG_VAES256_CBC_MIN_BLOCKS
#  define TG_VAES256_CBC_MIN_BLOCKS 7
#endif
#ifndef TG_VAES512_MIN_BLOCKS
#  define TG_VAES512_MIN_BLOCKS 16
#endif

static inline __m128i load128(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }
static inline void store128(uint8_t *p, __m128i v) { _mm_storeu_si128((__m128i *)(void *)p, v); }

/* ======================= 256-bit: VAES + AVX2 (VEX) ======================= */

#pragma clang attribute push(__attribute__((target("vaes,avx2,avx,aes,sse4.1,ssse3"))), apply_to = function)

#define Y_VECS 12
#define Y_BATCH (2 * Y_VECS) /* blocks per main-loop iteration */

static inline __m256i y_load(const uint8_t *p) { return _mm256_loadu_si256((const __m256i *)(const void *)p); }
static inline void y_store(uint8_t *p, __m256i v) { _mm256_storeu_si256((__m256i *)(void *)p, v); }

static inline void y_load_keys(__m256i k[15], const uint8_t *bytes) {
    for (int r = 0; r < 15; r++) k[r] = _mm256_broadcastsi128_si256(load128(bytes + 16 * r));
}

/* Reverses the bytes of each 128-bit lane: little-endian counter <-> big-endian block. */
static inline __m256i y_bswap128(__m256i v) {
    const __m256i rev = _mm256_broadcastsi128_si256(_mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
    return _mm256_shuffle_epi8(v, rev);
}

/* One ymm of CTR: counters c (little-endian lanes), 2 blocks of data. */
static inline __m256i y_ctr_one(const __m256i k[15], __m256i c, __m256i data) {
    __m256i x = _mm256_xor_si256(y_bswap128(c), k[0]);
    for (int r = 1; r < 14; r++) x = _mm256_aesenc_epi128(x, k[r]);
    /* AESENCLAST(x, k ^ d) == AESENCLAST(x, k) ^ d: the data XOR rides the last round. */
    return _mm256_aesenclast_epi128(x, _mm256_xor_si256(k[14], data));
}

/* The *_wide loops are out of line so that the entry points' short-input
 * checks stay plain branches: the wide prologues realign the stack for
 * vector spills, which cost ~10% on a one-block call. */
__attribute__((noinline)) static void vaes256_ctr_wide(const tg_sched *s, uint8_t ctr[16], uint8_t *out, const uint8_t *in, size_t nblocks) {
    __m256i k[15];
    y_load_keys(k, ENC_KEYS(s));
    /* The counter as a 128-bit little-endian integer per lane: lane j holds
     * ctr + j. Steps add to the low 64 bits only, so they are exact only
     * while those bits cannot carry; the counter is public, so branching on
     * it to find the stretches where that holds leaks nothing. */
    const __m256i lane_offsets = _mm256_set_epi64x(0, 1, 0, 0);
    const __m256i two = _mm256_set_epi64x(0, 2, 0, 2);
    uint64_t hi = tg_load64_be(ctr), lo = tg_load64_be(ctr + 8);
    size_t i = 0;
    while (nblocks - i >= Y_BATCH) {
        size_t batches = (nblocks - i) / Y_BATCH;
        const uint64_t room = (UINT64_MAX - lo) / Y_BATCH; /* batches ending before lo could wrap */
        if (batches > room) batches = (size_t)room;
        if (batches == 0) {
            /* The low half wraps inside this batch: the scalar loop carries exactly. */
            tg_store64_be(ctr, hi);
            tg_store64_be(ctr + 8, lo);
            tg_aesni_ctr_xor(s, ctr, out + 16 * i, in + 16 * i, Y_BATCH);
            hi = tg_load64_be(ctr), lo = tg_load64_be(ctr + 8);
            i += Y_BATCH;
            continue;
        }
        __m256i c = _mm256_add_epi64(_mm256_broadcastsi128_si256(_mm_set_epi64x((long long)hi, (long long)lo)), lane_offsets);
        lo += (uint64_t)batches * Y_BATCH;
        for (; batches > 0; batches--, i += Y_BATCH) {
            __m256i x[Y_VECS];
            for (int j = 0; j < Y_VECS; j++) {
                x[j] = _mm256_xor_si256(y_bswap128(c), k[0]);
                c = _mm256_add_epi64(c, two);
            }
            for (int r = 1; r < 14; r++)
                for (int j = 0; j < Y_VECS; j++) x[j] = _mm256_aesenc_epi128(x[j], k[r]);
            for (int j = 0; j < Y_VECS; j++) {
                const uint8_t *src = in + 16 * (i + 2 * j);
                y_store(out + 16 * (i + 2 * j), _mm256_aesenclast_epi128(x[j], _mm256_xor_si256(k[14], y_load(src))));
            }
        }
    }
    const size_t rest = nblocks - i;
    if (rest != 0 && lo > UINT64_MAX - rest) {
        tg_store64_be(ctr, hi);
        tg_store64_be(ctr + 8, lo);
        tg_aesni_ctr_xor(s, ctr, out + 16 * i, in + 16 * i, rest);
        return;
    }
    /* Tail, below one batch and carry-free: pairs, then maybe one block in
     * xmm. Iterations are independent, so the core overlaps them. */
    __m256i c = _mm256_add_epi64(_mm256_broadcastsi128_si256(_mm_set_epi64x((long long)hi, (long long)lo)), lane_offsets);
    lo += rest;
    for (; i + 2 <= nblocks; i += 2) {
        y_store(out + 16 * i, y_ctr_one(k, c, y_load(in + 16 * i)));
        c = _mm256_add_epi64(c, two);
    }
    if (i < nblocks) {
        __m128i x = _mm_xor_si128(_mm256_castsi256_si128(y_bswap128(c)), _mm256_castsi256_si128(k[0]));
        for (int r = 1; r < 14; r++) x = _mm_aesenc_si128(x, _mm256_castsi256_si128(k[r]));
        const __m128i last = _mm_xor_si128(_mm256_castsi256_si128(k[14]), load128(in + 16 * i));
        store128(out + 16 * i, _mm_aesenclast_si128(x, last));
    }
    tg_store64_be(ctr, hi);
    tg_store64_be(ctr + 8, lo);
}

static void vaes256_ctr_xor(const tg_sched *s, uint8_t ctr[16], uint8_t *out, const uint8_t *in, size_t nblocks) {
    if (nblocks < TG_VAES256_MIN_BLOCKS) tg_aesni_ctr_xor(s, ctr, out, in, nblocks);
    else vaes256_ctr_wide(s, ctr, out, in, nblocks);
}

/* The ymm of "previous ciphertext" blocks for ciphertext ymm c: lane 1 of
 * the ymm before it, then lane 0 of c. Built from registers, so it is right
 * in place (the input may already be overwritten) and at the first block. */
static inline __m256i y_chain(__m256i c, __m256i before) { return _mm256_permute2x128_si256(c, before, 0x03); }

static inline __m256i y_cbc_dec_one(const __m256i k[15], __m256i c, __m256i before) {
    __m256i x = _mm256_xor_si256(c, k[0]);
    for (int r = 1; r < 14; r++) x = _mm256_aesdec_epi128(x, k[r]);
    /* p_i = D(c_i) ^ c_{i-1}: the chaining XOR rides the last round. */
    return _mm256_aesdeclast_epi128(x, _mm256_xor_si256(k[14], y_chain(c, before)));
}

__attribute__((noinline)) static void vaes256_cbc_dec_wide(const tg_sched *s, uint8_t iv[16], uint8_t *out, const uint8_t *in, size_t nblocks) {
    __m256i k[15];
    y_load_keys(k, DEC_KEYS(s));
    __m256i prev = _mm256_broadcastsi128_si256(load128(iv)); /* lane 1: the last ciphertext block so far */
    size_t i = 0;
    for (; i + Y_BATCH <= nblocks; i += Y_BATCH) {
        /* Every input of the batch is in registers before any output is stored. */
        __m256i c[Y_VECS], x[Y_VECS];
        for (int j = 0; j < Y_VECS; j++) {
            c[j] = y_load(in + 16 * (i + 2 * j));
            x[j] = _mm256_xor_si256(c[j], k[0]);
        }
        for (int r = 1; r < 14; r++)
            for (int j = 0; j < Y_VECS; j++) x[j] = _mm256_aesdec_epi128(x[j], k[r]);
        for (int j = 0; j < Y_VECS; j++) {
            const __m256i chain = y_chain(c[j], j == 0 ? prev : c[j - 1]);
            y_store(out + 16 * (i + 2 * j), _mm256_aesdeclast_epi128(x[j], _mm256_xor_si256(k[14], chain)));
        }
        prev = c[Y_VECS - 1];
    }
    for (; i + 2 <= nblocks; i += 2) {
        const __m256i c = y_load(in + 16 * i);
        y_store(out + 16 * i, y_cbc_dec_one(k, c, prev));
        prev = c;
    }
    __m128i last = _mm256_extracti128_si256(prev, 1);
    if (i < nblocks) {
        const __m128i c = load128(in + 16 * i);
        __m128i x = _mm_xor_si128(c, _mm256_castsi256_si128(k[0]));
        for (int r = 1; r < 14; r++) x = _mm_aesdec_si128(x, _mm256_castsi256_si128(k[r]));
        store128(out + 16 * i, _mm_aesdeclast_si128(x, _mm_xor_si128(_mm256_castsi256_si128(k[14]), last)));
        last = c;
    }
    store128(iv, last);
}

static void vaes256_cbc_decrypt(const tg_sched *s, uint8_t iv[16], uint8_t *out, const uint8_t *in, size_t nblocks) {
    if (nblocks < TG_VAES256_CBC_MIN_BLOCKS) tg_aesni_cbc_decrypt(s, iv, out, in, nblocks);
    else vaes256_cbc_dec_wide(s, iv, out, in, nblocks);
}

#pragma clang attribute pop

/* ==================== 512-bit: VAES + AVX-512 F/VL/BW ==================== */

/* Zig hands clang an explicit feature list; clang 18-21 then need
 * "evex512" for 512-bit intrinsics, and clang 22 rejects the word. */
#if defined(__clang_major__) && __clang_major__ >= 18 && __clang_major__ < 22
#  define TG_VAES512_TARGET "vaes,avx512f,avx512vl,avx512bw,evex512,avx2,avx,aes,sse4.1,ssse3"
#else
#  define TG_VAES512_TARGET "vaes,avx512f,avx512vl,avx512bw,avx2,avx,aes,sse4.1,ssse3"
#endif

#pragma clang attribute push(__attribute__((target(TG_VAES512_TARGET))), apply_to = function)

#define Z_VECS 8
#define Z_BATCH (4 * Z_VECS) /* blocks per main-loop iteration */

/* Keeps a batch round-major: every register's round r before any round
 * r + 1. Without it clang 21 emitted the CTR batch as eight serial 14-round
 * chains (56+ cycles each); the out-of-order core then overlapped too few
 * of them, and on Zen 4 vaes512 CTR ran below vaes256 (which clang keeps
 * round-major) at every size. Emits no instruction. */
#define Z_ROUND_BARRIER(x)                                                                                  \
    __asm__("" : "+v"((x)[0]), "+v"((x)[1]), "+v"((x)[2]), "+v"((x)[3]), "+v"((x)[4]), "+v"((x)[5]), \
                 "+v"((x)[6]), "+v"((x)[7]))
#define Z_ROUND_BARRIER4(x) __asm__("" : "+v"((x)[0]), "+v"((x)[1]), "+v"((x)[2]), "+v"((x)[3]))
_Static_assert(Z_VECS == 8, "Z_ROUND_BARRIER names Z_VECS registers");

static inline __m512i z_load(const uint8_t *p) { return _mm512_loadu_si512((const void *)p); }
static inline void z_store(uint8_t *p, __m512i v) { _mm512_storeu_si512((void *)p, v); }

/* Mask of the 64-bit elements of the first n (1..3) blocks of a zmm. */
static inline __mmask8 z_blocks_mask(size_t n) { return (__mmask8)((1u << (2 * n)) - 1); }

static inline void z_load_keys(__m512i k[15], const uint8_t *bytes) {
    for (int r = 0; r < 15; r++) k[r] = _mm512_broadcast_i32x4(load128(bytes + 16 * r));
}

static inline __m512i z_bswap128(__m512i v) {
    const __m512i rev = _mm512_broadcast_i32x4(_mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
    return _mm512_shuffle_epi8(v, rev);
}

static inline __m512i z_ctr_one(const __m512i k[15], __m512i c, __m512i data) {
    __m512i x = _mm512_xor_si512(z_bswap128(c), k[0]);
    for (int r = 1; r < 14; r++) x = _mm512_aesenc_epi128(x, k[r]);
    return _mm512_aesenclast_epi128(x, _mm512_xor_si512(k[14], data));
}

/* n (8 or 4) zmm of CTR, round-major: counters c, c + 4, ..; returns the
 * counter after them. Always inlined, so n is a constant. */
static inline __attribute__((always_inline)) __m512i z_ctr_batch(const __m512i k[15], __m512i c, __m512i four,
                                                                 uint8_t *out, const uint8_t *in, const int n) {
    __m512i x[Z_VECS];
    for (int j = 0; j < n; j++) {
        x[j] = _mm512_xor_si512(z_bswap128(c), k[0]);
        c = _mm512_add_epi64(c, four);
    }
#pragma clang loop unroll(full) /* keys stay in registers */
    for (int r = 1; r < 14; r++) {
        for (int j = 0; j < n; j++) x[j] = _mm512_aesenc_epi128(x[j], k[r]);
        if (n == 8) Z_ROUND_BARRIER(x);
        else Z_ROUND_BARRIER4(x);
    }
    for (int j = 0; j < n; j++)
        z_store(out + 64 * j, _mm512_aesenclast_epi128(x[j], _mm512_xor_si512(k[14], z_load(in + 64 * j))));
    return c;
}

/* Like vaes256_ctr_wide, but the caller guarantees that the low 64 bits of
 * the counter do not wrap in this call, so the loop has no carry path and
 * no call (a call made clang spill all 15 key registers at entry, ~25
 * cycles a call). Batches of 32 blocks, then one of 16, then single zmm,
 * then 1-3 blocks by masked loads and stores. */
__attribute__((noinline)) static void vaes512_ctr_wide(const tg_sched *s, uint8_t ctr[16], uint8_t *out, const uint8_t *in, size_t nblocks) {
    __m512i k[15];
    z_load_keys(k, ENC_KEYS(s));
    const __m512i lane_offsets = _mm512_set_epi64(0, 3, 0, 2, 0, 1, 0, 0);
    const __m512i four = _mm512_set_epi64(0, 4, 0, 4, 0, 4, 0, 4);
    const uint64_t hi = tg_load64_be(ctr), lo = tg_load64_be(ctr + 8);
    __m512i c = _mm512_add_epi64(_mm512_broadcast_i32x4(_mm_set_epi64x((long long)hi, (long long)lo)), lane_offsets);
    size_t i = 0;
    for (; i + Z_BATCH <= nblocks; i += Z_BATCH) c = z_ctr_batch(k, c, four, out + 16 * i, in + 16 * i, Z_VECS);
    if (i + Z_BATCH / 2 <= nblocks) {
        c = z_ctr_batch(k, c, four, out + 16 * i, in + 16 * i, Z_VECS / 2);
        i += Z_BATCH / 2;
    }
    for (; i + 4 <= nblocks; i += 4) {
        z_store(out + 16 * i, z_ctr_one(k, c, z_load(in + 16 * i)));
        c = _mm512_add_epi64(c, four);
    }
    if (i < nblocks) {
        /* Masked-off lanes are neither read nor written (no fault past the end). */
        const __mmask8 m = z_blocks_mask(nblocks - i);
        _mm512_mask_storeu_epi64(out + 16 * i, m, z_ctr_one(k, c, _mm512_maskz_loadu_epi64(m, in + 16 * i)));
    }
    tg_store64_be(ctr + 8, lo + nblocks);
}

static void vaes512_ctr_xor(const tg_sched *s, uint8_t ctr[16], uint8_t *out, const uint8_t *in, size_t nblocks) {
    if (nblocks < TG_VAES512_MIN_BLOCKS) vaes256_ctr_xor(s, ctr, out, in, nblocks);
    /* The counter is public: branching on where its low half wraps leaks
     * nothing. A call that wraps it (once per 2^64 blocks) goes to the ymm
     * loop, which carries exactly. */
    else if (nblocks <= UINT64_MAX - tg_load64_be(ctr + 8)) vaes512_ctr_wide(s, ctr, out, in, nblocks);
    else vaes256_ctr_wide(s, ctr, out, in, nblocks);
}

/* Previous-ciphertext zmm for c: lane 3 of the zmm before it, then lanes
 * 0-2 of c (VALIGNQ by six 64-bit elements), from registers only. */
static inline __m512i z_chain(__m512i c, __m512i before) { return _mm512_alignr_epi64(c, before, 6); }

static inline __m512i z_cbc_dec_one(const __m512i k[15], __m512i c, __m512i before) {
    __m512i x = _mm512_xor_si512(c, k[0]);
    for (int r = 1; r < 14; r++) x = _mm512_aesdec_epi128(x, k[r]);
    return _mm512_aesdeclast_epi128(x, _mm512_xor_si512(k[14], z_chain(c, before)));
}

/* n (8 or 4) zmm of CBC decryption, round-major; `prev` holds the last
 * ciphertext block before them in lane 3. Returns the last ciphertext zmm.
 * Every input is in registers before any output is stored (in place). */
static inline __attribute__((always_inline)) __m512i z_cbc_dec_batch(const __m512i k[15], __m512i prev, uint8_t *out,
                                                                     const uint8_t *in, const int n) {
    __m512i c[Z_VECS], x[Z_VECS];
    for (int j = 0; j < n; j++) {
        c[j] = z_load(in + 64 * j);
        x[j] = _mm512_xor_si512(c[j], k[0]);
    }
#pragma clang loop unroll(full) /* keys stay in registers */
    for (int r = 1; r < 14; r++) {
        for (int j = 0; j < n; j++) x[j] = _mm512_aesdec_epi128(x[j], k[r]);
        if (n == 8) Z_ROUND_BARRIER(x);
        else Z_ROUND_BARRIER4(x);
    }
    for (int j = 0; j < n; j++) {
        const __m512i chain = z_chain(c[j], j == 0 ? prev : c[j - 1]);
        z_store(out + 64 * j, _mm512_aesdeclast_epi128(x[j], _mm512_xor_si512(k[14], chain)));
    }
    return c[n - 1];
}

/* Batches of 32 blocks, then one of 16, then single zmm, then 1-3 blocks by
 * masked loads and stores. */
__attribute__((noinline)) static void vaes512_cbc_dec_wide(const tg_sched *s, uint8_t iv[16], uint8_t *out, const uint8_t *in, size_t nblocks) {
    __m512i k[15];
    z_load_keys(k, DEC_KEYS(s));
    __m512i prev = _mm512_broadcast_i32x4(load128(iv)); /* lane 3: the last ciphertext block so far */
    size_t i = 0;
    for (; i + Z_BATCH <= nblocks; i += Z_BATCH) prev = z_cbc_dec_batch(k, prev, out + 16 * i, in + 16 * i, Z_VECS);
    if (i + Z_BATCH / 2 <= nblocks) {
        prev = z_cbc_dec_batch(k, prev, out + 16 * i, in + 16 * i, Z_VECS / 2);
        i += Z_BATCH / 2;
    }
    for (; i + 4 <= nblocks; i += 4) {
        const __m512i c = z_load(in + 16 * i);
        z_store(out + 16 * i, z_cbc_dec_one(k, c, prev));
        prev = c;
    }
    __m128i last = _mm512_extracti32x4_epi32(prev, 3);
    if (i < nblocks) {
        /* The last ciphertext block is read before the (maybe in-place) store. */
        const __mmask8 m = z_blocks_mask(nblocks - i);
        const __m512i c = _mm512_maskz_loadu_epi64(m, in + 16 * i);
        last = load128(in + 16 * (nblocks - 1));
        _mm512_mask_storeu_epi64(out + 16 * i, m, z_cbc_dec_one(k, c, prev));
    }
    store128(iv, last);
}

static void vaes512_cbc_decrypt(const tg_sched *s, uint8_t iv[16], uint8_t *out, const uint8_t *in, size_t nblocks) {
    if (nblocks < TG_VAES512_MIN_BLOCKS) vaes256_cbc_decrypt(s, iv, out, in, nblocks);
    else vaes512_cbc_dec_wide(s, iv, out, in, nblocks);
}

#pragma clang attribute pop

const tg_aes_backend tg_backend_vaes256 = {
    .name = "vaes256",
    .cpu_needs = TG_CPU_AESNI | TG_CPU_VAES256,
    .sched_size = 480,
    .expand_key = tg_aesni_expand_key,
    .ige_encrypt = tg_aesni_ige_encrypt,
    .ige_decrypt = tg_aesni_ige_decrypt,
    .cbc_encrypt = tg_aesni_cbc_encrypt,
    .cbc_decrypt = vaes256_cbc_decrypt,
    .ctr_xor = vaes256_ctr_xor,
};

const tg_aes_backend tg_backend_vaes512 = {
    .name = "vaes512",
    .cpu_needs = TG_CPU_AESNI | TG_CPU_VAES512,
    .sched_size = 480,
    .expand_key = tg_aesni_expand_key,
    .ige_encrypt = tg_aesni_ige_encrypt,
    .ige_decrypt = tg_aesni_ige_decrypt,
    .cbc_encrypt = tg_aesni_cbc_encrypt,
    .cbc_decrypt = vaes512_cbc_decrypt,
    .ctr_xor = vaes512_ctr_xor,
};

#endif /* TG_HAVE_X86_BACKENDS */
