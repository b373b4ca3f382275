/*
 * dispatch.c - CPU feature detection and the choice of backend.
 *
 * Detection runs once; the result and the chosen backend are cached in
 * atomics, so concurrent first calls at worst detect twice and agree.
 */
#if defined(__linux__) || defined(__ANDROID__)
#  define _GNU_SOURCE 1
#endif
#include "backend.h"
#include "dispatch.h"
#include "sha.h"
#include "tgcrypto.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(TG_HAVE_X86_BACKENDS)
#  include <cpuid.h>
#endif
#if defined(TG_HAVE_ARM_BACKENDS)
#  if defined(__APPLE__)
#    include <sys/sysctl.h>
#  elif defined(_WIN32)
#    include <windows.h>
#  elif defined(__linux__) || defined(__ANDROID__)
#    include <sys/auxv.h>
#  elif defined(__FreeBSD__)
#    include <sys/auxv.h>
#  endif
#endif

/* Best first: the first available one is the default. */
static const tg_aes_backend *const all_backends[] = {
#if defined(TG_HAVE_X86_BACKENDS)
    &tg_backend_vaes512,
    &tg_backend_vaes256,
    &tg_backend_aesni,
#endif
#if defined(TG_HAVE_ARM_BACKENDS)
    &tg_backend_armce,
    &tg_backend_neon, /* AArch64 without the Crypto Extensions (e.g. Raspberry Pi 4) */
#endif
    &tg_backend_soft,
};
#define BACKEND_COUNT (sizeof all_backends / sizeof all_backends[0])

/* ---- feature detection ---- */

#if defined(TG_HAVE_X86_BACKENDS)
/* Intel cores that lower their clock under 512-bit code (the Linux kernel's
 * zmm exclusion list): Skylake-X, Ice Lake client/server/D, Tiger Lake. */
static int intel_prefers_ymm(unsigned family, unsigned model) {
    if (family != 6) return 0;
    switch (model) {
    case 0x55:                         /* Skylake-X / Cascade Lake / Cooper Lake */
    case 0x6a: case 0x6c:              /* Ice Lake server, Ice Lake-D */
    case 0x7d: case 0x7e: case 0x9d:   /* Ice Lake client, NNPI */
    case 0x8c: case 0x8d:              /* Tiger Lake */
        return 1;
    default:
        return 0;
    }
}

