/* tclocks.c: the lock algorithms of locks.c (tas, ttas, ttas-backoff, ticket, anderson, mcs,
 * clh, llsc; Mellor-Crummey & Scott, ACM TOCS 1991; Anderson, IEEE TPDS 1990; Magnusson et al.,
 * IPPS 1994) as state machines that thread-core runs for each pthread mutex lock and unlock of a
 * trace, one blocking access at a time, as kernel-core runs them. Layout: tclocks.h.
 *
 *   lock:    begin --(wait cycle? granted at once, counted)--> the acquire's accesses; a spin
 *            load that must go on parks a watch (MSG_F_WATCH) and reloads when the line changes
 *            --> acquired: the checker (at most one holder) --> done
 *   unlock:  begin: released (the checker) --> the release's accesses --> done
 */
#include "tclocks.h"
#include "../mem/memmsg.h"

#include <string.h>

#include "../../sim/component.h"
#include "../../sim/error.h"

const char *const tcl_algo_names[] = { "manager", "tas", "ttas", "ttas-backoff", "ticket",
                                       "anderson", "mcs", "clh", "llsc", NULL };

typedef struct {
    uint64_t addr, area;        /* the pthread mutex; its words in the reserved region */
    int holder;                 /* thread between acquired and released, -1: none */
    uint64_t held_since;
    int last_releaser;          /* the last release not yet followed by an acquisition, -1 */
    uint64_t last_release;
    uint64_t ticket, node, pred; /* the holder's: ticket or slot; mcs/clh node; clh predecessor */
} TclMutex;

/* Program counters: the access a step sends, or what an answer means. */
enum {
    P_IDLE, P_TAS, P_TEST, P_WATCH, P_BACKOFF, P_LL, P_SC, P_FAA, P_TK_SPIN, P_AN_SPIN,
    P_AN_RESET, P_MCS_NEXT0, P_MCS_LOCKED1, P_MCS_XCHG, P_MCS_LINK, P_MCS_SPIN, P_CLH_SET,
    P_CLH_XCHG, P_CLH_SPIN, P_REL_STORE, P_MCS_RNEXT, P_MCS_CAS, P_MCS_RWAIT, P_DONE
};
static const char *const pc_names[] = {
    "idle", "tas", "test", "watch", "backoff", "ll", "sc", "faa", "ticket spin", "slot spin",
    "slot reset", "node.next=0", "node.locked=1", "xchg tail", "link", "node spin", "node=1",
    "xchg tail", "predecessor spin", "release store", "load node.next", "cas tail",
    "wait for successor", "done"
};

struct TclThread {
    TclWorld *w;
    int id;
    int pc, ret_pc;             /* ret_pc: where a watch's answer resumes */
    TclMutex *m;
    bool acquiring;
    uint64_t began, watch_addr, watch_val, limit;
    uint64_t ticket, node, pred; /* the acquisition in progress (copied to the mutex) */
    uint64_t rel_addr, rel_val, give_back;  /* P_REL_STORE; node returned to the pool after */
    uint64_t pool[TCL_NODES];   /* free queue nodes (addresses) */
    int npool;
    GArray *granted;            /* uint64_t: mutexes held by a grant that broke a wait cycle */
    TclStats s;
};

struct TclWorld {
    TclAlgo algo;
    int n;
    uint64_t line, bmin, bmax;
    GHashTable *mutexes;        /* addr -> TclMutex* */
    uint64_t next_index;
    TclMutex **waiting;         /* per thread: the mutex it is acquiring, or NULL */
    TclThread *threads;
    uint64_t handoffs, handoff_cycles;
};

TclWorld *tcl_world_new(TclAlgo algo, int nthreads, uint64_t line, uint64_t backoff_min,
                        uint64_t backoff_max)
{
    TclWorld *w = g_new0(TclWorld, 1);
    w->algo = algo;
    w->n = nthreads;
    w->line = line;
    w->bmin = backoff_min;
    w->bmax = backoff_max;
    w->mutexes = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
    w->waiting = g_new0(TclMutex *, (size_t)nthreads);
    w->threads = g_new0(TclThread, (size_t)nthreads);
    for (int i = 0; i < nthreads; i++) {
        TclThread *t = &w->threads[i];
        t->w = w;
        t->id = i;
        t->granted = g_array_new(FALSE, FALSE, sizeof(uint64_t));
        /* popped from the end: node 0 first */
        for (int j = 0; j < TCL_NODES; j++)
            t->pool[t->npool++] = TCL_NODE_BASE + ((uint64_t)i * TCL_NODES +
                                                   (uint64_t)(TCL_NODES - 1 - j)) * line;
    }
    return w;
}

