/*
 * fuzz_mtproto.c - the MTProto 2.0 message layer against an independent
 * reference (OpenSSL's SHA-1, SHA-256 and AES-256-ECB with the IGE chaining
 * and the MTProto 2.0 key derivation written here from
 * core.telegram.org/mtproto/description).
 *
 * Properties:
 *   - tg_mtproto_encrypt of any plaintext and padding, in either direction,
 *     equals the reference packet byte for byte; bad arguments (direction,
 *     sizes, padding length) give one of the documented codes and write
 *     nothing;
 *   - tg_mtproto_decrypt of any packet (raw input, or a valid packet with
 *     random mutations: byte changes, truncation, extension, the other
 *     direction) accepts exactly when the reference does (auth_key_id,
 *     msg_key, message_data_length % 4 == 0, padding 12..1024); an accepted
 *     packet's plaintext equals the reference, bytes past it are zero, and
 *     re-encrypting it with its own padding gives the packet back; a
 *     rejected one returns TG_ERR_SECURITY and leaves the output all zero;
 *   - in-place decryption (plaintext == packet + 24) gives the same;
 *   - every buffer is an exact-size heap block, so any read or write out of
 *     bounds trips ASan.
 */
#include "fuzz_common.h"
#include "tgcrypto.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#define MAX_PLAIN 4096

/* ---- reference ---- */

static void ref_sha256_2(uint8_t out[32], const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    SHA256_CTX c;
    SHA256_Init(&c);
    SHA256_Update(&c, a, alen);
    SHA256_Update(&c, b, blen);
    SHA256_Final(out, &c);
}

static void ref_derive(const uint8_t ak[256], uint32_t x, const uint8_t msg_key[16], uint8_t key[32], uint8_t iv[32]) {
    uint8_t a[32], b[32];
    ref_sha256_2(a, msg_key, 16, ak + x, 36);
    ref_sha256_2(b, ak + 40 + x, 36, msg_key, 16);
    memcpy(key, a, 8), memcpy(key + 8, b + 8, 16), memcpy(key + 24, a + 24, 8);
    memcpy(iv, b, 8), memcpy(iv + 8, a + 8, 16), memcpy(iv + 24, b + 24, 8);
}

/* IGE over ECB; iv[0..16) previous ciphertext, iv[16..32) previous plaintext. */
static void ref_ige(int decrypt, const uint8_t key[32], const uint8_t iv[32], uint8_t *out, const uint8_t *in, size_t len) {
    uint8_t prev_out[16], prev_in[16], t[16], u[16];
    memcpy(prev_out, decrypt ? iv + 16 : iv, 16);
    memcpy(prev_in, decrypt ? iv : iv + 16, 16);
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int n = 0;
    FUZZ_CHECK(c && EVP_CipherInit_ex(c, EVP_aes_256_ecb(), NULL, key, NULL, !decrypt) == 1, "ECB init");
    EVP_CIPHER_CTX_set_padding(c, 0);
    for (size_t off = 0; off < len; off += 16) {
        for (int i = 0; i < 16; i++) t[i] = in[off + i] ^ prev_out[i];
        FUZZ_CHECK(EVP_CipherUpdate(c, u, &n, t, 16) == 1 && n == 16, "ECB");
        for (int i = 0; i < 16; i++) out[off + i] = u[i] ^ prev_in[i];
        memcpy(prev_out, out + off, 16);
        memcpy(prev_in, in + off, 16);
    }
    EVP_CIPHER_CTX_free(c);
}

static void ref_key_id(const uint8_t ak[256], uint8_t id[8]) {
    uint8_t d[20];
    SHA1(ak, 256, d);
    memcpy(id, d + 12, 8);
}

/* packet of 24 + len bytes from data (plaintext || padding, len % 16 == 0). */
static void ref_encrypt(const uint8_t ak[256], uint32_t x, const uint8_t *data, size_t len, uint8_t *packet) {
    uint8_t large[32], key[32], iv[32];
    ref_sha256_2(large, ak + 88 + x, 32, data, len);
    ref_derive(ak, x, large + 8, key, iv);
    ref_key_id(ak, packet);
    memcpy(packet + 8, large + 8, 16);
    ref_ige(0, key, iv, packet + 24, data, len);
}

