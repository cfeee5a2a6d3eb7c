/* kernel_core.c: kernel-core, an in-order core that executes a kernel-language program
 * (kernel.h) with real values against its coherent L1, plus the checks and statistics of the
 * lock experiment (Mellor-Crummey & Scott, ACM TOCS 1991, sec. 4). Under `model` sc (the
 * default) it performs one access at a time, in program order: sequential consistency. Under
 * tso, pso and weak (memmodel.h's rows, the vocabulary of mmcore.c) plain stores retire into a
 * store buffer that drains in the background (below), so st->ld (and st->st but for tso) is
 * relaxed.
 *
 *   RUN --ALU/branch/delay: cycles accumulate--> memory op or marker: sleep until their cycle,
 *        then MEM (one access at the L1) --answer--> RUN ...
 *        spin loop (load rX; bCC rX, .., back): WATCH: sleep on the line until it changes
 *
 * All cores of a run share one world: the parsed program and its layout, the lock checker (at
 * most one core between `acquired` and `released`, else the run fails with exit 3 naming the
 * cycle and both cores), hand-off timing, and the `.expect` checks that the last core to halt
 * performs by loading each word through its L1. Non-zero initial data is stored by core 0
 * before any core starts.
 * Spin elision: a spinning load that hits returns the same value until another core's write
 * takes the line away, so instead of re-reading it every iteration the core parks a watch at its
 * L1 (MSG_F_WATCH) and resumes at the first iteration boundary after the line is lost. Coherence
 * traffic is unchanged; the L1's load counts drop (spin_loads_elided counts the reads saved);
 * timing differs by less than one iteration.
 */
#include <string.h>

#include "../../sim/error.h"
#include "../mem/linkcheck.h"
#include "../mem/memmsg.h"
#include "../../sim/input.h"
#include "kernel.h"
#include "../cache/htm.h"
#include "memmodel.h"

typedef struct {
    int kernel;                  /* index into kernel_builtin_names; 0: none */
    char *kernel_file;
    char *program;
    uint64_t iterations, duration, cs, outside, jitter, backoff_min, backoff_max, size;
    uint64_t base, alu_latency;
    bool spin_elision;
    int model;                   /* MemModelId: index into mem_model_choices */
    uint64_t store_buffer, drain;
} KcParams;

typedef struct {
    int refs;
    Kernel *prog;
    int ncores;
    Component **cores;
    bool init_done;
    int halted;
    /* the lock checker */
    int holder;                  /* core between acquired and released, -1: none */
    uint64_t held_since;
    int last_releaser;           /* the last release not yet followed by an acquisition, -1 */
    uint64_t last_release;
    /* totals */
    uint64_t acquisitions, handoffs, handoff_cycles, end_cycle;
    SimHist handoff_hist;
    uint64_t roi_acquisitions, roi_handoffs, roi_handoff_cycles;   /* the totals at a stats
                                     reset (the .expect checks read the whole-run totals) */
} KcWorld;

enum { KS_IDLE, KS_RUN, KS_MEM, KS_WATCH, KS_INIT, KS_WAIT_INIT, KS_CHECK, KS_HALTED,
       KS_SB_WAIT, KS_TX };
static const char *const kc_state_names[] = {
    [KS_IDLE] = "idle", [KS_RUN] = "running", [KS_MEM] = "waiting for its L1",
    [KS_WATCH] = "sleeping on a spin-wait watch", [KS_INIT] = "storing initial data",
    [KS_WAIT_INIT] = "waiting for core 0's initial data", [KS_CHECK] = "checking .expect values",
    [KS_HALTED] = "halted", [KS_SB_WAIT] = "waiting for its store buffer",
    [KS_TX] = "waiting for its L1 to begin, commit or abort a transaction",
};

#define KC_STACK 8

/* ---- the store buffer (model tso, pso, weak) ---------------------------------------------
 *   store --retires (alu_latency)--> sb[0..n_sb) oldest first --one drain at a time--> L1
 *   load  --youngest entry to its word? forwarded (alu_latency) : to the L1 past the buffer
 * An entry may drain `drain` random cycles after it entered (0 .. drain, seeded) and only after
 * every older entry of an earlier `fence st` epoch; tso drains the oldest entry only (FIFO),
 * pso and weak a random one among those ready with no older entry to the same word. An entry
 * stays (and forwards) until the L1 answers its write: then it is visible to every core. Full
 * fences, atomics, LL/SC, `acquired`, `released` and `halt` wait until the buffer is empty. */
#define KC_SB_MAX 64
#define KC_TAG_DRAIN 1           /* Msg.tag of a drain (core ops have tag 0) */
enum { KC_SBW_FULL, KC_SBW_FENCE, KC_SBW_DRAIN };   /* why the core is in KS_SB_WAIT */

typedef struct {
    uint64_t addr;
    int64_t val;
    uint64_t ready_at;           /* cycle from which it may drain */
    uint64_t epoch;              /* `fence st` epochs before it */
    int op;                      /* the store op (messages) */
    bool sent;                   /* its drain is in flight */
} KcSbEntry;

typedef struct {
    Component base;
    KcParams p;
    Port *dc;
    KcWorld *w;
    int id;
    int state;
    int pc;
    int stack[KC_STACK];
    int sp;
    int64_t val[KERNEL_NVALS];   /* r0..r15, then the read-only values */
    uint64_t iter;
    uint64_t batch_acc;         /* kc_run: cycles of the ops run before this one in its batch */
    /* the access in flight */
    int mem_op;                  /* op index, -1 for init and check accesses */
    uint64_t mem_addr, issued_at;
    int64_t mem_val;
    uint64_t next_item;          /* init store / expect check in progress */
    /* spin elision */
    uint64_t hit_latency;        /* the L1's: a spin iteration is hit_latency + alu_latency */
    uint64_t spin_t0;
    /* stats */
    uint64_t ops, loads, stores, atomics, cas_fail, sc_fail, spin_waits, spin_elided;
    uint64_t delay_cycles, mem_cycles, acquisitions, handoffs_in, handoff_cycles, hold_cycles;
    uint64_t halt_cycle;
    /* the store buffer (mm NULL under model sc: no buffer, the code paths of before) */
    const MemModel *mm;
    KcSbEntry sb[KC_SB_MAX];
    int n_sb;
    bool sb_busy;                /* a drain in flight */
    uint64_t sb_epoch, sb_sent_at;
    int sb_wait;                 /* KC_SBW_*, in KS_SB_WAIT */
    uint64_t sb_wait_since;
    uint64_t run_at;             /* KS_RUN: the cycle kc_run resumes (ticks may come earlier) */
    uint64_t forwarded, sb_full_cycles, fence_wait_cycles, drain_wait_cycles, drains_reordered;
    SimHist sb_occ;
    /* hardware transactions (models/cache/htm.h): the checkpoint taken at the outermost xbegin */
    int tx_depth;                /* 0: none; inner xbegin / xend only count (flat nesting) */
    uint64_t tx_num;             /* the current or last transaction's number */
    int tx_label, tx_rd;
    int64_t tx_regs[KERNEL_NREGS];
    int tx_stack[KC_STACK], tx_sp;
    uint64_t tx_iter, tx_start;
    bool tx_after_abort;         /* the last transaction aborted: the next begin is a retry */
    uint64_t tx_begins, tx_commits, tx_aborts, tx_retries, tx_wasted, tx_useful;
} KCore;

#define KC_TAG_TX (1ull << 62)   /* Msg.tag of transactional messages: KC_TAG_TX | number */

