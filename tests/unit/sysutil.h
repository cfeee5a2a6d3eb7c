/* sysutil.h: helpers shared by the unit tests that build and run whole systems. */
#ifndef ARCHSIM_TEST_SYSUTIL_H
#define ARCHSIM_TEST_SYSUTIL_H

#include <stdint.h>

#include "../../sim/system.h"

/* One statistic of a finished run, by name (system_stat_u64): integers as they are, formulas
 * rounded; UINT64_MAX when the run has no such statistic. */
static inline uint64_t stat_u(SystemRun *r, const char *name)
{
    return system_stat_u64(r, name);
}

/* Threads of a recorded trace directory: how many of T0.trace, T1.trace, ... exist. */
static inline int threads_of(const char *dir)
{
    int n = 0;
    for (;; n++) {
        char *p = g_strdup_printf("%s/T%d.trace", dir, n);
        bool ok = g_file_test(p, G_FILE_TEST_EXISTS);
        g_free(p);
        if (!ok)
            return n;
    }
}

#endif
