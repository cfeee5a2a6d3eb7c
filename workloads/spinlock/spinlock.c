/* spinlock.c: a shared counter under a spin lock built on C11 atomics: test-and-set (TAS),
 * test-and-test-and-set (TTAS) or a ticket lock (Herlihy & Shavit, "The Art of Multiprocessor
 * Programming", ch. 7; Mellor-Crummey & Scott, ACM TOCS 9(1), 1991).
 *
 * usage: spinlock tas|ttas|ticket [THREADS=4] [ITERS=20000]. Each thread takes the lock ITERS
 * times and increments a plain counter inside. After SPIN_YIELD failed tries a waiter calls
 * sched_yield(): with more threads than host cores a preempted holder would otherwise make the
 * others spin for a whole time slice, and the trace would be mostly spin loads.
 */
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "wl.h"

#define SPIN_YIELD 64

enum { LOCK_TAS, LOCK_TTAS, LOCK_TICKET };

static int spin_kind;
static long spin_iters;
static atomic_int spin_flag;                    /* TAS, TTAS: 1 = held */
static atomic_uint spin_next, spin_serving;     /* ticket lock */
static long spin_counter;                       /* protected by the lock */

static void spin_wait(int *tries)
{
    if (++*tries % SPIN_YIELD == 0)
        sched_yield();
}

static void spin_lock(int kind)
{
    int tries = 0;
    switch (kind) {
    case LOCK_TAS:
        while (atomic_exchange_explicit(&spin_flag, 1, memory_order_acquire))
            spin_wait(&tries);
        break;
    case LOCK_TTAS:
        for (;;) {
            while (atomic_load_explicit(&spin_flag, memory_order_relaxed))
                spin_wait(&tries);
            if (!atomic_exchange_explicit(&spin_flag, 1, memory_order_acquire))
                break;
        }
        break;
    default: {
        unsigned me = atomic_fetch_add_explicit(&spin_next, 1, memory_order_relaxed);
        while (atomic_load_explicit(&spin_serving, memory_order_acquire) != me)
            spin_wait(&tries);
        break;
    }
    }
}

static void spin_unlock(int kind)
{
    if (kind == LOCK_TICKET) {
        unsigned s = atomic_load_explicit(&spin_serving, memory_order_relaxed);
        atomic_store_explicit(&spin_serving, s + 1, memory_order_release);
    } else {
        atomic_store_explicit(&spin_flag, 0, memory_order_release);
    }
}

static void *spin_worker(void *arg)
{
    (void)arg;
    const int kind = spin_kind;         /* locals: the loop reads only the lock and counter */
    const long iters = spin_iters;
    wl_start();
    archsim_roi_begin();
    for (long i = 0; i < iters; i++) {
        spin_lock(kind);
        spin_counter++;
        spin_unlock(kind);
    }
    archsim_roi_end();
    return NULL;
}

int main(int argc, char **argv)
{
    static const char *const kinds[] = { "tas", "ttas", "ticket" };
    if (argc < 2) {
        fprintf(stderr, "usage: %s tas|ttas|ticket [THREADS] [ITERS]\n", argv[0]);
        return 2;
    }
    spin_kind = -1;
    for (int k = 0; k < 3; k++)
        if (strcmp(argv[1], kinds[k]) == 0)
            spin_kind = k;
    if (spin_kind < 0) {
        fprintf(stderr, "%s: lock must be tas, ttas or ticket, not '%s'\n", argv[0], argv[1]);
        return 2;
    }
    int n = (int)wl_arg(argc, argv, 2, 4, 1, WL_MAX_THREADS, "THREADS");
    spin_iters = wl_arg(argc, argv, 3, 20000, 1, 1L << 40, "ITERS");
    wl_run(n, spin_worker);
    if (spin_counter != n * spin_iters)
        wl_fail("spinlock", "%s: counter %ld, expected %ld", kinds[spin_kind], spin_counter,
                n * spin_iters);
    printf("OK spinlock lock=%s threads=%d iters=%ld counter=%ld\n", kinds[spin_kind], n,
           spin_iters, spin_counter);
    return 0;
}
