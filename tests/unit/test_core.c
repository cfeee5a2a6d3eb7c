/* test_core.c: the trace-driven core on the uniproc machine, built from YAML like a real run:
 * the fixed-CPI model gives IPC = 1/cpi on L1-resident code, loads see exactly the L1D hit
 * latency, stores retire through the store buffer without stalling, line-crossing references
 * split, max_insts stops, and a corrupt trace fails the run with exit code 65. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "../../sim/system.h"
#include "sysutil.h"

static char *tmpdir;

static char *write_trace(const char *name, int n, const char *data_fmt)
{
    char *path = g_build_filename(tmpdir, name, NULL);
    FILE *f = fopen(path, "w");
    fprintf(f, "==123== lackey header line\n");
    for (int i = 0; i < n; i++) {
        fprintf(f, "I  %08x,4\n", 0x1000 + 4 * (i % 16));
        if (data_fmt)
            fprintf(f, data_fmt, 0x20000 + 8 * (i % 8));
    }
    fclose(f);
    return path;
}

static SystemRun *build(const char *trace, const char *extra, GError **e)
{
    char *yaml = g_strdup_printf("core:\n  trace: %s\n%s", trace, extra ? extra : "");
    CfgNode *root = cfg_load_string("t.yaml", yaml, NULL, e);
    g_free(yaml);
    if (!root)
        return NULL;
    return system_build(root, -1, NULL, NULL, e);
}

static void run_ok(SystemRun *r)
{
    GError *e = NULL;
    bool ok = system_run(r, &e);
    if (!ok)
        fprintf(stderr, "%s\n", e->message);
    CU_ASSERT_TRUE(ok);
    g_clear_error(&e);
}

static void test_cpi_model(void)
{
    char *tr = write_trace("code.lackey", 20000, NULL);
    for (int cpi = 1; cpi <= 3; cpi++) {
        char *extra = g_strdup_printf("core:\n  trace: %s\n  cpi: %d\n", tr, cpi);
        GError *e = NULL;
        CfgNode *root = cfg_load_string("t.yaml", extra, NULL, &e);
        SystemRun *r = system_build(root, -1, NULL, NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        run_ok(r);
        uint64_t insts = stat_u(r, "core.insts"), cycles = stat_u(r, "core.cycles");
        CU_ASSERT_EQUAL(insts, 20000);
        /* steady state: one instruction every cpi cycles; only the cold miss adds */
        CU_ASSERT(cycles >= (uint64_t)cpi * insts);
        CU_ASSERT(cycles < (uint64_t)cpi * insts + 400);
        CU_ASSERT_EQUAL(stat_u(r, "l1i.read_misses") - stat_u(r, "l1i.mshr_merges"), 1);
        CU_ASSERT_EQUAL(stat_u(r, "sim.cycles"), cycles);
        system_free(r);
        g_free(extra);
    }
    g_free(tr);
}

