/*
 * tgcrypto.h - AES-256 in the three modes Telegram uses:
 *   IGE (MTProto 2.0 messages), CTR (CDN files, obfuscated transport),
 *   CBC (Passport).
 *
 * Flat C ABI meant for FFI: only pointers, 32-bit lengths and int return
 * codes. Every function is thread-safe. The fastest AES implementation the
 * CPU supports is chosen once at run time (see tg_backend()).
 *
 * Buffers:
 *   - `out` may be exactly `in` (in place); any other overlap is rejected
 *     with TG_ERR_OVERLAP.
 *   - A zero `len` never dereferences `in` or `out` (they may be NULL or junk).
 *   - No alignment is required anywhere.
 *   - Key schedules and temporaries are wiped before a function returns;
 *     contexts wipe theirs when freed.
 */
#ifndef TGCRYPTO_H
#define TGCRYPTO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#  define TG_API __declspec(dllexport)
#elif defined(__GNUC__)
#  define TG_API __attribute__((visibility("default")))
#else
#  define TG_API
#endif

#define TG_VERSION_STRING "0.1.0"

#define TG_KEY_SIZE    32  /* AES-256 key */
#define TG_BLOCK_SIZE  16
#define TG_IGE_IV_SIZE 32  /* iv[0..16) previous ciphertext, iv[16..32) previous plaintext */
#define TG_CTR_IV_SIZE 16  /* one 128-bit big-endian counter */
#define TG_CBC_IV_SIZE 16

/* Return codes: 0 is success, errors are negative. */
#define TG_OK               0
#define TG_ERR_NULL        -1  /* a required pointer is NULL */
#define TG_ERR_LENGTH      -2  /* IGE/CBC data length is not a multiple of 16 */
#define TG_ERR_STATE       -3  /* CTR state (offset in the keystream block) is not in 0..15 */
#define TG_ERR_OVERLAP     -4  /* out and in overlap without being the same buffer */
#define TG_ERR_CONTEXT     -5  /* not a live context of this kind (freed, or wrong type) */
#define TG_ERR_NOMEM       -6  /* allocation failed */
#define TG_ERR_BACKEND     -7  /* unknown backend name (TGCRYPTO_BACKEND or tg_set_backend) */
#define TG_ERR_UNSUPPORTED -8  /* backend exists but this CPU or build lacks it */

/* A static English description of a return code; never NULL. */
TG_API const char *tg_strerror(int code);

/* TG_VERSION_STRING of the loaded library. */
TG_API const char *tg_version(void);

/* ---------------------------------------------------------------------------
 * Backends
 *
 * On first use the library reads the environment variable TGCRYPTO_BACKEND:
 * unset or empty selects the best available backend; a name forces that
 * backend. tg_init() reports a bad name (TG_ERR_BACKEND / TG_ERR_UNSUPPORTED);
 * every other function then fails with the same code instead of silently
 * running a different backend.
 */
TG_API int tg_init(void);

/* Name of the backend in use ("aesni", "soft", ...), NULL if tg_init() failed. */
TG_API const char *tg_backend(void);

/* The backends compiled into this build, best first; index from 0. */
TG_API uint32_t    tg_backend_count(void);
TG_API const char *tg_backend_name(uint32_t index);      /* NULL past the end */
TG_API int         tg_backend_available(uint32_t index); /* 1 if this CPU can run it */

/* Switch the process-wide backend (tests and benchmarks). Contexts keep the
 * backend they were created with. */
TG_API int tg_set_backend(const char *name);

/* ---------------------------------------------------------------------------
 * One-shot functions (TgCrypto semantics)
 */

/* IGE: len a multiple of 16. iv is read, never written. */
TG_API int tg_ige256_encrypt(uint8_t *out, const uint8_t *in, uint32_t len,
                             const uint8_t key[32], const uint8_t iv[32]);
TG_API int tg_ige256_decrypt(uint8_t *out, const uint8_t *in, uint32_t len,
                             const uint8_t key[32], const uint8_t iv[32]);

/* CTR (encryption and decryption are the same): any len. The keystream byte
 * used next is byte `*state` of AES(key, iv). On return iv holds the counter
 * of the block containing the next keystream byte and *state its offset, so
 * consecutive calls continue the stream. The counter carries through all 16
 * bytes (ff..ff wraps to 00..00). */
TG_API int tg_ctr256(uint8_t *out, const uint8_t *in, uint32_t len,
                     const uint8_t key[32], uint8_t iv[16], uint8_t state[1]);

/* CBC without padding: len a multiple of 16. On return iv holds the last
 * ciphertext block (the last input block when decrypting), so consecutive
 * calls continue the chain. */
TG_API int tg_cbc256_encrypt(uint8_t *out, const uint8_t *in, uint32_t len,
                             const uint8_t key[32], uint8_t iv[16]);
TG_API int tg_cbc256_decrypt(uint8_t *out, const uint8_t *in, uint32_t len,
                             const uint8_t key[32], uint8_t iv[16]);

/* ---------------------------------------------------------------------------
 * Contexts: the key is expanded once, the chaining state kept between calls.
 * *_new returns NULL on a bad argument or when out of memory. *_free wipes
 * and frees; NULL is accepted. A context must not be used from two threads
 * at the same time (distinct contexts are independent).
 */
typedef struct tg_ctr_ctx tg_ctr_ctx;
typedef struct tg_ige_ctx tg_ige_ctx;
typedef struct tg_cbc_ctx tg_cbc_ctx;

TG_API tg_ctr_ctx *tg_ctr_new(const uint8_t key[32], const uint8_t iv[16], uint32_t state);
TG_API int  tg_ctr_update(tg_ctr_ctx *ctx, uint8_t *out, const uint8_t *in, uint32_t len);
/* Current position: the counter block and offset tg_ctr256 would return. */
TG_API int  tg_ctr_position(const tg_ctr_ctx *ctx, uint8_t iv[16], uint8_t state[1]);
TG_API void tg_ctr_free(tg_ctr_ctx *ctx);

/* decrypt: 0 encrypts, anything else decrypts. update lengths: multiples of 16. */
TG_API tg_ige_ctx *tg_ige_new(const uint8_t key[32], const uint8_t iv[32], int decrypt);
TG_API int  tg_ige_update(tg_ige_ctx *ctx, uint8_t *out, const uint8_t *in, uint32_t len);
TG_API void tg_ige_free(tg_ige_ctx *ctx);

TG_API tg_cbc_ctx *tg_cbc_new(const uint8_t key[32], const uint8_t iv[16], int decrypt);
TG_API int  tg_cbc_update(tg_cbc_ctx *ctx, uint8_t *out, const uint8_t *in, uint32_t len);
TG_API void tg_cbc_free(tg_cbc_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif /* TGCRYPTO_H */
