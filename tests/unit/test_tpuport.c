/* test_tpuport.c: the TPU as a component with a memory port (models/tpu/tpusys.c, tpumem.c;
 * docs/tpu.md, "The memory port"). Every recorded SCALE-Sim run (tests/tpu/scalesim/ref, CALC
 * and USER) is run as a machine, a tpu-array whose fills and drains go out as messages to a
 * tpu-memory, and its reports must equal SCALE-Sim's byte for byte, as `archsim tpu
 * --scalesim-compat`'s do (test_tpu.c). Then a mock memory that answers after D cycles gives
 * the exact stalls the fold schedule implies, the bytes on the port are the layer's DRAM
 * traffic, and the link checks refuse what cannot work. */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../../models/tpu/tpu.h"
#include "../../sim/component.h"
#include "../../sim/error.h"
#include "../../models/mem/memmsg.h"

#define REF "tests/tpu/scalesim"

static char *slurp(const char *path)
{
    char *s = NULL;
    if (!g_file_get_contents(path, &s, NULL, NULL))
        return NULL;
    return s;
}

static void set(Component *c, const char *key, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void set(Component *c, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *v = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    GError *e = NULL;
    bool ok = sim_component_set_param(c, key, v, &e);
    if (!ok)
        fprintf(stderr, "\n%s=%s: %s\n", key, v, e->message);
    CU_ASSERT_TRUE_FATAL(ok);
    g_free(v);
}

/* A tpu-array named "tpu" with the .cfg's architecture and the topology. */
static Component *array_new(Sim *sim, const TpuArch *a, const char *topo, bool gemm)
{
    static const char *const df[] = { "os", "ws", "is" };
    GError *e = NULL;
    Component *c = sim_component_new(sim, &tpu_array_class, "tpu", &sim->sys_clk, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    set(c, "topology", "%s", topo);
    set(c, "input", "%s", gemm ? "gemm" : "conv");
    set(c, "rows", "%" PRIu64, a->rows);
    set(c, "cols", "%" PRIu64, a->cols);
    set(c, "ifmap_sram", "%" PRIu64 "KiB", a->ifmap_kb);
    set(c, "filter_sram", "%" PRIu64 "KiB", a->filter_kb);
    set(c, "ofmap_sram", "%" PRIu64 "KiB", a->ofmap_kb);
    set(c, "ifmap_offset", "%" PRId64, a->ifmap_offset);
    set(c, "filter_offset", "%" PRId64, a->filter_offset);
    set(c, "ofmap_offset", "%" PRId64, a->ofmap_offset);
    set(c, "dataflow", "%s", df[a->dataflow]);
    set(c, "interface", "%s", a->bw_mode == TPU_BW_USER ? "user" : "calc");
    if (a->bandwidth)                         /* CALC .cfg files may say none */
        set(c, "bandwidth", "%" PRIu64, a->bandwidth);
    set(c, "scalesim_compat", "true");
    return c;
}

/* Builds, checks, realizes and runs the machine; false (with *e) if a step failed. */
static bool machine_run(Sim *sim, Component *tpu, Component *mem, GError **e)
{
    if (!sim_connect(tpu, "mem", mem, "port", 1, e) || !sim_check_links(sim, NULL, NULL, e) ||
        !sim_realize_all(sim, e))
        return false;
    sim_run(&sim->eng, TICK_MAX);
    return sim->error == NULL;
}

static const char *const reports[] = { "COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv",
                                       "DETAILED_ACCESS_REPORT.csv" };

/* One recorded run through the port; returns the reports that differ (-1: it failed). */
static int port_run(const char *cfg, const char *rdir, const char *topo, const char *out)
{
    TpuArch a;
    GError *e = NULL;
    if (!tpu_arch_load(cfg, &a, &e)) {
        fprintf(stderr, "\n%s\n", e->message);
        g_error_free(e);
        return -1;
    }
    char *tcsv = g_strdup_printf(REF "/topologies/%s.csv", topo);
    Sim sim;
    sim_init(&sim, 1, 1000000000ull);
    Component *t = array_new(&sim, &a, tcsv, strcmp(topo, "gemm") == 0);
    Component *m = sim_component_new(&sim, &tpu_memory_class, "memory", &sim.sys_clk, NULL, &e);
    int differ = -1;
    if (m && machine_run(&sim, t, m, &e) && t->cls->write_outputs(t, out, &e)) {
        differ = 0;
        for (int k = 0; k < 3; k++) {
            char *want_p = g_build_filename(rdir, topo, reports[k], NULL);
            char *got_p = g_build_filename(out, reports[k], NULL);
            char *want = slurp(want_p), *got = slurp(got_p);
            if (!want || !got || strcmp(want, got) != 0) {
                differ++;
                fprintf(stderr, "\n%s differs from SCALE-Sim's %s\n", got_p, want_p);
            }
            g_unlink(got_p);
            g_free(want);
            g_free(got);
            g_free(want_p);
            g_free(got_p);
        }
        char *roof = g_build_filename(out, "ROOFLINE.csv", NULL);
        g_unlink(roof);
        g_free(roof);
    } else {
        fprintf(stderr, "\n%s %s: %s\n", cfg, topo, e ? e->message : sim.error->message);
    }
    g_clear_error(&e);
    sim_destroy(&sim);
    g_free(tcsv);
    tpu_arch_clear(&a);
    return differ;
}

static void test_recorded_runs_through_the_port(void)
{
    GDir *d = g_dir_open(REF "/ref", 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    int runs = 0, bad = 0;
    const char *run;
    char *tmp = g_dir_make_tmp("tpuport-XXXXXX", NULL);
    while ((run = g_dir_read_name(d))) {
        char *cfg = g_strdup_printf(REF "/configs/%s.cfg", run);
        char *rdir = g_strdup_printf(REF "/ref/%s", run);
        GDir *td = g_file_test(cfg, G_FILE_TEST_EXISTS) ? g_dir_open(rdir, 0, NULL) : NULL;
        const char *topo;
        while (td && (topo = g_dir_read_name(td))) {
            if (strcmp(topo, "trace_head") == 0)
                continue;
            char *out = g_build_filename(tmp, run, topo, NULL);
            g_mkdir_with_parents(out, 0755);
            bad += port_run(cfg, rdir, topo, out) != 0;
            runs++;
            g_rmdir(out);
            char *rd = g_build_filename(tmp, run, NULL);
            g_rmdir(rd);
            g_free(rd);
            g_free(out);
        }
        if (td)
            g_dir_close(td);
        g_free(cfg);
        g_free(rdir);
    }
    g_dir_close(d);
    g_rmdir(tmp);
    g_free(tmp);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_TRUE(runs >= 30);
}

/* ---- a mock memory: answers every request `delay` cycles after it arrives ----------------- */
typedef struct {
    Component base;
    uint64_t delay;
    uint64_t reads, writes, bytes_read, bytes_written;
    uint64_t max_size;
} Mock;

static uint64_t mock_delay;

static bool mock_realize(Component *c, GError **error)
{
    (void)error;
    ((Mock *)c)->delay = mock_delay;
    return true;
}

static void mock_recv(Component *c, Port *port, Msg *m)
{
    Mock *k = (Mock *)c;
    if (m->size > k->max_size)
        k->max_size = m->size;
    if (m->cmd == MSG_READ_REQ) {
        k->reads++;
        k->bytes_read += m->size;
        m->cmd = MSG_READ_RESP;
    } else {
        CU_ASSERT_EQUAL(m->cmd, MSG_WRITE_REQ);
        k->writes++;
        k->bytes_written += m->size;
        m->cmd = MSG_WRITE_RESP;
    }
    sim_port_send(c, port, m, k->delay);
}

static const PortSpec mock_ports[] = {
    { .name = "port", .role = PORT_RESPONDER, .doc = "requests" },
    PORT_END,
};
static const ParamSpec mock_params[] = { PARAM_END };
static const ComponentClass mock_class = { .name = "mock-memory", .size = sizeof(Mock),
                                           .params = mock_params, .ports = mock_ports,
                                           .realize = mock_realize, .recv = mock_recv };

/* A requester of any class other than tpu-array, to be refused by tpu-memory. */
static const PortSpec req_ports[] = {
    { .name = "mem", .role = PORT_REQUESTER, .doc = "requests" },
    PORT_END,
};
static const ComponentClass req_class = { .name = "mock-core", .size = sizeof(Component),
                                          .params = mock_params, .ports = req_ports };

static const TpuArch tiny = { .rows = 8, .cols = 8, .ifmap_kb = 2, .filter_kb = 2, .ofmap_kb = 1,
                              .ifmap_offset = 0, .filter_offset = 10000000,
                              .ofmap_offset = 20000000, .dataflow = TPU_OS,
                              .bw_mode = TPU_BW_CALC, .bandwidth = 10 };

/* Runs `topo` (gemm) on tiny against the mock with `delay`, transfer `xfer` bytes. */
static void mock_run(const char *topo, uint64_t delay, uint64_t xfer, Sim *sim, Component **tpu,
                     Mock **mock)
{
    sim_init(sim, 1, 1000000000ull);
    mock_delay = delay;
    *tpu = array_new(sim, &tiny, topo, true);
    set(*tpu, "scalesim_compat", "false");
    set(*tpu, "transfer", "%" PRIu64 "B", xfer);
    GError *e = NULL;
    *mock = (Mock *)sim_component_new(sim, &mock_class, "memory", &sim->sys_clk, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*mock);
    bool ok = machine_run(sim, *tpu, &(*mock)->base, &e);
    if (!ok)
        fprintf(stderr, "\n%s\n", e->message);
    CU_ASSERT_TRUE_FATAL(ok);
}

static double stat_of(Component *c, const char *name)
{
    double v = -1;
    CU_ASSERT_TRUE(sim_component_stat(c, name, &v));
    return v;
}

static uint64_t extra_stat(Sim *sim, Component *c, const char *name)
{
    StatSet set;
    stats_init(&set);
    c->cls->extra_stats(c, &set);
    uint64_t v = UINT64_MAX;
    for (guint i = 0; i < set.entries->len; i++) {
        const StatEntry *s = &g_array_index(set.entries, StatEntry, i);
        if (strcmp(s->name, name) == 0)
            v = s->u;
    }
    stats_clear(&set);
    (void)sim;
    return v;
}

/* One fold (an 8 x 8 GEMM on 8 x 8 PEs): the fill goes out at cycle 0 and is answered at
 * D + 1, so fold 0 starts D cycles late; its drain goes out in its last cycle and is
 * acknowledged D cycles after the fold's end. The layer takes its L cycles plus 2 D. */
static void test_one_fold_stalls(void)
{
    char *dir = g_dir_make_tmp("tpuport-XXXXXX", NULL);
    char *topo = g_build_filename(dir, "one.csv", NULL);
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(topo, "Layer, M, N, K,\nG1, 8, 8, 16,\n", -1, NULL));
    uint64_t len = 0;
    for (uint64_t d = 0; d <= 40; d += 20) {
        Sim sim;
        Component *t;
        Mock *m;
        mock_run(topo, d, 64, &sim, &t, &m);
        CU_ASSERT_EQUAL(stat_of(t, "layers"), 1);
        CU_ASSERT_EQUAL(stat_of(t, "folds"), 1);
        uint64_t cycles = (uint64_t)stat_of(t, "cycles");
        if (d == 0)
            len = cycles;
        CU_ASSERT_EQUAL(cycles, len + 2 * d);
        CU_ASSERT_EQUAL(stat_of(t, "stall_cycles"), 2 * d);
        CU_ASSERT_EQUAL(extra_stat(&sim, t, "tpu.mem.stall_cycles"), 2 * d);
        /* the run ends at the layer's end: its one tick before compute, then the cycles */
        CU_ASSERT_EQUAL(sim_component_cycle(t), 1 + len + 2 * d);
        /* the bytes on the port are the layer's DRAM traffic, in messages of at most 64 B */
        CU_ASSERT_EQUAL((double)m->bytes_read, stat_of(t, "dram_reads"));
        CU_ASSERT_EQUAL((double)m->bytes_written, stat_of(t, "dram_writes"));
        CU_ASSERT_EQUAL(m->bytes_read, 8 * 16 + 16 * 8);   /* M x K + K x N, read once */
        CU_ASSERT_EQUAL(m->bytes_written, 8 * 8);
        CU_ASSERT_EQUAL(m->max_size, 64);
        CU_ASSERT_EQUAL(extra_stat(&sim, t, "tpu.mem.requests"), m->reads + m->writes);
        CU_ASSERT_EQUAL(m->reads, 4);
        CU_ASSERT_EQUAL(m->writes, 1);
        sim_destroy(&sim);
    }
    g_unlink(topo);
    g_rmdir(dir);
    g_free(topo);
    g_free(dir);
}

/* Many folds against a slow memory: every byte still crosses the port once, the stalls are in
 * the cycles, and a memory that answers within the cycle adds none. */
static void test_many_folds_traffic(void)
{
    char *dir = g_dir_make_tmp("tpuport-XXXXXX", NULL);
    char *topo = g_build_filename(dir, "many.csv", NULL);
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(topo, "Layer, M, N, K,\nG1, 40, 24, 30,\n"
                                             "G2, 17, 9, 100,\n", -1, NULL));
    uint64_t base = 0;
    for (uint64_t d = 0; d <= 300; d += 300) {
        Sim sim;
        Component *t;
        Mock *m;
        mock_run(topo, d, 16, &sim, &t, &m);
        CU_ASSERT_EQUAL(stat_of(t, "layers"), 2);
        CU_ASSERT_TRUE(stat_of(t, "folds") > 2);
        CU_ASSERT_EQUAL((double)m->bytes_read, stat_of(t, "dram_reads"));
        CU_ASSERT_EQUAL((double)m->bytes_written, stat_of(t, "dram_writes"));
        CU_ASSERT_TRUE(m->max_size <= 16);
        uint64_t stalls = extra_stat(&sim, t, "tpu.mem.stall_cycles");
        if (d == 0) {
            base = (uint64_t)stat_of(t, "cycles");
            CU_ASSERT_EQUAL(stalls, 0);
        } else {
            CU_ASSERT_TRUE(stalls >= 2 * 2 * d);   /* at least each layer's first fill, last drain */
            CU_ASSERT_EQUAL((uint64_t)stat_of(t, "cycles"), base + stalls);
        }
        sim_destroy(&sim);
    }
    g_unlink(topo);
    g_rmdir(dir);
    g_free(topo);
    g_free(dir);
}

/* The link checks: a timed memory takes no SCALE-Sim USER interface and no unbounded
 * messages; tpu-memory answers only a tpu-array. */
static void test_link_checks(void)
{
    char *dir = g_dir_make_tmp("tpuport-XXXXXX", NULL);
    char *topo = g_build_filename(dir, "one.csv", NULL);
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(topo, "Layer, M, N, K,\nG1, 8, 8, 16,\n", -1, NULL));
    const struct {
        const char *key, *value, *want;
    } cases[] = {
        { "interface", "user", "tpu.interface: user is SCALE-Sim's bandwidth model of tpu-memory, "
          "but the mem port leads to memory (class mock-memory), which times the traffic itself: "
          "use interface: calc" },
        { "transfer", "0", "tpu.transfer: 0 bytes per message, but memory (class mock-memory) "
          "takes 1 to 1073741824 bytes: set transfer to at most 1073741824B" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        Sim sim;
        sim_init(&sim, 1, 1000000000ull);
        Component *t = array_new(&sim, &tiny, topo, true);
        set(t, "transfer", "64B");
        set(t, cases[i].key, "%s", cases[i].value);
        GError *e = NULL;
        Component *m = sim_component_new(&sim, &mock_class, "memory", &sim.sys_clk, NULL, &e);
        CU_ASSERT_FALSE(machine_run(&sim, t, m, &e));
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CONFIG);
        if (!strstr(e->message, cases[i].want))
            fprintf(stderr, "\ngot: %s\nwant: %s\n", e->message, cases[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(e->message, cases[i].want));
        g_error_free(e);
        sim_destroy(&sim);
    }
    Sim sim;
    sim_init(&sim, 1, 1000000000ull);
    GError *e = NULL;
    Component *r = sim_component_new(&sim, &req_class, "core", &sim.sys_clk, NULL, &e);
    Component *m = sim_component_new(&sim, &tpu_memory_class, "memory", &sim.sys_clk, NULL, &e);
    CU_ASSERT_TRUE_FATAL(sim_connect(r, "mem", m, "port", 1, &e));
    CU_ASSERT_FALSE(sim_check_links(&sim, NULL, NULL, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "memory: tpu-memory answers only a tpu-array's "
                                  "mem port (its timing is the array's SCALE-Sim interface "
                                  "model), not core (class mock-core): link core to a dram "
                                  "instead"));
    g_clear_error(&e);
    sim_destroy(&sim);
    /* and the port must be linked */
    sim_init(&sim, 1, 1000000000ull);
    array_new(&sim, &tiny, topo, true);
    CU_ASSERT_FALSE(sim_check_links(&sim, NULL, NULL, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "tpu.mem (requester port) is never linked"));
    g_error_free(e);
    sim_destroy(&sim);
    g_unlink(topo);
    g_rmdir(dir);
    g_free(topo);
    g_free(dir);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return CU_get_error();
    CU_pSuite s = CU_add_suite("tpuport", NULL, NULL);
    CU_add_test(s, "recorded SCALE-Sim runs through the port equal SCALE-Sim's reports",
                test_recorded_runs_through_the_port);
    CU_add_test(s, "one fold: the stalls a slow memory gives", test_one_fold_stalls);
    CU_add_test(s, "many folds: every byte once, stalls in the cycles", test_many_folds_traffic);
    CU_add_test(s, "link checks", test_link_checks);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
