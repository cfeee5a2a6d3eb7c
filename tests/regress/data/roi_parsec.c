/* roi_parsec.c: a program for tests/regress/roi.sh, recorded at test time: PARSEC-style ROI
 * markers (__parsec_roi_begin/end), the main thread warms a table up, then marks one region
 * around the two workers it creates and joins, then clears the table outside the region. */
#include <pthread.h>
#include "archsim_trace.h"

static volatile long table[4096];
static volatile long out[2][8];

static void *worker(void *arg)
{
    long id = (long)arg;
    for (long i = 0; i < 2000; i++)
        out[id][0] += table[(i * 7 + id) % 4096];
    return 0;
}

int main(void)
{
    for (long i = 0; i < 4096; i++)       /* warm-up, outside the ROI */
        table[i] = i;
    archsim_roi_begin();
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], 0, worker, (void *)i);
    for (long i = 0; i < 2; i++)
        pthread_join(t[i], 0);
    archsim_roi_end();
    for (long i = 0; i < 4096; i++)       /* after the ROI */
        table[i] = 0;
    return 0;
}
