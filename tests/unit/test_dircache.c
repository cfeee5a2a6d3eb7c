/* test_dircache.c: one dir-cache (cache id 1 of 4, two directory banks: endpoints 4 and 5)
 * between a mock core and a mock network endpoint that plays the directories and the other
 * caches, with exact cycles (every link takes one cycle): a two-hop load miss and a hit, an
 * upgrade whose Inv-Ack overtakes the data (negative ack counter), a three-hop store miss with a
 * Fwd-GetS deferred until the data, a stale Inv acked without a frame, a replacement whose op
 * waits for the Put-Ack, MESI's Fwd-GetS racing the Exclusive-Data, forward-network order kept
 * among deferred messages, the deadlock dump, and the abort on a (state, event) pair without a
 * row; in the whole machine (system dirsmp), a poisoned reference memory is caught. The random
 * tester over many seeds is tests/unit/test_dirsys.c's. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../models/dir/dircache.h"
#include "../../models/mem/memmsg.h"
#include "../../models/dir/dirmsg.h"
#include "../../sim/error.h"
#include "../../models/mem/oracle.h"
#include "../../sim/system.h"

#define MAXR 64

typedef struct {
    int type, req, acks, vnet;
    unsigned flags;
    uint32_t dst, size;
    uint64_t addr, word, cycle;     /* word: the first 8 data bytes at the accessed offset 0 */
} Sent;

typedef struct {
    uint16_t cmd;
    uint64_t value, cycle, addr;
} Resp;

typedef struct {
    Component base;
    int dummy;
    Sent sent[MAXR];
    int nsent;
    Resp resp[MAXR];
    int nresp;
} Mock;

typedef struct {
    Sim sim;
    Component *l1;
    Mock *core, *net;
} Rig;

static const PortSpec core_ports[] = { { .name = "dcache", .role = PORT_REQUESTER, .doc = "" },
                                       PORT_END };
static const PortSpec net_ports[] = { { .name = "node", .role = PORT_RESPONDER, .vector = true,
                                        .doc = "" }, PORT_END };

static void core_recv(Component *c, Port *p, Msg *m)
{
    (void)p;
    Mock *k = (Mock *)c;
    g_assert(k->nresp < MAXR);
    k->resp[k->nresp++] =
        (Resp){ m->cmd, mem_msg(m)->value, sim_component_cycle(c), mem_msg(m)->addr };
    sim_msg_free(c->sim, m);
}

static void net_recv(Component *c, Port *p, Msg *m)
{
    (void)p;
    Mock *k = (Mock *)c;
    g_assert(k->nsent < MAXR);
    uint64_t w = 0;
    if (m->data)
        memcpy(&w, m->data, 8);
    k->sent[k->nsent++] = (Sent){ dir_msg_type(m), dir_msg_req(m), dir_msg_acks(m),
                                  (int)noc_msg_vnet(m), dir_msg_flags(m), noc_msg_dst(m),
                                  m->size, dir_msg(m)->addr, w, sim_component_cycle(c) };
    if (m->data)
        dir_data_free(m);
    sim_msg_free(c->sim, m);
}

static const ComponentClass core_class = { .name = "mock-core", .doc = "", .size = sizeof(Mock),
                                           .params_offset = offsetof(Mock, dummy),
                                           .ports = core_ports, .recv = core_recv };
static const ComponentClass net_class = { .name = "mock-net", .doc = "", .size = sizeof(Mock),
                                          .params_offset = offsetof(Mock, dummy),
                                          .ports = net_ports, .recv = net_recv };

enum { A = 0x1000, B = 0x1040, C = 0x2000, D = 0x1080, E = 0x1100 };   /* A, D, E: set 0 */

static int rig_wbuf = 0;     /* l1d.writeback_buffer of the next rig */

