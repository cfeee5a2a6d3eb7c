/* rbgs.c: red-black Gauss-Seidel for the Laplace equation on an (N+2) x (N+2) grid: points are
 * coloured like a chessboard, each half-sweep updates one colour from its four neighbours of the
 * other colour, with a barrier after each half-sweep (Golub & Van Loan, "Matrix Computations",
 * §11.2; Culler & Singh, "Parallel Computer Architecture", §2.3, the "ocean" kernel).
 *
 * usage: rbgs [THREADS=4] [N=64] [ITERS=20]; interior rows split among threads. The boundary is
 * u = i + 2j, a discrete harmonic function, so the exact solution is known. Because a colour's
 * updates read only the other colour, the result does not depend on the interleaving: it is
 * compared bit for bit with a sequential run of the same sweeps.
 */
#include <math.h>
#include <string.h>

#include "wl.h"

static double *rb_u, *rb_ref;
static long rb_n, rb_iters;
static int rb_threads;
static pthread_barrier_t rb_bar;

#define RB_AT(u, i, j) (u)[(i) * (rb_n + 2) + (j)]

/* Updates the points of one colour in interior rows [lo, hi). */
static void rb_half_sweep(double *u, long lo, long hi, int colour)
{
    for (long i = lo; i < hi; i++)
        for (long j = 1 + ((i + 1 + colour) & 1); j <= rb_n; j += 2)
            RB_AT(u, i, j) = 0.25 * (RB_AT(u, i - 1, j) + RB_AT(u, i + 1, j) +
                                     RB_AT(u, i, j - 1) + RB_AT(u, i, j + 1));
}

static void *rb_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    long lo, hi;
    wl_slice(rb_n, id, rb_threads, &lo, &hi);
    wl_start();
    archsim_roi_begin();
    for (long it = 0; it < rb_iters; it++)
        for (int colour = 0; colour < 2; colour++) {
            rb_half_sweep(rb_u, lo + 1, hi + 1, colour);
            pthread_barrier_wait(&rb_bar);
        }
    archsim_roi_end();
    return NULL;
}

static void rb_init(double *u)
{
    for (long i = 0; i < rb_n + 2; i++)
        for (long j = 0; j < rb_n + 2; j++) {
            int edge = i == 0 || j == 0 || i == rb_n + 1 || j == rb_n + 1;
            RB_AT(u, i, j) = edge ? (double)(i + 2 * j) : 0.0;
        }
}

int main(int argc, char **argv)
{
    rb_threads = (int)wl_arg(argc, argv, 1, 4, 1, WL_MAX_THREADS, "THREADS");
    rb_n = wl_arg(argc, argv, 2, 64, 2, 1L << 14, "N");
    rb_iters = wl_arg(argc, argv, 3, 20, 1, 1L << 20, "ITERS");
    if (rb_threads > rb_n)
        wl_fail("rbgs", "more threads (%d) than rows (%ld)", rb_threads, rb_n);
    size_t cells = (size_t)((rb_n + 2) * (rb_n + 2));
    rb_u = malloc(cells * sizeof *rb_u);
    rb_ref = malloc(cells * sizeof *rb_ref);
    if (rb_u == NULL || rb_ref == NULL)
        wl_fail("rbgs", "out of memory");
    rb_init(rb_u);
    pthread_barrier_init(&rb_bar, NULL, (unsigned)rb_threads);
    wl_run(rb_threads, rb_worker);
    pthread_barrier_destroy(&rb_bar);

    rb_init(rb_ref);
    for (long it = 0; it < rb_iters; it++)
        for (int colour = 0; colour < 2; colour++)
            rb_half_sweep(rb_ref, 1, rb_n + 1, colour);
    double err = 0.0, sum = 0.0;
    for (long i = 1; i <= rb_n; i++)
        for (long j = 1; j <= rb_n; j++) {
            if (RB_AT(rb_u, i, j) != RB_AT(rb_ref, i, j))
                wl_fail("rbgs", "u[%ld][%ld] = %.17g, sequential %.17g", i, j, RB_AT(rb_u, i, j),
                        RB_AT(rb_ref, i, j));
            err = fmax(err, fabs(RB_AT(rb_u, i, j) - (double)(i + 2 * j)));
            sum += RB_AT(rb_u, i, j);
        }
    printf("OK rbgs threads=%d n=%ld iters=%ld max_error=%.6g checksum=%.6f\n", rb_threads, rb_n,
           rb_iters, err, sum);
    free(rb_u);
    free(rb_ref);
    return 0;
}