static const ParamSpec kc_params[] = {
    { .name = "kernel", .type = PARAM_ENUM, .def = "none", .choices = kernel_builtin_names,
      .doc = "a built-in lock kernel (docs/locks.md); or give kernel_file or program",
      .offset = offsetof(KcParams, kernel) },
    { .name = "kernel_file", .type = PARAM_PATH, .def = NULL,
      .doc = "a file holding a kernel in the kernel language",
      .offset = offsetof(KcParams, kernel_file) },
    { .name = "program", .type = PARAM_STRING, .def = NULL,
      .doc = "a kernel in the kernel language, written here (one op per line)",
      .offset = offsetof(KcParams, program) },
    { .name = "iterations", .type = PARAM_UINT, .def = "100", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1e12, .doc = "iterations per core (lock kernels: acquisitions); `loop` stops after "
      "this many (0: no limit, use duration)", .offset = offsetof(KcParams, iterations) },
    { .name = "duration", .type = PARAM_CYCLES, .def = "0", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1e15, .doc = "`loop` starts no iteration at or after this cycle (0: no limit): "
      "time-bounded runs, for fairness", .offset = offsetof(KcParams, duration) },
    { .name = "cs", .type = PARAM_CYCLES, .def = "20", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1e9, .doc = "critical-section compute cycles (the value `cs`)",
      .offset = offsetof(KcParams, cs) },
    { .name = "outside", .type = PARAM_CYCLES, .def = "100", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1e9, .doc = "work between a release and the next acquire (the value `outside`)",
      .offset = offsetof(KcParams, outside) },
    { .name = "jitter", .type = PARAM_CYCLES, .def = "16", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1e9, .doc = "random extra 0 .. jitter cycles on the start and on each outside "
      "work (seeded per core; the value `jitter`)", .offset = offsetof(KcParams, jitter) },
    { .name = "backoff_min", .type = PARAM_CYCLES, .def = "8", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1e9, .doc = "first backoff limit of ttas-backoff (the value `backoff_min`)",
      .offset = offsetof(KcParams, backoff_min) },
    { .name = "backoff_max", .type = PARAM_CYCLES, .def = "1024", .flags = PARAM_F_RANGE,
      .min = 1, .max = 1e9, .doc = "largest backoff limit (the value `backoff_max`)",
      .offset = offsetof(KcParams, backoff_max) },
    { .name = "size", .type = PARAM_UINT, .def = "0", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1e12, .doc = "a number for the program (the value `size`): a table size, a key "
      "range", .offset = offsetof(KcParams, size) },
    { .name = "base", .type = PARAM_UINT, .def = "0x100000", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1e15, .doc = "address of the kernel's first symbol (line aligned)",
      .offset = offsetof(KcParams, base) },
    { .name = "alu_latency", .type = PARAM_CYCLES, .def = "1", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1000, .doc = "cycles of each non-memory op (ALU, branch, call, fence)",
      .offset = offsetof(KcParams, alu_latency) },
    { .name = "spin_elision", .type = PARAM_BOOL, .def = "true",
      .doc = "sleep on a spinning load's line instead of re-reading it (same traffic, far "
      "fewer events)", .offset = offsetof(KcParams, spin_elision) },
    { .name = "model", .type = PARAM_ENUM, .def = "sc", .choices = mem_model_choices,
      .doc = "memory model (models/cpu/memmodel.h): sc, one access at a time; tso, pso, weak: "
      "plain stores go through a store buffer with forwarding (tso FIFO; pso, weak: any order "
      "to different words; loads stay in order), fences, atomics and LL/SC drain it first "
      "(docs/locks.md \"Memory models\"; adds the stats forwarded_loads, "
      "store_buffer_full_cycles, fence_wait_cycles, drain_wait_cycles, drains_reordered, "
      "sb_occupancy)", .offset = offsetof(KcParams, model) },
    { .name = "store_buffer", .type = PARAM_UINT, .def = "8", .flags = PARAM_F_RANGE, .min = 1,
      .max = KC_SB_MAX, .doc = "model tso, pso, weak: store buffer entries (a store that finds "
      "it full waits)", .offset = offsetof(KcParams, store_buffer) },
    { .name = "drain", .type = PARAM_CYCLES, .def = "32", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1000000, .doc = "model tso, pso, weak: a buffered store may drain 0 .. this many "
      "cycles after it entered (random, seeded), so reorderings show up",
      .offset = offsetof(KcParams, drain) },
    PARAM_END,
};

static const PortSpec kc_ports[] = {
    { .name = "dcache", .role = PORT_REQUESTER, .required = true, .doc = "loads, stores and atomics" },
    PORT_END,
};

#define KC(x) ((const KCore *)(x))
static double kc_now_cycles(const Component *c)
{
    return (double)(clock_cycle(c->clk, c->eng->now) + 1);
}
static double f_rate(const Component *c)
{
    return stats_ratio((double)KC(c)->acquisitions * 1000.0, (double)sim_stats_cycles(c));
}
static double f_handoff(const Component *c)
{
    return stats_ratio((double)KC(c)->handoff_cycles, (double)KC(c)->handoffs_in);
}

static const StatSpec kc_stats[] = {
    { "acquisitions", STAT_COUNTER, "count", "`acquired` markers passed",
      offsetof(KCore, acquisitions), NULL },
    { "acquisitions_per_kcycle", STAT_FORMULA, "count", "acquisitions x 1000 / sim.cycles", 0,
      f_rate },
    { "handoffs_in", STAT_COUNTER, "count", "acquisitions right after another core's release",
      offsetof(KCore, handoffs_in), NULL },
    { "handoff_cycles", STAT_FORMULA, "cycle", "mean cycles from that release to this core's "
      "acquisition", 0, f_handoff },
    { "hold_cycles", STAT_COUNTER, "cycle", "cycles between acquired and released, summed",
      offsetof(KCore, hold_cycles), NULL },
    { "ops", STAT_COUNTER, "count", "ops executed (elided spin iterations included)",
      offsetof(KCore, ops), NULL },
    { "loads", STAT_COUNTER, "count", "loads and load-linked sent to the L1",
      offsetof(KCore, loads), NULL },
    { "stores", STAT_COUNTER, "count", "plain stores sent to the L1", offsetof(KCore, stores),
      NULL },
    { "atomics", STAT_COUNTER, "count", "tas, xchg, cas, faa, ll and sc sent to the L1",
      offsetof(KCore, atomics), NULL },
    { "cas_failures", STAT_COUNTER, "count", "cas that found another value",
      offsetof(KCore, cas_fail), NULL },
    { "sc_failures", STAT_COUNTER, "count", "sc that did not write", offsetof(KCore, sc_fail),
      NULL },
    { "spin_waits", STAT_COUNTER, "count", "spin loops slept through on a watch (spin_elision)",
      offsetof(KCore, spin_waits), NULL },
    { "spin_loads_elided", STAT_COUNTER, "count",
      "spinning loads not sent because the line could not have changed (each would have hit)",
      offsetof(KCore, spin_elided), NULL },
    { "mem_cycles", STAT_COUNTER, "cycle", "cycles waiting for the L1, summed",
      offsetof(KCore, mem_cycles), NULL },
    { "delay_cycles", STAT_COUNTER, "cycle", "cycles of delay ops", offsetof(KCore, delay_cycles),
      NULL },
    { "cycles", STAT_STAMP, "cycle", "cycle at which the core halted",
      offsetof(KCore, halt_cycle), NULL },
    STAT_END,
};

/* ---- helpers ------------------------------------------------------------------------------- */

static inline int64_t kv(const KCore *k, const KernelVal *v)
{
    return v->is_slot ? k->val[v->slot] : v->imm;
}

static uint64_t kc_now(const KCore *k) { return sim_component_cycle(&k->base); }

