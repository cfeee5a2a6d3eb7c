/* test_tctx.c: the trace's transactions run as hardware transactions by thread-core (core.htm,
 * docs/tracing.md "Transactions in traces"): the htm_counter sample on the snooping machine with
 * the reference checks on (every load, every commit) under requester and responder wins, lazy
 * and eager versioning, MSI/MESI/MOESI, 5-8 cores and memory models; aborts, retries and the
 * fallback lock under contention; determinism; htm off leaves the replay as it was; synthetic
 * traces for a capacity abort (the core's record bound and the L1's), the program's
 * archsim_tx_abort and a thread create inside a transaction. */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "../../sim/system.h"
#include "../../traces/atrace.h"
#include "sysutil.h"

#define SAMPLE "traces/samples/htm_counter"

/* The mutex replay config with `sets` (NULL-terminated KEY=VALUE), checks on, run. */
static SystemRun *replay(const char *dir, int cores, const char *const *sets, int64_t seed)
{
    GError *e = NULL;
    CfgNode *root = cfg_load_file("configs/locks/replay-mutex.yaml", NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    char *s1 = g_strdup_printf("workload.trace=%s", dir);
    char *s2 = g_strdup_printf("system.cores=%d", cores);
    bool ok = cfg_apply_set(root, s1, &e) && cfg_apply_set(root, s2, &e) &&
              cfg_apply_set(root, "core.mutex=manager", &e) &&
              cfg_apply_set(root, "system.check=true", &e);
    for (const char *const *s = sets; ok && s && *s; s++)
        ok = cfg_apply_set(root, *s, &e);
    g_free(s1);
    g_free(s2);
    CU_ASSERT_TRUE_FATAL(ok);
    SystemRun *r = system_build(root, seed, NULL, NULL, &e);
    if (r && !system_run(r, &e)) {
        system_free(r);
        r = NULL;
    }
    if (!r)
        fprintf(stderr, "\n%s (%d cores): %s\n", dir, cores, e ? e->message : "?");
    g_clear_error(&e);
    return r;
}

static uint64_t sum_of(SystemRun *r, const char *prefix, int n, const char *name)
{
    uint64_t sum = 0;
    for (int c = 0; c < n; c++) {
        char *s = g_strdup_printf("%s%d.%s", prefix, c, name);
        uint64_t v = stat_u(r, s);
        sum += v == UINT64_MAX ? 0 : v;
        g_free(s);
    }
    return sum;
}

/* Outermost AT_TX_BEGIN records of a trace directory (the regions). */
static uint64_t trace_regions(const char *dir)
{
    uint64_t n = 0;
    AtRecord *buf = g_new(AtRecord, 4096);
    for (int t = 0; t < threads_of(dir); t++) {
        char *p = g_strdup_printf("%s/T%d.trace", dir, t);
        AtReader *rd = at_reader_open(p, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rd);
        size_t got;
        int depth = 0;
        while ((got = at_reader_read(rd, buf, 4096, NULL)) > 0)
            for (size_t i = 0; i < got; i++) {
                if (buf[i].kind == AT_TX_BEGIN)
                    n += depth++ == 0;
                else if (buf[i].kind == AT_TX_END && depth > 0)
                    depth--;
            }
        at_reader_close(rd);
        g_free(p);
    }
    g_free(buf);
    return n;
}

/* Every region of the sample ends committed or under the fallback lock, the L1s agree with the
 * cores, and the checks hold: protocols x conflict policy x versioning, 5-8 cores. */
static void test_sample_matrix(void)
{
    static const char *const protos[] = { "msi", "mesi", "moesi" };
    static const char *const pols[] = { "requester", "responder" };
    static const char *const vers[] = { "lazy", "eager" };
    uint64_t regions = trace_regions(SAMPLE);
    CU_ASSERT_EQUAL(regions, 4 * 1500);
    int i = 0;
    for (int p = 0; p < 3; p++)
        for (int c = 0; c < 2; c++)
            for (int v = 0; v < 2; v++, i++) {
                int cores = 5 + i % 4;
                char *s[4] = { g_strdup_printf("l1d.protocol=%s", protos[p]),
                               g_strdup_printf("l1d.htm_conflict=%s", pols[c]),
                               g_strdup_printf("l1d.htm_versioning=%s", vers[v]),
                               g_strdup("core.htm=on") };
                const char *sets[] = { s[0], s[1], s[2], s[3], NULL };
                SystemRun *r = replay(SAMPLE, cores, sets, 1);
                CU_ASSERT_PTR_NOT_NULL(r);
                if (r) {
                    uint64_t commits = sum_of(r, "core", cores, "tx_commits");
                    uint64_t fallbacks = sum_of(r, "core", cores, "tx_fallbacks");
                    CU_ASSERT(commits > 0);
                    CU_ASSERT_EQUAL(commits + fallbacks, regions);
                    CU_ASSERT_EQUAL(sum_of(r, "l1d", cores, "htm.commits"), commits);
                    CU_ASSERT_EQUAL(sum_of(r, "l1d", cores, "htm.begins"),
                                    sum_of(r, "core", cores, "tx_begins"));
                    CU_ASSERT_EQUAL(sum_of(r, "core", cores, "tx_begins"),
                                    commits + sum_of(r, "core", cores, "tx_aborts"));
                    /* the workload's mutex is granted only on the fallback path */
                    CU_ASSERT_EQUAL(stat_u(r, "workload.lock_grants"), fallbacks);
                    CU_ASSERT_EQUAL(sum_of(r, "core", cores, "tx_elided_locks"),
                                    sum_of(r, "core", cores, "tx_begins") -
                                    sum_of(r, "core", cores, "tx_aborts_fallback_held"));
                    system_free(r);
                }
                for (int j = 0; j < 4; j++)
                    g_free(s[j]);
            }
}

/* Requester wins, 4 workers on 16 counters: conflicts abort, aborted transactions retry, and
 * some regions run under the fallback lock (whose holder aborts the subscribed others). */
static void test_contention(void)
{
    const char *sets[] = { "core.htm=on", NULL };
    SystemRun *r = replay(SAMPLE, 5, sets, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT(sum_of(r, "core", 5, "tx_aborts_conflict") > 100);
    CU_ASSERT(sum_of(r, "core", 5, "tx_retries") > 100);
    CU_ASSERT(sum_of(r, "core", 5, "tx_fallbacks") > 10);
    CU_ASSERT(sum_of(r, "core", 5, "tx_aborts_fallback_held") > 0);
    CU_ASSERT(sum_of(r, "core", 5, "tx_records_replayed") > 1000);
    CU_ASSERT(sum_of(r, "core", 5, "tx_wasted_cycles") > 0);
    /* records consumed once each, whatever the replays */
    CU_ASSERT_EQUAL(sum_of(r, "core", 5, "records"), 48070);
    system_free(r);
    /* more retries: fewer fallbacks */
    const char *more[] = { "core.htm=on", "core.htm_retries=20", NULL };
    SystemRun *r2 = replay(SAMPLE, 5, more, 1);
    r = replay(SAMPLE, 5, sets, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r2);
    CU_ASSERT(sum_of(r2, "core", 5, "tx_fallbacks") < sum_of(r, "core", 5, "tx_fallbacks"));
    system_free(r);
    system_free(r2);
}

/* Memory models (begin and commit are full fences) and a lock algorithm on the fallback path. */
static void test_models_and_mutex(void)
{
    static const char *const runs[][2] = { { "core.model=tso", "core.mutex=manager" },
                                           { "core.model=weak", "core.mutex=manager" },
                                           { "core.model=sc", "core.mutex=mcs" },
                                           { "core.model=none", "core.mutex=ttas" } };
    for (size_t i = 0; i < G_N_ELEMENTS(runs); i++) {
        const char *sets[] = { "core.htm=on", runs[i][0], runs[i][1], NULL };
        SystemRun *r = replay(SAMPLE, 6, sets, 1);
        CU_ASSERT_PTR_NOT_NULL(r);
        if (!r)
            continue;
        CU_ASSERT_EQUAL(sum_of(r, "core", 6, "tx_commits") + sum_of(r, "core", 6, "tx_fallbacks"),
                        6000);
        system_free(r);
    }
}

/* Same config and seed: identical statistics. */
static void test_deterministic(void)
{
    static const char *const names[] = { "sim.cycles", "bus.transactions", "core1.tx_aborts",
                                         "core2.tx_fallbacks", "core3.tx_wasted_cycles",
                                         "l1d4.htm.aborts.conflict" };
    uint64_t v[2][G_N_ELEMENTS(names)];
    for (int k = 0; k < 2; k++) {
        const char *sets[] = { "core.htm=on", "l1d.htm_conflict=responder", NULL };
        SystemRun *r = replay(SAMPLE, 5, sets, 7);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
            v[k][i] = stat_u(r, names[i]);
        system_free(r);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        CU_ASSERT_NOT_EQUAL(v[0][i], UINT64_MAX);
        CU_ASSERT_EQUAL(v[0][i], v[1][i]);
    }
}

/* htm off (the default): the markers are ignored, the numbers are those of a run without the
 * parameter, and no tx_* stats appear. */
static void test_off_unchanged(void)
{
    static const char *const names[] = { "sim.cycles", "bus.transactions", "core1.loads",
                                         "workload.lock_grants" };
    const char *none[] = { NULL }, *off[] = { "core.htm=off", NULL };
    const char *const *sets[] = { none, off };
    for (int m = 0; m < 2; m++) {
        const char *model[] = { m ? "core.model=tso" : "core.model=none", NULL };
        uint64_t v[2][G_N_ELEMENTS(names)];
        for (int k = 0; k < 2; k++) {
            const char *all[4] = { model[0], sets[k][0], NULL, NULL };
            SystemRun *r = replay(SAMPLE, 5, all, 1);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
                v[k][i] = stat_u(r, names[i]);
            CU_ASSERT_EQUAL(stat_u(r, "core1.tx_begins"), UINT64_MAX);
            CU_ASSERT_EQUAL(stat_u(r, "l1d1.htm.begins"), UINT64_MAX);
            system_free(r);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
            CU_ASSERT_EQUAL(v[0][i], v[1][i]);
        CU_ASSERT_EQUAL(v[0][3], 6000);     /* every recorded lock through the manager */
    }
}

/* ---- synthetic traces -------------------------------------------------------------------- */

static char *write_trace(const AtRecord *const *threads, const size_t *n, int nthreads)
{
    char *dir = g_dir_make_tmp("archsim-tctx-XXXXXX", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    for (int t = 0; t < nthreads; t++) {
        AtHeader h = { .version = ATRACE_VERSION, .tid = (uint32_t)t, .parent = t ? 0 : -1 };
        g_strlcpy(h.frontend, "synthetic", sizeof h.frontend);
        char *path = g_strdup_printf("%s/T%d.trace", dir, t);
        AtWriter *w = at_writer_open(path, &h, 1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        for (size_t i = 0; i < n[t]; i++) {
            AtRecord r = threads[t][i];
            r.pc = 0x1000 + 16 * i;
            CU_ASSERT_EQUAL(at_writer_put(w, &r), 0);
        }
        CU_ASSERT_EQUAL(at_writer_close(w), 0);
        g_free(path);
    }
    return dir;
}

static void remove_trace(char *dir, int nthreads)
{
    for (int t = 0; t < nthreads; t++) {
        char *path = g_strdup_printf("%s/T%d.trace", dir, t);
        g_remove(path);
        g_free(path);
    }
    g_rmdir(dir);
    g_free(dir);
}

/* One transaction of 12 loads and 12 stores of 12 lines: 64 B apart it fits the L1, unless
 * htm_max_records = 8 (the core's bound: a capacity abort, straight to the fallback); 4 KiB
 * apart they fall in one set of the 8-way L1 (the L1's capacity abort: no retry bit, the
 * fallback). */
static char *capacity_trace(uint64_t stride, size_t *n)
{
    AtRecord t0[2 + 24 + 1];
    *n = 0;
    t0[(*n)++] = (AtRecord){ .kind = AT_TX_BEGIN };
    for (int i = 0; i < 12; i++)
        t0[(*n)++] = (AtRecord){ .kind = AT_LOAD, .size = 8, .addr = 0x100000 + stride * (uint64_t)i };
    for (int i = 0; i < 12; i++)
        t0[(*n)++] = (AtRecord){ .kind = AT_STORE, .size = 8, .addr = 0x100000 + stride * (uint64_t)i };
    t0[(*n)++] = (AtRecord){ .kind = AT_TX_END };
    t0[(*n)++] = (AtRecord){ .kind = AT_LOAD, .size = 8, .addr = 0x100000 };
    const AtRecord *th[] = { t0 };
    return write_trace(th, n, 1);
}

static void test_capacity(void)
{
    size_t n;
    char *near = capacity_trace(64, &n), *far = capacity_trace(4096, &n);
    for (int way = 0; way < 3; way++) {
        const char *sets[][3] = { { "core.htm=on", "core.htm_max_records=8", NULL },
                                  { "core.htm=on", NULL, NULL },
                                  { "core.htm=on", NULL, NULL } };
        SystemRun *r = replay(way == 1 ? far : near, 2, sets[way], 1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        bool fits = way == 2;
        CU_ASSERT_EQUAL(stat_u(r, "core0.tx_commits"), fits ? 1 : 0);
        CU_ASSERT_EQUAL(stat_u(r, "core0.tx_aborts_capacity"), fits ? 0 : 1);
        CU_ASSERT_EQUAL(stat_u(r, "core0.tx_fallbacks"), fits ? 0 : 1);
        CU_ASSERT_EQUAL(stat_u(r, "core0.tx_retries"), 0);
        CU_ASSERT_EQUAL(stat_u(r, "core0.tx_begins"), 1);
        CU_ASSERT_EQUAL(stat_u(r, "core0.records"), n);
        CU_ASSERT_EQUAL(stat_u(r, "l1d0.htm.aborts.capacity"), way == 1 ? 1 : 0);
        /* the fallback ran the records taken so far again, non-transactionally (the L1's
           abort: at the 8th line, the set's eighth way holds the fallback word) */
        if (way == 0)
            CU_ASSERT_EQUAL(stat_u(r, "core0.tx_records_replayed"), 9);
        if (way == 1)
            CU_ASSERT_EQUAL(stat_u(r, "core0.tx_records_replayed"), 8);
        system_free(r);
    }
    remove_trace(near, 1);
    remove_trace(far, 1);
}

/* The program's archsim_tx_abort: the body before it is rolled back (never retried), the part
 * after it runs under the fallback lock; a create inside a transaction aborts it and its region
 * runs under the fallback lock; a plain transaction commits. */
static void test_program_abort_and_sync(void)
{
    static const AtRecord t0[] = {
        { .kind = AT_TX_BEGIN }, { .kind = AT_STORE, .size = 8, .addr = 0x20000 },
        { .kind = AT_TX_ABORT }, { .kind = AT_STORE, .size = 8, .addr = 0x20040 },
        { .kind = AT_TX_END },
        { .kind = AT_TX_BEGIN }, { .kind = AT_LOAD, .size = 8, .addr = 0x20000 },
        { .kind = AT_STORE, .size = 8, .addr = 0x20000 }, { .kind = AT_TX_END },
        { .kind = AT_TX_BEGIN }, { .kind = AT_CREATE, .arg = 1 }, { .kind = AT_TX_END },
        { .kind = AT_JOIN, .arg = 1 }, { .kind = AT_TX_END },   /* a stray end: ignored */
    };
    static const AtRecord t1[] = { { .kind = AT_LOAD, .size = 8, .addr = 0x30000 },
                                   { .kind = AT_STORE, .size = 8, .addr = 0x30000 } };
    const AtRecord *th[] = { t0, t1 };
    size_t n[] = { G_N_ELEMENTS(t0), G_N_ELEMENTS(t1) };
    char *dir = write_trace(th, n, 2);
    const char *sets[] = { "core.htm=on", NULL };
    SystemRun *r = replay(dir, 2, sets, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(stat_u(r, "core0.tx_begins"), 3);
    CU_ASSERT_EQUAL(stat_u(r, "core0.tx_commits"), 1);
    CU_ASSERT_EQUAL(stat_u(r, "core0.tx_program_aborts"), 1);
    CU_ASSERT_EQUAL(stat_u(r, "core0.tx_aborts_explicit"), 1);
    CU_ASSERT_EQUAL(stat_u(r, "core0.tx_aborts_unsupported"), 1);
    CU_ASSERT_EQUAL(stat_u(r, "core0.tx_aborts"), 2);
    CU_ASSERT_EQUAL(stat_u(r, "core0.tx_retries"), 0);
    CU_ASSERT_EQUAL(stat_u(r, "core0.tx_fallbacks"), 2);
    CU_ASSERT_EQUAL(stat_u(r, "core0.records"), G_N_ELEMENTS(t0));
    CU_ASSERT_EQUAL(stat_u(r, "core1.records"), G_N_ELEMENTS(t1));
    CU_ASSERT_EQUAL(stat_u(r, "l1d0.htm.aborts.explicit"), 2);
    CU_ASSERT_EQUAL(stat_u(r, "l1d0.htm.commits"), 1);
    /* stores: the rolled-back one, the abort path's, the committed one */
    CU_ASSERT_EQUAL(stat_u(r, "core0.stores"), 3);
    system_free(r);
    remove_trace(dir, 2);
}

/* htm_mutex: fallback: every region of the sample runs under the fallback lock. */
static void test_mutex_fallback(void)
{
    const char *sets[] = { "core.htm=on", "core.htm_mutex=fallback", NULL };
    SystemRun *r = replay(SAMPLE, 5, sets, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(sum_of(r, "core", 5, "tx_commits"), 0);
    CU_ASSERT_EQUAL(sum_of(r, "core", 5, "tx_fallbacks"), 6000);
    CU_ASSERT_EQUAL(sum_of(r, "core", 5, "tx_aborts_unsupported") +
                    sum_of(r, "core", 5, "tx_aborts_conflict") +
                    sum_of(r, "core", 5, "tx_aborts_fallback_held"),
                    sum_of(r, "core", 5, "tx_aborts"));
    system_free(r);
}

/* The directory machine's L1 refuses transactions with a clear error. */
static void test_directory_refuses(void)
{
    GError *e = NULL;
    CfgNode *root = cfg_load_string("t.yaml", "system:\n  type: dirsmp\n  cores: 5\ncore:\n"
                                    "  type: thread-core\n  htm: on\nworkload:\n"
                                    "  trace: " SAMPLE "\n", NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    SystemRun *r = system_build(root, 1, NULL, NULL, &e);
    bool ok = r && system_run(r, &e);
    CU_ASSERT_FALSE(ok);
    CU_ASSERT_PTR_NOT_NULL(e);
    if (e)
        CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "need the snooping L1"));
    if (r)
        system_free(r);
    g_clear_error(&e);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("tctx", NULL, NULL);
    CU_add_test(s, "sample: protocols x conflict x versioning, checked", test_sample_matrix);
    CU_add_test(s, "contention: aborts, retries, the fallback", test_contention);
    CU_add_test(s, "memory models and lock algorithms on the fallback", test_models_and_mutex);
    CU_add_test(s, "same config and seed, same stats", test_deterministic);
    CU_add_test(s, "htm off leaves the replay unchanged", test_off_unchanged);
    CU_add_test(s, "capacity: the record bound and the L1's", test_capacity);
    CU_add_test(s, "the program's abort, a create inside", test_program_abort_and_sync);
    CU_add_test(s, "htm_mutex: fallback", test_mutex_fallback);
    CU_add_test(s, "the directory L1 refuses", test_directory_refuses);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