void tcl_world_free(TclWorld *w)
{
    if (!w)
        return;
    for (int i = 0; i < w->n; i++)
        g_array_free(w->threads[i].granted, TRUE);
    g_hash_table_destroy(w->mutexes);
    g_free(w->waiting);
    g_free(w->threads);
    g_free(w);
}

TclAlgo tcl_world_algo(const TclWorld *w) { return w->algo; }
TclThread *tcl_thread(TclWorld *w, int id) { return id >= 0 && id < w->n ? &w->threads[id] : NULL; }
const TclStats *tcl_thread_stats(const TclThread *t) { return &t->s; }

TclTotals tcl_world_totals(const TclWorld *w)
{
    TclTotals x = { .handoffs = w->handoffs, .handoff_cycles = w->handoff_cycles,
                    .mutexes = g_hash_table_size(w->mutexes) };
    for (int i = 0; i < w->n; i++) {
        x.acquisitions += w->threads[i].s.acquisitions;
        x.order_conflicts += w->threads[i].s.order_conflicts;
    }
    return x;
}

static TclMutex *mutex_get(TclWorld *w, uint64_t addr)
{
    TclMutex *m = g_hash_table_lookup(w->mutexes, &addr);
    if (!m) {
        m = g_new0(TclMutex, 1);
        m->addr = addr;
        m->area = TCL_BASE + w->next_index++ * (uint64_t)(2 + w->n) * w->line;
        m->holder = m->last_releaser = -1;
        g_hash_table_insert(w->mutexes, &m->addr, m);
    }
    return m;
}

static inline uint64_t word_a(const TclThread *t) { return t->m->area; }
static inline uint64_t word_b(const TclThread *t) { return t->m->area + t->w->line; }
static inline uint64_t slot_addr(const TclThread *t, uint64_t s)
{
    return t->m->area + (2 + s) * t->w->line;
}
/* Anderson's slot s holds flag ^ (s == 0): memory starts at 0, and slot 0 must start open. */
static inline uint64_t slot_enc(uint64_t s, uint64_t flag) { return flag ^ (s == 0); }

/* Would `t` waiting for m close a cycle of waits (holder of m waits for a mutex whose holder
 * ... is t)? A thread waiting in an acquisition cannot release, so the cycle is a deadlock. */
static bool closes_cycle(const TclWorld *w, const TclMutex *m, int t)
{
    for (int hops = 0; m && m->holder >= 0 && hops <= w->n; hops++) {
        if (m->holder == t)
            return true;
        m = w->waiting[m->holder];
    }
    return false;
}

static int first_pc(const TclThread *t)
{
    switch (t->w->algo) {
    case TCL_TAS:
        return P_TAS;
    case TCL_TTAS:
    case TCL_BACKOFF:
    case TCL_LLSC:
        return P_TEST;
    case TCL_TICKET:
    case TCL_ANDERSON:
        return P_FAA;
    case TCL_MCS:
        return P_MCS_NEXT0;
    case TCL_CLH:
        return P_CLH_SET;
    default:
        g_assert_not_reached();
    }
}

int tcl_lock_begin(TclThread *t, uint64_t mutex, uint64_t now, GError **error)
{
    TclWorld *w = t->w;
    TclMutex *m = mutex_get(w, mutex);
    if (closes_cycle(w, m, t->id)) {
        t->s.order_conflicts++;
        g_array_append_val(t->granted, mutex);
        return TCL_SKIP;
    }
    if ((w->algo == TCL_MCS || w->algo == TCL_CLH) && t->npool == 0) {
        g_set_error(error, ARCHSIM_SIM_ERROR, ARCHSIM_EXIT_DATAERR, "cycle %" G_GUINT64_FORMAT
                    ": thread %d locks mutex 0x%" G_GINT64_MODIFIER "x while it holds %d others "
                    "(mutex: %s has %d queue nodes per thread)", now, t->id, mutex, TCL_NODES,
                    tcl_algo_names[w->algo], TCL_NODES);
        return TCL_FAIL;
    }
    g_assert(t->pc == P_IDLE || t->pc == P_DONE);
    t->m = m;
    t->acquiring = true;
    t->began = now;
    t->limit = w->bmin;
    w->waiting[t->id] = m;
    if (w->algo == TCL_MCS || w->algo == TCL_CLH) {
        t->node = t->pool[--t->npool];
    }
    t->pc = first_pc(t);
    return TCL_RUN;
}

