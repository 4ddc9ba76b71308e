// Hooks that tell the thread sanitizer about locks it cannot see.
#define _GNU_SOURCE
#include "CFutureShims.h"
#include "internal.h"


// Tell the thread sanitizer about a lock it cannot see (``Locked``): no-ops in other builds.
#ifdef FC_THREAD_SANITIZER
void __tsan_acquire(void *address);
void __tsan_release(void *address);
void fc_tsan_acquire(void *address) { __tsan_acquire(address); }
void fc_tsan_release(void *address) { __tsan_release(address); }
#else
void fc_tsan_acquire(void *address) { (void)address; }
void fc_tsan_release(void *address) { (void)address; }
#endif
