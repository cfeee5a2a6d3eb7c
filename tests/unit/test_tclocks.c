/* test_tclocks.c: pthread mutexes of real traces run as lock algorithms (thread-core `mutex`,
 * models/cpu/tclocks.c). The state machines alone against a functional memory with a random
 * interleaving (mutual exclusion, op counts, the checker, wait cycles), then the sample traces
 * that take mutexes replayed on the snooping machine with the reference-memory checks on under
 * every algorithm: completion, every recorded lock acquired, traffic shapes, determinism. */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "../../models/cpu/tclocks.h"
#include "../../models/mem/memmsg.h"
#include "../../sim/component.h"
#include "../../sim/error.h"
#include "../../sim/system.h"
#include "../../traces/atrace.h"
#include "sysutil.h"

/* ---- the state machines against a functional memory ------------------------------------- */

#define NT 4

typedef struct {
    GHashTable *mem;            /* addr -> value (absent: 0) */
    uint64_t resv[NT];          /* LL reservation (address), 0: none */
} Mem;

static uint64_t mget(Mem *M, uint64_t a)
{
    gpointer v;
    return g_hash_table_lookup_extended(M->mem, &a, NULL, &v) ? *(uint64_t *)v : 0;
}

static void mput(Mem *M, int who, uint64_t a, uint64_t v)
{
    uint64_t *k = g_new(uint64_t, 1), *x = g_new(uint64_t, 1);
    *k = a;
    *x = v;
    g_hash_table_replace(M->mem, k, x);
    for (int i = 0; i < NT; i++)
        if (i != who && M->resv[i] == a)
            M->resv[i] = 0;
}

/* Performs access a of thread `who` atomically (a watch only when the value changed: false). */
static bool perform(Mem *M, int who, const TclAccess *a, uint64_t *old, uint64_t *ok)
{
    uint64_t v = mget(M, a->addr);
    *old = v;
    *ok = 1;
    if (a->cmd == MSG_READ_REQ) {
        if (a->flags & MSG_F_WATCH)
            return v != a->aux[1];
        if (a->flags & MSG_F_LL)
            M->resv[who] = a->addr;
        return true;
    }
    CU_ASSERT_EQUAL(a->cmd, MSG_WRITE_REQ);
    if (a->flags & MSG_F_SC) {
        *ok = M->resv[who] == a->addr;
        M->resv[who] = 0;
        if (*ok)
            mput(M, who, a->addr, a->aux[0]);
    } else if (a->flags & MSG_F_RMW) {
        unsigned op = MSG_RMW_OP(a->flags);
        if (op == MSG_RMW_XCHG)
            mput(M, who, a->addr, a->aux[0]);
        else if (op == MSG_RMW_ADD)
            mput(M, who, a->addr, v + a->aux[0]);
        else if (v == a->aux[1])
            mput(M, who, a->addr, a->aux[0]);
        else
            *ok = 0;
    } else {
        mput(M, who, a->addr, a->aux[0]);
    }
    return true;
}

enum { T_IDLE, T_LOCKING, T_CS, T_UNLOCKING, T_FINISHED };

/* NT threads each lock and unlock one of two mutexes `iters` times in a random interleaving;
 * checks that at most one is inside each critical section and that all finish. */
