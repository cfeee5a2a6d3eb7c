/* test_noc.c: the noc between mock endpoints: exact unloaded latencies on 2x2 and 4x4 meshes, an
 * 8-node ring and a crossbar (H x (router_delay + link_latency) + ceil((header + size) / width)),
 * XY and shortest-way routes, link serialization, credit back-pressure with vnet isolation,
 * determinism, uniform random traffic delivered exactly once to the right node, concentration
 * (two endpoints per router) and point-to-point order per (source, destination, vnet) under
 * contention. Endpoint links take one cycle each way, so an endpoint sees network latency + 2. */
#include <CUnit/Basic.h>
#include <string.h>

#include "../../models/noc/noc.h"
#include "../../models/noc/nocmsg.h"
#include "../../sim/error.h"

#define MAXT 4096

typedef struct Rig Rig;

typedef struct {
    Component base;
    int dummy;
    Rig *rig;
    int id;
} Ep;

struct Rig {
    Sim sim;
    Component *noc;
    Ep *ep[64];
    int n;
    int got[MAXT];
    uint64_t at[MAXT];
    int node[MAXT], src[MAXT];
    uint64_t seq[MAXT], nseq;   /* delivery order, over all endpoints */
};

/* The mock endpoints' own message family (MSG_FAM_TEST): a noc-routed payload starts with
 * its NocRoute, then the test's sequence number. */
typedef struct {
    NocRoute route;
    uint64_t tag;
} NocTestPayload;
MSG_PAYLOAD_FITS(NocTestPayload);
static NocTestPayload *noc_test_msg(Msg *m)
{
    return (NocTestPayload *)SIM_MSG_PAYLOAD(m, MSG_FAM_BIT(MSG_FAM_TEST));
}

static const PortSpec ep_ports[] = { { .name = "net", .role = PORT_REQUESTER, .doc = "" },
                                     PORT_END };

static void ep_recv(Component *c, Port *p, Msg *m)
{
    (void)p;
    Ep *e = (Ep *)c;
    Rig *g = e->rig;
    g_assert(noc_test_msg(m)->tag < MAXT);
    g->got[noc_test_msg(m)->tag]++;
    g->at[noc_test_msg(m)->tag] = sim_component_cycle(c);
    g->node[noc_test_msg(m)->tag] = e->id;
    g->src[noc_test_msg(m)->tag] = (int)noc_msg_src(m);
    g->seq[noc_test_msg(m)->tag] = g->nseq++;
    sim_msg_free(c->sim, m);
}

static const ComponentClass ep_class = { .name = "ep", .doc = "", .size = sizeof(Ep),
                                         .params_offset = offsetof(Ep, dummy),
                                         .ports = ep_ports, .recv = ep_recv };

static Rig *rig_new(const char *yaml, int n)
{
    Rig *g = g_new0(Rig, 1);
    sim_init(&g->sim, 1, 1000000000ull);   /* 1 GHz: 1 cycle = 1000 ticks */
    GError *e = NULL;
    CfgNode *cfg = cfg_load_string("noc.yaml", yaml, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
    g->noc = sim_component_new(&g->sim, &noc_class, "noc", &g->sim.sys_clk, cfg, &e);
    if (e)
        fprintf(stderr, "%s\n", e->message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g->noc);
    g->n = n;
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "ep%d", i);
        g->ep[i] = (Ep *)sim_component_new(&g->sim, &ep_class, name, &g->sim.sys_clk, NULL, &e);
        g->ep[i]->rig = g;
        g->ep[i]->id = i;
        CU_ASSERT_TRUE_FATAL(sim_connect(&g->ep[i]->base, "net", g->noc, "node", 1000, &e));
    }
    CU_ASSERT_TRUE_FATAL(sim_realize_all(&g->sim, &e));
    cfg_node_free(cfg);
    return g;
}

static void rig_free(Rig *g)
{
    sim_destroy(&g->sim);
    g_free(g);
}

