/* matmul_mt.c: C = A*B on N x N doubles, i-k-j loop order, rows split among threads; then a
 * barrier and a checksum reduction under a mutex (docs/references.md §5, "mm"). The
 * single-threaded reference trace is workloads/matmul (valgrind lackey).
 *
 * usage: matmul_mt [THREADS=4] [N=64]. A[i][k] = (i+k) mod 8, B[k][j] = (k+2j) mod 5: integer
 * values, so every sum is exact and the result does not depend on the order of additions.
 */
#include "wl.h"

static double *mm_a, *mm_b, *mm_c;
static long mm_n;
static int mm_threads;
static pthread_barrier_t mm_bar;
static pthread_mutex_t mm_lock = PTHREAD_MUTEX_INITIALIZER;
static double mm_checksum;      /* sum of all C[i][j], under mm_lock */

static void *mm_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    long lo, hi, n = mm_n;
    wl_slice(n, id, mm_threads, &lo, &hi);
    wl_start();
    archsim_roi_begin();
    for (long i = lo; i < hi; i++) {
        for (long j = 0; j < n; j++)
            mm_c[i * n + j] = 0.0;
        for (long k = 0; k < n; k++) {
            double aik = mm_a[i * n + k];
            for (long j = 0; j < n; j++)
                mm_c[i * n + j] += aik * mm_b[k * n + j];
        }
    }
    pthread_barrier_wait(&mm_bar);
    double local = 0.0;
    for (long i = lo; i < hi; i++)
        for (long j = 0; j < n; j++)
            local += mm_c[i * n + j];
    pthread_mutex_lock(&mm_lock);
    mm_checksum += local;
    pthread_mutex_unlock(&mm_lock);
    archsim_roi_end();
    return NULL;
}

int main(int argc, char **argv)
{
    mm_threads = (int)wl_arg(argc, argv, 1, 4, 1, WL_MAX_THREADS, "THREADS");
    mm_n = wl_arg(argc, argv, 2, 64, 1, 4096, "N");
    long n = mm_n;
    mm_a = malloc((size_t)(n * n) * sizeof *mm_a);
    mm_b = malloc((size_t)(n * n) * sizeof *mm_b);
    mm_c = malloc((size_t)(n * n) * sizeof *mm_c);
    if (mm_a == NULL || mm_b == NULL || mm_c == NULL)
        wl_fail("matmul_mt", "out of memory");
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            mm_a[i * n + j] = (double)((i + j) % 8);
            mm_b[i * n + j] = (double)((i + 2 * j) % 5);
        }
    pthread_barrier_init(&mm_bar, NULL, (unsigned)mm_threads);
    wl_run(mm_threads, mm_worker);
    pthread_barrier_destroy(&mm_bar);
    /* sum of C = sum over k of (column sum of A) * (row sum of B) */
    double want = 0.0;
    for (long k = 0; k < n; k++) {
        double ca = 0.0, rb = 0.0;
        for (long i = 0; i < n; i++) {
            ca += mm_a[i * n + k];
            rb += mm_b[k * n + i];
        }
        want += ca * rb;
    }
    if (mm_checksum != want)
        wl_fail("matmul_mt", "checksum %.1f, expected %.1f", mm_checksum, want);
    /* and a diagonal of single entries, each by its dot product */
    for (long i = 0; i < n; i++) {
        double dot = 0.0;
        for (long k = 0; k < n; k++)
            dot += mm_a[i * n + k] * mm_b[k * n + (n - 1 - i)];
        if (mm_c[i * n + (n - 1 - i)] != dot)
            wl_fail("matmul_mt", "C[%ld][%ld] = %.1f, expected %.1f", i, n - 1 - i,
                    mm_c[i * n + (n - 1 - i)], dot);
    }
    printf("OK matmul_mt threads=%d n=%ld checksum=%.1f\n", mm_threads, n, mm_checksum);
    free(mm_a);
    free(mm_b);
    free(mm_c);
    return 0;
}
