/* test_clocks.c: a clock per component (issue 17 item 3; docs/config.md, "Clocks"). At the
 * sim/ level, two mock components on different clocks: a message that crosses domains is seen
 * at the receiver's first edge at or after its arrival (sim_port_send and sim_port_send_ticks,
 * both ways), one that stays in a domain (or goes to a domain of the same period) arrives as it
 * always did, an express call (sim_port_call) does not wait for an edge, and sim_clock shares
 * one domain per frequency. Then the uniproc machine with a 3 GHz core, a 1 GHz L2 and a 1.6 GHz
 * DRAM, built from YAML: the latencies are those computed by hand in tests/regress/clocks.sh.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "../../sim/system.h"
#include "../../models/mem/memmsg.h"
#include "sysutil.h"
#include "tmpdir.h"

/* ---- mocks: a requester and an echoing responder, each recording when it saw messages ---- */
typedef struct {
    Component base;
    int dummy;
    Tick seen[8];
    int nseen;
    uint64_t reply_cycles;        /* pong: answer after this many of its cycles */
    Tick reply_ticks;             /* pong: or after this many ticks (sim_port_send_ticks) */
    bool ticks;
} Mock;

static const PortSpec ping_ports[] = { { .name = "out", .role = PORT_REQUESTER, .doc = "" },
                                       PORT_END };
static const PortSpec pong_ports[] = { { .name = "in", .role = PORT_RESPONDER, .doc = "" },
                                       PORT_END };

static void ping_recv(Component *c, Port *p, Msg *m)
{
    (void)p;
    Mock *k = (Mock *)c;
    k->seen[k->nseen++] = c->eng->now;
    sim_msg_free(c->sim, m);
}

static void pong_recv(Component *c, Port *p, Msg *m)
{
    Mock *k = (Mock *)c;
    k->seen[k->nseen++] = c->eng->now;
    if (m->cmd == MSG_WRITEBACK) {          /* an express call: the sender keeps it */
        mem_msg(m)->value = c->eng->now;
        return;
    }
    m->cmd = MSG_READ_RESP;
    if (k->ticks)
        sim_port_send_ticks(c, p, m, k->reply_ticks);
    else
        sim_port_send(c, p, m, k->reply_cycles);
}

static const ComponentClass ping_class = { .name = "ping", .doc = "", .size = sizeof(Mock),
                                           .params_offset = offsetof(Mock, dummy),
                                           .ports = ping_ports, .recv = ping_recv };
static const ComponentClass pong_class = { .name = "pong", .doc = "", .size = sizeof(Mock),
                                           .params_offset = offsetof(Mock, dummy),
                                           .ports = pong_ports, .recv = pong_recv };

typedef struct {
    Sim sim;
    Mock *ping, *pong;
} Rig;

/* ping on the system clock (3 GHz: 333 ps), pong on pong_clk; one link of `latency` ticks */
static void rig_init(Rig *g, const ClockDomain *(*pong_clk)(Sim *), Tick latency)
{
    sim_init(&g->sim, 1, 3000000000ull);
    GError *e = NULL;
    g->ping = (Mock *)sim_component_new(&g->sim, &ping_class, "ping", &g->sim.sys_clk, NULL, &e);
    g->pong = (Mock *)sim_component_new(&g->sim, &pong_class, "pong", pong_clk(&g->sim), NULL,
                                        &e);
    CU_ASSERT_TRUE_FATAL(sim_connect(&g->ping->base, "out", &g->pong->base, "in", latency, &e));
    CU_ASSERT_TRUE_FATAL(sim_realize_all(&g->sim, &e));
}

/* ping sends at tick `at` (its edges are multiples of 333) with `delay` of its cycles */
static void send_at(Rig *g, Tick at, uint64_t delay)
{
    sim_run(&g->sim.eng, at);
    g->sim.eng.now = at;
    Msg *m = sim_msg_alloc(&g->sim);
    m->cmd = MSG_READ_REQ;
    m->issued = at;
    sim_port_send(&g->ping->base, sim_port(&g->ping->base, "out", 0), m, delay);
}

static const ClockDomain *clk_1ghz(Sim *s) { return sim_clock(s, 1000000000ull); }
static const ClockDomain *clk_1g6(Sim *s) { return sim_clock(s, 1600000000ull); }
static const ClockDomain *clk_sys(Sim *s) { return &s->sys_clk; }
/* a domain of its own with the system clock's period: the same edges */
static ClockDomain twin;
static const ClockDomain *clk_twin(Sim *s)
{
    clock_domain_init(&twin, "twin", s->sys_clk.freq_hz);
    return &twin;
}

static void test_sim_clock_shared(void)
{
    Sim sim;
    sim_init(&sim, 1, 3000000000ull);
    CU_ASSERT_PTR_EQUAL(sim_clock(&sim, 3000000000ull), &sim.sys_clk);
    const ClockDomain *a = sim_clock(&sim, 1000000000ull), *b = sim_clock(&sim, 1600000000ull);
    CU_ASSERT_PTR_EQUAL(sim_clock(&sim, 1000000000ull), a);
    CU_ASSERT_PTR_NOT_EQUAL(a, b);
    CU_ASSERT_EQUAL(a->period, 1000);
    CU_ASSERT_EQUAL(b->period, 625);
    sim_destroy(&sim);
}

