/* bench_engine.c: raw speed of archsim's event engine on PHOLD (Fujimoto 1990), the standard
 * synthetic load: P logical processes, each event schedules one new event at now + 1 + a random
 * delay to a random process. Prints events per second of CPU time; `make bench` runs it.
 *   bench_engine [EVENTS] [PENDING]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../sim/engine.h"
#include "../sim/rng.h"

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
    (void)ev;
    if (budget == 0)
        return;
    budget--;
    /* the event slot of a random idle process carries the next event: pick one that is free */
    Lp *l = &lps[sim_rng_below(&rng, nlp)];
    Tick when = eng.now + 1 + sim_rng_below(&rng, 200);
    if (sim_event_scheduled(&l->ev))
        l = (Lp *)ev->ctx;
    sim_schedule(&eng, &l->ev, when, SIM_PRI_TICK);
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    uint64_t events = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000ull;
    nlp = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 256;
    if (nlp == 0 || events == 0) {
        fprintf(stderr, "usage: bench_engine [EVENTS] [PENDING]\n");
        return 64;
    }
    sim_engine_init(&eng);
    sim_rng_seed(&rng, 1, "phold");
    lps = calloc(nlp, sizeof *lps);
    for (uint32_t i = 0; i < nlp; i++) {
        sim_event_init(&lps[i].ev, fire, &lps[i]);
        sim_schedule(&eng, &lps[i].ev, sim_rng_below(&rng, 200), SIM_PRI_TICK);
    }
    budget = events;
    double t0 = cpu_seconds();
    uint64_t n = sim_run(&eng, TICK_MAX);
    double dt = cpu_seconds() - t0;
    printf("engine PHOLD: %" G_GUINT64_FORMAT " events, %u pending, %.3f s CPU, %.2f M events/s\n",
           n, nlp, dt, (double)n / dt / 1e6);
    free(lps);
    sim_engine_destroy(&eng);
    return 0;
}
