/*
 * aes_armce.c - AES-256 with the ARMv8 Crypto Extensions (AArch64).
 *
 * The build targets a baseline CPU, so the AES instructions are enabled per
 * function (TG_CE) and dispatch.c only selects this backend when HWCAP
 * reports them.
 *
 * ARM splits a round differently from FIPS-197: AESE(s, k) is
 * ShiftRows(SubBytes(s ^ k)), with AddRoundKey at the start, and AESMC is
 * MixColumns. AES-256 is therefore 13 x (AESE+AESMC), one AESE, and a final
 * XOR with k14. Decryption mirrors it with AESD/AESIMC and the equivalent
 * inverse cipher's keys.
 *
 * Serial modes (IGE both ways, CBC encryption) fold every chaining XOR into
 * the key operand of the next block's first AESE/AESD, so the loop-carried
 * dependency is just the 27 AES instructions. Parallel modes (CTR, CBC
 * decryption) run 8 blocks side by side, then 4/2/1 for the tail.
 *
 * Schedule layout (sched_size 480):
 *   bytes[0..240)   k0..k14, FIPS-197 byte order (AESE keys)
 *   bytes[240..480) TG_DIR_DECRYPT only: k14, imc(k13)..imc(k1), k0
 * With clang the loops keep round keys and cipher state in registers (the
 * disassembly has no stack frame beyond saving d8/d9), so there is nothing on
 * the stack to wipe; see WIPE_KEYS for other compilers.
 */
#include "backend.h"

#if defined(TG_HAVE_ARM_BACKENDS)

#include <arm_neon.h>

#if defined(__clang__)
#  define TG_CE        __attribute__((target("aes")))
#  define TG_CE_INLINE static inline __attribute__((always_inline, target("aes")))
#elif defined(__GNUC__)
#  define TG_CE        __attribute__((target("+crypto")))
#  define TG_CE_INLINE static inline __attribute__((always_inline, target("+crypto")))
#else /* MSVC: the intrinsics need no target attribute */
#  define TG_CE
#  define TG_CE_INLINE static __forceinline
#endif

/* Full unrolling of the round loops lets the key arrays become registers
 * (a rolled loop would index them, keeping a copy of the keys on the stack). */
#if defined(__clang__)
#  define TG_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#  define TG_UNROLL _Pragma("GCC unroll 16")
#else
#  define TG_UNROLL
#endif

/* clang keeps the key arrays below in registers (scalar replacement after the
 * full unrolling), so there is nothing to wipe, and wiping would force a
 * stack copy. Other compilers may leave a copy on the stack: wipe it. */
#if defined(__clang__)
#  define WIPE_KEYS(k) ((void)0)
#else
#  define WIPE_KEYS(k) tg_wipe((k), sizeof(k))
#endif

#define ENC_KEYS 0
#define DEC_KEYS 240
#define SCHED_BYTES 480

/* ---- key expansion ---- */

/* x ^ (x << 1 word) ^ (x << 2 words) ^ (x << 3 words): word i becomes the
 * XOR of words 0..i, the running XOR of FIPS-197's w[i] = w[i-Nk] ^ temp. */
TG_CE_INLINE uint8x16_t prefix_xor(uint8x16_t x) {
    const uint8x16_t z = vdupq_n_u8(0);
    x = veorq_u8(x, vextq_u8(z, x, 12));
    return veorq_u8(x, vextq_u8(z, x, 8));
}

/* SubWord of selected bytes, in all four words. `sel` copies one word (maybe
 * rotated) into every column; AESE with a zero key is then plain SubBytes,
 * because ShiftRows cannot move anything when all columns are equal. No
 * table look-ups, so constant time. */
TG_CE_INLINE uint8x16_t sub_word(uint8x16_t x, uint8x16_t sel) {
    return vaeseq_u8(vqtbl1q_u8(x, sel), vdupq_n_u8(0));
}

static const uint8_t ROT_LAST_WORD[16] = { 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12 };
static const uint8_t LAST_WORD[16]     = { 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15 };

