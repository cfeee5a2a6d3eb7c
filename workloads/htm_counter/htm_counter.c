/* htm_counter.c: counters updated in critical sections marked as transactions (lock elision):
 * each update is wrapped in archsim_tx_begin()/archsim_tx_end() around a real pthread mutex, so
 * the recorded program is correct on the host, and a replay with thread-core `htm: on` runs the
 * region as a hardware transaction that replaces the mutex (docs/tracing.md "Transactions in
 * traces").
 *
 * usage: htm_counter [THREADS=4] [ITERS=1500] [SLOTS=16]; each thread, ITERS times, adds 1 to two
 * pseudo-randomly chosen slots (one line each) in one transaction; every 16th iteration also
 * reads all slots (a long read-only transaction, the one most exposed to conflicts).
 */
#include "wl.h"

#define HC_MAX_SLOTS 256

/* the mutex and every slot on a line of its own: conflicts come from the slots' data only */
static pthread_mutex_t hc_lock __attribute__((aligned(64))) = PTHREAD_MUTEX_INITIALIZER;
static struct {
    long v;
    char pad[64 - sizeof(long)];
} hc_slot[HC_MAX_SLOTS] __attribute__((aligned(64)));
static long hc_iters, hc_slots;
static struct {
    long seen;                          /* what the reading transactions saw, summed */
    char pad[64 - sizeof(long)];
} hc_seen[WL_MAX_THREADS] __attribute__((aligned(64)));

static void *hc_worker(void *arg)
{
    const long iters = hc_iters, slots = hc_slots;
    const int id = (int)(intptr_t)arg;
    uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(id + 1);
    long seen = 0;
    wl_start();
    archsim_roi_begin();
    for (long i = 0; i < iters; i++) {
        long a = (long)(wl_rand(&seed) % (uint64_t)slots);
        long b = (long)(wl_rand(&seed) % (uint64_t)slots);
        archsim_tx_begin();
        pthread_mutex_lock(&hc_lock);
        hc_slot[a].v++;
        hc_slot[b].v++;
        if (i % 16 == 15) {
            for (long s = 0; s < slots; s++)
                seen += hc_slot[s].v;
        }
        pthread_mutex_unlock(&hc_lock);
        archsim_tx_end();
    }
    archsim_roi_end();
    hc_seen[id].seen = seen;
    return NULL;
}

int main(int argc, char **argv)
{
    int n = (int)wl_arg(argc, argv, 1, 4, 1, WL_MAX_THREADS, "THREADS");
    hc_iters = wl_arg(argc, argv, 2, 1500, 1, 1L << 40, "ITERS");
    hc_slots = wl_arg(argc, argv, 3, 16, 1, HC_MAX_SLOTS, "SLOTS");
    wl_run(n, hc_worker);
    long sum = 0;
    for (long s = 0; s < hc_slots; s++)
        sum += hc_slot[s].v;
    if (sum != 2 * n * hc_iters)
        wl_fail("htm_counter", "slots sum to %ld, expected %ld", sum, 2 * n * hc_iters);
    printf("OK htm_counter threads=%d iters=%ld slots=%ld sum=%ld\n", n, hc_iters, hc_slots,
           sum);
    return 0;
}
