/* kernutil.h: helpers of the unit tests that run kernel-core machines (test_kernel.c,
 * test_lockfree.c, test_htm.c). */
#ifndef ARCHSIM_TEST_KERNUTIL_H
#define ARCHSIM_TEST_KERNUTIL_H

#include <stdint.h>

#include "../../models/cpu/kernel.h"
#include "../../models/mem/oracle.h"
#include "../../models/mem/memmsg.h"
#include "../../sim/system.h"

/* The component coreI of a built run (it must exist). */
static inline Component *core_of(SystemRun *r, int i)
{
    char *n = g_strdup_printf("core%d", i);
    Component *c = sim_component_find(&r->sim, n);
    g_free(n);
    g_assert(c);
    return c;
}

/* The committed value of a kernel symbol's element (the reference memory: checks on). */
static inline int64_t mem_word(SystemRun *r, const char *sym, uint64_t index)
{
    uint64_t a = kernel_core_addr(core_of(r, 0), sym, index);
    g_assert(a != UINT64_MAX && mem_oracle(&r->sim));
    return (int64_t)oracle_value(mem_oracle(&r->sim), a, 8);
}

#endif
