/* thread_core.c: replays one thread of a trace recorded by archsim's tracer (traces/atrace.h)
 * on a core of the simulated multicore: thread i runs on core i.
 *
 *   records --> gap (cpi x instructions since the previous record, or 1 cycle when unknown),
 *               spent before the record issues, whatever it is (tc_take)
 *           --> memory accesses, under `model` (below)
 *           --> create / join / barrier / mutex go through the workload's synchronization
 *               manager (models/sync/workload.c), so waits last what the SIMULATED machine
 *               makes them last
 *
 * model none (the default; the core as it was before memory models, so existing experiments keep
 * their numbers): loads and atomic loads wait for data; stores are sent to the L1 at once and
 * only occupy `store_buffer` slots until it answers, so the L1 may perform stores to different
 * lines out of order and loads pass them (PSO-like, without forwarding); atomic read-modify-
 * writes and successful CAS are blocking writes; fences wait for the stores in flight; no other
 * C11 order is enforced.
 *
 * model sc | tso | pso | weak: a memory pipeline that follows the model's row of memmodel.h
 * (mm_may_bypass, the same table as the litmus core models/cpu/mmcore.c) plus the C11 orders of
 * the trace (the Primer, 2nd ed., ch. 3-5; the C11 -> x86/Power mappings of Sewell et al.):
 *
 *   front end (records in order) --load/RMW: sent when the table allows, else stalls------> L1
 *        |                                                                                  ^
 *        +--store: retires into the store buffer --drains when the table allows------------+
 *                  (a load of its bytes forwards from it, TSO/PSO/WEAK)
 *
 * Every access not yet performed (load in flight, buffered or draining store, RMW) is an op of a
 * window in program order; an op performs when the L1 answers (multi-copy atomic, as in mmcore).
 * A later access may perform before an earlier unperformed one only when the table lets its kind
 * pass the earlier kind (an RMW is both a load and a store) and their bytes do not overlap; a load
 * whose bytes the latest overlapping buffered store covers takes its value (forwarded). Loads
 * block the front end unless the model relaxes ld->ld and ld->st (WEAK: up to `window` loads
 * and RMWs in flight). On top, the C11 order recorded with each atomic:
 *   release store/RMW (release, acq_rel)   performs only after every earlier access performed
 *   acquire load/RMW (consume = acquire)   no later access starts until it performed
 *   seq_cst access                         a full fence before it, and acquire after it
 *   fence acquire | release | acq_rel      earlier loads before later accesses (the front end
 *                                          waits) | later stores perform after every earlier
 *                                          access | both
 *   fence seq_cst                          full: waits until every earlier access performed
 *   RMW                                    performed atomically at the L1 (MSG_F_RMW)
 * create / join / barrier / mutex lock and unlock are full fences (pthread calls): the core waits
 * until every earlier access performed, then talks to the workload.
 *
 * Spin artefacts of the recording host are not replayed (docs/references.md §8): a failed
 * CAS, an RMW that left the value unchanged (a failed test-and-set) and a repeated atomic load of
 * the same address from the same site are dropped and counted; the acquisition itself is
 * re-timed by the simulated machine.
 *
 * Spin locks built from C11 atomics (TAS, TTAS, ticket) are re-timed like pthread mutexes. The
 * workload pre-scans the trace and sends the lock words (MSG_SYNC_LOCKWORD) before thread 0
 * starts; the rule is spin_classify() in models/sync/syncmsg.h. On a lock word L:
 *   acquisition  a successful xchg/or RMW or CAS with acquire, acq_rel or seq_cst order, or the
 *                last acquire-or-stronger atomic load of a spin run on L (the core peeks at the
 *                next record of its buffer: another atomic load, RMW or CAS of L continues the
 *                run): MSG_SYNC_LOCK(L), and the atomic / load is performed once granted
 *   release      the next release-or-stronger atomic store or RMW to L by the same thread:
 *                issued, then MSG_SYNC_UNLOCK(L) (under a model: once that store or RMW has
 *                performed, so the next holder finds every write of the critical section)
 * Counted in atomic_lock_acquisitions; the workload's lock statistics include them.
 *
 * `mutex` maps the trace's pthread mutex markers (not the spin locks above) to a lock algorithm
 * (docs/tracing.md "Real traces: mapping pthread mutexes to a lock algorithm"): manager (the
 * default) asks the workload as described above; tas, ttas, ttas-backoff, ticket, anderson, mcs,
 * clh or llsc run that algorithm's accesses of locks.c with real values on the lock's words in a
 * reserved region (tclocks.h), through the L1 like any access:
 *   TS_LOCK  drain (every earlier access performed: a pthread call is a full fence) -->
 *            tcl_step: one blocking access at a time, a watch while spinning --> next record
 * The acquisition order, hand-off time and coherence traffic then come from the algorithm.
 *
 * `htm: on` runs the trace's transaction markers (AT_TX_BEGIN/END/ABORT) as hardware
 * transactions of the L1 (models/cache/htm.h), retried from a copy of the region's records, then
 * run under a fallback lock: the section "transactions of the trace" below, docs/tracing.md
 * "Transactions in traces". Off (the default), the markers are ignored.
 */
#include "thread_core.h"
#include "../mem/linkcheck.h"
#include "../mem/memmsg.h"

#include <string.h>

#include "../../sim/error.h"
#include "../../traces/atrace.h"
#include "../cache/htm.h"
#include "../sync/syncmsg.h"
#include "memmodel.h"
#include "tclocks.h"

#define TBUF 4096

/* `model`: none, then the rows of memmodel.h by name (mem_model_find). */
static const char *const tc_model_choices[] = { "none", "sc", "tso", "pso", "weak", NULL };
/* `htm_mutex` */
enum { TXM_ELIDE, TXM_FALLBACK };
static const char *const tc_htm_mutex_choices[] = { "elide", "fallback", NULL };

typedef struct {
    char *trace;
    double cpi;
    uint64_t store_buffer, line;
    int model;                  /* index into tc_model_choices; 0: none */
    uint64_t window;
    int mutex;                  /* TclAlgo: TCL_MANAGER, or the lock algorithm of mutexes */
    uint64_t backoff_min, backoff_max;
    bool htm;                   /* the trace's transactions as hardware transactions (tctx) */
    uint64_t htm_retries, htm_max_records;
    int htm_mutex;              /* TXM_ELIDE, TXM_FALLBACK: a pthread mutex inside a transaction */
    uint64_t addr_offset;       /* added to every address the trace gives */
} ThreadParams;

/* TS_WAIT_ORDER (models only): the front end waits for ops to perform, a record to retry */
/* TS_LOCK (mutex != manager): a pthread mutex lock or unlock runs its lock algorithm */
/* TS_TX (htm on): a transaction region's begin, transactional records, commit, abort, or the
   fallback lock (the section "transactions of the trace" below) */
typedef enum { TS_WAIT_START, TS_RUN, TS_WAIT_MEM, TS_WAIT_SYNC, TS_WAIT_SB, TS_DONE,
               TS_WAIT_ORDER, TS_LOCK, TS_TX } TState;

/* ---- the memory pipeline of the models: one op per access not yet performed ---------------
 * The window is a ring indexed by an op's sequence number (program order): [head, tail) holds
 * every op from the oldest unperformed one on; ops that performed out of order stay, DONE, until
 * the head passes them. */
enum { TC_LD = 1, TC_ST = 2 };                           /* op kind bits; an RMW is both */
enum { OPS_BUFFERED, OPS_SENT, OPS_DONE };
enum { STALL_NONE, STALL_FENCE, STALL_RELEASE, STALL_ORDER };   /* why the front end waits */
enum { LOCK_NONE, LOCK_ASK, LOCK_WAIT, LOCK_GRANTED };   /* an acquisition through the workload */

typedef struct {
    uint64_t addr;
    uint64_t after;             /* sent only once every op with a smaller sequence performed */
    uint64_t val;               /* value stored (the core's cookie), RMW operand */
    Tick since;                 /* entered the window */
    uint32_t size;
    uint16_t out;               /* line pieces sent and not answered */
    uint8_t kind;               /* TC_LD | TC_ST */
    uint8_t st;                 /* OPS_* */
    uint8_t rmw;                /* MSG_RMW_* + 1 for an atomic RMW, else 0 */
    bool blocks;                /* the front end waits until it performed */
    bool unlock;                /* performed: send MSG_SYNC_UNLOCK(addr) (a spin-lock release) */
    bool release;               /* after = its own sequence: every earlier op performs first */
    bool rel_waited;            /* a release that found earlier accesses unperformed */
} TcOp;

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
    double credit;              /* cycles of compute owed below one (tc_take carries them) */
    /* a record whose compute gap the core is spending (tc_take): it issues at gap_until */
    AtRecord gap_rec;
    bool gap_held;
    uint64_t gap_until;
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
    /* the models' pipeline (mm == NULL: model none) */
    const MemModel *mm;
    bool byp[4][4];             /* [earlier kind][later kind]: may later pass earlier (table) */
    TcOp *ops;
    uint64_t ops_cap, head, tail;
    uint32_t n_sb, n_ld, n_block, n_unlock;  /* unperformed: stores, loads+RMWs, blocking, unlock */
    uint64_t rel_fence;         /* a release fence: later stores wait for ops before this seq */
    int cur_lock;               /* LOCK_*: cur is an acquisition through the lock manager */
    bool cur_unlock;            /* cur is a spin-lock release */
    int stall_why;              /* STALL_*: the current stall, counted once */
    Tick stall_since;
    uint64_t forwarded, fence_stalls, fence_stall_cycles, release_waits, release_wait_cycles;
    uint64_t order_stall_cycles, sb_full_stalls;
    SimHist sb_occ;
    /* mutex != manager: the lock algorithm (tclocks.h); the world is core 0's, shared */
    TclWorld *tw;
    TclThread *tl;
    int lock_phase;             /* LP_* */
    /* htm on: the region of the trace between AT_TX_BEGIN and AT_TX_END in progress */
    int tx_region;              /* TXR_NONE, TXR_TX (hardware transaction), TXR_FALLBACK */
    int txs, tx_goal, tx_next, fb_op;   /* TXS_*, TXG_*, TXN_*, FB_* */
    uint64_t tx_num;            /* the attempt's number: tag TC_TAG_TX | tx_num */
    bool tx_live;               /* begun at the L1, not aborted: its answers count */
    bool tx_replay, tx_record, tx_from_buf, tx_overflow, tx_cur_active;
    GArray *tx_buf;             /* AtRecord: the region's records after its AT_TX_BEGIN */
    guint tx_rpos;              /* the next record replayed from tx_buf */
    uint64_t tx_depth, tx_attempt, tx_range_off;
    uint32_t tx_ld_out, tx_st_out;   /* transactional pieces in flight: blocking, posted */
    AtRecord tx_cur;            /* a store, range or fence of the transaction waiting */
    uint64_t tx_elided[8];      /* mutexes elided by the attempt, not yet unlocked */
    int n_elided;
    Tick tx_start;
    uint64_t tx_begins, tx_commits, tx_aborts, tx_ab_conflict, tx_ab_capacity, tx_ab_explicit;
    uint64_t tx_ab_held, tx_ab_unsupported, tx_retries, tx_fallbacks, tx_wasted, tx_committed;
    uint64_t tx_replayed, tx_elided_locks, tx_program_aborts;
} TCore;

