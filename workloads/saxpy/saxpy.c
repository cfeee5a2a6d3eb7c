/* saxpy.c: y = a*x + y (BLAS level 1) on float vectors split into contiguous slices, REPS times
 * with a barrier between passes: streaming, perfectly regular, no sharing except at slice edges.
 *
 * usage: saxpy [THREADS=4] [N=32768] [REPS=4]. x[i] = i mod 16, y starts at 1, a = 2, so after
 * REPS passes y[i] = 1 + 2*REPS*(i mod 16) exactly (small integers are exact in float).
 */
#include "wl.h"

static float *sx_x, *sx_y;
static long sx_n, sx_reps;
static int sx_threads;
static pthread_barrier_t sx_bar;

static void *sx_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    long lo, hi;
    wl_slice(sx_n, id, sx_threads, &lo, &hi);
    const float a = 2.0f;
    wl_start();
    archsim_roi_begin();
    for (long r = 0; r < sx_reps; r++) {
        for (long i = lo; i < hi; i++)
            sx_y[i] = a * sx_x[i] + sx_y[i];
        pthread_barrier_wait(&sx_bar);
    }
    archsim_roi_end();
    return NULL;
}

int main(int argc, char **argv)
{
    sx_threads = (int)wl_arg(argc, argv, 1, 4, 1, WL_MAX_THREADS, "THREADS");
    sx_n = wl_arg(argc, argv, 2, 32768, 1, 1L << 28, "N");
    sx_reps = wl_arg(argc, argv, 3, 4, 1, 1000, "REPS");
    sx_x = malloc((size_t)sx_n * sizeof *sx_x);
    sx_y = malloc((size_t)sx_n * sizeof *sx_y);
    if (sx_x == NULL || sx_y == NULL)
        wl_fail("saxpy", "out of memory");
    for (long i = 0; i < sx_n; i++) {
        sx_x[i] = (float)(i % 16);
        sx_y[i] = 1.0f;
    }
    pthread_barrier_init(&sx_bar, NULL, (unsigned)sx_threads);
    wl_run(sx_threads, sx_worker);
    pthread_barrier_destroy(&sx_bar);
    double sum = 0;
    for (long i = 0; i < sx_n; i++) {
        float want = 1.0f + 2.0f * (float)sx_reps * (float)(i % 16);
        if (sx_y[i] != want)
            wl_fail("saxpy", "y[%ld] = %g, expected %g", i, (double)sx_y[i], (double)want);
        sum += sx_y[i];
    }
    printf("OK saxpy threads=%d n=%ld reps=%ld checksum=%.1f\n", sx_threads, sx_n, sx_reps, sum);
    free(sx_x);
    free(sx_y);
    return 0;
}