static void send_at(Rig *g, uint64_t cycle, int src, int dst, int vnet, uint32_t size, uint64_t tag)
{
    sim_run(&g->sim.eng, cycle * g->sim.sys_clk.period);
    g->sim.eng.now = cycle * g->sim.sys_clk.period;
    Msg *m = sim_msg_alloc(&g->sim);
    m->cmd = MSG_CMD(MSG_FAM_TEST, 0);
    m->size = size;
    noc_test_msg(m)->tag = tag;
    m->issued = g->sim.eng.now;
    noc_msg_route(m, (uint32_t)dst, (uint32_t)vnet);
    sim_port_send(&g->ep[src]->base, sim_port(&g->ep[src]->base, "net", 0), m, 0);
}

static double stat(Rig *g, const char *name)
{
    StatSet s;
    stats_init(&s);
    sim_collect_stats(&g->sim, &s);
    const StatEntry *e = stats_find(&s, name);
    double v = e ? (e->is_int ? (double)e->u : e->d) : -1;
    stats_clear(&s);
    return v;
}

/* One message alone in the network: its latency as an endpoint sees it, minus the two endpoint
 * links. */
static uint64_t one(Rig *g, int src, int dst, uint32_t size, uint64_t tag)
{
    uint64_t start = sim_component_cycle(g->noc) + 10;
    send_at(g, start, src, dst, 0, size, tag);
    sim_run(&g->sim.eng, TICK_MAX);
    CU_ASSERT_EQUAL(g->got[tag], 1);
    CU_ASSERT_EQUAL(g->node[tag], dst);
    CU_ASSERT_EQUAL(g->src[tag], src);
    return g->at[tag] - start - 2;
}

#define MESH22 "topology: mesh\nnodes: 4\nwidth: 2\nrouter_delay: 2\nlink_latency: 1\n" \
               "link_width: 16B\nheader: 8B\n"

static void test_mesh_2x2_latency(void)
{
    Rig *g = rig_new(MESH22, 4);
    /* header only: 1 flit; per hop router_delay 2 + link 1 */
    CU_ASSERT_EQUAL(one(g, 0, 1, 0, 1), 1 * 3 + 1);
    CU_ASSERT_EQUAL(one(g, 0, 2, 0, 2), 1 * 3 + 1);
    CU_ASSERT_EQUAL(one(g, 0, 3, 0, 3), 2 * 3 + 1);
    CU_ASSERT_EQUAL(one(g, 3, 0, 0, 4), 2 * 3 + 1);
    CU_ASSERT_EQUAL(one(g, 1, 2, 0, 5), 2 * 3 + 1);
    /* a line: (8 + 64) / 16 -> 5 flits, paid once (cut-through) */
    CU_ASSERT_EQUAL(one(g, 0, 3, 64, 6), 2 * 3 + 5);
    /* to itself: one router pass */
    CU_ASSERT_EQUAL(one(g, 2, 2, 0, 7), 2 + 1);
    CU_ASSERT_EQUAL(stat(g, "noc.messages"), 7);
    CU_ASSERT_EQUAL(stat(g, "noc.hop_count.2"), 4);
    CU_ASSERT_EQUAL(stat(g, "noc.hop_count.0"), 1);
    CU_ASSERT_EQUAL(stat(g, "noc.latency::max"), 11);
    CU_ASSERT_EQUAL(stat(g, "noc.bytes"), 7 * 8 + 64);
    CU_ASSERT_EQUAL(stat(g, "noc.flits"), 6 + 5);
    CU_ASSERT_EQUAL(stat(g, "noc.blocked_cycles"), 0);
    rig_free(g);
}

static void test_mesh_4x4_xy(void)
{
    Rig *g = rig_new("topology: mesh\nnodes: 16\nwidth: 4\nrouter_delay: 3\nlink_latency: 2\n"
                     "link_width: 8B\nheader: 8B\n", 16);
    CU_ASSERT_EQUAL(one(g, 0, 15, 0, 1), 6 * 5 + 1);
    CU_ASSERT_EQUAL(one(g, 5, 10, 0, 2), 2 * 5 + 1);
    CU_ASSERT_EQUAL(one(g, 12, 3, 8, 3), 6 * 5 + 2);
    CU_ASSERT_EQUAL(one(g, 6, 4, 0, 4), 2 * 5 + 1);
    CU_ASSERT_EQUAL(stat(g, "noc.hop_count.6"), 2);
    CU_ASSERT_EQUAL(stat(g, "noc.hop_count.2"), 2);
    /* 0 -> 15 went x first: east along row 0, then south down column 3 */
    CU_ASSERT(stat(g, "noc.link.r0.east.utilization") > 0);
    CU_ASSERT(stat(g, "noc.link.r2.east.utilization") > 0);
    CU_ASSERT(stat(g, "noc.link.r3.south.utilization") > 0);
    CU_ASSERT(stat(g, "noc.link.r11.south.utilization") > 0);
    CU_ASSERT_EQUAL(stat(g, "noc.link.r0.south.utilization"), 0);
    CU_ASSERT_EQUAL(stat(g, "noc.link.r12.north.utilization"), 0);  /* 12 -> 3: x first */
    CU_ASSERT(stat(g, "noc.link.r15.north.utilization") > 0);
    CU_ASSERT_EQUAL(stat(g, "noc.link.r0.west.utilization"), -1);   /* edge: no such link */
    rig_free(g);
}

