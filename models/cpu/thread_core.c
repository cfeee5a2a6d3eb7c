/* thread_core.c: replays one thread of a trace recorded by archsim's tracer (traces/atrace.h)
 * on a core of the simulated multicore: thread i runs on core i.
 *
 *   records --> gap (cpi x instructions since the previous record, or 1 cycle when unknown)
 *           --> loads and atomic loads wait for data; stores enter a store buffer; atomic
 *               read-modify-writes and successful CAS wait for their line in M
 *           --> create / join / barrier / mutex go through the workload's synchronization
 *               manager (models/sync/workload.c), so waits last what the SIMULATED machine
 *               makes them last
 *
 * Spin artefacts of the recording host are not replayed (shared/notes/tracing.md §7): a failed
 * CAS, an RMW that left the value unchanged (a failed test-and-set) and a repeated atomic load of
 * the same address from the same site are dropped and counted; the acquisition itself is
 * re-timed by the simulated machine. Fences drain the store buffer (a full fence: the memory
 * model issue refines this).
 *
 * Spin locks built from C11 atomics (TAS, TTAS, ticket) are re-timed like pthread mutexes. The
 * workload pre-scans the trace and sends the lock words (MSG_SYNC_LOCKWORD) before thread 0
 * starts; the rule is spin_classify() in models/sync/syncmsg.h. On a lock word L:
 *   acquisition  a successful xchg/or RMW or CAS with acquire, acq_rel or seq_cst order, or the
 *                last acquire-or-stronger atomic load of a spin run on L (the core peeks at the
 *                next record of its buffer: another atomic load, RMW or CAS of L continues the
 *                run): MSG_SYNC_LOCK(L), and the atomic / load is performed once granted
 *   release      the next release-or-stronger atomic store or RMW to L by the same thread:
 *                issued, then MSG_SYNC_UNLOCK(L)
 * Counted in atomic_lock_acquisitions; the workload's lock statistics include them.
 */
#include "thread_core.h"

#include <string.h>

#include "../../sim/error.h"
#include "../../traces/atrace.h"
#include "../sync/syncmsg.h"

#define TBUF 4096

typedef struct {
    char *trace;
    double cpi;
    uint64_t store_buffer, line;
} ThreadParams;

typedef enum { TS_WAIT_START, TS_RUN, TS_WAIT_MEM, TS_WAIT_SYNC, TS_WAIT_SB, TS_DONE } TState;

typedef struct {
    Component base;
    ThreadParams p;
    AtReader *rd;
    AtRecord *buf;
    size_t pos, len;
    bool eof, has_thread;
    TState st;
    Port *dc, *sync;
    uint32_t sb_used, loads_out;
    double credit;
    /* a record in progress: remaining line pieces of a range, post-action */
    AtRecord cur;
    bool cur_active;
    uint64_t range_off;
    int after_mem;              /* 0 none, 1 send UNLOCK after the release store */
    uint64_t last_aload_pc, last_aload_addr;
    uint64_t seq;
    GHashTable *lockwords;      /* uint64_t* set: atomic lock words (from the workload) */
    GHashTable *held;           /* uint64_t* set: lock words this thread holds */
    /* stats */
    uint64_t records, loads, stores, atomics, ranges, fences, syncs, instructions;
    uint64_t spin_dropped, cas_fail_dropped, tas_fail_dropped, finish_cycle, sync_wait_cycles;
    uint64_t atomic_lock_acq;
    Tick sync_since;
    SimHist load_lat;
} TCore;

static const ParamSpec tcore_params[] = {
    { .name = "trace", .type = PARAM_STRING, .def = "",
      .doc = "set by the system from workload.trace: the directory holding T<i>.trace",
      .offset = offsetof(ThreadParams, trace) },
    { .name = "cpi", .type = PARAM_DOUBLE, .def = "1.0", .flags = PARAM_F_RANGE, .min = 0.125,
      .max = 1000, .doc = "cycles per instruction for the gaps between recorded accesses",
      .offset = offsetof(ThreadParams, cpi) },
    { .name = "store_buffer", .type = PARAM_UINT, .def = "8", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1024, .doc = "stores in flight before the core stalls",
      .offset = offsetof(ThreadParams, store_buffer) },
    { .name = "line", .type = PARAM_SIZE, .def = "64B", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 8, .max = 4096, .doc = "accesses crossing it are split (the caches' line)",
      .offset = offsetof(ThreadParams, line) },
    PARAM_END,
};

static const PortSpec tcore_ports[] = {
    { .name = "dcache", .role = PORT_REQUESTER, .doc = "loads and stores" },
    { .name = "sync", .role = PORT_REQUESTER, .doc = "the workload's synchronization manager" },
    PORT_END,
};

