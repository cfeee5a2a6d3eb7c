/* test_dirsys.c: the directory machine (system dirsmp) end to end.
 *  - the random tester: 1,000 seeds per directory protocol (dir-msi, dir-mesi), random core
 *    counts, cache geometries, topologies (mesh, ring, crossbar) and sharer formats (full bit
 *    vector, 1 or 2 pointers with broadcast); every load checked against the reference memory,
 *    SWMR at every permission change; any violation or deadlock fails the seed
 *  - every recorded sample trace replays on the directory machine with the checks on
 *  - protocol behaviour: migratory sharing is served three-hop, private data two-hop; limited
 *    pointers broadcast where the full map does not; the ack count matches the invalidations
 *  - determinism (same seed, byte-identical stats) and the config rules of dirsmp */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "../../sim/system.h"
#include "sysutil.h"

static SystemRun *build_yaml(const char *yaml, int64_t seed, GError **e)
{
    CfgNode *root = cfg_load_string("t.yaml", yaml, NULL, e);
    if (!root)
        return NULL;
    return system_build(root, seed, NULL, NULL, e);
}

static void random_seeds(const char *protocol)
{
    static const char *const geom[] = { "size: 256B\n  assoc: 2", "size: 512B\n  assoc: 1",
                                        "size: 1KiB\n  assoc: 4", "size: 32KiB\n  assoc: 8" };
    static const char *const topo[] = { "mesh", "ring", "crossbar" };
    int failures = 0;
    for (int seed = 1; seed <= 1000; seed++) {
        int cores = seed % 50 == 0 ? 16 : 2 + seed % 7;
        char *yaml = g_strdup_printf(
            "system:\n  type: dirsmp\n  cores: %d\n  protocol: %s\n"
            "core:\n  type: random-tester\n  ops: 300\n  lines: %d\n  stride: %s\n"
            "  outstanding: %d\n"
            "l1d:\n  %s\n  hit_latency: %d\n  writeback_buffer: %d\n"
            "dir:\n  pointers: %d\n  latency: %d\n"
            "noc:\n  topology: %s\n  buffer: %d\n  link_width: %s\n"
            "sim:\n  watchdog: 100000\n",
            cores, protocol, 1 + seed % 6, seed % 2 ? "4KiB" : "64B", 1 + seed % 4,
            geom[seed % 4], 1 + seed % 3, seed % 5 % 3, seed % 3, 1 + seed % 4, topo[seed % 3],
            2 + seed % 3, seed % 4 ? "16B" : "8B");
        GError *e = NULL;
        SystemRun *r = build_yaml(yaml, seed, &e);
        if (!r) {
            fprintf(stderr, "\n%s seed %d: %s\n", protocol, seed, e->message);
            g_clear_error(&e);
            failures++;
            g_free(yaml);
            continue;
        }
        if (!system_run(r, &e)) {
            if (failures < 3)
                fprintf(stderr, "\n%s seed %d failed:\n%s\nconfig:\n%s\n", protocol, seed,
                        e->message, yaml);
            g_clear_error(&e);
            failures++;
        } else if (stat_u(r, "l1d.accesses") != (uint64_t)cores * 300) {
            failures++;
        }
        system_free(r);
        g_free(yaml);
    }
    CU_ASSERT_EQUAL(failures, 0);
}

static void test_random_dir_msi(void) { random_seeds("dir-msi"); }
static void test_random_dir_mesi(void) { random_seeds("dir-mesi"); }

static SystemRun *replay(const char *dir, int cores, const char *protocol, int pointers,
                         GError **e)
{
    CfgNode *root = cfg_load_file("configs/coherence/dir-replay.yaml", NULL, e);
    if (!root)
        return NULL;
    char *s1 = g_strdup_printf("workload.trace=%s", dir);
    char *s2 = g_strdup_printf("system.cores=%d", cores);
    char *s3 = g_strdup_printf("system.protocol=%s", protocol);
    char *s4 = g_strdup_printf("dir.pointers=%d", pointers);
    bool ok = cfg_apply_set(root, s1, e) && cfg_apply_set(root, s2, e) &&
              cfg_apply_set(root, s3, e) && cfg_apply_set(root, s4, e) &&
              cfg_apply_set(root, "system.check=true", e);
    g_free(s1), g_free(s2), g_free(s3), g_free(s4);
    if (!ok) {
        cfg_node_free(root);
        return NULL;
    }
    return system_build(root, 1, NULL, NULL, e);
}