static void test_ring_8(void)
{
    Rig *g = rig_new("topology: ring\nnodes: 8\nrouter_delay: 1\nlink_latency: 1\n"
                     "link_width: 16B\nheader: 8B\n", 8);
    CU_ASSERT_EQUAL(one(g, 0, 3, 0, 1), 3 * 2 + 1);      /* clockwise */
    CU_ASSERT_EQUAL(one(g, 0, 5, 0, 2), 3 * 2 + 1);      /* counter-clockwise */
    CU_ASSERT_EQUAL(stat(g, "noc.link.r0.cw.utilization") > 0, 1);
    CU_ASSERT_EQUAL(stat(g, "noc.link.r0.ccw.utilization") > 0, 1);
    CU_ASSERT_EQUAL(stat(g, "noc.link.r4.cw.utilization"), 0);
    CU_ASSERT_EQUAL(one(g, 2, 6, 0, 3), 4 * 2 + 1);      /* tie: clockwise */
    CU_ASSERT(stat(g, "noc.link.r4.cw.utilization") > 0);
    CU_ASSERT_EQUAL(stat(g, "noc.link.r2.ccw.utilization"), 0);
    CU_ASSERT_EQUAL(one(g, 7, 0, 0, 4), 1 * 2 + 1);      /* wraps */
    CU_ASSERT_EQUAL(stat(g, "noc.hop_count.4"), 1);
    CU_ASSERT_EQUAL(stat(g, "noc.hop_count.3"), 2);
    rig_free(g);
}

static void test_crossbar(void)
{
    Rig *g = rig_new("topology: crossbar\nnodes: 4\nrouter_delay: 2\nlink_latency: 3\n"
                     "link_width: 16B\nheader: 8B\n", 4);
    CU_ASSERT_EQUAL(one(g, 0, 3, 0, 1), 2 + 3 + 1);
    CU_ASSERT_EQUAL(one(g, 2, 1, 0, 2), 2 + 3 + 1);
    CU_ASSERT_EQUAL(one(g, 1, 1, 56, 3), 2 + 3 + 4);
    CU_ASSERT_EQUAL(stat(g, "noc.hop_count.1"), 3);
    CU_ASSERT(stat(g, "noc.link.out3.utilization") > 0);
    rig_free(g);
}

static void test_bandwidth_serializes(void)
{
    Rig *g = rig_new(MESH22, 4);
    send_at(g, 10, 0, 1, 0, 64, 1);    /* 5 flits each, same inject, link and eject */
    send_at(g, 10, 0, 1, 0, 64, 2);
    sim_run(&g->sim.eng, TICK_MAX);
    CU_ASSERT_EQUAL(g->at[1], 10 + 2 + 3 + 5);
    CU_ASSERT_EQUAL(g->at[2], g->at[1] + 5);
    CU_ASSERT_EQUAL(stat(g, "noc.link.r0.east.utilization") > 0, 1);
    /* the same pair on different vnets still shares the link's bandwidth */
    send_at(g, 100, 0, 1, 1, 64, 3);
    send_at(g, 100, 0, 1, 2, 64, 4);
    sim_run(&g->sim.eng, TICK_MAX);
    CU_ASSERT_EQUAL(g->at[3], 100 + 2 + 8);
    CU_ASSERT_EQUAL(g->at[4], g->at[3] + 5);
    rig_free(g);
}