int tcl_unlock_begin(TclThread *t, uint64_t mutex, uint64_t now)
{
    TclWorld *w = t->w;
    for (guint i = t->granted->len; i-- > 0;)
        if (g_array_index(t->granted, uint64_t, i) == mutex) {
            g_array_remove_index(t->granted, i);
            return TCL_SKIP;
        }
    TclMutex *m = g_hash_table_lookup(w->mutexes, &mutex);
    if (!m || m->holder != t->id) {
        t->s.unheld_unlocks++;
        return TCL_SKIP;
    }
    /* released: the critical section is over (kernel-core's `released` marker) */
    m->holder = -1;
    m->last_releaser = t->id;
    m->last_release = now;
    t->s.releases++;
    t->m = m;
    t->acquiring = false;
    t->give_back = 0;
    switch (w->algo) {
    case TCL_TAS:
    case TCL_TTAS:
    case TCL_BACKOFF:
    case TCL_LLSC:
        t->rel_addr = word_a(t), t->rel_val = 0;
        t->pc = P_REL_STORE;
        break;
    case TCL_TICKET:
        t->rel_addr = word_b(t), t->rel_val = m->ticket + 1;
        t->pc = P_REL_STORE;
        break;
    case TCL_ANDERSON: {
        uint64_t s1 = (m->ticket + 1) % (uint64_t)w->n;
        t->rel_addr = slot_addr(t, s1), t->rel_val = slot_enc(s1, 1);
        t->pc = P_REL_STORE;
        break;
    }
    case TCL_MCS:
        t->node = m->node;
        t->pc = P_MCS_RNEXT;
        break;
    case TCL_CLH:
        /* my successor spins on my node; the predecessor's node is mine from now on */
        t->rel_addr = m->node, t->rel_val = 0;
        t->give_back = m->pred;
        t->pc = P_REL_STORE;
        break;
    default:
        g_assert_not_reached();
    }
    return TCL_RUN;
}

static void acc(TclAccess *a, uint16_t cmd, uint16_t flags, uint64_t addr, uint64_t x, uint64_t y)
{
    *a = (TclAccess){ .cmd = cmd, .flags = flags, .addr = addr, .aux = { x, y } };
}

