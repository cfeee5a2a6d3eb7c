/* test_engine.c: event ordering (tick, priority, seq), deschedule/reschedule, clock domains,
 * the watchdog, and determinism of a randomized event soup. */
#include <CUnit/Basic.h>
#include <string.h>

#include "../../sim/engine.h"
#include "../../sim/rng.h"

typedef struct {
    SimEvent ev;
    int id;
    GArray *log;
} Probe;

static void probe_fire(SimEvent *ev)
{
    Probe *p = ev->ctx;
    g_array_append_val(p->log, p->id);
}

static void test_order_tick_prio_seq(void)
{
    Engine eng;
    sim_engine_init(&eng);
    GArray *log = g_array_new(FALSE, FALSE, sizeof(int));
    Probe p[6];
    /* id: tick, prio */
    struct { Tick t; SimPriority pr; } spec[6] = {
        { 10, SIM_PRI_TICK }, { 5, SIM_PRI_TICK }, { 10, SIM_PRI_DELIVER },
        { 10, SIM_PRI_TICK }, { 5, SIM_PRI_STATS }, { 0, SIM_PRI_WATCHDOG },
    };
    for (int i = 0; i < 6; i++) {
        p[i].id = i;
        p[i].log = log;
        sim_event_init(&p[i].ev, probe_fire, &p[i]);
        sim_schedule(&eng, &p[i].ev, spec[i].t, spec[i].pr);
    }
    sim_run(&eng, TICK_MAX);
    int expect[6] = { 5, 1, 4, 2, 0, 3 };
    CU_ASSERT_EQUAL_FATAL(log->len, 6);
    for (int i = 0; i < 6; i++)
        CU_ASSERT_EQUAL(g_array_index(log, int, i), expect[i]);
    CU_ASSERT_EQUAL(eng.now, 10);
    CU_ASSERT_EQUAL(eng.events, 5);   /* the SIM_PRI_STATS observer is not counted */
    g_array_free(log, TRUE);
    sim_engine_destroy(&eng);
}

static void test_deschedule_reschedule(void)
{
    Engine eng;
    sim_engine_init(&eng);
    GArray *log = g_array_new(FALSE, FALSE, sizeof(int));
    Probe p[3];
    for (int i = 0; i < 3; i++) {
        p[i].id = i;
        p[i].log = log;
        sim_event_init(&p[i].ev, probe_fire, &p[i]);
        sim_schedule(&eng, &p[i].ev, 100 + (Tick)i, SIM_PRI_TICK);
    }
    sim_deschedule(&eng, &p[1].ev);
    CU_ASSERT_FALSE(sim_event_scheduled(&p[1].ev));
    sim_reschedule(&eng, &p[2].ev, 50, SIM_PRI_TICK);
    sim_run(&eng, TICK_MAX);
    CU_ASSERT_EQUAL_FATAL(log->len, 2);
    CU_ASSERT_EQUAL(g_array_index(log, int, 0), 2);
    CU_ASSERT_EQUAL(g_array_index(log, int, 1), 0);
    g_array_free(log, TRUE);
    sim_engine_destroy(&eng);
}

static void test_limit_stops_before(void)
{
    Engine eng;
    sim_engine_init(&eng);
    GArray *log = g_array_new(FALSE, FALSE, sizeof(int));
    Probe a = { .id = 1, .log = log }, b = { .id = 2, .log = log };
    sim_event_init(&a.ev, probe_fire, &a);
    sim_event_init(&b.ev, probe_fire, &b);
    sim_schedule(&eng, &a.ev, 10, SIM_PRI_TICK);
    sim_schedule(&eng, &b.ev, 11, SIM_PRI_TICK);
    CU_ASSERT_EQUAL(sim_run(&eng, 10), 1);
    CU_ASSERT_EQUAL(sim_pending(&eng), 1);
    CU_ASSERT_EQUAL(sim_run(&eng, TICK_MAX), 1);
    g_array_free(log, TRUE);
    sim_engine_destroy(&eng);
}