static Rig *rig_new(const char *protocol)
{
    Rig *g = g_new0(Rig, 1);
    sim_init(&g->sim, 1, 1000000000ull);   /* 1 GHz: 1 cycle = 1000 ticks */
    GError *e = NULL;
    char *yaml = g_strdup_printf("size: 256B\nassoc: 2\nline: 64B\nhit_latency: 2\n"
                                 "caches: 4\nbanks: 2\nprotocol: %s\nwriteback_buffer: %d\n",
                                 protocol, rig_wbuf);
    CfgNode *cfg = cfg_load_string("l1d.yaml", yaml, NULL, &e);
    g_free(yaml);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
    g->core = (Mock *)sim_component_new(&g->sim, &core_class, "core", &g->sim.sys_clk, NULL, &e);
    g->l1 = sim_component_new(&g->sim, &dir_cache_class, "l1d", &g->sim.sys_clk, cfg, &e);
    if (e)
        fprintf(stderr, "%s\n", e->message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g->l1);
    g->l1->index = 1;
    g->net = (Mock *)sim_component_new(&g->sim, &net_class, "net", &g->sim.sys_clk, NULL, &e);
    CU_ASSERT_TRUE_FATAL(sim_connect(&g->core->base, "dcache", g->l1, "cpu_side", 1000, &e));
    CU_ASSERT_TRUE_FATAL(sim_connect(g->l1, "net", &g->net->base, "node", 1000, &e));
    CU_ASSERT_TRUE_FATAL(sim_realize_all(&g->sim, &e));
    cfg_node_free(cfg);
    return g;
}

static void rig_free(Rig *g)
{
    sim_destroy(&g->sim);
    g_free(g);
}

static void run_to(Rig *g, uint64_t cycle)
{
    sim_run(&g->sim.eng, cycle * 1000);
    g->sim.eng.now = cycle * 1000;
}

static void core_op(Rig *g, uint64_t cycle, bool store, uint64_t addr, uint64_t value)
{
    run_to(g, cycle);
    Msg *m = sim_msg_alloc(&g->sim);
    m->cmd = store ? MSG_WRITE_REQ : MSG_READ_REQ;
    mem_msg(m)->addr = addr;
    m->size = 8;
    mem_msg(m)->value = value;
    m->issued = g->sim.eng.now;
    sim_port_send(&g->core->base, sim_port(&g->core->base, "dcache", 0), m, 0);
}

/* The network delivers a message from endpoint src to the cache. */
static void net_msg(Rig *g, uint64_t cycle, int type, unsigned flags, int req, int acks,
                    uint64_t addr, int src, uint64_t word)
{
    run_to(g, cycle);
    Msg *m = sim_msg_alloc(&g->sim);
    m->cmd = MSG_DIR;
    dir_msg(m)->addr = addr;
    dir_msg_set(m, type, flags, req, acks);
    noc_msg_route(m, 1, dir_msg_vnet[type]);
    noc_msg_set_src(m, (uint32_t)src);
    if (type == DM_DATA) {
        m->size = 64;
        dir_data_new(m, 64);
        memset(m->data, 0, 64);
        memcpy(m->data, &word, 8);
    }
    sim_port_send(&g->net->base, sim_port(&g->net->base, "node", 0), m, 0);
}

static uint64_t stat_of(Rig *g, const char *name)
{
    StatSet s;
    stats_init(&s);
    sim_collect_stats(&g->sim, &s);
    const StatEntry *e = stats_find(&s, name);
    uint64_t v = e ? (e->is_int ? e->u : (uint64_t)(e->d + 0.5)) : UINT64_MAX;
    stats_clear(&s);
    return v;
}

static void assert_sent(const Sent *s, int type, uint32_t dst, uint64_t addr, uint64_t cycle)
{
    CU_ASSERT_EQUAL(s->type, type);
    CU_ASSERT_EQUAL(s->dst, dst);
    CU_ASSERT_EQUAL(s->addr, addr);
    CU_ASSERT_EQUAL(s->cycle, cycle);
    CU_ASSERT_EQUAL(s->vnet, (int)dir_msg_vnet[type]);
    CU_ASSERT_EQUAL(s->size, type == DM_DATA || type == DM_PUTM ? 64u : 0u);
}

