/* workload.c: replays the synchronization of a recorded pthreads program in simulated time.
 * The trace says which thread created, joined, locked, waited at a barrier; how long each wait
 * lasts is decided here, by the simulated machine, not by the recording host:
 *   create   a thread's core starts only when its creator reaches the create record
 *   join     the joiner waits until the joined thread's core has finished
 *   barrier  every participant waits until the count recorded at pthread_barrier_init arrived
 *   mutex    granted first come, first served in simulated time (the core then performs the
 *            lock word's atomic update through its cache, so the hand-off costs coherence
 *            traffic)
 *   spin     locks built from C11 atomics (TAS, TTAS, ticket) are re-timed like mutexes. At
 *            realize the manager pre-scans every thread's file for lock words with the rule
 *            spin_classify() of syncmsg.h: an address is a lock word when some thread shows
 *            spin evidence on it (failed CAS, unchanged RMW, repeated atomic load) or
 *            completes two acquire/release pairs on it, at least one thread pairs an
 *            acquisition with a release, and no thread still holds it at the end of its file
 *            (a flag that is only waited for is not a lock). The words go to every core
 *            (MSG_SYNC_LOCKWORD) before thread 0 starts; a core then sends MSG_SYNC_LOCK at
 *            an acquisition on a lock word (performing the atomic only when granted) and
 *            MSG_SYNC_UNLOCK at its release. Grants on them are counted in spin_lock_grants.
 * It talks to the cores only through its vector port `sync` (one connection per core, in core
 * order). The cores find their per-thread files from workload.trace (a directory of T<i>.trace
 * written by the tracer).
 */
#include "workload.h"

#include <string.h>

#include "../../sim/error.h"
#include "syncmsg.h"

typedef struct {
    char *trace;
} WorkloadParams;

typedef struct {
    uint64_t addr;
    GQueue waiters;       /* core slots (GINT_TO_POINTER) */
    int holders;          /* 1 normally; 2 after a forced grant (see grant_lock) */
    int owner;            /* the last slot granted */
    bool spin;            /* an atomic lock word, not a pthread mutex */
} Mutex;

typedef struct {
    uint64_t addr, count;
    GQueue arrived;
} Barrier;

typedef struct {
    Component base;
    WorkloadParams p;
    int ncores;
    Port **sync;
    bool *done;
    GQueue *joiners;      /* per thread: slots waiting to join it */
    GHashTable *mutexes;  /* addr -> Mutex* */
    GHashTable *barriers; /* addr -> Barrier* */
    Mutex **waiting_for;  /* per slot: the mutex it waits for, or NULL */
    GArray *lockwords;    /* uint64_t: atomic lock words found by the pre-scan */
    uint64_t creates, joins, barrier_waits, lock_grants, lock_contended, forced_grants;
    uint64_t spin_lock_grants, lock_words;
} Workload;

static const ParamSpec wl_params[] = {
    { .name = "trace", .type = PARAM_PATH, .def = NULL,
      .doc = "directory of a recorded trace (T0.trace, T1.trace, ... and manifest.yaml from "
             "`archsim trace record` or tools/archsim-cc); thread i runs on core i",
      .offset = offsetof(WorkloadParams, trace) },
    PARAM_END,
};

static const PortSpec wl_ports[] = {
    { .name = "sync", .role = PORT_RESPONDER, .vector = true, .doc = "one per core" },
    PORT_END,
};

static const StatSpec wl_stats[] = {
    { "creates", STAT_COUNTER, "count", "threads created", offsetof(Workload, creates), NULL },
    { "joins", STAT_COUNTER, "count", "joins", offsetof(Workload, joins), NULL },
    { "barrier_waits", STAT_COUNTER, "count", "barrier arrivals", offsetof(Workload, barrier_waits),
      NULL },
    { "lock_grants", STAT_COUNTER, "count", "mutex acquisitions", offsetof(Workload, lock_grants),
      NULL },
    { "lock_contended", STAT_COUNTER, "count", "acquisitions that had to wait",
      offsetof(Workload, lock_contended), NULL },
    { "lock_order_conflicts", STAT_COUNTER, "count",
      "mutexes granted to break a wait cycle the recorded run never had (see workload.c)",
      offsetof(Workload, forced_grants), NULL },
    { "spin_lock_grants", STAT_COUNTER, "count",
      "acquisitions of atomic lock words (TAS/TTAS/ticket spin locks; in lock_grants too)",
      offsetof(Workload, spin_lock_grants), NULL },
    { "lock_words", STAT_COUNTER, "count", "atomic lock words found in the trace",
      offsetof(Workload, lock_words), NULL },
    STAT_END,
};

