/*
 * example.c - using libtgcrypto from C.
 *
 *   zig build examples     builds and runs it against the shared library
 *
 * Encrypts an MTProto-sized message with AES-256-IGE, decrypts it again,
 * and streams CTR through a context in odd-sized chunks.
 */
#include <stdio.h>
#include <string.h>

#include <tgcrypto.h>

int main(void) {
    if (tg_init() != TG_OK) {
        fprintf(stderr, "tgcrypto: %s\n", tg_strerror(tg_init()));
        return 1;
    }
    printf("libtgcrypto %s, backend %s\n", tg_version(), tg_backend());

    uint8_t key[32], iv[32], message[160], encrypted[160], decrypted[160];
    for (int i = 0; i < 32; i++) key[i] = (uint8_t)i, iv[i] = (uint8_t)(0xa0 + i);
    for (int i = 0; i < 160; i++) message[i] = (uint8_t)(i * 3);

    int rc = tg_ige256_encrypt(encrypted, message, sizeof message, key, iv);
    if (rc == TG_OK) rc = tg_ige256_decrypt(decrypted, encrypted, sizeof encrypted, key, iv);
    if (rc != TG_OK || memcmp(decrypted, message, sizeof message) != 0) {
        fprintf(stderr, "IGE round trip failed: %s\n", tg_strerror(rc));
        return 1;
    }
    printf("IGE: 160 bytes encrypted and decrypted\n");

    /* CTR: a context fed 7 bytes at a time gives the one-shot result. */
    uint8_t counter[16] = {0}, state[1] = {0}, one_shot[160], streamed[160];
    tg_ctr256(one_shot, message, sizeof message, key, counter, state);
    tg_ctr_ctx *ctr = tg_ctr_new(key, (const uint8_t[16]){0}, 0);
    if (ctr == NULL) return 1;
    for (size_t at = 0; at < sizeof message; at += 7) {
        uint32_t n = sizeof message - at < 7 ? (uint32_t)(sizeof message - at) : 7;
        tg_ctr_update(ctr, streamed + at, message + at, n);
    }
    tg_ctr_free(ctr);
    if (memcmp(one_shot, streamed, sizeof message) != 0) {
        fprintf(stderr, "CTR streaming differs from one-shot\n");
        return 1;
    }
    printf("CTR: streamed in 7-byte chunks == one-shot; counter now ends in %02x, offset %u\n", counter[15], state[0]);
    return 0;
}
