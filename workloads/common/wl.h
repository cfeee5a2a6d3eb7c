/* wl.h: the few helpers every traced workload shares (workloads/README.md): argument parsing,
 * running N threads with an index, and the OK/FAIL verdict that make traces relies on.
 *
 * Header-only (static functions) so each kernel stays one C file: cc -O2 -pthread -I
 * tools/tracer -I workloads/common kernel.c. Nothing here touches shared memory.
 */
#ifndef ARCHSIM_WL_H
#define ARCHSIM_WL_H

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "archsim_trace.h"

#define WL_MAX_THREADS 64

/* Prints "FAIL name: message" and exits 1: the kernel computed a wrong result. */
static inline void wl_fail(const char *name, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
static inline void wl_fail(const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stdout, "FAIL %s: ", name);
    vfprintf(stdout, fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    exit(1);
}

/* argv[i] as an integer in [min, max], def when absent; exits 2 on a bad argument. */
static inline long wl_arg(int argc, char **argv, int i, long def, long min, long max,
                          const char *what)
{
    if (i >= argc)
        return def;
    char *end;
    errno = 0;
    long v = strtol(argv[i], &end, 10);
    if (errno != 0 || *end != '\0' || end == argv[i] || v < min || v > max) {
        fprintf(stderr, "%s: %s must be an integer in [%ld, %ld], not '%s'\n", argv[0], what, min,
                max, argv[i]);
        exit(2);
    }
    return v;
}

static pthread_barrier_t wl_start_barrier;

/* Workers call this first: all start their timed part together (a BARRIER record in the trace),
 * so the recording host overlaps them as much as it can and a replay starts them aligned. */
static inline void wl_start(void)
{
    pthread_barrier_wait(&wl_start_barrier);
}

/* Runs fn(0) .. fn(n-1) on n new threads and joins them in order. */
static inline void wl_run(int n, void *(*fn)(void *))
{
    pthread_t t[WL_MAX_THREADS];
    pthread_barrier_init(&wl_start_barrier, NULL, (unsigned)n);
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, fn, (void *)(intptr_t)i) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(2);
        }
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&wl_start_barrier);
}

/* The slice [*lo, *hi) of n items that thread id of nthreads gets. */
static inline void wl_slice(long n, int id, int nthreads, long *lo, long *hi)
{
    *lo = n * id / nthreads;
    *hi = n * (id + 1) / nthreads;
}

/* 64-bit xorshift: the kernels' deterministic pseudo-random numbers. */
static inline uint64_t wl_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

#endif
