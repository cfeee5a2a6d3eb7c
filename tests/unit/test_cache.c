/* test_cache.c: one cache between a mock requester and a mock memory (ChampSim's test style):
 * exact cycle counts for hits, misses, MSHR merges, MSHR exhaustion, write-backs of dirty
 * victims, LRU order, and the stats that come out. */
#include <CUnit/Basic.h>
#include <string.h>

#include "../../models/cache/cache.h"
#include "../../models/mem/memmsg.h"
#include "../../sim/error.h"

/* ---- mocks ---------------------------------------------------------------------------- */
typedef struct {
    Component base;
    int dummy;
    uint64_t resp_cycle[64];
    uint64_t resp_tag[64];
    int nresp;
} Req;

typedef struct {
    Component base;
    int dummy;
    uint64_t latency;            /* cycles */
    int reads, writebacks;
    uint64_t wb_addr[16];
} Mem;

static const PortSpec req_ports[] = { { .name = "out", .role = PORT_REQUESTER, .doc = "" }, PORT_END };
static const PortSpec mem_ports[] = { { .name = "in", .role = PORT_RESPONDER, .doc = "" }, PORT_END };

static void req_recv(Component *c, Port *p, Msg *m)
{
    (void)p;
    Req *r = (Req *)c;
    r->resp_cycle[r->nresp] = sim_component_cycle(c);
    r->resp_tag[r->nresp++] = mem_msg(m)->tag;
    sim_msg_free(c->sim, m);
}

static void mem_recv(Component *c, Port *p, Msg *m)
{
    Mem *k = (Mem *)c;
    if (m->cmd == MSG_WRITEBACK) {
        k->wb_addr[k->writebacks++] = mem_msg(m)->addr;
        sim_msg_free(c->sim, m);
        return;
    }
    k->reads++;
    m->cmd = MSG_READ_RESP;
    sim_port_send(c, p, m, k->latency);
}

static const ComponentClass req_class = { .name = "req", .doc = "", .size = sizeof(Req),
                                          .params_offset = offsetof(Req, dummy),
                                          .ports = req_ports, .recv = req_recv };
static const ComponentClass mem_class = { .name = "mem", .doc = "", .size = sizeof(Mem),
                                          .params_offset = offsetof(Mem, dummy),
                                          .ports = mem_ports, .recv = mem_recv };

typedef struct {
    Sim sim;
    Req *req;
    Mem *mem;
    Component *cache;
} Rig;