static void test_every_sample_replays(void)
{
    GDir *d = g_dir_open("traces/samples", 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    const char *name;
    int replayed = 0;
    static const char *const protos[] = { "dir-msi", "dir-mesi" };
    while ((name = g_dir_read_name(d))) {
        char *dir = g_build_filename("traces/samples", name, NULL);
        int n = g_file_test(dir, G_FILE_TEST_IS_DIR) ? threads_of(dir) : 0;
        if (n == 0) {
            g_free(dir);
            continue;
        }
        /* on as many cores as threads (full map), and on 17 with 2 pointers (broadcasts) */
        for (int k = 0; k < 2; k++) {
            int cores = k == 0 ? n : 17;
            GError *e = NULL;
            SystemRun *r = replay(dir, cores, protos[(replayed + k) % 2], k * 2, &e);
            if (!r || !system_run(r, &e)) {
                fprintf(stderr, "\n%s (%d threads, %d cores): %s\n", dir, n, cores,
                        e ? e->message : "?");
                CU_FAIL("sample trace replays on the directory machine");
            } else {
                CU_ASSERT(stat_u(r, "l1d.accesses") > 0);
            }
            g_clear_error(&e);
            system_free(r);
        }
        g_free(dir);
        replayed++;
    }
    g_dir_close(d);
    CU_ASSERT(replayed >= 10);
}

static SystemRun *pattern_run(const char *pattern, int cores, int pointers, const char *proto)
{
    char *yaml = g_strdup_printf(
        "system:\n  type: dirsmp\n  cores: %d\n  protocol: %s\n"
        "core:\n  type: pattern-core\n  pattern: %s\n  ops: 2000\n  words: 32\n"
        "  spacing: 64B\n  word: 8B\n"
        "dir:\n  pointers: %d\n",
        cores, proto, pattern, pointers);
    GError *e = NULL;
    SystemRun *r = build_yaml(yaml, 1, &e);
    g_free(yaml);
    if (!r) {
        fprintf(stderr, "\n%s\n", e->message);
        g_clear_error(&e);
        return NULL;
    }
    if (!system_run(r, &e)) {
        fprintf(stderr, "\n%s\n", e->message);
        g_clear_error(&e);
        system_free(r);
        return NULL;
    }
    return r;
}

/* Migratory lines are dirty in the previous core's L1: the owner answers (three hops). Private
 * lines come from the directory (two hops). */
static void test_hops(void)
{
    SystemRun *m = pattern_run("migratory", 8, 0, "dir-mesi");
    SystemRun *p = pattern_run("private", 8, 0, "dir-mesi");
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    uint64_t m3 = stat_u(m, "l1d.misses_3hop"), m2 = stat_u(m, "l1d.misses_2hop");
    CU_ASSERT(m3 > m2);
    CU_ASSERT_EQUAL(stat_u(p, "l1d.misses_3hop"), 0);
    CU_ASSERT(stat_u(p, "l1d.misses_2hop") > 0);
    CU_ASSERT(stat_u(m, "dir0.fwd_getm") > 0);
    system_free(m);
    system_free(p);
}

static uint64_t sum_dirs(SystemRun *r, const char *stat, int n)
{
    uint64_t t = 0;
    for (int i = 0; i < n; i++) {
        char *name = g_strdup_printf("dir%d.%s", i, stat);
        t += stat_u(r, name);
        g_free(name);
    }
    return t;
}

/* Producer/consumer: 7 readers share each line, then the producer writes. With 2 pointers the
 * sharer sets overflow and every invalidation is a broadcast to all 7 other caches; with the
 * full map only the real sharers are invalidated. */
static void test_limited_pointers_broadcast(void)
{
    SystemRun *full = pattern_run("producer_consumer", 8, 0, "dir-msi");
    SystemRun *lim = pattern_run("producer_consumer", 8, 2, "dir-msi");
    CU_ASSERT_PTR_NOT_NULL_FATAL(full);
    CU_ASSERT_PTR_NOT_NULL_FATAL(lim);
    CU_ASSERT_EQUAL(sum_dirs(full, "broadcasts", 8), 0);
    CU_ASSERT(sum_dirs(lim, "broadcasts", 8) > 0);
    CU_ASSERT(sum_dirs(lim, "overflows", 8) > 0);
    CU_ASSERT(sum_dirs(lim, "invs", 8) >= sum_dirs(full, "invs", 8));
    /* every Inv is answered by exactly one Inv-Ack */
    CU_ASSERT_EQUAL(stat_u(lim, "l1d.msgs.Inv-Ack"), sum_dirs(lim, "invs", 8));
    CU_ASSERT_EQUAL(stat_u(full, "l1d.msgs.Inv-Ack"), sum_dirs(full, "invs", 8));
    system_free(full);
    system_free(lim);
}

static char *stats_text(SystemRun *r)
{
    StatSet s;
    stats_init(&s);
    system_collect_stats(r, &s);
    GString *out = g_string_new(NULL);
    stats_format_txt(&s, out);
    stats_clear(&s);
    return g_string_free(out, FALSE);
}

static void test_deterministic(void)
{
    SystemRun *a = pattern_run("migratory", 16, 1, "dir-mesi");
    SystemRun *b = pattern_run("migratory", 16, 1, "dir-mesi");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    char *x = stats_text(a), *y = stats_text(b);
    CU_ASSERT_STRING_EQUAL(x, y);
    g_free(x);
    g_free(y);
    system_free(a);
    system_free(b);
}

static void expect_error(const char *yaml, const char *needle)
{
    GError *e = NULL;
    SystemRun *r = build_yaml(yaml, 1, &e);
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    if (!strstr(e->message, needle))
        fprintf(stderr, "\nexpected '%s' in: %s\n", needle, e->message);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, needle));
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CONFIG);
    g_clear_error(&e);
    system_free(r);
}

