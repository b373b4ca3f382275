/*
 * tgcrypto.h - the cryptography Telegram clients need, as one flat C ABI:
 *   - AES-256 in the three modes Telegram uses: IGE (MTProto 2.0 messages),
 *     CTR (CDN files, obfuscated transport), CBC (Passport);
 *   - SHA-256 and SHA-1, one-shot and multi-part;
 *   - the MTProto 2.0 message layer (encrypt / check and decrypt a packet);
 *   - PQ factorization for the auth key exchange.
 *
 * Meant for FFI: only pointers, fixed-width integers and int return codes.
 * Every data length is a uint32_t; the only 64-bit values are the pq to
 * factorize and its factors. Every function is thread-safe. The fastest AES
 * implementation the CPU supports is chosen once at run time (see
 * tg_backend()).
 *
 * This header is the one description of the ABI: contract/header.mjs reads
 * the TG_API declarations and TG_OK / TG_ERR_* below, generates the
 * TypeScript symbol table and ErrorCode from them, and checks the Node addon
 * and the Python extension against them (`node contract/check.mjs`, part of
 * `npm test`). Keep one declaration per `TG_API ...;` and one code per
 * `#define TG_ERR_*` line.
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

/* Exported from the shared library. A program that compiles the sources in
 * (e.g. the Python extension) defines TG_API as empty so that, with
 * -fvisibility=hidden, none of the tg_* symbols is exported from it. */
#ifndef TG_API
#  if defined(_WIN32)
#    define TG_API __declspec(dllexport)
#  elif defined(__GNUC__)
#    define TG_API __attribute__((visibility("default")))
#  else
#    define TG_API
#  endif
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
#define TG_ERR_SECURITY    -9  /* MTProto packet rejected (one code for every failed check) */
#define TG_ERR_PADDING    -10  /* MTProto padding not 12..1024 bytes, or total not a multiple of 16 */
#define TG_ERR_SIZE       -11  /* MTProto plaintext shorter than its 32-byte header, or too large */
#define TG_ERR_DIRECTION  -12  /* MTProto direction x is neither 0 nor 8 */
#define TG_ERR_NOT_COMPOSITE -13 /* factorize: pq is 0, 1 or a prime */
#define TG_ERR_NO_FACTOR  -14  /* factorize: no factor found within the attempt bound */

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

/* ---------------------------------------------------------------------------
 * SHA-256 and SHA-1 (FIPS 180-4), with the hardware engine this CPU has
 * (x86 SHA extensions, ARMv8 SHA1/SHA2) unless the backend is forced to
 * "soft", which uses the portable code. tg_hash_engine() names the engine.
 *
 * One-shot: tg_sha256(digest, data, len). Multi-part: a caller-owned state,
 * plain bytes with no alignment requirement, that may be copied to fork a
 * hash: init, any number of updates (len 0 allowed), final (which wipes the
 * state). SHA256(a || b) needs no concatenation.
 */
#define TG_SHA256_SIZE        32
#define TG_SHA1_SIZE          20
#define TG_SHA256_STATE_SIZE 112
#define TG_SHA1_STATE_SIZE   112

TG_API const char *tg_hash_engine(void); /* "sha-ni", "armv8-sha" or "portable" */

TG_API int tg_sha256(uint8_t digest[32], const uint8_t *data, uint32_t len);
TG_API int tg_sha256_init(uint8_t state[112]);
TG_API int tg_sha256_update(uint8_t state[112], const uint8_t *data, uint32_t len);
TG_API int tg_sha256_final(uint8_t state[112], uint8_t digest[32]);

TG_API int tg_sha1(uint8_t digest[20], const uint8_t *data, uint32_t len);
TG_API int tg_sha1_init(uint8_t state[112]);
TG_API int tg_sha1_update(uint8_t state[112], const uint8_t *data, uint32_t len);
TG_API int tg_sha1_final(uint8_t state[112], uint8_t digest[20]);