static void rig_init(Rig *g, const char *yaml)
{
    sim_init(&g->sim, 1, 1000000000ull); /* 1 GHz: 1 cycle = 1000 ticks */
    GError *e = NULL;
    CfgNode *cfg = cfg_load_string("test.yaml", yaml, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
    g->req = (Req *)sim_component_new(&g->sim, &req_class, "req", &g->sim.sys_clk, NULL, &e);
    g->cache = sim_component_new(&g->sim, &cache_class, "l1", &g->sim.sys_clk, cfg, &e);
    if (e)
        fprintf(stderr, "%s\n", e->message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g->cache);
    g->mem = (Mem *)sim_component_new(&g->sim, &mem_class, "mem", &g->sim.sys_clk, NULL, &e);
    g->mem->latency = 20;
    CU_ASSERT_TRUE_FATAL(sim_connect(&g->req->base, "out", g->cache, "cpu_side", 1, &e));
    CU_ASSERT_TRUE_FATAL(sim_connect(g->cache, "mem_side", &g->mem->base, "in", 1, &e));
    CU_ASSERT_TRUE_FATAL(sim_realize_all(&g->sim, &e));
    cfg_node_free(cfg);
}

static void send_at(Rig *g, uint64_t cycle, uint16_t cmd, uint64_t addr, uint64_t tag)
{
    sim_run(&g->sim.eng, cycle * g->sim.sys_clk.period);
    g->sim.eng.now = cycle * g->sim.sys_clk.period;
    Msg *m = sim_msg_alloc(&g->sim);
    m->cmd = cmd;
    mem_msg(m)->addr = addr;
    m->size = 8;
    mem_msg(m)->tag = tag;
    m->issued = g->sim.eng.now;
    sim_port_send(&g->req->base, sim_port(&g->req->base, "out", 0), m, 0);
}

static uint64_t stat(Rig *g, const char *name)
{
    StatSet s;
    stats_init(&s);
    sim_collect_stats(&g->sim, &s);
    const StatEntry *e = stats_find(&s, name);
    uint64_t v = e ? (e->is_int ? e->u : (uint64_t)e->d) : UINT64_MAX;
    stats_clear(&s);
    return v;
}

static const char *const small =
    "size: 256B\nassoc: 2\nline: 64B\nhit_latency: 3\nresponse_latency: 1\nmshrs: 2\ntargets: 2\n";

static void test_miss_then_hit_exact_cycles(void)
{
    Rig g;
    rig_init(&g, small);
    send_at(&g, 0, MSG_READ_REQ, 0x1000, 1);
    sim_run(&g.sim.eng, TICK_MAX);
    /* miss: lookup 3 cycles, memory 20, response 1 => cycle 24 */
    CU_ASSERT_EQUAL_FATAL(g.req->nresp, 1);
    CU_ASSERT_EQUAL(g.req->resp_cycle[0], 24);
    send_at(&g, 100, MSG_READ_REQ, 0x1008, 2);
    sim_run(&g.sim.eng, TICK_MAX);
    CU_ASSERT_EQUAL_FATAL(g.req->nresp, 2);
    CU_ASSERT_EQUAL(g.req->resp_cycle[1], 103);   /* hit: 3 cycles */
    CU_ASSERT_EQUAL(stat(&g, "l1.read_misses"), 1);
    CU_ASSERT_EQUAL(stat(&g, "l1.read_hits"), 1);
    CU_ASSERT_EQUAL(stat(&g, "l1.miss_latency::samples"), 1);
    CU_ASSERT_EQUAL(g.mem->reads, 1);
    sim_destroy(&g.sim);
}

static void test_mshr_merge(void)
{
    Rig g;
    rig_init(&g, small);
    send_at(&g, 0, MSG_READ_REQ, 0x2000, 1);
    send_at(&g, 2, MSG_READ_REQ, 0x2010, 2);  /* same line, merges */
    sim_run(&g.sim.eng, TICK_MAX);
    CU_ASSERT_EQUAL_FATAL(g.req->nresp, 2);
    CU_ASSERT_EQUAL(g.req->resp_cycle[0], 24);
    CU_ASSERT_EQUAL(g.req->resp_cycle[1], 24);
    CU_ASSERT_EQUAL(g.mem->reads, 1);
    CU_ASSERT_EQUAL(stat(&g, "l1.mshr_merges"), 1);
    CU_ASSERT_EQUAL(stat(&g, "l1.misses"), 2);
    sim_destroy(&g.sim);
}

static void test_mshr_full_blocks(void)
{
    Rig g;
    rig_init(&g, small);
    send_at(&g, 0, MSG_READ_REQ, 0x0000, 1);
    send_at(&g, 0, MSG_READ_REQ, 0x1000, 2);
    send_at(&g, 1, MSG_READ_REQ, 0x2000, 3);  /* third block: both MSHRs busy, waits */
    sim_run(&g.sim.eng, TICK_MAX);
    CU_ASSERT_EQUAL_FATAL(g.req->nresp, 3);
    CU_ASSERT_EQUAL(g.req->resp_cycle[0], 24);
    CU_ASSERT_EQUAL(g.req->resp_cycle[1], 24);
    /* it is looked up when the first MSHR frees at cycle 23 (fill), then 3 + 20 + 1 */
    CU_ASSERT_EQUAL(g.req->resp_tag[2], 3);
    CU_ASSERT_EQUAL(g.req->resp_cycle[2], 23 + 24);
    CU_ASSERT_EQUAL(stat(&g, "l1.blocked"), 1);
    sim_destroy(&g.sim);
}

static void test_dirty_victim_written_back_lru(void)
{
    Rig g;
    rig_init(&g, small); /* 2 sets x 2 ways; set = (addr >> 6) & 1 */
    send_at(&g, 0, MSG_WRITE_REQ, 0x000, 1);    /* set 0, dirty */
    send_at(&g, 50, MSG_READ_REQ, 0x080, 2);    /* set 0, second way */
    send_at(&g, 100, MSG_READ_REQ, 0x000, 3);   /* touch 0x000: 0x080 is now LRU */
    send_at(&g, 150, MSG_READ_REQ, 0x100, 4);   /* evicts 0x080 (clean): no write-back */
    sim_run(&g.sim.eng, TICK_MAX);
    CU_ASSERT_EQUAL(g.mem->writebacks, 0);
    send_at(&g, 200, MSG_READ_REQ, 0x180, 5);   /* evicts 0x000 (dirty, LRU now) */
    sim_run(&g.sim.eng, TICK_MAX);
    CU_ASSERT_EQUAL_FATAL(g.mem->writebacks, 1);
    CU_ASSERT_EQUAL(g.mem->wb_addr[0], 0x000);
    CU_ASSERT_EQUAL(stat(&g, "l1.writebacks"), 1);
    CU_ASSERT_EQUAL(stat(&g, "l1.write_misses"), 1);
    CU_ASSERT_EQUAL(stat(&g, "l1.read_hits"), 1);
    sim_destroy(&g.sim);
}

static void test_bad_geometry(void)
{
    Sim sim;
    sim_init(&sim, 1, 1000000000ull);
    GError *e = NULL;
    CfgNode *cfg = cfg_load_string("g.yaml", "size: 192B\nassoc: 1\n", NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
    Component *c = sim_component_new(&sim, &cache_class, "l1", &sim.sys_clk, cfg, &e);
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_PTR_NOT_NULL(e);
    if (e) {
        CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CONFIG);
        CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "not a power of two"));
        g_error_free(e);
    }
    cfg_node_free(cfg);
    sim_destroy(&sim);
}