int tcl_step(TclThread *t, SimRng *rng, TclAccess *a, uint64_t *delay)
{
    *delay = 0;
    switch (t->pc) {
    case P_TAS:
        acc(a, MSG_WRITE_REQ, MSG_RMW_FLAGS(MSG_RMW_XCHG) | MSG_F_TAS, word_a(t), 1, 0);
        break;
    case P_TEST:
        acc(a, MSG_READ_REQ, 0, word_a(t), 0, 0);
        break;
    case P_WATCH:
        acc(a, MSG_READ_REQ, MSG_F_WATCH, t->watch_addr, 0, t->watch_val);
        t->s.spin_waits++;
        return TCL_STEP_ACCESS;            /* not a load: not in accesses */
    case P_BACKOFF:
        /* rand r3, r2; delay r3; shl r2, r2, 1; min r2, r2, backoff_max */
        *delay = sim_rng_below(rng, t->limit + 1);
        t->limit = MIN(t->limit * 2, t->w->bmax);
        t->pc = P_TEST;
        return TCL_STEP_DELAY;
    case P_LL:
        acc(a, MSG_READ_REQ, MSG_F_LL, word_a(t), 0, 0);
        break;
    case P_SC:
        acc(a, MSG_WRITE_REQ, MSG_F_SC, word_a(t), 1, 0);
        break;
    case P_FAA:
        acc(a, MSG_WRITE_REQ, MSG_RMW_FLAGS(MSG_RMW_ADD), word_a(t), 1, 0);
        break;
    case P_TK_SPIN:
        acc(a, MSG_READ_REQ, 0, word_b(t), 0, 0);
        break;
    case P_AN_SPIN:
        acc(a, MSG_READ_REQ, 0, slot_addr(t, t->ticket), 0, 0);
        break;
    case P_AN_RESET:
        acc(a, MSG_WRITE_REQ, 0, slot_addr(t, t->ticket), slot_enc(t->ticket, 0), 0);
        break;
    case P_MCS_NEXT0:
        acc(a, MSG_WRITE_REQ, 0, t->node, 0, 0);
        break;
    case P_MCS_LOCKED1:
        acc(a, MSG_WRITE_REQ, 0, t->node + 8, 1, 0);
        break;
    case P_MCS_XCHG:
    case P_CLH_XCHG:
        acc(a, MSG_WRITE_REQ, MSG_RMW_FLAGS(MSG_RMW_XCHG), word_a(t), t->node, 0);
        break;
    case P_MCS_LINK:
        acc(a, MSG_WRITE_REQ, 0, t->pred, t->node, 0);
        break;
    case P_MCS_SPIN:
        acc(a, MSG_READ_REQ, 0, t->node + 8, 0, 0);
        break;
    case P_CLH_SET:
        acc(a, MSG_WRITE_REQ, 0, t->node, 1, 0);
        break;
    case P_CLH_SPIN:
        acc(a, MSG_READ_REQ, 0, t->pred, 0, 0);
        break;
    case P_REL_STORE:
        acc(a, MSG_WRITE_REQ, 0, t->rel_addr, t->rel_val, 0);
        break;
    case P_MCS_RNEXT:
    case P_MCS_RWAIT:
        acc(a, MSG_READ_REQ, 0, t->node, 0, 0);
        break;
    case P_MCS_CAS:   /* cas r3, tail, r14, 0: new value 0 if tail is still my node */
        acc(a, MSG_WRITE_REQ, MSG_RMW_FLAGS(MSG_RMW_CMPXCHG), word_a(t), 0, t->node);
        break;
    case P_DONE:
        t->pc = P_IDLE;
        return TCL_STEP_DONE;
    default:
        g_assert_not_reached();
    }
    t->s.accesses++;
    return TCL_STEP_ACCESS;
}

/* A spin load saw `v` and must go on: sleep on the line, then load again at `again`. */
static void spin_on(TclThread *t, uint64_t addr, uint64_t v, int again)
{
    t->watch_addr = addr;
    t->watch_val = v;
    t->ret_pc = again;
    t->pc = P_WATCH;
}

static bool acquired(TclThread *t, uint64_t now, GError **error)
{
    TclWorld *w = t->w;
    TclMutex *m = t->m;
    if (m->holder >= 0) {
        g_set_error(error, ARCHSIM_SIM_ERROR, ARCHSIM_EXIT_CHECK, "cycle %" G_GUINT64_FORMAT
                    ": mutual exclusion violated on mutex 0x%" G_GINT64_MODIFIER "x (mutex: %s): "
                    "thread %d acquired it while thread %d holds it (since cycle %"
                    G_GUINT64_FORMAT ")", now, m->addr, tcl_algo_names[w->algo], t->id,
                    m->holder, m->held_since);
        return false;
    }
    m->holder = t->id;
    m->held_since = now;
    m->ticket = t->ticket;
    m->node = t->node;
    m->pred = t->pred;
    w->waiting[t->id] = NULL;
    t->s.acquisitions++;
    t->s.acquire_cycles += now - t->began;
    /* a hand-off: the previous holder released while this thread was already waiting */
    if (m->last_releaser >= 0 && m->last_releaser != t->id && m->last_release >= t->began) {
        uint64_t d = now - m->last_release;
        w->handoffs++;
        w->handoff_cycles += d;
        t->s.handoffs_in++;
        t->s.handoff_cycles += d;
    }
    m->last_releaser = -1;
    t->pc = P_DONE;
    return true;
}