/* A run-time error of the program or a failed check: the run stops with `code`. */
static void kc_fail(KCore *k, int code, int op, const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static void kc_fail(KCore *k, int code, int op, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    char *where = op >= 0 && op < k->w->prog->nops ? kernel_op_where(k->w->prog, op) : NULL;
    /* the op's own cycle: the batch's start plus the ALU and delay cycles run before it */
    sim_fail(k->base.sim, g_error_new(ARCHSIM_SIM_ERROR, code, "cycle %" G_GUINT64_FORMAT
                                      ": %s: %s%s%s", kc_now(k) + k->batch_acc, k->base.name,
                                      where ? where : "", where ? ": " : "", why));
    g_free(where);
    g_free(why);
    k->state = KS_HALTED;
}

static bool kc_addr(KCore *k, const KernelOp *op, uint64_t *out)
{
    const KernelSym *s = &k->w->prog->syms[op->addr.sym];
    int64_t ix = kv(k, &op->addr.index), off = kv(k, &op->addr.offset);
    if (ix < 0 || (uint64_t)ix >= s->count) {
        kc_fail(k, ARCHSIM_EXIT_DATAERR, k->pc, "index %" G_GINT64_FORMAT " is out of range: %s "
                "has %" G_GUINT64_FORMAT " element%s", ix, s->name, s->count,
                s->count == 1 ? "" : "s");
        return false;
    }
    if (off < 0 || off % 8 || (uint64_t)off + 8 > s->elem) {
        kc_fail(k, ARCHSIM_EXIT_DATAERR, k->pc, "offset %" G_GINT64_FORMAT " is not a word of "
                "%s's %" G_GUINT64_FORMAT "-byte element", off, s->name, s->elem);
        return false;
    }
    *out = s->addr + (uint64_t)ix * s->stride + (uint64_t)off;
    return true;
}

static Msg *kc_msg(KCore *k, uint16_t cmd, uint64_t addr)
{
    Msg *m = sim_msg_alloc(k->base.sim);
    m->cmd = cmd;
    mem_msg(m)->addr = addr;
    m->size = 8;
    m->issued = k->base.eng->now;
    m->flags = 0;
    return m;
}

/* Time order of the dump: the earliest "load"/"store" this core may still report is its memory
 * op in flight (KS_MEM) or its store-buffer drain in flight (SIM_TRACE_HOLD). */
static void kc_trace_hold(KCore *k)
{
    uint64_t since = k->state == KS_MEM ? k->issued_at : UINT64_MAX;
    if (k->sb_busy && k->sb_sent_at < since)
        since = k->sb_sent_at;
    SIM_TRACE_HOLD(&k->base, since);
}

static void kc_send(KCore *k, Msg *m, int state, int op, uint64_t delay)
{
    k->state = state;
    k->mem_op = op;
    k->mem_addr = mem_msg(m)->addr;
    k->issued_at = kc_now(k) + delay;
    kc_trace_hold(k);
    sim_port_send(&k->base, k->dc, m, delay);
}

/* Sends the memory op at pc to the L1. */
static void kc_issue(KCore *k, const KernelOp *op)
{
    uint64_t addr;
    if (!kc_addr(k, op, &addr))
        return;
    bool read = op->kind == KOP_LOAD || op->kind == KOP_LL;
    Msg *m = kc_msg(k, read ? MSG_READ_REQ : MSG_WRITE_REQ, addr);
    int64_t a = op->nvals > 0 ? kv(k, &op->v[0]) : 0;
    switch (op->kind) {
    case KOP_LOAD:
        k->loads++;
        break;
    case KOP_LL:
        m->flags = MSG_F_LL;
        k->loads++;
        k->atomics++;
        break;
    case KOP_STORE:
        mem_msg(m)->value = (uint64_t)a;
        k->stores++;
        break;
    case KOP_TAS:
        m->flags = MSG_RMW_FLAGS(MSG_RMW_XCHG) | MSG_F_TAS;
        mem_msg(m)->value = 1;
        k->atomics++;
        break;
    case KOP_XCHG:
        m->flags = MSG_RMW_FLAGS(MSG_RMW_XCHG);
        mem_msg(m)->value = (uint64_t)a;
        k->atomics++;
        break;
    case KOP_FAA:
        m->flags = MSG_RMW_FLAGS(MSG_RMW_ADD);
        mem_msg(m)->value = (uint64_t)a;
        k->atomics++;
        break;
    case KOP_CAS:
        m->flags = MSG_RMW_FLAGS(MSG_RMW_CMPXCHG);
        mem_msg(m)->value = (uint64_t)kv(k, &op->v[1]);
        mem_msg(m)->arg = (uint64_t)a;
        k->atomics++;
        break;
    case KOP_SC:
        m->flags = MSG_F_SC;
        mem_msg(m)->value = (uint64_t)a;
        k->atomics++;
        break;
    default:
        g_assert_not_reached();
    }
    if (k->tx_depth) {
        if (op->kind == KOP_LL || op->kind == KOP_SC) {
            sim_msg_free(k->base.sim, m);
            kc_fail(k, ARCHSIM_EXIT_DATAERR, k->pc, "%s inside a transaction: use loads, stores "
                    "and atomics there", kernel_ops[op->kind].name);
            return;
        }
        m->flags |= MSG_F_TX;
        mem_msg(m)->tag = KC_TAG_TX | k->tx_num;
    }
    k->mem_val = a;
    kc_send(k, m, KS_MEM, k->pc, 0);
}

/* ---- hardware transactions ---------------------------------------------------------------- */

static void kc_tx_send(KCore *k, uint16_t cmd, uint64_t aux)
{
    Msg *m = kc_msg(k, cmd, 0);
    m->size = 0;
    mem_msg(m)->tag = KC_TAG_TX | k->tx_num;
    mem_msg(m)->value = aux;
    kc_send(k, m, KS_TX, k->pc, 0);
}

/* xbegin, xend, xabort at pc: true when the core goes on at once, false when it waits. */
static bool kc_tx_op(KCore *k, const KernelOp *op, uint64_t now)
{
    k->ops++;
    switch (op->kind) {
    case KOP_XBEGIN:
        if (k->tx_depth) {                          /* flat nesting */
            if (k->tx_depth == 255) {
                kc_fail(k, ARCHSIM_EXIT_DATAERR, k->pc, "transactions nest deeper than 255");
                return false;
            }
            k->tx_depth++;
            k->val[op->rd] = -1;
            k->pc++;
            return true;
        }
        memcpy(k->tx_regs, k->val, sizeof k->tx_regs);
        memcpy(k->tx_stack, k->stack, sizeof k->tx_stack);
        k->tx_sp = k->sp;
        k->tx_iter = k->iter;
        k->tx_label = op->target;
        k->tx_rd = op->rd;
        k->tx_num++;
        k->tx_start = now;
        k->tx_begins++;
        k->tx_retries += k->tx_after_abort;
        k->tx_depth = 1;
        kc_tx_send(k, MSG_TX_BEGIN, 0);
        return false;
    case KOP_XEND:
        if (!k->tx_depth) {
            kc_fail(k, ARCHSIM_EXIT_DATAERR, k->pc, "xend outside a transaction");
            return false;
        }
        if (k->tx_depth > 1) {
            k->tx_depth--;
            k->pc++;
            return true;
        }
        kc_tx_send(k, MSG_TX_END, 0);
        return false;
    default:                                        /* KOP_XABORT */
        if (!k->tx_depth) {                         /* a no-op outside a transaction (RTM) */
            k->pc++;
            return true;
        }
        kc_tx_send(k, MSG_TX_ABORT, (uint64_t)kv(k, &op->v[0]) & 0xff);
        return false;
    }
}

/* A transactional answer from the L1: begun, committed, aborted (with its status), or stale (of
 * a transaction that has aborted: dropped, the abort notice follows). True when the core runs
 * from k->pc now. */
static bool kc_tx_answer(KCore *k, const Msg *m, uint64_t now)
{
    bool current = k->tx_depth && mem_msg_c(m)->tag == (KC_TAG_TX | k->tx_num);
    if ((m->flags & MSG_F_TX_STALE) || !current)
        return false;
    switch (m->cmd) {
    case MSG_TX_BEGIN:
        g_assert(k->state == KS_TX);
        k->val[k->tx_rd] = -1;
        SIM_TRACE(&k->base, "xbegin", 0, TARG_U("tx", k->tx_num));
        break;
    case MSG_TX_END:
        g_assert(k->state == KS_TX);
        k->tx_depth = 0;
        k->tx_commits++;
        sim_progress(k->base.eng);
        k->tx_useful += now - k->tx_start;
        k->tx_after_abort = false;
        SIM_TRACE(&k->base, "xend", 0, TARG_U("tx", k->tx_num));
        break;
    case MSG_TX_ABORTED:
        memcpy(k->val, k->tx_regs, sizeof k->tx_regs);
        memcpy(k->stack, k->tx_stack, sizeof k->stack);
        k->sp = k->tx_sp;
        k->iter = k->tx_iter;
        k->val[k->tx_rd] = (int64_t)mem_msg_c(m)->value;
        k->tx_depth = 0;
        k->tx_aborts++;
        k->tx_wasted += now - k->tx_start;
        k->tx_after_abort = true;
        SIM_TRACE(&k->base, "xabort", 0, TARG_U("tx", k->tx_num),
                  TARG_X("status", mem_msg_c(m)->value));
        /* whatever the core was doing (an access, a delay) is void: run the abort path now */
        if (sim_event_scheduled(&k->base.tick_ev))
            sim_deschedule(k->base.eng, &k->base.tick_ev);
        k->pc = k->tx_label;
        k->state = KS_RUN;
        return true;
    default:
        g_assert_not_reached();
    }
    k->pc++;
    k->state = KS_RUN;
    return true;
}

static int64_t kc_alu(KCore *k, int kind, int64_t a, int64_t b, bool *ok)
{
    uint64_t x = (uint64_t)a, y = (uint64_t)b;
    switch (kind) {
    case KOP_MOV:
        return a;
    case KOP_ADD:
        return (int64_t)(x + y);
    case KOP_SUB:
        return (int64_t)(x - y);
    case KOP_MUL:
        return (int64_t)(x * y);
    case KOP_REM:
        if (y == 0) {
            *ok = false;
            kc_fail(k, ARCHSIM_EXIT_DATAERR, k->pc, "rem by zero");
            return 0;
        }
        return (int64_t)(x % y);
    case KOP_AND:
        return (int64_t)(x & y);
    case KOP_OR:
        return (int64_t)(x | y);
    case KOP_XOR:
        return (int64_t)(x ^ y);
    case KOP_SHL:
        return (int64_t)(x << (y & 63));
    case KOP_SHR:
        return (int64_t)(x >> (y & 63));
    case KOP_MIN:
        return a < b ? a : b;
    case KOP_MAX:
        return a > b ? a : b;
    case KOP_RAND:
        return a <= 0 ? 0 : (int64_t)sim_rng_below(&k->base.rng, x + 1);
    default:
        g_assert_not_reached();
    }
}

static bool kc_branch_taken(int kind, int64_t a, int64_t b)
{
    switch (kind) {
    case KOP_BEQ:
        return a == b;
    case KOP_BNE:
        return a != b;
    case KOP_BLT:
        return a < b;
    case KOP_BGE:
        return a >= b;
    default:
        return true;
    }
}

/* ---- the store buffer (model tso, pso, weak; the diagram above KcSbEntry) ------------------ */

enum { KC_SB_ISSUE, KC_SB_DONE, KC_SB_WAIT };   /* kc_sb_access: to the L1, handled, wait */

static void kc_sb_trace(KCore *k)
{
    if (G_LIKELY(k->base.trace_track < 0))
        return;
    GString *s = g_string_new(NULL);
    for (int i = 0; i < k->n_sb; i++)
        g_string_append_printf(s, "%s0x%" G_GINT64_MODIFIER "x=%" G_GINT64_FORMAT,
                               s->len ? " " : "", k->sb[i].addr, k->sb[i].val);
    SIM_TRACE(&k->base, "sb", 0, TARG_S("entries", s->len ? s->str : "(empty)"),
              TARG_U("n", (uint64_t)k->n_sb));
    g_string_free(s, TRUE);
}

/* The core waits in KS_SB_WAIT until the buffer has room (full) or is empty (else). */
static void kc_sb_wait(KCore *k, int why, uint64_t now)
{
    static const char *const whys[] = { [KC_SBW_FULL] = "full", [KC_SBW_FENCE] = "fence",
                                        [KC_SBW_DRAIN] = "drain" };
    k->state = KS_SB_WAIT;
    k->sb_wait = why;
    k->sb_wait_since = now;
    SIM_TRACE(&k->base, "sb_wait", 0, TARG_S("why", whys[why]), TARG_U("n", (uint64_t)k->n_sb));
}

/* Is entry i allowed to drain now (ready, same-word and `fence st` order kept)? */
static bool kc_sb_eligible(const KCore *k, int i, uint64_t now)
{
    const KcSbEntry *e = &k->sb[i];
    if (e->sent || e->ready_at > now)
        return false;
    if (!k->mm->st_st)
        return i == 0;                              /* tso: FIFO */
    for (int j = 0; j < i; j++)
        if (k->sb[j].addr == e->addr || k->sb[j].epoch < e->epoch)
            return false;
    return true;
}

/* Starts a drain if none is in flight and an entry may go; returns the cycles until an entry
 * not yet ready becomes ready (0: none, or a drain in flight). */
static uint64_t kc_sb_pump(KCore *k, uint64_t now)
{
    if (k->sb_busy || k->n_sb == 0)
        return 0;
    int cand[KC_SB_MAX], nc = 0;
    uint64_t next = UINT64_MAX;
    for (int i = 0; i < k->n_sb; i++) {
        if (kc_sb_eligible(k, i, now))
            cand[nc++] = i;
        else if (!k->sb[i].sent && k->sb[i].ready_at > now && k->sb[i].ready_at < next)
            next = k->sb[i].ready_at;
        if (!k->mm->st_st)
            break;
    }
    if (nc == 0)
        return next == UINT64_MAX ? 0 : next - now;
    int i = cand[nc > 1 ? sim_rng_below(&k->base.rng, (uint64_t)nc) : 0];
    KcSbEntry *e = &k->sb[i];
    e->sent = true;
    k->sb_busy = true;
    k->sb_sent_at = now;
    kc_trace_hold(k);
    k->drains_reordered += i > 0;
    k->stores++;
    Msg *m = kc_msg(k, MSG_WRITE_REQ, e->addr);
    mem_msg(m)->value = (uint64_t)e->val;
    mem_msg(m)->tag = KC_TAG_DRAIN;
    sim_port_send(&k->base, k->dc, m, 0);
    return 0;
}

/* The L1 answered the drain in flight: the store is visible to every core now. */
static void kc_sb_drained(KCore *k, uint64_t now)
{
    int i = 0;
    while (i < k->n_sb && !k->sb[i].sent)
        i++;
    g_assert(k->sb_busy && i < k->n_sb);
    KcSbEntry e = k->sb[i];
    memmove(&k->sb[i], &k->sb[i + 1], (size_t)(k->n_sb - i - 1) * sizeof e);
    k->n_sb--;
    k->sb_busy = false;
    SIM_TRACE_AT(&k->base, k->sb_sent_at, "store", now - k->sb_sent_at, TARG_X("addr", e.addr),
                 TARG_I("value", e.val), TARG_S("cache", k->dc->peer->owner->name));
    kc_trace_hold(k);
    SIM_TRACE(&k->base, "drain", 0, TARG_X("addr", e.addr), TARG_I("value", e.val),
              TARG_U("sb", (uint64_t)k->n_sb));
    if (k->state == KS_SB_WAIT &&
        (k->sb_wait == KC_SBW_FULL ? (uint64_t)k->n_sb < k->p.store_buffer : k->n_sb == 0)) {
        uint64_t waited = now - k->sb_wait_since;
        if (k->sb_wait == KC_SBW_FULL)
            k->sb_full_cycles += waited;
        else if (k->sb_wait == KC_SBW_FENCE)
            k->fence_wait_cycles += waited;
        else
            k->drain_wait_cycles += waited;
        k->state = KS_RUN;
        k->run_at = now;
    }
}

/* A memory op under a model, at its exact cycle: a store retires into the buffer, a load takes
 * the youngest buffered store to its word, an atomic or LL/SC waits for an empty buffer. */
static int kc_sb_access(KCore *k, const KernelOp *op, uint64_t now, uint64_t *acc)
{
    uint64_t addr;
    switch (op->kind) {
    case KOP_STORE: {
        if ((uint64_t)k->n_sb >= k->p.store_buffer) {
            kc_sb_wait(k, KC_SBW_FULL, now);
            return KC_SB_WAIT;
        }
        if (!kc_addr(k, op, &addr))
            return KC_SB_WAIT;                      /* failed: halted */
        uint64_t d = k->p.drain ? sim_rng_below(&k->base.rng, k->p.drain + 1) : 0;
        k->sb[k->n_sb++] = (KcSbEntry){ .addr = addr, .val = kv(k, &op->v[0]),
                                        .ready_at = now + d, .epoch = k->sb_epoch, .op = k->pc };
        sim_hist_add(&k->sb_occ, (uint64_t)k->n_sb);
        kc_sb_trace(k);
        break;
    }
    case KOP_LOAD: {
        if (!kc_addr(k, op, &addr))
            return KC_SB_WAIT;
        int i = k->n_sb - 1;
        while (i >= 0 && k->sb[i].addr != addr)
            i--;
        if (i < 0)
            return KC_SB_ISSUE;
        k->val[op->rd] = k->sb[i].val;
        k->forwarded++;
        SIM_TRACE(&k->base, "forward", 0, TARG_X("addr", addr), TARG_I("value", k->sb[i].val));
        break;
    }
    default:                                        /* atomics, LL/SC: locked, a full fence */
        if (k->n_sb == 0)
            return KC_SB_ISSUE;
        kc_sb_wait(k, KC_SBW_DRAIN, now);
        return KC_SB_WAIT;
    }
    k->ops++;
    k->pc++;
    *acc += k->p.alu_latency;
    return KC_SB_DONE;
}

/* `fence` under a model: false when the core must wait for the buffer to empty first. */
static bool kc_sb_fence(KCore *k, const KernelOp *op, uint64_t now)
{
    if (op->fence == KFENCE_FULL && k->n_sb > 0) {
        kc_sb_wait(k, KC_SBW_FENCE, now);
        return false;
    }
    if (op->fence == KFENCE_ST)
        k->sb_epoch++;                              /* later stores drain after these */
    return true;                                    /* ld: loads are already in order */
}

/* ---- the lock checker ------------------------------------------------------------------------ */

static void kc_acquired(KCore *k, uint64_t now)
{
    KcWorld *w = k->w;
    if (w->holder >= 0) {
        kc_fail(k, ARCHSIM_EXIT_CHECK, k->pc, "mutual exclusion violated: core%d acquired the "
                "lock while core%d holds it (since cycle %" G_GUINT64_FORMAT ")", k->id,
                w->holder, w->held_since);
        return;
    }
    w->holder = k->id;
    w->held_since = now;
    w->acquisitions++;
    k->acquisitions++;
    if (w->last_releaser >= 0 && w->last_releaser != k->id) {
        uint64_t d = now - w->last_release;
        w->handoffs++;
        w->handoff_cycles += d;
        sim_hist_add(&w->handoff_hist, d);
        k->handoffs_in++;
        k->handoff_cycles += d;
    }
    w->last_releaser = -1;
    SIM_TRACE(&k->base, "acquired", 0, TARG_U("n", k->acquisitions));
    sim_progress(k->base.eng);
}

static void kc_released(KCore *k, uint64_t now)
{
    KcWorld *w = k->w;
    if (w->holder != k->id) {
        if (w->holder < 0)
            kc_fail(k, ARCHSIM_EXIT_CHECK, k->pc, "core%d released the lock, which no core "
                    "holds", k->id);
        else
            kc_fail(k, ARCHSIM_EXIT_CHECK, k->pc, "core%d released the lock, which core%d "
                    "holds", k->id, w->holder);
        return;
    }
    w->holder = -1;
    w->last_releaser = k->id;
    w->last_release = now;
    k->hold_cycles += now - w->held_since;
    SIM_TRACE(&k->base, "released", 0, TARG_U("n", k->acquisitions));
}

static void kc_check_next(KCore *k);

static void kc_halt(KCore *k, uint64_t now)
{
    KcWorld *w = k->w;
    k->state = KS_HALTED;
    k->halt_cycle = now;
    sim_progress(k->base.eng);
    if (++w->halted < w->ncores)
        return;
    w->end_cycle = now;
    if (w->holder >= 0) {
        kc_fail(k, ARCHSIM_EXIT_CHECK, -1, "core%d halted between acquired and released (since "
                "cycle %" G_GUINT64_FORMAT ")", w->holder, w->held_since);
        return;
    }
    k->next_item = 0;
    kc_check_next(k);                               /* the last core checks .expect */
}

/* ---- execution ------------------------------------------------------------------------------ */

/* Runs ops from pc at the current cycle until one must wait; returns the cycles until the next
 * tick, 0 when an answer from the L1 (or nothing) comes next (kc_run). */
static uint64_t kc_run_batch(KCore *k);

/* kc_run_batch, with kc_fail's cycle offset cleared after it: an error outside a batch (an
 * answer, a check) is at the current cycle */
static uint64_t kc_run(KCore *k)
{
    uint64_t next = kc_run_batch(k);
    k->batch_acc = 0;
    return next;
}

static uint64_t kc_run_batch(KCore *k)
{
    const Kernel *K = k->w->prog;
    uint64_t now = kc_now(k), acc = 0;
    for (int budget = 4096; budget > 0 && k->state == KS_RUN; budget--) {
        if (G_UNLIKELY(k->pc < 0 || k->pc >= K->nops)) {
            kc_fail(k, ARCHSIM_EXIT_DATAERR, K->nops - 1, "core%d ran past the last op: end "
                    "the program with halt (or return from every call)", k->id);
            return 0;
        }
        const KernelOp *op = &K->ops[k->pc];
        k->batch_acc = acc;                         /* for kc_fail's cycle */
        switch (op->kind) {
        case KOP_LOAD:
        case KOP_STORE:
        case KOP_TAS:
        case KOP_XCHG:
        case KOP_CAS:
        case KOP_FAA:
        case KOP_LL:
        case KOP_SC:
            if (acc)
                return acc;
            if (k->mm && !k->tx_depth) {            /* tso, pso, weak: the store buffer (a
                                                       transaction's accesses go to the L1) */
                int r = kc_sb_access(k, op, now, &acc);
                if (r == KC_SB_DONE)
                    continue;
                if (r == KC_SB_WAIT)
                    return 0;
            }
            k->ops++;
            kc_issue(k, op);
            return 0;
        case KOP_FENCE:
            if (!k->mm)
                break;                              /* sc: one cycle, below */
            if (acc && op->fence == KFENCE_FULL)
                return acc;
            if (!kc_sb_fence(k, op, now))
                return 0;
            break;
        case KOP_ACQUIRED:
        case KOP_RELEASED:
        case KOP_LOOP:
        case KOP_HALT:
            if (acc)
                return acc;                         /* these happen at their exact cycle */
            if (G_UNLIKELY(k->tx_depth) && op->kind != KOP_LOOP) {
                kc_fail(k, ARCHSIM_EXIT_DATAERR, k->pc, "%s inside a transaction",
                        kernel_ops[op->kind].name);
                return 0;
            }
            if (k->mm && k->n_sb > 0 && op->kind != KOP_LOOP) {
                kc_sb_wait(k, KC_SBW_DRAIN, now);   /* they see this core's stores performed */
                return 0;
            }
            k->ops++;
            if (op->kind == KOP_ACQUIRED)
                kc_acquired(k, now);
            else if (op->kind == KOP_RELEASED)
                kc_released(k, now);
            else if (op->kind == KOP_HALT) {
                kc_halt(k, now);
                return 0;
            } else {
                k->iter++;
                /* an iteration done: the watchdog's progress; inside a transaction not yet (an
                 * abort takes it back, and a loop in one that always aborts ran forever) */
                if (!k->tx_depth)
                    sim_progress(k->base.eng);
                bool more = (k->p.iterations == 0 || k->iter < k->p.iterations) &&
                            (k->p.duration == 0 || now < k->p.duration);
                if (more) {
                    k->pc = op->target;
                    continue;
                }
            }
            k->pc++;
            continue;
        case KOP_XBEGIN:
        case KOP_XEND:
        case KOP_XABORT:
            if (acc)
                return acc;                         /* at their exact cycle */
            if (k->mm && k->n_sb > 0 && !k->tx_depth) {
                kc_sb_wait(k, KC_SBW_DRAIN, now);   /* xbegin is a full fence */
                return 0;
            }
            if (kc_tx_op(k, op, now))
                continue;
            return 0;
        case KOP_DELAY: {
            int64_t d = kv(k, &op->v[0]), j = op->nvals > 1 ? kv(k, &op->v[1]) : 0;
            uint64_t cyc = (d > 0 ? (uint64_t)d : 0) +
                           (j > 0 ? sim_rng_below(&k->base.rng, (uint64_t)j + 1) : 0);
            if (__builtin_add_overflow(acc, cyc, &acc)) {    /* it wrapped to a short wait */
                kc_fail(k, ARCHSIM_EXIT_DATAERR, k->pc, "delays add up past 2^64 cycles");
                return 0;
            }
            k->delay_cycles += cyc;
            k->ops++;
            k->pc++;
            continue;
        }
        default:
            break;
        }
        k->ops++;
        acc += k->p.alu_latency;
        switch (op->kind) {
        case KOP_BEQ:
        case KOP_BNE:
        case KOP_BLT:
        case KOP_BGE:
            k->pc = kc_branch_taken(op->kind, kv(k, &op->v[0]), kv(k, &op->v[1])) ? op->target
                                                                                   : k->pc + 1;
            break;
        case KOP_JMP:
            k->pc = op->target;
            break;
        case KOP_XTEST:
            k->val[op->rd] = k->tx_depth > 0;
            k->pc++;
            break;
        case KOP_CALL:
            if (k->sp == KC_STACK) {
                kc_fail(k, ARCHSIM_EXIT_DATAERR, k->pc, "calls nest deeper than %d", KC_STACK);
                return 0;
            }
            k->stack[k->sp++] = k->pc + 1;
            k->pc = op->target;
            break;
        case KOP_RET:
            if (k->sp == 0) {
                kc_fail(k, ARCHSIM_EXIT_DATAERR, k->pc, "ret without a call");
                return 0;
            }
            k->pc = k->stack[--k->sp];
            break;
        case KOP_FENCE:
        case KOP_NOP:
            k->pc++;
            break;
        default: {
            bool ok = true;
            int64_t r = kc_alu(k, op->kind, kv(k, &op->v[0]),
                               op->nvals > 1 ? kv(k, &op->v[1]) : 0, &ok);
            if (!ok)
                return 0;
            k->val[op->rd] = r;
            k->pc++;
            break;
        }
        }
    }
    if (k->state != KS_RUN)
        return 0;
    return acc ? acc : 1;                           /* out of budget: let time pass */
}

/* The start of the program (after any initial data). */
static void kc_begin(KCore *k)
{
    k->state = KS_RUN;
    k->pc = k->w->prog->entry;
    k->run_at = kc_now(k);
    sim_component_wake(&k->base);
}

static void kc_init_next(KCore *k)
{
    KcWorld *w = k->w;
    GArray *in = w->prog->inits;
    if (k->next_item < in->len) {
        const KernelInit *x = &g_array_index(in, KernelInit, k->next_item);
        Msg *m = kc_msg(k, MSG_WRITE_REQ, x->addr);
        mem_msg(m)->value = (uint64_t)x->value;
        kc_send(k, m, KS_INIT, -1, 0);
        return;
    }
    w->init_done = true;
    for (int i = 0; i < w->ncores; i++) {
        KCore *o = (KCore *)w->cores[i];
        if (o->state == KS_WAIT_INIT || o == k)
            kc_begin(o);
    }
}

static void kc_check_next(KCore *k)
{
    const Kernel *K = k->w->prog;
    if (k->next_item < K->expects->len) {
        const KernelExpect *e = &g_array_index(K->expects, KernelExpect, k->next_item);
        kc_send(k, kc_msg(k, MSG_READ_REQ, e->addr), KS_CHECK, -1, 0);
        return;
    }
    k->state = KS_HALTED;
}

static void kc_check_value(KCore *k, int64_t got)
{
    const Kernel *K = k->w->prog;
    const KernelExpect *e = &g_array_index(K->expects, KernelExpect, k->next_item);
    int64_t want = 0;
    char *problem = NULL;
    if (!kernel_eval_expect(K, e, k->w->acquisitions, &want, &problem)) {
        kc_fail(k, ARCHSIM_EXIT_CONFIG, -1, "%s", problem);
        g_free(problem);
        return;
    }
    if (got != want) {
        kc_fail(k, ARCHSIM_EXIT_CHECK, -1, "%s:%u:%u: check failed: %s = %" G_GINT64_FORMAT
                ", expected %" G_GINT64_FORMAT " (%s)",
                (const char *)g_ptr_array_index(K->files, e->src), e->line, e->col, e->what, got,
                want, e->expr);
        return;
    }
    k->next_item++;
    kc_check_next(k);
}

/* The L1 answered the op at mem_op. */
static void kc_done(KCore *k, Msg *m, uint64_t now)
{
    const Kernel *K = k->w->prog;
    const KernelOp *op = &K->ops[k->mem_op];
    const char *cache = k->dc->peer->owner->name;
    uint64_t lat = now - k->issued_at;
    k->mem_cycles += lat;
    int64_t old = (int64_t)mem_msg(m)->value;
    switch (op->kind) {
    case KOP_LOAD:
    case KOP_LL:
        k->val[op->rd] = old;
        SIM_TRACE_AT(&k->base, k->issued_at, "load", lat, TARG_X("addr", k->mem_addr),
                     TARG_I("value", old), TARG_S("cache", cache));
        break;
    case KOP_STORE:
        SIM_TRACE_AT(&k->base, k->issued_at, "store", lat, TARG_X("addr", k->mem_addr),
                     TARG_I("value", k->mem_val), TARG_S("cache", cache));
        break;
    default: {
        bool done = mem_msg(m)->arg != 0;
        int64_t nv = k->mem_val;
        if (op->kind == KOP_SC) {
            k->val[op->rd] = done ? 1 : 0;
            k->sc_fail += !done;
        } else {
            k->val[op->rd] = old;
            if (op->kind == KOP_CAS) {
                k->cas_fail += !done;
                nv = done ? kv(k, &op->v[1]) : old;
            } else if (op->kind == KOP_FAA) {
                nv = (int64_t)((uint64_t)old + (uint64_t)k->mem_val);
            } else if (op->kind == KOP_TAS) {
                nv = 1;
            }
        }
        if (op->kind != KOP_SC || done)
            SIM_TRACE_AT(&k->base, k->issued_at, "store", lat, TARG_X("addr", k->mem_addr),
                         TARG_I("value", nv), TARG_S("cache", cache), TARG_I("old", old),
                         TARG_S("rmw", kernel_ops[op->kind].name));
        else
            SIM_TRACE_AT(&k->base, k->issued_at, "sc_fail", lat, TARG_X("addr", k->mem_addr),
                         TARG_S("cache", cache));
        break;
    }
    }
    k->state = KS_RUN;
    kc_trace_hold(k);
    k->pc = k->mem_op + 1;
    /* a spinning load that will loop again: sleep on the line */
    if (op->spin && k->p.spin_elision && k->n_sb == 0 && !k->tx_depth) {   /* (a buffered store may drain) */
        const KernelOp *b = &K->ops[k->pc];
        if (kc_branch_taken(b->kind, kv(k, &b->v[0]), kv(k, &b->v[1]))) {
            k->ops++;                               /* the branch */
            k->pc = b->target;
            k->spin_t0 = now + k->p.alu_latency;    /* when the next load would go */
            k->spin_waits++;
            Msg *w = kc_msg(k, MSG_READ_REQ, k->mem_addr);
            w->flags = MSG_F_WATCH;
            mem_msg(w)->arg = (uint64_t)old;
            kc_send(k, w, KS_WATCH, k->pc, k->p.alu_latency);
            return;
        }
    }
}

/* The watch answered: the line may have changed. Resume at the first iteration boundary. */
static uint64_t kc_woken(KCore *k, uint64_t now)
{
    uint64_t t0 = k->spin_t0, P = k->hit_latency + k->p.alu_latency;
    uint64_t iters = now > t0 ? (now - t0 + P - 1) / P : 0;
    k->spin_elided += iters;
    k->ops += 2 * iters;
    k->state = KS_RUN;
    uint64_t next = t0 + iters * P;
    return next > now ? next - now : 0;
}

/* Under a model the one tick serves two clocks: the core's (run_at) and the drains' (entries
 * that become ready); returns the cycles until the earlier of them, 0 for none. */
static uint64_t kc_sb_step(KCore *k)
{
    uint64_t now = kc_now(k), next = 0;
    kc_sb_pump(k, now);                             /* drains first: same cycle, before loads */
    if (k->state == KS_RUN && now >= k->run_at) {
        next = kc_run(k);
        k->run_at = now + next;
    } else if (k->state == KS_RUN) {
        next = k->run_at - now;
    }
    uint64_t d = kc_sb_pump(k, now);
    return d && (!next || d < next) ? d : next;
}

static uint64_t kc_tick(Component *c)
{
    KCore *k = (KCore *)c;
    if (k->mm)
        return kc_sb_step(k);
    if (k->state != KS_RUN)
        return 0;
    return kc_run(k);
}

static void kc_recv(Component *c, Port *port, Msg *m)
{
    KCore *k = (KCore *)c;
    (void)port;
    uint64_t now = kc_now(k);
    uint64_t wait = 0;
    if (k->mm && mem_msg(m)->tag == KC_TAG_DRAIN) {
        sim_msg_free(c->sim, m);
        kc_sb_drained(k, now);
        uint64_t next = kc_sb_step(k);
        if (next)
            sim_component_wake_in(c, next);
        return;
    }
    if (G_UNLIKELY(mem_msg(m)->tag & KC_TAG_TX)) {
        bool access = m->cmd == MSG_READ_RESP || m->cmd == MSG_WRITE_RESP;
        bool current = k->tx_depth && mem_msg(m)->tag == (KC_TAG_TX | k->tx_num) &&
                       !(m->flags & MSG_F_TX_STALE);
        if (!access || !current) {                  /* begun, committed, aborted, or stale */
            bool go = kc_tx_answer(k, m, now);
            sim_msg_free(c->sim, m);
            if (!go)
                return;
            goto resume;
        }
    }
    switch (k->state) {
    case KS_MEM:
        kc_done(k, m, now);
        break;
    case KS_WATCH:
        wait = kc_woken(k, now);
        break;
    case KS_INIT:
        k->next_item++;
        sim_msg_free(c->sim, m);
        kc_init_next(k);
        return;
    case KS_CHECK: {
        int64_t v = (int64_t)mem_msg(m)->value;
        sim_msg_free(c->sim, m);
        kc_check_value(k, v);
        return;
    }
    default:
        g_error("%s: an answer from the L1 while %s", c->name, kc_state_names[k->state]);
    }
    sim_msg_free(c->sim, m);
resume:
    if (k->mm) {
        k->run_at = now + wait;
        uint64_t next = kc_sb_step(k);
        if (next)
            sim_component_wake_in(c, next);
        return;
    }
    if (k->state != KS_RUN)
        return;
    if (wait) {
        sim_component_wake_in(c, wait);
        return;
    }
    uint64_t next = kc_run(k);
    if (next)
        sim_component_wake_in(c, next);
}

/* ---- class ---------------------------------------------------------------------------------- */

static KCore *kc_owner(Component *c)
{
    for (guint i = 0; i < c->sim->components->len; i++) {
        Component *o = g_ptr_array_index(c->sim->components, i);
        if (o->cls == &kernel_core_class)
            return (KCore *)o;
    }
    g_assert_not_reached();
}

static bool kc_make_world(KCore *k, GError **error)
{
    Component *c = &k->base;
    int n = 0;
    for (guint i = 0; i < c->sim->components->len; i++)
        n += ((Component *)g_ptr_array_index(c->sim->components, i))->cls == &kernel_core_class;
    uint64_t line = 64;
    if (!sim_component_param_u64(k->dc->peer->owner, "line", &line) || line < 8)
        line = 64;
    const KcParams *p = &k->p;
    int given = (p->kernel != 0) + (p->kernel_file != NULL) + (p->program != NULL);
    if (given != 1) {
        return sim_component_reject(c, sim_component_first_set(c, "kernel", "kernel_file",
                                                               "program", NULL),
                                    error, "give exactly one of kernel (a built-in: tas, ttas, "
                                    "ttas-backoff, ticket, anderson, mcs, clh, llsc), kernel_file "
                                    "or program");
    }
    if (p->iterations == 0 && p->duration == 0) {
        return sim_component_reject(c, sim_component_first_set(c, "iterations", "duration",
                                                               NULL),
                                    error, "iterations and duration are both 0: `loop` would "
                                    "never end");
    }
    if (p->backoff_min > p->backoff_max) {
        return sim_component_reject(c, sim_component_first_set(c, "backoff_min", "backoff_max",
                                                               NULL),
                                    error, "backoff_min (%" G_GUINT64_FORMAT ") is above "
                                    "backoff_max (%" G_GUINT64_FORMAT ")", p->backoff_min,
                                    p->backoff_max);
    }
    KernelSource src = { 0 };
    char *text = NULL, *fname = NULL;
    if (p->kernel) {
        const KernelBuiltin *b = kernel_builtin_find(kernel_builtin_names[p->kernel]);
        g_assert(b);
        fname = g_strdup_printf("<builtin %s>", b->name);
        src = (KernelSource){ fname, b->text };
    } else if (p->kernel_file) {
        /* A regular file of at most 1 MiB: a FIFO blocked, /dev/zero filled memory. The helper's
         * messages start with the path, which this one already names. */
        GError *e = NULL;
        GString *buf = g_string_new(NULL);
        if (!sim_read_regular(p->kernel_file, 1u << 20, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                              buf, &e)) {
            size_t skip =
                g_str_has_prefix(e->message, p->kernel_file) ? strlen(p->kernel_file) + 2 : 0;
            g_set_error(error, ARCHSIM_CONFIG_ERROR, e->code, "%s: cannot read kernel_file: %s",
                        p->kernel_file, e->message + skip);
            g_error_free(e);
            g_string_free(buf, TRUE);
            /* placed at kernel_file's own value (a --set names the --set) */
            return sim_component_prefix_error(c, "kernel_file", error);
        }
        const char *nul = memchr(buf->str, '\0', buf->len);
        if (nul != NULL) {
            /* the text is read as a C string: the rest of the file would be dropped unread */
            uint64_t line_no = 1, col = 1;
            for (const char *q = buf->str; q < nul; q++, col++)
                if (*q == '\n')
                    line_no++, col = 0;
            g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                        "%s:%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT ": a NUL byte: not a text "
                        "file", p->kernel_file, line_no, col);
            g_string_free(buf, TRUE);
            return false;
        }
        text = g_string_free(buf, FALSE);
        src = (KernelSource){ p->kernel_file, text };
    } else {
        src = (KernelSource){ "core.program", p->program };
    }
    int64_t env[KN_COUNT] = {
        [KN_N] = n, [KN_ITERATIONS] = (int64_t)p->iterations, [KN_CS] = (int64_t)p->cs,
        [KN_OUTSIDE] = (int64_t)p->outside, [KN_JITTER] = (int64_t)p->jitter,
        [KN_BACKOFF_MIN] = (int64_t)p->backoff_min, [KN_BACKOFF_MAX] = (int64_t)p->backoff_max,
        [KN_SIZE] = (int64_t)p->size,
    };
    Kernel *prog = kernel_parse(&src, 1, env, (p->base + line - 1) & ~(line - 1), line, error);
    g_free(text);
    g_free(fname);
    if (!prog)      /* under the key that gave the program: its file, --set or section */
        return sim_component_prefix_error(c, p->kernel ? "kernel" : p->kernel_file ? "kernel_file"
                                                                                  : "program",
                                          error);
    KcWorld *w = g_new0(KcWorld, 1);
    w->refs = 1;
    w->prog = prog;
    w->ncores = n;
    w->cores = g_new0(Component *, (size_t)n);
    w->holder = w->last_releaser = -1;
    w->init_done = prog->inits->len == 0;
    k->w = w;
    return true;
}

