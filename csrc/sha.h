/*
 * sha.h - internal SHA-256 / SHA-1 interface for the library's own C files
 * (the MTProto message layer), and the table of compression engines.
 *
 * Streaming contexts:
 *   tg_sha256_begin(&c); tg_sha256_feed(&c, p, n) ...; tg_sha256_end(&c, out);
 * feed takes any number of bytes in any split (n == 0 never reads p); end
 * writes the digest and wipes the context. A context is plain memory: copy it
 * to fork a hash. Each feed uses the hash engine in use at that moment (see
 * tg_hash_active), so no engine is stored in the context.
 *
 * The public byte-array state of tgcrypto.h (112 bytes) is exactly one of
 * these contexts, memcpy'd in and out.
 */
#ifndef TG_SHA_H
#define TG_SHA_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h" /* TG_HAVE_*_BACKENDS, TG_CPU_* */

/* h: chaining words (SHA-1 uses h[0..5)); len: total bytes fed, so the
 * number buffered is len % 64; tag: which hash the context belongs to
 * (0 after end, so a finished or never-begun context is refused by the
 * public API). */
typedef struct {
    uint32_t h[8];
    uint64_t len;
    uint8_t  buf[64];
    uint32_t tag;
    uint32_t reserved;
} tg_sha_ctx;

typedef tg_sha_ctx tg_sha256_ctx;
typedef tg_sha_ctx tg_sha1_ctx;

#define TG_SHA256_TAG 0x32353631u /* arbitrary nonzero markers */
#define TG_SHA1_TAG   0x31616873u

void tg_sha256_begin(tg_sha256_ctx *c);
void tg_sha256_feed(tg_sha256_ctx *c, const uint8_t *data, size_t len);
void tg_sha256_end(tg_sha256_ctx *c, uint8_t digest[32]);

void tg_sha1_begin(tg_sha1_ctx *c);
void tg_sha1_feed(tg_sha1_ctx *c, const uint8_t *data, size_t len);
void tg_sha1_end(tg_sha1_ctx *c, uint8_t digest[20]);

/* ---- engines ----
 * A compression engine runs whole 64-byte blocks: h is updated in place
 * (standard word order, FIPS 180-4 H0..H7 / H0..H4), data has no alignment
 * requirement, nblocks 0 is a no-op. Engines wipe their message schedule. */
typedef struct tg_hash_impl {
    const char *name;
    uint32_t    cpu_needs; /* TG_CPU_* bits that must all be present */
    void (*sha256_blocks)(uint32_t h[8], const uint8_t *data, size_t nblocks);
    void (*sha1_blocks)(uint32_t h[5], const uint8_t *data, size_t nblocks);
} tg_hash_impl;

extern const tg_hash_impl tg_hash_portable;
#if defined(TG_HAVE_X86_BACKENDS)
extern const tg_hash_impl tg_hash_shani;
#endif
#if defined(TG_HAVE_ARM_BACKENDS)
extern const tg_hash_impl tg_hash_armsha;
#endif

/* The engines compiled in, best first (the last is "portable"). */
size_t tg_hash_impl_count(void);
const tg_hash_impl *tg_hash_impl_at(size_t index);  /* NULL past the end */
int tg_hash_impl_available(const tg_hash_impl *impl); /* 1 if this CPU runs it */

/* The engine in use now: the best available one, or "portable" when the AES
 * backend in use is "soft" (or TGCRYPTO_BACKEND is bad). */
const tg_hash_impl *tg_hash_active(void);

#endif /* TG_SHA_H */