static uint64_t read_xcr0(void) {
    uint32_t lo, hi;
    __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static uint32_t detect_cpu(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const unsigned ecx1 = c;
    const unsigned family = ((a >> 8) & 0xf) + (((a >> 8) & 0xf) == 0xf ? ((a >> 20) & 0xff) : 0);
    const unsigned model = ((a >> 4) & 0xf) | ((((a >> 8) & 0xf) >= 6) ? ((a >> 12) & 0xf0) : 0);

    uint32_t f = 0;
    const int aes = (ecx1 >> 25) & 1, sse41 = (ecx1 >> 19) & 1, ssse3 = (ecx1 >> 9) & 1;
    if (sse41 && ssse3 && __get_cpuid_max(0, NULL) >= 7) { /* SHA needs no AES (e.g. some Atoms) */
        unsigned a7, b7, c7, d7;
        __cpuid_count(7, 0, a7, b7, c7, d7);
        if ((b7 >> 29) & 1) f |= TG_CPU_SHANI;
    }
    if (aes && sse41 && ssse3) f |= TG_CPU_AESNI;
    else return f;

    /* Wider registers are usable only if the OS saves them: OSXSAVE, then XCR0. */
    const int osxsave = (ecx1 >> 27) & 1, avx = (ecx1 >> 28) & 1;
    if (!osxsave || !avx) return f;
    const uint64_t xcr0 = read_xcr0();
    const int ymm_ok = (xcr0 & 0x6) == 0x6;
    const int zmm_ok = ymm_ok && (xcr0 & 0xe0) == 0xe0;

    unsigned maxleaf = __get_cpuid_max(0, NULL);
    if (maxleaf < 7) return f;
    __cpuid_count(7, 0, a, b, c, d);
    const int avx2 = (b >> 5) & 1, avx512f = (b >> 16) & 1, avx512bw = (b >> 30) & 1,
              avx512vl = (b >> 31) & 1, vaes = (c >> 9) & 1;

    /* Vendor: only Intel has the zmm down-clocking list. */
    unsigned v0, vb, vc, vd;
    __cpuid(0, v0, vb, vc, vd);
    const int intel = vb == 0x756e6547 && vd == 0x49656e69 && vc == 0x6c65746e; /* GenuineIntel */

    if (vaes && avx2 && ymm_ok) f |= TG_CPU_VAES256;
    if (vaes && avx512f && avx512vl && avx512bw && zmm_ok && !(intel && intel_prefers_ymm(family, model)))
        f |= TG_CPU_VAES512;
    return f;
}

#elif defined(TG_HAVE_ARM_BACKENDS)
static uint32_t detect_aes(void) {
#  if defined(__ARM_FEATURE_AES) || defined(__ARM_FEATURE_CRYPTO)
    return TG_CPU_ARMAES; /* the compile target already guarantees it (e.g. Apple M1) */
#  elif defined(__APPLE__)
    int v = 0;
    size_t n = sizeof v;
    if (sysctlbyname("hw.optional.arm.FEAT_AES", &v, &n, NULL, 0) == 0 && v) return TG_CPU_ARMAES;
    return 0;
#  elif defined(_WIN32)
    return IsProcessorFeaturePresent(PF_ARM_V8_CRYPTO_INSTRUCTIONS_AVAILABLE) ? TG_CPU_ARMAES : 0;
#  elif defined(__linux__) || defined(__ANDROID__)
    return (getauxval(AT_HWCAP) & (1ul << 3)) ? TG_CPU_ARMAES : 0; /* HWCAP_AES */
#  elif defined(__FreeBSD__)
    unsigned long hw = 0;
    if (elf_aux_info(AT_HWCAP, &hw, sizeof hw) == 0 && (hw & (1ul << 3))) return TG_CPU_ARMAES;
    return 0;
#  else
    return 0;
#  endif
}

/* SHA1 and SHA2 instructions (the hash engine needs both). */
static uint32_t detect_sha(void) {
#  if defined(__ARM_FEATURE_SHA2)
    return TG_CPU_ARMSHA; /* the compile target already guarantees it (e.g. Apple M1) */
#  elif defined(__APPLE__)
    int v1 = 0, v2 = 0;
    size_t n1 = sizeof v1, n2 = sizeof v2;
    if (sysctlbyname("hw.optional.arm.FEAT_SHA1", &v1, &n1, NULL, 0) == 0 && v1 &&
        sysctlbyname("hw.optional.arm.FEAT_SHA256", &v2, &n2, NULL, 0) == 0 && v2)
        return TG_CPU_ARMSHA;
    return 0;
#  elif defined(_WIN32)
    return IsProcessorFeaturePresent(PF_ARM_V8_CRYPTO_INSTRUCTIONS_AVAILABLE) ? TG_CPU_ARMSHA : 0;
#  elif defined(__linux__) || defined(__ANDROID__)
    const unsigned long need = (1ul << 5) | (1ul << 6); /* HWCAP_SHA1 | HWCAP_SHA2 */
    return (getauxval(AT_HWCAP) & need) == need ? TG_CPU_ARMSHA : 0;
#  elif defined(__FreeBSD__)
    const unsigned long need = (1ul << 5) | (1ul << 6);
    unsigned long hw = 0;
    if (elf_aux_info(AT_HWCAP, &hw, sizeof hw) == 0 && (hw & need) == need) return TG_CPU_ARMSHA;
    return 0;
#  else
    return 0;
#  endif
}

static uint32_t detect_cpu(void) { return detect_aes() | detect_sha(); }

#else
static uint32_t detect_cpu(void) { return 0; }
#endif

/* ---- cached state ---- */

#define FEATURES_UNKNOWN 0x80000000u
static _Atomic uint32_t g_features = FEATURES_UNKNOWN;
static _Atomic(const tg_aes_backend *) g_backend = NULL;
static _Atomic int g_init_error = 0; /* nonzero: TGCRYPTO_BACKEND was bad */

#if defined(TG_TEST_HOOKS)
uint32_t tg_test_cpu_hidden;
#endif

uint32_t tg_cpu_features(void) {
    uint32_t f = atomic_load_explicit(&g_features, memory_order_relaxed);
    if (f == FEATURES_UNKNOWN) {
        f = detect_cpu();
        atomic_store_explicit(&g_features, f, memory_order_relaxed);
    }
#if defined(TG_TEST_HOOKS)
    f &= ~tg_test_cpu_hidden;
#endif
    return f;
}

static int is_available(const tg_aes_backend *be) {
    return (tg_cpu_features() & be->cpu_needs) == be->cpu_needs;
}

/* Finds a backend by name: TG_OK, TG_ERR_BACKEND or TG_ERR_UNSUPPORTED. */
static int find_backend(const char *name, const tg_aes_backend **out) {
    for (size_t i = 0; i < BACKEND_COUNT; i++) {
        if (strcmp(all_backends[i]->name, name) == 0) {
            if (!is_available(all_backends[i])) return TG_ERR_UNSUPPORTED;
            *out = all_backends[i];
            return TG_OK;
        }
    }
    /* Known names of other architectures or of a portable build. */
    static const char *const known[] = {"vaes512", "vaes256", "aesni", "armce", "neon"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i], name) == 0) return TG_ERR_UNSUPPORTED;
    return TG_ERR_BACKEND;
}