static void go(Workload *w, int slot, uint16_t cmd)
{
    Msg *m = sim_msg_alloc(w->base.sim);
    m->cmd = cmd;
    sim_port_send(&w->base, w->sync[slot], m, 0);
}

static void grant_to(Workload *w, Mutex *mx, int slot, bool forced)
{
    /* mutual exclusion: a second holder only through a forced grant */
    g_assert(mx->holders == 0 || forced);
    g_queue_remove(&mx->waiters, GINT_TO_POINTER(slot));
    mx->holders++;
    if (mx->spin)
        w->spin_lock_grants++;
    mx->owner = slot;
    w->waiting_for[slot] = NULL;
    w->lock_grants++;
    go(w, slot, MSG_SYNC_GO);
}

static void grant_lock(Workload *w, Mutex *mx)
{
    if (mx->holders > 0 || g_queue_is_empty(&mx->waiters))
        return;
    grant_to(w, mx, GPOINTER_TO_INT(g_queue_peek_head(&mx->waiters)), false);
}

/* A trace fixes each thread's sequence of lock acquisitions as the recording host interleaved
 * them (which nodes of a list exist, which address a freed-and-reused mutex has); the simulated
 * timing can interleave differently and close a cycle of waits that the program itself never
 * forms. When `slot` would wait on a chain of holders leading back to itself, the mutex is
 * granted anyway (two holders for a moment) and counted in lock_order_conflicts, so the replay
 * goes on instead of reporting a deadlock that belongs to the replay, not to the machine. */
static bool closes_cycle(Workload *w, Mutex *mx, int slot)
{
    for (int hops = 0; mx && mx->holders > 0 && hops <= w->ncores; hops++) {
        if (mx->owner == slot)
            return true;
        mx = w->waiting_for[mx->owner];
    }
    return false;
}

static void wl_recv(Component *c, Port *port, Msg *m)
{
    Workload *w = (Workload *)c;
    int slot = port->slot;
    switch (m->cmd) {
    case MSG_SYNC_CREATE: {
        int child = (int)m->aux[0];
        w->creates++;
        if (child > 0 && child < w->ncores)
            go(w, child, MSG_SYNC_START);
        else
            sim_fail(c->sim, g_error_new(ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                                         "%s: thread %d creates thread %d, but the machine has "
                                         "%d cores (one thread per core)", w->p.trace, slot,
                                         child, w->ncores));
        break;
    }
    case MSG_SYNC_DONE:
        w->done[slot] = true;
        while (!g_queue_is_empty(&w->joiners[slot]))
            go(w, GPOINTER_TO_INT(g_queue_pop_head(&w->joiners[slot])), MSG_SYNC_GO);
        break;
    case MSG_SYNC_JOIN: {
        int t = (int)m->aux[0];
        w->joins++;
        if (t < 0 || t >= w->ncores || w->done[t])
            go(w, slot, MSG_SYNC_GO);
        else
            g_queue_push_tail(&w->joiners[t], GINT_TO_POINTER(slot));
        break;
    }
    case MSG_SYNC_BARRIER: {
        Barrier *b = g_hash_table_lookup(w->barriers, &m->addr);
        if (!b) {
            b = g_new0(Barrier, 1);
            b->addr = m->addr;
            g_queue_init(&b->arrived);
            g_hash_table_insert(w->barriers, &b->addr, b);
        }
        b->count = m->aux[0] ? m->aux[0] : (uint64_t)w->ncores;
        w->barrier_waits++;
        g_queue_push_tail(&b->arrived, GINT_TO_POINTER(slot));
        if (b->arrived.length >= b->count)
            while (!g_queue_is_empty(&b->arrived))
                go(w, GPOINTER_TO_INT(g_queue_pop_head(&b->arrived)), MSG_SYNC_GO);
        break;
    }
    case MSG_SYNC_LOCK: {
        Mutex *mx = g_hash_table_lookup(w->mutexes, &m->addr);
        if (!mx) {
            mx = g_new0(Mutex, 1);
            mx->addr = m->addr;
            g_queue_init(&mx->waiters);
            mx->spin = m->aux[0] != 0;
            g_hash_table_insert(w->mutexes, &mx->addr, mx);
        }
        g_queue_push_tail(&mx->waiters, GINT_TO_POINTER(slot));
        if (mx->holders > 0) {
            w->lock_contended++;
            if (closes_cycle(w, mx, slot)) {
                w->forced_grants++;
                grant_to(w, mx, slot, true);
                break;
            }
            w->waiting_for[slot] = mx;
        }
        grant_lock(w, mx);
        break;
    }
    case MSG_SYNC_UNLOCK: {
        Mutex *mx = g_hash_table_lookup(w->mutexes, &m->addr);
        if (mx && mx->holders > 0) {
            mx->holders--;
            grant_lock(w, mx);
        }
        break;
    }
    default:
        g_error("%s: unexpected message %u", c->name, m->cmd);
    }
    sim_msg_free(c->sim, m);
}