static void test_fractional_cpi(void)
{
    char *tr = write_trace("code15.lackey", 20000, NULL);
    char *y = g_strdup_printf("core:\n  trace: %s\n  cpi: 1.5\n", tr);
    GError *e = NULL;
    CfgNode *root = cfg_load_string("t.yaml", y, NULL, &e);
    SystemRun *r = system_build(root, -1, NULL, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    run_ok(r);
    /* two instructions every three cycles, not one every two */
    uint64_t cycles = stat_u(r, "core.cycles");
    CU_ASSERT(cycles >= 30000 && cycles < 30000 + 400);
    system_free(r);
    g_free(y);
    g_free(tr);
}

static void test_split_store_into_tiny_store_buffer(void)
{
    /* a store split in two lines issues even into a one-entry buffer (no false deadlock) */
    char *tr = write_trace("splitst.lackey", 50, " S 0002003c,8\n");
    char *y = g_strdup_printf("core:\n  trace: %s\n  store_buffer: 1\n", tr);
    GError *e = NULL;
    CfgNode *root = cfg_load_string("t.yaml", y, NULL, &e);
    SystemRun *r = system_build(root, -1, NULL, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    run_ok(r);
    CU_ASSERT_EQUAL(stat_u(r, "core.insts"), 50);
    CU_ASSERT_EQUAL(stat_u(r, "l1d.writes"), 100);
    system_free(r);
    g_free(y);
    g_free(tr);
}

static void test_long_instruction_and_max_insts(void)
{
    /* one instruction with 10 loads (more than a queue entry holds), repeated */
    char *path = g_build_filename(tmpdir, "long.lackey", NULL);
    GString *t = g_string_new(NULL);
    for (int i = 0; i < 20; i++) {
        g_string_append_printf(t, "I  %08x,4\n", 0x1000 + 4 * (i % 16));
        for (int j = 0; j < 10; j++)
            g_string_append_printf(t, " L %08x,8\n", 0x20000 + 8 * j);
    }
    g_file_set_contents(path, t->str, -1, NULL);
    g_string_free(t, TRUE);
    for (int max = 1; max <= 3; max++) {
        char *y = g_strdup_printf("core:\n  trace: %s\n  max_insts: %d\n", path, max);
        GError *e = NULL;
        CfgNode *root = cfg_load_string("t.yaml", y, NULL, &e);
        SystemRun *r = system_build(root, -1, NULL, NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        run_ok(r);
        CU_ASSERT_EQUAL(stat_u(r, "core.insts"), (uint64_t)max);
        CU_ASSERT_EQUAL(stat_u(r, "core.loads"), 10 * (uint64_t)max);   /* all 10 loads */
        system_free(r);
        g_free(y);
    }
    g_free(path);
}

static void test_load_latency_is_hit_latency(void)
{
    char *tr = write_trace("loads.lackey", 5000, " L %08x,8\n");
    GError *e = NULL;
    SystemRun *r = build(tr, "l1d:\n  hit_latency: 4cycles\n", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    run_ok(r);
    CU_ASSERT_EQUAL(stat_u(r, "core.loads"), 5000);
    CU_ASSERT_EQUAL(stat_u(r, "core.load_latency::min"), 4);
    CU_ASSERT_EQUAL(stat_u(r, "l1d.read_hits") + stat_u(r, "l1d.read_misses"), 5000);
    /* a load blocks execute: each instruction costs cpi (1) + the hit latency (4) */
    uint64_t cycles = stat_u(r, "core.cycles");
    CU_ASSERT(cycles >= 5000 * 5 && cycles < 5000 * 5 + 400);
    system_free(r);
    g_free(tr);
}

static void test_stores_do_not_block(void)
{
    char *tr = write_trace("stores.lackey", 5000, " S %08x,8\n");
    GError *e = NULL;
    SystemRun *r = build(tr, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    run_ok(r);
    CU_ASSERT_EQUAL(stat_u(r, "core.stores"), 5000);
    CU_ASSERT_EQUAL(stat_u(r, "l1d.writes"), 5000);
    CU_ASSERT(stat_u(r, "core.cycles") < 5000 + 400);
    system_free(r);
    g_free(tr);
}

static void test_split_and_max_insts(void)
{
    char *tr = write_trace("split.lackey", 100, " L 0002003c,8\n");
    GError *e = NULL;
    char *y = g_strdup_printf("core:\n  trace: %s\n  max_insts: 40\n", tr);
    CfgNode *root = cfg_load_string("t.yaml", y, NULL, &e);
    SystemRun *r = system_build(root, -1, NULL, NULL, &e);
    g_free(y);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    run_ok(r);
    CU_ASSERT_EQUAL(stat_u(r, "core.insts"), 40);
    CU_ASSERT_EQUAL(stat_u(r, "core.split_refs"), 40);
    CU_ASSERT_EQUAL(stat_u(r, "l1d.reads"), 80);
    system_free(r);
    g_free(tr);
}

static void test_corrupt_trace_fails_run(void)
{
    char *path = g_build_filename(tmpdir, "bad.lackey", NULL);
    GString *t = g_string_new(NULL);
    for (int i = 0; i < 9000; i++)
        g_string_append_printf(t, "I  %08x,4\n", 0x1000 + 4 * (i % 16));
    g_string_append(t, "I  zz,4\n");
    g_file_set_contents(path, t->str, -1, NULL);
    g_string_free(t, TRUE);
    GError *e = NULL;
    char *y = g_strdup_printf("core:\n  trace: %s\n", path);
    CfgNode *root = cfg_load_string("t.yaml", y, NULL, &e);
    SystemRun *r = system_build(root, -1, NULL, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_FALSE(system_run(r, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_DATAERR);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "bad.lackey:9001:"));
    g_error_free(e);
    system_free(r);
    g_free(y);
    g_free(path);
}

/* issue 15 item 9: a load or store whose last byte wraps past 2^64 used to be read, then
 * sent as zero accesses: the load waited forever (a false deadlock, exit 3), the store vanished
 * (exit 0). The run must fail with 65 at the reference's position. */
static void issue15_item9_wrapping_reference_fails_run(void)
{
    static const char *const data[] = { " L ffffffffffffffff,8\n", " S fffffffffffffffc,8\n" };
    for (size_t i = 0; i < G_N_ELEMENTS(data); i++) {
        char *path = g_build_filename(tmpdir, "wrap.lackey", NULL);
        char *text = g_strdup_printf("I  00001000,4\n L 00002000,8\nI  00001004,4\n%s", data[i]);
        g_file_set_contents(path, text, -1, NULL);
        GError *e = NULL;
        SystemRun *r = build(path, NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_FALSE(system_run(r, &e));
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_DATAERR);
        CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "wrap.lackey:4:4: reference 0x"));
        CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "wraps past 2^64"));
        g_error_free(e);
        system_free(r);
        g_free(text);
        g_free(path);
    }
}

int main(void)
{
    tmpdir = g_dir_make_tmp("archsim-core-XXXXXX", NULL);
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("trace-core", NULL, NULL);
    CU_add_test(s, "fixed CPI: IPC = 1/cpi on L1-resident code", test_cpi_model);
    CU_add_test(s, "fractional CPI averages exactly", test_fractional_cpi);
    CU_add_test(s, "split store into a one-entry store buffer", test_split_store_into_tiny_store_buffer);
    CU_add_test(s, "long instructions and max_insts", test_long_instruction_and_max_insts);
    CU_add_test(s, "load latency equals the L1D hit latency", test_load_latency_is_hit_latency);
    CU_add_test(s, "stores retire through the store buffer", test_stores_do_not_block);
    CU_add_test(s, "line-crossing references split; max_insts", test_split_and_max_insts);
    CU_add_test(s, "corrupt trace fails the run with 65", test_corrupt_trace_fails_run);
    CU_add_test(s, "issue15_item9: a reference wrapping past 2^64 fails with 65",
                issue15_item9_wrapping_reference_fails_run);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    char *cmd = g_strdup_printf("rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    g_free(cmd);
    g_free(tmpdir);
    return f ? 1 : 0;
}
