/* PLACEHOLDER - being replaced by the real VAES implementation. */
#include "backend.h"
#if defined(TG_HAVE_X86_BACKENDS)
const tg_aes_backend tg_backend_vaes256 = {
    .name = "vaes256", .cpu_needs = TG_CPU_AESNI | TG_CPU_VAES256, .sched_size = 480,
    .expand_key = tg_aesni_expand_key, .ige_encrypt = tg_aesni_ige_encrypt, .ige_decrypt = tg_aesni_ige_decrypt,
    .cbc_encrypt = tg_aesni_cbc_encrypt, .cbc_decrypt = tg_aesni_cbc_decrypt, .ctr_xor = tg_aesni_ctr_xor,
};
const tg_aes_backend tg_backend_vaes512 = {
    .name = "vaes512", .cpu_needs = TG_CPU_AESNI | TG_CPU_VAES512, .sched_size = 480,
    .expand_key = tg_aesni_expand_key, .ige_encrypt = tg_aesni_ige_encrypt, .ige_decrypt = tg_aesni_ige_decrypt,
    .cbc_encrypt = tg_aesni_cbc_encrypt, .cbc_decrypt = tg_aesni_cbc_decrypt, .ctr_xor = tg_aesni_ctr_xor,
};
#endif
