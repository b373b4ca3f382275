/*
 * aes_soft.c - portable, constant-time AES-256 (bitsliced). The fallback
 * backend: plain C11, no tables, no branches or addresses that depend on
 * the key or the data.
 *
 * Bitslice layout. A state holds four 16-byte blocks (64 bytes) as eight
 * uint64_t bit planes q[0..7]: bit p of q[j] is bit j (0 = least
 * significant) of the byte at position
 *
 *     p = 16*r + 4*c + b
 *
 * where b is the block (0..3) and the byte is block byte i = 4*c + r, i.e.
 * row r and column c of the FIPS-197 state. So within every plane each row
 * of all four blocks is one 16-bit lane, each column one 4-bit nibble of it,
 * and the four blocks are the four bits of a nibble. Consequences:
 *   - SubBytes is one Boolean circuit run on the eight planes: all 64 bytes
 *     at once, nothing indexed by secrets.
 *   - ShiftRows rotates the 16-bit lane of row r by 4*r bits.
 *   - MixColumns needs "same column, next row": a rotation of the whole
 *     64-bit plane by 16 bits.
 * Round keys are stored bitsliced too, each key byte repeated in all four
 * block positions: 15 keys x 8 planes x 8 bytes = 960 bytes of tg_sched.
 * Encryption and decryption use the same schedule (the decryption loop
 * runs the FIPS-197 inverse cipher, which takes the keys in reverse order).
 *
 * Parallel modes (CTR, CBC decryption) fill all four blocks; serial modes
 * (IGE, CBC encryption) use one and leave three lanes idle.
 */
#include "backend.h"

#define NROUNDS 14
#define SCHED_WORDS ((NROUNDS + 1) * 8)

/* ---- bit-plane conversion ---- */

/* Exchange the bits of b selected by m with the bits of a selected by m << n. */
#define SWAPMOVE(a, b, m, n)                        \
    do {                                            \
        uint64_t t_ = (((a) >> (n)) ^ (b)) & (m);   \
        (b) ^= t_;                                  \
        (a) ^= t_ << (n);                           \
    } while (0)

/* Transpose, in each of the eight byte lanes, the 8x8 bit matrix formed by
 * the eight words: afterwards bit k of lane m of q[j] is what was bit j of
 * lane m of q[k]. An involution, so it packs and unpacks. */
static void transpose(uint64_t q[8]) {
    for (int i = 0; i < 8; i += 2)
        SWAPMOVE(q[i], q[i + 1], 0x5555555555555555u, 1);
    for (int i = 0; i < 8; i += 4) {
        SWAPMOVE(q[i], q[i + 2], 0x3333333333333333u, 2);
        SWAPMOVE(q[i + 1], q[i + 3], 0x3333333333333333u, 2);
    }
    for (int i = 0; i < 4; i++)
        SWAPMOVE(q[i], q[i + 4], 0x0f0f0f0f0f0f0f0fu, 4);
}

/*
 * The transpose sends bit j of lane m (bits 8m..8m+7) of word k to bit
 * 8*m + k of plane q[j]: a byte in lane m of word k lands at p = 8*m + k. To land
 * at p = 16*r + 4*c + b, block byte 4*c + r of block b therefore goes to word
 * k = b + 4*(c & 1), lane m = 2*r + (c >> 1). Blocks b >= n are zero.
 */
static void load_blocks(uint64_t q[8], const uint8_t *src, int n) {
    for (int b = 0; b < 4; b++) {
        for (int c0 = 0; c0 < 2; c0++) {
            uint64_t w = 0;
            if (b < n) {
                const uint8_t *s = src + 16 * b + 4 * c0; /* column c0; +8 is column c0+2 */
                for (int r = 0; r < 4; r++)
                    w |= (uint64_t)s[r] << (16 * r) | (uint64_t)s[8 + r] << (16 * r + 8);
            }
            q[b + 4 * c0] = w;
        }
    }
    transpose(q);
}