/* 3 GHz -> 1 GHz and back, sim_port_send both ways. */
static void test_cross_send(void)
{
    Rig g;
    rig_init(&g, clk_1ghz, 1);
    g.pong->reply_cycles = 2;
    /* out: sent at 333 with 1 cycle: 333 + 333 + 1 = 667, seen at pong's edge 1000;
     * back: 1000 + 2 x 1000 + 1 = 3001, seen at ping's edge ceil(3001 / 333) x 333 = 3330 */
    send_at(&g, 333, 1);
    sim_run(&g.sim.eng, TICK_MAX);
    CU_ASSERT_EQUAL(g.pong->nseen, 1);
    CU_ASSERT_EQUAL(g.pong->seen[0], 1000);
    CU_ASSERT_EQUAL(g.ping->nseen, 1);
    CU_ASSERT_EQUAL(g.ping->seen[0], 3330);
    /* an arrival on an edge stays there: 2331 + 2 x 333 + 3 = 3000 */
    sim_destroy(&g.sim);
    rig_init(&g, clk_1ghz, 3);
    g.pong->reply_cycles = 0;
    send_at(&g, 2331, 2);
    sim_run(&g.sim.eng, TICK_MAX);
    CU_ASSERT_EQUAL(g.pong->seen[0], 3000);
    /* and back with no delay: 3000 + 3 = 3003, ping's edge 3330 (10 x 333) */
    CU_ASSERT_EQUAL(g.ping->seen[0], 3330);
    sim_destroy(&g.sim);
}

/* sim_port_send_ticks (a DRAM answering in ns) is synchronized the same way. */
static void test_cross_send_ticks(void)
{
    Rig g;
    rig_init(&g, clk_1g6, 1);
    g.pong->ticks = true;
    g.pong->reply_ticks = 35000;
    /* out: 0 + 1 = 1, seen at pong's (1.6 GHz, 625 ps) edge 625; back: 625 + 1 + 35000 =
     * 35626, seen at ping's edge ceil(35626 / 333) x 333 = 107 x 333 = 35631 */
    send_at(&g, 0, 0);
    sim_run(&g.sim.eng, TICK_MAX);
    CU_ASSERT_EQUAL(g.pong->seen[0], 625);
    CU_ASSERT_EQUAL(g.ping->seen[0], 35631);
    sim_destroy(&g.sim);
}

/* Within one domain, or between domains of the same period, nothing waits for an edge. */
static void test_same_domain_unchanged(void)
{
    const ClockDomain *(*clks[])(Sim *) = { clk_sys, clk_twin };
    for (int i = 0; i < 2; i++) {
        Rig g;
        rig_init(&g, clks[i], 1);
        g.pong->ticks = true;
        g.pong->reply_ticks = 100;
        /* out: 333 + 333 + 1 = 667 (mid-cycle); back 667 + 1 + 100 = 768 */
        send_at(&g, 333, 1);
        sim_run(&g.sim.eng, TICK_MAX);
        CU_ASSERT_EQUAL(g.pong->seen[0], 667);
        CU_ASSERT_EQUAL(g.ping->seen[0], 768);
        sim_destroy(&g.sim);
    }
}

/* An express call runs the receiver at the caller's instant, even on another clock. */
static void test_express_call_no_crossing(void)
{
    Rig g;
    rig_init(&g, clk_1ghz, 1);
    sim_run(&g.sim.eng, 666);
    g.sim.eng.now = 666;
    Msg *m = sim_msg_alloc(&g.sim);
    m->cmd = MSG_WRITEBACK;
    sim_port_call(&g.ping->base, sim_port(&g.ping->base, "out", 0), m);
    CU_ASSERT_EQUAL(g.pong->nseen, 1);
    CU_ASSERT_EQUAL(g.pong->seen[0], 666);
    CU_ASSERT_EQUAL(mem_msg(m)->value, 666);
    sim_msg_free(&g.sim, m);
    sim_destroy(&g.sim);
}

/* ---- the uniproc machine: 3 GHz core and L1s, 1 GHz L2, 1.6 GHz DRAM ------------------- */
static char *tmpdir;

static int suite_init(void)
{
    tmpdir = tmpdir_new("test_clocks.XXXXXX");
    return tmpdir ? 0 : 1;
}

static int suite_clean(void)
{
    tmpdir_remove(&tmpdir);
    return 0;
}

/* The same machine as tests/regress/data/clocks.yaml (which derives every number below). */
static const char *const machine =
    "sim: {clock: 3GHz}\n"
    "system: {type: uniproc}\n"
    "core: {trace: %s, cpi: 1.0}\n"
    "l1i: {size: 1KiB, assoc: 1}\n"
    "l1d: {size: 64B, assoc: 1, hit_latency: 4cycles, response_latency: 1cycle}\n"
    "l2: {clock: 1GHz, size: 64KiB, assoc: 4, hit_latency: 10ns, response_latency: 2cycles}\n"
    "dram: {clock: 1.6GHz}\n";

