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
 * The same pre-scan checks that the directory is one recording: the headers agree on what the
 * run set once (load base, flags, front end, compiler), each names the thread of its file name
 * and its creator (wl_check_headers, wl_check_sync), every CREATE and JOIN names a thread the
 * directory holds, every thread but 0 is created exactly once, and manifest.yaml, when present,
 * matches the files (wl_check_manifest: thread count, names, parents, records, kinds, bytes,
 * the header fields). A mismatch is bad input (65, with the file and record or the manifest
 * line); a file that a CREATE needs and that is missing is 66. Replaying such a directory would start cores that have no thread or never
 * start threads that exist: a false deadlock or a silently partial run.
 */
#include "workload.h"

#include <glib/gstdio.h>
#include <string.h>

#include "../../sim/config.h"
#include "../../sim/registry.h"
#include "../../sim/error.h"
#include "../../traces/atrace_record.h"
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
        int child = (int)sync_msg(m)->arg;
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
        int t = (int)sync_msg(m)->arg;
        w->joins++;
        if (t < 0 || t >= w->ncores || w->done[t])
            go(w, slot, MSG_SYNC_GO);
        else
            g_queue_push_tail(&w->joiners[t], GINT_TO_POINTER(slot));
        break;
    }
    case MSG_SYNC_BARRIER: {
        Barrier *b = g_hash_table_lookup(w->barriers, &sync_msg(m)->addr);
        if (!b) {
            b = g_new0(Barrier, 1);
            b->addr = sync_msg(m)->addr;
            g_queue_init(&b->arrived);
            g_hash_table_insert(w->barriers, &b->addr, b);
        }
        b->count = sync_msg(m)->arg ? sync_msg(m)->arg : (uint64_t)w->ncores;
        w->barrier_waits++;
        g_queue_push_tail(&b->arrived, GINT_TO_POINTER(slot));
        if (b->arrived.length >= b->count)
            while (!g_queue_is_empty(&b->arrived))
                go(w, GPOINTER_TO_INT(g_queue_pop_head(&b->arrived)), MSG_SYNC_GO);
        break;
    }
    case MSG_SYNC_LOCK: {
        Mutex *mx = g_hash_table_lookup(w->mutexes, &sync_msg(m)->addr);
        if (!mx) {
            mx = g_new0(Mutex, 1);
            mx->addr = sync_msg(m)->addr;
            g_queue_init(&mx->waiters);
            mx->spin = sync_msg(m)->arg != 0;
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
        Mutex *mx = g_hash_table_lookup(w->mutexes, &sync_msg(m)->addr);
        if (mx && mx->holders > 0) {
            mx->holders--;
            grant_lock(w, mx);
        }
        break;
    }
    default:
        g_error("%s: unexpected message %s (cmd 0x%x)", c->name, MSG_NAME(m->cmd), m->cmd);
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

/* What the pre-scan learns of one thread's file. */
typedef struct {
    bool present;             /* T<i>.trace exists (and was scanned) */
    char *path;
    AtHeader h;
    uint64_t records, kinds[AT_KINDS];
    int creator;              /* the thread whose CREATE names this one; -1 before one is seen */
    uint64_t create_rec;      /* that CREATE's record index */
} WlThread;

/* A CREATE or JOIN record: which thread's file, its index, the thread it names. */
typedef struct {
    int thread;
    uint64_t record, target;
} WlSyncRef;

/* Runs spin_classify over one thread's file; merges into agg (addr -> SpinScan: evidence and
 * bad or-ed, pairs the most of any thread). Fills t (header, counts) and appends the file's
 * CREATE and JOIN records to creates and joins. */
static bool scan_thread(const char *path, int tid, GHashTable *agg, WlThread *th,
                        GArray *creates, GArray *joins, GError **error)
{
    AtReader *rd = at_reader_open(path, error);
    if (!rd)
        return false;
    th->h = *at_reader_header(rd);
    if (th->h.tid != (uint32_t)tid) {
        /* byte 28: the header's tid field (FORMAT.md 2) */
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                    "%s: byte 28: header says tid %u, but the file name says thread %d", path,
                    th->h.tid, tid);
        at_reader_close(rd);
        return false;
    }
    if (tid == 0 && th->h.parent != -1) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                    "%s: byte 32: header says parent %d, but thread 0 is the main thread "
                    "(parent -1)", path, th->h.parent);
        at_reader_close(rd);
        return false;
    }
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
        for (size_t i = 0; i < n; i++) {
            th->kinds[buf[i].kind]++;
            if (buf[i].kind == AT_CREATE || buf[i].kind == AT_JOIN) {
                WlSyncRef ref = { tid, th->records + i, buf[i].arg };
                g_array_append_val(buf[i].kind == AT_CREATE ? creates : joins, ref);
            }
        }
        th->records += n;
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

