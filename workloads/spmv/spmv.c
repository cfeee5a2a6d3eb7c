/* spmv.c: y = A*x for a sparse matrix in CSR form (compressed sparse row: row_ptr, col, val),
 * rows split among threads, REPS times; pseudo-random column indices make the x[col] gathers
 * irregular (docs/references.md §5, "spmv"). Each pass ends with a mutex-protected
 * reduction of sum(y) and a barrier.
 *
 * usage: spmv [THREADS=4] [ROWS=4096] [NNZ_PER_ROW=8] [REPS=2]. Values and x are small
 * integers, so sum(y) is exact; it is checked against the sum computed while building A.
 */
#include "wl.h"

static long *sp_row, *sp_col;
static double *sp_val, *sp_x, *sp_y;
static long sp_rows, sp_per_row, sp_reps;
static int sp_threads;
static pthread_barrier_t sp_bar;
static pthread_mutex_t sp_lock = PTHREAD_MUTEX_INITIALIZER;
static double sp_sum;           /* sum of y over all passes, under sp_lock */

static void *sp_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    long lo, hi;
    wl_slice(sp_rows, id, sp_threads, &lo, &hi);
    wl_start();
    archsim_roi_begin();
    for (long r = 0; r < sp_reps; r++) {
        double local = 0.0;
        for (long i = lo; i < hi; i++) {
            double s = 0.0;
            for (long p = sp_row[i]; p < sp_row[i + 1]; p++)
                s += sp_val[p] * sp_x[sp_col[p]];
            sp_y[i] = s;
            local += s;
        }
        pthread_mutex_lock(&sp_lock);
        sp_sum += local;
        pthread_mutex_unlock(&sp_lock);
        pthread_barrier_wait(&sp_bar);
    }
    archsim_roi_end();
    return NULL;
}

int main(int argc, char **argv)
{
    sp_threads = (int)wl_arg(argc, argv, 1, 4, 1, WL_MAX_THREADS, "THREADS");
    sp_rows = wl_arg(argc, argv, 2, 4096, 1, 1L << 24, "ROWS");
    sp_per_row = wl_arg(argc, argv, 3, 8, 1, 1024, "NNZ_PER_ROW");
    sp_reps = wl_arg(argc, argv, 4, 2, 1, 1000, "REPS");
    long nnz = sp_rows * sp_per_row;
    sp_row = malloc((size_t)(sp_rows + 1) * sizeof *sp_row);
    sp_col = malloc((size_t)nnz * sizeof *sp_col);
    sp_val = malloc((size_t)nnz * sizeof *sp_val);
    sp_x = malloc((size_t)sp_rows * sizeof *sp_x);
    sp_y = malloc((size_t)sp_rows * sizeof *sp_y);
    if (!sp_row || !sp_col || !sp_val || !sp_x || !sp_y)
        wl_fail("spmv", "out of memory");
    for (long j = 0; j < sp_rows; j++)
        sp_x[j] = (double)(1 + j % 3);
    uint64_t s = 12345;
    double want = 0.0;
    for (long i = 0; i < sp_rows; i++) {
        sp_row[i] = i * sp_per_row;
        for (long p = i * sp_per_row; p < (i + 1) * sp_per_row; p++) {
            sp_col[p] = (long)(wl_rand(&s) % (uint64_t)sp_rows);
            sp_val[p] = (double)(1 + wl_rand(&s) % 4);
            want += sp_val[p] * sp_x[sp_col[p]];
        }
    }
    sp_row[sp_rows] = nnz;
    want *= (double)sp_reps;
    pthread_barrier_init(&sp_bar, NULL, (unsigned)sp_threads);
    wl_run(sp_threads, sp_worker);
    pthread_barrier_destroy(&sp_bar);
    if (sp_sum != want)
        wl_fail("spmv", "sum(y) over %ld passes %.1f, expected %.1f", sp_reps, sp_sum, want);
    printf("OK spmv threads=%d rows=%ld nnz=%ld reps=%ld checksum=%.1f\n", sp_threads, sp_rows,
           nnz, sp_reps, sp_sum);
    free(sp_row);
    free(sp_col);
    free(sp_val);
    free(sp_x);
    free(sp_y);
    return 0;
}
