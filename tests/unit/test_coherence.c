/* test_coherence.c: the snooping machine end to end.
 *  - the random tester (gem5 Ruby tester style): 1,000 seeds per protocol in both bus modes,
 *    random core counts and cache geometries; every load is checked against the reference
 *    memory and SWMR at every permission change; any violation or deadlock fails the seed
 *  - the asserted experiments: MESI saves MSI's upgrade on private read-then-write; MOESI saves
 *    the write-back when dirty data becomes shared; false sharing makes coherence misses that
 *    padding removes; deterministic stats for one seed */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "../../models/mem/oracle.h"
#include "../../models/mem/memmsg.h"
#include "../../sim/system.h"
#include "sysutil.h"

static SystemRun *build_yaml(const char *yaml, int64_t seed, GError **e)
{
    CfgNode *root = cfg_load_string("t.yaml", yaml, NULL, e);
    if (!root)
        return NULL;
    return system_build(root, seed, NULL, NULL, e);
}

static uint64_t stat_sum(SystemRun *r, const char *fmt, int n)
{
    uint64_t t = 0;
    for (int i = 0; i < n; i++) {
        char *name = g_strdup_printf(fmt, i);
        t += stat_u(r, name);
        g_free(name);
    }
    return t;
}

static void random_seeds(const char *protocol, const char *mode)
{
    static const char *const geom[] = { "size: 256B\n  assoc: 2", "size: 512B\n  assoc: 1",
                                        "size: 1KiB\n  assoc: 4", "size: 32KiB\n  assoc: 8" };
    int failures = 0;
    for (int seed = 1; seed <= 1000; seed++) {
        int cores = 2 + seed % 7;
        char *yaml = g_strdup_printf(
            "system:\n  type: smp\n  cores: %d\n  llc_banks: %d\n"
            "core:\n  type: random-tester\n  ops: 300\n  lines: %d\n  stride: %s\n"
            "  outstanding: %d\n"
            "l1d:\n  %s\n  protocol: %s\n  hit_latency: %d\n"
            "bus:\n  mode: %s\n  arbitration: %s\n  outstanding: %d\n"
            "sim:\n  watchdog: 100000\n",
            cores, 1 << (seed % 3), 1 + seed % 6, seed % 2 ? "4KiB" : "64B", 1 + seed % 4,
            geom[seed % 4], protocol, 1 + seed % 3, mode, seed % 5 ? "rr" : "fifo",
            1 + seed % 8);
        GError *e = NULL;
        SystemRun *r = build_yaml(yaml, seed, &e);
        if (!r) {
            fprintf(stderr, "\n%s %s seed %d: %s\n", protocol, mode, seed, e->message);
            g_clear_error(&e);
            failures++;
            g_free(yaml);
            continue;
        }
        if (!system_run(r, &e)) {
            if (failures < 3)
                fprintf(stderr, "\n%s %s seed %d failed:\n%s\nconfig:\n%s\n", protocol, mode,
                        seed, e->message, yaml);
            g_clear_error(&e);
            failures++;
        } else if (stat_sum(r, "core%d.ops", cores) != (uint64_t)cores * 300) {
            failures++;
        }
        system_free(r);
        g_free(yaml);
    }
    CU_ASSERT_EQUAL(failures, 0);
}

static void test_random_msi_atomic(void) { random_seeds("msi", "atomic"); }
static void test_random_msi_split(void) { random_seeds("msi", "split"); }
static void test_random_mesi_atomic(void) { random_seeds("mesi", "atomic"); }
static void test_random_mesi_split(void) { random_seeds("mesi", "split"); }
static void test_random_moesi_atomic(void) { random_seeds("moesi", "atomic"); }
static void test_random_moesi_split(void) { random_seeds("moesi", "split"); }

