/* test_roi.c: the stats layer's warm-up / ROI reset (sim_stats_reset) on a probe component that
 * counts one event per cycle: counters rebased without being written, histograms emptied,
 * time stamps and utilizations measured from the reset, extra stats rebased by name, the
 * class's stats_reset op; SIM_PRI_STATS events as observers; the sim.warmup syntax. */
#include <CUnit/Basic.h>
#include <string.h>

#include "../../sim/system.h"

typedef struct {
    Component base;
    uint64_t limit;          /* behaviour: stop after this many ticks (reads the counter) */
    uint64_t ticks, last, extra, sum;
    SimHist phase;
} Probe;

static uint64_t probe_tick(Component *c)
{
    Probe *p = (Probe *)c;
    p->ticks++;
    p->extra++;
    p->sum += 2;
    sim_hist_add(&p->phase, sim_component_cycle(c) % 4);
    p->last = sim_component_cycle(c) + 1;
    sim_progress(c->eng);
    return p->ticks < p->limit ? 1 : 0;      /* the model reads its own counter */
}

static void probe_start(Component *c) { sim_component_wake(c); }

static double f_rate(const Component *c)
{
    return stats_ratio((double)((const Probe *)c)->ticks, (double)sim_stats_cycles(c));
}

static void probe_extra(const Component *c, StatSet *out)
{
    const Probe *p = (const Probe *)c;
    stats_add_u64(out, "probe.extra", p->extra, "count", "a count outside the table");
    stats_add_u64(out, "probe.ticks_x2", 2 * p->ticks, "count", "a count derived from the table's");
    stats_add_level(out, "probe.extra_level", p->extra, "count", "a level outside the table");
    stats_add_double(out, "probe.mean2", stats_ratio((double)p->sum, (double)p->extra), "count",
                     "sum / extra (sum restarts in stats_reset)");
}

static void probe_stats_reset(Component *c) { ((Probe *)c)->sum = 0; }

static const StatSpec probe_stats[] = {
    { "ticks", STAT_COUNTER, "count", "ticks", offsetof(Probe, ticks), NULL },
    { "last", STAT_STAMP, "cycle", "cycle of the last tick", offsetof(Probe, last), NULL },
    { "rate", STAT_FORMULA, "ratio", "ticks / cycles", 0, f_rate },
    { "phase", STAT_HIST, "count", "cycle mod 4", offsetof(Probe, phase), NULL },
    STAT_END,
};

static const ComponentClass probe_class = {
    .name = "probe",
    .doc = "test probe",
    .size = sizeof(Probe),
    .stats = probe_stats,
    .start = probe_start,
    .tick = probe_tick,
    .extra_stats = probe_extra,
    .stats_reset = probe_stats_reset,
};

