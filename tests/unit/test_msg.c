/* test_msg.c: the message header and the family payloads (sim/msg.h, models/msgfam.h,
 * docs/models.md "Messages: header and payloads"): the header stays small, every family's
 * payload fits the inline area, command ids carry their family, the registry names every
 * command, payloads come zeroed from the pool, and a family's shared state lives in its Sim.ext
 * slot (the memory family's oracle and HTM count), freed with the simulation. */
#define ARCHSIM_MSG_CHECK 1   /* this file's accessors check the family (sim/msg.h) */

#include <CUnit/Basic.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../models/bus/busmsg.h"
#include "../../models/cache/htm.h"
#include "../../models/dir/dirmsg.h"
#include "../../models/gpu/gpumsg.h"
#include "../../models/mem/memmsg.h"
#include "../../models/rdu/rdu.h"
#include "../../models/mem/oracle.h"
#include "../../models/msgfam.h"
#include "../../models/sync/syncmsg.h"
#include "../../sim/registry.h"

/* The header: 88 bytes (its delivery event is 48: the timing wheel's two links, sim/engine.h),
 * the payload area 32, one message 120 bytes (a larger message costs cache misses on every
 * send). */
static void test_msg_size(void)
{
    CU_ASSERT_EQUAL(sizeof(SimEvent), 48);
    CU_ASSERT_EQUAL(offsetof(Msg, payload), 88);
    CU_ASSERT_EQUAL(sizeof(Msg), 120);
    CU_ASSERT_EQUAL(offsetof(Msg, payload) % 8, 0);
    CU_ASSERT_TRUE(sizeof(MemPayload) <= MSG_PAYLOAD_BYTES);
    CU_ASSERT_TRUE(sizeof(BusPayload) <= MSG_PAYLOAD_BYTES);
    CU_ASSERT_TRUE(sizeof(SyncPayload) <= MSG_PAYLOAD_BYTES);
    CU_ASSERT_TRUE(sizeof(DirPayload) <= MSG_PAYLOAD_BYTES);
}

/* Ids are (family << 8) | command: no two commands of all families share one, each names its
 * family, and the registry's table has every family at its id with a name for every command. */
static void test_cmd_ids(void)
{
    CU_ASSERT_EQUAL(MSG_CMD_FAMILY(MSG_READ_REQ), MSG_FAM_MEM);
    CU_ASSERT_EQUAL(MSG_CMD_NUMBER(MSG_WRITEBACK), MEM_WRITEBACK);
    CU_ASSERT_EQUAL(MSG_CMD_FAMILY(MSG_TX_ABORTED), MSG_FAM_HTM);
    CU_ASSERT_EQUAL(MSG_CMD_FAMILY(MSG_BUS_SNOOP), MSG_FAM_BUS);
    CU_ASSERT_EQUAL(MSG_CMD_FAMILY(MSG_SYNC_LOCKWORD), MSG_FAM_SYNC);
    CU_ASSERT_EQUAL(MSG_CMD_FAMILY(MSG_DIR), MSG_FAM_DIR);
    CU_ASSERT_EQUAL(MSG_CMD_FAMILY(MSG_GPU_CTA_DONE), MSG_FAM_GPU);
    CU_ASSERT_NOT_EQUAL(MSG_READ_REQ, 0);                 /* 0 is "not set" */
    CU_ASSERT_EQUAL(archsim_msg_family_count, MSG_FAM_COUNT);
    GHashTable *names = g_hash_table_new(g_str_hash, g_str_equal);
    unsigned families = 0;
    for (unsigned f = 0; f < archsim_msg_family_count; f++) {
        const MsgFamily *fam = archsim_msg_families[f];
        if (fam == NULL)
            continue;
        families++;
        CU_ASSERT_EQUAL(fam->id, f);
        CU_ASSERT_TRUE(fam->payload <= MSG_PAYLOAD_BYTES);
        CU_ASSERT_TRUE(fam->ncmds >= 1 && fam->ncmds <= 256);
        CU_ASSERT_FALSE(g_hash_table_contains(names, fam->name));
        g_hash_table_add(names, (gpointer)fam->name);
        for (unsigned c = 0; c < fam->ncmds; c++) {
            uint16_t id = MSG_CMD(f, c);
            CU_ASSERT_PTR_EQUAL(registry_msg_family(id), fam);
            CU_ASSERT_PTR_NOT_NULL(registry_msg_cmd_name(id));
        }
        CU_ASSERT_PTR_NULL(registry_msg_cmd_name(MSG_CMD(f, fam->ncmds)));
    }
    CU_ASSERT_EQUAL(families, 8);     /* mem, htm, bus, sync, dir, net, gpu, rdu; the test family is ours */
    CU_ASSERT_PTR_NULL(archsim_msg_families[MSG_FAM_NONE]);
    CU_ASSERT_PTR_NULL(archsim_msg_families[MSG_FAM_TEST]);
    CU_ASSERT_STRING_EQUAL(MSG_NAME(MSG_READ_RESP), "read_resp");
    CU_ASSERT_STRING_EQUAL(MSG_NAME(MSG_BUS_DATA), "data");
    CU_ASSERT_STRING_EQUAL(MSG_NAME(MSG_TX_BEGIN), "tx_begin");
    CU_ASSERT_STRING_EQUAL(MSG_NAME(MSG_GPU_CTA_LAUNCH), "cta_launch");
    CU_ASSERT_STRING_EQUAL(MSG_NAME(MSG_RDU_KERNEL_LAUNCH), "kernel_launch");
    CU_ASSERT_STRING_EQUAL(MSG_NAME(MSG_CMD(200, 0)), "?");
    g_hash_table_unref(names);
}