static TG_CE void armce_expand_key(tg_sched *s, const uint8_t key[32], int dir) {
    uint8_t *ek = s->bytes + ENC_KEYS;
    const uint8x16_t rot_last = vld1q_u8(ROT_LAST_WORD), last = vld1q_u8(LAST_WORD);
    uint8x16_t a = vld1q_u8(key), b = vld1q_u8(key + 16);

    vst1q_u8(ek, a);
    vst1q_u8(ek + 16, b);
    for (int r = 0;; r++) {
        /* Even keys: SubWord(RotWord(previous word)) ^ Rcon; odd keys: SubWord only. */
        uint8x16_t rcon = vreinterpretq_u8_u32(vdupq_n_u32(1u << r));
        a = veorq_u8(prefix_xor(a), veorq_u8(sub_word(b, rot_last), rcon));
        vst1q_u8(ek + 32 + 32 * r, a);
        if (r == 6) break; /* k14 is the last key AES-256 needs */
        b = veorq_u8(prefix_xor(b), sub_word(a, last));
        vst1q_u8(ek + 48 + 32 * r, b);
    }

    if (dir == TG_DIR_DECRYPT) {
        /* Equivalent inverse cipher: reversed order, InvMixColumns applied to
         * the middle keys so AESIMC can follow every AESD. */
        uint8_t *dk = s->bytes + DEC_KEYS;
        vst1q_u8(dk, vld1q_u8(ek + 16 * 14));
        for (int i = 1; i < 14; i++)
            vst1q_u8(dk + 16 * i, vaesimcq_u8(vld1q_u8(ek + 16 * (14 - i))));
        vst1q_u8(dk + 16 * 14, vld1q_u8(ek));
    }
}

/* ---- single-block cores ---- */

TG_CE_INLINE void load_keys(uint8x16_t k[15], const uint8_t *p) {
    for (int i = 0; i < 15; i++) k[i] = vld1q_u8(p + 16 * i);
}

/* All of encryption but the final XOR with k14; `first` replaces k0 as the
 * key of the first AESE so callers can fold other XORs into it. Each AESMC
 * directly consumes its AESE so cores can fuse the pair. */
TG_CE_INLINE uint8x16_t enc_core(const uint8x16_t k[15], uint8x16_t b, uint8x16_t first) {
    b = vaesmcq_u8(vaeseq_u8(b, first));
    TG_UNROLL for (int r = 1; r < 13; r++) b = vaesmcq_u8(vaeseq_u8(b, k[r]));
    return vaeseq_u8(b, k[13]);
}

/* Decryption counterpart: `first` replaces dk[0], the result still needs
 * ^ dk[14] (= k0). */
TG_CE_INLINE uint8x16_t dec_core(const uint8x16_t dk[15], uint8x16_t b, uint8x16_t first) {
    b = vaesimcq_u8(vaesdq_u8(b, first));
    TG_UNROLL for (int r = 1; r < 13; r++) b = vaesimcq_u8(vaesdq_u8(b, dk[r]));
    return vaesdq_u8(b, dk[13]);
}

/* ---- serial modes ----
 *
 * The loops below run two blocks per iteration: with one, clang ties the
 * first AESE to the wrong input and ends every block with a register move on
 * the critical path; alternating two copies lets it chain without moves.
 */

/* IGE chaining state, kept between blocks. */
typedef struct {
    uint8x16_t st;   /* core output of the previous block (see below) */
    uint8x16_t fold; /* key for the next block's first AESE/AESD, minus its input */
    uint8x16_t prev; /* previous input block */
    uint8x16_t out;  /* previous output block */
} ige_state;

/*
 * IGE encryption: y_i = E(x_i ^ y_{i-1}) ^ x_{i-1}, and E(z) = core(z) ^ k14
 * with core starting AESE(z, k0). Keeping st = core(block i) instead of y_i:
 *   y_i = st ^ m,   m = k14 ^ x_{i-1}
 *   AESE(x_{i+1} ^ y_i, k0) = AESE(st, x_{i+1} ^ k0 ^ m)
 * so the next block starts straight from st; m and the key are built from
 * plaintext off the critical path.
 */
TG_CE_INLINE void ige_enc_block(const uint8x16_t k[15], ige_state *c, uint8_t *out, const uint8_t *in) {
    const uint8x16_t x = vld1q_u8(in);
    c->st = enc_core(k, c->st, veorq_u8(x, c->fold));
    const uint8x16_t m = veorq_u8(k[14], c->prev);
    c->out = veorq_u8(c->st, m);
    vst1q_u8(out, c->out);
    c->fold = veorq_u8(k[0], m);
    c->prev = x;
}

static TG_CE void armce_ige_encrypt(const tg_sched *s, uint8_t iv[32], uint8_t *out, const uint8_t *in, size_t nblocks) {
    if (nblocks == 0) return;
    uint8x16_t k[15];
    load_keys(k, s->bytes + ENC_KEYS);

    /* st = y_{-1} and fold = k0 make the first key x_0 ^ k0, as it should be. */
    ige_state c = { vld1q_u8(iv), k[0], vld1q_u8(iv + 16), vdupq_n_u8(0) };
    if (nblocks & 1) {
        ige_enc_block(k, &c, out, in);
        in += 16;
        out += 16;
    }
    for (size_t i = 0; i < nblocks / 2; i++, in += 32, out += 32) {
        ige_enc_block(k, &c, out, in);
        ige_enc_block(k, &c, out + 16, in + 16);
    }
    vst1q_u8(iv, c.out);
    vst1q_u8(iv + 16, c.prev);
    WIPE_KEYS(k);
}

