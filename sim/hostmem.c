/* hostmem.c: see hostmem.h. */
#include "hostmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#define HOST_HEAP_PAD ((size_t)256 << 20)
#define HOST_HUGE ((uintptr_t)2 << 20)

void host_memory_tune(void)
{
#if defined(__linux__) && defined(__GLIBC__)
    const char *env = getenv("ARCHSIM_MALLOC");
    if (env && strcmp(env, "system") == 0)
        return;
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 128 << 20);
    mallopt(M_TOP_PAD, (int)HOST_HEAP_PAD);
    /* grow the heap once by the pad, then advise the new part */
    char *before = sbrk(0);
    void *volatile p = malloc(256 << 10);      /* volatile: not optimised away with free */
    char *after = sbrk(0);
    free(p);
    if (before == (char *)-1 || after == (char *)-1 || after <= before)
        return;
    uintptr_t lo = ((uintptr_t)before + HOST_HUGE - 1) & ~(HOST_HUGE - 1);
    uintptr_t hi = (uintptr_t)after & ~(HOST_HUGE - 1);
#ifdef MADV_HUGEPAGE
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
#endif
}
