/* bench_engine.c: raw speed of archsim's event engine on PHOLD (Fujimoto 1990), the standard
 * synthetic load: P logical processes, each event schedules one new event at now + 1 + a random
 * delay to a random process (itself when that one is already scheduled), so P events are
 * always pending. No model work. It runs the same load, with the same random draws, on a plain
 * C binary min-heap of (tick, seq, process) written for the purpose (no deschedule, no
 * priorities, no indirect call: the strongest simple baseline, as in docs/references.md §3),
 * side by side in one process, and prints events per second of CPU time for each and their
 * ratio. `make bench` runs it at 256, 16 K and 1 M pending events.
 *   bench_engine [EVENTS] [PENDING...]        (default 20000000 events; 256 16384 1048576)
 *   bench_engine --archsim-only EVENTS PENDING
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/engine.h"
#include "../sim/rng.h"

#define PHOLD_SPREAD 200      /* delays are 1 .. 200 ticks */

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- archsim's engine ---------------------------------------------------------------------- */
typedef struct {
    SimEvent ev;
} Lp;

static Engine eng;
static SimRng rng;
static Lp *lps;
static uint32_t nlp;
static uint64_t budget;

static void fire(SimEvent *ev)
{
    if (budget == 0)
        return;
    budget--;
    /* the event slot of a random idle process carries the next event: pick one that is free */
    Lp *l = &lps[sim_rng_below(&rng, nlp)];
    Tick when = eng.now + 1 + sim_rng_below(&rng, PHOLD_SPREAD);
    if (sim_event_scheduled(&l->ev))
        l = (Lp *)ev->ctx;
    sim_schedule(&eng, &l->ev, when, SIM_PRI_TICK);
}

static double run_archsim(uint64_t events, uint32_t pending, uint64_t *done)
{
    nlp = pending;
    sim_engine_init(&eng);
    sim_rng_seed(&rng, 1, "phold");
    lps = calloc(nlp, sizeof *lps);
    for (uint32_t i = 0; i < nlp; i++) {
        sim_event_init(&lps[i].ev, fire, &lps[i]);
        sim_schedule(&eng, &lps[i].ev, sim_rng_below(&rng, PHOLD_SPREAD), SIM_PRI_TICK);
    }
    budget = events;
    double t0 = cpu_seconds();
    *done = sim_run(&eng, TICK_MAX);
    double dt = cpu_seconds() - t0;
    sim_engine_destroy(&eng);
    free(lps);
    return dt;
}

/* ---- a plain binary heap -------------------------------------------------------------------- */
typedef struct {
    uint64_t when, seq;
    uint32_t lp;
} HeapEv;

static double run_heap(uint64_t events, uint32_t pending, uint64_t *done)
{
    HeapEv *h = malloc(sizeof *h * pending);
    unsigned char *scheduled = calloc(pending, 1);
    uint32_t n = 0;
    uint64_t seq = 0, now = 0, left = events, ran = 0;
    SimRng r;
    sim_rng_seed(&r, 1, "phold");
#define HEAP_LESS(a, b) ((a).when < (b).when || ((a).when == (b).when && (a).seq < (b).seq))
#define HEAP_PUSH(W, LP)                                                                        \
    do {                                                                                        \
        HeapEv e_ = { (W), seq++, (LP) };                                                       \
        uint32_t i_ = n++;                                                                      \
        while (i_ > 0 && HEAP_LESS(e_, h[(i_ - 1) / 2])) {                                      \
            h[i_] = h[(i_ - 1) / 2];                                                            \
            i_ = (i_ - 1) / 2;                                                                  \
        }                                                                                       \
        h[i_] = e_;                                                                             \
        scheduled[(LP)] = 1;                                                                    \
    } while (0)
    for (uint32_t i = 0; i < pending; i++)
        HEAP_PUSH(sim_rng_below(&r, PHOLD_SPREAD), i);
    double t0 = cpu_seconds();
    while (n > 0) {
        HeapEv top = h[0], last = h[--n];
        uint32_t i = 0;
        for (;;) {                                 /* sift the last entry down from the root */
            uint32_t c = 2 * i + 1;
            if (c >= n)
                break;
            if (c + 1 < n && HEAP_LESS(h[c + 1], h[c]))
                c++;
            if (!HEAP_LESS(h[c], last))
                break;
            h[i] = h[c];
            i = c;
        }
        if (n > 0)
            h[i] = last;
        now = top.when;
        scheduled[top.lp] = 0;
        ran++;
        if (left == 0)
            continue;
        left--;
        uint32_t lp = (uint32_t)sim_rng_below(&r, pending);
        uint64_t when = now + 1 + sim_rng_below(&r, PHOLD_SPREAD);
        if (scheduled[lp])
            lp = top.lp;
        HEAP_PUSH(when, lp);
    }
    double dt = cpu_seconds() - t0;
    *done = ran;
    free(h);
    free(scheduled);
    return dt;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--archsim-only") == 0) {
        uint64_t events = argc > 2 ? strtoull(argv[2], NULL, 10) : 20000000ull;
        uint32_t pending = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 256;
        if (!events || !pending) {
            fprintf(stderr, "usage: bench_engine --archsim-only EVENTS PENDING\n");
            return 64;
        }
        uint64_t done;
        double dt = run_archsim(events, pending, &done);
        printf("engine PHOLD: %llu events, %u pending, %.3f s CPU, %.2f M events/s\n",
               (unsigned long long)done, pending, dt, (double)done / dt / 1e6);
        return 0;
    }
    uint64_t events = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000ull;
    uint32_t depths[16] = { 256, 16384, 1048576 };
    int ndepths = 3;
    if (argc > 2) {
        ndepths = 0;
        for (int i = 2; i < argc && ndepths < 16; i++)
            depths[ndepths++] = (uint32_t)strtoul(argv[i], NULL, 10);
    }
    if (events == 0) {
        fprintf(stderr, "usage: bench_engine [EVENTS] [PENDING...]\n");
        return 64;
    }
    printf("PHOLD, %llu events, CPU time, median of 3 pairs (archsim, plain heap in turn):\n",
           (unsigned long long)events);
    printf("%10s %16s %16s %8s\n", "pending", "archsim M ev/s", "plain heap", "ratio");
    for (int d = 0; d < ndepths; d++) {
        uint32_t p = depths[d];
        if (p == 0)
            continue;
        double a[3], b[3], ratio[3];
        uint64_t da = 0, db = 0;
        for (int k = 0; k < 3; k++) {
            double ta = run_archsim(events, p, &da), tb = run_heap(events, p, &db);
            a[k] = (double)da / ta / 1e6;
            b[k] = (double)db / tb / 1e6;
            ratio[k] = a[k] / b[k];
        }
        if (da != db) {
            fprintf(stderr, "bench_engine: the two ran different event counts (%llu, %llu)\n",
                    (unsigned long long)da, (unsigned long long)db);
            return 70;
        }
        qsort(a, 3, sizeof a[0], cmp_double);
        qsort(b, 3, sizeof b[0], cmp_double);
        qsort(ratio, 3, sizeof ratio[0], cmp_double);
        printf("%10u %16.2f %16.2f %7.2fx\n", p, a[1], b[1], ratio[1]);
    }
    return 0;
}