static void run_interleaved(TclAlgo algo, int iters, unsigned seed)
{
    TclWorld *w = tcl_world_new(algo, NT, 64, 2, 16);
    Mem M = { .mem = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free) };
    GRand *g = g_rand_new_with_seed(seed);
    SimRng rng;
    sim_rng_seed(&rng, seed, "test");
    static const uint64_t mutexes[2] = { 0x601040, 0x601080 };
    int st[NT] = { 0 }, done[NT] = { 0 }, which[NT] = { 0 }, owner[2] = { -1, -1 };
    TclAccess acc[NT];
    int finished = 0;
    uint64_t now = 0, acquired = 0;
    bool overlap = false;
    while (finished < NT && now < 2000000) {
        int i = (int)g_rand_int_range(g, 0, NT);
        now++;
        TclThread *t = tcl_thread(w, i);
        int step = TCL_STEP_ACCESS;
        uint64_t delay;
        switch (st[i]) {
        case T_IDLE:
            which[i] = (int)g_rand_int_range(g, 0, 2);
            CU_ASSERT_EQUAL_FATAL(tcl_lock_begin(t, mutexes[which[i]], now, NULL), TCL_RUN);
            st[i] = T_LOCKING;
            while ((step = tcl_step(t, &rng, &acc[i], &delay)) == TCL_STEP_DELAY)
                ;
            break;
        case T_CS:
            owner[which[i]] = -1;
            CU_ASSERT_EQUAL_FATAL(tcl_unlock_begin(t, mutexes[which[i]], now), TCL_RUN);
            st[i] = T_UNLOCKING;
            while ((step = tcl_step(t, &rng, &acc[i], &delay)) == TCL_STEP_DELAY)
                ;
            break;
        case T_LOCKING:
        case T_UNLOCKING: {
            uint64_t old, ok;
            if (!perform(&M, i, &acc[i], &old, &ok))
                continue;                       /* a watch on an unchanged line: sleeping */
            GError *e = NULL;
            bool good = tcl_answer(t, now, old, ok, &e);
            if (!good)
                fprintf(stderr, "\n%s: %s\n", tcl_algo_names[algo], e->message);
            CU_ASSERT_TRUE_FATAL(good);
            while ((step = tcl_step(t, &rng, &acc[i], &delay)) == TCL_STEP_DELAY)
                ;
            break;
        }
        default:
            continue;
        }
        if (step != TCL_STEP_DONE)
            continue;
        if (st[i] == T_LOCKING) {
            overlap |= owner[which[i]] >= 0;
            owner[which[i]] = i;
            acquired++;
            st[i] = T_CS;
        } else {
            st[i] = ++done[i] == iters ? T_FINISHED : T_IDLE;
            finished += st[i] == T_FINISHED;
        }
    }
    CU_ASSERT_FALSE(overlap);
    CU_ASSERT_EQUAL(finished, NT);
    CU_ASSERT_EQUAL(acquired, (uint64_t)NT * iters);
    CU_ASSERT_EQUAL(tcl_world_totals(w).acquisitions, (uint64_t)NT * iters);
    CU_ASSERT_EQUAL(tcl_world_totals(w).mutexes, 2);
    if (finished < NT)
        fprintf(stderr, "\n%s: stuck after %" G_GUINT64_FORMAT " steps\n",
                tcl_algo_names[algo], now);
    g_rand_free(g);
    g_hash_table_destroy(M.mem);
    tcl_world_free(w);
}

static void test_algorithms_exclude(void)
{
    for (int a = TCL_TAS; a < TCL_COUNT; a++)
        for (unsigned seed = 1; seed <= 3; seed++)
            run_interleaved((TclAlgo)a, 300, seed);
}

/* Accesses of one uncontended lock and unlock: the op sequences of locks.c's kernels. */
static void test_uncontended_op_counts(void)
{
    static const int want[TCL_COUNT][2] = {
        [TCL_TAS] = { 1, 1 },     /* tas | store */
        [TCL_TTAS] = { 2, 1 },    /* load, tas | store */
        [TCL_BACKOFF] = { 2, 1 },
        [TCL_TICKET] = { 2, 1 },  /* faa, load serving | store serving */
        [TCL_ANDERSON] = { 3, 1 },/* faa, load slot, reset slot | store next slot */
        [TCL_MCS] = { 3, 2 },     /* next=0, locked=1, xchg tail | load next, cas tail */
        [TCL_CLH] = { 3, 1 },     /* node=1, xchg tail, load predecessor | node=0 */
        [TCL_LLSC] = { 3, 1 },    /* load, ll, sc | store */
    };
    for (int a = TCL_TAS; a < TCL_COUNT; a++) {
        TclWorld *w = tcl_world_new((TclAlgo)a, 2, 64, 8, 1024);
        Mem M = { .mem = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free) };
        SimRng rng;
        sim_rng_seed(&rng, 1, "t");
        TclThread *t = tcl_thread(w, 1);
        for (int rep = 0; rep < 3; rep++)        /* the second time reuses nodes and slots */
            for (int half = 0; half < 2; half++) {
                int n = 0, step;
                TclAccess x;
                uint64_t d, old, ok;
                int go = half == 0 ? tcl_lock_begin(t, 0x5000, 10, NULL)
                                   : tcl_unlock_begin(t, 0x5000, 20);
                CU_ASSERT_EQUAL(go, TCL_RUN);
                while ((step = tcl_step(t, &rng, &x, &d)) != TCL_STEP_DONE) {
                    if (step == TCL_STEP_DELAY)
                        continue;
                    CU_ASSERT(x.addr >= TCL_BASE);          /* never a trace address */
                    CU_ASSERT_TRUE(perform(&M, 1, &x, &old, &ok));
                    CU_ASSERT_TRUE(tcl_answer(t, 10, old, ok, NULL));
                    n++;
                }
                if (n != want[a][half])
                    fprintf(stderr, "\n%s: %s took %d accesses\n", tcl_algo_names[a],
                            half ? "unlock" : "lock", n);
                CU_ASSERT_EQUAL(n, want[a][half]);
            }
        CU_ASSERT_EQUAL(tcl_thread_stats(t)->acquisitions, 3);
        CU_ASSERT_EQUAL(tcl_thread_stats(t)->failed_attempts, 0);
        g_hash_table_destroy(M.mem);
        tcl_world_free(w);
    }
}

