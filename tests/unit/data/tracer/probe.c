/* probe.c: the program tests/unit/test_tracer.c builds with tools/archsim-cc and records. Every
 * event it causes is known in advance, so the test asserts exact records:
 *   main (tid 0): ROI_BEGIN, CREATE 1, CREATE 2, LOCK_ACQ m2, BARRIER bar (3), then at least one
 *     cond wait (LOCK_REL m2, COND_WAIT cv, LOCK_ACQ m2), LOCK_REL m2, JOIN 1, JOIN 2, ROI_END;
 *   tid 1: BARRIER, PR_N loads and PR_N stores of pr_a in order, CREATE 3, JOIN 3, five
 *     LOCK_ACQ/LOCK_REL pairs on mu, memcpy (RANGE_R src, RANGE_W dst, 100 bytes), memset
 *     (RANGE_W, 64 bytes);
 *   tid 2: BARRIER, the atomics listed in pr_atomics with their orders, COND_SIGNAL cv;
 *   tid 3 (child of 1): one store, then pthread_exit from a nested call.
 * stdout is the same whether or not the program records; addresses go to stderr for the test.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "archsim_trace.h"

#define PR_N 1000

static long pr_a[PR_N];
static pthread_barrier_t pr_bar;
static pthread_mutex_t pr_mu = PTHREAD_MUTEX_INITIALIZER, pr_m2 = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pr_cv = PTHREAD_COND_INITIALIZER;
static int pr_ready;                    /* under pr_m2 */
static long pr_shared;                  /* under pr_mu */
static long pr_leaf;
static char pr_src[100], pr_dst[100], pr_buf[64];
static volatile size_t pr_len = 100;    /* not a constant: memcpy stays a call */
static _Atomic long pr_x;
static _Atomic char pr_x8;
static _Atomic short pr_x16;
static long pr_nand = 0xff;
static long pr_results[32];

static void pr_exit_nested(void)
{
    pthread_exit(NULL);
}

static void *pr_leaf_thread(void *arg)
{
    (void)arg;
    pr_leaf = 42;
    pr_exit_nested();
    return NULL;
}

static void *pr_loop_thread(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&pr_bar);
    for (int i = 0; i < PR_N; i++)
        pr_a[i] = pr_a[i] * 3 + i;
    pthread_t t;
    pthread_create(&t, NULL, pr_leaf_thread, NULL);
    pthread_join(t, NULL);
    for (int i = 0; i < 5; i++) {
        pthread_mutex_lock(&pr_mu);
        pr_shared++;
        pthread_mutex_unlock(&pr_mu);
    }
    memcpy(pr_dst, pr_src, pr_len);
    memset(pr_buf, 7, sizeof pr_buf);
    return NULL;
}

/* The atomics, in order; the test expects exactly these records from tid 2. */
static void pr_atomics(void)
{
    int k = 0;
    pr_results[k++] = atomic_fetch_add_explicit(&pr_x, 5, memory_order_relaxed);   /* 0 -> 5 */
    pr_results[k++] = atomic_fetch_sub_explicit(&pr_x, 1, memory_order_release);   /* -> 4 */
    pr_results[k++] = atomic_fetch_or_explicit(&pr_x, 0x10, memory_order_acquire); /* -> 0x14 */
    pr_results[k++] = atomic_fetch_and_explicit(&pr_x, 0x7, memory_order_acq_rel); /* -> 4 */
    pr_results[k++] = atomic_fetch_xor_explicit(&pr_x, 3, memory_order_seq_cst);   /* -> 7 */
    pr_results[k++] = atomic_exchange_explicit(&pr_x, 9, memory_order_acquire);    /* -> 9 */
    pr_results[k++] = atomic_exchange_explicit(&pr_x, 9, memory_order_acquire);    /* unchanged */
    long expected = 9;
    pr_results[k++] = atomic_compare_exchange_strong_explicit(
        &pr_x, &expected, 10, memory_order_acq_rel, memory_order_acquire);          /* ok */
    expected = 9;
    pr_results[k++] = atomic_compare_exchange_strong_explicit(
        &pr_x, &expected, 11, memory_order_seq_cst, memory_order_relaxed);          /* fails */
    pr_results[k++] = expected;
    pr_results[k++] = atomic_compare_exchange_weak_explicit(
        &pr_x, &expected, 12, memory_order_release, memory_order_relaxed);          /* ok */
    pr_results[k++] = atomic_load_explicit(&pr_x, memory_order_acquire);
    atomic_store_explicit(&pr_x, 1, memory_order_release);
    /* atomics between the fences: clang merges adjacent ones */
    atomic_thread_fence(memory_order_seq_cst);
    pr_results[k++] = atomic_fetch_add_explicit(&pr_x8, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    pr_results[k++] = atomic_fetch_add_explicit(&pr_x16, 2, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_signal_fence(memory_order_seq_cst);                                      /* no record */
    pr_results[k++] = __atomic_fetch_nand(&pr_nand, 0x0f, __ATOMIC_RELAXED);
}

static void *pr_atomic_thread(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&pr_bar);
    pr_atomics();
    pthread_mutex_lock(&pr_m2);
    pr_ready = 1;
    pthread_cond_signal(&pr_cv);
    pthread_mutex_unlock(&pr_m2);
    return NULL;
}

int main(void)
{
    fprintf(stderr, "addr pr_a=%p pr_bar=%p pr_mu=%p pr_m2=%p pr_cv=%p pr_x=%p pr_x8=%p "
            "pr_x16=%p pr_nand=%p pr_src=%p pr_dst=%p pr_buf=%p pr_leaf=%p\n",
            (void *)pr_a, (void *)&pr_bar, (void *)&pr_mu, (void *)&pr_m2, (void *)&pr_cv,
            (void *)&pr_x, (void *)&pr_x8, (void *)&pr_x16, (void *)&pr_nand, (void *)pr_src,
            (void *)pr_dst, (void *)pr_buf, (void *)&pr_leaf);
    archsim_roi_begin();
    pthread_barrier_init(&pr_bar, NULL, 3);
    pthread_t t1, t2;
    pthread_create(&t1, NULL, pr_loop_thread, NULL);
    pthread_create(&t2, NULL, pr_atomic_thread, NULL);
    pthread_mutex_lock(&pr_m2);         /* held: tid 2 cannot signal before main waits */
    pthread_barrier_wait(&pr_bar);
    while (!pr_ready)
        pthread_cond_wait(&pr_cv, &pr_m2);
    pthread_mutex_unlock(&pr_m2);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    archsim_roi_end();
    long sum = 0;
    for (int i = 0; i < PR_N; i++)
        sum += pr_a[i];
    printf("probe sum=%ld shared=%ld leaf=%ld x=%ld x8=%d x16=%d nand=%ld results=", sum,
           pr_shared, pr_leaf, (long)pr_x, (int)pr_x8, (int)pr_x16, pr_nand);
    for (int i = 0; i < 16; i++)
        printf("%ld%s", pr_results[i], i < 15 ? "," : "\n");
    return 0;
}