/* The headers of one recording agree with thread 0's on what the recording run set once: the
 * load base, the flags, the front end, compiler and flags (a file from another recording, or
 * one given gaps by `archsim trace gaps` while the others were not, is not this recording). */
static bool wl_check_headers(Workload *w, const WlThread *th, GError **error)
{
    const WlThread *t0 = &th[0];
    for (int i = 1; t0->present && i < w->ncores; i++) {
        const WlThread *t = &th[i];
        if (!t->present)
            continue;
        const char *what = NULL;
        int at = 0;
        char mine[160], theirs[160];
        if (t->h.load_base != t0->h.load_base) {
            what = "load base", at = 16;
            g_snprintf(mine, sizeof mine, "0x%" G_GINT64_MODIFIER "x", t->h.load_base);
            g_snprintf(theirs, sizeof theirs, "0x%" G_GINT64_MODIFIER "x", t0->h.load_base);
        } else if (t->h.flags != t0->h.flags) {
            what = "flags", at = 24;
            g_snprintf(mine, sizeof mine, "0x%x", t->h.flags);
            g_snprintf(theirs, sizeof theirs, "0x%x", t0->h.flags);
        } else if (strcmp(t->h.frontend, t0->h.frontend) != 0 ||
                   strcmp(t->h.compiler, t0->h.compiler) != 0 ||
                   strcmp(t->h.cflags, t0->h.cflags) != 0) {
            what = "front end, compiler or flags", at = AT_HEADER_FIXED;
            g_snprintf(mine, sizeof mine, "'%s', '%s', '%s'", t->h.frontend, t->h.compiler,
                       t->h.cflags);
            g_snprintf(theirs, sizeof theirs, "'%s', '%s', '%s'", t0->h.frontend,
                       t0->h.compiler, t0->h.cflags);
        }
        if (what != NULL) {
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                        "%s: byte %d: header %s %s differs from %s's %s (not one recording)",
                        t->path, at, what, mine, t0->path, theirs);
            return false;
        }
    }
    return true;
}

/* Every CREATE names a thread the directory holds, once; every thread but 0 is created, and its
 * header names its creator; every JOIN names a thread the directory holds, not itself. */
