/* sweep_exec.h: what runs a sweep's points needs, and no more: the outcome of one point and
 * the points as a small interface (SweepPoints), so that a driver which hands the points out
 * (sweep_mpi.c, over MPI ranks) calls sweep.c only through it, and sweep.c calls the driver
 * (sweep_mpi.h): one direction each, no circle. */
#ifndef ARCHSIM_SWEEP_EXEC_H
#define ARCHSIM_SWEEP_EXEC_H

#include <glib.h>
#include <stdbool.h>
#include <string.h>

/* The outcome of one point. */
typedef struct {
    int exit_code;       /* the child's exit status; -1 when killed by a signal */
    int signal;          /* the signal that killed it, else 0 */
    bool resumed;        /* --resume found it complete and did not run it */
    char *message;       /* first line of its stderr ("" when it succeeded) */
    GPtrArray *names;    /* char*: stats.json names in file order (empty when it failed) */
    GPtrArray *values;   /* char*: the number texts exactly as in stats.json */
} SweepResult;

static inline void sweep_result_clear(SweepResult *r)
{
    g_free(r->message);
    if (r->names)
        g_ptr_array_free(r->names, TRUE);
    if (r->values)
        g_ptr_array_free(r->values, TRUE);
    memset(r, 0, sizeof *r);
}

/* A sweep's points as a driver sees them: n of them; run point i to completion (a child
 * `archsim run` into its directory); whether --resume finds it complete (then r is filled from
 * its stats.json); the line a finished point prints (finished counts the points done so far). */
typedef struct {
    void *ctx;
    unsigned n;
    void (*run)(void *ctx, unsigned i, SweepResult *r);
    bool (*done)(void *ctx, unsigned i, SweepResult *r);
    void (*report)(void *ctx, unsigned i, const SweepResult *r, unsigned finished, unsigned n);
} SweepPoints;

#endif