static SystemRun *run_loads(int n, GError **e)
{
    static const char *const loads[] = { " L 00010000,8\n", " L 00010000,8\n",
                                         " L 00010040,8\n", " L 00010000,8\n" };
    char *path = g_build_filename(tmpdir, "t.lackey", NULL);
    GString *t = g_string_new(NULL);
    for (int i = 0; i < n; i++)
        g_string_append(t, loads[i]);
    g_file_set_contents(path, t->str, -1, NULL);
    g_string_free(t, TRUE);
    char *yaml = g_strdup_printf(machine, path);
    g_free(path);
    CfgNode *root = cfg_load_string("t.yaml", yaml, NULL, e);
    g_free(yaml);
    SystemRun *r = root ? system_build(root, -1, NULL, NULL, e) : NULL;
    if (r && !system_run(r, e)) {
        system_free(r);
        r = NULL;
    }
    return r;
}

/* sum of a latency histogram: its mean times its samples */
static uint64_t hist_sum(SystemRun *r, const char *name)
{
    char *mean = g_strdup_printf("%s::mean", name), *n = g_strdup_printf("%s::samples", name);
    StatSet s;
    stats_init(&s);
    system_collect_stats(r, &s);
    const StatEntry *em = stats_find(&s, mean), *en = stats_find(&s, n);
    uint64_t v = em && en ? (uint64_t)(em->d * (double)en->u + 0.5) : UINT64_MAX;
    stats_clear(&s);
    g_free(mean);
    g_free(n);
    return v;
}

static void test_machine_clocks(void)
{
    /* the loads one at a time: each prefix of the trace adds one sample to each histogram it
     * reaches, so the sums give every latency exactly (the by-hand numbers of clocks.sh):
     *   load   core (333 ps)   l1d miss (333 ps)   l2 miss (1 ns)   dram (625 ps)
     *   1 A    151             149                 46               56    (DRAM, row miss)
     *   2 A      4              -                   -                -    (L1D hit)
     *   3 B    108             106                 32               34    (DRAM, row hit)
     *   4 A     38              36                  -                -    (L2 hit) */
    static const uint64_t core[] = { 151, 4, 108, 38 }, l1d[] = { 149, 0, 106, 36 },
                          l2[] = { 46, 0, 32, 0 }, dram[] = { 56, 0, 34, 0 };
    uint64_t sc = 0, s1 = 0, s2 = 0, sd = 0;
    for (int n = 1; n <= 4; n++) {
        GError *e = NULL;
        SystemRun *r = run_loads(n, &e);
        if (!r)
            fprintf(stderr, "%s\n", e->message);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        sc += core[n - 1], s1 += l1d[n - 1], s2 += l2[n - 1], sd += dram[n - 1];
        CU_ASSERT_EQUAL(hist_sum(r, "core.load_latency"), sc);
        CU_ASSERT_EQUAL(hist_sum(r, "l1d.miss_latency"), s1);
        CU_ASSERT_EQUAL(hist_sum(r, "l2.miss_latency"), s2);
        CU_ASSERT_EQUAL(hist_sum(r, "dram.latency"), sd);
        Component *l2c = sim_component_find(&r->sim, "l2"), *l1c = sim_component_find(&r->sim, "l1d");
        CU_ASSERT_EQUAL(l2c->clk->freq_hz, 1000000000ull);
        CU_ASSERT_PTR_EQUAL(l1c->clk, &r->sim.sys_clk);       /* no clock: the system's */
        CU_ASSERT_EQUAL(sim_component_find(&r->sim, "dram")->clk->period, 625);
        uint64_t hit = 0;                  /* 10ns at the L2's 1 GHz, not at sim.clock's 3 GHz */
        CU_ASSERT_TRUE(sim_component_param_u64(l2c, "hit_latency", &hit));
        CU_ASSERT_EQUAL(hit, 10);
        if (n == 4) {                      /* the last retirement at core cycle 306 */
            CU_ASSERT_EQUAL(stat_u(r, "sim.cycles"), 307);
            CU_ASSERT_EQUAL(stat_u(r, "sim.ticks"), 101898);
        }
        system_free(r);
    }
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("clocks", NULL, NULL);
    CU_add_test(s, "sim_clock: one domain per frequency", test_sim_clock_shared);
    CU_add_test(s, "crossing: sim_port_send both ways", test_cross_send);
    CU_add_test(s, "crossing: sim_port_send_ticks", test_cross_send_ticks);
    CU_add_test(s, "one domain or equal periods: unchanged", test_same_domain_unchanged);
    CU_add_test(s, "express call: no crossing", test_express_call_no_crossing);
    CU_pSuite m = CU_add_suite("clocks machine", suite_init, suite_clean);
    CU_add_test(m, "3 GHz core, 1 GHz L2, 1.6 GHz DRAM: exact latencies", test_machine_clocks);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