/* A memory that lies (both test-and-sets find the lock free): the checker fails with exit 3,
 * naming cycle, mutex and both threads. */
static void test_checker_catches_two_holders(void)
{
    TclWorld *w = tcl_world_new(TCL_TAS, 2, 64, 8, 1024);
    SimRng rng;
    sim_rng_seed(&rng, 1, "t");
    TclAccess x;
    uint64_t d;
    TclThread *t0 = tcl_thread(w, 0), *t1 = tcl_thread(w, 1);
    CU_ASSERT_EQUAL(tcl_lock_begin(t0, 0x7000, 5, NULL), TCL_RUN);
    CU_ASSERT_EQUAL(tcl_step(t0, &rng, &x, &d), TCL_STEP_ACCESS);
    CU_ASSERT_TRUE(tcl_answer(t0, 7, 0, 1, NULL));
    CU_ASSERT_EQUAL(tcl_lock_begin(t1, 0x7000, 8, NULL), TCL_RUN);
    CU_ASSERT_EQUAL(tcl_step(t1, &rng, &x, &d), TCL_STEP_ACCESS);
    CU_ASSERT(x.flags & MSG_F_TAS);
    GError *e = NULL;
    CU_ASSERT_FALSE(tcl_answer(t1, 9, 0, 1, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CHECK);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "cycle 9"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "0x7000"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "thread 1 acquired"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "thread 0 holds"));
    g_error_free(e);
    tcl_world_free(w);
}

/* t0 holds A and waits for B; t1 holds B and asks for A: granted at once (a wait cycle the
 * recorded run never had), counted, and its unlock skipped. */
static void test_wait_cycle_granted(void)
{
    TclWorld *w = tcl_world_new(TCL_MCS, 2, 64, 8, 1024);
    Mem M = { .mem = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free) };
    SimRng rng;
    sim_rng_seed(&rng, 1, "t");
    TclThread *t[2] = { tcl_thread(w, 0), tcl_thread(w, 1) };
    TclAccess x;
    uint64_t d, old, ok;
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(tcl_lock_begin(t[i], i ? 0xB000 : 0xA000, 1, NULL), TCL_RUN);
        while (tcl_step(t[i], &rng, &x, &d) == TCL_STEP_ACCESS) {
            perform(&M, i, &x, &old, &ok);
            tcl_answer(t[i], 2, old, ok, NULL);
        }
    }
    CU_ASSERT_EQUAL(tcl_lock_begin(t[0], 0xB000, 3, NULL), TCL_RUN);   /* t0 waits */
    CU_ASSERT_EQUAL(tcl_lock_begin(t[1], 0xA000, 4, NULL), TCL_SKIP);  /* would close it */
    CU_ASSERT_EQUAL(tcl_thread_stats(t[1])->order_conflicts, 1);
    CU_ASSERT_EQUAL(tcl_unlock_begin(t[1], 0xA000, 5), TCL_SKIP);
    CU_ASSERT_EQUAL(tcl_unlock_begin(t[1], 0xB000, 6), TCL_RUN);       /* the real one */
    CU_ASSERT_EQUAL(tcl_thread_stats(t[1])->releases, 1);
    CU_ASSERT_EQUAL(tcl_world_totals(w).order_conflicts, 1);
    g_hash_table_destroy(M.mem);
    tcl_world_free(w);
}