/* Load miss (two-hop), then a hit; an upgrade whose first Inv-Ack overtakes the data. */
static void test_two_hop_and_acks(void)
{
    Rig *g = rig_new("dir-msi");
    core_op(g, 0, false, A, 0);
    run_to(g, 5);
    CU_ASSERT_EQUAL_FATAL(g->net->nsent, 1);
    assert_sent(&g->net->sent[0], DM_GETS, 4, A, 2);        /* home of A: bank 0, endpoint 4 */
    CU_ASSERT_EQUAL(g->net->sent[0].req, 1);
    net_msg(g, 10, DM_DATA, 0, 1, 0, A, 4, 0x1122334455667788ull);
    run_to(g, 15);
    CU_ASSERT_EQUAL_FATAL(g->core->nresp, 1);
    CU_ASSERT_EQUAL(g->core->resp[0].cmd, MSG_READ_RESP);
    CU_ASSERT_EQUAL(g->core->resp[0].value, 0x1122334455667788ull);
    CU_ASSERT_EQUAL(g->core->resp[0].cycle, 13);            /* data at 11, +1, +link */
    core_op(g, 20, false, A, 0);
    run_to(g, 30);
    CU_ASSERT_EQUAL_FATAL(g->core->nresp, 2);
    CU_ASSERT_EQUAL(g->core->resp[1].cycle, 24);            /* 21 + hit_latency 2 + link */
    CU_ASSERT_EQUAL(stat_of(g, "l1d.load_misses"), 1);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.load_hits"), 1);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.misses_2hop"), 1);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.miss_latency::mean"), 10);   /* issued 1, performed 11 */

    core_op(g, 30, true, A, 0xabcdull);
    run_to(g, 35);
    CU_ASSERT_EQUAL_FATAL(g->net->nsent, 2);
    assert_sent(&g->net->sent[1], DM_GETM, 4, A, 32);
    net_msg(g, 40, DM_INV_ACK, 0, 1, 0, A, 2, 0);           /* overtakes the data: counter -1 */
    net_msg(g, 42, DM_DATA, 0, 1, 2, A, 4, 0x1122334455667788ull);   /* 2 acks: SM_A */
    run_to(g, 50);
    CU_ASSERT_EQUAL(g->core->nresp, 2);                     /* still waiting for an ack */
    net_msg(g, 50, DM_INV_ACK, 0, 1, 0, A, 3, 0);           /* the last one */
    run_to(g, 60);
    CU_ASSERT_EQUAL_FATAL(g->core->nresp, 3);
    CU_ASSERT_EQUAL(g->core->resp[2].cmd, MSG_WRITE_RESP);
    CU_ASSERT_EQUAL(g->core->resp[2].cycle, 53);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.upgrade_misses"), 1);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.L1Cache_Controller.SM_AD.Inv-Ack"), 1);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.L1Cache_Controller.SM_AD.Data-from-Dir(ack>0)"), 1);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.L1Cache_Controller.SM_A.Last-Inv-Ack"), 1);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.misses_2hop"), 1);     /* waited for sharers' acks: */
    CU_ASSERT_EQUAL(stat_of(g, "l1d.misses_3hop"), 1);     /* requester, home, sharers */
    CU_ASSERT_EQUAL(stat_of(g, "l1d.misses_owner_data"), 0);
    rig_free(g);
}

/* Store miss; the directory's Fwd-GetS for the next requester arrives before the owner's data:
 * deferred, then answered in the cycle the data lands (three-hop), with the stored value. */
