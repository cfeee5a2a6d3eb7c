/* test_replay.c: every recorded sample trace (traces/samples/, made by `make traces`) replays on
 * the MESI snooping machine, one thread per core, with the reference-memory and SWMR checks on
 * and without deadlock; the false-sharing pair shows the expected gap; spin locks built from
 * atomics and pthread mutexes are serialized in simulated time. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "../../sim/system.h"
#include "sysutil.h"
#include "../../traces/atrace.h"

static int threads_of(const char *dir)
{
    int n = 0;
    for (;; n++) {
        char *p = g_strdup_printf("%s/T%d.trace", dir, n);
        bool ok = g_file_test(p, G_FILE_TEST_EXISTS);
        g_free(p);
        if (!ok)
            return n;
    }
}

static SystemRun *replay(const char *dir, int cores, const char *protocol, GError **e)
{
    CfgNode *root = cfg_load_file("configs/false_sharing/replay.yaml", NULL, e);
    if (!root)
        return NULL;
    char *s1 = g_strdup_printf("workload.trace=%s", dir);
    char *s2 = g_strdup_printf("system.cores=%d", cores);
    char *s3 = g_strdup_printf("l1d.protocol=%s", protocol);
    bool ok = cfg_apply_set(root, s1, e) && cfg_apply_set(root, s2, e) &&
              cfg_apply_set(root, s3, e) && cfg_apply_set(root, "system.check=true", e);
    g_free(s1), g_free(s2), g_free(s3);
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
    static const char *const protos[] = { "msi", "mesi", "moesi" };
    while ((name = g_dir_read_name(d))) {
        char *dir = g_build_filename("traces/samples", name, NULL);
        int n = g_file_test(dir, G_FILE_TEST_IS_DIR) ? threads_of(dir) : 0;
        if (n == 0) {
            g_free(dir);
            continue;
        }
        /* on exactly as many cores as threads, and on 17 (idle cores must not matter) */
        for (int k = 0; k < 2; k++) {
            int cores = k == 0 ? n : 17;
            GError *e = NULL;
            SystemRun *r = replay(dir, cores, protos[(replayed + k) % 3], &e);
            if (!r || !system_run(r, &e)) {
                fprintf(stderr, "\n%s (%d threads, %d cores): %s\n", dir, n, cores,
                        e ? e->message : "?");
                CU_FAIL("sample trace replays");
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

static void test_false_sharing_gap(void)
{
    GError *e = NULL;
    SystemRun *p = replay("traces/samples/fs_packed-4t", 5, "mesi", &e);
    SystemRun *q = replay("traces/samples/fs_padded-4t", 5, "mesi", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    CU_ASSERT_TRUE(system_run(p, &e));
    CU_ASSERT_TRUE(system_run(q, &e));
    uint64_t cp = stat_u(p, "sim.cycles"), cq = stat_u(q, "sim.cycles");
    CU_ASSERT(cp > 3 * cq);                                     /* several times slower */
    CU_ASSERT(stat_u(p, "l1d.misses_false_sharing") > 100000);  /* and this is why */
    CU_ASSERT_EQUAL(stat_u(q, "l1d.misses_coherence"), 0);
    CU_ASSERT(stat_u(p, "bus.invalidations") > 100000);
    system_free(p);
    system_free(q);
}

/* Lock acquisitions in a recorded trace, counted independently of the replay's rule:
 * pthread_mutex_lock markers, test-and-set exchanges that took the lock (TAS, TTAS: an xchg with
 * acquire order that changed the value) and tickets drawn (ticket lock: fetch_add on `next`). */
static uint64_t count_acquisitions(const char *dir, int threads, bool ticket)
{
    uint64_t n = 0;
    AtRecord *buf = g_new(AtRecord, 4096);
    for (int t = 0; t < threads; t++) {
        char *p = g_strdup_printf("%s/T%d.trace", dir, t);
        GError *e = NULL;
        AtReader *rd = at_reader_open(p, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rd);
        size_t got;
        while ((got = at_reader_read(rd, buf, 4096, &e)) > 0)
            for (size_t i = 0; i < got; i++) {
                const AtRecord *r = &buf[i];
                if (r->kind == AT_LOCK_ACQ)
                    n++;
                else if (r->kind == AT_RMW && !(r->flags & AT_F_UNCHANGED) &&
                         (ticket ? r->op == AT_OP_ADD
                                 : r->op == AT_OP_XCHG && r->mo != AT_MO_RELAXED))
                    n++;
            }
        CU_ASSERT_PTR_NULL(e);
        g_clear_error(&e);
        at_reader_close(rd);
        g_free(p);
    }
    g_free(buf);
    return n;
}

/* Spin locks built from C11 atomics are re-timed like pthread mutexes: every acquisition of the
 * recording goes through the workload's lock manager, which grants one holder at a time (it
 * asserts so; only a forced grant, lock_order_conflicts, may add a second), and with 4 threads
 * on 4 cores some acquisitions wait. */
static void test_spin_locks_serialized(void)
{
    static const char *const names[] = { "spin_tas", "spin_ttas", "spin_ticket",
                                         "mutex_counter" };
    for (int i = 0; i < 4; i++) {
        char *dir = g_build_filename("traces/samples", names[i], NULL);
        int n = threads_of(dir);
        CU_ASSERT_EQUAL_FATAL(n, 5);       /* main + 4 workers */
        bool spin = i < 3;
        uint64_t expect = count_acquisitions(dir, n, i == 2);
        CU_ASSERT(expect >= 4);
        GError *e = NULL;
        SystemRun *r = replay(dir, n, "mesi", &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_TRUE(system_run(r, &e));
        CU_ASSERT_EQUAL(stat_u(r, "workload.lock_grants"), expect);
        CU_ASSERT_EQUAL(stat_u(r, "workload.spin_lock_grants"), spin ? expect : 0);
        CU_ASSERT_EQUAL(stat_u(r, "workload.lock_words"), spin ? 1 : 0);
        CU_ASSERT(stat_u(r, "workload.lock_contended") > 0);
        CU_ASSERT_EQUAL(stat_u(r, "workload.lock_order_conflicts"), 0);
        uint64_t per_core = 0;
        for (int c = 0; c < n; c++) {
            char *s = g_strdup_printf("core%d.atomic_lock_acquisitions", c);
            per_core += stat_u(r, s);
            g_free(s);
        }
        CU_ASSERT_EQUAL(per_core, spin ? expect : 0);
        if (e)
            fprintf(stderr, "\n%s: %s\n", dir, e->message);
        g_clear_error(&e);
        system_free(r);
        g_free(dir);
    }
}

static void test_too_few_cores(void)
{
    GError *e = NULL;
    SystemRun *r = replay("traces/samples/fs_packed-4t", 2, "mesi", &e);
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "more threads than system.cores"));
    g_error_free(e);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("replay", NULL, NULL);
    CU_add_test(s, "every sample trace replays, checked, without deadlock",
                test_every_sample_replays);
    CU_add_test(s, "packed counters several times slower than padded", test_false_sharing_gap);
    CU_add_test(s, "atomic spin locks and mutexes are serialized in simulated time",
                test_spin_locks_serialized);
    CU_add_test(s, "more threads than cores is a config error", test_too_few_cores);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