#define T(x) ((const TCore *)(x))
static double f_ipc(const Component *c)
{
    return stats_ratio((double)T(c)->instructions, (double)T(c)->finish_cycle);
}

static const StatSpec tcore_stats[] = {
    { "records", STAT_COUNTER, "count", "trace records consumed", offsetof(TCore, records), NULL },
    { "instructions", STAT_COUNTER, "count", "instructions (recorded gaps, or one per record)",
      offsetof(TCore, instructions), NULL },
    { "loads", STAT_COUNTER, "count", "loads (plain and atomic)", offsetof(TCore, loads), NULL },
    { "stores", STAT_COUNTER, "count", "stores (plain and atomic)", offsetof(TCore, stores), NULL },
    { "atomics", STAT_COUNTER, "count", "read-modify-writes and successful CAS",
      offsetof(TCore, atomics), NULL },
    { "ranges", STAT_COUNTER, "count", "memcpy/memset ranges", offsetof(TCore, ranges), NULL },
    { "fences", STAT_COUNTER, "count", "fences", offsetof(TCore, fences), NULL },
    { "syncs", STAT_COUNTER, "count", "create/join/barrier/mutex operations",
      offsetof(TCore, syncs), NULL },
    { "sync_wait_cycles", STAT_COUNTER, "cycle", "cycles waiting at joins, barriers and mutexes",
      offsetof(TCore, sync_wait_cycles), NULL },
    { "spin_loads_dropped", STAT_COUNTER, "count",
      "repeated atomic loads of one address from one site (host spinning), not replayed",
      offsetof(TCore, spin_dropped), NULL },
    { "cas_fail_dropped", STAT_COUNTER, "count", "failed CAS of the host, not replayed",
      offsetof(TCore, cas_fail_dropped), NULL },
    { "tas_fail_dropped", STAT_COUNTER, "count",
      "RMWs that left the value unchanged (failed test-and-set), not replayed",
      offsetof(TCore, tas_fail_dropped), NULL },
    { "atomic_lock_acquisitions", STAT_COUNTER, "count",
      "acquisitions of atomic spin locks (TAS/TTAS/ticket), re-timed through the workload",
      offsetof(TCore, atomic_lock_acq), NULL },
    { "cycles", STAT_COUNTER, "cycle", "cycle the thread finished", offsetof(TCore, finish_cycle),
      NULL },
    { "ipc", STAT_FORMULA, "inst/cycle", "instructions / cycles", 0, f_ipc },
    { "load_latency", STAT_HIST, "cycle", "load issue to data", offsetof(TCore, load_lat), NULL },
    STAT_END,
};

/* One access to one line. A blocking access (load, atomic) makes the core wait for it (tag 1);
 * a posted store only occupies the store buffer (tag 0). */
static void mem_send(TCore *k, bool store, uint64_t addr, uint32_t size, bool blocking)
{
    Msg *m = sim_msg_alloc(k->base.sim);
    m->cmd = store ? MSG_WRITE_REQ : MSG_READ_REQ;
    m->addr = addr;
    m->size = size;
    m->tag = blocking;
    m->aux[0] = ((uint64_t)(k->base.index + 1) << 48) | (++k->seq & 0xffffffffffffull);
    m->issued = k->base.eng->now;
    sim_port_send(&k->base, k->dc, m, 0);
    if (blocking)
        k->loads_out++;
    else
        k->sb_used++;
}

/* Sends one access split at line boundaries; a blocking one puts the core in TS_WAIT_MEM. */
static void tc_access(TCore *k, bool store, uint64_t addr, uint32_t size, bool blocking)
{
    uint64_t end = addr + (size ? size : 1);
    while (addr < end) {
        uint64_t lim = (addr | (k->p.line - 1)) + 1;
        uint64_t piece = (lim < end ? lim : end) - addr;
        mem_send(k, store, addr, (uint32_t)piece, blocking);
        addr += piece;
    }
    if (blocking)
        k->st = TS_WAIT_MEM;
}

static void sync_send(TCore *k, uint16_t cmd, uint64_t addr, uint64_t aux)
{
    Msg *m = sim_msg_alloc(k->base.sim);
    m->cmd = cmd;
    m->addr = addr;
    m->aux[0] = aux;
    sim_port_send(&k->base, k->sync, m, 0);
}

