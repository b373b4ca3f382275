/*
 * backend.h - what every AES backend provides, and what they share.
 *
 * A backend is a table of whole-buffer loops. Mode semantics (argument
 * checks, CTR offsets, contexts) live once in api.c; a backend never sees a
 * partial block and is never dispatched per block.
 */
#ifndef TG_BACKEND_H
#define TG_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Expanded key. The layout belongs to the backend that wrote it; only the
 * first `sched_size` bytes are used (and wiped), the first
 * `sched_size_encrypt` for TG_DIR_ENCRYPT. 1024 bytes fit the soft backend's
 * bitsliced round keys (960); hardware backends need 480, 240 to encrypt.
 * Contexts allocate only what their backend and direction use, so a
 * tg_sched pointer may address fewer bytes than sizeof(tg_sched). */
#define TG_SCHED_MAX 1024
typedef union {
    uint8_t  bytes[TG_SCHED_MAX];
    uint64_t words[TG_SCHED_MAX / 8];
} tg_sched;

enum { TG_DIR_ENCRYPT = 0, TG_DIR_DECRYPT = 1 };

/* CPU features, as found by dispatch.c. */
enum {
    TG_CPU_AESNI   = 1u << 0, /* AES-NI + SSE4.1 + SSSE3 */
    TG_CPU_VAES256 = 1u << 1, /* VAES + AVX2, YMM state enabled by the OS */
    TG_CPU_VAES512 = 1u << 2, /* VAES + AVX-512 F/VL/BW, ZMM state enabled, no down-clocking */
    TG_CPU_ARMAES  = 1u << 3, /* ARMv8 Crypto Extensions AESE/AESD */
    TG_CPU_SHANI   = 1u << 4, /* x86 SHA extensions + SSE4.1 + SSSE3 */
    TG_CPU_ARMSHA  = 1u << 5, /* ARMv8 SHA1 and SHA2 instructions */
};

/*
 * All loops:
 *   - take `nblocks` whole 16-byte blocks (0 is a no-op);
 *   - accept out == in exactly (in place), and unaligned buffers;
 *   - update the chaining value in place so the next call continues:
 *       IGE iv = last ciphertext block || last plaintext block
 *       CBC iv = last ciphertext block
 *       CTR ctr = counter of the next block (128-bit big-endian, wraps).
 * expand_key writes what the loops of its direction need: encryption keys
 * for IGE/CBC encryption and CTR, decryption keys for IGE/CBC decryption.
 */
typedef struct tg_aes_backend {
    const char *name;
    uint32_t    cpu_needs;  /* TG_CPU_* bits that must all be present */
    size_t      sched_size; /* bytes of tg_sched in use (either direction) */
    void (*expand_key)(tg_sched *s, const uint8_t key[32], int dir);
    void (*ige_encrypt)(const tg_sched *s, uint8_t iv[32], uint8_t *out, const uint8_t *in, size_t nblocks);
    void (*ige_decrypt)(const tg_sched *s, uint8_t iv[32], uint8_t *out, const uint8_t *in, size_t nblocks);
    void (*cbc_encrypt)(const tg_sched *s, uint8_t iv[16], uint8_t *out, const uint8_t *in, size_t nblocks);
    void (*cbc_decrypt)(const tg_sched *s, uint8_t iv[16], uint8_t *out, const uint8_t *in, size_t nblocks);
    void (*ctr_xor)(const tg_sched *s, uint8_t ctr[16], uint8_t *out, const uint8_t *in, size_t nblocks);
    /* bytes expand_key writes and the loops read for TG_DIR_ENCRYPT (<= sched_size) */
    size_t      sched_size_encrypt;
} tg_aes_backend;

/* The backends; each file defines one (dispatch.c lists those compiled in). */
extern const tg_aes_backend tg_backend_soft;
#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#  define TG_ARCH_X86 1
#endif
#if defined(__aarch64__) || defined(_M_ARM64)
#  define TG_ARCH_ARM64 1
#endif
#if defined(TG_ARCH_X86) && !defined(TG_PORTABLE)
#  define TG_HAVE_X86_BACKENDS 1
extern const tg_aes_backend tg_backend_aesni;
extern const tg_aes_backend tg_backend_vaes256;
extern const tg_aes_backend tg_backend_vaes512;
/* aes_ni.c's loops, reused by the VAES backends for the serial modes and
 * for inputs below their cutoff. Same contracts as the table fields. */