#define XBAR_BP "topology: crossbar\nnodes: 4\nrouter_delay: 1\nlink_latency: 1\n" \
                "link_width: 8B\nheader: 8B\nbuffer: 1\nvnets: 2\n"

/* Nodes 0 and 1 burst 6 lines each to node 2 on vnet 0: node 2's output drains at half the rate
 * they inject, so the switch buffers (1 message) fill and the NIs wait for credits. */
static uint64_t burst_then_probe(int probe_vnet, uint64_t *blocked)
{
    Rig *g = rig_new(XBAR_BP, 4);
    for (int i = 0; i < 6; i++) {
        send_at(g, 0, 0, 2, 0, 56, (uint64_t)(10 + i));
        send_at(g, 0, 1, 2, 0, 56, (uint64_t)(20 + i));
    }
    send_at(g, 30, 0, 3, probe_vnet, 0, 1);     /* control message to an idle node */
    sim_run(&g->sim.eng, TICK_MAX);
    for (int i = 0; i < 6; i++) {
        CU_ASSERT_EQUAL(g->got[10 + i], 1);
        CU_ASSERT_EQUAL(g->got[20 + i], 1);
        CU_ASSERT_EQUAL(g->node[10 + i], 2);
        if (i > 0)
            CU_ASSERT(g->at[10 + i] > g->at[10 + i - 1]);   /* FIFO within a source and vnet */
    }
    CU_ASSERT_EQUAL(g->got[1], 1);
    *blocked = (uint64_t)stat(g, "noc.blocked_cycles");
    uint64_t lat = g->at[1] - 30 - 2;
    rig_free(g);
    return lat;
}

static void test_backpressure_and_vnet_isolation(void)
{
    uint64_t blocked0, blocked1;
    uint64_t same = burst_then_probe(0, &blocked0);
    uint64_t other = burst_then_probe(1, &blocked1);
    CU_ASSERT(blocked0 > 0);
    CU_ASSERT(blocked1 > 0);
    /* in its own vnet the probe passes the blocked burst: unloaded crossbar latency */
    CU_ASSERT_EQUAL(other, 1 + 1 + 1);
    /* behind the burst in vnet 0 it waits for the whole queue ahead of it */
    CU_ASSERT(same > other + 10);
}

/* Uniform random traffic: every node sends to random nodes, vnets and sizes. */
static Rig *random_run(const char *yaml, int n, int per_node, uint64_t seed)
{
    Rig *g = rig_new(yaml, n);
    GRand *r = g_rand_new_with_seed((guint32)seed);
    int tag = 0;
    for (uint64_t cyc = 0; tag < n * per_node; cyc++)
        for (int s = 0; s < n && tag < n * per_node; s++)
            if (g_rand_int_range(r, 0, 4) == 0) {
                int d = g_rand_int_range(r, 0, n);
                int v = g_rand_int_range(r, 0, 3);
                uint32_t size = g_rand_boolean(r) ? 64 : 0;
                send_at(g, cyc, s, d, v, size, (uint64_t)tag);
                tag++;
            }
    g_rand_free(r);
    return g;
}

static void test_random_uniform_mesh(void)
{
    const char *y = "topology: mesh\nnodes: 16\nwidth: 4\nbuffer: 2\n";
    Rig *g = rig_new(y, 16);
    GRand *r = g_rand_new_with_seed(7);
    int want[MAXT], from[MAXT], total = 16 * 100;
    int tag = 0;
    for (uint64_t cyc = 0; tag < total; cyc++)
        for (int s = 0; s < 16 && tag < total; s++)
            if (g_rand_int_range(r, 0, 3) == 0) {
                want[tag] = g_rand_int_range(r, 0, 16);
                from[tag] = s;
                send_at(g, cyc, s, want[tag], g_rand_int_range(r, 0, 3),
                        g_rand_boolean(r) ? 64 : 0, (uint64_t)tag);
                tag++;
            }
    g_rand_free(r);
    sim_run(&g->sim.eng, TICK_MAX);
    int bad = 0;
    for (int t = 0; t < total; t++)
        if (g->got[t] != 1 || g->node[t] != want[t] || g->src[t] != from[t])
            bad++;
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(stat(g, "noc.messages"), total);
    CU_ASSERT_EQUAL(stat(g, "noc.injected"), total);
    CU_ASSERT_FALSE(sim_any_busy(&g->sim));
    CU_ASSERT(stat(g, "noc.link_utilization_max") > 0);
    CU_ASSERT(stat(g, "noc.link_utilization_max") <= 1.0);
    rig_free(g);
}

