/* kmeans.c: Lloyd's k-means on 2-D points with integer coordinates. Each iteration: every thread
 * assigns its points to the nearest centroid and sums them locally, merges its sums into shared
 * ones under a mutex, a barrier, thread 0 computes the new centroids, a barrier (the STAMP/
 * Rodinia "kmeans" structure, with locks instead of transactions).
 *
 * usage: kmeans [THREADS=4] [POINTS=4096] [K=4] [ITERS=8]. All arithmetic is integer (centroid
 * = floor of the mean), so the result does not depend on the merge order: it is compared with a
 * sequential run of the same algorithm.
 */
#include <string.h>

#include "wl.h"

#define KM_MAX_K 64

typedef struct {
    long x, y;
} KmPoint;

static KmPoint *km_pt;
static int *km_assign;
static long km_points, km_k, km_iters;
static int km_threads;
static KmPoint km_centre[KM_MAX_K];
static long km_sum_x[KM_MAX_K], km_sum_y[KM_MAX_K], km_count[KM_MAX_K];   /* under km_lock */
static pthread_mutex_t km_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t km_bar;

static int km_nearest(const KmPoint *centre, KmPoint p)
{
    int best = 0;
    long best_d = -1;
    for (int c = 0; c < km_k; c++) {
        long dx = p.x - centre[c].x, dy = p.y - centre[c].y;
        long d = dx * dx + dy * dy;
        if (best_d < 0 || d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return best;
}

/* New centroids from the sums; an empty cluster keeps its centroid. Clears the sums. */
static void km_update(KmPoint *centre, long *sx, long *sy, long *cnt)
{
    for (int c = 0; c < km_k; c++) {
        if (cnt[c] > 0) {
            centre[c].x = sx[c] / cnt[c];
            centre[c].y = sy[c] / cnt[c];
        }
        sx[c] = sy[c] = cnt[c] = 0;
    }
}

static void *km_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    long lo, hi;
    wl_slice(km_points, id, km_threads, &lo, &hi);
    wl_start();
    archsim_roi_begin();
    for (long it = 0; it < km_iters; it++) {
        long sx[KM_MAX_K] = { 0 }, sy[KM_MAX_K] = { 0 }, cnt[KM_MAX_K] = { 0 };
        for (long i = lo; i < hi; i++) {
            int c = km_nearest(km_centre, km_pt[i]);
            km_assign[i] = c;
            sx[c] += km_pt[i].x;
            sy[c] += km_pt[i].y;
            cnt[c]++;
        }
        pthread_mutex_lock(&km_lock);
        for (int c = 0; c < km_k; c++) {
            km_sum_x[c] += sx[c];
            km_sum_y[c] += sy[c];
            km_count[c] += cnt[c];
        }
        pthread_mutex_unlock(&km_lock);
        pthread_barrier_wait(&km_bar);
        if (id == 0)
            km_update(km_centre, km_sum_x, km_sum_y, km_count);
        pthread_barrier_wait(&km_bar);
    }
    archsim_roi_end();
    return NULL;
}

int main(int argc, char **argv)
{
    km_threads = (int)wl_arg(argc, argv, 1, 4, 1, WL_MAX_THREADS, "THREADS");
    km_points = wl_arg(argc, argv, 2, 4096, 1, 1L << 24, "POINTS");
    km_k = wl_arg(argc, argv, 3, 4, 1, KM_MAX_K, "K");
    km_iters = wl_arg(argc, argv, 4, 8, 1, 1000, "ITERS");
    if (km_k > km_points)
        wl_fail("kmeans", "K (%ld) > POINTS (%ld)", km_k, km_points);
    km_pt = malloc((size_t)km_points * sizeof *km_pt);
    km_assign = malloc((size_t)km_points * sizeof *km_assign);
    if (km_pt == NULL || km_assign == NULL)
        wl_fail("kmeans", "out of memory");
    /* K blobs around random centres, so the clustering has something to find */
    uint64_t s = 2024;
    for (long i = 0; i < km_points; i++) {
        long blob = (long)(wl_rand(&s) % (uint64_t)km_k);
        km_pt[i].x = 1000 * blob + (long)(wl_rand(&s) % 700);
        km_pt[i].y = 500 * (blob % 3) + (long)(wl_rand(&s) % 700);
    }
    KmPoint start[KM_MAX_K];
    for (long c = 0; c < km_k; c++)
        start[c] = km_pt[c];
    memcpy(km_centre, start, sizeof start);
    pthread_barrier_init(&km_bar, NULL, (unsigned)km_threads);
    wl_run(km_threads, km_worker);
    pthread_barrier_destroy(&km_bar);

    KmPoint ref[KM_MAX_K];
    long sx[KM_MAX_K] = { 0 }, sy[KM_MAX_K] = { 0 }, cnt[KM_MAX_K] = { 0 };
    memcpy(ref, start, sizeof ref);
    for (long it = 0; it < km_iters; it++) {
        for (long i = 0; i < km_points; i++) {
            int c = km_nearest(ref, km_pt[i]);
            sx[c] += km_pt[i].x;
            sy[c] += km_pt[i].y;
            cnt[c]++;
        }
        km_update(ref, sx, sy, cnt);
    }
    long checksum = 0;
    for (int c = 0; c < km_k; c++) {
        if (ref[c].x != km_centre[c].x || ref[c].y != km_centre[c].y)
            wl_fail("kmeans", "centroid %d is (%ld, %ld), sequential (%ld, %ld)", c,
                    km_centre[c].x, km_centre[c].y, ref[c].x, ref[c].y);
        checksum += (c + 1) * (km_centre[c].x * 7919 + km_centre[c].y);
    }
    printf("OK kmeans threads=%d points=%ld k=%ld iters=%ld checksum=%ld\n", km_threads,
           km_points, km_k, km_iters, checksum);
    free(km_pt);
    free(km_assign);
    return 0;
}