static bool wl_check_sync(Workload *w, WlThread *th, const GArray *creates, const GArray *joins,
                          GError **error)
{
    const char *dir = w->p.trace;
    for (guint k = 0; k < creates->len; k++) {
        const WlSyncRef *c = &g_array_index(creates, WlSyncRef, k);
        const char *by = th[c->thread].path;
        if (c->target == 0) {
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                        "%s: record %" G_GUINT64_FORMAT ": CREATE of thread 0 (the main thread "
                        "is never created)", by, c->record);
            return false;
        }
        if (c->target >= (uint64_t)w->ncores) {
            char *path = g_strdup_printf("%s/T%" G_GUINT64_FORMAT ".trace", dir, c->target);
            if (g_file_test(path, G_FILE_TEST_EXISTS))
                g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                            "%s: record %" G_GUINT64_FORMAT " creates thread %" G_GUINT64_FORMAT
                            ", but system.cores is %d: one thread runs on each core; raise "
                            "system.cores", by, c->record, c->target, w->ncores);
            else
                g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT,
                            "%s: cannot open: No such file or directory (%s record %"
                            G_GUINT64_FORMAT " creates thread %" G_GUINT64_FORMAT ")", path, by,
                            c->record, c->target);
            g_free(path);
            return false;
        }
        WlThread *t = &th[c->target];
        if (!t->present) {
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT,
                        "%s: cannot open: No such file or directory (%s record %" G_GUINT64_FORMAT
                        " creates thread %" G_GUINT64_FORMAT ")", t->path, by, c->record,
                        c->target);
            return false;
        }
        if (t->creator >= 0) {
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                        "%s: record %" G_GUINT64_FORMAT " creates thread %" G_GUINT64_FORMAT
                        " again (%s record %" G_GUINT64_FORMAT " created it)", by, c->record,
                        c->target, th[t->creator].path, t->create_rec);
            return false;
        }
        t->creator = c->thread;
        t->create_rec = c->record;
        if (t->h.parent != c->thread) {
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                        "%s: byte 32: header says parent %d, but %s record %" G_GUINT64_FORMAT
                        " creates it", t->path, t->h.parent, by, c->record);
            return false;
        }
    }
    for (int i = 1; i < w->ncores; i++)
        if (th[i].present && th[i].creator < 0) {
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                        "%s: no thread creates thread %d (no CREATE record names it), so it "
                        "would never run", th[i].path, i);
            return false;
        }
    for (guint k = 0; k < joins->len; k++) {
        const WlSyncRef *j = &g_array_index(joins, WlSyncRef, k);
        const char *by = th[j->thread].path;
        if (j->target == (uint64_t)j->thread) {
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                        "%s: record %" G_GUINT64_FORMAT ": thread %d joins itself", by,
                        j->record, j->thread);
            return false;
        }
        if (j->target >= (uint64_t)w->ncores || !th[j->target].present) {
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                        "%s: record %" G_GUINT64_FORMAT " joins thread %" G_GUINT64_FORMAT
                        ", which %s does not hold (no T%" G_GUINT64_FORMAT ".trace)", by,
                        j->record, j->target, dir, j->target);
            return false;
        }
    }
    return true;
}