static void test_random_ring_delivers(void)
{
    Rig *g = random_run("topology: ring\nnodes: 8\nbuffer: 2\nlink_width: 8B\n", 8, 100, 3);
    sim_run(&g->sim.eng, TICK_MAX);
    int bad = 0;
    for (int t = 0; t < 800; t++)
        if (g->got[t] != 1)
            bad++;
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(stat(g, "noc.blocked_cycles") > 0);    /* heavy enough to fill the buffers */
    rig_free(g);
}

static char *stats_text(Rig *g)
{
    StatSet s;
    stats_init(&s);
    sim_collect_stats(&g->sim, &s);
    GString *out = g_string_new(NULL);
    stats_format_txt(&s, out);
    stats_clear(&s);
    return g_string_free(out, FALSE);
}

static void test_determinism(void)
{
    const char *y = "topology: mesh\nnodes: 16\nwidth: 4\nbuffer: 1\nlink_width: 8B\n";
    Rig *a = random_run(y, 16, 60, 11);
    sim_run(&a->sim.eng, TICK_MAX);
    Rig *b = random_run(y, 16, 60, 11);
    sim_run(&b->sim.eng, TICK_MAX);
    char *ta = stats_text(a), *tb = stats_text(b);
    CU_ASSERT_STRING_EQUAL(ta, tb);
    CU_ASSERT_EQUAL(memcmp(a->at, b->at, sizeof a->at), 0);
    CU_ASSERT(stat(a, "noc.blocked_cycles") > 0);
    g_free(ta);
    g_free(tb);
    rig_free(a);
    rig_free(b);
}

#define MESH22C2 MESH22 "concentration: 2\n"

/* 2x2 mesh, two endpoints per router: endpoint e sits at router e % 4, so 0 and 4 share router 0,
 * 5 is at router 1 (east of 0), 7 at router 3 (diagonal). */
static void test_concentration_latency(void)
{
    Rig *g = rig_new(MESH22C2, 8);
    /* same router: it turns around there, router_delay + F, 0 hops */
    CU_ASSERT_EQUAL(one(g, 0, 4, 0, 1), 2 + 1);
    CU_ASSERT_EQUAL(one(g, 4, 0, 0, 2), 2 + 1);
    CU_ASSERT_EQUAL(one(g, 5, 1, 64, 3), 2 + 5);
    CU_ASSERT_EQUAL(one(g, 6, 6, 0, 4), 2 + 1);
    /* neighbour routers: one hop, router_delay + link_latency + F, whichever endpoint */
    CU_ASSERT_EQUAL(one(g, 0, 5, 0, 5), 1 * 3 + 1);
    CU_ASSERT_EQUAL(one(g, 4, 1, 0, 6), 1 * 3 + 1);
    CU_ASSERT_EQUAL(one(g, 4, 5, 0, 7), 1 * 3 + 1);
    CU_ASSERT_EQUAL(one(g, 6, 4, 64, 8), 1 * 3 + 5);
    /* diagonal: two hops, as on the 2x2 mesh without concentration */
    CU_ASSERT_EQUAL(one(g, 4, 7, 0, 9), 2 * 3 + 1);
    CU_ASSERT_EQUAL(stat(g, "noc.hop_count.0"), 4);
    CU_ASSERT_EQUAL(stat(g, "noc.hop_count.1"), 4);
    CU_ASSERT_EQUAL(stat(g, "noc.hop_count.2"), 1);
    CU_ASSERT_EQUAL(stat(g, "noc.hop_count.3"), -1);   /* the diameter is the routers' */
    /* a channel per endpoint, links per router */
    CU_ASSERT(stat(g, "noc.link.n7.eject.utilization") > 0);
    CU_ASSERT(stat(g, "noc.link.n4.inject.utilization") > 0);
    CU_ASSERT_EQUAL(stat(g, "noc.link.n3.eject.utilization"), 0);
    CU_ASSERT_EQUAL(stat(g, "noc.link.n8.eject.utilization"), -1);
    CU_ASSERT(stat(g, "noc.link.r0.east.utilization") > 0);
    CU_ASSERT_EQUAL(stat(g, "noc.link.r4.east.utilization"), -1);
    CU_ASSERT_EQUAL(stat(g, "noc.messages"), 9);
    rig_free(g);

    /* two endpoints of one router exchange lines at once: their own inject and eject channels,
     * so neither waits (with one channel per router the second would arrive 5 cycles later) */
    g = rig_new(MESH22C2, 8);
    send_at(g, 10, 0, 4, 0, 64, 1);
    send_at(g, 10, 4, 0, 0, 64, 2);
    sim_run(&g->sim.eng, TICK_MAX);
    CU_ASSERT_EQUAL(g->at[1], 10 + 2 + 2 + 5);
    CU_ASSERT_EQUAL(g->at[2], 10 + 2 + 2 + 5);
    /* but they share their router's links: 1 -> 0 and 5 -> 4 both cross r1.west */
    send_at(g, 100, 1, 0, 0, 64, 3);
    send_at(g, 100, 5, 4, 0, 64, 4);
    sim_run(&g->sim.eng, TICK_MAX);
    CU_ASSERT_EQUAL(g->at[3], 100 + 2 + 3 + 5);
    CU_ASSERT_EQUAL(g->at[4], g->at[3] + 5);
    CU_ASSERT_EQUAL(g->node[4], 4);
    CU_ASSERT_EQUAL(g->src[4], 5);
    rig_free(g);
}