static void test_three_hop_deferred_forward(void)
{
    Rig *g = rig_new("dir-msi");
    core_op(g, 0, true, B, 0x5555ull);
    run_to(g, 5);
    CU_ASSERT_EQUAL_FATAL(g->net->nsent, 1);
    assert_sent(&g->net->sent[0], DM_GETM, 5, B, 2);        /* home of B: bank 1, endpoint 5 */
    net_msg(g, 5, DM_FWD_GETS, 0, 3, 0, B, 5, 0);
    run_to(g, 10);
    CU_ASSERT_EQUAL(g->net->nsent, 1);                      /* deferred */
    CU_ASSERT_EQUAL(stat_of(g, "l1d.msgs_stalled"), 1);
    CU_ASSERT_TRUE(g->l1->cls->busy(g->l1));
    GString *dump = g_string_new(NULL);
    g->l1->cls->dump(g->l1, dump);
    CU_ASSERT_PTR_NOT_NULL(strstr(dump->str, "line 0x1040: IM_AD, acks 0, request outstanding "
                                             "since cycle 1, 1 core op waiting, deferred: "
                                             "Fwd-GetS from 5\n"));
    g_string_free(dump, TRUE);
    net_msg(g, 10, DM_DATA, DMF_FROM_OWNER, 1, 0, B, 0, 0x77ull);
    run_to(g, 20);
    CU_ASSERT_EQUAL_FATAL(g->core->nresp, 1);
    CU_ASSERT_EQUAL(g->core->resp[0].cycle, 13);
    CU_ASSERT_EQUAL_FATAL(g->net->nsent, 3);
    assert_sent(&g->net->sent[1], DM_DATA, 3, B, 12);       /* to the requester */
    CU_ASSERT_EQUAL(g->net->sent[1].word, 0x5555ull);
    CU_ASSERT_EQUAL(g->net->sent[1].flags, DMF_FROM_OWNER);
    assert_sent(&g->net->sent[2], DM_DATA, 5, B, 12);       /* and to the directory */
    CU_ASSERT_EQUAL(g->net->sent[2].word, 0x5555ull);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.misses_3hop"), 1);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.data_supplied"), 1);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.L1Cache_Controller.M.Fwd-GetS"), 1);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.msgs.Data"), 2);
    CU_ASSERT_FALSE(g->l1->cls->busy(g->l1));
    rig_free(g);
}

/* A stale (broadcast) Inv for a block this cache does not hold: Inv-Ack, no frame taken. */
static void test_stale_inv_without_frame(void)
{
    Rig *g = rig_new("dir-msi");
    net_msg(g, 0, DM_INV, 0, 2, 0, C, 4, 0);
    run_to(g, 5);
    CU_ASSERT_EQUAL_FATAL(g->net->nsent, 1);
    assert_sent(&g->net->sent[0], DM_INV_ACK, 2, C, 2);
    CU_ASSERT_EQUAL(g->net->sent[0].req, 2);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.L1Cache_Controller.I.Inv"), 1);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.invalidated"), 0);
    core_op(g, 10, false, C, 0);                            /* still a cold miss */
    run_to(g, 15);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.misses_cold"), 1);
    rig_free(g);
}

/* Two dirty lines fill set 0; a third block evicts the least recent with PutM (its data) and
 * its load waits for the Put-Ack before it asks for the new block. */
