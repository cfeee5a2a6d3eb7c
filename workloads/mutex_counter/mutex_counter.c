/* mutex_counter.c: a shared counter under one pthread mutex; the library-lock baseline for the
 * spin locks of workloads/spinlock (the trace holds LOCK_ACQ/LOCK_REL markers, not the futex
 * code inside glibc, which is not instrumented).
 *
 * usage: mutex_counter [THREADS=4] [ITERS=20000]; each thread locks, increments, unlocks ITERS
 * times.
 */
#include "wl.h"

static pthread_mutex_t mc_lock = PTHREAD_MUTEX_INITIALIZER;
static long mc_counter;
static long mc_iters;

static void *mc_worker(void *arg)
{
    (void)arg;
    const long iters = mc_iters;        /* a local: the loop reads only the counter */
    wl_start();
    archsim_roi_begin();
    for (long i = 0; i < iters; i++) {
        pthread_mutex_lock(&mc_lock);
        mc_counter++;
        pthread_mutex_unlock(&mc_lock);
    }
    archsim_roi_end();
    return NULL;
}

int main(int argc, char **argv)
{
    int n = (int)wl_arg(argc, argv, 1, 4, 1, WL_MAX_THREADS, "THREADS");
    mc_iters = wl_arg(argc, argv, 2, 20000, 1, 1L << 40, "ITERS");
    wl_run(n, mc_worker);
    if (mc_counter != n * mc_iters)
        wl_fail("mutex_counter", "counter %ld, expected %ld", mc_counter, n * mc_iters);
    printf("OK mutex_counter threads=%d iters=%ld counter=%ld\n", n, mc_iters, mc_counter);
    return 0;
}