static bool kc_realize(Component *c, GError **error)
{
    KCore *k = (KCore *)c;
    k->dc = sim_port(c, "dcache", 0);
    if (!k->dc) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "dcache is not "
                    "connected");
        return false;
    }
    KCore *owner = kc_owner(c);
    if (owner == k) {
        if (!kc_make_world(k, error))
            return false;
        /* a transaction needs an L1 that keeps transactional state (the snooping coherent
         * cache: its htm_* parameters); refused here, so that validate says it too (the
         * directory L1 failed the run at the first xbegin, with no place) */
        const Component *l1 = k->dc->peer->owner;
        bool htm = false;
        for (const ParamSpec *s = l1->cls->params; s && s->name && !htm; s++)
            htm = strcmp(s->name, "htm_conflict") == 0;
        for (int i = 0; !htm && i < k->w->prog->nops; i++) {
            int kind = k->w->prog->ops[i].kind;
            if (kind == KOP_XBEGIN || kind == KOP_XEND || kind == KOP_XABORT || kind == KOP_XTEST) {
                char *where = kernel_op_where(k->w->prog, i);
                sim_component_reject(c, k->p.kernel ? "kernel" : k->p.kernel_file ? "kernel_file"
                                                                                  : "program",
                                     error, "%s: %s is a hardware transaction, and %s (%s) keeps "
                                     "no transactional state; hint: the snooping machine "
                                     "(system.type: smp) has them", where,
                                     kernel_ops[kind].name, l1->name, l1->cls->name);
                g_free(where);
                return false;
            }
        }
    } else {
        if (!owner->w) {
            g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s has no program",
                        owner->base.name);
            return false;
        }
        k->w = owner->w;
        k->w->refs++;
    }
    k->id = c->index >= 0 ? c->index : 0;
    g_assert(k->id < k->w->ncores && !k->w->cores[k->id]);
    k->w->cores[k->id] = c;
    for (int i = 0; i < KN_COUNT; i++)
        k->val[KERNEL_NREGS + i] = k->w->prog->env[i];
    k->val[KERNEL_NREGS + KN_ID] = k->id;
    k->mem_op = -1;
    k->mm = k->p.model != MM_SC ? &mem_models[k->p.model] : NULL;
    if (!sim_component_param_u64(k->dc->peer->owner, "hit_latency", &k->hit_latency))
        k->hit_latency = 1;
    return true;
}