void tg_aesni_expand_key(tg_sched *s, const uint8_t key[32], int dir);
void tg_aesni_ige_encrypt(const tg_sched *s, uint8_t iv[32], uint8_t *out, const uint8_t *in, size_t nblocks);
void tg_aesni_ige_decrypt(const tg_sched *s, uint8_t iv[32], uint8_t *out, const uint8_t *in, size_t nblocks);
void tg_aesni_cbc_encrypt(const tg_sched *s, uint8_t iv[16], uint8_t *out, const uint8_t *in, size_t nblocks);
void tg_aesni_cbc_decrypt(const tg_sched *s, uint8_t iv[16], uint8_t *out, const uint8_t *in, size_t nblocks);
void tg_aesni_ctr_xor(const tg_sched *s, uint8_t ctr[16], uint8_t *out, const uint8_t *in, size_t nblocks);
/* AES-NI schedule layout: 15 encryption round keys (FIPS-197 byte order) at
 * bytes[0..240); for TG_DIR_DECRYPT, 15 keys for the equivalent inverse
 * cipher (aesdec order: k14, imc(k13) .. imc(k1), k0) at bytes[240..480). */
#endif
#if defined(TG_ARCH_ARM64) && !defined(TG_PORTABLE)
#  define TG_HAVE_ARM_BACKENDS 1
extern const tg_aes_backend tg_backend_armce;
extern const tg_aes_backend tg_backend_neon;
#endif

/* ---- helpers shared by backends and api.c ---- */

/* Test builds only (-DTG_TEST_HOOKS: build.zig sets it for the C test
 * program, never for the library; `zig build test` checks that the shipped
 * library holds no hook): each temporary that SECURITY.md promises to wipe
 * is announced by TG_TEST_SECRET(p, n) once it holds a secret and checked by
 * TG_TEST_CLEAN(p) at the end of its life (before the return or free()):
 * test/c/test_wipes.c records every region and counts one that is not all
 * zero there. In every other build both are nothing. */
#if defined(TG_TEST_HOOKS)
void tg_test_secret(void *p, size_t n, const char *where);
void tg_test_clean(const void *p);
#  define TG_TEST_STR2(x) #x
#  define TG_TEST_STR(x) TG_TEST_STR2(x)
#  define TG_TEST_SECRET(p, n) tg_test_secret((p), (n), "TG_TEST_HOOK " __FILE__ ":" TG_TEST_STR(__LINE__))
#  define TG_TEST_CLEAN(p) tg_test_clean(p)
#else
#  define TG_TEST_SECRET(p, n) ((void)0)
#  define TG_TEST_CLEAN(p) ((void)0)
#endif

/* Zero secrets so that no compiler can drop the stores as dead, whatever it
 * knows about the buffer afterwards (freed, out of scope, never read):
 *   - GNU C (gcc, clang, zig cc: every build of this project): memset, then
 *     an asm barrier that takes the pointer and clobbers memory, so the
 *     compiler must assume the zeroes are read (the stores stay inline:
 *     this runs several times per MTProto message);
 *   - any other compiler: explicit_bzero where the C library declares it
 *     (glibc 2.25+ outside strict ISO mode, the BSDs), SecureZeroMemory
 *     where <windows.h> is already included (MSVC; it is not pulled in here,
 *     its macros would leak into every source), else memset called through
 *     a volatile function pointer: the compiler must load the pointer at run
 *     time and cannot assume it is memset, so the call and its stores stay.
 * The Python extension wipes its own temporaries with this function too. */
#if !defined(__GNUC__) && !defined(__clang__) && \
    ((defined(__GLIBC__) && defined(__USE_MISC) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 25))) || \
     defined(__OpenBSD__) || defined(__FreeBSD__) || defined(__NetBSD__))
#  define TG_WIPE_EXPLICIT_BZERO 1
#endif
static inline void tg_wipe(void *p, size_t n) {
    if (n == 0) return;
#if defined(__GNUC__) || defined(__clang__)
    memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
#elif defined(TG_WIPE_EXPLICIT_BZERO)
    explicit_bzero(p, n);
#elif defined(_WIN32) && defined(SecureZeroMemory)
    SecureZeroMemory(p, n);
#else
    static void *(*const volatile memset_at_run_time)(void *, int, size_t) = memset;
    memset_at_run_time(p, 0, n);
#endif
}

/* Add n to a 128-bit big-endian counter, wrapping modulo 2^128. */
static inline void tg_ctr_add(uint8_t ctr[16], uint64_t n) {
    for (int i = 15; i >= 0 && n != 0; i--) {
        uint64_t sum = (uint64_t)ctr[i] + (n & 0xff);
        ctr[i] = (uint8_t)sum;
        n = (n >> 8) + (sum >> 8);
    }
}

static inline uint64_t tg_load64_be(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
    return v;
}
static inline void tg_store64_be(uint8_t *p, uint64_t v) {
    for (int i = 7; i >= 0; i--) { p[i] = (uint8_t)v; v >>= 8; }
}

#endif /* TG_BACKEND_H */