/* A broken oracle-visible bug must be caught: the tester is not a test that cannot fail. */
static void test_tester_catches_corruption(void)
{
    GError *e = NULL;
    SystemRun *r = build_yaml("system:\n  type: smp\n  cores: 2\ncore:\n  type: random-tester\n"
                              "  ops: 200\n", 1, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    /* poison the reference memory of the tester's lines: the first load of any word that no
     * store has overwritten yet must be reported */
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

/* Runs one of configs/coherence/ with overrides, as `archsim run FILE --set ...` would. */
static SystemRun *run_config(const char *file, const char *set1, const char *set2)
{
    GError *e = NULL;
    CfgNode *root = cfg_load_file(file, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    if (set1)
        CU_ASSERT_TRUE(cfg_apply_set(root, set1, &e));
    if (set2)
        CU_ASSERT_TRUE(cfg_apply_set(root, set2, &e));
    SystemRun *r = system_build(root, -1, NULL, NULL, &e);
    if (!r)
        fprintf(stderr, "\n%s: %s\n", file, e->message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_TRUE(system_run(r, &e));
    g_clear_error(&e);
    return r;
}

static void test_mesi_removes_upgrades(void)
{
    /* private data, read then written: MSI reads into S and must upgrade; MESI gets E */
    SystemRun *msi = run_config("configs/coherence/upgrade.yaml", "l1d.protocol=msi", NULL);
    SystemRun *mesi = run_config("configs/coherence/upgrade.yaml", "l1d.protocol=mesi", NULL);
    uint64_t up_msi = stat_u(msi, "bus.upgrades"), up_mesi = stat_u(mesi, "bus.upgrades");
    /* 4 cores x 8 private lines: every line first read, then written, costs MSI an upgrade */
    CU_ASSERT(up_msi > 10);
    CU_ASSERT_EQUAL(up_mesi, 0);
    CU_ASSERT_EQUAL(stat_u(msi, "bus.transactions") - up_msi, stat_u(mesi, "bus.transactions"));
    CU_ASSERT(stat_u(mesi, "bus.exclusive_grants") > 0);
    system_free(msi);
    system_free(mesi);
}

static void test_moesi_avoids_writeback_on_sharing(void)
{
    /* producer/consumer: the producer's dirty line is read by the others; MESI writes it back
     * to memory (M -> S), MOESI keeps it dirty in O and supplies it cache to cache */
    SystemRun *mesi = run_config("configs/coherence/writeback.yaml", "l1d.protocol=mesi", NULL);
    SystemRun *moesi = run_config("configs/coherence/writeback.yaml", "l1d.protocol=moesi", NULL);
    CU_ASSERT(stat_u(mesi, "bus.writebacks") > 100);
    CU_ASSERT_EQUAL(stat_u(moesi, "bus.writebacks"), 0);
    CU_ASSERT(stat_u(moesi, "bus.cache_to_cache") > stat_u(mesi, "bus.cache_to_cache"));
    CU_ASSERT(stat_u(moesi, "L1Cache_Controller.M.Other_GETS") > 0);
    system_free(mesi);
    system_free(moesi);
}

static void test_false_sharing_vs_padding(void)
{
    SystemRun *fs = run_config("configs/coherence/false-sharing.yaml", NULL, NULL);
    SystemRun *pad = run_config("configs/coherence/padded.yaml", NULL, NULL);
    CU_ASSERT(stat_u(fs, "l1d.misses_false_sharing") > 4000);  /* of 4 x 2000 x 2 accesses */
    CU_ASSERT_EQUAL(stat_u(fs, "l1d.misses_true_sharing"), 0); /* nobody writes another's word */
    CU_ASSERT_EQUAL(stat_u(pad, "l1d.misses_coherence"), 0);
    CU_ASSERT_EQUAL(stat_u(pad, "l1d.misses"), 4);             /* one cold miss per core */
    CU_ASSERT_EQUAL(stat_u(pad, "l1d.misses_cold"), 4);
    CU_ASSERT(stat_u(fs, "sim.cycles") > 3 * stat_u(pad, "sim.cycles"));
    SystemRun *ts = run_config("configs/coherence/true-sharing.yaml", NULL, NULL);
    CU_ASSERT(stat_u(ts, "l1d.misses_true_sharing") > 4000);
    CU_ASSERT_EQUAL(stat_u(ts, "l1d.misses_false_sharing"), 0);
    system_free(fs);
    system_free(pad);
    system_free(ts);
}

static void test_shipped_configs_run(void)
{
    static const char *const files[] = { "configs/coherence/random-tester.yaml",
                                         "configs/coherence/matmul-4core.yaml" };
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        SystemRun *r = run_config(files[i], "sim.max_cycles=2000000", NULL);
        CU_ASSERT(stat_u(r, "bus.transactions") > 0);
        system_free(r);
    }
}

static void test_per_core_traces(void)
{
    /* core.trace with %d: core i replays t<i>.lackey; two cores write the same word */
    char *dir = g_dir_make_tmp("archsim-coh-XXXXXX", NULL);
    for (int c = 0; c < 2; c++) {
        GString *t = g_string_new("==1== lackey\n");
        for (int i = 0; i < 100 * (c + 1); i++)
            g_string_append_printf(t, "I  %08x,4\n S 00050000,8\n L 00050000,8\n",
                                   0x1000 + 4 * (i % 16));
        char *path = g_strdup_printf("%s/t%d.lackey", dir, c);
        g_file_set_contents(path, t->str, -1, NULL);
        g_free(path);
        g_string_free(t, TRUE);
    }
    char *yaml = g_strdup_printf("system:\n  type: smp\n  cores: 2\n"
                                 "core:\n  trace: %s/t%%d.lackey\n", dir);
    GError *e = NULL;
    SystemRun *r = build_yaml(yaml, 1, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_TRUE(system_run(r, &e));
    CU_ASSERT_EQUAL(stat_u(r, "core0.insts"), 100);
    CU_ASSERT_EQUAL(stat_u(r, "core1.insts"), 200);
    CU_ASSERT(stat_u(r, "bus.invalidations") > 0);
    system_free(r);
    g_free(yaml);
    char *cmd = g_strdup_printf("rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
    g_free(cmd);
    g_free(dir);
}

static void test_deterministic(void)
{
    char *a[2];
    for (int i = 0; i < 2; i++) {
        GError *e = NULL;
        SystemRun *r = build_yaml("system:\n  type: smp\n  cores: 4\ncore:\n  type: random-tester\n"
                                  "  ops: 500\n", 42, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_TRUE(system_run(r, &e));
        StatSet s;
        stats_init(&s);
        system_collect_stats(r, &s);
        GString *o = g_string_new(NULL);
        stats_format_json(&s, o);
        a[i] = g_string_free(o, FALSE);
        stats_clear(&s);
        system_free(r);
    }
    CU_ASSERT_STRING_EQUAL(a[0], a[1]);
    g_free(a[0]);
    g_free(a[1]);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("coherence", NULL, NULL);
    CU_add_test(s, "random tester: MSI, atomic bus, 1000 seeds", test_random_msi_atomic);
    CU_add_test(s, "random tester: MSI, split bus, 1000 seeds", test_random_msi_split);
    CU_add_test(s, "random tester: MESI, atomic bus, 1000 seeds", test_random_mesi_atomic);
    CU_add_test(s, "random tester: MESI, split bus, 1000 seeds", test_random_mesi_split);
    CU_add_test(s, "random tester: MOESI, atomic bus, 1000 seeds", test_random_moesi_atomic);
    CU_add_test(s, "random tester: MOESI, split bus, 1000 seeds", test_random_moesi_split);
    CU_add_test(s, "the tester catches a corrupted value", test_tester_catches_corruption);
    CU_add_test(s, "MESI removes MSI's upgrades on private data", test_mesi_removes_upgrades);
    CU_add_test(s, "MOESI avoids the write-back when dirty data is shared",
                test_moesi_avoids_writeback_on_sharing);
    CU_add_test(s, "false sharing misses, padding removes them", test_false_sharing_vs_padding);
    CU_add_test(s, "shipped coherence configs run", test_shipped_configs_run);
    CU_add_test(s, "one lackey trace per core (%d)", test_per_core_traces);
    CU_add_test(s, "same seed, same stats", test_deterministic);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