static void free_mutex(gpointer p)
{
    Mutex *m = p;
    g_queue_clear(&m->waiters);
    g_free(m);
}

static void free_barrier(gpointer p)
{
    Barrier *b = p;
    g_queue_clear(&b->arrived);
    g_free(b);
}

typedef struct {
    bool holding, evidence, bad;
    uint32_t pairs;
} SpinScan;

/* Runs spin_classify over one thread's file; merges into agg (addr -> SpinScan: evidence and
 * bad or-ed, pairs the most of any thread). */
static bool scan_thread(const char *path, GHashTable *agg, GError **error)
{
    AtReader *rd = at_reader_open(path, error);
    if (!rd)
        return false;
    GHashTable *t = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    enum { N = 4096 };
    AtRecord *buf = g_new(AtRecord, N);
    AtRecord prev;
    bool have_prev = false, ok = true;
    for (;;) {
        size_t n = at_reader_read(rd, buf, N, error);
        if (error && *error) {
            ok = false;
            break;
        }
        for (size_t i = 0; i <= n; i++) {
            const AtRecord *cur = i < n ? &buf[i] : NULL;
            if (i == n && n != 0)
                break;
            if (have_prev && (AT_KINDS_ATOMIC & AT_KIND_BIT(prev.kind)) &&
                prev.kind != AT_FENCE) {
                SpinScan *s = g_hash_table_lookup(t, &prev.addr);
                int cls = spin_classify(&prev, cur, s && s->holding);
                if (cls != SPIN_NONE) {
                    if (!s) {
                        uint64_t *key = g_new(uint64_t, 1);
                        *key = prev.addr;
                        s = g_new0(SpinScan, 1);
                        g_hash_table_insert(t, key, s);
                    }
                    if (cls == SPIN_EVIDENCE)
                        s->evidence = true;
                    else if (cls == SPIN_ACQUIRE)
                        s->holding = true;
                    else {
                        s->holding = false;
                        s->pairs++;
                    }
                }
            }
            if (cur) {
                prev = *cur;
                have_prev = true;
            }
        }
        if (n == 0)
            break;
    }
    g_free(buf);
    at_reader_close(rd);
    GHashTableIter it;
    gpointer kp, vp;
    g_hash_table_iter_init(&it, t);
    while (ok && g_hash_table_iter_next(&it, &kp, &vp)) {
        SpinScan *s = vp, *a = g_hash_table_lookup(agg, kp);
        if (!a) {
            uint64_t *key = g_new(uint64_t, 1);
            *key = *(uint64_t *)kp;
            a = g_new0(SpinScan, 1);
            g_hash_table_insert(agg, key, a);
        }
        a->evidence |= s->evidence;
        a->bad |= s->holding;
        if (s->pairs > a->pairs)
            a->pairs = s->pairs;
    }
    g_hash_table_destroy(t);
    return ok;
}