bool tcl_answer(TclThread *t, uint64_t now, uint64_t old, uint64_t ok, GError **error)
{
    TclWorld *w = t->w;
    switch (t->pc) {
    case P_TAS:                       /* tas r1, lock; bne r1, 0, (retry) */
        if (old == 0)
            return acquired(t, now, error);
        t->s.failed_attempts++;
        t->pc = w->algo == TCL_TAS ? P_TAS : w->algo == TCL_BACKOFF ? P_BACKOFF : P_TEST;
        break;
    case P_TEST:                      /* load r1, lock; bne r1, 0, (spin) */
        if (old != 0)
            spin_on(t, word_a(t), old, P_TEST);
        else
            t->pc = w->algo == TCL_LLSC ? P_LL : P_TAS;
        break;
    case P_WATCH:
        t->pc = t->ret_pc;
        break;
    case P_LL:                        /* ll r1, lock; bne r1, 0, acquire */
        t->pc = old == 0 ? P_SC : P_TEST;
        break;
    case P_SC:                        /* sc r1, lock, 1; beq r1, 0, acquire */
        if (ok)
            return acquired(t, now, error);
        t->s.failed_attempts++;
        t->pc = P_TEST;
        break;
    case P_FAA:                       /* my ticket / my slot (mod n) */
        t->ticket = w->algo == TCL_ANDERSON ? old % (uint64_t)w->n : old;
        t->pc = w->algo == TCL_ANDERSON ? P_AN_SPIN : P_TK_SPIN;
        break;
    case P_TK_SPIN:                   /* load r1, now_serving; bne r1, r13, tk_spin */
        if (old == t->ticket)
            return acquired(t, now, error);
        spin_on(t, word_b(t), old, P_TK_SPIN);
        break;
    case P_AN_SPIN:                   /* load r1, slots[r13]; beq r1, 0, an_spin */
        if ((old ^ (t->ticket == 0)) == 0)
            spin_on(t, slot_addr(t, t->ticket), old, P_AN_SPIN);
        else
            t->pc = P_AN_RESET;
        break;
    case P_AN_RESET:
        return acquired(t, now, error);
    case P_MCS_NEXT0:
        t->pc = P_MCS_LOCKED1;
        break;
    case P_MCS_LOCKED1:
        t->pc = P_MCS_XCHG;
        break;
    case P_MCS_XCHG:                  /* predecessor = swap(tail, me); none: mine */
        t->pred = old;
        if (old == 0)
            return acquired(t, now, error);
        t->pc = P_MCS_LINK;
        break;
    case P_MCS_LINK:
        t->pc = P_MCS_SPIN;
        break;
    case P_MCS_SPIN:                  /* until my predecessor clears locked */
        if (old == 0)
            return acquired(t, now, error);
        spin_on(t, t->node + 8, old, P_MCS_SPIN);
        break;
    case P_CLH_SET:
        t->pc = P_CLH_XCHG;
        break;
    case P_CLH_XCHG:                  /* 0: the mutex's initial node (word B) */
        t->pred = old ? old : word_b(t);
        t->pc = P_CLH_SPIN;
        break;
    case P_CLH_SPIN:
        if (old == 0)
            return acquired(t, now, error);
        spin_on(t, t->pred, old, P_CLH_SPIN);
        break;
    case P_REL_STORE:
        if (t->give_back)
            t->pool[t->npool++] = t->give_back;
        t->pc = P_DONE;
        break;
    case P_MCS_RNEXT:                 /* a successor known: pass; else try to free */
        t->pred = old;                /* here: the successor */
        t->pc = old ? P_REL_STORE : P_MCS_CAS;
        if (old) {
            t->rel_addr = old + 8, t->rel_val = 0;
            t->give_back = t->node;
        }
        break;
    case P_MCS_CAS:
        if (ok) {
            t->pool[t->npool++] = t->node;
            t->pc = P_DONE;
        } else {
            t->s.failed_attempts++;
            t->pc = P_MCS_RWAIT;
        }
        break;
    case P_MCS_RWAIT:                 /* a successor is linking itself in: wait for it */
        if (old == 0) {
            spin_on(t, t->node, 0, P_MCS_RWAIT);
        } else {
            t->rel_addr = old + 8, t->rel_val = 0;
            t->give_back = t->node;
            t->pc = P_REL_STORE;
        }
        break;
    default:
        g_assert_not_reached();
    }
    return true;
}

void tcl_thread_dump(const TclThread *t, GString *out)
{
    if (!t->m || t->pc == P_IDLE)
        return;
    g_string_append_printf(out, "    %s %s mutex 0x%" G_GINT64_MODIFIER "x (words at 0x%"
                           G_GINT64_MODIFIER "x): at `%s`, holder %d\n",
                           tcl_algo_names[t->w->algo], t->acquiring ? "acquiring" : "releasing",
                           t->m->addr, t->m->area, pc_names[t->pc], t->m->holder);
}