enum { LP_DRAIN, LP_RUN, LP_MEM };   /* TS_LOCK: earlier accesses, step, an access out */
#define TC_LOCK_TAG 0xfffffffffffffff0ull   /* the tag of the lock algorithm's accesses */

static const ParamSpec tcore_params[] = {
    { .name = "trace", .type = PARAM_STRING, .def = "",
      .doc = "set by the system from workload.trace: the directory holding T<i>.trace",
      .offset = offsetof(ThreadParams, trace) },
    { .name = "addr_offset", .type = PARAM_UINT, .def = "0",
      .doc = "added to every address of the trace (data, and lock and barrier objects): puts "
      "this program elsewhere in physical memory, e.g. one copy per cluster of a machine graph",
      .offset = offsetof(ThreadParams, addr_offset) },
    { .name = "cpi", .type = PARAM_DOUBLE, .def = "1.0", .flags = PARAM_F_RANGE, .min = 0.125,
      .max = 1000, .doc = "cycles per instruction for the gaps between recorded accesses",
      .offset = offsetof(ThreadParams, cpi) },
    { .name = "store_buffer", .type = PARAM_UINT, .def = "8", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1024, .doc = "store buffer entries: a store finding it full stalls the core "
      "(model none: stores in flight to the L1)", .offset = offsetof(ThreadParams, store_buffer) },
    { .name = "line", .type = PARAM_SIZE, .def = "64B", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 8, .max = 4096, .doc = "accesses crossing it are split (the caches' line)",
      .offset = offsetof(ThreadParams, line) },
    { .name = "model", .type = PARAM_ENUM, .def = "none", .choices = tc_model_choices,
      .doc = "memory model (models/cpu/memmodel.h) honouring the trace's C11 orders: sc, tso, "
      "pso, weak (adding the stats sb_occupancy, forwarded, fence_stalls, fence_stall_cycles, "
      "release_waits, release_wait_cycles, order_stall_cycles, sb_full_stalls); none: the core "
      "before memory models (docs/tracing.md \"Memory models\")",
      .offset = offsetof(ThreadParams, model) },
    { .name = "window", .type = PARAM_UINT, .def = "8", .flags = PARAM_F_RANGE, .min = 1,
      .max = 256, .doc = "model weak: loads and RMWs in flight at once, performed out of order",
      .offset = offsetof(ThreadParams, window) },
    { .name = "mutex", .type = PARAM_ENUM, .def = "manager", .choices = tcl_algo_names,
      .doc = "pthread mutexes of the trace: manager (granted by the workload, first come first "
      "served) or a lock algorithm run with real accesses: tas, ttas, ttas-backoff, ticket, "
      "anderson, mcs, clh, llsc (docs/tracing.md; adds the lock_* and locks.* stats)",
      .offset = offsetof(ThreadParams, mutex) },
    { .name = "backoff_min", .type = PARAM_CYCLES, .def = "8", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1e9, .doc = "mutex: ttas-backoff: the first backoff limit",
      .offset = offsetof(ThreadParams, backoff_min) },
    { .name = "backoff_max", .type = PARAM_CYCLES, .def = "1024", .flags = PARAM_F_RANGE,
      .min = 1, .max = 1e9, .doc = "mutex: ttas-backoff: the largest backoff limit",
      .offset = offsetof(ThreadParams, backoff_max) },
    { .name = "htm", .type = PARAM_BOOL, .def = "off",
      .doc = "run the trace's transactions (archsim_tx_begin/end/abort markers) as hardware "
      "transactions of the L1 (smp only), retried, then under a fallback lock (docs/tracing.md "
      "\"Transactions in traces\"; adds the tx_* stats); off: the markers are ignored",
      .offset = offsetof(ThreadParams, htm) },
    { .name = "htm_retries", .type = PARAM_UINT, .def = "3", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1000, .doc = "htm: retries of an aborted transaction that may succeed on retry "
      "(conflict, fallback lock held) before its region runs under the fallback lock",
      .offset = offsetof(ThreadParams, htm_retries) },
    { .name = "htm_max_records", .type = PARAM_UINT, .def = "4096", .flags = PARAM_F_RANGE,
      .min = 1, .max = 1e7, .doc = "htm: trace records a transaction may hold (the core keeps "
      "them to replay it); a longer one aborts as a capacity abort and runs under the fallback "
      "lock", .offset = offsetof(ThreadParams, htm_max_records) },
    { .name = "htm_mutex", .type = PARAM_ENUM, .def = "elide", .choices = tc_htm_mutex_choices,
      .doc = "htm: a pthread mutex lock/unlock inside a transaction: elide (the transaction "
      "replaces the lock; it reads the mutex word) or fallback (the transaction aborts and its "
      "region runs under the fallback lock)", .offset = offsetof(ThreadParams, htm_mutex) },
    PARAM_END,
};

static const PortSpec tcore_ports[] = {
    { .name = "dcache", .role = PORT_REQUESTER, .required = true, .doc = "loads and stores" },
    { .name = "sync", .role = PORT_REQUESTER, .required = true, .doc = "the workload's synchronization manager" },
    PORT_END,
};