static gint cmp_u64(gconstpointer a, gconstpointer b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The lock words of the trace (see the file header). */
static bool find_lock_words(Workload *w, GError **error)
{
    w->lockwords = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    if (!w->p.trace || !*w->p.trace)
        return true;
    GHashTable *agg = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    bool ok = true;
    for (int i = 0; ok && i < w->ncores; i++) {
        char *path = g_strdup_printf("%s/T%d.trace", w->p.trace, i);
        if (g_file_test(path, G_FILE_TEST_EXISTS))
            ok = scan_thread(path, agg, error);
        g_free(path);
    }
    GHashTableIter it;
    gpointer kp, vp;
    g_hash_table_iter_init(&it, agg);
    while (ok && g_hash_table_iter_next(&it, &kp, &vp)) {
        SpinScan *a = vp;
        if (!a->bad && a->pairs >= 1 && (a->evidence || a->pairs >= 2))
            g_array_append_val(w->lockwords, *(uint64_t *)kp);
    }
    g_array_sort(w->lockwords, cmp_u64);
    w->lock_words = w->lockwords->len;
    g_hash_table_destroy(agg);
    return ok;
}

static void wl_start(Component *c)
{
    Workload *w = (Workload *)c;
    for (int i = 0; i < w->ncores; i++)
        for (guint j = 0; j < w->lockwords->len; j++) {
            Msg *m = sim_msg_alloc(c->sim);
            m->cmd = MSG_SYNC_LOCKWORD;
            m->addr = g_array_index(w->lockwords, uint64_t, j);
            sim_port_send(c, w->sync[i], m, 0);
        }
    if (w->ncores > 0)
        go(w, 0, MSG_SYNC_START);   /* after the lock words, on the same link */
}

static bool wl_realize(Component *c, GError **error)
{
    Workload *w = (Workload *)c;
    for (guint i = 0; i < c->ports->len; i++)
        w->ncores++;
    w->sync = g_new0(Port *, w->ncores ? w->ncores : 1);
    for (int i = 0; i < w->ncores; i++)
        w->sync[i] = sim_port(c, "sync", i);
    w->done = g_new0(bool, w->ncores ? w->ncores : 1);
    w->joiners = g_new0(GQueue, w->ncores ? w->ncores : 1);
    w->waiting_for = g_new0(Mutex *, w->ncores ? w->ncores : 1);
    w->mutexes = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, free_mutex);
    w->barriers = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, free_barrier);
    return find_lock_words(w, error);
}

static void wl_finalize(Component *c)
{
    Workload *w = (Workload *)c;
    for (int i = 0; w->joiners && i < w->ncores; i++)
        g_queue_clear(&w->joiners[i]);
    g_free(w->joiners);
    g_free(w->sync);
    g_free(w->done);
    g_free(w->waiting_for);
    if (w->lockwords)
        g_array_free(w->lockwords, TRUE);
    if (w->mutexes) {
        g_hash_table_destroy(w->mutexes);
        g_hash_table_destroy(w->barriers);
    }
}

static void wl_dump(Component *c, GString *out)
{
    Workload *w = (Workload *)c;
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, w->barriers);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        Barrier *b = v;
        if (b->arrived.length)
            g_string_append_printf(out, "  barrier 0x%" G_GINT64_MODIFIER "x: %u of %"
                                   G_GUINT64_FORMAT " arrived\n", b->addr, b->arrived.length,
                                   b->count);
    }
    g_hash_table_iter_init(&it, w->mutexes);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        Mutex *m = v;
        if (m->holders || m->waiters.length)
            g_string_append_printf(out, "  mutex 0x%" G_GINT64_MODIFIER "x: %s, %u waiting\n",
                                   m->addr, m->holders ? "held" : "free", m->waiters.length);
    }
}

const ComponentClass workload_class = {
    .name = "workload",
    .doc = "a recorded multi-thread trace: per-thread files and their synchronization "
           "(create, join, barriers, mutexes) replayed in simulated time",
    .size = sizeof(Workload),
    .params_offset = offsetof(Workload, p),
    .params = wl_params,
    .ports = wl_ports,
    .stats = wl_stats,
    .realize = wl_realize,
    .start = wl_start,
    .recv = wl_recv,
    .dump = wl_dump,
    .finalize = wl_finalize,
};
