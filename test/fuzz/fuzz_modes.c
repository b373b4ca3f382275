/*
 * fuzz_modes.c - differential fuzzing of the three modes.
 *
 * Property: for a random key, iv, CTR state, data length, data and a random
 * chunking, every backend this CPU has, one-shot and context, in place or
 * not, at any alignment, gives
 *   - the same output as `soft`, and
 *   - the same output as an independent reference: OpenSSL libcrypto's
 *     EVP AES-256-CBC and AES-256-CTR, and IGE chained here over
 *     EVP AES-256-ECB (OpenSSL's IV layout: iv[0..16) the previous
 *     ciphertext block, iv[16..32) the previous plaintext block);
 *   - the chaining state the header documents: IGE leaves iv alone, CBC
 *     returns the last ciphertext (encrypt) / input (decrypt) block, CTR
 *     returns the counter of the block holding the next keystream byte and
 *     its offset. CTR counters near ff..ff wrap through all 16 bytes.
 * Buffers are exact-size heap blocks (ASan redzone right after) with a
 * canary before an unaligned start.
 *
 * Input: mode/flags byte, key (32), iv (32), state, alignment, chunk seeds,
 * then the data.
 */
#include "fuzz_common.h"
#include "tgcrypto.h"

#include <openssl/evp.h>

enum { IGE_ENC, IGE_DEC, CBC_ENC, CBC_DEC, CTR, MODE_COUNT };

#define MAX_DATA 8192
#define MAX_CHUNKS 16

/* ---- OpenSSL reference ---- */

static void evp_run(const EVP_CIPHER *cipher, int enc, const uint8_t key[32], const uint8_t *iv,
                    uint8_t *out, const uint8_t *in, size_t len) {
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int n = 0, m = 0;
    FUZZ_CHECK(c != NULL, "EVP_CIPHER_CTX_new");
    FUZZ_CHECK(EVP_CipherInit_ex(c, cipher, NULL, key, iv, enc) == 1, "EVP init");
    EVP_CIPHER_CTX_set_padding(c, 0);
    FUZZ_CHECK(EVP_CipherUpdate(c, out, &n, in, (int)len) == 1, "EVP update");
    FUZZ_CHECK(EVP_CipherFinal_ex(c, out + n, &m) == 1, "EVP final");
    FUZZ_CHECK((size_t)(n + m) == len, "EVP wrote %d of %zu bytes", n + m, len);
    EVP_CIPHER_CTX_free(c);
}

static void xor16(uint8_t *d, const uint8_t *a, const uint8_t *b) {
    for (int i = 0; i < 16; i++) d[i] = a[i] ^ b[i];
}

/* IGE: c_i = E(p_i ^ c_{i-1}) ^ p_{i-1}; decrypt p_i = D(c_i ^ p_{i-1}) ^ c_{i-1}.
 * Either way: XOR the previous output in before the block cipher and the
 * previous input after. Both directions keep iv[0..16) = previous
 * ciphertext, iv[16..32) = previous plaintext (OpenSSL's AES_ige_encrypt). */
static void ref_ige(int decrypt, const uint8_t key[32], const uint8_t iv[32],
                    uint8_t *out, const uint8_t *in, size_t len) {
    uint8_t prev_out[16], prev_in[16], t[16], u[16];
    memcpy(prev_out, decrypt ? iv + 16 : iv, 16);
    memcpy(prev_in, decrypt ? iv : iv + 16, 16);
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int n = 0;
    FUZZ_CHECK(c != NULL && EVP_CipherInit_ex(c, EVP_aes_256_ecb(), NULL, key, NULL, !decrypt) == 1, "ECB init");
    EVP_CIPHER_CTX_set_padding(c, 0);
    for (size_t off = 0; off < len; off += 16) {
        xor16(t, in + off, prev_out);
        FUZZ_CHECK(EVP_CipherUpdate(c, u, &n, t, 16) == 1 && n == 16, "ECB block");
        xor16(out + off, u, prev_in);
        memcpy(prev_out, out + off, 16);
        memcpy(prev_in, in + off, 16);
    }
    EVP_CIPHER_CTX_free(c);
}