/* ---- sample traces on the snooping machine ---------------------------------------------- */

static SystemRun *replay_mutex(const char *dir, int cores, const char *mutex, const char *model,
                               GError **e)
{
    CfgNode *root = cfg_load_file("configs/locks/replay-mutex.yaml", NULL, e);
    if (!root)
        return NULL;
    char *s1 = g_strdup_printf("workload.trace=%s", dir);
    char *s2 = g_strdup_printf("system.cores=%d", cores);
    char *s3 = g_strdup_printf("core.mutex=%s", mutex);
    char *s4 = g_strdup_printf("core.model=%s", model ? model : "none");
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

/* pthread_mutex_lock markers of a trace. */
static uint64_t trace_locks(const char *dir)
{
    uint64_t n = 0;
    AtRecord *buf = g_new(AtRecord, 4096);
    for (int t = 0; t < threads_of(dir); t++) {
        char *p = g_strdup_printf("%s/T%d.trace", dir, t);
        AtReader *rd = at_reader_open(p, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(rd);
        size_t got;
        while ((got = at_reader_read(rd, buf, 4096, NULL)) > 0)
            for (size_t i = 0; i < got; i++)
                n += buf[i].kind == AT_LOCK_ACQ;
        at_reader_close(rd);
        g_free(p);
    }
    g_free(buf);
    return n;
}

static uint64_t core_sum(SystemRun *r, int n, const char *name)
{
    uint64_t sum = 0;
    for (int c = 0; c < n; c++) {
        char *s = g_strdup_printf("core%d.%s", c, name);
        uint64_t v = stat_u(r, s);
        sum += v == UINT64_MAX ? 0 : v;
        g_free(s);
    }
    return sum;
}

/* The samples that take pthread mutexes (test_replay.c: mutex_counter; the others found with
 * workload.lock_grants > 0), with what a run of all of them costs: measured 2-vCPU VM, every
 * algorithm, about 15 s. */
static const char *const mutex_traces[] = { "mutex_counter", "list_hoh", "kmeans", "spmv",
                                            "matmul_mt" };

/* Every recorded acquisition is run by the algorithm (or granted to break a wait cycle, only
 * in list_hoh, whose freed-and-reused node mutexes the manager also has to break), none goes
 * through the manager, each is released, and the checks (reference memory, SWMR, mutual
 * exclusion) hold. On as many cores as threads and on 8. */
static void test_samples_every_algorithm(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(mutex_traces); i++) {
        char *dir = g_build_filename("traces/samples", mutex_traces[i], NULL);
        int n = threads_of(dir);
        uint64_t locks = trace_locks(dir);
        CU_ASSERT(locks >= 4);
        for (int a = TCL_TAS; a < TCL_COUNT; a++) {
            int cores = (a + (int)i) % 2 ? 8 : n;
            GError *e = NULL;
            SystemRun *r = replay_mutex(dir, cores, tcl_algo_names[a], NULL, &e);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            bool ok = system_run(r, &e);
            if (!ok)
                fprintf(stderr, "\n%s %s: %s\n", dir, tcl_algo_names[a], e ? e->message : "?");
            CU_ASSERT_TRUE(ok);
            uint64_t acq = stat_u(r, "locks.acquisitions");
            uint64_t conflicts = stat_u(r, "locks.order_conflicts");
            CU_ASSERT_EQUAL(acq + conflicts, locks);
            CU_ASSERT_EQUAL(core_sum(r, cores, "lock_acquisitions"), acq);
            CU_ASSERT_EQUAL(core_sum(r, cores, "lock_releases"), acq);
            CU_ASSERT_EQUAL(core_sum(r, cores, "lock_unheld_unlocks"), 0);
            CU_ASSERT_EQUAL(stat_u(r, "workload.lock_grants"), 0);
            bool hoh = strcmp(mutex_traces[i], "list_hoh") == 0;
            CU_ASSERT(hoh ? conflicts < locks / 1000 : conflicts == 0);
            g_clear_error(&e);
            system_free(r);
        }
        g_free(dir);
    }
}

/* mutex_counter (4 workers on one mutex): shapes of the algorithms. */
static void test_contended_shapes(void)
{
    const char *dir = "traces/samples/mutex_counter";
    double bus[TCL_COUNT] = { 0 }, hand[TCL_COUNT] = { 0 }, acq[TCL_COUNT] = { 0 };
    for (int a = TCL_TAS; a < TCL_COUNT; a++) {
        GError *e = NULL;
        SystemRun *r = replay_mutex(dir, 5, tcl_algo_names[a], NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_TRUE(system_run(r, &e));
        bus[a] = (double)stat_u(r, "bus.transactions");
        hand[a] = (double)stat_u(r, "locks.handoffs");
        acq[a] = (double)stat_u(r, "locks.acquisitions");
        g_clear_error(&e);
        system_free(r);
    }
    /* every retry of tas is a GetM: more bus traffic per acquisition than the queue locks and
       than backoff */
    CU_ASSERT(bus[TCL_TAS] > bus[TCL_MCS]);
    CU_ASSERT(bus[TCL_TAS] > bus[TCL_CLH]);
    CU_ASSERT(bus[TCL_TAS] > 2 * bus[TCL_BACKOFF]);
    /* FIFO locks hand over on (almost) every acquisition; ttas lets the releaser take it again
       about every other time (its next test-and-set, 4 instructions after the unlock, often beats
       the waiters' reads; 40001 of 80000 hand-offs) */
    for (int a = TCL_TICKET; a <= TCL_CLH; a++)
        CU_ASSERT(hand[a] > 0.9 * acq[a]);
    CU_ASSERT(hand[TCL_TTAS] < 0.6 * acq[TCL_TTAS]);
}

/* Same config and seed: identical statistics (ttas-backoff draws random delays). */
static void test_deterministic(void)
{
    static const char *const names[] = { "sim.cycles", "bus.transactions", "locks.handoffs",
                                         "locks.acquire_cycles", "core1.lock_failed_attempts",
                                         "core2.lock_spin_waits" };
    uint64_t v[2][G_N_ELEMENTS(names)];
    for (int k = 0; k < 2; k++) {
        GError *e = NULL;
        SystemRun *r = replay_mutex("traces/samples/mutex_counter", 6, "ttas-backoff", "tso", &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_TRUE(system_run(r, &e));
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
            v[k][i] = stat_u(r, names[i]);
        system_free(r);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        CU_ASSERT_NOT_EQUAL(v[0][i], UINT64_MAX);
        CU_ASSERT_EQUAL(v[0][i], v[1][i]);
    }
}

/* Under the memory models too (a lock and an unlock are full fences). */
static void test_models(void)
{
    static const char *const runs[][3] = { { "mutex_counter", "mcs", "weak" },
                                           { "list_hoh", "clh", "pso" },
                                           { "kmeans", "llsc", "sc" } };
    for (size_t i = 0; i < G_N_ELEMENTS(runs); i++) {
        char *dir = g_build_filename("traces/samples", runs[i][0], NULL);
        GError *e = NULL;
        SystemRun *r = replay_mutex(dir, 7, runs[i][1], runs[i][2], &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_TRUE(system_run(r, &e));
        CU_ASSERT_EQUAL(stat_u(r, "locks.acquisitions") + stat_u(r, "locks.order_conflicts"),
                        trace_locks(dir));
        g_clear_error(&e);
        system_free(r);
        g_free(dir);
    }
}

/* Thread 0 creates thread 1, locks M and finishes holding it; thread 1 locks M. A real lock
 * would spin forever: the run fails with exit 3 (the watchdog's livelock for tas, which retries
 * without completing anything; nothing left to run for mcs, asleep on a watch). */
static void test_never_hangs(void)
{
    char *dir = g_dir_make_tmp("archsim-tclocks-XXXXXX", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    const AtRecord t0[] = { { .kind = AT_CREATE, .arg = 1 }, { .kind = AT_LOCK_ACQ, .addr = 0x9000 } };
    const AtRecord t1[] = { { .kind = AT_LOAD, .size = 8, .addr = 0x8000 },
                            { .kind = AT_LOCK_ACQ, .addr = 0x9000 },
                            { .kind = AT_LOCK_REL, .addr = 0x9000 } };
    for (int t = 0; t < 2; t++) {
        AtHeader h = { .version = ATRACE_VERSION, .tid = (uint32_t)t, .parent = t ? 0 : -1 };
        g_strlcpy(h.frontend, "synthetic", sizeof h.frontend);
        char *path = g_strdup_printf("%s/T%d.trace", dir, t);
        AtWriter *w = at_writer_open(path, &h, 1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        for (size_t i = 0; i < (t ? G_N_ELEMENTS(t1) : G_N_ELEMENTS(t0)); i++) {
            AtRecord r = t ? t1[i] : t0[i];
            r.pc = 0x1000 + 16 * i;
            CU_ASSERT_EQUAL(at_writer_put(w, &r), 0);
        }
        CU_ASSERT_EQUAL(at_writer_close(w), 0);
        g_free(path);
    }
    static const char *const algos[] = { "tas", "mcs" };
    for (int a = 0; a < 2; a++) {
        GError *e = NULL;
        SystemRun *r = replay_mutex(dir, 2, algos[a], NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_FALSE(system_run(r, &e));
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CHECK);
        g_clear_error(&e);
        system_free(r);
    }
    for (int t = 0; t < 2; t++) {
        char *path = g_strdup_printf("%s/T%d.trace", dir, t);
        g_remove(path);
        g_free(path);
    }
    g_rmdir(dir);
    g_free(dir);
}

/* manager stays the default (no lock_* or locks.* stats, grants by the workload); bad values
 * are config errors. */
static void test_params(void)
{
    GError *e = NULL;
    SystemRun *r = replay_mutex("traces/samples/matmul_mt", 5, "manager", NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_TRUE(system_run(r, &e));
    CU_ASSERT_EQUAL(stat_u(r, "workload.lock_grants"), trace_locks("traces/samples/matmul_mt"));
    CU_ASSERT_EQUAL(stat_u(r, "locks.acquisitions"), UINT64_MAX);
    CU_ASSERT_EQUAL(stat_u(r, "core0.lock_acquisitions"), UINT64_MAX);
    system_free(r);
    r = replay_mutex("traces/samples/matmul_mt", 5, "futex", NULL, &e);
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "mcs"));
    g_clear_error(&e);
    CfgNode *root = cfg_load_file("configs/locks/replay-mutex.yaml", NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_TRUE(cfg_apply_set(root, "core.backoff_min=64cycles", &e));
    CU_ASSERT_TRUE(cfg_apply_set(root, "core.backoff_max=8cycles", &e));
    r = system_build(root, 1, NULL, NULL, &e);
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "backoff_min"));
    g_clear_error(&e);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("tclocks", NULL, NULL);
    CU_add_test(s, "every algorithm excludes under random interleavings",
                test_algorithms_exclude);
    CU_add_test(s, "uncontended lock/unlock: the kernels' op counts",
                test_uncontended_op_counts);
    CU_add_test(s, "two holders fail the run, naming cycle, mutex, threads",
                test_checker_catches_two_holders);
    CU_add_test(s, "a wait cycle is granted and counted", test_wait_cycle_granted);
    CU_add_test(s, "mutex samples under every algorithm, checked", test_samples_every_algorithm);
    CU_add_test(s, "contended shapes: tas traffic, FIFO hand-offs", test_contended_shapes);
    CU_add_test(s, "same config and seed, same stats", test_deterministic);
    CU_add_test(s, "under memory models", test_models);
    CU_add_test(s, "a lock that can never be had fails the run, never hangs", test_never_hangs);
    CU_add_test(s, "manager is the default; bad values refused", test_params);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
