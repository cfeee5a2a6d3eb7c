/* test_replay.c: every recorded sample trace (traces/samples/, made by `make traces`) replays on
 * the MESI snooping machine, one thread per core, with the reference-memory and SWMR checks on
 * and without deadlock, under model none (the default) and each memory model (sc, tso, pso,
 * weak); the false-sharing pair shows the expected gap; spin locks built from atomics and pthread
 * mutexes are serialized in simulated time; synthetic traces pin the memory pipeline's rules
 * (forwarding, FIFO vs out-of-order drain, fences, release/acquire, atomic RMWs). */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "../../models/mem/memmsg.h"
#include "../../sim/system.h"
#include "sysutil.h"
#include "../../traces/atrace.h"
#include "../../sim/tracedump.h"

/* The replay machine with checks on, then `sets` (NULL-terminated KEY=VALUE; NULL: none); td
 * (NULL: none) dumps its events under opts. Built, not run. */
static SystemRun *replay_sets(const char *dir, int cores, const char *const *sets, TraceDump *td,
                              const TraceOptions *opts, GError **e)
{
    CfgNode *root = cfg_load_file("configs/false_sharing/replay.yaml", NULL, e);
    if (!root)
        return NULL;
    char *s1 = g_strdup_printf("workload.trace=%s", dir);
    char *s2 = g_strdup_printf("system.cores=%d", cores);
    bool ok = cfg_apply_set(root, s1, e) && cfg_apply_set(root, s2, e) &&
              cfg_apply_set(root, "system.check=true", e);
    for (const char *const *s = sets; ok && s && *s; s++)
        ok = cfg_apply_set(root, *s, e);
    g_free(s1), g_free(s2);
    if (!ok) {
        cfg_node_free(root);
        return NULL;
    }
    return system_build(root, 1, td, opts, e);
}

/* The replay machine with checks on; model NULL leaves core.model at its default (none). */
static SystemRun *replay_model(const char *dir, int cores, const char *protocol, const char *model,
                               GError **e)
{
    char *s3 = g_strdup_printf("l1d.protocol=%s", protocol);
    char *s4 = model ? g_strdup_printf("core.model=%s", model) : NULL;
    const char *sets[] = { s3, s4, NULL };
    SystemRun *r = replay_sets(dir, cores, sets, NULL, NULL, e);
    g_free(s3), g_free(s4);
    return r;
}

static SystemRun *replay(const char *dir, int cores, const char *protocol, GError **e)
{
    return replay_model(dir, cores, protocol, NULL, e);
}