static Probe *probe_sim(Sim *sim, uint64_t limit)
{
    sim_init(sim, 1, 1000000000);      /* 1 GHz: 1000 ticks a cycle */
    Component *c = sim_component_new(sim, &probe_class, "probe", &sim->sys_clk, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    ((Probe *)c)->limit = limit;
    CU_ASSERT_FATAL(sim_realize_all(sim, NULL));
    return (Probe *)c;
}

static double stat(const StatSet *s, const char *name)
{
    const StatEntry *e = stats_find(s, name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    return e->is_int ? (double)e->u : e->d;
}

static void test_no_reset(void)
{
    Sim sim;
    Probe *p = probe_sim(&sim, 100);
    sim_run(&sim.eng, TICK_MAX);
    StatSet s;
    stats_init(&s);
    sim_collect_stats(&sim, &s);
    CU_ASSERT_EQUAL(stat(&s, "probe.ticks"), 100);
    CU_ASSERT_EQUAL(stat(&s, "probe.last"), 100);
    CU_ASSERT_EQUAL(stat(&s, "probe.rate"), 1.0);
    CU_ASSERT_EQUAL(stat(&s, "probe.phase::samples"), 100);
    CU_ASSERT_EQUAL(stat(&s, "probe.extra"), 100);
    CU_ASSERT_EQUAL(p->ticks, 100);
    stats_clear(&s);
    sim_destroy(&sim);
}

/* A reset after cycle 39: every stat describes cycles 40..99; the model still ran 100 ticks. */
static void test_reset_mid_run(void)
{
    Sim sim;
    Probe *p = probe_sim(&sim, 100);
    sim_stats_reset_at(&sim, 40 * 1000 - 1);
    uint64_t n = sim_run(&sim.eng, TICK_MAX);
    CU_ASSERT_EQUAL(n, 100);                 /* the reset event is not counted */
    CU_ASSERT_EQUAL(sim.eng.events, 100);
    CU_ASSERT(sim.roi.done);
    CU_ASSERT_EQUAL(sim_stats_first_cycle(&p->base), 40);
    for (int twice = 0; twice < 2; twice++) {  /* reading the stats leaves the live values */
        StatSet s;
        stats_init(&s);
        sim_collect_stats(&sim, &s);
        CU_ASSERT_EQUAL(stat(&s, "probe.ticks"), 60);
        CU_ASSERT_EQUAL(stat(&s, "probe.last"), 60);
        CU_ASSERT_EQUAL(stat(&s, "probe.rate"), 1.0);
        CU_ASSERT_EQUAL(stat(&s, "probe.phase::samples"), 60);
        CU_ASSERT_EQUAL(stat(&s, "probe.phase::min"), 0);
        CU_ASSERT_EQUAL(stat(&s, "probe.extra"), 60);        /* rebased by name */
        CU_ASSERT_EQUAL(stat(&s, "probe.ticks_x2"), 120);    /* not rebased twice */
        CU_ASSERT_EQUAL(stat(&s, "probe.extra_level"), 100); /* a level is left alone */
        CU_ASSERT_EQUAL(stat(&s, "probe.mean2"), 120.0 / 100.0); /* sum restarted (hook) */
        stats_clear(&s);
        CU_ASSERT_EQUAL(p->ticks, 100);
        CU_ASSERT_EQUAL(p->last, 100);
    }
    sim_destroy(&sim);
}

/* A stamp that last moved before the reset reads 0; a second reset starts over. */
static void test_stamp_before_reset(void)
{
    Sim sim;
    probe_sim(&sim, 10);
    sim_run(&sim.eng, TICK_MAX);
    sim.eng.now = 50 * 1000;
    sim_stats_reset(&sim);
    StatSet s;
    stats_init(&s);
    sim_collect_stats(&sim, &s);
    CU_ASSERT_EQUAL(stat(&s, "probe.last"), 0);
    CU_ASSERT_EQUAL(stat(&s, "probe.ticks"), 0);
    CU_ASSERT_EQUAL(stat(&s, "probe.phase::samples"), 0);
    CU_ASSERT_EQUAL(stat(&s, "probe.rate"), 0.0);
    stats_clear(&s);
    sim_destroy(&sim);
}

/* The count of instructions reaching the warm-up point schedules one reset at that tick. */
static void test_warm_count(void)
{
    Sim sim;
    Probe *p = probe_sim(&sim, 5);
    sim.roi.warm_insts = 3;
    sim_count_insts(&p->base, 2);
    CU_ASSERT_FALSE(sim_event_scheduled(&sim.roi.ev));
    sim_count_insts(&p->base, 1);
    CU_ASSERT(sim_event_scheduled(&sim.roi.ev));
    CU_ASSERT_EQUAL(sim.roi.warm_insts, UINT64_MAX);
    sim_count_insts(&p->base, 10);           /* once only; still this tick: warm-up */
    sim_run(&sim.eng, TICK_MAX);
    CU_ASSERT(sim.roi.done);
    CU_ASSERT_EQUAL(sim.roi.at, 0);          /* at the end of the tick that reached it */
    CU_ASSERT_EQUAL(sim.roi.insts_at, 13);
    sim_destroy(&sim);
}

static int ends_seen;
static void on_end(Sim *sim, void *ctx)
{
    (void)ctx;
    ends_seen++;
    CU_ASSERT(sim->roi.done);
}

/* ROI markers as work items: the first begin resets, the end matching the last open begin
 * freezes (once), later markers change nothing. */
static void test_markers_nest(void)
{
    Sim sim;
    probe_sim(&sim, 100);
    sim.roi.on_end = on_end;
    ends_seen = 0;
    sim_stats_roi_begin(&sim);               /* thread A */
    sim_stats_roi_begin(&sim);               /* thread B */
    CU_ASSERT(sim_event_scheduled(&sim.roi.ev));
    sim_stats_roi_end(&sim);                 /* A done, B still in its region */
    CU_ASSERT_FALSE(sim.roi.ended);
    sim_stats_roi_end(&sim);
    CU_ASSERT(sim.roi.ended);
    sim_stats_roi_begin(&sim);               /* too late */
    sim_stats_roi_end(&sim);
    sim_run(&sim.eng, TICK_MAX);
    CU_ASSERT_EQUAL(ends_seen, 1);
    CU_ASSERT_EQUAL(sim.roi.open, 0);
    CU_ASSERT_EQUAL(sim.eng.events, 100);
    sim_destroy(&sim);
}

static void fire_nothing(SimEvent *ev) { (void)ev; }

/* A SIM_PRI_STATS event alone does not keep the run going, nor count, nor move last_work. */
static void test_observer_events(void)
{
    Engine eng;
    sim_engine_init(&eng);
    SimEvent a, b;
    sim_event_init(&a, fire_nothing, NULL);
    sim_event_init(&b, fire_nothing, NULL);
    sim_schedule(&eng, &a, 10, SIM_PRI_TICK);
    sim_schedule(&eng, &b, 5, SIM_PRI_STATS);
    CU_ASSERT_EQUAL(sim_pending_work(&eng), 1);
    sim_run(&eng, TICK_MAX);
    CU_ASSERT_EQUAL(eng.events, 1);
    CU_ASSERT_EQUAL(eng.last_work, 10);
    sim_schedule(&eng, &b, 20, SIM_PRI_STATS);
    CU_ASSERT_EQUAL(sim_run(&eng, TICK_MAX), 0);
    CU_ASSERT(sim_event_scheduled(&b));      /* left: nothing else would happen */
    CU_ASSERT_EQUAL(eng.now, 10);
    sim_deschedule(&eng, &b);
    CU_ASSERT_EQUAL(eng.passive, 0);
    sim_engine_destroy(&eng);
}

static void test_warmup_syntax(void)
{
    struct { const char *text; bool ok; uint64_t n; SimWarmUnit u; } cases[] = {
        { "0", true, 0, SIM_WARM_INSTS },          { "1000000", true, 1000000, SIM_WARM_INSTS },
        { "1M", true, 1000000, SIM_WARM_INSTS },   { "50k:cycles", true, 50000, SIM_WARM_CYCLES },
        { "2_000:refs", true, 2000, SIM_WARM_REFS }, { "3G:insts", true, 3000000000ull, SIM_WARM_INSTS },
        { " 7 ", true, 7, SIM_WARM_INSTS },
        { "", false, 0, 0 }, { "1Q", false, 0, 0 }, { "010", false, 0, 0 }, { "-1", false, 0, 0 },
        { "1M:", false, 0, 0 }, { "5:instructions", false, 0, 0 }, { "1.5M", false, 0, 0 },
        { "99999999999999999999", false, 0, 0 }, { "20000000000G", false, 0, 0 },
        { "_1", false, 0, 0 }, { "1__0", false, 0, 0 },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        uint64_t n = 12345;
        SimWarmUnit u = SIM_WARM_CYCLES;
        char *problem = NULL;
        bool ok = sim_warmup_parse(cases[i].text, &n, &u, &problem);
        CU_ASSERT_EQUAL(ok, cases[i].ok);
        if (ok != cases[i].ok)
            fprintf(stderr, "\n  case '%s'\n", cases[i].text);
        if (ok) {
            CU_ASSERT_EQUAL(n, cases[i].n);
            CU_ASSERT_EQUAL(u, cases[i].u);
        } else {
            CU_ASSERT_PTR_NOT_NULL(problem);
        }
        g_free(problem);
    }
    char *problem = NULL;
    uint64_t n;
    SimWarmUnit u;
    CU_ASSERT_FALSE(sim_warmup_parse("5:instructions", &n, &u, &problem));
    CU_ASSERT_PTR_NOT_NULL(strstr(problem, "did you mean 'insts'?"));
    g_free(problem);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("roi", NULL, NULL);
    CU_add_test(s, "no reset: whole-run stats", test_no_reset);
    CU_add_test(s, "reset mid-run: every stat kind from the reset, behaviour unchanged",
                test_reset_mid_run);
    CU_add_test(s, "a stamp older than the reset reads 0", test_stamp_before_reset);
    CU_add_test(s, "instructions reaching the warm-up schedule one reset", test_warm_count);
    CU_add_test(s, "ROI markers: first begin resets, last end freezes", test_markers_nest);
    CU_add_test(s, "SIM_PRI_STATS events observe only", test_observer_events);
    CU_add_test(s, "sim.warmup syntax", test_warmup_syntax);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