static void test_clock_domain(void)
{
    ClockDomain cd;
    clock_domain_init(&cd, "c", 3000000000ull);
    CU_ASSERT_EQUAL(cd.period, 333);
    clock_domain_init(&cd, "c", 1000000000ull);
    CU_ASSERT_EQUAL(cd.period, 1000);
    CU_ASSERT_EQUAL(clock_cycle(&cd, 2999), 2);
    CU_ASSERT_EQUAL(clock_edge_at_or_after(&cd, 2001), 3000);
    CU_ASSERT_EQUAL(clock_edge_at_or_after(&cd, 3000), 3000);
    clock_domain_init(&cd, "c", 1400000000ull);
    CU_ASSERT_EQUAL(cd.period, 714);
}

/* clock_cycle divides by a precomputed reciprocal: exact against the plain division for
 * periods of every kind (powers of two, ones that need the 65-bit magic, huge ones) and ticks
 * up to 2^64 - 1. */
static void test_clock_division(void)
{
    SimRng r;
    sim_rng_seed(&r, 7, "division");
    uint64_t bad = 0;
    for (int k = 0; k < 20000; k++) {
        uint64_t x = sim_rng_next(&r);
        uint64_t d = k < 3000 ? (uint64_t)k + 1 : k % 3 == 0 ? (x >> 40) + 1 : k % 3 == 1 ? (x % 1000000) + 1 : x | 1;
        ClockDomain cd;
        clock_domain_set_period(&cd, d);
        for (int j = 0; j < 40; j++) {
            uint64_t y = sim_rng_next(&r);
            uint64_t t = j < 8 ? (uint64_t)j : j < 16 ? ~0ull - (uint64_t)j : j < 20 ? d * (uint64_t)j - (j & 1)
                                                                                 : y >> (j % 60);
            bad += clock_cycle(&cd, t) != t / d;
            /* the memo of the current time: asked twice, then about an earlier time */
            bad += clock_div_now(&cd, t) != t / d || clock_div_now(&cd, t) != t / d;
            bad += clock_div_now(&cd, t / 2) != t / 2 / d;
            if (d < (1ull << 40) && t < (1ull << 62))
                bad += clock_edge_at_or_after(&cd, t) != (t + d - 1) / d * d;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* a new period forgets the memo: the same time divided by the new period */
    ClockDomain cd;
    clock_domain_set_period(&cd, 333);
    CU_ASSERT_EQUAL(clock_div_now(&cd, 1000000), 1000000 / 333);
    clock_domain_set_period(&cd, 500);
    CU_ASSERT_EQUAL(clock_div_now(&cd, 1000000), 1000000 / 500);
    CU_ASSERT_EQUAL(clock_div_now(&cd, 0), 0);
}

/* A self-rescheduling event that never bumps progress: the watchdog must fire. */
typedef struct {
    SimEvent ev;
    Engine *eng;
    int fired;
} Spinner;

static void spin(SimEvent *ev)
{
    Spinner *s = ev->ctx;
    sim_schedule(s->eng, ev, s->eng->now + 10, SIM_PRI_TICK);
}

static void on_dead(Engine *eng, void *ctx)
{
    (void)eng;
    ((Spinner *)ctx)->fired++;
}

static void test_watchdog(void)
{
    Engine eng;
    sim_engine_init(&eng);
    Spinner s = { .eng = &eng };
    sim_event_init(&s.ev, spin, &s);
    sim_schedule(&eng, &s.ev, 0, SIM_PRI_TICK);
    sim_watchdog_arm(&eng, 1000, on_dead, &s);
    sim_run(&eng, TICK_MAX);
    CU_ASSERT_TRUE(eng.deadlocked);
    CU_ASSERT_EQUAL(s.fired, 1);
    CU_ASSERT_EQUAL(eng.now, 1000);
    sim_engine_destroy(&eng);
}

/* With progress every event the watchdog stays quiet and the run ends by itself. */
typedef struct {
    SimEvent ev;
    Engine *eng;
    int left;
} Worker;

static void work(SimEvent *ev)
{
    Worker *w = ev->ctx;
    sim_progress(w->eng);
    if (--w->left > 0)
        sim_schedule(w->eng, ev, w->eng->now + 10, SIM_PRI_TICK);
}

static void test_watchdog_quiet_with_progress(void)
{
    Engine eng;
    sim_engine_init(&eng);
    Worker w = { .eng = &eng, .left = 500 };
    sim_event_init(&w.ev, work, &w);
    sim_schedule(&eng, &w.ev, 0, SIM_PRI_TICK);
    sim_watchdog_arm(&eng, 100, NULL, NULL);
    sim_run(&eng, TICK_MAX);
    CU_ASSERT_FALSE(eng.deadlocked);
    CU_ASSERT_EQUAL(w.left, 0);
    CU_ASSERT_EQUAL(sim_pending(&eng), 0);
    sim_engine_destroy(&eng);
}

/* A sleeper that works at tick 0, then once more at `at` (past the watchdog's period), and
 * declares that quiet with sim_quiet_until or not. */
typedef struct {
    SimEvent ev;
    Engine *eng;
    Tick at;
    bool declare;
    int runs;
} Sleeper;

static void sleeper(SimEvent *ev)
{
    Sleeper *z = ev->ctx;
    if (z->runs++ == 0) {
        if (z->declare)
            sim_quiet_until(z->eng, z->at);
        sim_schedule(z->eng, ev, z->at, SIM_PRI_TICK);
    } else {
        sim_progress(z->eng);
    }
}

/* A quiet the input sets is not a deadlock; the same quiet undeclared is (the watchdog cannot
 * tell it from a lost message); a livelock is caught even while another component is quiet,
 * a period after the quiet ends. */
static void test_watchdog_quiet_until(void)
{
    for (int declare = 0; declare < 2; declare++) {
        Engine eng;
        sim_engine_init(&eng);
        Sleeper z = { .eng = &eng, .at = 5000, .declare = declare };
        sim_event_init(&z.ev, sleeper, &z);
        sim_schedule(&eng, &z.ev, 0, SIM_PRI_TICK);
        Spinner none = { .eng = &eng };          /* only its count of on_dead calls */
        sim_watchdog_arm(&eng, 1000, on_dead, &none);
        sim_run(&eng, TICK_MAX);
        CU_ASSERT_EQUAL(eng.deadlocked, !declare);
        CU_ASSERT_EQUAL(none.fired, declare ? 0 : 1);
        CU_ASSERT_EQUAL(z.runs, declare ? 2 : 1);
        /* declared: the last work at 5000, then the watchdog's own check a period on */
        CU_ASSERT_EQUAL(eng.last_work, declare ? 5000 : 0);
        CU_ASSERT_EQUAL(eng.now, declare ? 6000 : 1000);
        sim_engine_destroy(&eng);
    }
    Engine eng;
    sim_engine_init(&eng);
    Sleeper z = { .eng = &eng, .at = 5000, .declare = true };
    Spinner s = { .eng = &eng };
    sim_event_init(&z.ev, sleeper, &z);
    sim_event_init(&s.ev, spin, &s);
    sim_schedule(&eng, &z.ev, 0, SIM_PRI_TICK);
    sim_schedule(&eng, &s.ev, 0, SIM_PRI_TICK);
    sim_watchdog_arm(&eng, 1000, on_dead, &s);
    sim_run(&eng, TICK_MAX);
    CU_ASSERT_TRUE(eng.deadlocked);                /* the spinner: its last check after 5000 */
    CU_ASSERT_EQUAL(eng.now, 7000);
    sim_engine_destroy(&eng);
}

/* PHOLD-style soup: same seed, same order; ticks never go backwards. */
typedef struct {
    SimEvent ev;
    Engine *eng;
    SimRng *rng;
    GChecksum *sum;
    int id;
    uint64_t *budget;
    Tick *last;
    int *backwards;
} Lp;

static void lp_fire(SimEvent *ev)
{
    Lp *l = ev->ctx;
    if (l->eng->now < *l->last)
        (*l->backwards)++;
    *l->last = l->eng->now;
    char buf[64];
    int n = g_snprintf(buf, sizeof buf, "%d@%" G_GUINT64_FORMAT ";", l->id, l->eng->now);
    g_checksum_update(l->sum, (const guchar *)buf, n);
    if (*l->budget == 0)
        return;
    (*l->budget)--;
    sim_schedule(l->eng, ev, l->eng->now + sim_rng_below(l->rng, 4), (SimPriority)sim_rng_below(l->rng, 2));
}

static char *soup(uint64_t seed, int *backwards)
{
    Engine eng;
    sim_engine_init(&eng);
    SimRng rng;
    sim_rng_seed(&rng, seed, "soup");
    GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
    uint64_t budget = 200000;
    Tick last = 0;
    Lp lps[300];
    for (int i = 0; i < 300; i++) {
        lps[i] = (Lp){ .eng = &eng, .rng = &rng, .sum = sum, .id = i, .budget = &budget,
                       .last = &last, .backwards = backwards };
        sim_event_init(&lps[i].ev, lp_fire, &lps[i]);
        sim_schedule(&eng, &lps[i].ev, sim_rng_below(&rng, 8), SIM_PRI_TICK);
    }
    sim_run(&eng, TICK_MAX);
    char *hex = g_strdup(g_checksum_get_string(sum));
    g_checksum_free(sum);
    sim_engine_destroy(&eng);
    return hex;
}


/* The queue against a reference: random events scheduled, descheduled and rescheduled at every
 * distance (the same tick, within the timing window, just past it, far beyond it), every
 * priority, with runs stopped at limits and the clock moved back between runs as system.c does;
 * each event must run in (tick, priority, seq) order, seq being the order of scheduling, which
 * the reference computes by sorting. */
typedef struct RefEv RefEv;
struct RefEv {
    SimEvent ev;
    struct RefQ *q;
    int id;
    bool pending;
    Tick when;
    int prio;
    uint64_t seq;
};
typedef struct RefQ {
    Engine eng;
    SimRng rng;
    RefEv *evs;
    int n;
    uint64_t seq;
    GArray *ran;          /* ids in the order the engine ran them */
    int budget;
    int bad;
} RefQ;

static Tick ref_distance(RefQ *q)
{
    switch (sim_rng_below(&q->rng, 6)) {
    case 0: return 0;
    case 1: return sim_rng_below(&q->rng, 64);
    case 2: return sim_rng_below(&q->rng, SIM_WINDOW);
    case 3: return SIM_WINDOW - 2 + sim_rng_below(&q->rng, 4);
    case 4: return sim_rng_below(&q->rng, 40 * SIM_WINDOW);
    default: return sim_rng_below(&q->rng, 1ull << 40);
    }
}

static void ref_sched(RefQ *q, RefEv *e)
{
    Tick when = q->eng.now + ref_distance(q);
    int prio = (int)sim_rng_below(&q->rng, 3);
    if (e->pending)
        sim_deschedule(&q->eng, &e->ev);
    sim_schedule(&q->eng, &e->ev, when, (SimPriority)prio);
    e->pending = true;
    e->when = when;
    e->prio = prio;
    e->seq = q->seq++;
}

/* Checks that e is the least pending event by (tick, prio, seq). */
static void ref_check_least(RefQ *q, RefEv *e)
{
    for (int i = 0; i < q->n; i++) {
        RefEv *o = &q->evs[i];
        if (!o->pending || o == e)
            continue;
        if (o->when < e->when || (o->when == e->when && (o->prio < e->prio ||
                                  (o->prio == e->prio && o->seq < e->seq)))) {
            q->bad++;
            return;
        }
    }
}

static void ref_fire(SimEvent *ev)
{
    RefEv *e = ev->ctx;
    RefQ *q = e->q;
    if (q->eng.now != e->when)
        q->bad++;
    ref_check_least(q, e);
    e->pending = false;
    g_array_append_val(q->ran, e->id);
    if (q->budget <= 0)
        return;
    q->budget--;
    /* reschedule itself, and move or cancel a few others */
    ref_sched(q, e);
    for (int k = (int)sim_rng_below(&q->rng, 3); k > 0; k--) {
        RefEv *o = &q->evs[sim_rng_below(&q->rng, (uint64_t)q->n)];
        if (o->pending && sim_rng_below(&q->rng, 2) == 0) {
            sim_deschedule(&q->eng, &o->ev);
            o->pending = false;
        } else {
            ref_sched(q, o);
        }
    }
}

static void test_queue_against_reference(void)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        RefQ *q = g_new0(RefQ, 1);
        sim_engine_init(&q->eng);
        sim_rng_seed(&q->rng, seed, "refq");
        q->n = seed % 2 ? 40 : 700;
        q->evs = g_new0(RefEv, q->n);
        q->ran = g_array_new(FALSE, FALSE, sizeof(int));
        q->budget = 30000;
        for (int i = 0; i < q->n; i++) {
            q->evs[i].q = q;
            q->evs[i].id = i;
            sim_event_init(&q->evs[i].ev, ref_fire, &q->evs[i]);
            ref_sched(q, &q->evs[i]);
        }
        /* runs to limits; between runs the clock goes back to the last event, a few events are
         * scheduled from there, and the next run goes on */
        while (sim_pending(&q->eng) > 0 && q->budget > 0) {
            Tick limit = q->eng.now + ref_distance(q);
            sim_run(&q->eng, limit);
            q->eng.now = q->eng.last_work;
            for (int k = 0; k < 3; k++)
                ref_sched(q, &q->evs[sim_rng_below(&q->rng, (uint64_t)q->n)]);
        }
        sim_run(&q->eng, TICK_MAX);
        CU_ASSERT_EQUAL(q->bad, 0);
        CU_ASSERT_EQUAL(sim_pending(&q->eng), 0);
        CU_ASSERT_TRUE(q->ran->len > 30000);
        for (int i = 0; i < q->n; i++)
            CU_ASSERT_FALSE(q->evs[i].pending || sim_event_scheduled(&q->evs[i].ev));
        g_array_free(q->ran, TRUE);
        sim_engine_destroy(&q->eng);
        g_free(q->evs);
        g_free(q);
    }
}