static const tg_aes_backend *best_backend(void) {
    for (size_t i = 0; i < BACKEND_COUNT; i++)
        if (is_available(all_backends[i])) return all_backends[i];
    return &tg_backend_soft;
}

int tg_init(void) {
    if (atomic_load_explicit(&g_backend, memory_order_acquire) != NULL) return TG_OK;
    int err = atomic_load_explicit(&g_init_error, memory_order_relaxed);
    if (err != 0) return err;

    const tg_aes_backend *be = NULL;
    const char *forced = getenv("TGCRYPTO_BACKEND");
    if (forced != NULL && forced[0] != '\0') {
        err = find_backend(forced, &be);
        if (err != TG_OK) {
            atomic_store_explicit(&g_init_error, err, memory_order_relaxed);
            return err;
        }
    } else {
        be = best_backend();
    }
    const tg_aes_backend *expected = NULL;
    atomic_compare_exchange_strong(&g_backend, &expected, be);
    return TG_OK;
}

const tg_aes_backend *tg_active_backend(void) {
    const tg_aes_backend *be = atomic_load_explicit(&g_backend, memory_order_acquire);
    if (be != NULL) return be;
    if (tg_init() != TG_OK) return NULL;
    return atomic_load_explicit(&g_backend, memory_order_acquire);
}

int tg_set_backend(const char *name) {
    if (name == NULL) return TG_ERR_NULL;
    const tg_aes_backend *be = NULL;
    int err = find_backend(name, &be);
    if (err != TG_OK) return err;
    atomic_store_explicit(&g_init_error, 0, memory_order_relaxed);
    atomic_store_explicit(&g_backend, be, memory_order_release);
    return TG_OK;
}

const char *tg_backend(void) {
    const tg_aes_backend *be = tg_active_backend();
    return be ? be->name : NULL;
}

uint32_t tg_backend_count(void) { return (uint32_t)BACKEND_COUNT; }

const char *tg_backend_name(uint32_t index) {
    return index < BACKEND_COUNT ? all_backends[index]->name : NULL;
}

int tg_backend_available(uint32_t index) {
    return index < BACKEND_COUNT && is_available(all_backends[index]);
}

/* ---- hash engines ---- */

/* Best first; "portable" last, always available. */
static const tg_hash_impl *const all_hash_impls[] = {
#if defined(TG_HAVE_X86_BACKENDS)
    &tg_hash_shani,
#endif
#if defined(TG_HAVE_ARM_BACKENDS)
    &tg_hash_armsha,
#endif
    &tg_hash_portable,
};
#define HASH_IMPL_COUNT (sizeof all_hash_impls / sizeof all_hash_impls[0])

size_t tg_hash_impl_count(void) { return HASH_IMPL_COUNT; }

const tg_hash_impl *tg_hash_impl_at(size_t index) {
    return index < HASH_IMPL_COUNT ? all_hash_impls[index] : NULL;
}

int tg_hash_impl_available(const tg_hash_impl *impl) {
    return (tg_cpu_features() & impl->cpu_needs) == impl->cpu_needs;
}

/* A forced "soft" AES backend makes the whole library portable code. */
const tg_hash_impl *tg_hash_active(void) {
    const tg_aes_backend *be = tg_active_backend();
    if (be == NULL || be == &tg_backend_soft) return &tg_hash_portable;
    for (size_t i = 0; i < HASH_IMPL_COUNT; i++)
        if (tg_hash_impl_available(all_hash_impls[i])) return all_hash_impls[i];
    return &tg_hash_portable;
}