/*
 * IGE decryption, the same fold with the roles swapped: x_i = D(y_i ^
 * x_{i-1}) ^ y_{i-1}, D(z) = core(z) ^ k0, core starting AESD(z, k14). With
 * st = core(block i):
 *   x_i = st ^ m,   m = k0 ^ y_{i-1}
 *   AESD(y_{i+1} ^ x_i, k14) = AESD(st, y_{i+1} ^ k14 ^ m)
 */
TG_CE_INLINE void ige_dec_block(const uint8x16_t dk[15], ige_state *c, uint8_t *out, const uint8_t *in) {
    const uint8x16_t y = vld1q_u8(in);
    c->st = dec_core(dk, c->st, veorq_u8(y, c->fold));
    const uint8x16_t m = veorq_u8(dk[14], c->prev);
    c->out = veorq_u8(c->st, m);
    vst1q_u8(out, c->out);
    c->fold = veorq_u8(dk[0], m);
    c->prev = y;
}

static TG_CE void armce_ige_decrypt(const tg_sched *s, uint8_t iv[32], uint8_t *out, const uint8_t *in, size_t nblocks) {
    if (nblocks == 0) return;
    uint8x16_t dk[15];
    load_keys(dk, s->bytes + DEC_KEYS);

    /* st = x_{-1} and fold = k14 make the first key y_0 ^ k14. */
    ige_state c = { vld1q_u8(iv + 16), dk[0], vld1q_u8(iv), vdupq_n_u8(0) };
    if (nblocks & 1) {
        ige_dec_block(dk, &c, out, in);
        in += 16;
        out += 16;
    }
    for (size_t i = 0; i < nblocks / 2; i++, in += 32, out += 32) {
        ige_dec_block(dk, &c, out, in);
        ige_dec_block(dk, &c, out + 16, in + 16);
    }
    vst1q_u8(iv, c.prev);
    vst1q_u8(iv + 16, c.out);
    WIPE_KEYS(dk);
}

/*
 * CBC encryption: c_i = E(p_i ^ c_{i-1}). With st = core(block i), c_i =
 * st ^ k14 and AESE(p_{i+1} ^ c_i, k0) = AESE(st, p_{i+1} ^ k0 ^ k14).
 * Starting from st = iv ^ k14 makes the first block fit the same pattern.
 */
TG_CE_INLINE void cbc_enc_block(const uint8x16_t k[15], uint8x16_t fold, uint8x16_t *st, uint8_t *out, const uint8_t *in) {
    *st = enc_core(k, *st, veorq_u8(vld1q_u8(in), fold));
    vst1q_u8(out, veorq_u8(*st, k[14]));
}

static TG_CE void armce_cbc_encrypt(const tg_sched *s, uint8_t iv[16], uint8_t *out, const uint8_t *in, size_t nblocks) {
    if (nblocks == 0) return;
    uint8x16_t k[15];
    load_keys(k, s->bytes + ENC_KEYS);

    const uint8x16_t fold = veorq_u8(k[0], k[14]);
    uint8x16_t st = veorq_u8(vld1q_u8(iv), k[14]);
    if (nblocks & 1) {
        cbc_enc_block(k, fold, &st, out, in);
        in += 16;
        out += 16;
    }
    for (size_t i = 0; i < nblocks / 2; i++, in += 32, out += 32) {
        cbc_enc_block(k, fold, &st, out, in);
        cbc_enc_block(k, fold, &st, out + 16, in + 16);
    }
    vst1q_u8(iv, veorq_u8(st, k[14]));
    WIPE_KEYS(k);
}

/* ---- parallel modes: CBC decryption, CTR ---- */

/* n (1..8, a constant after inlining) independent blocks: p_j = D(c_j) ^
 * c_{j-1}. Returns the last ciphertext block, the next chaining value. */
TG_CE_INLINE uint8x16_t cbc_dec_blocks(const uint8x16_t dk[15], uint8x16_t prev, uint8_t *out, const uint8_t *in, int n) {
    uint8x16_t b[8];
    for (int j = 0; j < n; j++) b[j] = vld1q_u8(in + 16 * j);
    TG_UNROLL for (int r = 0; r < 13; r++)
        for (int j = 0; j < n; j++) b[j] = vaesimcq_u8(vaesdq_u8(b[j], dk[r]));
    for (int j = 0; j < n; j++) b[j] = vaesdq_u8(b[j], dk[13]);

    /* Re-read the ciphertext for the chaining XOR: holding it too (15 keys,
     * 8 states, 8 blocks) would not fit in 32 registers. Highest block first: with out == in, storing block j only
     * overwrites c_j, which nothing below it needs. */
    const uint8x16_t last = vld1q_u8(in + 16 * (n - 1));
    for (int j = n - 1; j > 0; j--)
        vst1q_u8(out + 16 * j, veorq_u8(b[j], veorq_u8(vld1q_u8(in + 16 * (j - 1)), dk[14])));
    vst1q_u8(out, veorq_u8(b[0], veorq_u8(prev, dk[14])));
    return last;
}

