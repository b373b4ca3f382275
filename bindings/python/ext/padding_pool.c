/* padding_pool.c - random MTProto padding, drawn from os.urandom 4 KiB at a time.
 *
 * The pool is handed out in 32-byte slots, each copied out for one message
 * and wiped in the pool. It is shared by every thread, so it is locked; the
 * lock is never held across os.urandom (Python code, which may switch
 * threads), and a thread that finds the pool empty refills it from its own
 * fresh draw unless another thread refilled it first. */
#include "native.h"

#define POOL_SLOTS 128 /* slots per os.urandom draw */
#define POOL_SIZE (POOL_SLOTS * PADDING_SLOT) /* whole slots: a slot never runs past the pool */
static uint8_t pool[POOL_SIZE];
static size_t pool_next = POOL_SIZE;
static ext_lock pool_lock;
static int pool_ready;

int padding_pool_init(void) {
    if (pool_ready) return 0;
    if (ext_lock_init(&pool_lock) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    pool_ready = 1;
    return 0;
}

/* A whole slot is left in the pool (read under pool_lock). */
static int slot_left(void) { return pool_next + PADDING_SLOT <= POOL_SIZE; }

int take_padding(uint8_t out[PADDING_SLOT]) {
    for (;;) {
        ext_lock_acquire(&pool_lock);
        if (slot_left()) {
            memcpy(out, pool + pool_next, PADDING_SLOT);
            wipe(pool + pool_next, PADDING_SLOT);
            pool_next += PADDING_SLOT;
            ext_lock_release(&pool_lock);
            return 0;
        }
        ext_lock_release(&pool_lock);
        uint8_t fresh[POOL_SIZE];
        if (random_bytes(fresh, POOL_SIZE) < 0) return -1;
        ext_lock_acquire(&pool_lock);
        if (!slot_left()) {
            memcpy(pool, fresh, POOL_SIZE);
            pool_next = 0;
        }
        ext_lock_release(&pool_lock);
        wipe(fresh, sizeof fresh);
    }
}
