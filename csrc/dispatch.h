/* dispatch.h - internal interface of dispatch.c. */
#ifndef TG_DISPATCH_H
#define TG_DISPATCH_H

#include "backend.h"

/* TG_CPU_* bits of this CPU, detected once. */
uint32_t tg_cpu_features(void);

#if defined(TG_TEST_HOOKS)
/* Test builds only: TG_CPU_* bits tg_cpu_features() hides, so the C tests
 * see what a CPU without them is offered (unavailable backends refused). */
extern uint32_t tg_test_cpu_hidden;
#endif

/* The backend in use; NULL when TGCRYPTO_BACKEND names one that cannot run
 * (tg_init() then says why). */
const tg_aes_backend *tg_active_backend(void);

#endif /* TG_DISPATCH_H */