/* A manifest mismatch at node n. */
static bool wl_manifest_bad(GError **error, const CfgNode *n, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

static bool wl_manifest_bad(GError **error, const CfgNode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cfg_set_error_va(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, n, fmt, ap);
    va_end(ap);
    return false;
}

/* An unsigned integer field of map m: absent (true, *have false), or a number (*v). */
static bool wl_manifest_uint(const CfgNode *m, const char *key, uint64_t *v, bool *have,
                             GError **error)
{
    const CfgNode *n = cfg_map_get(m, key);
    *have = n != NULL;
    if (!n)
        return true;
    if (n->kind != CFG_SCALAR || !g_ascii_string_to_unsigned(n->scalar, 10, 0, UINT64_MAX, v,
                                                             NULL))
        return wl_manifest_bad(error, n, "%s: expected a non-negative integer", key);
    return true;
}

/* One thread's entry of the manifest against its file (scanned: the header and counts). */
static bool wl_check_manifest_thread(const CfgNode *e, guint j, const WlThread *t,
                                     uint64_t *records, uint64_t *bytes, GError **error)
{
    if (e->kind != CFG_MAP)
        return wl_manifest_bad(error, e, "threads[%u]: expected a map", j);
    uint64_t v;
    bool have;
    if (!wl_manifest_uint(e, "tid", &v, &have, error))
        return false;
    if (have && v != j)
        return wl_manifest_bad(error, cfg_map_get(e, "tid"), "threads[%u].tid is %" G_GUINT64_FORMAT
                               ", expected %u (threads are listed in tid order)", j, v, j);
    char name[32];
    g_snprintf(name, sizeof name, "T%u.trace", j);
    const CfgNode *f = cfg_map_get(e, "file");
    if (f && (f->kind != CFG_SCALAR || strcmp(f->scalar, name) != 0))
        return wl_manifest_bad(error, f, "threads[%u].file is '%s', but thread %u's file is %s",
                               j, f->kind == CFG_SCALAR ? f->scalar : "?", j, name);
    const CfgNode *pn = cfg_map_get(e, "parent");
    if (pn) {
        gint64 parent;
        if (pn->kind != CFG_SCALAR || !g_ascii_string_to_signed(pn->scalar, 10, -1, INT32_MAX,
                                                                &parent, NULL))
            return wl_manifest_bad(error, pn, "parent: expected -1 or a thread id");
        if (t->present && parent != t->h.parent)
            return wl_manifest_bad(error, pn, "threads[%u].parent is %" G_GINT64_FORMAT ", but "
                                   "%s's header says %d", j, parent, t->path, t->h.parent);
    }
    const CfgNode *cn = cfg_map_get(e, "complete");
    bool complete = !(cn && cn->kind == CFG_SCALAR && strcmp(cn->scalar, "false") == 0);
    if (!wl_manifest_uint(e, "bytes", &v, &have, error))
        return false;
    if (have) {
        GStatBuf st;
        if (g_stat(t->path, &st) != 0)
            return wl_manifest_bad(error, cfg_map_get(e, "bytes"), "threads[%u]: %s is missing",
                                   j, t->path);
        if ((uint64_t)st.st_size != v)
            return wl_manifest_bad(error, cfg_map_get(e, "bytes"), "threads[%u].bytes is %"
                                   G_GUINT64_FORMAT ", but %s has %" G_GUINT64_FORMAT " bytes",
                                   j, v, t->path, (uint64_t)st.st_size);
        if (complete)
            *bytes += v;
    }
    if (!wl_manifest_uint(e, "records", &v, &have, error))
        return false;
    if (have && complete)
        *records += v;
    if (have && t->present && v != t->records)
        return wl_manifest_bad(error, cfg_map_get(e, "records"), "threads[%u].records is %"
                               G_GUINT64_FORMAT ", but %s holds %" G_GUINT64_FORMAT " records",
                               j, v, t->path, t->records);
    const CfgNode *kn = cfg_map_get(e, "kinds");
    if (kn && t->present) {
        if (kn->kind != CFG_MAP)
            return wl_manifest_bad(error, kn, "threads[%u].kinds: expected a map", j);
        for (int k = 0; k < AT_KINDS; k++) {
            const CfgNode *c = cfg_map_get(kn, at_kind_name(k));
            uint64_t n = 0;
            if (c && (c->kind != CFG_SCALAR ||
                      !g_ascii_string_to_unsigned(c->scalar, 10, 0, UINT64_MAX, &n, NULL)))
                return wl_manifest_bad(error, c, "%s: expected a non-negative integer",
                                       at_kind_name(k));
            if (n != t->kinds[k])
                return wl_manifest_bad(error, c ? c : kn, "threads[%u].kinds: %s %"
                                       G_GUINT64_FORMAT ", but %s holds %" G_GUINT64_FORMAT, j,
                                       at_kind_name(k), n, t->path, t->kinds[k]);
        }
        for (guint k = 0; k < kn->keys->len; k++) {
            const CfgNode *key = g_ptr_array_index(kn->keys, k);
            bool known = false;
            for (int x = 0; x < AT_KINDS && !known; x++)
                known = strcmp(key->scalar, at_kind_name(x)) == 0;
            if (!known)
                return wl_manifest_bad(error, key, "threads[%u].kinds: unknown record kind '%s'",
                                       j, key->scalar);
        }
    }
    return true;
}

/* DIR/manifest.yaml, when there is one, describes exactly the files of DIR. */
static bool wl_check_manifest(Workload *w, const WlThread *th, GError **error)
{
    const char *dir = w->p.trace;
    char *mpath = g_build_filename(dir, "manifest.yaml", NULL);
    if (!g_file_test(mpath, G_FILE_TEST_EXISTS)) {
        g_free(mpath);
        return true;
    }
    CfgNode *root = cfg_load_file(mpath, NULL, error);
    g_free(mpath);
    if (!root) {
        if (error && *error) {
            (*error)->domain = ARCHSIM_TRACE_ERROR;
            if ((*error)->code != ARCHSIM_EXIT_NOINPUT)
                (*error)->code = ARCHSIM_EXIT_DATAERR;
        }
        return false;
    }
    bool ok = false;
    /* the thread files DIR holds, by number */
    GDir *d = g_dir_open(dir, 0, NULL);
    guint nfiles = 0;
    uint64_t highest = 0;
    for (const char *name; d && (name = g_dir_read_name(d)) != NULL;)
        if (atrace_is_thread_file(name)) {
            uint64_t n = g_ascii_strtoull(name + 1, NULL, 10);
            nfiles++;
            highest = MAX(highest, n);
        }
    if (d)
        g_dir_close(d);
    const CfgNode *tc = cfg_map_get(root, "thread_count"), *threads = cfg_map_get(root, "threads");
    uint64_t count = 0, v;
    bool have;
    if (!wl_manifest_uint(root, "thread_count", &count, &have, error))
        goto done;
    if (!have) {
        wl_manifest_bad(error, root, "thread_count missing (every manifest has one)");
        goto done;
    }
    if (count > nfiles && (nfiles == 0 || highest == nfiles - 1)) {
        /* files numbered without a gap, the last ones missing: an input is missing (66), as
         * when a CREATE record names the thread, and as archsim cachegrind says it */
        wl_manifest_bad(error, tc, "thread_count is %" G_GUINT64_FORMAT ", but %s has no T%u.trace "
                        "(a thread's trace is missing)", count, dir, nfiles);
        if (error && *error)
            (*error)->code = ARCHSIM_EXIT_NOINPUT;
        goto done;
    }
    if (count != nfiles || (nfiles > 0 && highest != nfiles - 1)) {
        wl_manifest_bad(error, tc, "thread_count is %" G_GUINT64_FORMAT ", but %s holds %u "
                        "thread file%s%s", count, dir, nfiles, nfiles == 1 ? "" : "s",
                        highest != (nfiles ? nfiles - 1 : 0) ? " (not numbered T0.trace, "
                        "T1.trace, ... without a gap)" : "");
        goto done;
    }
    if (!threads || threads->kind != CFG_SEQ) {
        wl_manifest_bad(error, threads ? threads : root, "threads: expected a list");
        goto done;
    }
    if (threads->items->len != count) {
        wl_manifest_bad(error, threads, "threads lists %u thread%s, but thread_count is %"
                        G_GUINT64_FORMAT, threads->items->len,
                        threads->items->len == 1 ? "" : "s", count);
        goto done;
    }
    /* what the run recorded once, against thread 0's header */
    static const char *const keys[] = { "frontend", "compiler", "cflags" };
    for (int k = 0; th[0].present && k < 3; k++) {
        const CfgNode *n = cfg_map_get(root, keys[k]);
        const char *h = k == 0 ? th[0].h.frontend : k == 1 ? th[0].h.compiler : th[0].h.cflags;
        if (n && (n->kind != CFG_SCALAR || strcmp(n->scalar, h) != 0)) {
            wl_manifest_bad(error, n, "%s is '%s', but %s's header says '%s'", keys[k],
                            n->kind == CFG_SCALAR ? n->scalar : "?", th[0].path, h);
            goto done;
        }
    }
    const CfgNode *lb = cfg_map_get(root, "load_base");
    if (lb && th[0].present) {
        guint64 base;
        if (lb->kind != CFG_SCALAR || !g_str_has_prefix(lb->scalar, "0x") ||
            !g_ascii_string_to_unsigned(lb->scalar + 2, 16, 0, UINT64_MAX, &base, NULL)) {
            wl_manifest_bad(error, lb, "load_base: expected a hex address (0x...)");
            goto done;
        }
        if (base != th[0].h.load_base) {
            wl_manifest_bad(error, lb, "load_base is 0x%" G_GINT64_MODIFIER "x, but %s's header "
                            "says 0x%" G_GINT64_MODIFIER "x", base, th[0].path,
                            th[0].h.load_base);
            goto done;
        }
    }
    uint64_t records = 0, bytes = 0;
    bool all_scanned = count <= (uint64_t)w->ncores;
    for (guint j = 0; j < threads->items->len; j++) {
        WlThread extra = { 0 };
        const WlThread *t = j < (guint)w->ncores ? &th[j] : &extra;
        if (t == &extra)
            extra.path = g_strdup_printf("%s/T%u.trace", dir, j);
        bool fine = wl_check_manifest_thread(g_ptr_array_index(threads->items, j), j, t,
                                             &records, &bytes, error);
        g_free(extra.path);
        if (!fine)
            goto done;
    }
    if (!wl_manifest_uint(root, "records", &v, &have, error))
        goto done;
    if (have && all_scanned && v != records) {
        wl_manifest_bad(error, cfg_map_get(root, "records"), "records is %" G_GUINT64_FORMAT
                        ", but the threads' records add up to %" G_GUINT64_FORMAT, v, records);
        goto done;
    }
    if (!wl_manifest_uint(root, "bytes", &v, &have, error))
        goto done;
    if (have && v != bytes) {
        wl_manifest_bad(error, cfg_map_get(root, "bytes"), "bytes is %" G_GUINT64_FORMAT
                        ", but the threads' bytes add up to %" G_GUINT64_FORMAT, v, bytes);
        goto done;
    }
    ok = true;
done:
    cfg_node_free(root);
    return ok;
}
/* The lock words of the trace (see the file header), and the directory's checks. */
static bool find_lock_words(Workload *w, GError **error)
{
    w->lockwords = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    if (!w->p.trace || !*w->p.trace)
        return true;
    GHashTable *agg = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    WlThread *th = g_new0(WlThread, w->ncores ? w->ncores : 1);
    GArray *creates = g_array_new(FALSE, FALSE, sizeof(WlSyncRef));
    GArray *joins = g_array_new(FALSE, FALSE, sizeof(WlSyncRef));
    bool ok = true;
    for (int i = 0; i < w->ncores; i++) {
        th[i].path = g_strdup_printf("%s/T%d.trace", w->p.trace, i);
        th[i].creator = -1;
    }
    for (int i = 0; ok && i < w->ncores; i++) {
        th[i].present = g_file_test(th[i].path, G_FILE_TEST_EXISTS);
        if (th[i].present)
            ok = scan_thread(th[i].path, i, agg, &th[i], creates, joins, error);
    }
    ok = ok && wl_check_headers(w, th, error) && wl_check_sync(w, th, creates, joins, error) &&
         wl_check_manifest(w, th, error);
    for (int i = 0; i < w->ncores; i++)
        g_free(th[i].path);
    g_free(th);
    g_array_free(creates, TRUE);
    g_array_free(joins, TRUE);
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
            sync_msg(m)->addr = g_array_index(w->lockwords, uint64_t, j);
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

/* ---- the sync message family (syncmsg.h) ---- */
static const char *const sync_cmd_names[SYNC_CMDS] = {
    [SYNC_START] = "start", [SYNC_CREATE] = "create", [SYNC_DONE] = "done", [SYNC_JOIN] = "join",
    [SYNC_BARRIER] = "barrier", [SYNC_LOCK] = "lock", [SYNC_UNLOCK] = "unlock", [SYNC_GO] = "go",
    [SYNC_LOCKWORD] = "lockword",
};
const MsgFamily sync_msg_family = {
    .name = "sync", .id = MSG_FAM_SYNC, .payload = sizeof(SyncPayload),
    .cmds = sync_cmd_names, .ncmds = SYNC_CMDS,
};