/* ---------------------------------------------------------------------------
 * MTProto 2.0 message layer (core.telegram.org/mtproto/description).
 *
 * x is the direction of the message being encrypted or received:
 * TG_MTPROTO_FROM_CLIENT (0) or TG_MTPROTO_FROM_SERVER (8).
 *
 * tg_mtproto_encrypt: plaintext = head || body (the 32-byte header salt,
 * session_id, msg_id, seq_no, length and then the message data; the split
 * between head and body is free, either may be empty) followed by `padding`
 * (12..1024 bytes, total a multiple of 16). Writes
 *   packet = auth_key_id || msg_key || AES-256-IGE(plaintext || padding)
 * of 24 + head_len + body_len + padding_len bytes (at most 2^31 - 1) and
 * returns TG_OK. The header is not interpreted (its length field is the
 * caller's). Errors, checked in this order before anything is written:
 * TG_ERR_CONTEXT, TG_ERR_DIRECTION, TG_ERR_SIZE (head_len + body_len < 32),
 * TG_ERR_PADDING, TG_ERR_SIZE (packet over 2^31 - 1), TG_ERR_NULL (a zero
 * length never reads its pointer), TG_ERR_OVERLAP (packet must not overlap
 * any input).
 *
 * tg_mtproto_decrypt: checks and decrypts a packet of packet_len bytes into
 * `plaintext` (room for packet_len - 24 bytes; plaintext == packet + 24
 * decrypts in place, any other overlap is TG_ERR_OVERLAP; packet_len at
 * most 2^31 - 1, else TG_ERR_SIZE; packet_len 0 never reads the pointers).
 * Returns the plaintext length (32 + message_data_length, padding excluded;
 * the padding bytes after it are zeroed) or a negative code. Every failed
 * check (length, auth_key_id, msg_key compared in constant time,
 * message_data_length a multiple of 4, padding length 12..1024) is the
 * single TG_ERR_SECURITY, decided without data-dependent branches after the
 * decryption, and the whole output (packet_len - 24 bytes) is zeroed then.
 * Not checked (the caller's job, per core.telegram.org/mtproto/
 * security_guidelines): salt, session_id, msg_id, seq_no.
 *
 * Every key, iv, key schedule and hash state is wiped before return; the
 * auth key context wipes the key on free.
 */
#define TG_AUTH_KEY_SIZE        256
#define TG_MTPROTO_FROM_CLIENT    0
#define TG_MTPROTO_FROM_SERVER    8
#define TG_MTPROTO_OVERHEAD      24  /* auth_key_id (8) + msg_key (16) */

typedef struct tg_auth_key tg_auth_key;

/* Copies the key; NULL on a NULL key or when out of memory. */
TG_API tg_auth_key *tg_auth_key_new(const uint8_t key[256]);
/* auth_key_id: the last 8 bytes of SHA1(auth_key). A freed or foreign
 * pointer is TG_ERR_CONTEXT here and in the functions below. */
TG_API int  tg_auth_key_id(const tg_auth_key *key, uint8_t id[8]);
/* Wipes and frees; NULL is accepted. */
TG_API void tg_auth_key_free(tg_auth_key *key);

TG_API int tg_mtproto_encrypt(const tg_auth_key *key, uint32_t x, uint8_t *packet,
                              const uint8_t *head, uint32_t head_len,
                              const uint8_t *body, uint32_t body_len,
                              const uint8_t *padding, uint32_t padding_len);
TG_API int tg_mtproto_decrypt(const tg_auth_key *key, uint32_t x, uint8_t *plaintext,
                              const uint8_t *packet, uint32_t packet_len);

/* ---------------------------------------------------------------------------
 * PQ factorization for the auth key exchange (ResPQ.pq): p = the smallest
 * prime factor of pq, q = pq / p. Any 64-bit composite is split (Telegram's
 * pq is a product of two primes below 2^32); 0, 1 and primes are
 * TG_ERR_NOT_COMPOSITE. Always terminates.
 */
TG_API int tg_factorize_pq(uint64_t pq, uint64_t *p, uint64_t *q);

#ifdef __cplusplus
}
#endif
#endif /* TGCRYPTO_H */