static void test_replacement_waits_for_put_ack(void)
{
    Rig *g = rig_new("dir-msi");
    core_op(g, 0, true, A, 0xaaull);
    net_msg(g, 5, DM_DATA, 0, 1, 0, A, 4, 0);
    core_op(g, 10, true, D, 0xddull);
    net_msg(g, 15, DM_DATA, 0, 1, 0, D, 4, 0);
    run_to(g, 20);
    CU_ASSERT_EQUAL_FATAL(g->core->nresp, 2);
    core_op(g, 20, false, E, 0);
    run_to(g, 30);
    CU_ASSERT_EQUAL_FATAL(g->net->nsent, 3);
    assert_sent(&g->net->sent[2], DM_PUTM, 4, A, 22);       /* A is the least recent */
    CU_ASSERT_EQUAL(g->net->sent[2].word, 0xaaull);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.writebacks"), 1);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.replacements"), 1);
    net_msg(g, 30, DM_PUT_ACK, 0, 1, 0, A, 4, 0);
    run_to(g, 35);
    CU_ASSERT_EQUAL_FATAL(g->net->nsent, 4);
    assert_sent(&g->net->sent[3], DM_GETS, 4, E, 32);       /* only after the Put-Ack (31) */
    CU_ASSERT_TRUE(g->l1->cls->busy(g->l1));                /* the load still waits */
    net_msg(g, 40, DM_DATA, 0, 1, 0, E, 4, 0x1ee);
    run_to(g, 50);
    CU_ASSERT_EQUAL_FATAL(g->core->nresp, 3);
    CU_ASSERT_EQUAL(g->core->resp[2].value, 0x1ee);
    CU_ASSERT_FALSE(g->l1->cls->busy(g->l1));
    rig_free(g);
}

/* With a write-back buffer the victim leaves its frame at once: the GetS goes out in the same
 * cycle as the PutM; a Fwd-GetM for the evicted line still finds it in the buffer (MI_A). */
static void test_writeback_buffer(void)
{
    rig_wbuf = 1;
    Rig *g = rig_new("dir-msi");
    rig_wbuf = 0;
    core_op(g, 0, true, A, 0xaaull);
    net_msg(g, 5, DM_DATA, 0, 1, 0, A, 4, 0);
    core_op(g, 10, true, D, 0xddull);
    net_msg(g, 15, DM_DATA, 0, 1, 0, D, 4, 0);
    run_to(g, 20);
    core_op(g, 20, false, E, 0);
    run_to(g, 30);
    CU_ASSERT_EQUAL_FATAL(g->net->nsent, 4);
    assert_sent(&g->net->sent[2], DM_PUTM, 4, A, 22);
    assert_sent(&g->net->sent[3], DM_GETS, 4, E, 22);       /* no wait for the Put-Ack */
    net_msg(g, 30, DM_FWD_GETM, 0, 2, 0, A, 4, 0);          /* raced the PutM at the home */
    run_to(g, 35);
    CU_ASSERT_EQUAL_FATAL(g->net->nsent, 5);
    assert_sent(&g->net->sent[4], DM_DATA, 2, A, 32);       /* MI_A supplies from the buffer */
    CU_ASSERT_EQUAL(g->net->sent[4].word, 0xaaull);
    net_msg(g, 35, DM_PUT_ACK, 0, 1, 0, A, 4, 0);           /* II_A -> I: the entry is free */
    net_msg(g, 36, DM_DATA, 0, 1, 0, E, 4, 0x1ee);
    run_to(g, 45);
    CU_ASSERT_EQUAL_FATAL(g->core->nresp, 3);
    CU_ASSERT_EQUAL(g->core->resp[2].value, 0x1ee);
    CU_ASSERT_FALSE(g->l1->cls->busy(g->l1));
    rig_free(g);
}

/* MESI: the directory made this cache the owner (Exclusive-Data in flight) and forwarded the next
 * GetS to it: the Fwd-GetS waits for the data. A stale Inv behind it on the forward network waits
 * too (point-to-point order), although IS_D alone could take it. */