/* The reference for every mode, with the chaining value afterwards. */
static void reference(int mode, const uint8_t key[32], const uint8_t iv[32], uint8_t state,
                      const uint8_t *in, size_t len, uint8_t *out, uint8_t iv_after[32], uint8_t *state_after) {
    memcpy(iv_after, iv, 32);
    *state_after = state;
    switch (mode) {
    case IGE_ENC: ref_ige(0, key, iv, out, in, len); break;
    case IGE_DEC: ref_ige(1, key, iv, out, in, len); break;
    case CBC_ENC:
    case CBC_DEC:
        evp_run(EVP_aes_256_cbc(), mode == CBC_ENC, key, iv, out, in, len);
        if (len) memcpy(iv_after, mode == CBC_ENC ? out + len - 16 : in + len - 16, 16);
        break;
    default: { /* CTR: skip `state` keystream bytes, then the data */
        uint8_t *tmp = malloc(state + len + 1);
        memset(tmp, 0, state);
        memcpy(tmp + state, in, len);
        evp_run(EVP_aes_256_ctr(), 1, key, iv, tmp, tmp, state + len);
        memcpy(out, tmp + state, len);
        free(tmp);
        /* position: counter + (state + len) / 16 blocks, offset (state + len) % 16 */
        uint64_t blocks = ((uint64_t)state + len) / 16;
        for (int i = 15; i >= 0 && blocks != 0; i--) {
            uint64_t sum = (uint64_t)iv_after[i] + (blocks & 0xff);
            iv_after[i] = (uint8_t)sum;
            blocks = (blocks >> 8) + (sum >> 8);
        }
        *state_after = (uint8_t)((state + len) % 16);
    }
    }
}

/* ---- the library ---- */

static int one_shot(int mode, uint8_t *out, const uint8_t *in, uint32_t len,
                    const uint8_t key[32], uint8_t *iv, uint8_t *state) {
    switch (mode) {
    case IGE_ENC: return tg_ige256_encrypt(out, in, len, key, iv);
    case IGE_DEC: return tg_ige256_decrypt(out, in, len, key, iv);
    case CBC_ENC: return tg_cbc256_encrypt(out, in, len, key, iv);
    case CBC_DEC: return tg_cbc256_decrypt(out, in, len, key, iv);
    default:      return tg_ctr256(out, in, len, key, iv, state);
    }
}