static const AtRecord *next_record(TCore *k)
{
    if (k->pos == k->len) {
        if (k->eof)
            return NULL;
        GError *e = NULL;
        k->len = at_reader_read(k->rd, k->buf, TBUF, &e);
        k->pos = 0;
        if (e) {
            sim_fail(k->base.sim, e);
            k->eof = true;
            return NULL;
        }
        if (k->len == 0) {
            k->eof = true;
            return NULL;
        }
    }
    return &k->buf[k->pos++];
}

/* The record after the one just taken, without consuming it (NULL at the end). Refilling the
 * buffer overwrites the records already taken: exec works on a copy. */
static const AtRecord *peek_record(TCore *k)
{
    if (k->pos == k->len) {
        if (k->eof)
            return NULL;
        GError *e = NULL;
        k->len = at_reader_read(k->rd, k->buf, TBUF, &e);
        k->pos = 0;
        if (e) {
            sim_fail(k->base.sim, e);
            k->eof = true;
            k->len = 0;
            return NULL;
        }
        if (k->len == 0) {
            k->eof = true;
            return NULL;
        }
    }
    return &k->buf[k->pos];
}

static void wait_sync(TCore *k)
{
    k->st = TS_WAIT_SYNC;
    k->sync_since = k->base.eng->now;
}

static void finish(TCore *k)
{
    k->st = TS_DONE;
    k->finish_cycle = sim_component_cycle(&k->base) + 1;
    sync_send(k, MSG_SYNC_DONE, 0, 0);
}

/* Executes one record; returns the cycles to wait before the next (0: the core now waits for a
 * message). */
static uint64_t exec(TCore *k, const AtRecord *r)
{
    k->records++;
    if (g_hash_table_size(k->lockwords) && (AT_KINDS_ATOMIC & AT_KIND_BIT(r->kind)) &&
        r->kind != AT_FENCE && g_hash_table_contains(k->lockwords, &r->addr)) {
        bool holding = g_hash_table_contains(k->held, &r->addr);
        int cls = spin_classify(r, r->kind == AT_ALOAD ? peek_record(k) : NULL, holding);
        if (cls == SPIN_ACQUIRE) {
            uint64_t *key = g_new(uint64_t, 1);
            *key = r->addr;
            g_hash_table_add(k->held, key);
            k->atomic_lock_acq++;
            k->syncs++;
            if (r->kind != AT_ALOAD)
                k->last_aload_pc = k->last_aload_addr = UINT64_MAX;
            sync_send(k, MSG_SYNC_LOCK, r->addr, 1);
            wait_sync(k);
            k->cur = *r;   /* performed after the grant */
            k->cur_active = true;
            return 0;
        }
        if (cls == SPIN_RELEASE) {
            g_hash_table_remove(k->held, &r->addr);
            k->syncs++;
            sync_send(k, MSG_SYNC_UNLOCK, r->addr, 1);
            /* and the store / RMW itself below */
        }
    }
    if (r->kind != AT_ALOAD)
        k->last_aload_pc = k->last_aload_addr = UINT64_MAX;
    switch (r->kind) {
    case AT_LOAD:
    case AT_ALOAD:
        if (r->kind == AT_ALOAD && r->pc == k->last_aload_pc && r->addr == k->last_aload_addr) {
            k->spin_dropped++;
            return 0 + 1;
        }
        if (r->kind == AT_ALOAD) {
            k->last_aload_pc = r->pc;
            k->last_aload_addr = r->addr;
        }
        k->loads++;
        tc_access(k, false, r->addr, r->size, true);
        return 0;
    case AT_STORE:
    case AT_ASTORE:
        k->stores++;
        if (k->sb_used >= k->p.store_buffer) {
            k->cur = *r;
            k->cur_active = true;
            k->st = TS_WAIT_SB;
            return 0;
        }
        tc_access(k, true, r->addr, r->size, false);
        return 1;
    case AT_CAS_FAIL:
        k->cas_fail_dropped++;
        return 1;
    case AT_RMW:
        if (r->flags & AT_F_UNCHANGED) {
            k->tas_fail_dropped++;
            return 1;
        }
        /* fall through */
    case AT_CAS_OK:
        k->atomics++;
        k->stores++;
        /* the atomic needs its line in M and completes there: wait like a load */
        tc_access(k, true, r->addr, r->size, true);
        return 0;
    case AT_RANGE_R:
    case AT_RANGE_W:
        k->ranges++;
        k->cur = *r;
        k->cur_active = true;
        k->range_off = 0;
        k->st = TS_WAIT_SB;   /* served piece by piece in tick */
        return 1;
    case AT_FENCE:
        k->fences++;
        if (k->sb_used > 0) {
            k->st = TS_WAIT_SB;
            k->cur = *r;
            k->cur_active = true;
            return 0;
        }
        return 1;
    case AT_CREATE:
        k->syncs++;
        sync_send(k, MSG_SYNC_CREATE, 0, r->arg);
        return 1;
    case AT_JOIN:
        k->syncs++;
        sync_send(k, MSG_SYNC_JOIN, 0, r->arg);
        wait_sync(k);
        return 0;
    case AT_BARRIER:
        k->syncs++;
        sync_send(k, MSG_SYNC_BARRIER, r->addr, r->arg);
        wait_sync(k);
        return 0;
    case AT_LOCK_ACQ:
        k->syncs++;
        sync_send(k, MSG_SYNC_LOCK, r->addr, 0);
        wait_sync(k);
        k->cur = *r;   /* after the grant: the lock word's atomic update */
        k->cur_active = true;
        return 0;
    case AT_LOCK_REL:
        k->syncs++;
        k->stores++;
        tc_access(k, true, r->addr, 8, false);    /* the release store to the lock word */
        sync_send(k, MSG_SYNC_UNLOCK, r->addr, 0);
        return 1;
    default:                             /* ROI, TX and condition-variable markers */
        return 1;
    }
}