/* Inverse of load_blocks for the first n blocks; destroys q. */
static void store_blocks(uint8_t *dst, uint64_t q[8], int n) {
    transpose(q);
    for (int b = 0; b < n; b++) {
        for (int c0 = 0; c0 < 2; c0++) {
            uint64_t w = q[b + 4 * c0];
            uint8_t *d = dst + 16 * b + 4 * c0;
            for (int r = 0; r < 4; r++) {
                d[r] = (uint8_t)(w >> (16 * r));
                d[8 + r] = (uint8_t)(w >> (16 * r + 8));
            }
        }
    }
}

/* ---- SubBytes ---- */

/*
 * The AES S-box as a Boolean circuit: the depth-16 circuit of Boyar and
 * Peralta ("A depth-16 circuit for the AES S-box", 2011), 34 AND and 94
 * XOR/XNOR gates. Their U0/S0 is the most significant bit, i.e. plane 7.
 */
static void sbox(uint64_t q[8]) {
    uint64_t U0 = q[7], U1 = q[6], U2 = q[5], U3 = q[4];
    uint64_t U4 = q[3], U5 = q[2], U6 = q[1], U7 = q[0];

    /* top linear layer */
    uint64_t T1 = U0 ^ U3, T2 = U0 ^ U5, T3 = U0 ^ U6, T4 = U3 ^ U5;
    uint64_t T5 = U4 ^ U6, T6 = T1 ^ T5, T7 = U1 ^ U2, T8 = U7 ^ T6;
    uint64_t T9 = U7 ^ T7, T10 = T6 ^ T7, T11 = U1 ^ U5, T12 = U2 ^ U5;
    uint64_t T13 = T3 ^ T4, T14 = T6 ^ T11, T15 = T5 ^ T11, T16 = T5 ^ T12;
    uint64_t T17 = T9 ^ T16, T18 = U3 ^ U7, T19 = T7 ^ T18, T20 = T1 ^ T19;
    uint64_t T21 = U6 ^ U7, T22 = T7 ^ T21, T23 = T2 ^ T22, T24 = T2 ^ T10;
    uint64_t T25 = T20 ^ T17, T26 = T3 ^ T16, T27 = T1 ^ T12;

    /* shared non-linear middle: inversion in GF(2^8) */
    uint64_t M1 = T13 & T6, M2 = T23 & T8, M3 = T14 ^ M1, M4 = T19 & U7;
    uint64_t M5 = M4 ^ M1, M6 = T3 & T16, M7 = T22 & T9, M8 = T26 ^ M6;
    uint64_t M9 = T20 & T17, M10 = M9 ^ M6, M11 = T1 & T15, M12 = T4 & T27;
    uint64_t M13 = M12 ^ M11, M14 = T2 & T10, M15 = M14 ^ M11, M16 = M3 ^ M2;
    uint64_t M17 = M5 ^ T24, M18 = M8 ^ M7, M19 = M10 ^ M15, M20 = M16 ^ M13;
    uint64_t M21 = M17 ^ M15, M22 = M18 ^ M13, M23 = M19 ^ T25, M24 = M22 ^ M23;
    uint64_t M25 = M22 & M20, M26 = M21 ^ M25, M27 = M20 ^ M21, M28 = M23 ^ M25;
    uint64_t M29 = M28 & M27, M30 = M26 & M24, M31 = M20 & M23, M32 = M27 & M31;
    uint64_t M33 = M27 ^ M25, M34 = M21 & M22, M35 = M24 & M34, M36 = M24 ^ M25;
    uint64_t M37 = M21 ^ M29, M38 = M32 ^ M33, M39 = M23 ^ M30, M40 = M35 ^ M36;
    uint64_t M41 = M38 ^ M40, M42 = M37 ^ M39, M43 = M37 ^ M38, M44 = M39 ^ M40;
    uint64_t M45 = M42 ^ M41;
    uint64_t M46 = M44 & T6, M47 = M40 & T8, M48 = M39 & U7, M49 = M43 & T16;
    uint64_t M50 = M38 & T9, M51 = M37 & T17, M52 = M42 & T15, M53 = M45 & T27;
    uint64_t M54 = M41 & T10, M55 = M44 & T13, M56 = M40 & T23, M57 = M39 & T19;
    uint64_t M58 = M43 & T3, M59 = M38 & T22, M60 = M37 & T20, M61 = M42 & T1;
    uint64_t M62 = M45 & T4, M63 = M41 & T2;

    /* bottom linear layer (the XNORs add the affine constant 0x63) */
    uint64_t L0 = M61 ^ M62, L1 = M50 ^ M56, L2 = M46 ^ M48, L3 = M47 ^ M55;
    uint64_t L4 = M54 ^ M58, L5 = M49 ^ M61, L6 = M62 ^ L5, L7 = M46 ^ L3;
    uint64_t L8 = M51 ^ M59, L9 = M52 ^ M53, L10 = M53 ^ L4, L11 = M60 ^ L2;
    uint64_t L12 = M48 ^ M51, L13 = M50 ^ L0, L14 = M52 ^ M61, L15 = M55 ^ L1;
    uint64_t L16 = M56 ^ L0, L17 = M57 ^ L1, L18 = M58 ^ L8, L19 = M63 ^ L4;
    uint64_t L20 = L0 ^ L1, L21 = L1 ^ L7, L22 = L3 ^ L12, L23 = L18 ^ L2;
    uint64_t L24 = L15 ^ L9, L25 = L6 ^ L10, L26 = L7 ^ L9, L27 = L8 ^ L10;
    uint64_t L28 = L11 ^ L14, L29 = L11 ^ L17;

    q[7] = L6 ^ L24;
    q[6] = ~(L16 ^ L26);
    q[5] = ~(L19 ^ L28);
    q[4] = L6 ^ L21;
    q[3] = L20 ^ L22;
    q[2] = L25 ^ L29;
    q[1] = ~(L13 ^ L27);
    q[0] = ~(L6 ^ L23);
}