static void test_determinism(void)
{
    int back = 0;
    char *a = soup(42, &back), *b = soup(42, &back), *c = soup(43, &back);
    CU_ASSERT_STRING_EQUAL(a, b);
    CU_ASSERT_STRING_NOT_EQUAL(a, c);
    CU_ASSERT_EQUAL(back, 0);
    g_free(a), g_free(b), g_free(c);
}

static void test_rng(void)
{
    SimRng a, b, c;
    sim_rng_seed(&a, 1, "core0");
    sim_rng_seed(&b, 1, "core0");
    sim_rng_seed(&c, 1, "core1");
    uint64_t x = sim_rng_next(&a);
    CU_ASSERT_EQUAL(x, sim_rng_next(&b));
    CU_ASSERT_NOT_EQUAL(x, sim_rng_next(&c));
    for (int i = 0; i < 1000; i++)
        CU_ASSERT(sim_rng_below(&a, 7) < 7);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("engine", NULL, NULL);
    CU_add_test(s, "order by tick, priority, seq", test_order_tick_prio_seq);
    CU_add_test(s, "deschedule and reschedule", test_deschedule_reschedule);
    CU_add_test(s, "run limit", test_limit_stops_before);
    CU_add_test(s, "clock domains", test_clock_domain);
    CU_add_test(s, "clock division by reciprocal", test_clock_division);
    CU_add_test(s, "watchdog fires without progress", test_watchdog);
    CU_add_test(s, "watchdog quiet with progress", test_watchdog_quiet_with_progress);
    CU_add_test(s, "watchdog waits out a declared quiet", test_watchdog_quiet_until);
    CU_add_test(s, "determinism of an event soup", test_determinism);
    CU_add_test(s, "queue order against a sorted reference", test_queue_against_reference);
    CU_add_test(s, "per-component rng", test_rng);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