/* A stat summed over cores 0 .. n-1 ("core%d.<name>"). */
static uint64_t core_sum(SystemRun *r, int n, const char *name)
{
    uint64_t sum = 0;
    for (int c = 0; c < n; c++) {
        char *s = g_strdup_printf("core%d.%s", c, name);
        sum += stat_u(r, s);
        g_free(s);
    }
    return sum;
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

/* The lock traces: name, and whether its locks are spin locks built from atomics. */
static const char *const lock_traces[] = { "spin_tas", "spin_ttas", "spin_ticket",
                                           "mutex_counter" };

/* Every acquisition of the recording went through the workload's lock manager, which grants one
 * holder at a time (it asserts so; only a forced grant, lock_order_conflicts, may add a second),
 * and with 4 threads on 4 cores some acquisitions waited. */
static void check_locks(SystemRun *r, const char *dir, int n, bool spin, bool ticket)
{
    uint64_t expect = count_acquisitions(dir, n, ticket);
    CU_ASSERT(expect >= 4);
    CU_ASSERT_EQUAL(stat_u(r, "workload.lock_grants"), expect);
    CU_ASSERT_EQUAL(stat_u(r, "workload.spin_lock_grants"), spin ? expect : 0);
    CU_ASSERT_EQUAL(stat_u(r, "workload.lock_words"), spin ? 1 : 0);
    CU_ASSERT(stat_u(r, "workload.lock_contended") > 0);
    CU_ASSERT_EQUAL(stat_u(r, "workload.lock_order_conflicts"), 0);
    CU_ASSERT_EQUAL(core_sum(r, n, "atomic_lock_acquisitions"), spin ? expect : 0);
}

/* Spin locks built from C11 atomics are re-timed like pthread mutexes (model none here; the
 * models are checked on the same traces in test_models_replay_every_sample). */
static void test_spin_locks_serialized(void)
{
    for (int i = 0; i < 4; i++) {
        char *dir = g_build_filename("traces/samples", lock_traces[i], NULL);
        int n = threads_of(dir);
        CU_ASSERT_EQUAL_FATAL(n, 5);       /* main + 4 workers */
        GError *e = NULL;
        SystemRun *r = replay(dir, n, "mesi", &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_TRUE(system_run(r, &e));
        check_locks(r, dir, n, i < 3, i == 2);
        if (e)
            fprintf(stderr, "\n%s: %s\n", dir, e->message);
        g_clear_error(&e);
        system_free(r);
        g_free(dir);
    }
}

/* ---- memory models ------------------------------------------------------------------------ */

static const char *const models[] = { "sc", "tso", "pso", "weak" };

/* Every sample trace replays under each model, checked (reference memory: every load, and the
 * old value of every atomic RMW, which the L1 now performs as one MSG_F_RMW; SWMR), on as many
 * cores as threads; the lock traces keep their mutual exclusion. Cost, measured on one 2-vCPU VM:
 * all 23 traces take 5.5 s under sc and about 4 s under each other model; the 8- and 16-thread
 * false-sharing traces (the same program as the 1-4 thread ones, 2-4 times longer: 2.5 s of
 * the 4) are left to model none's test above, so the four models cost about 14 s. */
static void test_models_replay_every_sample(void)
{
    static const char *const protos[] = { "msi", "mesi", "moesi" };
    int runs = 0;
    for (int m = 0; m < 4; m++) {
        GDir *d = g_dir_open("traces/samples", 0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(d);
        const char *name;
        int replayed = 0;
        while ((name = g_dir_read_name(d))) {
            if (g_str_has_prefix(name, "fs_") &&
                (g_str_has_suffix(name, "-8t") || g_str_has_suffix(name, "-16t")))
                continue;
            char *dir = g_build_filename("traces/samples", name, NULL);
            int n = g_file_test(dir, G_FILE_TEST_IS_DIR) ? threads_of(dir) : 0;
            if (n == 0) {
                g_free(dir);
                continue;
            }
            GError *e = NULL;
            SystemRun *r = replay_model(dir, n, protos[runs++ % 3], models[m], &e);
            if (!r || !system_run(r, &e)) {
                fprintf(stderr, "\n%s (%d threads, model %s): %s\n", dir, n, models[m],
                        e ? e->message : "?");
                CU_FAIL("sample trace replays under the model");
            } else {
                CU_ASSERT(stat_u(r, "l1d.accesses") > 0);
                CU_ASSERT(stat_u(r, "core0.sb_occupancy::samples") != UINT64_MAX);
                for (int i = 0; i < 4; i++)
                    if (strcmp(name, lock_traces[i]) == 0)
                        check_locks(r, dir, n, i < 3, i == 2);
                /* atomic RMWs reach the L1 as atomic operations */
                if (strcmp(name, "histogram") == 0)
                    CU_ASSERT(stat_u(r, "l1d.rmws") >= 100000);
            }
            g_clear_error(&e);
            system_free(r);
            g_free(dir);
            replayed++;
        }
        g_dir_close(d);
        CU_ASSERT(replayed >= 16);
    }
}

static char *stats_text(SystemRun *r)
{
    StatSet s;
    stats_init(&s);
    system_collect_stats(r, &s);
    GString *g = g_string_new(NULL);
    stats_format_txt(&s, g);
    stats_clear(&s);
    return g_string_free(g, FALSE);
}

/* Same trace, same model, same seed: the same stats, every line. */
static void test_models_deterministic(void)
{
    for (int m = 0; m < 4; m++) {
        char *text[2];
        for (int k = 0; k < 2; k++) {
            GError *e = NULL;
            SystemRun *r = replay_model("traces/samples/spin_ttas", 5, "mesi", models[m], &e);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            CU_ASSERT_TRUE(system_run(r, &e));
            text[k] = stats_text(r);
            system_free(r);
            g_clear_error(&e);
        }
        CU_ASSERT_STRING_EQUAL(text[0], text[1]);
        g_free(text[0]);
        g_free(text[1]);
    }
}

/* The store buffer pays on a store-heavy trace: the false-sharing counters (a load and a store
 * per increment, the line bouncing between cores). SC waits for every store before the next
 * load; TSO and PSO let the load pass it and forward the counter from the buffer; WEAK also
 * lets loads go out of order. */
static void test_models_store_heavy_faster(void)
{
    uint64_t cyc[4], fwd[4];
    for (int m = 0; m < 4; m++) {
        GError *e = NULL;
        SystemRun *r = replay_model("traces/samples/fs_packed-4t", 5, "mesi", models[m], &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_TRUE(system_run(r, &e));
        cyc[m] = stat_u(r, "sim.cycles");
        fwd[m] = core_sum(r, 5, "forwarded");
        system_free(r);
        g_clear_error(&e);
    }
    CU_ASSERT(cyc[1] <= cyc[0]);
    CU_ASSERT(cyc[2] <= cyc[0]);
    CU_ASSERT(cyc[3] <= cyc[0]);
    CU_ASSERT(cyc[1] * 2 < cyc[0]);           /* here much faster: the loads forward */
    CU_ASSERT_EQUAL(fwd[0], 0);               /* SC does not forward */
    CU_ASSERT(fwd[1] > 100000);
}

/* Release/acquire in a recorded trace: the test-and-test-and-set lock (traces/samples/spin_ttas:
 * the counter written in the critical section, then a release store of the lock word, which the
 * next holder takes with an acquire exchange). Under every model the release store waited in the
 * store buffer for the counter's store to perform, and the lock went to the next holder only
 * once the release had performed; the next holder's load of the counter is checked against the
 * reference memory. */
static void test_models_release_acquire_recorded(void)
{
    for (int m = 0; m < 4; m++) {
        GError *e = NULL;
        SystemRun *r = replay_model("traces/samples/spin_ttas", 5, "mesi", models[m], &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_TRUE(system_run(r, &e));
        CU_ASSERT(core_sum(r, 5, "release_waits") > 1000);
        CU_ASSERT(core_sum(r, 5, "release_wait_cycles") > 1000);
        CU_ASSERT_EQUAL(stat_u(r, "workload.lock_order_conflicts"), 0);
        system_free(r);
        g_clear_error(&e);
    }
}

/* ---- synthetic traces: one rule each -------------------------------------------------------- */

#define X 0x100000ull     /* lines of their own: each first access is a cold miss */
#define Y 0x200040ull
#define Z 0x300080ull
#define W 0x400100ull
#define L 0x500000ull     /* a lock word */

static AtRecord ld(uint64_t a) { return (AtRecord){ .kind = AT_LOAD, .size = 8, .addr = a }; }
static AtRecord st(uint64_t a) { return (AtRecord){ .kind = AT_STORE, .size = 8, .addr = a }; }
static AtRecord ald(uint64_t a, int mo)
{
    return (AtRecord){ .kind = AT_ALOAD, .size = 8, .addr = a, .mo = (uint8_t)mo };
}
static AtRecord ast(uint64_t a, int mo)
{
    return (AtRecord){ .kind = AT_ASTORE, .size = 8, .addr = a, .mo = (uint8_t)mo };
}
static AtRecord rmw(uint64_t a, int op, int mo)
{
    return (AtRecord){ .kind = AT_RMW, .size = 8, .addr = a, .op = (uint8_t)op, .mo = (uint8_t)mo };
}
static AtRecord fence(int mo) { return (AtRecord){ .kind = AT_FENCE, .mo = (uint8_t)mo }; }

/* Writes T0 (and T1 when n1 > 0) into a new temporary directory; returns it. */
static char *write_trace(const AtRecord *t0, size_t n0, const AtRecord *t1, size_t n1)
{
    char *dir = g_dir_make_tmp("archsim-replay-XXXXXX", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    for (int t = 0; t < (n1 ? 2 : 1); t++) {
        AtHeader h = { .version = ATRACE_VERSION, .tid = (uint32_t)t, .parent = t ? 0 : -1,
                       .flags = AT_H_HAS_GAPS };
        g_strlcpy(h.frontend, "synthetic", sizeof h.frontend);
        char *path = g_strdup_printf("%s/T%d.trace", dir, t);
        AtWriter *w = at_writer_open(path, &h, 1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        const AtRecord *recs = t ? t1 : t0;
        for (size_t i = 0, n = t ? n1 : n0; i < n; i++) {
            AtRecord r = recs[i];
            r.pc = 0x1000 + 16 * i;
            CU_ASSERT_EQUAL(at_writer_put(w, &r), 0);
        }
        CU_ASSERT_EQUAL(at_writer_close(w), 0);
        g_free(path);
    }
    return dir;
}

static void remove_trace(char *dir)
{
    for (int t = 0; t < 2; t++) {
        char *path = g_strdup_printf("%s/T%d.trace", dir, t);
        g_remove(path);
        g_free(path);
    }
    g_rmdir(dir);
    g_free(dir);
}

/* Runs a synthetic trace on 2 cores under model (NULL: none) and returns one stat per name. */
static void run_synth(const char *dir, const char *model, const char *const *names, uint64_t *out)
{
    GError *e = NULL;
    SystemRun *r = replay_model(dir, 2, "mesi", model, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    if (!system_run(r, &e)) {
        fprintf(stderr, "\n%s under %s: %s\n", dir, model ? model : "none", e ? e->message : "?");
        CU_FAIL("synthetic trace replays");
    }
    for (int i = 0; names[i]; i++)
        out[i] = stat_u(r, names[i]);
    g_clear_error(&e);
    system_free(r);
}

/* A load of bytes a buffered store wrote takes them from the buffer (TSO, PSO, WEAK); SC waits
 * for the store to perform. */
static void test_synth_forwarding(void)
{
    AtRecord t[] = { st(X), ld(X) };
    char *dir = write_trace(t, 2, NULL, 0);
    const char *const names[] = { "core0.forwarded", "core0.loads", "l1d0.loads", NULL };
    for (int m = 0; m < 4; m++) {
        uint64_t v[3];
        run_synth(dir, models[m], names, v);
        CU_ASSERT_EQUAL(v[0], m == 0 ? 0 : 1);
        CU_ASSERT_EQUAL(v[1], 1);
        CU_ASSERT_EQUAL(v[2], m == 0 ? 1 : 0);
    }
    remove_trace(dir);
}

/* TSO drains its store buffer in program order, one store at a time; PSO and WEAK drain stores
 * to different lines together. Three cold store misses to consecutive lines (one DRAM row; the
 * DRAM serves them one after the other, so together is not three times faster): TSO and SC pay
 * three full miss latencies, PSO and WEAK overlap them (measured 261 against 199 cycles). */
static void test_synth_fifo_vs_pso(void)
{
    AtRecord t[] = { st(X), st(X + 64), st(X + 128) };
    char *dir = write_trace(t, 3, NULL, 0);
    const char *const names[] = { "core0.cycles", "l1d0.miss_latency::mean", NULL };
    uint64_t v[4][2];
    for (int m = 0; m < 4; m++)
        run_synth(dir, models[m], names, v[m]);
    CU_ASSERT(v[1][1] > 20);
    CU_ASSERT(v[1][0] >= 3 * v[1][1]);           /* TSO: one miss after the other */
    CU_ASSERT_EQUAL(v[0][0], v[1][0]);           /* SC: the same here */
    CU_ASSERT(v[2][0] + v[1][0] / 5 < v[1][0]);  /* PSO: overlapped, at least 20 % faster */
    CU_ASSERT_EQUAL(v[3][0], v[2][0]);           /* WEAK: the same as PSO for stores */
    remove_trace(dir);
}

/* WEAK performs loads to different addresses out of order (up to `window` in flight); the other
 * models wait for each load. An acquire load holds back the loads after it, even under WEAK. */
static void test_synth_weak_loads(void)
{
    AtRecord relaxed[] = { ld(X), ld(X + 64), ld(X + 128) };
    AtRecord acquire[] = { ald(X, AT_MO_ACQUIRE), ld(X + 64), ld(X + 128) };
    char *d1 = write_trace(relaxed, 3, NULL, 0);
    char *d2 = write_trace(acquire, 3, NULL, 0);
    const char *const names[] = { "core0.cycles", "l1d0.miss_latency::mean", NULL };
    uint64_t pso[2], weak[2], weak_acq[2];
    run_synth(d1, "pso", names, pso);
    run_synth(d1, "weak", names, weak);
    run_synth(d2, "weak", names, weak_acq);
    CU_ASSERT(pso[0] >= 3 * pso[1]);
    CU_ASSERT(weak[0] + pso[0] / 5 < pso[0]);
    CU_ASSERT(weak_acq[0] > weak[0]);            /* X first, then the other two together */
    CU_ASSERT(weak_acq[0] < pso[0]);
    remove_trace(d1);
    remove_trace(d2);
}

/* Fences: seq_cst waits for the buffered store under every model (also SC, whose buffer is in
 * order but still a buffer); an acquire fence under WEAK waits for the loads before it; a release
 * fence makes a later store wait for every earlier access, which PSO would otherwise let pass. */
static void test_synth_fences(void)
{
    const char *const names[] = { "core0.fence_stalls", "core0.fence_stall_cycles",
                                  "core0.release_waits", "core0.fences", NULL };
    AtRecord sc[] = { st(X), fence(AT_MO_SEQ_CST), ld(Y) };
    char *dir = write_trace(sc, 3, NULL, 0);
    for (int m = 0; m < 4; m++) {
        uint64_t v[4];
        run_synth(dir, models[m], names, v);
        CU_ASSERT_EQUAL(v[0], 1);
        CU_ASSERT(v[1] > 20);
        CU_ASSERT_EQUAL(v[3], 1);
    }
    remove_trace(dir);

    AtRecord acq[] = { ld(X), fence(AT_MO_ACQUIRE), ld(Y) };
    AtRecord noacq[] = { ld(X), fence(AT_MO_RELAXED), ld(Y) };
    char *d1 = write_trace(acq, 3, NULL, 0), *d2 = write_trace(noacq, 3, NULL, 0);
    uint64_t a[4], b[4];
    run_synth(d1, "weak", names, a);
    run_synth(d2, "weak", names, b);
    CU_ASSERT_EQUAL(a[0], 1);
    CU_ASSERT(a[1] > 20);
    CU_ASSERT_EQUAL(b[0], 0);
    run_synth(d1, "tso", names, a);             /* TSO: the load has performed already */
    CU_ASSERT_EQUAL(a[0], 0);
    remove_trace(d1);
    remove_trace(d2);

    AtRecord rel[] = { st(X), fence(AT_MO_RELEASE), st(Y) };
    AtRecord norel[] = { st(X), st(Y) };
    const char *const rnames[] = { "core0.release_waits", "core0.release_wait_cycles",
                                   "core0.cycles", NULL };
    d1 = write_trace(rel, 3, NULL, 0);
    d2 = write_trace(norel, 2, NULL, 0);
    run_synth(d1, "pso", rnames, a);
    run_synth(d2, "pso", rnames, b);
    CU_ASSERT_EQUAL(a[0], 1);
    CU_ASSERT(a[1] > 20);
    CU_ASSERT_EQUAL(b[0], 0);
    CU_ASSERT(a[2] > b[2] + 20);                /* Y drained after X, not with it */
    remove_trace(d1);
    remove_trace(d2);
}

/* C11 atomics: a release store waits for the earlier stores; a seq_cst store is a full fence
 * (it waits for the buffer, and the core for it); a seq_cst load waits for the buffer too; a
 * relaxed store does not wait. Atomic RMWs go to the L1 as one atomic operation (l1d.rmws),
 * model none sends them as plain writes. */
static void test_synth_atomics(void)
{
    const char *const names[] = { "core0.release_waits", "core0.fence_stalls", "l1d0.rmws",
                                  "core0.atomics", NULL };
    AtRecord rel[] = { st(X), ast(Y, AT_MO_RELEASE) };
    AtRecord rlx[] = { st(X), ast(Y, AT_MO_RELAXED) };
    AtRecord sc[] = { st(X), ast(Y, AT_MO_SEQ_CST), ld(Z) };
    AtRecord scl[] = { st(X), ald(Y, AT_MO_SEQ_CST) };
    AtRecord at[] = { rmw(X, AT_OP_ADD, AT_MO_RELAXED), rmw(Y, AT_OP_XCHG, AT_MO_ACQ_REL) };
    char *d[5] = { write_trace(rel, 2, NULL, 0), write_trace(rlx, 2, NULL, 0),
                   write_trace(sc, 3, NULL, 0), write_trace(scl, 2, NULL, 0),
                   write_trace(at, 2, NULL, 0) };
    for (int m = 0; m < 4; m++) {
        uint64_t v[5][4];
        for (int i = 0; i < 5; i++)
            run_synth(d[i], models[m], names, v[i]);
        CU_ASSERT_EQUAL(v[0][0], 1);            /* the release waits for X */
        CU_ASSERT_EQUAL(v[1][0], 0);            /* relaxed: no release wait (TSO: FIFO) */
        CU_ASSERT_EQUAL(v[2][1], 1);            /* seq_cst store */
        CU_ASSERT_EQUAL(v[3][1], 1);            /* seq_cst load */
        CU_ASSERT_EQUAL(v[4][2], 2);            /* two atomic RMWs at the L1 */
        CU_ASSERT_EQUAL(v[4][3], 2);
    }
    uint64_t none[4];
    run_synth(d[4], NULL, names, none);
    CU_ASSERT_EQUAL(none[2], 0);
    CU_ASSERT_EQUAL(none[3], 2);
    for (int i = 0; i < 5; i++)
        remove_trace(d[i]);
}

/* A release/acquire hand-over through a spin lock: thread 0 takes L, writes X (a cold miss) and
 * releases L; thread 1 (its first test-and-set fails: spin evidence, so L is a lock word) then
 * takes L and reads X. Under every model the release store waits in the buffer until X's store
 * performed, and the lock passes only once the release performed: thread 1 waits for the lock
 * at least a miss longer than under model none, which frees the lock as soon as the release
 * store is issued. Thread 1's load of X is checked against the reference memory. */
static void test_synth_release_acquire(void)
{
    AtRecord t0[] = { { .kind = AT_CREATE, .arg = 1 }, rmw(L, AT_OP_XCHG, AT_MO_ACQUIRE), st(X),
                      ast(L, AT_MO_RELEASE), { .kind = AT_JOIN, .arg = 1 } };
    AtRecord t1[] = { rmw(L, AT_OP_XCHG, AT_MO_ACQUIRE), rmw(L, AT_OP_XCHG, AT_MO_ACQUIRE),
                      ld(X), ast(L, AT_MO_RELEASE) };
    t1[0].flags = AT_F_UNCHANGED | AT_F_GAP;    /* failed test-and-set, after thread 0's */
    t1[0].gap = 20;
    char *dir = write_trace(t0, 5, t1, 4);
    const char *const names[] = { "core0.release_waits", "core0.release_wait_cycles",
                                  "core1.sync_wait_cycles", "workload.spin_lock_grants",
                                  "workload.lock_words", "core1.loads", NULL };
    uint64_t none[6];
    run_synth(dir, NULL, names, none);
    CU_ASSERT_EQUAL(none[3], 2);
    CU_ASSERT_EQUAL(none[4], 1);
    for (int m = 0; m < 4; m++) {
        uint64_t v[6];
        run_synth(dir, models[m], names, v);
        CU_ASSERT_EQUAL(v[0], 1);
        CU_ASSERT(v[1] > 20);
        CU_ASSERT(v[2] > none[2] + 20);
        CU_ASSERT_EQUAL(v[3], 2);
        CU_ASSERT_EQUAL(v[4], 1);
        CU_ASSERT_EQUAL(v[5], 1);
    }
    remove_trace(dir);
}

/* ---- issue 15 item 7: a record's compute gap is spent before it issues --------------------
 * Whatever the record and whatever the core model, its gap (cpi x instructions) comes first, in
 * program order: the record issues after it, and the records after a record that waits pay
 * their own gaps after the wait. Observed in the L1s' event dump: the cycle of a line's first
 * L1 event says when the core's access to it issued. */

#define G7 3000                 /* the gap under test, in instructions (cpi 1) */
#define X7_LINES 8              /* lines whose first L1 event a case checks */

static AtRecord gapped(AtRecord r, uint64_t insts)
{
    r.flags |= AT_F_GAP;
    r.gap = insts;
    return r;
}

/* Runs dir on `cores` cores of the replay machine with `sets` (NULL-terminated KEY=VALUE),
 * checks on, dumping every L1's events as text; returns the dump's path (in a new temporary
 * directory: free with remove_dump) or NULL when the run failed. */
static char *dump_run(const char *dir, int cores, const char *const *sets)
{
    GError *e = NULL;
    char *tmp = g_dir_make_tmp("archsim-gap7-XXXXXX", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
    char *path = g_build_filename(tmp, "l1.txt", NULL);
    g_free(tmp);
    char *comps[] = { "l1d*", NULL };
    TraceOptions o = { .format = TRACE_FMT_TEXT, .path = path, .end = UINT64_MAX,
                       .components = comps };
    TraceDump *td = trace_open(&o, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    SystemRun *r = replay_sets(dir, cores, sets, td, &o, &e);
    bool ran = r && system_run(r, &e);
    if (!ran)
        trace_abort(td);                  /* nothing kept */
    if (!ran || !trace_close(td, &e)) {
        fprintf(stderr, "\n%s: %s\n", dir, e ? e->message : "?");
        g_clear_error(&e);
        g_free(path);
        path = NULL;
    }
    if (r)
        system_free(r);
    return path;
}

static void remove_dump(char *path)
{
    if (!path)
        return;
    char *d = g_path_get_dirname(path);
    g_remove(path);
    g_rmdir(d);
    g_free(d);
    g_free(path);
}

/* From a dump: the first cycle l1d<core> logged an event on each line of addrs (UINT64_MAX:
 * never), and, when win is set, the events of every L1 per window of `width` cycles. */
static void dump_scan(const char *path, int core, const uint64_t *addrs, int n, uint64_t *first,
                      uint64_t width, uint64_t *win, int nwin)
{
    for (int i = 0; i < n; i++)
        first[i] = UINT64_MAX;
    for (int i = 0; win && i < nwin; i++)
        win[i] = 0;
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned long long cyc;
        int idx;
        if (sscanf(line, " %llu: l1d%d:", &cyc, &idx) != 2)
            continue;
        if (win && cyc / width < (unsigned long long)nwin)
            win[cyc / width]++;
        const char *a = strstr(line, " addr=0x");
        if (idx != core || !a)
            continue;
        uint64_t addr = g_ascii_strtoull(a + 8, NULL, 16) & ~63ull;
        for (int i = 0; i < n; i++)
            if (addrs[i] == addr && first[i] == UINT64_MAX)
                first[i] = cyc;
    }
    fclose(f);
}

/* A case: thread 0's and thread 1's records, and lines whose first L1 event (on that core's L1)
 * must come after the gap G7 (and before G7 + 2000: the gap is not paid twice). */
typedef struct {
    const char *what;
    AtRecord t0[8];
    int n0;
    AtRecord t1[4];
    int n1;
    int core[3];
    uint64_t after[3];          /* 0: unused */
    bool lock;                  /* run under every mutex mapping too */
    bool tx;                    /* needs htm: on */
} GapCase;

#define CR1 ((AtRecord){ .kind = AT_CREATE, .arg = 1 })
#define JN1 ((AtRecord){ .kind = AT_JOIN, .arg = 1 })
#define LK(a) ((AtRecord){ .kind = AT_LOCK_ACQ, .addr = (a) })
#define UL(a) ((AtRecord){ .kind = AT_LOCK_REL, .addr = (a) })
#define BAR7 0x600000ull
#define C7 0x700000ull          /* the line the record under test touches */
#define B7 0x710000ull          /* a store after it */
#define D7 0x720000ull          /* thread 1's access */

static void gap_case_check(const GapCase *gc, const char *dir, const char *const *sets,
                           const char *label)
{
    char *path = dump_run(dir, 2, sets);
    CU_ASSERT_PTR_NOT_NULL_FATAL(path);
    for (int i = 0; i < 3 && gc->after[i]; i++) {
        uint64_t first;
        dump_scan(path, gc->core[i], &gc->after[i], 1, &first, 0, NULL, 0);
        bool ok = first != UINT64_MAX && first >= G7 - 1 && first < G7 + 2000;
        if (!ok)
            fprintf(stderr, "\n  %s, %s: l1d%d first touched 0x%" G_GINT64_MODIFIER "x at cycle "
                    "%" G_GINT64_MODIFIER "d, not after the gap of %d\n", gc->what, label,
                    gc->core[i], gc->after[i], (gint64)first, G7);
        CU_ASSERT(ok);
    }
    remove_dump(path);
}

static void test_issue15_item7_every_kind_every_model(void)
{
    const AtRecord sa = st(X), sb = st(B7), sc7 = st(C7), sd = st(D7);
    AtRecord rr = { .kind = AT_RANGE_R, .addr = C7, .arg = 128 };
    AtRecord rw = { .kind = AT_RANGE_W, .addr = C7, .arg = 128 };
    AtRecord cas = { .kind = AT_CAS_OK, .size = 8, .addr = C7, .mo = AT_MO_SEQ_CST,
                     .mo_fail = AT_MO_RELAXED };
    AtRecord casf = cas;
    casf.kind = AT_CAS_FAIL;
    AtRecord bar = { .kind = AT_BARRIER, .addr = BAR7, .arg = 2 };
    AtRecord cw = { .kind = AT_COND_WAIT, .addr = 0x730000 };
    AtRecord txb = { .kind = AT_TX_BEGIN }, txe = { .kind = AT_TX_END };
    /* .core / .after: the L1 (core) and line of each check */
    const GapCase cases[] = {
        { .what = "load", .t0 = { sa, gapped(ld(C7), G7), sb }, .n0 = 3, .after = { C7, B7 } },
        { .what = "atomic load", .t0 = { sa, gapped(ald(C7, AT_MO_ACQUIRE), G7), sb }, .n0 = 3,
          .after = { C7, B7 } },
        { .what = "store", .t0 = { sa, gapped(sc7, G7), sb }, .n0 = 3, .after = { C7, B7 } },
        { .what = "release store", .t0 = { sa, gapped(ast(C7, AT_MO_RELEASE), G7), sb },
          .n0 = 3, .after = { C7, B7 } },
        { .what = "rmw", .t0 = { sa, gapped(rmw(C7, AT_OP_ADD, AT_MO_RELAXED), G7), sb },
          .n0 = 3, .after = { C7, B7 } },
        { .what = "cas", .t0 = { sa, gapped(cas, G7), sb }, .n0 = 3, .after = { C7, B7 } },
        { .what = "failed cas", .t0 = { sa, gapped(casf, G7), sb }, .n0 = 3, .after = { B7 } },
        { .what = "fence", .t0 = { sa, gapped(fence(AT_MO_SEQ_CST), G7), sb }, .n0 = 3,
          .after = { B7 } },
        { .what = "range read", .t0 = { sa, gapped(rr, G7), sb }, .n0 = 3, .after = { C7, B7 } },
        { .what = "range write", .t0 = { sa, gapped(rw, G7), sb }, .n0 = 3,
          .after = { C7, B7 } },
        { .what = "cond wait", .t0 = { sa, gapped(cw, G7), sb }, .n0 = 3, .after = { B7 } },
        { .what = "lock", .t0 = { sa, gapped(LK(L), G7), sb, UL(L) }, .n0 = 4, .after = { B7 },
          .lock = true },
        /* the compute before an unlock is inside the critical section: thread 1 waits for it */
        { .what = "unlock", .t0 = { CR1, LK(L), sa, gapped(UL(L), G7), JN1 }, .n0 = 5,
          .t1 = { LK(L), sd, UL(L) }, .n1 = 3, .core = { 1 }, .after = { D7 }, .lock = true },
        { .what = "create", .t0 = { sa, gapped(CR1, G7), JN1 }, .n0 = 3, .t1 = { sd }, .n1 = 1,
          .core = { 1 }, .after = { D7 } },
        { .what = "join", .t0 = { CR1, gapped(JN1, G7), sb }, .n0 = 3, .t1 = { sd }, .n1 = 1,
          .after = { B7 } },
        { .what = "barrier", .t0 = { CR1, gapped(bar, G7), sb, JN1 }, .n0 = 4,
          .t1 = { bar, sd }, .n1 = 2, .core = { 0, 1 }, .after = { B7, D7 } },
        { .what = "load in a transaction", .t0 = { sa, txb, gapped(ld(C7), G7), sb, txe },
          .n0 = 5, .after = { C7, B7 }, .tx = true },
    };
    static const char *const mods[] = { "none", "sc", "tso", "pso", "weak" };
    static const char *const mutexes[] = { "manager", "tas", "mcs" };
    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
        const GapCase *gc = &cases[c];
        char *dir = write_trace(gc->t0, gc->n0, gc->t1, gc->n1);
        for (int m = 0; m < 5; m++)
            for (int x = 0; x < (gc->lock ? 3 : 1); x++) {
                char *s0 = g_strdup_printf("core.model=%s", mods[m]);
                char *s1 = g_strdup_printf("core.mutex=%s", mutexes[x]);
                const char *sets[] = { s0, s1, gc->tx ? "core.htm=on" : NULL, NULL };
                char *label = g_strdup_printf("model %s, mutex %s", mods[m], mutexes[x]);
                gap_case_check(gc, dir, sets, label);
                g_free(label);
                g_free(s0);
                g_free(s1);
            }
        remove_trace(dir);
    }
}

/* The mutex program of the issue: thread 0 computes 60,000 instructions before it locks; thread
 * 1 locks the same mutex meanwhile. The compute is not inside thread 0's critical section (its
 * store there comes after it) and thread 1 does not wait for it. */
static void test_issue15_item7_mutex_compute_outside_lock(void)
{
    const uint64_t g = 60000;
    AtRecord t0[] = { CR1, gapped(LK(L), g), st(X), UL(L), JN1 };
    AtRecord t1[] = { LK(L), st(Y), UL(L) };
    char *dir = write_trace(t0, 5, t1, 3);
    static const char *const mods[] = { "none", "sc", "tso", "pso", "weak" };
    static const char *const mutexes[] = { "manager", "tas", "ttas", "mcs" };
    for (int m = 0; m < 5; m++)
        for (int x = 0; x < 4; x++) {
            char *s0 = g_strdup_printf("core.model=%s", mods[m]);
            char *s1 = g_strdup_printf("core.mutex=%s", mutexes[x]);
            const char *sets[] = { s0, s1, NULL };
            GError *e = NULL;
            SystemRun *r = replay_sets(dir, 2, sets, NULL, NULL, &e);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            CU_ASSERT_TRUE_FATAL(system_run(r, &e));
            uint64_t wait1 = stat_u(r, "core1.sync_wait_cycles");
            uint64_t end0 = stat_u(r, "core0.cycles"), end1 = stat_u(r, "core1.cycles");
            system_free(r);
            if (wait1 >= 1000 || end1 >= 5000 || end0 < g)
                fprintf(stderr, "\n  model %s, mutex %s: thread 1 waited %" G_GUINT64_FORMAT
                        " cycles, finished at %" G_GUINT64_FORMAT ", thread 0 at %"
                        G_GUINT64_FORMAT "\n", mods[m], mutexes[x], wait1, end1, end0);
            CU_ASSERT(wait1 < 1000);       /* it found the mutex free (was ~60,000) */
            CU_ASSERT(end1 < 5000);
            CU_ASSERT(end0 >= g);
            /* thread 0's store inside its critical section comes after its compute */
            char *path = dump_run(dir, 2, sets);
            CU_ASSERT_PTR_NOT_NULL_FATAL(path);
            uint64_t lines[] = { X }, first;
            dump_scan(path, 0, lines, 1, &first, 0, NULL, 0);
            CU_ASSERT(first != UINT64_MAX && first >= g - 1 && first < g + 2000);
            remove_dump(path);
        }
    remove_trace(dir);
}

/* The histogram sample (relaxed fetch_adds with compute between them): its L1 events are spread
 * evenly over the run under every model, as under tso, rather than bunched in the first windows
 * with nothing after (model none was 124,516 / 128,675 / 47,438 then 0 / 0 / 0 events per
 * 100,000-cycle window). Every window before the last two holds at least half of the busiest. */
static void test_issue15_item7_histogram_windows(void)
{
    static const char *const mods[] = { "none", "sc", "tso", "pso", "weak" };
    for (int m = 0; m < 5; m++) {
        char *s0 = g_strdup_printf("core.model=%s", mods[m]);
        const char *sets[] = { s0, NULL };
        char *path = dump_run("traces/samples/histogram", 5, sets);
        CU_ASSERT_PTR_NOT_NULL_FATAL(path);
        uint64_t win[32], last = 0, most = 0, least = UINT64_MAX;
        dump_scan(path, 0, NULL, 0, NULL, 100000, win, 32);
        for (int i = 0; i < 32; i++)
            if (win[i])
                last = (uint64_t)i;
        CU_ASSERT(last >= 3 && last < 31);
        for (uint64_t i = 0; i + 1 < last; i++) {
            most = win[i] > most ? win[i] : most;
            least = win[i] < least ? win[i] : least;
        }
        if (least * 2 < most) {
            fprintf(stderr, "\n  model %s: L1 events per 100k cycles:", mods[m]);
            for (uint64_t i = 0; i <= last; i++)
                fprintf(stderr, " %" G_GUINT64_FORMAT, win[i]);
            fprintf(stderr, "\n");
        }
        CU_ASSERT(least * 2 >= most);
        remove_dump(path);
        g_free(s0);
    }
}

/* model none is the core as it was: it has none of the pipeline's statistics, and a bad model
 * name is a config error naming the choices. */
/* issue 15 item 9: accesses in the last line of the address space. Their end address is 2^64,
 * 0 in 64 bits: an access that ended there sent nothing (a false deadlock) and one inside that
 * line looped over the whole address space. Loads, stores, a store forwarded to a load and an
 * RMW, under model none and every memory model, complete with the checks on. */
static void test_issue15_item9_last_line_of_memory(void)
{
    const uint64_t top = UINT64_MAX - 7;    /* the last 8 bytes */
    AtRecord t[] = { ld(top), st(top - 8), ld(top - 8), rmw(top - 16, AT_OP_ADD, AT_MO_SEQ_CST),
                     st(top), ld(top) };
    char *dir = write_trace(t, G_N_ELEMENTS(t), NULL, 0);
    const char *const names[] = { "core0.loads", NULL };
    for (int m = -1; m < 4; m++) {
        uint64_t v[1] = { 0 };
        run_synth(dir, m < 0 ? NULL : models[m], names, v);
        CU_ASSERT_EQUAL(v[0], 3);     /* the three loads; the RMW is counted apart */
    }
    remove_trace(dir);
}

/* A recorded compute gap longer than sim.watchdog is the trace's own quiet, not a deadlock: the
 * core sleeps it out with nothing in flight (before, the watchdog reported a deadlock, the false
 * one tools/fuzz/fuzz_threadcore.c had to allow), under model none and every memory model. A
 * livelock is still caught: thread-core's spin tests above. */
static void test_gap_past_watchdog(void)
{
    AtRecord t[] = { ld(0x10000), gapped(ld(0x10040), 5000), st(0x10080) };
    char *dir = write_trace(t, G_N_ELEMENTS(t), NULL, 0);
    for (int m = -1; m < 4; m++) {
        char *model = g_strdup_printf("core.model=%s", m < 0 ? "none" : models[m]);
        const char *sets[] = { "sim.watchdog=1000", model, NULL };
        GError *e = NULL;
        SystemRun *r = replay_sets(dir, 1, sets, NULL, NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        bool ran = system_run(r, &e);
        if (!ran)
            fprintf(stderr, "\n%s: %s\n", model, e ? e->message : "?");
        CU_ASSERT_TRUE(ran);
        CU_ASSERT_TRUE(stat_u(r, "core0.cycles") >= 5000 && stat_u(r, "core0.cycles") < 8000);
        g_clear_error(&e);
        system_free(r);
        g_free(model);
    }
    remove_trace(dir);
}

static void test_model_param(void)
{
    GError *e = NULL;
    SystemRun *r = replay("traces/samples/fs_padded-1t", 2, "mesi", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_TRUE(system_run(r, &e));
    CU_ASSERT_EQUAL(stat_u(r, "core0.forwarded"), UINT64_MAX);
    CU_ASSERT_EQUAL(stat_u(r, "l1d.rmws"), 0);
    system_free(r);
    r = replay_model("traces/samples/fs_padded-1t", 2, "mesi", "rmo", &e);
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "weak"));
    g_clear_error(&e);
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
    CU_add_test(s, "model: none is the default, a bad name is refused", test_model_param);
    CU_add_test(s, "every sample replays under sc, tso, pso and weak, checked",
                test_models_replay_every_sample);
    CU_add_test(s, "each model is deterministic", test_models_deterministic);
    CU_add_test(s, "tso, pso, weak no slower than sc on a store-heavy trace",
                test_models_store_heavy_faster);
    CU_add_test(s, "recorded spin lock: release waits for the critical section's stores",
                test_models_release_acquire_recorded);
    CU_add_test(s, "store-to-load forwarding", test_synth_forwarding);
    CU_add_test(s, "tso drains in order, pso out of order", test_synth_fifo_vs_pso);
    CU_add_test(s, "weak performs loads out of order, acquire holds them",
                test_synth_weak_loads);
    CU_add_test(s, "fences: seq_cst, acquire, release", test_synth_fences);
    CU_add_test(s, "C11 atomics: release, seq_cst, RMW at the L1", test_synth_atomics);
    CU_add_test(s, "release/acquire hand-over through a spin lock", test_synth_release_acquire);
    CU_add_test(s, "issue15_item7_every_kind_every_model: a record's gap comes before it",
                test_issue15_item7_every_kind_every_model);
    CU_add_test(s, "issue15_item7_mutex_compute_outside_lock: compute before a lock is not in "
                "the critical section", test_issue15_item7_mutex_compute_outside_lock);
    CU_add_test(s, "issue15_item9_last_line_of_memory: accesses that end at 2^64 complete",
                test_issue15_item9_last_line_of_memory);
    CU_add_test(s, "issue15_item7_histogram_windows: L1 events spread evenly over the run",
                test_issue15_item7_histogram_windows);
    CU_add_test(s, "a recorded gap past sim.watchdog is not a deadlock", test_gap_past_watchdog);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