/* Inverse of the S-box's affine map: y_i = x_{i+2} ^ x_{i+5} ^ x_{i+7} ^ bit i of 0x05. */
static void inv_affine(uint64_t q[8]) {
    uint64_t x0 = q[0], x1 = q[1], x2 = q[2], x3 = q[3];
    uint64_t x4 = q[4], x5 = q[5], x6 = q[6], x7 = q[7];
    q[0] = ~(x2 ^ x5 ^ x7);
    q[1] = x3 ^ x6 ^ x0;
    q[2] = ~(x4 ^ x7 ^ x1);
    q[3] = x5 ^ x0 ^ x2;
    q[4] = x6 ^ x1 ^ x3;
    q[5] = x7 ^ x2 ^ x4;
    q[6] = x0 ^ x3 ^ x5;
    q[7] = x1 ^ x4 ^ x6;
}

/* S(x) = A(x^-1), so S^-1(x) = (A^-1(x))^-1 = A^-1(S(A^-1(x))). */
static void inv_sbox(uint64_t q[8]) {
    inv_affine(q);
    sbox(q);
    inv_affine(q);
}

/* ---- linear layers ---- */

static inline uint64_t ror64(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

/* Row r (bits 16r..16r+15) rotates so column c takes column c+r. */
static inline uint64_t shift_rows1(uint64_t x) {
    return (x & 0x000000000000ffffu)
         | (x & 0x00000000fff00000u) >> 4  | (x & 0x00000000000f0000u) << 12
         | (x & 0x0000ff0000000000u) >> 8  | (x & 0x000000ff00000000u) << 8
         | (x & 0xf000000000000000u) >> 12 | (x & 0x0fff000000000000u) << 4;
}

/* Column c takes column c-r. */
static inline uint64_t inv_shift_rows1(uint64_t x) {
    return (x & 0x000000000000ffffu)
         | (x & 0x000000000fff0000u) << 4  | (x & 0x00000000f0000000u) >> 12
         | (x & 0x0000ff0000000000u) >> 8  | (x & 0x000000ff00000000u) << 8
         | (x & 0xfff0000000000000u) >> 4  | (x & 0x000f000000000000u) << 12;
}

static void shift_rows(uint64_t q[8]) {
    for (int i = 0; i < 8; i++) q[i] = shift_rows1(q[i]);
}

static void inv_shift_rows(uint64_t q[8]) {
    for (int i = 0; i < 8; i++) q[i] = inv_shift_rows1(q[i]);
}

/*
 * b_r = 2*a_r ^ 3*a_{r+1} ^ a_{r+2} ^ a_{r+3}
 *     = 2*(a_r ^ a_{r+1}) ^ a_{r+1} ^ (a_{r+2} ^ a_{r+3}).
 * ror64(x, 16) brings row r+1 to row r. Multiplying by 2 (xtime, modulo
 * x^8+x^4+x^3+x+1) only renames planes and folds plane 7 into 0, 1, 3, 4.
 */
static void mix_columns(uint64_t q[8]) {
    uint64_t a[8], t[8];
    for (int i = 0; i < 8; i++) {
        a[i] = ror64(q[i], 16);
        t[i] = q[i] ^ a[i];
    }
    for (int i = 0; i < 8; i++) q[i] = a[i] ^ ror64(t[i], 32);
    q[0] ^= t[7];
    q[1] ^= t[0] ^ t[7];
    q[2] ^= t[1];
    q[3] ^= t[2] ^ t[7];
    q[4] ^= t[3] ^ t[7];
    q[5] ^= t[4];
    q[6] ^= t[5];
    q[7] ^= t[6];
}

/*
 * InvMixColumns = MixColumns after a_r ^= 4*(a_r ^ a_{r+2}), because
 * {0b,0d,09,0e} = {03,01,01,02} * ({04}x^2 + {05}) modulo x^4 + 1.
 * Multiplying s by 4 = x^2: planes 6 and 7 fold into 0..5.
 */
static void inv_mix_columns(uint64_t q[8]) {
    uint64_t s[8];
    for (int i = 0; i < 8; i++) s[i] = q[i] ^ ror64(q[i], 32);
    q[0] ^= s[6];
    q[1] ^= s[6] ^ s[7];
    q[2] ^= s[0] ^ s[7];
    q[3] ^= s[1] ^ s[6];
    q[4] ^= s[2] ^ s[6] ^ s[7];
    q[5] ^= s[3] ^ s[7];
    q[6] ^= s[4];
    q[7] ^= s[5];
    mix_columns(q);
}

static inline void add_round_key(uint64_t q[8], const uint64_t *rk) {
    for (int i = 0; i < 8; i++) q[i] ^= rk[i];
}

/* ---- the cipher on four blocks ---- */

static void encrypt4(const uint64_t *rk, uint64_t q[8]) {
    add_round_key(q, rk);
    for (int r = 1; r < NROUNDS; r++) {
        sbox(q);
        shift_rows(q);
        mix_columns(q);
        add_round_key(q, rk + 8 * r);
    }
    sbox(q);
    shift_rows(q);
    add_round_key(q, rk + 8 * NROUNDS);
}

/* FIPS-197 InvCipher: same round keys, taken last to first. */
static void decrypt4(const uint64_t *rk, uint64_t q[8]) {
    add_round_key(q, rk + 8 * NROUNDS);
    for (int r = NROUNDS - 1; r > 0; r--) {
        inv_shift_rows(q);
        inv_sbox(q);
        add_round_key(q, rk + 8 * r);
        inv_mix_columns(q);
    }
    inv_shift_rows(q);
    inv_sbox(q);
    add_round_key(q, rk);
}

/* In-place single block, through lane 0. */
static void encrypt1(const uint64_t *rk, uint8_t blk[16], uint64_t q[8]) {
    load_blocks(q, blk, 1);
    encrypt4(rk, q);
    store_blocks(blk, q, 1);
}

static void decrypt1(const uint64_t *rk, uint8_t blk[16], uint64_t q[8]) {
    load_blocks(q, blk, 1);
    decrypt4(rk, q);
    store_blocks(blk, q, 1);
}

static void xor16(uint8_t *d, const uint8_t *a, const uint8_t *b) {
    for (int i = 0; i < 16; i++) d[i] = (uint8_t)(a[i] ^ b[i]);
}

/* ---- key schedule ---- */

/* SubWord on four bytes, through the same circuit (one byte per bit of the
 * planes; the rest of each plane is zero and ignored). */
static void sub_word(uint8_t w[4]) {
    uint64_t q[8];
    TG_TEST_SECRET(q, sizeof q);
    for (int j = 0; j < 8; j++) {
        q[j] = 0;
        for (int k = 0; k < 4; k++) q[j] |= (uint64_t)((w[k] >> j) & 1) << k;
    }
    sbox(q);
    for (int k = 0; k < 4; k++) {
        unsigned v = 0;
        for (int j = 0; j < 8; j++) v |= (unsigned)((q[j] >> k) & 1) << j;
        w[k] = (uint8_t)v;
    }
    tg_wipe(q, sizeof q);
    TG_TEST_CLEAN(q);
}

/* FIPS-197 KeyExpansion for Nk = 8, then each round key bitsliced four-fold.
 * Both directions get the same schedule. */
static void soft_expand_key(tg_sched *s, const uint8_t key[32], int dir) {
    uint8_t w[4 * 4 * (NROUNDS + 1)]; /* 60 words */
    uint8_t t[4], rk4[64];
    uint8_t rcon = 1;
    (void)dir;
    TG_TEST_SECRET(w, sizeof w);
    TG_TEST_SECRET(t, sizeof t);
    TG_TEST_SECRET(rk4, sizeof rk4);

    memcpy(w, key, 32);
    for (int i = 8; i < 4 * (NROUNDS + 1); i++) {
        memcpy(t, w + 4 * (i - 1), 4);
        if (i % 8 == 0) { /* RotWord, SubWord, Rcon */
            uint8_t t0 = t[0];
            t[0] = t[1]; t[1] = t[2]; t[2] = t[3]; t[3] = t0;
            sub_word(t);
            t[0] ^= rcon;
            rcon = (uint8_t)(rcon << 1); /* only 0x01..0x40 are used: no reduction */
        } else if (i % 8 == 4) {
            sub_word(t);
        }
        for (int k = 0; k < 4; k++) w[4 * i + k] = (uint8_t)(w[4 * (i - 8) + k] ^ t[k]);
    }

    for (int r = 0; r <= NROUNDS; r++) {
        for (int b = 0; b < 4; b++) memcpy(rk4 + 16 * b, w + 16 * r, 16);
        load_blocks(&s->words[8 * r], rk4, 4);
    }

    tg_wipe(w, sizeof w);
    tg_wipe(t, sizeof t);
    tg_wipe(rk4, sizeof rk4);
    TG_TEST_CLEAN(w);
    TG_TEST_CLEAN(t);
    TG_TEST_CLEAN(rk4);
}

/* ---- modes ---- */

static void soft_ige_encrypt(const tg_sched *s, uint8_t iv[32], uint8_t *out,
                             const uint8_t *in, size_t nblocks) {
    uint8_t y[16], xprev[16], x[16], blk[16];
    uint64_t q[8];
    if (nblocks == 0) return;
    TG_TEST_SECRET(xprev, sizeof xprev);
    TG_TEST_SECRET(x, sizeof x);
    TG_TEST_SECRET(blk, sizeof blk);
    TG_TEST_SECRET(q, sizeof q);
    memcpy(y, iv, 16);
    memcpy(xprev, iv + 16, 16);
    for (size_t n = 0; n < nblocks; n++, in += 16, out += 16) {
        memcpy(x, in, 16); /* before out (maybe == in) is written */
        xor16(blk, x, y);
        encrypt1(s->words, blk, q);
        xor16(y, blk, xprev);
        memcpy(out, y, 16);
        memcpy(xprev, x, 16);
    }
    memcpy(iv, y, 16);
    memcpy(iv + 16, xprev, 16);
    tg_wipe(xprev, sizeof xprev);
    tg_wipe(x, sizeof x);
    tg_wipe(blk, sizeof blk);
    tg_wipe(q, sizeof q);
    TG_TEST_CLEAN(xprev);
    TG_TEST_CLEAN(x);
    TG_TEST_CLEAN(blk);
    TG_TEST_CLEAN(q);
}

static void soft_ige_decrypt(const tg_sched *s, uint8_t iv[32], uint8_t *out,
                             const uint8_t *in, size_t nblocks) {
    uint8_t yprev[16], xprev[16], y[16], blk[16];
    uint64_t q[8];
    if (nblocks == 0) return;
    TG_TEST_SECRET(xprev, sizeof xprev);
    TG_TEST_SECRET(blk, sizeof blk);
    TG_TEST_SECRET(q, sizeof q);
    memcpy(yprev, iv, 16);
    memcpy(xprev, iv + 16, 16);
    for (size_t n = 0; n < nblocks; n++, in += 16, out += 16) {
        memcpy(y, in, 16);
        xor16(blk, y, xprev);
        decrypt1(s->words, blk, q);
        xor16(xprev, blk, yprev);
        memcpy(out, xprev, 16);
        memcpy(yprev, y, 16);
    }
    memcpy(iv, yprev, 16);
    memcpy(iv + 16, xprev, 16);
    tg_wipe(xprev, sizeof xprev);
    tg_wipe(blk, sizeof blk);
    tg_wipe(q, sizeof q);
    TG_TEST_CLEAN(xprev);
    TG_TEST_CLEAN(blk);
    TG_TEST_CLEAN(q);
}

static void soft_cbc_encrypt(const tg_sched *s, uint8_t iv[16], uint8_t *out,
                             const uint8_t *in, size_t nblocks) {
    uint8_t blk[16];
    uint64_t q[8];
    if (nblocks == 0) return;
    TG_TEST_SECRET(q, sizeof q);
    memcpy(blk, iv, 16);
    for (size_t n = 0; n < nblocks; n++, in += 16, out += 16) {
        xor16(blk, blk, in);
        encrypt1(s->words, blk, q);
        memcpy(out, blk, 16);
    }
    memcpy(iv, blk, 16);
    tg_wipe(q, sizeof q);
    TG_TEST_CLEAN(q);
}

static void soft_cbc_decrypt(const tg_sched *s, uint8_t iv[16], uint8_t *out,
                             const uint8_t *in, size_t nblocks) {
    uint8_t c[16 + 64], p[64]; /* c = previous ciphertext block, then up to 4 new ones */
    uint64_t q[8];
    if (nblocks == 0) return;
    TG_TEST_SECRET(p, sizeof p);
    TG_TEST_SECRET(q, sizeof q);
    memcpy(c, iv, 16);
    while (nblocks > 0) {
        int n = nblocks < 4 ? (int)nblocks : 4;
        memcpy(c + 16, in, 16 * (size_t)n); /* keep the ciphertext: out may be in */
        load_blocks(q, c + 16, n);
        decrypt4(s->words, q);
        store_blocks(p, q, n);
        for (int b = 0; b < n; b++) xor16(out + 16 * b, p + 16 * b, c + 16 * b);
        memcpy(c, c + 16 * n, 16);
        in += 16 * n;
        out += 16 * n;
        nblocks -= (size_t)n;
    }
    memcpy(iv, c, 16);
    tg_wipe(p, sizeof p);
    tg_wipe(q, sizeof q);
    TG_TEST_CLEAN(p);
    TG_TEST_CLEAN(q);
}

static void soft_ctr_xor(const tg_sched *s, uint8_t ctr[16], uint8_t *out,
                         const uint8_t *in, size_t nblocks) {
    uint8_t ks[64];
    uint64_t q[8];
    if (nblocks == 0) return;
    TG_TEST_SECRET(ks, sizeof ks);
    TG_TEST_SECRET(q, sizeof q);
    while (nblocks > 0) {
        int n = nblocks < 4 ? (int)nblocks : 4;
        for (int b = 0; b < n; b++) {
            memcpy(ks + 16 * b, ctr, 16);
            tg_ctr_add(ks + 16 * b, (uint64_t)b);
        }
        load_blocks(q, ks, n);
        encrypt4(s->words, q);
        store_blocks(ks, q, n);
        for (int b = 0; b < n; b++) xor16(out + 16 * b, in + 16 * b, ks + 16 * b);
        tg_ctr_add(ctr, (uint64_t)n);
        in += 16 * n;
        out += 16 * n;
        nblocks -= (size_t)n;
    }
    tg_wipe(ks, sizeof ks);
    tg_wipe(q, sizeof q);
    TG_TEST_CLEAN(ks);
    TG_TEST_CLEAN(q);
}

const tg_aes_backend tg_backend_soft = {
    "soft",
    0,
    SCHED_WORDS * sizeof(uint64_t),
    soft_expand_key,
    soft_ige_encrypt,
    soft_ige_decrypt,
    soft_cbc_encrypt,
    soft_cbc_decrypt,
    soft_ctr_xor,
    SCHED_WORDS * sizeof(uint64_t), /* one schedule serves both directions */
};