/* The verdict: plaintext length (>= 32) or -1; `full` gets every decrypted byte. */
static long ref_decrypt(const uint8_t ak[256], uint32_t x, const uint8_t *packet, size_t len, uint8_t *full) {
    if (len < 24 + 32 || (len - 24) % 16 != 0) return -1;
    const size_t n = len - 24;
    uint8_t key[32], iv[32], large[32], id[8];
    ref_derive(ak, x, packet + 8, key, iv);
    ref_ige(1, key, iv, full, packet + 24, n);
    ref_sha256_2(large, ak + 88 + x, 32, full, n);
    ref_key_id(ak, id);
    if (memcmp(id, packet, 8) != 0 || memcmp(large + 8, packet + 8, 16) != 0) return -1;
    const uint32_t data_len = (uint32_t)full[28] | (uint32_t)full[29] << 8 | (uint32_t)full[30] << 16 | (uint32_t)full[31] << 24;
    const int64_t pad = (int64_t)n - 32 - data_len;
    if (data_len % 4 != 0 || pad < 12 || pad > 1024) return -1;
    return 32 + (long)data_len;
}

/* ---- checks ---- */

static int all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

/* Decrypts `packet` with the library (separately and in place) and checks it against the reference. */
static void check_decrypt(const tg_auth_key *k, const uint8_t ak[256], uint32_t x, const uint8_t *packet, size_t len) {
    const size_t out_len = len > 24 ? len - 24 : 0;
    uint8_t *full = malloc(out_len + 1);
    const long expect = ref_decrypt(ak, x, packet, len, full);

    guarded out = guarded_new(out_len, 7);
    memset(out.data, 0x5a, out_len);
    int rc = tg_mtproto_decrypt(k, x, out.data, packet, (uint32_t)len);
    FUZZ_CHECK(guarded_intact(&out), "decrypt wrote before its output");
    if (expect < 0) {
        FUZZ_CHECK(rc == TG_ERR_SECURITY, "decrypt of %zu bytes: accepted (%d), reference rejects", len, rc);
        FUZZ_CHECK(all_zero(out.data, out_len), "rejected: output not zeroed");
    } else {
        FUZZ_CHECK(rc == expect, "decrypt of %zu bytes: %d, reference accepts %ld", len, rc, expect);
        FUZZ_CHECK(memcmp(out.data, full, (size_t)expect) == 0, "plaintext differs from the reference");
        FUZZ_CHECK(all_zero(out.data + expect, out_len - (size_t)expect), "padding not zeroed");
        /* re-encrypted with its own padding, it is the same packet */
        uint8_t *again = malloc(len);
        int rc2 = tg_mtproto_encrypt(k, x, again, out.data, (uint32_t)expect, NULL, 0,
                                     full + expect, (uint32_t)(out_len - (size_t)expect));
        FUZZ_CHECK(rc2 == TG_OK && memcmp(again, packet, len) == 0, "accepted packet does not re-encrypt to itself (%d)", rc2);
        free(again);
    }
    guarded_free(&out);

    /* in place: plaintext == packet + 24 */
    if (len >= 24) {
        uint8_t *copy = malloc(len + 1);
        memcpy(copy, packet, len);
        int rc3 = tg_mtproto_decrypt(k, x, copy + 24, copy, (uint32_t)len);
        FUZZ_CHECK(rc3 == rc, "in place: %d, separate: %d", rc3, rc);
        if (rc3 >= 0) FUZZ_CHECK(memcmp(copy + 24, full, (size_t)rc3) == 0, "in-place plaintext differs");
        else FUZZ_CHECK(all_zero(copy + 24, out_len), "in place rejected: output not zeroed");
        free(copy);
    }
    free(full);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input in = {data, size};
    const uint8_t flags = fz_u8(&in);
    const uint32_t x = (flags & 1) ? TG_MTPROTO_FROM_SERVER : TG_MTPROTO_FROM_CLIENT;
    uint8_t ak[256];
    fz_bytes(&in, ak, 256);
    tg_auth_key *k = tg_auth_key_new(ak);
    FUZZ_CHECK(k != NULL, "tg_auth_key_new");
    uint8_t id[8], ref_id[8];
    ref_key_id(ak, ref_id);
    FUZZ_CHECK(tg_auth_key_id(k, id) == TG_OK && memcmp(id, ref_id, 8) == 0, "auth_key_id");

    if ((flags >> 1) % 4 == 0) {
        /* a raw packet (with the right auth_key_id if asked) */
        size_t len = in.n > MAX_PLAIN + 24 ? MAX_PLAIN + 24 : in.n;
        uint8_t *packet = malloc(len + 1);
        memcpy(packet, in.p, len);
        if ((flags & 0x10) && len >= 8) memcpy(packet, ref_id, 8);
        check_decrypt(k, ak, x, packet, len);
        free(packet);
        tg_auth_key_free(k);
        return 0;
    }

    /* Encrypt: head || body || padding from the input. */
    const uint32_t plain_len = 32 + 4 * fz_below(&in, (MAX_PLAIN - 32) / 4 + 1);
    uint32_t head_len = fz_below(&in, plain_len + 1);
    uint32_t pad_len = 12 + fz_below(&in, 1024 - 12 + 1);
    const int bad_args = (flags & 0x20) != 0;
    uint32_t ex = x;
    if (!bad_args) pad_len += (16 - (plain_len + pad_len) % 16) % 16, pad_len -= pad_len > 1024 ? 16 : 0;
    else {
        if (fz_u8(&in) < 64) ex = fz_u32(&in);
        if (fz_u8(&in) < 64) head_len = fz_below(&in, 32); /* plaintext too short, body empty */
    }
    uint8_t *plain = malloc(plain_len), *pad = malloc(pad_len + 1);
    fz_bytes(&in, plain, plain_len);
    fz_bytes(&in, pad, pad_len);
    if (!(flags & 0x40)) { /* a consistent message_data_length (else whatever the input says) */
        const uint32_t dl = plain_len - 32;
        plain[28] = (uint8_t)dl, plain[29] = (uint8_t)(dl >> 8), plain[30] = (uint8_t)(dl >> 16), plain[31] = (uint8_t)(dl >> 24);
    }
    const uint32_t body_len = (bad_args && head_len < 32) ? 0 : plain_len - head_len;
    const uint64_t total_plain = (uint64_t)head_len + body_len;
    guarded head = guarded_new(head_len, 0), body = guarded_new(body_len, 0), padding = guarded_new(pad_len, 0);
    memcpy(head.data, plain, head_len);
    memcpy(body.data, plain + head_len, body_len);
    memcpy(padding.data, pad, pad_len);
    const size_t pkt_len = 24 + total_plain + pad_len;
    guarded packet = guarded_new(pkt_len, 5);
    memset(packet.data, 0x33, pkt_len);

    uint32_t expect = 0; /* bit set over -code */
    if (ex != 0 && ex != 8) expect |= 1u << -TG_ERR_DIRECTION;
    if (total_plain < 32) expect |= 1u << -TG_ERR_SIZE;
    if (pad_len < 12 || pad_len > 1024 || (total_plain + pad_len) % 16 != 0) expect |= 1u << -TG_ERR_PADDING;
    int rc = tg_mtproto_encrypt(k, ex, packet.data, head.data, head_len, body.data, body_len, padding.data, pad_len);
    FUZZ_CHECK(guarded_intact(&packet), "encrypt wrote before the packet");
    if (expect != 0) {
        FUZZ_CHECK(rc < 0 && ((1u << -rc) & expect), "encrypt: %d, allowed set 0x%x", rc, expect);
        for (size_t i = 0; i < pkt_len; i++) FUZZ_CHECK(packet.data[i] == 0x33, "rejected encrypt wrote the packet");
    } else {
        FUZZ_CHECK(rc == TG_OK, "encrypt: %d", rc);
        uint8_t *ref = malloc(pkt_len), *joined = malloc(total_plain + pad_len);
        memcpy(joined, plain, total_plain);
        memcpy(joined + total_plain, pad, pad_len);
        ref_encrypt(ak, ex, joined, total_plain + pad_len, ref);
        FUZZ_CHECK(memcmp(ref, packet.data, pkt_len) == 0, "encrypt differs from the reference");
        free(ref), free(joined);

        /* the packet, then mutated copies of it, through decrypt */
        check_decrypt(k, ak, ex, packet.data, pkt_len);
        const int mutations = fz_u8(&in) % 8;
        size_t len = pkt_len;
        uint8_t *m = malloc(pkt_len + 64);
        memcpy(m, packet.data, pkt_len);
        for (int i = 0; i < mutations; i++) {
            const uint8_t op = fz_u8(&in) % 4;
            if (op == 0 && len) m[fz_below(&in, (uint32_t)len)] ^= (uint8_t)(fz_u8(&in) | 1);
            else if (op == 1) len -= fz_below(&in, (uint32_t)(len < 48 ? len + 1 : 48));
            else if (op == 2) { size_t add = fz_u8(&in) % 48; fz_bytes(&in, m + len, add > pkt_len + 64 - len ? 0 : add); len += add > pkt_len + 64 - len ? 0 : add; }
            else if (len > 28) m[24 + fz_below(&in, 4)] ^= 1; /* first block: header */
        }
        guarded mp = guarded_new(len, 0);
        memcpy(mp.data, m, len);
        check_decrypt(k, ak, ex ^ ((flags & 0x80) ? 8 : 0), mp.data, len); /* sometimes the other direction */
        guarded_free(&mp);
        free(m);
    }
    guarded_free(&head), guarded_free(&body), guarded_free(&padding), guarded_free(&packet);
    free(plain), free(pad);
    tg_auth_key_free(k);
    return 0;
}
