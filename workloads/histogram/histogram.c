/* histogram.c: threads draw pseudo-random numbers and count them into one shared histogram
 * with relaxed atomic fetch_add: contended random atomics, the hard case for trace compression
 * (docs/references.md §5, "hist").
 *
 * usage: histogram [THREADS=4] [SAMPLES=25000] [BUCKETS=1024]; SAMPLES per thread, xorshift
 * seeded by the thread index, so the final histogram does not depend on the interleaving.
 */
#include <stdatomic.h>

#include "wl.h"

#define HIST_MAX_BUCKETS 65536

static atomic_ulong hist[HIST_MAX_BUCKETS];
static long hist_samples, hist_buckets;

static uint64_t hist_seed(int id)
{
    return 0x9e3779b97f4a7c15ULL * (uint64_t)(id + 1);
}

static void *hist_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint64_t s = hist_seed(id);
    const long samples = hist_samples;  /* locals: the loop touches only the histogram */
    const uint64_t buckets = (uint64_t)hist_buckets;
    wl_start();
    archsim_roi_begin();
    for (long i = 0; i < samples; i++)
        atomic_fetch_add_explicit(&hist[wl_rand(&s) % buckets], 1, memory_order_relaxed);
    archsim_roi_end();
    return NULL;
}

int main(int argc, char **argv)
{
    int n = (int)wl_arg(argc, argv, 1, 4, 1, WL_MAX_THREADS, "THREADS");
    hist_samples = wl_arg(argc, argv, 2, 25000, 1, 1L << 40, "SAMPLES");
    hist_buckets = wl_arg(argc, argv, 3, 1024, 1, HIST_MAX_BUCKETS, "BUCKETS");
    wl_run(n, hist_worker);
    /* the same draws again, in registers only: total and sum of bucket indices */
    uint64_t want_weighted = 0;
    for (int id = 0; id < n; id++) {
        uint64_t s = hist_seed(id);
        for (long i = 0; i < hist_samples; i++)
            want_weighted += wl_rand(&s) % (uint64_t)hist_buckets;
    }
    uint64_t total = 0, weighted = 0;
    for (long b = 0; b < hist_buckets; b++) {
        uint64_t c = atomic_load_explicit(&hist[b], memory_order_relaxed);
        total += c;
        weighted += c * (uint64_t)b;
    }
    if (total != (uint64_t)(n * hist_samples) || weighted != want_weighted)
        wl_fail("histogram", "total %lu (expected %ld), weighted %lu (expected %lu)",
                (unsigned long)total, n * hist_samples, (unsigned long)weighted,
                (unsigned long)want_weighted);
    printf("OK histogram threads=%d samples=%ld buckets=%ld checksum=%lu\n", n, hist_samples,
           hist_buckets, (unsigned long)weighted);
    return 0;
}