/* A payload written through one accessor is what the family's fields say, and the pool hands
 * out every message with its payload zeroed (a reused message keeps nothing of its last use). */
static void test_payload_zeroed_and_typed(void)
{
    Sim sim;
    sim_init(&sim, 1, 1000000000ull);
    Msg *m = sim_msg_alloc(&sim);
    m->cmd = MSG_WRITE_REQ;
    m->flags = MSG_RMW_FLAGS(MSG_RMW_CMPXCHG);
    MemPayload *p = mem_msg(m);
    p->addr = 0x40;
    p->tag = 9;
    p->value = 5;
    p->arg = 4;
    CU_ASSERT_EQUAL(mem_msg_c(m)->arg, 4);
    CU_ASSERT_EQUAL(MSG_RMW_OP(m->flags), MSG_RMW_CMPXCHG);
    sim_msg_free(&sim, m);
    Msg *n = sim_msg_alloc(&sim);
    CU_ASSERT_PTR_EQUAL(n, m);                     /* the free list's head */
    static const unsigned char zero[MSG_PAYLOAD_BYTES];
    CU_ASSERT_EQUAL(memcmp(n->payload, zero, sizeof zero), 0);
    CU_ASSERT_EQUAL(n->cmd, 0);
    n->cmd = MSG_DIR;
    dir_msg(n)->addr = 0x80;
    dir_msg_set(n, 3, DMF_EXCL, 7, -2);
    noc_msg_route(n, 12, NOC_VNET_RESPONSE);
    noc_msg_set_src(n, 5);
    CU_ASSERT_EQUAL(dir_msg_type(n), 3);
    CU_ASSERT_EQUAL(dir_msg_flags(n), DMF_EXCL);
    CU_ASSERT_EQUAL(dir_msg_req(n), 7);
    CU_ASSERT_EQUAL(dir_msg_acks(n), -2);
    CU_ASSERT_EQUAL(noc_msg_dst(n), 12);
    CU_ASSERT_EQUAL(noc_msg_vnet(n), NOC_VNET_RESPONSE);
    CU_ASSERT_EQUAL(noc_msg_src(n), 5);
    CU_ASSERT_EQUAL(dir_msg(n)->addr, 0x80);      /* the route did not touch the protocol's */
    sim_msg_free(&sim, n);
    sim_destroy(&sim);
}

/* sim_msg_reuse gives what sim_msg_free and then sim_msg_alloc give: the same message, every
 * byte as a fresh one's, the free list as it was. */
static void test_msg_reuse(void)
{
    Sim sim;
    sim_init(&sim, 1, 1000000000ull);
    Msg *other = sim_msg_alloc(&sim), *m = sim_msg_alloc(&sim);
    unsigned char bytes[2][sizeof(Msg)];
    for (int round = 0; round < 2; round++) {
        /* a message as a receiver holds it: every byte written, not scheduled, owning no data */
        memset(m, 0xa5, sizeof *m);
        m->ev.link.next = m->ev.link.prev = NULL;
        m->flags = MSG_F_RMW;
        Msg *head = sim.free_msgs, *r;
        if (round == 0) {
            sim_msg_free(&sim, m);
            r = sim_msg_alloc(&sim);
        } else {
            r = sim_msg_reuse(m);
        }
        CU_ASSERT_PTR_EQUAL(r, m);
        CU_ASSERT_PTR_EQUAL(sim.free_msgs, head);
        memcpy(bytes[round], r, sizeof *r);
    }
    CU_ASSERT_EQUAL(memcmp(bytes[0], bytes[1], sizeof(Msg)), 0);
    static const unsigned char zero[MSG_PAYLOAD_BYTES];
    CU_ASSERT_EQUAL(memcmp(m->payload, zero, sizeof zero), 0);
    CU_ASSERT_EQUAL(m->cmd, 0);
    CU_ASSERT_EQUAL(m->flags, 0);
    CU_ASSERT_PTR_EQUAL(m->ev.fn, sim_msg_deliver);
    CU_ASSERT_PTR_EQUAL(m->ev.ctx, m);
    CU_ASSERT_EQUAL(m->ev.heap_idx, -1);
    sim_msg_free(&sim, other);
    sim_msg_free(&sim, m);
    sim_destroy(&sim);
}