static TG_CE void armce_cbc_decrypt(const tg_sched *s, uint8_t iv[16], uint8_t *out, const uint8_t *in, size_t nblocks) {
    if (nblocks == 0) return;
    uint8x16_t dk[15];
    load_keys(dk, s->bytes + DEC_KEYS);

    uint8x16_t prev = vld1q_u8(iv);
    for (; nblocks >= 8; nblocks -= 8, in += 128, out += 128)
        prev = cbc_dec_blocks(dk, prev, out, in, 8);
    if (nblocks & 4) {
        prev = cbc_dec_blocks(dk, prev, out, in, 4);
        in += 64;
        out += 64;
    }
    if (nblocks & 2) {
        prev = cbc_dec_blocks(dk, prev, out, in, 2);
        in += 32;
        out += 32;
    }
    if (nblocks & 1) prev = cbc_dec_blocks(dk, prev, out, in, 1);
    vst1q_u8(iv, prev);
    WIPE_KEYS(dk);
}

/* The counter block for (hi, lo): each 64-bit half stored big-endian. */
TG_CE_INLINE uint8x16_t ctr_block(uint64_t hi, uint64_t lo) {
    return vrev64q_u8(vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(hi), vcreate_u64(lo))));
}

/* n (1..8, a constant after inlining) blocks: out_j = in_j ^ AES(counter
 * (hi, lo) + j). */
TG_CE_INLINE void ctr_blocks(const uint8x16_t k[15], uint64_t hi, uint64_t lo, uint8_t *out, const uint8_t *in, int n) {
    uint8x16_t b[8];
    for (int j = 0; j < n; j++) {
        uint64_t l = lo + (uint64_t)j;
        b[j] = ctr_block(hi + (l < lo), l); /* carry into the high half on wrap */
    }
    TG_UNROLL for (int r = 0; r < 13; r++)
        for (int j = 0; j < n; j++) b[j] = vaesmcq_u8(vaeseq_u8(b[j], k[r]));
    for (int j = 0; j < n; j++) b[j] = vaeseq_u8(b[j], k[13]);
    for (int j = 0; j < n; j++)
        vst1q_u8(out + 16 * j, veorq_u8(b[j], veorq_u8(vld1q_u8(in + 16 * j), k[14])));
}

static TG_CE void armce_ctr_xor(const tg_sched *s, uint8_t ctr[16], uint8_t *out, const uint8_t *in, size_t nblocks) {
    if (nblocks == 0) return;
    uint8x16_t k[15];
    load_keys(k, s->bytes + ENC_KEYS);

    /* 128-bit counter as two halves; (hi, lo) += n wraps modulo 2^128. */
    uint64_t hi = tg_load64_be(ctr), lo = tg_load64_be(ctr + 8);
#define CTR_STEP(n)                              \
    do {                                         \
        ctr_blocks(k, hi, lo, out, in, (n));     \
        lo += (n);                               \
        hi += lo < (uint64_t)(n);                \
        in += 16 * (n);                          \
        out += 16 * (n);                         \
    } while (0)
    for (; nblocks >= 8; nblocks -= 8) CTR_STEP(8);
    if (nblocks & 4) CTR_STEP(4);
    if (nblocks & 2) CTR_STEP(2);
    if (nblocks & 1) CTR_STEP(1);
#undef CTR_STEP
    vst1q_u8(ctr, ctr_block(hi, lo));
    WIPE_KEYS(k);
}

const tg_aes_backend tg_backend_armce = {
    .name = "armce",
    .cpu_needs = TG_CPU_ARMAES,
    .sched_size = SCHED_BYTES,
    .expand_key = armce_expand_key,
    .ige_encrypt = armce_ige_encrypt,
    .ige_decrypt = armce_ige_decrypt,
    .cbc_encrypt = armce_cbc_encrypt,
    .cbc_decrypt = armce_cbc_decrypt,
    .ctr_xor = armce_ctr_xor,
    .sched_size_encrypt = DEC_KEYS, /* ENC_KEYS only */
};

#endif /* TG_HAVE_ARM_BACKENDS */
