/* fs.c: per-thread counters, packed into shared cache lines (fs_packed) or padded to one 64-byte
 * line each (fs_padded, -DFS_PADDED=1): the false-sharing experiment (Hennessy & Patterson,
 * 6th ed., §5.2; docs/references.md §5).
 *
 * usage: fs_packed [THREADS=4] [ITERS=100000]; each thread increments its own volatile counter
 * ITERS times, so every iteration is one 8-byte load and one 8-byte store to its counter.
 */
#include <stdalign.h>

#include "wl.h"

#ifndef FS_PADDED
#define FS_PADDED 0
#endif

typedef struct {
    alignas(FS_PADDED ? 64 : 8) volatile long v;
} FsCounter;

static alignas(64) FsCounter fs_count[WL_MAX_THREADS];
static long fs_iters;

static void *fs_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    wl_start();
    archsim_roi_begin();
    for (long i = 0; i < fs_iters; i++)
        fs_count[id].v++;
    archsim_roi_end();
    return NULL;
}

int main(int argc, char **argv)
{
    const char *name = FS_PADDED ? "fs_padded" : "fs_packed";
    int n = (int)wl_arg(argc, argv, 1, 4, 1, WL_MAX_THREADS, "THREADS");
    fs_iters = wl_arg(argc, argv, 2, 100000, 1, 1L << 40, "ITERS");
    wl_run(n, fs_worker);
    long sum = 0;
    for (int i = 0; i < n; i++) {
        if (fs_count[i].v != fs_iters)
            wl_fail(name, "counter %d is %ld, expected %ld", i, fs_count[i].v, fs_iters);
        sum += fs_count[i].v;
    }
    printf("OK %s threads=%d iters=%ld counter_bytes=%zu sum=%ld\n", name, n, fs_iters,
           sizeof(FsCounter), sum);
    return 0;
}