/* Random traffic under contention (1-message buffers, narrow links, lines mixed with control
 * messages): each message arrives once, at its destination, and every (source, destination,
 * vnet) is delivered in the order sent, which the directory protocols rely on. */
static void check_p2p_order(const char *yaml, int n, int per_ep, uint64_t seed)
{
    Rig *g = rig_new(yaml, n);
    GRand *r = g_rand_new_with_seed((guint32)seed);
    static int from[MAXT], to[MAXT], vn[MAXT];
    int total = n * per_ep, tag = 0;
    g_assert(total <= MAXT && n <= 64);
    for (uint64_t cyc = 0; tag < total; cyc++)
        for (int s = 0; s < n && tag < total; s++)
            if (g_rand_int_range(r, 0, 3) == 0) {
                /* few destinations per source, so each flow carries many messages */
                from[tag] = s;
                to[tag] = (s + 1 + 3 * g_rand_int_range(r, 0, 3)) % n;
                vn[tag] = g_rand_int_range(r, 0, 3);
                send_at(g, cyc, s, to[tag], vn[tag], g_rand_int_range(r, 0, 3) == 0 ? 0 : 64,
                        (uint64_t)tag);
                tag++;
            }
    g_rand_free(r);
    sim_run(&g->sim.eng, TICK_MAX);
    int64_t *last = g_new(int64_t, (size_t)n * n * 3);
    for (int i = 0; i < n * n * 3; i++)
        last[i] = -1;
    int bad = 0, out_of_order = 0, followers = 0;
    for (int t = 0; t < total; t++) {   /* tags rise with send time at each source */
        if (g->got[t] != 1 || g->node[t] != to[t] || g->src[t] != from[t]) {
            bad++;
            continue;
        }
        int64_t *l = &last[((size_t)from[t] * n + to[t]) * 3 + vn[t]];
        if (*l >= 0) {
            followers++;
            if ((int64_t)g->seq[t] < *l)
                out_of_order++;
        }
        *l = (int64_t)g->seq[t];
    }
    g_free(last);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(out_of_order, 0);
    CU_ASSERT(followers > total / 2);                   /* flows with many messages */
    CU_ASSERT(stat(g, "noc.blocked_cycles") > 0);       /* under back-pressure */
    CU_ASSERT_FALSE(sim_any_busy(&g->sim));
    rig_free(g);
}

static void test_p2p_order(void)
{
    check_p2p_order("topology: mesh\nnodes: 16\nwidth: 4\nconcentration: 2\nbuffer: 1\n"
                    "link_width: 8B\n", 32, 120, 5);
    check_p2p_order("topology: mesh\nnodes: 16\nwidth: 4\nbuffer: 1\nlink_width: 8B\n", 16, 200,
                    6);
    check_p2p_order("topology: ring\nnodes: 8\nconcentration: 2\nbuffer: 2\nlink_width: 8B\n",
                    16, 200, 7);
    check_p2p_order("topology: crossbar\nnodes: 4\nconcentration: 3\nbuffer: 1\n"
                    "link_width: 8B\n", 12, 300, 8);
}