static uint64_t tcore_tick(Component *c)
{
    TCore *k = (TCore *)c;
    if (k->st != TS_RUN && k->st != TS_WAIT_SB)
        return 0;
    if (k->st == TS_WAIT_SB) {
        const AtRecord *r = &k->cur;
        if (r->kind == AT_FENCE) {
            if (k->sb_used > 0)
                return 0;
        } else if (r->kind == AT_RANGE_R || r->kind == AT_RANGE_W) {
            bool w = r->kind == AT_RANGE_W;
            while (k->range_off < r->arg) {
                if (w && k->sb_used >= k->p.store_buffer)
                    return 0;
                uint64_t a = r->addr + k->range_off;
                uint64_t lim = (a | (k->p.line - 1)) + 1;
                uint64_t piece = lim - a < r->arg - k->range_off ? lim - a : r->arg - k->range_off;
                mem_send(k, w, a, (uint32_t)piece, !w);
                k->range_off += piece;
                if (!w) {
                    k->st = TS_WAIT_MEM;   /* reads of a range: one line at a time */
                    return 0;
                }
            }
        } else {
            if (k->sb_used >= k->p.store_buffer)
                return 0;
            tc_access(k, true, r->addr, r->size, false);
        }
        k->cur_active = false;
        k->st = TS_RUN;
    }
    /* run records until one has to wait */
    for (int budget = 0; budget < 64; budget++) {
        const AtRecord *r = next_record(k);
        if (!r) {
            if (k->sb_used > 0 || k->loads_out > 0)
                return 0;
            finish(k);
            return 0;
        }
        uint64_t insts = (r->flags & AT_F_GAP) && r->gap ? r->gap : 1;
        k->instructions += insts;
        k->credit += (double)insts * k->p.cpi;
        AtRecord rec = *r;   /* exec may peek ahead and refill the buffer */
        uint64_t wait = exec(k, &rec);
        sim_progress(c->eng);
        if (k->st == TS_WAIT_SB && k->sb_used == 0 && k->loads_out == 0)
            return 1;       /* a range or a fence to start: nothing in flight will wake us */
        if (k->st != TS_RUN)
            return 0;
        uint64_t gap = (uint64_t)k->credit;
        k->credit -= (double)gap;
        if (gap + wait > 1)
            return gap > wait ? gap : wait;
    }
    return 1;
}