#define T(x) ((const TCore *)(x))
static double f_ipc(const Component *c)
{
    /* a thread that has a trace and has not finished (stats frozen at a ROI end): over the
     * cycles so far */
    const TCore *k = T(c);
    uint64_t cycles = k->finish_cycle;
    if (c->sim->roi.ended && k->st != TS_DONE && k->rd && k->instructions)
        cycles = sim_stats_cycles(c);
    return stats_ratio((double)k->instructions, (double)cycles);
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
    { "cycles", STAT_STAMP, "cycle", "cycle the thread finished", offsetof(TCore, finish_cycle),
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
    mem_msg(m)->addr = addr;
    m->size = size;
    mem_msg(m)->tag = blocking;
    mem_msg(m)->value = ((uint64_t)(k->base.index + 1) << 48) | (++k->seq & 0xffffffffffffull);
    m->issued = k->base.eng->now;
    sim_port_send(&k->base, k->dc, m, 0);
    if (blocking)
        k->loads_out++;
    else
        k->sb_used++;
}

/* Bytes of [addr, addr + left) that fall in addr's block of `block` bytes (a power of two);
 * never computes the block's end address, which is 2^64 (0) for the last block. */
static inline uint64_t tc_line_room(uint64_t addr, uint64_t block, uint64_t left)
{
    uint64_t room = (addr | (block - 1)) - addr + 1;
    return room < left ? room : left;
}

/* Sends one access split at line boundaries; a blocking one puts the core in TS_WAIT_MEM. */
static void tc_access(TCore *k, bool store, uint64_t addr, uint32_t size, bool blocking)
{
    /* counted in bytes left, not against an end address: an access in the last line of the
     * address space ends at 2^64, which wraps to 0 (issue 15 item 9) */
    uint64_t left = size ? size : 1;
    while (left > 0) {
        uint64_t piece = tc_line_room(addr, k->p.line, left);
        mem_send(k, store, addr, (uint32_t)piece, blocking);
        addr += piece;
        left -= piece;
    }
    if (blocking)
        k->st = TS_WAIT_MEM;
}

static void sync_send(TCore *k, uint16_t cmd, uint64_t addr, uint64_t aux)
{
    Msg *m = sim_msg_alloc(k->base.sim);
    m->cmd = cmd;
    sync_msg(m)->addr = addr;
    sync_msg(m)->arg = aux;
    sim_port_send(&k->base, k->sync, m, 0);
}

static const AtRecord *tctx_next_record(TCore *k);

static const AtRecord *next_record(TCore *k)
{
    if (G_UNLIKELY(k->tx_region))
        return tctx_next_record(k);   /* a transaction region: its copy first, then the trace */
    if (k->pos == k->len) {
        if (k->eof)
            return NULL;
        GError *e = NULL;
        k->len = at_reader_read(k->rd, k->buf, TBUF, &e);
        k->pos = 0;
        if (G_UNLIKELY(k->p.addr_offset))
            for (size_t i = 0; i < k->len; i++)
                k->buf[i].addr += k->p.addr_offset;
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
    if (G_UNLIKELY(k->tx_replay) && k->tx_rpos < k->tx_buf->len)
        return &g_array_index(k->tx_buf, AtRecord, k->tx_rpos);
    if (k->pos == k->len) {
        if (k->eof)
            return NULL;
        GError *e = NULL;
        k->len = at_reader_read(k->rd, k->buf, TBUF, &e);
        k->pos = 0;
        if (G_UNLIKELY(k->p.addr_offset))
            for (size_t i = 0; i < k->len; i++)
                k->buf[i].addr += k->p.addr_offset;
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

/* ---- compute gaps: one rule for model none, the models and transactions --------------------
 * A record's compute gap is cpi x the instructions it counts (the trace's gap, this instruction
 * included; 1 when the trace has none), plus the fraction of a cycle carried from the records
 * before. It is spent BEFORE the record issues, in program order, whatever the record is: the
 * core computes for the gap's cycles, then the record issues (a record of gap 0 issues in the
 * same cycle as the one before). A record that then waits (a load, an atomic, a lock, a join, a
 * barrier, a full store buffer) waits after its own compute, and the compute of the records
 * after it comes after the wait, as on an in-order core: compute before a lock is not inside the
 * critical section, compute after a load is not paid during it. A record that does not wait
 * costs its gap; one that waits, its gap plus the wait.
 *
 *   ... record i-1 done | gap_i cycles of compute | record i issues | (its wait) | gap_i+1 ...
 */
enum { TAKE_GO, TAKE_GAP, TAKE_END };

/* The next record, once its compute gap is spent. TAKE_GO: *out is the record (a copy: exec may
 * peek ahead and refill the buffer), to issue now; TAKE_GAP: sleep *cycles first (the record is
 * kept, and returned by the call after them; an early wake-up sleeps the rest); TAKE_END: the
 * trace is over. Counts the record and its instructions when taken from the trace (a
 * transaction's records replayed from the copy: time only). */
/* A record reached from the trace (not a transaction's replay): with sim.roi_markers, the ROI
 * markers reset the stats at the first begin of any thread and freeze them once every begin
 * has its end (sim_stats_roi_begin; docs/outputs.md). */
static void tc_reached(TCore *k, const AtRecord *r)
{
    if (k->tx_from_buf || !k->base.sim->roi.markers)
        return;
    if (r->kind == AT_ROI_BEGIN)
        sim_stats_roi_begin(k->base.sim);
    else if (r->kind == AT_ROI_END)
        sim_stats_roi_end(k->base.sim);
}

static int tc_take(TCore *k, AtRecord *out, uint64_t *cycles)
{
    uint64_t now = sim_component_cycle(&k->base);
    if (k->gap_held) {
        if (now < k->gap_until) {
            *cycles = k->gap_until - now;
            return TAKE_GAP;
        }
        k->gap_held = false;
        *out = k->gap_rec;
        tc_reached(k, out);
        return TAKE_GO;
    }
    const AtRecord *r = next_record(k);
    if (!r)
        return TAKE_END;
    uint64_t insts = (r->flags & AT_F_GAP) && r->gap ? r->gap : 1;
    if (!k->tx_from_buf) {
        k->records++;
        k->instructions += insts;
        sim_count_insts(&k->base, insts);
        if (r->kind <= AT_RANGE_W && r->kind != AT_FENCE)
            sim_count_refs(&k->base, 1);
    }
    k->credit += (double)insts * k->p.cpi;
    uint64_t gap = (uint64_t)k->credit;
    k->credit -= (double)gap;
    *out = *r;
    if (gap > 0) {
        k->gap_rec = *r;
        k->gap_held = true;
        k->gap_until = now + gap;
        *cycles = gap;
        /* a recorded gap is the trace's: finite, taken once (a transaction's replay can repeat,
         * so it does not count), so the watchdog may wait it out however long it is */
        if (!k->tx_from_buf)
            sim_quiet_until(k->base.eng, sim_tick_mul(k->gap_until, k->base.clk->period));
        return TAKE_GAP;
    }
    tc_reached(k, out);
    return TAKE_GO;
}

static inline bool tctx_drained(const TCore *k);

/* tc_take outside a transaction: true with the record to issue now, or false with the cycles
 * the tick returns (its gap; 0 at the trace's end, once finished or waiting for the last
 * accesses to perform, whose answers wake the core). */
static bool tc_take_run(TCore *k, AtRecord *out, uint64_t *ret)
{
    int take = tc_take(k, out, ret);
    if (take == TAKE_GO)
        return true;
    if (take == TAKE_END) {
        *ret = 0;
        if (!tctx_drained(k)) {
            if (k->mm)
                k->st = TS_WAIT_ORDER;
        } else {
            finish(k);
        }
    }
    return false;
}

/* ---- pthread mutexes as a lock algorithm (mutex != manager, tclocks.h) --------------------- */

/* A lock or unlock record: run from the next tick, in TS_LOCK. */
static void tc_lock_start(TCore *k, const AtRecord *r)
{
    k->syncs++;
    k->cur = *r;
    k->cur_active = false;
    k->st = TS_LOCK;
    k->lock_phase = LP_DRAIN;
}

/* TS_LOCK: wait until every earlier access performed, then run the algorithm's steps. */
static uint64_t tc_lock_tick(TCore *k)
{
    Component *c = &k->base;
    if (k->lock_phase == LP_MEM)
        return 0;
    if (k->lock_phase == LP_DRAIN) {
        if (k->mm ? k->head < k->tail : k->sb_used > 0 || k->loads_out > 0)
            return 0;                       /* woken by their answers */
        GError *e = NULL;
        uint64_t now = sim_component_cycle(c);
        int go = k->cur.kind == AT_LOCK_ACQ ? tcl_lock_begin(k->tl, k->cur.addr, now, &e)
                                            : tcl_unlock_begin(k->tl, k->cur.addr, now);
        if (go == TCL_FAIL) {
            sim_fail(c->sim, e);
            return 0;
        }
        if (go == TCL_SKIP) {
            k->st = TS_RUN;
            return 1;
        }
        k->lock_phase = LP_RUN;
        k->sync_since = c->eng->now;
    }
    for (;;) {
        TclAccess a;
        uint64_t delay;
        int step = tcl_step(k->tl, &c->rng, &a, &delay);
        if (step == TCL_STEP_DELAY) {
            if (delay == 0)
                continue;
            return delay;
        }
        if (step == TCL_STEP_DONE) {
            sim_progress(c->eng);
            k->sync_wait_cycles += clock_cycle(c->clk, c->eng->now - k->sync_since);
            k->st = TS_RUN;
            return 1;
        }
        Msg *m = sim_msg_alloc(c->sim);
        m->cmd = a.cmd;
        m->flags = a.flags;
        mem_msg(m)->addr = a.addr;
        m->size = 8;
        mem_msg(m)->tag = TC_LOCK_TAG;
        mem_msg(m)->value = a.aux[0];
        mem_msg(m)->arg = a.aux[1];
        m->issued = c->eng->now;
        sim_port_send(c, k->dc, m, 0);
        k->lock_phase = LP_MEM;
        return 0;
    }
}

static void tc_lock_answer(TCore *k, Msg *m)
{
    Component *c = &k->base;
    g_assert(k->st == TS_LOCK && k->lock_phase == LP_MEM);
    GError *e = NULL;
    bool ok = tcl_answer(k->tl, sim_component_cycle(c), mem_msg(m)->value, mem_msg(m)->arg, &e);
    sim_msg_free(c->sim, m);
    /* no sim_progress here: a spin that never ends (its holder finished or waits elsewhere)
       must let the watchdog see a livelock; progress is a completed lock or unlock */
    if (!ok) {
        sim_fail(c->sim, e);
        return;
    }
    k->lock_phase = LP_RUN;
    sim_component_wake(c);
}

static bool tctx_claims(const TCore *k, const AtRecord *r);
static uint64_t tctx_marker(TCore *k, const AtRecord *r);

/* An atomic on a spin-lock word (the workload's MSG_SYNC_LOCKWORD list): classifies it
 * (syncmsg.h spin_classify) and keeps the held set and counters; the caller asks for the grant
 * (SPIN_ACQUIRE) or sends the release (SPIN_RELEASE) its own way. Anything else: SPIN_NONE. */
static int spin_lock_step(TCore *k, const AtRecord *r)
{
    if (!g_hash_table_size(k->lockwords) || !(AT_KINDS_ATOMIC & AT_KIND_BIT(r->kind)) ||
        r->kind == AT_FENCE || !g_hash_table_contains(k->lockwords, &r->addr))
        return SPIN_NONE;
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
    } else if (cls == SPIN_RELEASE) {
        g_hash_table_remove(k->held, &r->addr);
        k->syncs++;
    }
    return cls;
}

/* Executes one record, its gap already spent (tc_take); returns 1 when it is done, 0 when the
 * core now waits for a message (st says for what). No time passes between records but gaps. */
static uint64_t exec(TCore *k, const AtRecord *r)
{
    if (k->p.htm && tctx_claims(k, r))
        return tctx_marker(k, r);
    if (k->tl && (r->kind == AT_LOCK_ACQ || r->kind == AT_LOCK_REL)) {
        tc_lock_start(k, r);
        return 0;
    }
    int cls = spin_lock_step(k, r);
    if (cls == SPIN_ACQUIRE) {
        sync_send(k, MSG_SYNC_LOCK, r->addr, 1);
        wait_sync(k);
        k->cur = *r;   /* performed after the grant */
        k->cur_active = true;
        return 0;
    }
    if (cls == SPIN_RELEASE)
        sync_send(k, MSG_SYNC_UNLOCK, r->addr, 1);   /* and the store / RMW itself below */
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

/* ---- the models' memory pipeline (sc, tso, pso, weak) -------------------------------------- */

enum { MM_STALL, MM_BLOCK, MM_GO };   /* an access: not started, started and waited for, done */
enum { CK_GO, CK_WAIT, CK_FWD };

static inline TcOp *op_at(const TCore *k, uint64_t seq) { return &k->ops[seq & (k->ops_cap - 1)]; }

static inline bool mo_acquires(int mo)
{
    return mo == AT_MO_CONSUME || mo == AT_MO_ACQUIRE || mo == AT_MO_ACQ_REL ||
           mo == AT_MO_SEQ_CST;
}

static inline bool mo_releases(int mo)
{
    return mo == AT_MO_RELEASE || mo == AT_MO_ACQ_REL || mo == AT_MO_SEQ_CST;
}

static inline bool overlaps(const TcOp *o, uint64_t addr, uint32_t size)
{
    /* ends in 128 bits: addr + size is 2^64 (0 in 64 bits) for an access in the last line */
    typedef unsigned __int128 U128;
    return o->addr < (U128)addr + size && addr < (U128)o->addr + o->size;
}

/* The front end must wait (why: STALL_*); each stall is counted once, its cycles at its end. */
static int mm_stall(TCore *k, int why)
{
    if (k->stall_why == STALL_NONE) {
        k->stall_why = why;
        k->stall_since = k->base.eng->now;
        if (why == STALL_FENCE)
            k->fence_stalls++;
        else if (why == STALL_RELEASE)
            k->release_waits++;
        static const char *const whys[] = { "", "fence", "release", "order" };
        SIM_TRACE(&k->base, "stall", 0, TARG_S("why", whys[why]),
                  TARG_U("unperformed", k->tail - k->head));
    }
    k->st = TS_WAIT_ORDER;
    return MM_STALL;
}

static void mm_unstall(TCore *k)
{
    if (k->stall_why == STALL_NONE)
        return;
    uint64_t cyc = clock_cycle(k->base.clk, k->base.eng->now - k->stall_since);
    if (k->stall_why == STALL_FENCE)
        k->fence_stall_cycles += cyc;
    else if (k->stall_why == STALL_RELEASE)
        k->release_wait_cycles += cyc;
    else
        k->order_stall_cycles += cyc;
    k->stall_why = STALL_NONE;
}

/* Is some op with a sequence number below `seq` unperformed? (The head is the oldest one.) */
static inline bool mm_pending_before(const TCore *k, uint64_t seq)
{
    return k->head < k->tail && k->head < seq;
}

static uint64_t mm_new_op(TCore *k, unsigned kind, uint64_t addr, uint32_t size, bool blocks)
{
    g_assert(k->tail - k->head < k->ops_cap);
    uint64_t s = k->tail++;
    TcOp *o = op_at(k, s);
    *o = (TcOp){ .addr = addr, .size = size ? size : 1, .kind = (uint8_t)kind,
                 .st = OPS_BUFFERED, .blocks = blocks, .since = k->base.eng->now,
                 .val = ((uint64_t)(k->base.index + 1) << 48) | (++k->seq & 0xffffffffffffull) };
    k->n_ld += (kind & TC_LD) != 0;
    k->n_sb += kind == TC_ST;
    k->n_block += blocks;
    return s;
}

/* Sends op s to the L1, split at line boundaries; an RMW of at most 8 bytes within a line goes
 * as one MSG_F_RMW (performed atomically there), a larger one as plain write pieces. */
static void mm_send(TCore *k, uint64_t s)
{
    TcOp *o = op_at(k, s);
    /* a release (after = its own sequence) leaves only when every earlier op performed */
    g_assert(o->st == OPS_BUFFERED && !mm_pending_before(k, o->after));
    Component *c = &k->base;
    if (o->rel_waited)
        k->release_wait_cycles += clock_cycle(c->clk, c->eng->now - o->since);
    o->st = OPS_SENT;
    if (o->kind == TC_ST)
        SIM_TRACE(c, "drain", 0, TARG_X("addr", o->addr), TARG_U("size", o->size),
                  TARG_U("sb", k->n_sb), TARG_S("order", o->release ? "release" : "plain"));
    uint64_t a = o->addr, left = o->size;
    uint64_t mask = ~(k->p.line - 1);
    bool atomic = o->rmw && o->size <= 8 && (a & mask) == ((a + o->size - 1) & mask);
    while (left > 0) {
        uint64_t piece = tc_line_room(a, k->p.line, left);
        Msg *m = sim_msg_alloc(c->sim);
        m->cmd = (o->kind & TC_ST) ? MSG_WRITE_REQ : MSG_READ_REQ;
        mem_msg(m)->addr = a;
        m->size = (uint32_t)piece;
        mem_msg(m)->tag = s;
        mem_msg(m)->value = o->val;
        m->issued = c->eng->now;
        if (atomic)
            m->flags = MSG_RMW_FLAGS(o->rmw - 1);
        sim_port_send(c, k->dc, m, 0);
        o->out++;
        a += piece;
        left -= piece;
    }
}

/* May buffered store s drain now? Every earlier unperformed op lets it pass (the table, never
 * overlapping bytes) and, for a release, none is left before its `after`. */
static bool mm_may_send(const TCore *k, uint64_t s)
{
    const TcOp *o = op_at(k, s);
    if (mm_pending_before(k, o->after))
        return false;
    for (uint64_t j = k->head; j < s; j++) {
        const TcOp *e = op_at(k, j);
        if (e->st != OPS_DONE && (!k->byp[e->kind][o->kind] || overlaps(e, o->addr, o->size)))
            return false;
    }
    return true;
}

/* Drains what the model lets drain: TSO/SC the oldest store only (stores perform in program
 * order), PSO/WEAK every store whose earlier ops allow it. */
static void mm_drain(TCore *k)
{
    for (uint64_t s = k->head; s < k->tail; s++) {
        TcOp *o = op_at(k, s);
        if (o->st != OPS_BUFFERED)
            continue;
        if (mm_may_send(k, s))
            mm_send(k, s);
        else if (!k->mm->st_st)
            break;
    }
}

/* An access of kind `kind` the front end wants to start now, checked against every earlier op
 * not yet performed (newest first): CK_GO, CK_WAIT, or CK_FWD for a load whose bytes the latest
 * overlapping op, a buffered store, covers (older overlapping ops are then behind that store). */
static int mm_check(const TCore *k, uint64_t addr, uint32_t size, unsigned kind)
{
    bool fwd = false;
    size = size ? size : 1;
    for (uint64_t s = k->tail; s-- > k->head;) {
        const TcOp *o = op_at(k, s);
        if (o->st == OPS_DONE)
            continue;
        if (overlaps(o, addr, size)) {
            if (fwd)
                continue;
            if (kind == TC_LD && o->kind == TC_ST && k->mm->forward && o->addr <= addr &&
                (unsigned __int128)addr + size <= (unsigned __int128)o->addr + o->size) {
                fwd = true;
                continue;
            }
            return CK_WAIT;
        }
        if (!k->byp[o->kind][kind])
            return CK_WAIT;
    }
    return fwd ? CK_FWD : CK_GO;
}

static inline bool mm_full(const TCore *k) { return k->tail - k->head >= k->ops_cap; }

static int mm_load(TCore *k, uint64_t addr, uint32_t size, int mo)
{
    if (mo == AT_MO_SEQ_CST && k->head < k->tail)
        return mm_stall(k, STALL_FENCE);
    int ck = mm_check(k, addr, size, TC_LD);
    if (ck == CK_WAIT)
        return mm_stall(k, STALL_ORDER);
    if (ck == CK_FWD) {
        mm_unstall(k);
        k->forwarded++;
        SIM_TRACE(&k->base, "forward", 0, TARG_X("addr", addr), TARG_U("size", size));
        return MM_GO;
    }
    if (k->n_ld >= k->p.window || mm_full(k))
        return mm_stall(k, STALL_ORDER);
    mm_unstall(k);
    bool blocks = mo_acquires(mo) || !k->byp[TC_LD][TC_LD | TC_ST];
    mm_send(k, mm_new_op(k, TC_LD, addr, size, blocks));
    return blocks ? MM_BLOCK : MM_GO;
}

static int mm_store(TCore *k, uint64_t addr, uint32_t size, int mo, bool unlock)
{
    if (mo == AT_MO_SEQ_CST && k->head < k->tail)
        return mm_stall(k, STALL_FENCE);
    if (k->n_sb >= k->p.store_buffer || mm_full(k)) {
        if (k->stall_why == STALL_NONE)
            k->sb_full_stalls++;
        return mm_stall(k, STALL_ORDER);
    }
    mm_unstall(k);
    uint64_t s = mm_new_op(k, TC_ST, addr, size, mo == AT_MO_SEQ_CST);
    TcOp *o = op_at(k, s);
    o->release = mo_releases(mo);
    o->after = o->release ? s : k->rel_fence;
    o->unlock = unlock;
    k->n_unlock += unlock;
    if (mm_pending_before(k, o->after)) {
        o->rel_waited = true;          /* it waits in the buffer for earlier accesses */
        k->release_waits++;
    }
    sim_hist_add(&k->sb_occ, k->n_sb);
    mm_drain(k);
    return mo == AT_MO_SEQ_CST ? MM_BLOCK : MM_GO;
}

/* An atomic read-modify-write (rmw: MSG_RMW_*), issued by the front end like a load. */
static int mm_rmw(TCore *k, uint64_t addr, uint32_t size, unsigned rmw, uint64_t operand, int mo,
                  bool unlock)
{
    if (mo == AT_MO_SEQ_CST && k->head < k->tail)
        return mm_stall(k, STALL_FENCE);
    if (mm_pending_before(k, mo_releases(mo) ? k->tail : k->rel_fence))
        return mm_stall(k, STALL_RELEASE);
    if (mm_check(k, addr, size, TC_LD | TC_ST) != CK_GO || k->n_ld >= k->p.window || mm_full(k))
        return mm_stall(k, STALL_ORDER);
    mm_unstall(k);
    bool blocks = mo_acquires(mo) || !k->byp[TC_LD | TC_ST][TC_LD | TC_ST];
    uint64_t s = mm_new_op(k, TC_LD | TC_ST, addr, size, blocks);
    TcOp *o = op_at(k, s);
    o->rmw = (uint8_t)(rmw + 1);
    if (rmw != MSG_RMW_XCHG)
        o->val = operand;
    o->unlock = unlock;
    k->n_unlock += unlock;
    mm_send(k, s);
    return blocks ? MM_BLOCK : MM_GO;
}

static int mm_fence(TCore *k, int mo)
{
    if (mo == AT_MO_SEQ_CST ? k->head < k->tail : mo_acquires(mo) && k->n_ld > 0)
        return mm_stall(k, STALL_FENCE);
    mm_unstall(k);
    if (mo_releases(mo))
        k->rel_fence = k->tail;
    k->fences++;
    return MM_GO;
}

/* A pthread call is a full fence: every earlier access performed first. */
static bool mm_sync_ready(TCore *k)
{
    if (k->head < k->tail) {
        mm_stall(k, STALL_FENCE);
        return false;
    }
    mm_unstall(k);
    return true;
}

static void mm_op_done(TCore *k, TcOp *o)
{
    o->st = OPS_DONE;
    k->n_ld -= (o->kind & TC_LD) != 0;
    k->n_sb -= o->kind == TC_ST;
    k->n_block -= o->blocks;
    if (o->unlock) {
        /* the spin lock is free once its release performed, after everything before it */
        g_assert(o == op_at(k, k->head));
        k->n_unlock--;
        sync_send(k, MSG_SYNC_UNLOCK, o->addr, 1);
    }
    while (k->head < k->tail && op_at(k, k->head)->st == OPS_DONE)
        k->head++;
}

/* The outcome of an access for the record in cur: stalled (retried later), or done with it,
 * perhaps waiting for the access to perform. Returns tcore_tick's wait (0: wait for a message). */
static uint64_t mm_outcome(TCore *k, int res)
{
    if (res == MM_STALL)
        return 0;
    k->cur_active = false;
    if (res == MM_BLOCK) {
        k->st = TS_WAIT_ORDER;
        return 0;
    }
    return 1;
}

/* The RMW operation the L1 performs for a recorded one (the replay does not follow data: the
 * values are the core's cookies; what matters is the atomic access with the line held in M). */
static unsigned mm_rmw_op(const AtRecord *r, uint64_t *operand)
{
    *operand = 0;
    if (r->kind == AT_RMW && r->op == AT_OP_ADD) {
        *operand = 1;
        return MSG_RMW_ADD;
    }
    if (r->kind == AT_RMW && r->op == AT_OP_SUB) {
        *operand = UINT64_MAX;
        return MSG_RMW_ADD;
    }
    return MSG_RMW_XCHG;        /* xchg, the logical ops, a successful CAS: a new value */
}

/* Runs the record in cur as far as the model lets it: returns 1 when it is done, or 0 with the
 * core waiting (TS_WAIT_ORDER: retried when an op performs; TS_WAIT_SYNC). */
static uint64_t mm_step(TCore *k)
{
    const AtRecord *r = &k->cur;
    if (k->cur_lock == LOCK_ASK) {
        /* an acquisition goes through the lock manager; a pthread mutex is a full fence, a spin
           lock waits only until its own earlier release (if still buffered) freed the lock */
        if (r->kind == AT_LOCK_ACQ && !mm_sync_ready(k))
            return 0;
        if (k->n_unlock > 0) {
            mm_stall(k, STALL_ORDER);
            return 0;
        }
        mm_unstall(k);
        k->cur_lock = LOCK_WAIT;
        sync_send(k, MSG_SYNC_LOCK, r->addr, r->kind != AT_LOCK_ACQ);
        wait_sync(k);
        return 0;
    }
    uint64_t operand;
    int res;
    switch (r->kind) {
    case AT_LOAD:
    case AT_ALOAD:
        res = mm_load(k, r->addr, r->size, r->kind == AT_ALOAD ? r->mo : AT_MO_RELAXED);
        k->loads += res != MM_STALL;
        return mm_outcome(k, res);
    case AT_STORE:
    case AT_ASTORE:
        res = mm_store(k, r->addr, r->size, r->kind == AT_ASTORE ? r->mo : AT_MO_RELAXED,
                       k->cur_unlock);
        k->stores += res != MM_STALL;
        return mm_outcome(k, res);
    case AT_RMW:
    case AT_CAS_OK: {
        unsigned op = mm_rmw_op(r, &operand);
        res = mm_rmw(k, r->addr, r->size, op, operand, r->mo, k->cur_unlock);
        k->atomics += res != MM_STALL;
        k->stores += res != MM_STALL;
        return mm_outcome(k, res);
    }
    case AT_LOCK_ACQ:            /* granted: the lock word's update, an acquire exchange */
        res = mm_rmw(k, r->addr, 8, MSG_RMW_XCHG, 0, AT_MO_ACQUIRE, false);
        k->atomics += res != MM_STALL;
        return mm_outcome(k, res);
    case AT_LOCK_REL:            /* a full fence, the release store to the lock word, free */
        if (!mm_sync_ready(k))
            return 0;
        k->stores++;
        res = mm_store(k, r->addr, 8, AT_MO_RELEASE, false);
        g_assert(res == MM_GO);
        sync_send(k, MSG_SYNC_UNLOCK, r->addr, 0);
        return mm_outcome(k, res);
    case AT_CREATE:
    case AT_JOIN:
    case AT_BARRIER:
        if (!mm_sync_ready(k))
            return 0;
        k->cur_active = false;
        if (r->kind == AT_CREATE) {
            sync_send(k, MSG_SYNC_CREATE, 0, r->arg);
            return 1;
        }
        if (r->kind == AT_JOIN)
            sync_send(k, MSG_SYNC_JOIN, 0, r->arg);
        else
            sync_send(k, MSG_SYNC_BARRIER, r->addr, r->arg);
        wait_sync(k);
        return 0;
    case AT_FENCE:
        return mm_outcome(k, mm_fence(k, r->mo));
    case AT_RANGE_R:
    case AT_RANGE_W:
        /* line pieces: reads as plain loads, writes as plain stores through the buffer */
        while (k->range_off < r->arg) {
            uint64_t a = r->addr + k->range_off;
            uint64_t lim = (a | (k->p.line - 1)) + 1;
            uint64_t piece = lim - a < r->arg - k->range_off ? lim - a : r->arg - k->range_off;
            res = r->kind == AT_RANGE_W ? mm_store(k, a, (uint32_t)piece, AT_MO_RELAXED, false)
                                        : mm_load(k, a, (uint32_t)piece, AT_MO_RELAXED);
            if (res == MM_STALL)
                return 0;
            k->range_off += piece;
            if (res == MM_BLOCK) {
                k->st = TS_WAIT_ORDER;   /* cur stays: the next piece once this one is in */
                return 0;
            }
        }
        return mm_outcome(k, MM_GO);
    default:                     /* ROI, TX and condition-variable markers */
        k->cur_active = false;
        return 1;
    }
}

/* Takes a new record (a copy: exec may peek ahead and refill the buffer); as exec. */
static uint64_t mm_exec(TCore *k, const AtRecord *r)
{
    if (k->p.htm && tctx_claims(k, r)) {
        k->cur_active = false;
        return tctx_marker(k, r);
    }
    if (k->tl && (r->kind == AT_LOCK_ACQ || r->kind == AT_LOCK_REL)) {
        tc_lock_start(k, r);
        return 0;
    }
    k->cur = *r;
    k->cur_active = true;
    k->cur_lock = LOCK_NONE;
    k->cur_unlock = false;
    k->range_off = 0;
    int cls = spin_lock_step(k, r);
    if (cls == SPIN_ACQUIRE) {
        k->cur_lock = LOCK_ASK;
        return mm_step(k);
    }
    if (cls == SPIN_RELEASE)
        k->cur_unlock = true;   /* MSG_SYNC_UNLOCK once the store / RMW performed */
    if (r->kind != AT_ALOAD)
        k->last_aload_pc = k->last_aload_addr = UINT64_MAX;
    switch (r->kind) {
    case AT_ALOAD:
        if (r->pc == k->last_aload_pc && r->addr == k->last_aload_addr) {
            k->spin_dropped++;
            k->cur_active = false;
            return 1;
        }
        k->last_aload_pc = r->pc;
        k->last_aload_addr = r->addr;
        break;
    case AT_CAS_FAIL:
        k->cas_fail_dropped++;
        k->cur_active = false;
        return 1;
    case AT_RMW:
        if (r->flags & AT_F_UNCHANGED) {
            k->tas_fail_dropped++;
            k->cur_active = false;
            return 1;
        }
        break;
    case AT_RANGE_R:
    case AT_RANGE_W:
        k->ranges++;
        break;
    case AT_CREATE:
    case AT_JOIN:
    case AT_BARRIER:
    case AT_LOCK_REL:
        k->syncs++;
        break;
    case AT_LOCK_ACQ:
        k->syncs++;
        k->cur_lock = LOCK_ASK;
        break;
    default:
        break;
    }
    return mm_step(k);
}

/* tick under a model: retry the record that waited, then run records until one has to wait. */
static uint64_t mm_tick(TCore *k)
{
    Component *c = &k->base;
    if (k->st == TS_WAIT_ORDER) {
        if (k->n_block > 0)
            return 0;
        k->st = TS_RUN;
        if (k->cur_active) {
            mm_step(k);       /* its gap was spent before it first issued (tc_take) */
            if (k->st != TS_RUN)
                return 0;
        }
    }
    if (k->st != TS_RUN)
        return 0;
    for (int budget = 0; budget < 64; budget++) {
        AtRecord rec;
        uint64_t ret;
        if (!tc_take_run(k, &rec, &ret))
            return ret;
        mm_exec(k, &rec);
        sim_progress(c->eng);
        if (k->st != TS_RUN)
            return k->st == TS_LOCK || k->st == TS_TX;
    }
    return 1;
}

/* An answer from the L1 under a model: one piece of op m->tag. */
static void mm_recv_mem(TCore *k, Msg *m)
{
    Component *c = &k->base;
    TcOp *o = op_at(k, mem_msg(m)->tag);
    g_assert(mem_msg(m)->tag >= k->head && mem_msg(m)->tag < k->tail && o->st == OPS_SENT &&
             o->out > 0);
    if (m->cmd == MSG_READ_RESP)
        sim_hist_add(&k->load_lat, clock_cycle(c->clk, c->eng->now - m->issued));
    sim_msg_free(c->sim, m);
    sim_progress(c->eng);
    if (--o->out == 0) {
        mm_op_done(k, o);
        mm_drain(k);
    }
    if (k->st == TS_WAIT_ORDER || k->st == TS_LOCK || k->st == TS_TX)
        sim_component_wake(c);
}

/* ---- transactions of the trace (htm on; docs/tracing.md "Transactions in traces") ----------
 * A region runs from an AT_TX_BEGIN to its AT_TX_END (inner pairs only count: flat nesting).
 * The core keeps a copy of the region's records (tx_buf, at most htm_max_records): the trace
 * reader cannot rewind, and an aborted transaction runs them again.
 *
 *   TX_BEGIN --drain (a full fence)--> MSG_TX_BEGIN --echo--> tx load of the fallback word
 *     (held: MSG_TX_ABORT 0xff) --> records as MSG_F_TX accesses (loads and RMWs wait, stores
 *     post up to store_buffer; pieces of <= 8 bytes) --> TX_END: every piece answered, then
 *     MSG_TX_END --echo--> committed (a full fence: the next record starts after it)
 *   MSG_TX_ABORTED --status may succeed on retry (conflict, 0xff) and retries left--> the same
 *     records again (0xff: once the fallback word reads 0); else the fallback:
 *   fallback: test-and-test-and-set of the fallback word (load, watch, xchg 1) --> the region's
 *     records as ordinary ones (mutexes, barriers and all) --> TX_END: drain, store 0
 * Inside a transaction: a pthread mutex lock is elided (a tx load of the mutex; htm_mutex:
 * fallback aborts instead) and its unlock dropped; create, join, barrier and condition
 * variables abort it (code 0xfe) and the region runs under the fallback lock at once, as does a
 * region longer than htm_max_records (0xfd, counted as capacity). AT_TX_ABORT (the program's
 * archsim_tx_abort): MSG_TX_ABORT code 0; the records before it were the transaction, rolled
 * back, never retried; the records after it up to AT_TX_END are the program's abort path and
 * run under the fallback lock (an unlock of a mutex the transaction elided is dropped). */

#define TC_TAG_TX (1ull << 62)            /* tag of transactional messages: TC_TAG_TX | tx_num */
#define TC_FB_TAG (TC_LOCK_TAG - 1)       /* the fallback lock's accesses */
/* The fallback lock word: in tclocks.h's reserved region, above its mutex areas and queue nodes
 * (TCL_NODE_BASE + 2^44 x ... ends far below TCL_BASE + 2^45) */
#define TC_FB_WORD (TCL_BASE + (1ull << 45))
enum { TXC_PROGRAM = 0x00, TXC_OVERFLOW = 0xfd, TXC_UNSUPPORTED = 0xfe, TXC_HELD = 0xff };
enum { TXR_NONE, TXR_TX, TXR_FALLBACK };
/* TXS_DRAIN: earlier accesses performing, then tx_goal; TXS_BEGIN, TXS_SUB: begin and the
   fallback word's tx load answered; TXS_RUN, TXS_WAIT: records, a blocking piece or room;
   TXS_COMMIT_DRAIN, TXS_COMMIT: pieces answered, then the commit; TXS_ABORTING: waiting for
   MSG_TX_ABORTED; TXS_FB: an access of the fallback word (fb_op) out */
enum { TXS_DRAIN, TXS_BEGIN, TXS_SUB, TXS_RUN, TXS_WAIT, TXS_COMMIT_DRAIN, TXS_COMMIT,
       TXS_ABORTING, TXS_FB };
enum { TXG_TX, TXG_ACQUIRE, TXG_WAIT_FREE, TXG_RELEASE };   /* after the drain / fb accesses */
enum { TXN_STATUS, TXN_FALLBACK_ALL, TXN_FALLBACK_REST };     /* after the abort notice */
enum { FB_TEST, FB_WATCH, FB_XCHG, FB_STORE };
static const AtRecord tctx_end_record = { .kind = AT_TX_END };

static inline bool tctx_drained(const TCore *k)
{
    return k->mm ? k->head == k->tail : k->sb_used == 0 && k->loads_out == 0;
}

/* next_record in a region: the copy from tx_rpos on, then the trace (appended to the copy while
 * recording). The trace's end inside a region ends it (an AT_TX_END at depth 0). */
static const AtRecord *tctx_next_record(TCore *k)
{
    k->tx_from_buf = false;
    if (k->tx_replay && k->tx_rpos < k->tx_buf->len) {
        k->tx_from_buf = true;
        k->tx_replayed++;
        return &g_array_index(k->tx_buf, AtRecord, k->tx_rpos++);
    }
    bool rec = k->tx_record;
    int region = k->tx_region;
    k->tx_region = TXR_NONE;
    const AtRecord *r = next_record(k);
    k->tx_region = region;
    if (!r) {
        if (k->tx_region == TXR_NONE)
            return NULL;
        k->tx_depth = 0;
        return &tctx_end_record;
    }
    if (rec) {
        g_array_append_val(k->tx_buf, *r);
        k->tx_rpos = k->tx_buf->len;
        if (k->tx_buf->len > k->p.htm_max_records)
            k->tx_overflow = true;
        return &g_array_index(k->tx_buf, AtRecord, k->tx_buf->len - 1);
    }
    return r;
}

static void tctx_send(TCore *k, uint16_t cmd, uint16_t flags, uint64_t addr, uint32_t size,
                      uint64_t tag, uint64_t aux0, uint64_t aux1)
{
    Msg *m = sim_msg_alloc(k->base.sim);
    m->cmd = cmd;
    m->flags = flags;
    mem_msg(m)->addr = addr;
    m->size = size;
    mem_msg(m)->tag = tag;
    mem_msg(m)->value = aux0;
    mem_msg(m)->arg = aux1;
    m->issued = k->base.eng->now;
    sim_port_send(&k->base, k->dc, m, 0);
}

static inline uint64_t tctx_cookie(TCore *k)
{
    return ((uint64_t)(k->base.index + 1) << 48) | (++k->seq & 0xffffffffffffull);
}

/* One access of the transaction, in pieces of at most 8 aligned bytes (the L1 logs words);
 * reads and RMWs are waited for (tx_ld_out), plain stores posted (tx_st_out). */
static void tctx_access(TCore *k, bool write, uint16_t rmw_flags, uint64_t operand,
                        uint64_t addr, uint32_t size)
{
    uint64_t left = size ? size : 1;
    bool one = rmw_flags && size <= 8 && (addr >> 3) == ((addr + left - 1) >> 3);
    while (left > 0) {
        uint32_t piece = (uint32_t)tc_line_room(addr, 8, left);
        bool blocks = !write || rmw_flags;
        tctx_send(k, write ? MSG_WRITE_REQ : MSG_READ_REQ,
                  (uint16_t)(MSG_F_TX | (one ? rmw_flags : 0)), addr, piece,
                  TC_TAG_TX | k->tx_num, one ? operand : tctx_cookie(k), 0);
        if (blocks)
            k->tx_ld_out++;
        else
            k->tx_st_out++;
        addr += piece;
        left -= piece;
    }
}

static void tctx_fb_send(TCore *k, int op, uint64_t watch)
{
    k->fb_op = op;
    k->txs = TXS_FB;
    switch (op) {
    case FB_TEST:
        tctx_send(k, MSG_READ_REQ, 0, TC_FB_WORD, 8, TC_FB_TAG, 0, 0);
        break;
    case FB_WATCH:
        tctx_send(k, MSG_READ_REQ, MSG_F_WATCH, TC_FB_WORD, 8, TC_FB_TAG, 0, watch);
        break;
    case FB_XCHG:
        tctx_send(k, MSG_WRITE_REQ, MSG_RMW_FLAGS(MSG_RMW_XCHG) | MSG_F_TAS, TC_FB_WORD, 8,
                  TC_FB_TAG, 1, 0);
        break;
    default:
        tctx_send(k, MSG_WRITE_REQ, 0, TC_FB_WORD, 8, TC_FB_TAG, 0, 0);
        break;
    }
}

/* The transaction aborts itself (code: TXC_*); `next` says what follows the abort notice. */
static uint64_t tctx_self_abort(TCore *k, uint64_t code, int next)
{
    k->tx_next = next;
    k->txs = TXS_ABORTING;
    tctx_send(k, MSG_TX_ABORT, 0, 0, 0, TC_TAG_TX | k->tx_num, code, 0);
    return 0;
}

/* Starts an attempt (after a drain): a new number, the copy replayed from its start. */
static void tctx_begin(TCore *k)
{
    k->tx_num++;
    k->tx_live = false;
    k->tx_begins++;
    k->tx_retries += k->tx_attempt > 0;
    k->tx_attempt++;
    k->tx_start = k->base.eng->now;
    k->tx_depth = 0;
    k->n_elided = 0;
    k->tx_ld_out = k->tx_st_out = 0;
    k->tx_cur_active = false;
    k->tx_rpos = 0;
    k->tx_replay = k->tx_buf->len > 0;
    k->tx_record = true;
    k->tx_next = TXN_STATUS;
    k->last_aload_pc = k->last_aload_addr = UINT64_MAX;
    k->txs = TXS_BEGIN;
    tctx_send(k, MSG_TX_BEGIN, 0, 0, 0, TC_TAG_TX | k->tx_num, 0, 0);
}

/* The region goes on under the fallback lock: from its start (all), or after the program's
 * abort marker (rest). */
static void tctx_fallback(TCore *k, bool all)
{
    k->tx_fallbacks++;
    k->tx_region = TXR_FALLBACK;
    k->tx_record = false;
    k->tx_depth = 0;
    if (all) {
        k->tx_replay = k->tx_buf->len > 0;
        k->tx_rpos = 0;
        k->n_elided = 0;
    }
    k->tx_goal = TXG_ACQUIRE;
    k->txs = TXS_DRAIN;
}

static void tctx_region_end(TCore *k)
{
    k->tx_region = TXR_NONE;
    k->tx_replay = k->tx_record = k->tx_from_buf = k->tx_overflow = false;
    g_array_set_size(k->tx_buf, 0);
    k->tx_rpos = 0;
    k->tx_attempt = 0;
    k->n_elided = 0;
    k->st = TS_RUN;
    sim_progress(k->base.eng);
}

static bool tctx_kind(int kind)
{
    return kind == AT_TX_BEGIN || kind == AT_TX_END || kind == AT_TX_ABORT;
}

static int tctx_elided_find(const TCore *k, uint64_t addr)
{
    for (int i = 0; i < k->n_elided; i++)
        if (k->tx_elided[i] == addr)
            return i;
    return -1;
}

/* Outside a transaction, the records thread-core's exec leaves to this section. */
static bool tctx_claims(const TCore *k, const AtRecord *r)
{
    return tctx_kind(r->kind) ||
           (r->kind == AT_LOCK_REL && k->n_elided && tctx_elided_find(k, r->addr) >= 0);
}

/* A marker outside a hardware transaction (or an elided mutex's unlock in the abort path). */
static uint64_t tctx_marker(TCore *k, const AtRecord *r)
{
    if (r->kind == AT_LOCK_REL) {                 /* its lock was elided: nothing to release */
        int i = tctx_elided_find(k, r->addr);
        k->tx_elided[i] = k->tx_elided[--k->n_elided];
        return 1;
    }
    if (k->tx_region == TXR_NONE) {
        if (r->kind != AT_TX_BEGIN)
            return 1;                             /* a stray end or abort: nothing to do */
        k->tx_region = TXR_TX;
        g_array_set_size(k->tx_buf, 0);
        k->tx_overflow = false;
        k->tx_attempt = 0;
        k->tx_goal = TXG_TX;
        k->txs = TXS_DRAIN;
        k->st = TS_TX;
        return 0;
    }
    /* the fallback path */
    if (r->kind == AT_TX_BEGIN)
        k->tx_depth++;
    else if (r->kind == AT_TX_END && k->tx_depth > 0)
        k->tx_depth--;
    else if (r->kind == AT_TX_END) {
        k->tx_goal = TXG_RELEASE;
        k->txs = TXS_DRAIN;
        k->st = TS_TX;
        return 0;
    }
    return 1;                                     /* AT_TX_ABORT outside a transaction: none */
}

/* One record inside the transaction: 1 when it is done, or 0 with txs a waiting state. */
static uint64_t tctx_exec(TCore *k, const AtRecord *r)
{
    if (k->tx_overflow) {
        k->tx_ab_capacity++;
        return tctx_self_abort(k, TXC_OVERFLOW, TXN_FALLBACK_ALL);
    }
    if (r->kind != AT_ALOAD)
        k->last_aload_pc = k->last_aload_addr = UINT64_MAX;
    uint64_t operand;
    switch (r->kind) {
    case AT_ALOAD:
        if (r->pc == k->last_aload_pc && r->addr == k->last_aload_addr) {
            k->spin_dropped++;
            return 1;
        }
        k->last_aload_pc = r->pc;
        k->last_aload_addr = r->addr;
        /* fall through */
    case AT_LOAD:
        k->loads++;
        tctx_access(k, false, 0, 0, r->addr, r->size);
        k->txs = TXS_WAIT;
        return 0;
    case AT_STORE:
    case AT_ASTORE:
    case AT_FENCE:
    case AT_RANGE_R:
    case AT_RANGE_W:
        k->tx_cur = *r;
        k->tx_cur_active = true;
        k->tx_range_off = 0;
        k->stores += r->kind == AT_STORE || r->kind == AT_ASTORE;
        k->fences += r->kind == AT_FENCE;
        k->ranges += r->kind == AT_RANGE_R || r->kind == AT_RANGE_W;
        k->txs = TXS_WAIT;
        return 0;
    case AT_CAS_FAIL:
        k->cas_fail_dropped++;
        return 1;
    case AT_RMW:
        if (r->flags & AT_F_UNCHANGED) {
            k->tas_fail_dropped++;
            return 1;
        }
        /* fall through */
    case AT_CAS_OK: {
        unsigned op = mm_rmw_op(r, &operand);
        if (op == MSG_RMW_XCHG)
            operand = tctx_cookie(k);
        k->atomics++;
        k->stores++;
        tctx_access(k, true, MSG_RMW_FLAGS(op), operand, r->addr, r->size);
        k->txs = TXS_WAIT;
        return 0;
    }
    case AT_LOCK_ACQ:
        if (k->p.htm_mutex == TXM_FALLBACK || k->n_elided == (int)G_N_ELEMENTS(k->tx_elided)) {
            k->tx_ab_unsupported++;
            return tctx_self_abort(k, TXC_UNSUPPORTED, TXN_FALLBACK_ALL);
        }
        k->tx_elided[k->n_elided++] = r->addr;
        k->tx_elided_locks++;
        k->loads++;
        tctx_access(k, false, 0, 0, r->addr, 8);   /* the lock word joins the read set */
        k->txs = TXS_WAIT;
        return 0;
    case AT_LOCK_REL: {
        int i = tctx_elided_find(k, r->addr);
        if (i >= 0)
            k->tx_elided[i] = k->tx_elided[--k->n_elided];
        return 1;
    }
    case AT_CREATE:
    case AT_JOIN:
    case AT_BARRIER:
    case AT_COND_WAIT:
    case AT_COND_SIGNAL:
        k->tx_ab_unsupported++;
        return tctx_self_abort(k, TXC_UNSUPPORTED, TXN_FALLBACK_ALL);
    case AT_TX_BEGIN:
        k->tx_depth++;
        return 1;
    case AT_TX_END:
        if (k->tx_depth > 0) {
            k->tx_depth--;
            return 1;
        }
        k->txs = TXS_COMMIT_DRAIN;
        return 0;
    case AT_TX_ABORT:
        k->tx_program_aborts++;
        k->tx_ab_explicit++;
        return tctx_self_abort(k, TXC_PROGRAM, TXN_FALLBACK_REST);
    default:                                      /* ROI markers */
        return 1;
    }
}

/* TXS_WAIT: the waiting store, fence or range goes on when the pieces in flight allow; true
 * when the record is done. */
static bool tctx_resume(TCore *k)
{
    if (k->tx_ld_out > 0)
        return false;
    if (!k->tx_cur_active)
        return true;
    const AtRecord *r = &k->tx_cur;
    switch (r->kind) {
    case AT_FENCE:
        if (k->tx_st_out > 0)
            return false;
        break;
    case AT_STORE:
    case AT_ASTORE:
        if (k->tx_st_out >= k->p.store_buffer)
            return false;
        tctx_access(k, true, 0, 0, r->addr, r->size);
        break;
    default: {                                    /* a range: one line at a time */
        bool w = r->kind == AT_RANGE_W;
        if (k->tx_range_off >= r->arg)
            break;
        if (w && k->tx_st_out >= k->p.store_buffer)
            return false;
        uint64_t a = r->addr + k->tx_range_off;
        uint64_t lim = (a | (k->p.line - 1)) + 1;
        uint64_t piece = lim - a < r->arg - k->tx_range_off ? lim - a : r->arg - k->tx_range_off;
        tctx_access(k, w, 0, 0, a, (uint32_t)piece);
        k->tx_range_off += piece;
        if (k->tx_range_off < r->arg || k->tx_ld_out > 0)
            return false;
        break;
    }
    }
    k->tx_cur_active = false;
    return true;
}

static uint64_t tctx_tick(TCore *k)
{
    Component *c = &k->base;
    switch (k->txs) {
    case TXS_DRAIN:
        if (!tctx_drained(k))
            return 0;                             /* woken by their answers */
        if (k->tx_goal == TXG_TX)
            tctx_begin(k);
        else if (k->tx_goal == TXG_RELEASE)
            tctx_fb_send(k, FB_STORE, 0);
        else
            tctx_fb_send(k, FB_TEST, 0);
        return 0;
    case TXS_COMMIT_DRAIN:
        if (k->tx_ld_out > 0 || k->tx_st_out > 0)
            return 0;
        k->txs = TXS_COMMIT;
        tctx_send(k, MSG_TX_END, 0, 0, 0, TC_TAG_TX | k->tx_num, 0, 0);
        return 0;
    case TXS_WAIT:
        if (!tctx_resume(k))
            return 0;
        k->txs = TXS_RUN;
        break;
    case TXS_RUN:
        break;
    default:
        return 0;
    }
    for (int budget = 0; budget < 64; budget++) {
        AtRecord rec;
        uint64_t gap;
        int take = tc_take(k, &rec, &gap);   /* next_record: tctx_next_record in a region */
        g_assert(take != TAKE_END);           /* the trace's end is an AT_TX_END here */
        if (take == TAKE_GAP)
            return gap;
        tctx_exec(k, &rec);
        sim_progress(c->eng);
        if (k->txs == TXS_WAIT || k->txs == TXS_COMMIT_DRAIN)
            return 1;
        if (k->txs != TXS_RUN)
            return 0;
    }
    return 1;
}

/* MSG_TX_ABORTED of the running attempt: retry, or the fallback. */
static void tctx_aborted(TCore *k, uint64_t status)
{
    Component *c = &k->base;
    k->tx_live = false;
    k->tx_aborts++;
    k->tx_wasted += clock_cycle(c->clk, c->eng->now - k->tx_start);
    if (k->tx_next == TXN_STATUS) {
        if (status & HTM_CONFLICT)
            k->tx_ab_conflict++;
        else if (status & HTM_CAPACITY)
            k->tx_ab_capacity++;
        else if (HTM_CODE(status) == TXC_HELD)
            k->tx_ab_held++;
        else
            k->tx_ab_explicit++;
    }
    SIM_TRACE(c, "tx_aborted", 0, TARG_U("tx", k->tx_num), TARG_X("status", status));
    k->tx_ld_out = k->tx_st_out = 0;
    k->tx_cur_active = false;
    k->gap_held = false;      /* a record spending its gap: in the copy, run again from it */
    /* whatever the core was doing (a gap, a wait) is void: the abort path runs now */
    if (sim_event_scheduled(&c->tick_ev))
        sim_deschedule(c->eng, &c->tick_ev);
    bool held = (status & HTM_EXPLICIT) && HTM_CODE(status) == TXC_HELD;
    if (k->tx_next == TXN_FALLBACK_REST)
        tctx_fallback(k, false);
    else if (k->tx_next == TXN_STATUS && (held || (status & HTM_RETRY)) &&
             k->tx_attempt <= k->p.htm_retries) {
        k->tx_goal = held ? TXG_WAIT_FREE : TXG_TX;
        k->txs = TXS_DRAIN;
    } else {
        tctx_fallback(k, true);
    }
    sim_component_wake(c);
}

/* An answer for the transaction (tag TC_TAG_TX | number) or the fallback word. */
static void tctx_recv(TCore *k, Msg *m)
{
    Component *c = &k->base;
    uint16_t cmd = m->cmd, flags = m->flags;
    uint64_t aux0 = mem_msg(m)->value;
    bool current = mem_msg(m)->tag == (TC_TAG_TX | k->tx_num) && k->tx_region == TXR_TX;
    if (cmd == MSG_READ_RESP && !(flags & MSG_F_TX_STALE))
        sim_hist_add(&k->load_lat, clock_cycle(c->clk, c->eng->now - m->issued));
    bool fb = mem_msg(m)->tag == TC_FB_TAG;
    sim_msg_free(c->sim, m);
    if (fb) {
        g_assert(k->st == TS_TX && k->txs == TXS_FB);
        switch (k->fb_op) {
        case FB_TEST:
            if (aux0 != 0)
                tctx_fb_send(k, FB_WATCH, aux0);
            else if (k->tx_goal == TXG_WAIT_FREE) {
                k->tx_goal = TXG_TX;
                k->txs = TXS_DRAIN;
                sim_component_wake(c);
            } else
                tctx_fb_send(k, FB_XCHG, 0);
            return;
        case FB_WATCH:
            tctx_fb_send(k, FB_TEST, 0);
            return;
        case FB_XCHG:
            if (aux0 != 0) {
                tctx_fb_send(k, FB_TEST, 0);
                return;
            }
            k->st = TS_RUN;                       /* acquired: the region's records */
            sim_progress(c->eng);
            sim_component_wake(c);
            return;
        default:                                  /* released */
            tctx_region_end(k);
            sim_component_wake(c);
            return;
        }
    }
    if (!current || (flags & MSG_F_TX_STALE))
        return;                                   /* of an aborted attempt: dropped */
    switch (cmd) {
    case MSG_TX_BEGIN:
        g_assert(k->txs == TXS_BEGIN);
        k->tx_live = true;
        k->txs = TXS_SUB;
        tctx_send(k, MSG_READ_REQ, MSG_F_TX, TC_FB_WORD, 8, TC_TAG_TX | k->tx_num, 0, 0);
        return;
    case MSG_TX_END:
        g_assert(k->txs == TXS_COMMIT);
        k->tx_live = false;
        k->tx_commits++;
        k->tx_committed += clock_cycle(c->clk, c->eng->now - k->tx_start);
        tctx_region_end(k);
        sim_component_wake(c);
        return;
    case MSG_TX_ABORT:
        return;                                   /* answered only when already aborted */
    case MSG_TX_ABORTED:
        tctx_aborted(k, aux0);
        return;
    default:
        break;
    }
    if (!k->tx_live)
        return;
    if (k->txs == TXS_SUB) {
        if (aux0 != 0)
            tctx_self_abort(k, TXC_HELD, TXN_STATUS);   /* the fallback lock is held */
        else {
            k->txs = TXS_RUN;
            sim_component_wake(c);
        }
        return;
    }
    if (cmd == MSG_READ_RESP || (flags & MSG_F_RMW)) {
        g_assert(k->tx_ld_out > 0);
        k->tx_ld_out--;
    } else {
        g_assert(k->tx_st_out > 0);
        k->tx_st_out--;
    }
    if (k->txs == TXS_WAIT || k->txs == TXS_COMMIT_DRAIN)
        sim_component_wake(c);
}

static void tctx_stats(const TCore *k, StatSet *out)
{
    static const StatCounterDef ctr[] = {
        { "tx_begins", "count", "transaction attempts begun (MSG_TX_BEGIN)",
          offsetof(TCore, tx_begins) },
        { "tx_commits", "count", "transactions committed", offsetof(TCore, tx_commits) },
        { "tx_aborts", "count", "attempts aborted (any reason)", offsetof(TCore, tx_aborts) },
        { "tx_aborts_conflict", "count", "aborted by a conflict", offsetof(TCore, tx_ab_conflict) },
        { "tx_aborts_capacity", "count", "aborted by capacity (the L1's, or more records than "
          "htm_max_records)", offsetof(TCore, tx_ab_capacity) },
        { "tx_aborts_fallback_held", "count", "aborted because the fallback lock was held at "
          "the begin", offsetof(TCore, tx_ab_held) },
        { "tx_aborts_explicit", "count", "aborted by the program's archsim_tx_abort (or another "
          "explicit abort the core did not ask for)",
          offsetof(TCore, tx_ab_explicit) },
        { "tx_aborts_unsupported", "count", "aborted by a create, join, barrier, condition "
          "variable (or, htm_mutex: fallback, a mutex) inside", offsetof(TCore, tx_ab_unsupported) },
        { "tx_retries", "count", "attempts begun again after an abort", offsetof(TCore, tx_retries) },
        { "tx_fallbacks", "count", "regions run under the fallback lock",
          offsetof(TCore, tx_fallbacks) },
        { "tx_wasted_cycles", "cycle", "cycles from a begin to its abort, summed",
          offsetof(TCore, tx_wasted) },
        { "tx_committed_cycles", "cycle", "cycles from a begin to its commit, summed",
          offsetof(TCore, tx_committed) },
        { "tx_records_replayed", "count", "records run again from the core's copy (retries and "
          "fallbacks)", offsetof(TCore, tx_replayed) },
        { "tx_elided_locks", "count", "pthread mutex locks elided inside transactions",
          offsetof(TCore, tx_elided_locks) },
        { "tx_program_aborts", "count", "AT_TX_ABORT markers met inside a transaction",
          offsetof(TCore, tx_program_aborts) },
    };
    stats_add_counters(out, k->base.name, k, ctr, G_N_ELEMENTS(ctr));
}

static void tctx_dump(const TCore *k, GString *out)
{
    static const char *const regions[] = { "none", "transaction", "fallback" };
    static const char *const states[] = { "drain", "begin", "subscribe", "run", "wait",
                                          "commit drain", "commit", "aborting", "fallback word" };
    if (k->tx_region == TXR_NONE)
        return;
    g_string_append_printf(out, "  htm: region %s, %s, transaction %" G_GUINT64_FORMAT
                           " attempt %" G_GUINT64_FORMAT ", %u records kept, pieces out %u+%u\n",
                           regions[k->tx_region], states[k->txs], k->tx_num, k->tx_attempt,
                           k->tx_buf->len, k->tx_ld_out, k->tx_st_out);
}

static uint64_t tcore_tick(Component *c)
{
    TCore *k = (TCore *)c;
    if (k->st == TS_LOCK)
        return tc_lock_tick(k);
    if (k->st == TS_TX)
        return tctx_tick(k);
    if (k->mm)
        return mm_tick(k);
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
        AtRecord rec;
        uint64_t ret;
        if (!tc_take_run(k, &rec, &ret))
            return ret;
        exec(k, &rec);
        sim_progress(c->eng);
        if (k->st == TS_WAIT_SB && k->sb_used == 0 && k->loads_out == 0)
            return 1;       /* a range or a fence to start: nothing in flight will wake us */
        if (k->st != TS_RUN)
            return k->st == TS_LOCK || k->st == TS_TX;
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
            *key = sync_msg(m)->addr;
            g_hash_table_add(k->lockwords, key);
        } else {
            g_assert(m->cmd == MSG_SYNC_GO && k->st == TS_WAIT_SYNC);
            k->sync_wait_cycles += clock_cycle(c->clk, c->eng->now - k->sync_since);
            if (k->mm) {
                /* granted: an acquisition's access goes through the pipeline like any other;
                   mm_tick resumes (the record's gap was spent before it asked) */
                if (k->cur_active && k->cur_lock == LOCK_WAIT) {
                    k->cur_lock = LOCK_GRANTED;
                    if (k->cur.kind == AT_ALOAD) {
                        k->last_aload_pc = k->cur.pc;
                        k->last_aload_addr = k->cur.addr;
                    }
                }
                k->st = TS_WAIT_ORDER;
                sim_component_wake(c);
            } else if (k->cur_active && k->cur.kind == AT_LOCK_ACQ) {
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
    if (mem_msg(m)->tag == TC_LOCK_TAG) {
        tc_lock_answer(k, m);
        return;
    }
    if (G_UNLIKELY(k->p.htm) && ((mem_msg(m)->tag >> 62) == 1 || mem_msg(m)->tag == TC_FB_TAG)) {
        tctx_recv(k, m);
        return;
    }
    if (k->mm) {
        mm_recv_mem(k, m);
        return;
    }
    bool blocking = mem_msg(m)->tag == 1;
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
    } else if (k->st == TS_WAIT_SB || k->st == TS_LOCK || k->st == TS_TX ||
               (k->st == TS_RUN && k->eof)) {
        sim_component_wake(c);
    }
}

/* mutex != manager: the first thread-core makes the run's lock world, the others join it. */
static bool tc_lock_realize(TCore *k, GError **error)
{
    Component *c = &k->base;
    if (k->p.backoff_min > k->p.backoff_max) {
        return sim_component_reject(c, sim_component_first_set(c, "backoff_min", "backoff_max",
                                                               NULL),
                                    error, "backoff_min (%" G_GUINT64_FORMAT ") is above "
                                    "backoff_max (%" G_GUINT64_FORMAT ")", k->p.backoff_min,
                                    k->p.backoff_max);
    }
    TCore *owner = NULL;
    int n = 0;
    for (guint i = 0; i < c->sim->components->len; i++) {
        Component *o = g_ptr_array_index(c->sim->components, i);
        if (o->cls == &thread_core_class) {
            owner = owner ? owner : (TCore *)o;
            n++;
        }
    }
    if (owner == k)
        k->tw = tcl_world_new((TclAlgo)k->p.mutex, n, k->p.line, k->p.backoff_min,
                              k->p.backoff_max);
    else if (!owner->tw || owner->p.mutex != k->p.mutex || owner->p.line != k->p.line) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "mutex and line must be "
                    "the same on every thread-core (%s has mutex: %s)", owner->base.name,
                    tcl_algo_names[owner->p.mutex]);
        return false;
    }
    k->tl = tcl_thread(owner->tw, c->index);
    g_assert(k->tl);
    return true;
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
    if ((!k->p.trace || !*k->p.trace) && k->sync->peer) {
        /* a machine graph: the trace of the workload this core syncs with */
        const char *t = sim_component_param_str(k->sync->peer->owner, "trace");
        if (t && *t) {
            g_free(k->p.trace);
            k->p.trace = g_strdup(t);
        }
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
    if (k->p.mutex != TCL_MANAGER && !tc_lock_realize(k, error))
        return false;
    if (k->p.htm)
        k->tx_buf = g_array_new(FALSE, FALSE, sizeof(AtRecord));
    if (k->p.model > 0) {
        k->mm = mem_model_find(tc_model_choices[k->p.model]);
        g_assert(k->mm);
        static const MemAccessKind ma[] = { [TC_LD] = MA_LOAD, [TC_ST] = MA_STORE };
        for (unsigned e = 1; e < 4; e++)
            for (unsigned l = 1; l < 4; l++) {
                bool ok = true;
                for (unsigned eb = TC_LD; eb <= TC_ST; eb <<= 1)
                    for (unsigned lb = TC_LD; lb <= TC_ST; lb <<= 1)
                        if ((e & eb) && (l & lb))
                            ok = ok && mm_may_bypass(k->mm, ma[eb], ma[lb]);
                k->byp[e][l] = ok;
            }
        /* every unperformed op fits (stores + loads + a blocking one), and room for ops that
           performed out of order while an older one is still out */
        k->ops_cap = 16;
        while (k->ops_cap < 2 * (k->p.store_buffer + k->p.window) + 2)
            k->ops_cap *= 2;
        k->ops = g_new0(TcOp, k->ops_cap);
    }
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
    g_free(k->ops);
    tcl_world_free(k->tw);
    if (k->tx_buf)
        g_array_free(k->tx_buf, TRUE);
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
                                         "waiting for the store buffer", "done",
                                         "waiting for earlier accesses",
                                         "in a mutex's lock algorithm",
                                         "in a transaction region (htm)" };
    TCore *k = (TCore *)c;
    if (k->tl && k->st == TS_LOCK)
        tcl_thread_dump(k->tl, out);
    if (k->p.htm)
        tctx_dump(k, out);
    if (k->gap_held)
        g_string_append_printf(out, "  computing the gap of record %" G_GUINT64_FORMAT " until "
                               "cycle %" G_GUINT64_FORMAT "\n", k->records, k->gap_until);
    if (!k->mm) {
        g_string_append_printf(out, "  %s, %" G_GUINT64_FORMAT " records, store buffer %u, "
                               "loads %u\n", names[k->st], k->records, k->sb_used, k->loads_out);
        return;
    }
    static const char *const opst[] = { "buffered", "sent", "done" };
    g_string_append_printf(out, "  model %s, %s, %" G_GUINT64_FORMAT " records, store buffer %u, "
                           "loads/RMWs %u, unperformed ops %" G_GUINT64_FORMAT "\n", k->mm->name,
                           names[k->st], k->records, k->n_sb, k->n_ld, k->tail - k->head);
    for (uint64_t s = k->head; s < k->tail; s++) {
        const TcOp *o = op_at(k, s);
        if (o->st != OPS_DONE)
            g_string_append_printf(out, "    op %" G_GUINT64_FORMAT ": %s 0x%" G_GINT64_MODIFIER
                                   "x+%u %s%s%s\n", s,
                                   o->kind == TC_ST ? "store" : o->kind == TC_LD ? "load" : "RMW",
                                   o->addr, o->size, opst[o->st], o->release ? " release" : "",
                                   o->blocks ? " blocking" : "");
    }
}

static bool tc_peek(Component *c, const char *name, double *out)
{
    return sim_component_stat(c, name, out);
}

/* mutex != manager: per core lock_*, and once (core 0, the world's owner) the run's locks.* */
static void tc_lock_stats(const TCore *k, StatSet *out)
{
    const Component *c = &k->base;
    const TclStats *t = tcl_thread_stats(k->tl);
    static const StatCounterDef ctr[] = {
        { "lock_acquisitions", "count", "pthread mutex acquisitions by the lock algorithm",
          offsetof(TclStats, acquisitions) },
        { "lock_releases", "count", "their releases", offsetof(TclStats, releases) },
        { "lock_acquire_cycles", "cycle", "cycles from a lock's start (earlier accesses "
          "performed) to the acquisition, summed", offsetof(TclStats, acquire_cycles) },
        { "lock_accesses", "count", "loads, stores and atomics of the lock algorithm (watches "
          "not included)", offsetof(TclStats, accesses) },
        { "lock_spin_waits", "count", "spin-wait watches parked on a lock word (MSG_F_WATCH)",
          offsetof(TclStats, spin_waits) },
        { "lock_failed_attempts", "count", "test-and-sets, SCs and CASes that failed",
          offsetof(TclStats, failed_attempts) },
        { "lock_order_conflicts", "count", "acquisitions granted at once because waiting would "
          "close a wait cycle the recorded run never had", offsetof(TclStats, order_conflicts) },
        { "lock_handoffs_in", "count", "acquisitions that waited for another thread's release",
          offsetof(TclStats, handoffs_in) },
        { "lock_unheld_unlocks", "count", "unlocks of a mutex the thread did not hold (skipped)",
          offsetof(TclStats, unheld_unlocks) },
    };
    stats_add_counters(out, c->name, t, ctr, G_N_ELEMENTS(ctr));
    if (!k->tw)
        return;
    TclTotals x = tcl_world_totals(k->tw);
    double acq = (double)x.acquisitions, v = 0, acc = 0, cyc = 0, inval = 0, misses = 0;
    for (guint i = 0; i < c->sim->components->len; i++) {
        Component *o = g_ptr_array_index(c->sim->components, i);
        if (o->cls == &thread_core_class && ((TCore *)o)->tl) {
            const TclStats *s = tcl_thread_stats(((TCore *)o)->tl);
            acc += (double)s->accesses;
            cyc += (double)s->acquire_cycles;
            double y = 0;
            Component *l1 = ((TCore *)o)->dc->peer->owner;
            if (tc_peek(l1, "misses", &y))
                misses += y;
        }
    }
    stats_add_u64(out, "locks.acquisitions", x.acquisitions, "count",
                  "pthread mutex acquisitions by the lock algorithm (core.mutex), all threads");
    stats_add_u64(out, "locks.mutexes", x.mutexes, "count", "distinct mutexes locked");
    stats_add_u64(out, "locks.order_conflicts", x.order_conflicts, "count",
                  "acquisitions granted at once to break a wait cycle the recorded run never had");
    stats_add_u64(out, "locks.handoffs", x.handoffs, "count",
                  "acquisitions that waited for another thread's release");
    stats_add_double(out, "locks.handoff_cycles", stats_ratio((double)x.handoff_cycles,
                                                              (double)x.handoffs),
                     "cycle", "mean cycles from a release's start to the acquisition by a thread "
                     "that was waiting");
    stats_add_double(out, "locks.acquire_cycles", stats_ratio(cyc, acq), "cycle",
                     "mean cycles from a lock's start to its acquisition");
    stats_add_double(out, "locks.accesses_per_acquire", stats_ratio(acc, acq), "count",
                     "lock-algorithm accesses (lock and unlock) / locks.acquisitions");
    Component *bus = sim_component_find(c->sim, "bus"), *noc = sim_component_find(c->sim, "noc");
    if (bus && tc_peek(bus, "transactions", &v))
        stats_add_double(out, "locks.bus_transactions_per_acquire", stats_ratio(v, acq), "count",
                         "bus.transactions / locks.acquisitions (all bus traffic of the run)");
    if (bus && tc_peek(bus, "invalidations", &inval))
        stats_add_double(out, "locks.invalidations_per_acquire", stats_ratio(inval, acq),
                         "count", "bus.invalidations / locks.acquisitions (whole run)");
    if (noc && tc_peek(noc, "messages", &v))
        stats_add_double(out, "locks.net_messages_per_acquire", stats_ratio(v, acq), "count",
                         "noc.messages / locks.acquisitions (all network traffic of the run)");
    stats_add_double(out, "locks.misses_per_acquire", stats_ratio(misses, acq), "count",
                     "L1 misses of the thread-cores (whole run) / locks.acquisitions");
}

/* The pipeline's statistics, only under a model (model none's stats stay as they were). */
/* A warm-up or ROI reset: the store-buffer occupancy histogram restarts (the counters of
 * extra_stats are rebased by the stats layer). */
static void tcore_stats_reset(Component *c)
{
    memset(&((TCore *)c)->sb_occ, 0, sizeof(SimHist));
}

static void tcore_extra_stats(const Component *c, StatSet *out)
{
    const TCore *k = (const TCore *)c;
    if (k->tl)
        tc_lock_stats(k, out);
    if (k->p.htm)
        tctx_stats(k, out);
    if (!k->mm)
        return;
    static const StatCounterDef ctr[] = {
        { "forwarded", "count", "loads served by a buffered store to their bytes",
          offsetof(TCore, forwarded) },
        { "fence_stalls", "count", "fences, seq_cst atomics and pthread calls that waited for "
          "earlier accesses", offsetof(TCore, fence_stalls) },
        { "fence_stall_cycles", "cycle", "cycles the core waited at them",
          offsetof(TCore, fence_stall_cycles) },
        { "release_waits", "count", "release stores and RMWs (and stores after a release fence) "
          "that waited for earlier accesses to perform", offsetof(TCore, release_waits) },
        { "release_wait_cycles", "cycle", "cycles they waited (in the store buffer, or the core "
          "for an RMW)", offsetof(TCore, release_wait_cycles) },
        { "order_stall_cycles", "cycle", "cycles the core waited for an access the model held "
          "back (order, same address, full buffer or window)",
          offsetof(TCore, order_stall_cycles) },
        { "sb_full_stalls", "count", "stores that found the store buffer full",
          offsetof(TCore, sb_full_stalls) },
    };
    stats_add_counters(out, c->name, k, ctr, G_N_ELEMENTS(ctr));
    char *n = g_strdup_printf("%s.sb_occupancy", c->name);
    stats_add_hist(out, n, &k->sb_occ, "count",
                   "stores in the store buffer when a store enters it (itself included)");
    g_free(n);
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
    .extra_stats = tcore_extra_stats,
    .stats_reset = tcore_stats_reset,
    .check_link = mem_link_line_down,
};