static void test_mesi_forward_order(void)
{
    Rig *g = rig_new("dir-mesi");
    core_op(g, 0, false, A, 0);
    net_msg(g, 4, DM_FWD_GETS, 0, 2, 0, A, 4, 0);
    net_msg(g, 5, DM_INV, 0, 3, 0, A, 4, 0);
    run_to(g, 10);
    CU_ASSERT_EQUAL(g->net->nsent, 1);                      /* GetS only */
    CU_ASSERT_EQUAL(stat_of(g, "l1d.msgs_stalled"), 2);
    net_msg(g, 10, DM_DATA, DMF_EXCL, 1, 0, A, 4, 0x42);
    run_to(g, 20);
    CU_ASSERT_EQUAL_FATAL(g->core->nresp, 1);
    CU_ASSERT_EQUAL(g->core->resp[0].value, 0x42);
    CU_ASSERT_EQUAL_FATAL(g->net->nsent, 4);
    assert_sent(&g->net->sent[1], DM_DATA, 2, A, 12);       /* E + Fwd-GetS: to the requester */
    assert_sent(&g->net->sent[2], DM_DATA, 4, A, 12);       /* and the directory */
    assert_sent(&g->net->sent[3], DM_INV_ACK, 3, A, 12);    /* S + Inv, in order */
    CU_ASSERT_EQUAL(stat_of(g, "l1d.L1Cache_Controller.IS_D.Exclusive-Data-from-Dir"), 1);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.L1Cache_Controller.E.Fwd-GetS"), 1);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.L1Cache_Controller.S.Inv"), 1);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.L1Cache_Controller.IS_D.Inv"), 0);
    CU_ASSERT_EQUAL(stat_of(g, "l1d.invalidated"), 1);
    rig_free(g);
}

/* A (state, event) pair without a row aborts, naming component, state and event. */
static void test_missing_row_aborts(void)
{
    char path[] = "/tmp/archsim-dircache-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_TRUE_FATAL(fd >= 0);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd, 2);
        Rig *g = rig_new("dir-msi");
        net_msg(g, 0, DM_PUT_ACK, 0, 1, 0, A, 4, 0);        /* I + Put-Ack: no row */
        run_to(g, 10);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CU_ASSERT_TRUE(WIFSIGNALED(status));
    char *text = NULL;
    g_file_get_contents(path, &text, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL(text);
    if (text)
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "l1d: cycle 1: block 0x1000: protocol dir-msi has no "
                                            "transition for state I, event Put-Ack"));
    g_free(text);
    close(fd);
    unlink(path);
}

/* ---- the whole machine ------------------------------------------------------------------ */
static SystemRun *build_yaml(const char *yaml, int64_t seed, GError **e)
{
    CfgNode *root = cfg_load_string("t.yaml", yaml, NULL, e);
    if (!root)
        return NULL;
    return system_build(root, seed, NULL, NULL, e);
}

/* The loads a dir-cache performs are checked: a poisoned reference memory must be reported (the
 * random tester of tests/unit/test_dirsys.c is not a test that cannot fail). */
static void test_tester_catches_corruption(void)
{
    GError *e = NULL;
    SystemRun *r = build_yaml("system:\n  type: dirsmp\n  cores: 2\n"
                              "core:\n  type: random-tester\n  ops: 200\nnoc:\n  topology: ring\n",
                              1, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    for (uint64_t line = 0; line < 4; line++)
        for (uint64_t off = 0; off < 64; off += 8)
            oracle_store(mem_oracle(&r->sim), 7, 0x40000 + line * 4096 + off, 8, 0xdeadbeefull);
    CU_ASSERT_FALSE(system_run(r, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CHECK);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "data-value violation"));
    g_clear_error(&e);
    system_free(r);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("dircache", NULL, NULL);
    CU_add_test(s, "two-hop miss, hit, Inv-Ack before the data", test_two_hop_and_acks);
    CU_add_test(s, "three-hop miss with a deferred Fwd-GetS", test_three_hop_deferred_forward);
    CU_add_test(s, "stale Inv acked without a frame", test_stale_inv_without_frame);
    CU_add_test(s, "replacement: PutM, the op waits for Put-Ack",
                test_replacement_waits_for_put_ack);
    CU_add_test(s, "write-back buffer: the miss does not wait for the Put-Ack",
                test_writeback_buffer);
    CU_add_test(s, "MESI: Fwd-GetS races Exclusive-Data; forward order kept",
                test_mesi_forward_order);
    CU_add_test(s, "missing row aborts with state and event", test_missing_row_aborts);
    CU_add_test(s, "the tester catches a corrupted value", test_tester_catches_corruption);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