static void test_config_rules(void)
{
    expect_error("system: {type: dirsmp, cores: 4}\ncore: {type: pattern-core}\nnoc: {nodes: 8}\n",
                 "t.yaml:3:14: noc.nodes is set by system dirsmp to 4 here");
    expect_error("system: {type: dirsmp, cores: 4}\ncore: {type: pattern-core}\nl1d: {protocol: dir-msi}\n",
                 "l1d.protocol is set by system dirsmp "
                 "to dir-mesi here");
    expect_error("system: {type: dirsmp, cores: 4}\ncore: {type: pattern-core}\nl1d: {line: 32B}\n", "must be equal");
    /* the values the system would set are accepted (a resolved config reruns) */
    GError *e = NULL;
    SystemRun *r = build_yaml("system: {type: dirsmp, cores: 6}\ncore: {type: pattern-core}\nnoc: {nodes: 6, width: 3, "
                              "concentration: 2}\nl1d: {protocol: dir-mesi, caches: 6}\n", 1, &e);
    CU_ASSERT_PTR_NOT_NULL(r);
    if (e)
        fprintf(stderr, "\n%s\n", e->message);
    g_clear_error(&e);
    system_free(r);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("dirsys", NULL, NULL);
    CU_add_test(s, "random tester, dir-msi, 1000 seeds", test_random_dir_msi);
    CU_add_test(s, "random tester, dir-mesi, 1000 seeds", test_random_dir_mesi);
    CU_add_test(s, "every sample trace replays on directories", test_every_sample_replays);
    CU_add_test(s, "migratory is three-hop, private two-hop", test_hops);
    CU_add_test(s, "limited pointers broadcast", test_limited_pointers_broadcast);
    CU_add_test(s, "same seed, same stats", test_deterministic);
    CU_add_test(s, "dirsmp config rules", test_config_rules);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