static void expect_config_error(const char *yaml, int n, const char *needle)
{
    Sim sim;
    sim_init(&sim, 1, 1000000000ull);
    GError *e = NULL;
    CfgNode *cfg = cfg_load_string("bad.yaml", yaml, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
    Component *c = sim_component_new(&sim, &noc_class, "noc", &sim.sys_clk, cfg, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "ep%d", i);
        Component *ep = sim_component_new(&sim, &ep_class, name, &sim.sys_clk, NULL, &e);
        CU_ASSERT_TRUE(sim_connect(ep, "net", c, "node", 1000, &e));
    }
    CU_ASSERT_FALSE(sim_realize_all(&sim, &e));
    CU_ASSERT_PTR_NOT_NULL(e);
    if (e) {
        CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CONFIG);
        CU_ASSERT_PTR_NOT_NULL(strstr(e->message, needle));
        g_error_free(e);
    }
    cfg_node_free(cfg);
    sim_destroy(&sim);
}

static void test_bad_configs(void)
{
    expect_config_error("topology: mesh\nnodes: 6\nwidth: 4\n", 6, "not a multiple of width");
    expect_config_error("topology: ring\nnodes: 4\nbuffer: 1\n", 4, "at least 2");
    expect_config_error("topology: crossbar\nnodes: 4\n", 3, "3 endpoints connected");
    /* concentration: nodes x concentration endpoints, no more, no fewer */
    expect_config_error(MESH22C2, 4, "4 endpoints connected to node, but nodes x concentration "
                        "= 4 x 2 = 8; hint:");
    expect_config_error(MESH22C2, 9, "9 endpoints connected");
    expect_config_error("topology: ring\nnodes: 4096\nconcentration: 64\n", 0,
                        "262144 endpoints, more than the 65536");
}

static void expect_param_error(const char *yaml, const char *needle)
{
    Sim sim;
    sim_init(&sim, 1, 1000000000ull);
    GError *e = NULL;
    CfgNode *cfg = cfg_load_string("bad.yaml", yaml, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
    CU_ASSERT_PTR_NULL(sim_component_new(&sim, &noc_class, "noc", &sim.sys_clk, cfg, &e));
    CU_ASSERT_PTR_NOT_NULL(e);
    if (e) {
        CU_ASSERT_PTR_NOT_NULL(strstr(e->message, needle));
        g_error_free(e);
    }
    cfg_node_free(cfg);
    sim_destroy(&sim);
}

static void test_concentration_range(void)
{
    expect_param_error("concentration: 0\n", "concentration");
    expect_param_error("concentration: 65\n", "concentration");
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("noc", NULL, NULL);
    CU_add_test(s, "2x2 mesh: exact latencies", test_mesh_2x2_latency);
    CU_add_test(s, "4x4 mesh: XY routes and hop counts", test_mesh_4x4_xy);
    CU_add_test(s, "8-node ring: shortest way, ties clockwise", test_ring_8);
    CU_add_test(s, "crossbar: one hop for every pair", test_crossbar);
    CU_add_test(s, "bandwidth: a link carries one message at a time", test_bandwidth_serializes);
    CU_add_test(s, "back-pressure and vnet isolation", test_backpressure_and_vnet_isolation);
    CU_add_test(s, "uniform random traffic on a 4x4 mesh: each message once, right node",
                test_random_uniform_mesh);
    CU_add_test(s, "random traffic on a ring: no deadlock", test_random_ring_delivers);
    CU_add_test(s, "determinism: same traffic, same stats", test_determinism);
    CU_add_test(s, "bad configurations rejected", test_bad_configs);
    CU_add_test(s, "concentration: 2x2 mesh, two endpoints per router, exact latencies",
                test_concentration_latency);
    CU_add_test(s, "concentration out of range rejected", test_concentration_range);
    CU_add_test(s, "point-to-point order per (src, dst, vnet) under contention",
                test_p2p_order);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