static void kc_start(Component *c)
{
    KCore *k = (KCore *)c;
    if (k->w->init_done)
        kc_begin(k);
    else if (k->id == 0)
        kc_init_next(k);
    else
        k->state = KS_WAIT_INIT;
}

static bool kc_busy(const Component *c)
{
    int s = KC(c)->state;
    return s != KS_HALTED && s != KS_IDLE;
}

static double kc_progress(const Component *c)
{
    const KCore *k = KC(c);
    if (k->state == KS_HALTED)
        return 1.0;
    if (k->p.iterations)
        return MIN(1.0, (double)k->iter / (double)k->p.iterations);
    return MIN(1.0, kc_now_cycles(c) / (double)k->p.duration);
}

static void kc_dump(Component *c, GString *out)
{
    KCore *k = (KCore *)c;
    const Kernel *K = k->w ? k->w->prog : NULL;
    g_string_append_printf(out, "  %s, iteration %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                           " acquisitions\n", kc_state_names[k->state], k->iter, k->acquisitions);
    if (!K)
        return;
    if (k->state != KS_HALTED && k->pc >= 0 && k->pc < K->nops) {
        char *where = kernel_op_where(K, k->pc);
        g_string_append_printf(out, "  at %s (%s)\n", where, kernel_ops[K->ops[k->pc].kind].name);
        g_free(where);
    }
    if (k->state == KS_MEM || k->state == KS_WATCH || k->state == KS_INIT ||
        k->state == KS_CHECK)
        g_string_append_printf(out, "  access to 0x%" G_GINT64_MODIFIER "x sent at cycle %"
                               G_GUINT64_FORMAT "\n", k->mem_addr, k->issued_at);
    if (k->mm) {
        g_string_append_printf(out, "  model %s, store buffer %d/%" G_GUINT64_FORMAT ":",
                               k->mm->name, k->n_sb, k->p.store_buffer);
        for (int i = 0; i < k->n_sb; i++)
            g_string_append_printf(out, " 0x%" G_GINT64_MODIFIER "x=%" G_GINT64_FORMAT "%s",
                                   k->sb[i].addr, k->sb[i].val, k->sb[i].sent ? " (draining)"
                                                                              : "");
        g_string_append_c(out, '\n');
    }
    g_string_append(out, "  registers:");
    for (int r = 0; r < KERNEL_NREGS; r++)
        if (k->val[r])
            g_string_append_printf(out, " r%d=%" G_GINT64_FORMAT, r, k->val[r]);
    g_string_append_c(out, '\n');
    if (k->id == 0 && k->w->holder >= 0)
        g_string_append_printf(out, "  the lock: held by core%d since cycle %" G_GUINT64_FORMAT
                               "\n", k->w->holder, k->w->held_since);
}

static void kc_finalize(Component *c)
{
    KCore *k = (KCore *)c;
    KcWorld *w = k->w;
    if (!w || --w->refs > 0)
        return;
    kernel_free(w->prog);
    g_free(w->cores);
    g_free(w);
}

/* A statistic of another component by name, through its declared table (counters and
 * formulas): the traffic of the run, whichever interconnect it has. */
static bool kc_peek(Component *c, const char *name, double *out)
{
    return sim_component_stat(c, name, out);
}

/* The store buffer's statistics, only under a model (model sc's stats stay as they were). */
static void kc_sb_stats(const KCore *k, StatSet *out)
{
    if (!k->mm)
        return;
    static const StatCounterDef ctr[] = {
        { "forwarded_loads", "count", "loads served by the youngest buffered store to their word",
          offsetof(KCore, forwarded) },
        { "store_buffer_full_cycles", "cycle", "cycles stores waited for a free entry",
          offsetof(KCore, sb_full_cycles) },
        { "fence_wait_cycles", "cycle", "cycles full fences waited for the buffer to drain",
          offsetof(KCore, fence_wait_cycles) },
        { "drain_wait_cycles", "cycle", "cycles atomics, LL/SC, acquired, released and halt "
          "waited for the buffer to drain", offsetof(KCore, drain_wait_cycles) },
        { "drains_reordered", "count", "stores drained while an older one was still buffered "
          "(pso, weak)", offsetof(KCore, drains_reordered) },
    };
    const char *name = k->base.name;
    stats_add_counters(out, name, k, ctr, G_N_ELEMENTS(ctr));
    char *n = g_strdup_printf("%s.sb_occupancy", name);
    stats_add_hist(out, n, &k->sb_occ, "count",
                   "stores in the store buffer when a store enters it (itself included)");
    g_free(n);
}

/* The lock experiment's system-wide figures (once, from core 0): locks.* */
/* Transaction counts, only for cores that began one (runs without HTM keep their stats). */
static void kc_tx_stats(const KCore *k, StatSet *out)
{
    if (!k->tx_begins)
        return;
    static const StatCounterDef t[] = {
        { "tx_begins", "count", "transactions begun (outermost xbegin)", offsetof(KCore, tx_begins) },
        { "tx_commits", "count", "transactions committed", offsetof(KCore, tx_commits) },
        { "tx_aborts", "count", "transactions aborted (the L1 counts them by reason)",
          offsetof(KCore, tx_aborts) },
        { "tx_retries", "count", "transactions begun right after an abort",
          offsetof(KCore, tx_retries) },
        { "tx_wasted_cycles", "cycle", "cycles from xbegin to the abort, summed",
          offsetof(KCore, tx_wasted) },
        { "tx_committed_cycles", "cycle", "cycles from xbegin to the commit, summed",
          offsetof(KCore, tx_useful) },
    };
    stats_add_counters(out, k->base.name, k, t, G_N_ELEMENTS(t));
}

/* A warm-up or ROI reset: the world's totals are kept (the .expect checks read them) and read
 * from here on relative to this point; its hand-off histogram is emptied. */
static void kc_stats_reset(Component *c)
{
    KCore *k = (KCore *)c;
    KcWorld *w = k->w;
    memset(&k->sb_occ, 0, sizeof k->sb_occ);
    if (k->id != 0 || !w)
        return;
    w->roi_acquisitions = w->acquisitions;
    w->roi_handoffs = w->handoffs;
    w->roi_handoff_cycles = w->handoff_cycles;
    memset(&w->handoff_hist, 0, sizeof w->handoff_hist);
}

static void kc_extra_stats(const Component *c, StatSet *out)
{
    const KCore *k = KC(c);
    const KcWorld *w = k->w;
    kc_sb_stats(k, out);
    kc_tx_stats(k, out);
    if (k->id != 0 || !w || !w->prog->markers)
        return;
    /* after a stats reset: what followed it (the per-core counters are rebased already) */
    uint64_t first = sim_stats_first_cycle(c);
    uint64_t acqs = w->acquisitions - w->roi_acquisitions;
    uint64_t handoffs = w->handoffs - w->roi_handoffs;
    double acq = (double)acqs;
    uint64_t end = w->end_cycle ? w->end_cycle : (uint64_t)kc_now_cycles(c);
    end = end > first ? end - first : 0;
    uint64_t mn = UINT64_MAX, mx = 0;
    for (int i = 0; i < w->ncores; i++) {
        uint64_t a = KC(w->cores[i])->acquisitions;
        mn = MIN(mn, a);
        mx = MAX(mx, a);
    }
    stats_add_u64(out, "locks.acquisitions", acqs, "count",
                  "acquisitions by all cores (acquired markers)");
    stats_add_level(out, "locks.cycles", end, "cycle", "cycle at which the last core halted");
    stats_add_double(out, "locks.acquisitions_per_kcycle", stats_ratio(acq * 1000.0, (double)end),
                     "count", "locks.acquisitions x 1000 / locks.cycles");
    stats_add_u64(out, "locks.handoffs", handoffs, "count",
                  "acquisitions right after another core's release");
    stats_add_double(out, "locks.handoff_cycles", stats_ratio((double)(w->handoff_cycles -
                                                                       w->roi_handoff_cycles),
                                                              (double)handoffs),
                     "cycle", "mean cycles from a release to the next acquisition by another "
                     "core");
    stats_add_hist(out, "locks.handoff_latency", &w->handoff_hist, "cycle",
                   "cycles from a release to the next acquisition by another core");
    stats_add_level(out, "locks.acquisitions_min", mn, "count", "fewest acquisitions of a core");
    stats_add_level(out, "locks.acquisitions_max", mx, "count", "most acquisitions of a core");
    stats_add_double(out, "locks.fairness", stats_ratio((double)mx, (double)mn), "ratio",
                     "locks.acquisitions_max / locks.acquisitions_min (1: fair; 0: a core "
                     "never acquired)");
    Sim *sim = c->sim;
    double v = 0, inval = 0, misses = 0;
    Component *bus = sim_component_find(sim, "bus"), *noc = sim_component_find(sim, "noc");
    if (bus && kc_peek(bus, "transactions", &v))
        stats_add_double(out, "locks.bus_transactions_per_acquire", stats_ratio(v, acq), "count",
                         "bus.transactions / locks.acquisitions (all bus traffic of the run)");
    if (bus && kc_peek(bus, "invalidations", &v))
        inval = v;
    if (noc && kc_peek(noc, "messages", &v))
        stats_add_double(out, "locks.net_messages_per_acquire", stats_ratio(v, acq), "count",
                         "noc.messages / locks.acquisitions (all network traffic of the run)");
    bool have_l1 = false;
    for (int i = 0; i < w->ncores; i++) {
        Component *l1 = KC(w->cores[i])->dc->peer->owner;
        double x = 0;
        if (!bus && kc_peek(l1, "invalidated", &x))
            inval += x;
        if (kc_peek(l1, "misses", &x)) {
            misses += x;
            have_l1 = true;
        }
    }
    stats_add_double(out, "locks.invalidations_per_acquire", stats_ratio(inval, acq), "count",
                     "valid L1 copies invalidated by another cache's write (bus.invalidations, "
                     "or the L1s' invalidated) / locks.acquisitions");
    if (have_l1)
        stats_add_double(out, "locks.misses_per_acquire", stats_ratio(misses, acq), "count",
                         "L1 misses of all cores (upgrades included) / locks.acquisitions");
}

int64_t kernel_core_reg(const Component *c, int reg)
{
    g_assert(c->cls == &kernel_core_class && reg >= 0 && reg < KERNEL_NREGS);
    return KC(c)->val[reg];
}

uint64_t kernel_core_addr(const Component *c, const char *sym, uint64_t index)
{
    g_assert(c->cls == &kernel_core_class);
    const Kernel *K = KC(c)->w->prog;
    int s = kernel_find_sym(K, sym);
    if (s < 0 || index >= K->syms[s].count)
        return UINT64_MAX;
    return K->syms[s].addr + index * K->syms[s].stride;
}

uint64_t kernel_core_acquisitions(const Component *c)
{
    g_assert(c->cls == &kernel_core_class);
    return KC(c)->acquisitions;
}

/* What its trace events mean to the teaching view (`run --teach`). */
static const TeachEvent kernel_teach_events[] = {
    { "load", TEACH_LOAD }, { "store", TEACH_STORE },
    TEACH_EVENTS_END,
};

const ComponentClass kernel_core_class = {
    .name = "kernel-core",
    .doc = "in-order core running a kernel-language program with real values (lock algorithms, "
           "atomics); checks mutual exclusion and .expect values",
    .size = sizeof(KCore),
    .params_offset = offsetof(KCore, p),
    .params = kc_params,
    .ports = kc_ports,
    .stats = kc_stats,
    .realize = kc_realize,
    .start = kc_start,
    .tick = kc_tick,
    .recv = kc_recv,
    .dump = kc_dump,
    .busy = kc_busy,
    .progress = kc_progress,
    .finalize = kc_finalize,
    .extra_stats = kc_extra_stats,
    .stats_reset = kc_stats_reset,
    .check_link = mem_link_line_down,
    .teach_events = kernel_teach_events,
};