static void tcore_recv(Component *c, Port *port, Msg *m)
{
    TCore *k = (TCore *)c;
    if (port == k->sync) {
        if (m->cmd == MSG_SYNC_START) {
            k->st = TS_RUN;
            sim_component_wake(c);
        } else if (m->cmd == MSG_SYNC_LOCKWORD) {
            uint64_t *key = g_new(uint64_t, 1);
            *key = m->addr;
            g_hash_table_add(k->lockwords, key);
        } else {
            g_assert(m->cmd == MSG_SYNC_GO && k->st == TS_WAIT_SYNC);
            k->sync_wait_cycles += clock_cycle(c->clk, c->eng->now - k->sync_since);
            if (k->cur_active && k->cur.kind == AT_LOCK_ACQ) {
                /* acquired: the lock word's atomic update, through coherence */
                k->cur_active = false;
                k->atomics++;
                tc_access(k, true, k->cur.addr, 8, true);
            } else if (k->cur_active && k->cur.kind == AT_ALOAD) {
                /* an atomic lock acquired by a spin on loads: the load that saw it free */
                k->cur_active = false;
                k->loads++;
                k->last_aload_pc = k->cur.pc;
                k->last_aload_addr = k->cur.addr;
                tc_access(k, false, k->cur.addr, k->cur.size, true);
            } else if (k->cur_active && (k->cur.kind == AT_RMW || k->cur.kind == AT_CAS_OK)) {
                /* an atomic lock acquired by test-and-set / CAS: the successful atomic */
                k->cur_active = false;
                k->atomics++;
                k->stores++;
                tc_access(k, true, k->cur.addr, k->cur.size, true);
            } else {
                k->st = TS_RUN;
                sim_component_wake(c);
            }
        }
        sim_msg_free(c->sim, m);
        return;
    }
    bool blocking = m->tag == 1;
    if (m->cmd == MSG_READ_RESP)
        sim_hist_add(&k->load_lat, clock_cycle(c->clk, c->eng->now - m->issued));
    if (blocking)
        k->loads_out--;
    else
        k->sb_used--;
    sim_msg_free(c->sim, m);
    sim_progress(c->eng);
    if (k->st == TS_WAIT_MEM && k->loads_out == 0) {
        /* the blocking access completed; a range read goes on with its next line */
        k->st = k->cur_active && k->cur.kind == AT_RANGE_R ? TS_WAIT_SB : TS_RUN;
        sim_component_wake(c);
    } else if (k->st == TS_WAIT_SB || (k->st == TS_RUN && k->eof)) {
        sim_component_wake(c);
    }
}

static bool tcore_realize(Component *c, GError **error)
{
    TCore *k = (TCore *)c;
    k->dc = sim_port(c, "dcache", 0);
    k->sync = sim_port(c, "sync", 0);
    if (!k->dc || !k->sync) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "thread-core needs its dcache and sync ports connected");
        return false;
    }
    if (!k->p.trace || !*k->p.trace) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "workload.trace is not set: give the directory of a recorded trace "
                    "(e.g. --set workload.trace=traces/samples/fs_packed-4t)");
        return false;
    }
    char *path = g_strdup_printf("%s/T%d.trace", k->p.trace, c->index < 0 ? 0 : c->index);
    k->buf = g_new(AtRecord, TBUF);
    if (g_file_test(path, G_FILE_TEST_EXISTS)) {
        k->rd = at_reader_open(path, error);
        if (!k->rd) {
            g_free(path);
            return false;
        }
        k->has_thread = true;
    } else if (c->index == 0) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT,
                    "%s: cannot open: no thread 0 in workload.trace", path);
        g_free(path);
        return false;
    }
    g_free(path);
    /* thread 0 too waits for MSG_SYNC_START: the workload sends it after the lock words */
    k->st = k->has_thread ? TS_WAIT_START : TS_DONE;
    k->lockwords = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    k->held = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    k->last_aload_pc = k->last_aload_addr = UINT64_MAX;
    return true;
}

static void tcore_start(Component *c)
{
    if (((TCore *)c)->st == TS_RUN)
        sim_component_wake(c);
}

static void tcore_finalize(Component *c)
{
    TCore *k = (TCore *)c;
    if (k->rd)
        at_reader_close(k->rd);
    g_free(k->buf);
    if (k->lockwords) {
        g_hash_table_destroy(k->lockwords);
        g_hash_table_destroy(k->held);
    }
}

static bool tcore_busy(const Component *c)
{
    const TCore *k = (const TCore *)c;
    return k->st != TS_DONE && k->st != TS_WAIT_START;
}

static double tcore_progress(const Component *c)
{
    const TCore *k = (const TCore *)c;
    return k->rd ? at_reader_progress(k->rd) : 1.0;
}

static void tcore_dump(Component *c, GString *out)
{
    static const char *const names[] = { "waiting to be created", "running", "waiting for memory",
                                         "waiting at a join/barrier/mutex",
                                         "waiting for the store buffer", "done" };
    TCore *k = (TCore *)c;
    g_string_append_printf(out, "  %s, %" G_GUINT64_FORMAT " records, store buffer %u, loads %u\n",
                           names[k->st], k->records, k->sb_used, k->loads_out);
}

const ComponentClass thread_core_class = {
    .name = "thread-core",
    .doc = "core replaying one thread of a recorded parallel program (workload.trace)",
    .size = sizeof(TCore),
    .params_offset = offsetof(TCore, p),
    .params = tcore_params,
    .ports = tcore_ports,
    .stats = tcore_stats,
    .realize = tcore_realize,
    .start = tcore_start,
    .tick = tcore_tick,
    .recv = tcore_recv,
    .dump = tcore_dump,
    .busy = tcore_busy,
    .progress = tcore_progress,
    .finalize = tcore_finalize,
};