/* The data through a context in the given chunks; the CTR position after. */
static void context_run(int mode, const uint8_t key[32], const uint8_t iv[32], uint8_t state,
                        const uint32_t *chunks, int nchunks, int in_place,
                        uint8_t *out, const uint8_t *in, uint8_t pos_iv[16], uint8_t *pos_state) {
    tg_ctr_ctx *ctr = NULL;
    tg_ige_ctx *ige = NULL;
    tg_cbc_ctx *cbc = NULL;
    if (mode == CTR) ctr = tg_ctr_new(key, iv, state);
    else if (mode <= IGE_DEC) ige = tg_ige_new(key, iv, mode == IGE_DEC);
    else cbc = tg_cbc_new(key, iv, mode == CBC_DEC);
    FUZZ_CHECK(ctr || ige || cbc, "context creation failed");
    size_t off = 0;
    for (int i = 0; i < nchunks; i++) {
        /* each chunk in an exact-size block of its own: ASan sees overruns */
        guarded src = guarded_new(chunks[i], 0);
        memcpy(src.data, in + off, chunks[i]);
        guarded dst = in_place ? src : guarded_new(chunks[i], 0);
        int rc = ctr ? tg_ctr_update(ctr, dst.data, src.data, chunks[i])
               : ige ? tg_ige_update(ige, dst.data, src.data, chunks[i])
                     : tg_cbc_update(cbc, dst.data, src.data, chunks[i]);
        FUZZ_CHECK(rc == TG_OK, "update of %u bytes: %d", chunks[i], rc);
        memcpy(out + off, dst.data, chunks[i]);
        if (!in_place) guarded_free(&dst);
        guarded_free(&src);
        off += chunks[i];
    }
    if (ctr) {
        FUZZ_CHECK(tg_ctr_position(ctr, pos_iv, pos_state) == TG_OK, "tg_ctr_position");
        tg_ctr_free(ctr);
    }
    tg_ige_free(ige);
    tg_cbc_free(cbc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input fi = {data, size};
    const uint8_t flags = fz_u8(&fi);
    const int mode = (flags & 7) % MODE_COUNT;
    const int in_place = (flags >> 3) & 1;
    uint8_t key[32], iv[32];
    fz_bytes(&fi, key, 32);
    fz_bytes(&fi, iv, 32);
    if ((flags >> 4) & 1) memset(iv, 0xff, 16 - (fz_u8(&fi) & 3)); /* counter near ff..ff: wraps */
    const uint8_t state = mode == CTR ? fz_u8(&fi) & 15 : 0;
    const size_t align = fz_u8(&fi) & 15;
    uint32_t seeds[MAX_CHUNKS];
    for (int i = 0; i < MAX_CHUNKS; i++) seeds[i] = fz_u8(&fi);

    size_t len = fi.n > MAX_DATA ? MAX_DATA : fi.n;
    if (mode != CTR) len -= len % 16;
    const uint8_t *plain = fi.p;

    /* Random chunking: whole blocks for IGE/CBC, any length for CTR; 0-length chunks too. */
    const uint32_t unit = mode == CTR ? 1 : 16;
    uint32_t chunks[MAX_CHUNKS + 1];
    int nchunks = 0;
    size_t left = len / unit;
    for (int i = 0; i < MAX_CHUNKS && left > 0; i++) {
        uint32_t n = seeds[i] == 0 ? 0 : (uint32_t)(((size_t)seeds[i] * seeds[i]) % (left + 1));
        chunks[nchunks++] = n * unit;
        left -= n;
    }
    chunks[nchunks++] = (uint32_t)(left * unit);

    uint8_t *expect = malloc(len + 1), *soft = malloc(len + 1), *ctx_out = malloc(len + 1);
    uint8_t ref_iv[32], ref_state;
    reference(mode, key, iv, state, plain, len, expect, ref_iv, &ref_state);

    const char *saved = tg_backend();
    FUZZ_CHECK(saved != NULL, "no backend");
    int have_soft = 0;
    for (uint32_t b = tg_backend_count(); b-- > 0;) { /* soft (last) first */
        if (!tg_backend_available(b)) continue;
        const char *name = tg_backend_name(b);
        FUZZ_CHECK(tg_set_backend(name) == TG_OK, "set backend %s", name);

        /* one-shot, at an unaligned start with a canary before it */
        guarded src = guarded_new(len, align);
        memcpy(src.data, plain, len);
        guarded dst = in_place ? src : guarded_new(len, 15 - align);
        guarded giv = guarded_new(32, 3);
        memcpy(giv.data, iv, 32);
        uint8_t st = state;
        int rc = one_shot(mode, dst.data, src.data, (uint32_t)len, key, giv.data, &st);
        FUZZ_CHECK(rc == TG_OK, "%s mode %d len %zu: rc %d", name, mode, len, rc);
        FUZZ_CHECK(memcmp(dst.data, expect, len) == 0, "%s mode %d len %zu in_place %d: differs from OpenSSL",
                   name, mode, len, in_place);
        const size_t iv_len = mode <= IGE_DEC ? 32 : 16;
        FUZZ_CHECK(memcmp(giv.data, ref_iv, iv_len) == 0, "%s mode %d: iv after the call", name, mode);
        FUZZ_CHECK(st == ref_state, "%s: state after %u, expected %u", name, st, ref_state);
        FUZZ_CHECK(guarded_intact(&src) && guarded_intact(&dst) && guarded_intact(&giv), "%s: canary overwritten", name);
        if (strcmp(name, "soft") == 0) {
            memcpy(soft, dst.data, len);
            have_soft = 1;
        } else {
            FUZZ_CHECK(have_soft && memcmp(dst.data, soft, len) == 0, "%s differs from soft", name);
        }
        if (!in_place) guarded_free(&dst);
        guarded_free(&src);
        guarded_free(&giv);

        /* context, in the random chunks */
        uint8_t pos_iv[16], pos_state = 0;
        context_run(mode, key, iv, state, chunks, nchunks, in_place, ctx_out, plain, pos_iv, &pos_state);
        FUZZ_CHECK(memcmp(ctx_out, expect, len) == 0, "%s context mode %d (%d chunks) differs", name, mode, nchunks);
        if (mode == CTR) {
            FUZZ_CHECK(memcmp(pos_iv, ref_iv, 16) == 0 && pos_state == ref_state, "%s: context position", name);
        }
    }
    FUZZ_CHECK(have_soft, "soft did not run");
    FUZZ_CHECK(tg_set_backend(saved) == TG_OK, "restore backend");
    free(expect);
    free(soft);
    free(ctx_out);
    return 0;
}