/* Reads lines [first, first + n) one after another (each to completion): misses and cycles. */
static void read_lines(Rig *g, uint64_t first, uint64_t n, uint64_t *cycle, uint64_t *sum)
{
    for (uint64_t i = 0; i < n; i++) {
        g->req->nresp = 0;
        send_at(g, *cycle, MSG_READ_REQ, (first + i) * 64, i);
        sim_run(&g->sim.eng, TICK_MAX);
        CU_ASSERT_EQUAL_FATAL(g->req->nresp, 1);
        *sum += g->req->resp_cycle[0] - *cycle;
        *cycle = g->req->resp_cycle[0] + 1;
    }
}

/* issue 15 item 2: a 1 TiB cache (inside the documented range) used to allocate its whole tag
 * store at realize, about 300 GiB: GLib aborted. Its tag store is now allocated by page of sets
 * on first touch: 1 MiB of lines touched holds a few MiB, and it times exactly as a small one. */
static void test_issue15_item2_sparse_tag_store(void)
{
    const char *big = "size: 1TiB\nassoc: 8\nline: 64B\nhit_latency: 3\nmshrs: 2\n";
    const char *flat = "size: 2MiB\nassoc: 8\nline: 64B\nhit_latency: 3\nmshrs: 2\n";
    uint64_t lat[2] = { 0, 0 };
    for (int v = 0; v < 2; v++) {
        Rig g;
        rig_init(&g, v == 0 ? big : flat);
        uint64_t cycle = 0;
        read_lines(&g, 1 << 20, 16384, &cycle, &lat[v]);  /* 1 MiB of lines: all miss */
        read_lines(&g, 1 << 20, 64, &cycle, &lat[v]);     /* again: all hit */
        CU_ASSERT_EQUAL(stat(&g, "l1.read_misses"), 16384);
        CU_ASSERT_EQUAL(stat(&g, "l1.read_hits"), 64);
        if (v == 0) /* page table 2 MiB + the touched pages; it was 18 B x 2^34 ways */
            CU_ASSERT(g.sim.mem_used < (8u << 20));
        sim_destroy(&g.sim);
    }
    CU_ASSERT_EQUAL(lat[0], lat[1]);
}

/* issue 15 item 2: pages touched past sim.memory_limit fail the run (exit 78), saying so. */
static void test_issue15_item2_touched_over_limit(void)
{
    Rig g;
    rig_init(&g, "size: 1TiB\nassoc: 8\nline: 64B\n");
    g.sim.mem_limit = g.sim.mem_used + (1u << 20);  /* less than a second page (1.1 MiB) */
    send_at(&g, 0, MSG_READ_REQ, 0x1000, 1);
    sim_run(&g.sim.eng, TICK_MAX);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g.sim.error);
    CU_ASSERT_EQUAL(g.sim.error->code, ARCHSIM_EXIT_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(g.sim.error->message, "one more page of the tag store (1.1 MiB more)"));
    sim_destroy(&g.sim);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("cache", NULL, NULL);
    CU_add_test(s, "miss then hit, exact cycles", test_miss_then_hit_exact_cycles);
    CU_add_test(s, "MSHR merge", test_mshr_merge);
    CU_add_test(s, "MSHRs full: request waits", test_mshr_full_blocks);
    CU_add_test(s, "LRU victim, dirty write-back", test_dirty_victim_written_back_lru);
    CU_add_test(s, "bad geometry rejected", test_bad_geometry);
    CU_add_test(s, "issue15_item2_sparse_tag_store", test_issue15_item2_sparse_tag_store);
    CU_add_test(s, "issue15_item2_touched_over_limit", test_issue15_item2_touched_over_limit);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