/* With ARCHSIM_MSG_CHECK, reading a message through another family's accessor is a bug that
 * stops the run (g_error), while the right accessor, or any before cmd is set, passes. */
static void test_family_check(void)
{
    Sim sim;
    sim_init(&sim, 1, 1000000000ull);
    Msg *m = sim_msg_alloc(&sim);
    mem_msg(m)->addr = 1;                 /* cmd not set yet: any accessor */
    m->cmd = MSG_BUS_DATA;
    bus_msg(m)->kind = 1;
    m->cmd = MSG_TX_END;
    mem_msg(m)->value = 1;                /* HTM messages carry a MemPayload */
    m->cmd = MSG_BUS_DATA;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit none = { 0, 0 };
        setrlimit(RLIMIT_CORE, &none);    /* no core file, no message in the test log */
        if (freopen("/dev/null", "w", stderr) == NULL)
            _exit(2);
        (void)mem_msg(m)->addr;           /* a bus message as a memory one: must abort */
        _exit(0);
    }
    int status = 0;
    CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_TRUE(WIFSIGNALED(status));
    sim_msg_free(&sim, m);
    sim_destroy(&sim);
}

/* The memory family's shared state: created on first use in its slot, the oracle freed by
 * sim_destroy (run under valgrind or ASan, a leak here shows). */
static int freed;
static void count_free(void *p)
{
    g_free(p);
    freed++;
}

static void test_ext_slots(void)
{
    Sim sim;
    sim_init(&sim, 1, 1000000000ull);
    CU_ASSERT_PTR_NULL(mem_oracle(&sim));
    CU_ASSERT_PTR_NULL(sim_ext(&sim, MSG_FAM_MEM));
    MemShared *s = mem_shared(&sim);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_PTR_EQUAL(sim_ext(&sim, MSG_FAM_MEM), s);
    CU_ASSERT_PTR_EQUAL(mem_shared(&sim), s);       /* one per run */
    CU_ASSERT_EQUAL(s->htm_nackers, 0);
    s->oracle = oracle_new(64, true);
    CU_ASSERT_PTR_EQUAL(mem_oracle(&sim), s->oracle);
    sim_ext_set(&sim, MSG_FAM_TEST, g_new0(int, 1), count_free);
    CU_ASSERT_PTR_NULL(sim_ext(&sim, SIM_EXT_SLOTS));  /* out of range: none */
    freed = 0;
    sim_destroy(&sim);
    CU_ASSERT_EQUAL(freed, 1);
}

/* The source of a message is its destination's peer: the port it was sent from. */
static const PortSpec two_ports[] = { { .name = "out", .role = PORT_REQUESTER, .doc = "" },
                                      { .name = "in", .role = PORT_RESPONDER, .doc = "" },
                                      PORT_END };
typedef struct {
    Component base;
    int dummy;
    Port *got_from;
} Node;
static void node_recv(Component *c, Port *p, Msg *m)
{
    (void)p;
    ((Node *)c)->got_from = sim_msg_src(m);
    sim_msg_free(c->sim, m);
}
static const ComponentClass node_class = { .name = "node", .doc = "", .size = sizeof(Node),
                                           .params_offset = offsetof(Node, dummy),
                                           .ports = two_ports, .recv = node_recv };

static void test_msg_src(void)
{
    Sim sim;
    sim_init(&sim, 1, 1000000000ull);
    Component *a = sim_component_new(&sim, &node_class, "a", &sim.sys_clk, NULL, NULL);
    Component *b = sim_component_new(&sim, &node_class, "b", &sim.sys_clk, NULL, NULL);
    CU_ASSERT_TRUE_FATAL(a != NULL && b != NULL);
    CU_ASSERT_TRUE(sim_connect(a, "out", b, "in", 1000, NULL));
    CU_ASSERT_TRUE(sim_realize_all(&sim, NULL));
    Msg *m = sim_msg_alloc(&sim);
    m->cmd = MSG_CMD(MSG_FAM_TEST, 0);
    sim_port_send(a, sim_port(a, "out", 0), m, 0);
    sim_run(&sim.eng, 10000);
    CU_ASSERT_PTR_EQUAL(((Node *)b)->got_from, sim_port(a, "out", 0));
    sim_destroy(&sim);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("msg", NULL, NULL);
    CU_add_test(s, "header and payload sizes", test_msg_size);
    CU_add_test(s, "command ids per family, names from the registry", test_cmd_ids);
    CU_add_test(s, "payloads: zeroed from the pool, typed fields", test_payload_zeroed_and_typed);
    CU_add_test(s, "a received message reused: as freed and allocated again", test_msg_reuse);
    CU_add_test(s, "payload accessors check the family (ARCHSIM_MSG_CHECK)", test_family_check);
    CU_add_test(s, "Sim.ext: the memory family's shared state", test_ext_slots);
    CU_add_test(s, "the source of a message", test_msg_src);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
