/*
 * mtproto_fused.h - optional fused loops for the MTProto message layer:
 * IGE decryption and the SHA-256 of its output in one pass, so the two
 * independent dependency chains (AES rounds, hash rounds) overlap in the
 * out-of-order core instead of running one after the other.
 */
#ifndef TG_MTPROTO_FUSED_H
#define TG_MTPROTO_FUSED_H

#include "backend.h"
#include "sha.h"

/* IGE-decrypts nblocks (a multiple of 4) like the backend's ige_decrypt
 * (same schedule, iv updated the same way) and compresses the plaintext,
 * 64 bytes at a time, into the SHA-256 chaining value h (the caller keeps
 * the context's length). out == in is allowed. */
typedef void (*tg_ige_dec_sha256_fn)(const tg_sched *s, uint8_t iv[32], uint8_t *out, const uint8_t *in,
                                     size_t nblocks, uint32_t h[8]);

#if defined(TG_HAVE_X86_BACKENDS)
/* The fused loop for this AES backend and hash engine pair, or NULL. */
tg_ige_dec_sha256_fn tg_fused_ige_dec_sha256(const tg_aes_backend *be, const tg_hash_impl *hash);
#else
static inline tg_ige_dec_sha256_fn tg_fused_ige_dec_sha256(const tg_aes_backend *be, const tg_hash_impl *hash) {
    (void)be, (void)hash;
    return NULL;
}
#endif

#endif /* TG_MTPROTO_FUSED_H */
