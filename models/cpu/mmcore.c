/* mmcore.c: mm-core, a core that executes one litmus thread under a memory model (memmodel.h;
 * the Primer, 2nd ed., ch. 3-5) against its coherent L1, with randomized timing, so that every
 * reordering the model allows shows up over many runs (models/litmus/simrun.c).
 *
 *   program -> window (the whole thread, in program order); per op:
 *     WAIT --may it go? (below)--> READY --jitter (+ drain: stores)--> SENT --L1 answers--> DONE
 *                              |                                  \-> load whose store is still
 *                              \-> fence, ALU op: DONE at once         buffered: forwarded, DONE
 *
 * An op may go when its register inputs are known and no earlier op that is not DONE holds it
 * back: mm_may_bypass for different locations (LFENCE and SFENCE order only loads or stores, as
 * litmus.h says), never for the same location, except that a load may pass buffered stores to its
 * location when the model forwards: if the latest of them is still unperformed when the load's
 * time comes, the load takes its value; if it has drained, the load reads the L1. MFENCE and
 * locked RMWs neither bypass nor are bypassed. A load performs when the L1's answer arrives; a
 * store when the L1 answers the write: that is when it is visible to every core (multi-copy
 * atomic), so the stores not yet DONE are the store buffer. Same-address order needs nothing
 * more: a later access to a location waits for the earlier one to be DONE, so no location ever
 * has two accesses of one core in flight.
 *
 * Random timing is either independent (log-uniform start delay, send jitter, drain delay per
 * op) or staged (mmcore_set_stage: the run's driver gives the core a slot in a random thread
 * order, and some ops are held until a later slot); only when ops are sent changes, never what
 * may go, so both reach exactly the outcomes the model allows on this machine.
 */
#include "mmcore.h"
#include "../mem/linkcheck.h"
#include "../mem/memmsg.h"

#include <string.h>

#include "../../sim/error.h"

typedef struct {
    uint64_t start_delay, jitter, drain, stagger;
} MmParams;

enum { OPS_WAIT, OPS_READY, OPS_SENT, OPS_DONE };

#define MM_STAGED_JITTER 3         /* staged runs: an op not held is sent 0 .. 3 cycles late */

typedef struct {
    Component base;
    MmParams p;
    Port *dc;
    /* the program */
    const LitThread *th;
    const char *const *names;      /* location names (for traces), or NULL */
    const uint64_t *addr;          /* location -> address */
    const MemModel *mm;
    bool random;
    int n;
    uint8_t st[LIT_MAX_OPS];       /* OPS_* */
    uint8_t kind[LIT_MAX_OPS];     /* MemAccessKind */
    int8_t dep[LIT_MAX_OPS][2];    /* the ops whose results this op reads (-1: none) */
    int8_t dreg[LIT_MAX_OPS][2];   /* ... the registers they give (for initial values) */
    int8_t wreg[LIT_MAX_OPS];      /* register written, -1: none */
    int64_t res[LIT_MAX_OPS];      /* result: value loaded, old value of an RMW, ALU result */
    int64_t val[LIT_MAX_OPS];      /* operand once known: value stored, RMW operand */
    uint64_t ready_at[LIT_MAX_OPS];
    uint64_t sent_at[LIT_MAX_OPS];
    uint64_t sb, fence_wait;       /* bit masks over ops: in the store buffer; fence waiting */
    int first;                     /* first op not DONE */
    int ndone;
    bool running;
    uint64_t start_at, started;
    /* staged timing (mmcore_set_stage): this run's slot in a random thread order, and ops held
       until after every slot ("late": what lets a later op of the thread bypass them) */
    bool staged;
    int slot, nslots;
    unsigned late_pct, split_pct;
    uint64_t holdable;             /* ops some later op of the thread may bypass (the model) */
    uint64_t hold_at[LIT_MAX_OPS]; /* staged: cycle before which the op is not sent; 0: none */
    /* stats */
    uint64_t loads, stores, forwarded, fences, rmws, programs, cycles;
    SimHist sb_occ;
} MmCore;

static const ParamSpec mm_params[] = {
    { .name = "start_delay", .type = PARAM_CYCLES, .def = "256", .flags = PARAM_F_RANGE,
      .min = 0, .max = 1000000, .doc = "independent random timing: the program starts after 0 .. "
      "this many cycles (log-uniform, like every delay here: short and long equally likely per "
      "scale)",
      .offset = offsetof(MmParams, start_delay) },
    { .name = "jitter", .type = PARAM_CYCLES, .def = "64", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1000000, .doc = "independent random timing: an op the model lets go is sent 0 .. "
      "this many cycles later", .offset = offsetof(MmParams, jitter) },
    { .name = "drain", .type = PARAM_CYCLES, .def = "128", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1000000, .doc = "independent random timing: a store waits 0 .. this many more "
      "cycles in the store buffer before it drains to the L1", .offset = offsetof(MmParams, drain) },
    { .name = "stagger", .type = PARAM_CYCLES, .def = "128", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1000000, .doc = "staged random timing: the thread in slot k of the run's random "
      "thread order starts k x this many cycles in; a held op goes in a later slot", .offset =
      offsetof(MmParams, stagger) },
    PARAM_END,
};

static const PortSpec mm_ports[] = {
    { .name = "dcache", .role = PORT_REQUESTER, .required = true, .doc = "loads, stores and locked RMWs" },
    PORT_END,
};

static const StatSpec mm_stats[] = {
    { "programs", STAT_COUNTER, "count", "programs run (litmus runs, setup included)",
      offsetof(MmCore, programs), NULL },
    { "loads", STAT_COUNTER, "count", "loads sent to the L1", offsetof(MmCore, loads), NULL },
    { "stores", STAT_COUNTER, "count", "stores drained to the L1", offsetof(MmCore, stores),
      NULL },
    { "forwarded", STAT_COUNTER, "count", "loads satisfied from the store buffer",
      offsetof(MmCore, forwarded), NULL },
    { "fences", STAT_COUNTER, "count", "fences completed (MFENCE, LFENCE, SFENCE)",
      offsetof(MmCore, fences), NULL },
    { "rmws", STAT_COUNTER, "count", "locked read-modify-writes", offsetof(MmCore, rmws), NULL },
    { "cycles", STAT_COUNTER, "cycle", "cycles from each program's start to its last op, summed",
      offsetof(MmCore, cycles), NULL },
    { "sb_occupancy", STAT_HIST, "count", "stores in the store buffer when a store enters it "
      "(itself included)", offsetof(MmCore, sb_occ), NULL },
    STAT_END,
};

/* ---- the program ------------------------------------------------------------------------- */

static MemAccessKind op_kind(const LitOp *op)
{
    switch (op->kind) {
    case LOP_LOAD:
        return MA_LOAD;
    case LOP_STORE:
        return MA_STORE;
    case LOP_MFENCE:
        return MA_FENCE;
    case LOP_RMW:
        return MA_LOCKED;
    case LOP_ALU:
        return MA_OTHER;
    }
    g_assert_not_reached();
}

/* The register an op writes: a load's destination, an RMW's old value (CMPXCHG: into the
 * compared register, EAX), an ALU result; -1 for none. */
static int op_wreg(const LitOp *op)
{
    switch (op->kind) {
    case LOP_LOAD:
    case LOP_ALU:
        return op->reg;
    case LOP_RMW:
        return op->rmw == LRMW_CMPXCHG ? op->cmp : op->reg;
    default:
        return -1;
    }
}

void mmcore_set_program(Component *c, const LitThread *th, const char *const *loc_names,
                        const uint64_t *loc_addr, const MemModel *m, bool random_timing)
{
    MmCore *k = (MmCore *)c;
    g_assert(c->cls == &mm_core_class && !k->running && th->nops <= LIT_MAX_OPS);
    k->th = th;
    k->names = loc_names;
    k->addr = loc_addr;
    k->mm = m;
    k->random = random_timing;
    k->n = th->nops;
    k->first = k->ndone = 0;
    k->sb = k->fence_wait = 0;
    k->staged = false;
    int last[LIT_MAX_REGS];
    for (int r = 0; r < LIT_MAX_REGS; r++)
        last[r] = -1;
    for (int i = 0; i < k->n; i++) {
        const LitOp *op = &th->ops[i];
        k->st[i] = OPS_WAIT;
        k->kind[i] = (uint8_t)op_kind(op);
        k->res[i] = k->val[i] = 0;
        /* inputs: the stored value / RMW operand / ALU source, the compared register of a
           CMPXCHG, the old value of an ALU destination (all but MOV) */
        int in[2] = { -1, -1 };
        if (op->kind != LOP_LOAD && op->kind != LOP_MFENCE && op->src.is_reg)
            in[0] = op->src.reg;
        if (op->kind == LOP_RMW && op->rmw == LRMW_CMPXCHG)
            in[1] = op->cmp;
        if (op->kind == LOP_ALU && op->alu != LALU_MOV)
            in[1] = op->reg;
        for (int a = 0; a < 2; a++) {
            g_assert(in[a] < LIT_MAX_REGS);
            k->dreg[i][a] = (int8_t)in[a];
            k->dep[i][a] = (int8_t)(in[a] >= 0 ? last[in[a]] : -1);
        }
        int w = op_wreg(op);
        g_assert(w < LIT_MAX_REGS);
        k->wreg[i] = (int8_t)w;
        if (w >= 0)
            last[w] = i;
    }
}

/* An input's value: the producing op's result, or the register's initial value. */
static int64_t in_value(const MmCore *k, int i, int a)
{
    if (k->dep[i][a] >= 0)
        return k->res[k->dep[i][a]];
    return k->dreg[i][a] >= 0 ? k->th->reg_init[k->dreg[i][a]] : 0;
}

static bool inputs_known(const MmCore *k, int i)
{
    return (k->dep[i][0] < 0 || k->st[k->dep[i][0]] == OPS_DONE) &&
           (k->dep[i][1] < 0 || k->st[k->dep[i][1]] == OPS_DONE);
}

static int64_t operand(const MmCore *k, int i)
{
    const LitSrc *s = &k->th->ops[i].src;
    return s->is_reg ? in_value(k, i, 0) : s->imm;
}

static bool is_access(int kind) { return kind == MA_LOAD || kind == MA_STORE || kind == MA_LOCKED; }

/* LFENCE and SFENCE (litprog.h LitFenceKind) order only some kinds: LFENCE waits for earlier
 * loads and holds back every later access, SFENCE orders earlier stores before later stores.
 * Fences and locked ops stay in order with them. `fence_earlier`: f comes before the op of kind
 * k (does f hold k back?), else after it (does f wait for k?). */
static bool partial_fence_orders(const LitOp *f, int k, bool fence_earlier)
{
    if (k == MA_OTHER)
        return false;
    if (k == MA_FENCE || k == MA_LOCKED)
        return true;
    if (f->fence == LFEN_LOAD)
        return fence_earlier || k == MA_LOAD;
    return k == MA_STORE;
}

/* Does the earlier op j, while not performed, keep op i waiting? (The memory model's table;
 * same-location order, forwarding and register inputs are the caller's.) */
static bool holds_back(const MmCore *k, int j, int i)
{
    const LitOp *ops = k->th->ops;
    int kj = k->kind[j], ki = k->kind[i];
    if (kj == MA_FENCE && ops[j].fence != LFEN_FULL)
        return partial_fence_orders(&ops[j], ki, true);
    if (ki == MA_FENCE && ops[i].fence != LFEN_FULL)
        return partial_fence_orders(&ops[i], kj, false);
    return !mm_may_bypass(k->mm, (MemAccessKind)kj, (MemAccessKind)ki);
}

/* The store a load at i would forward from now: the latest earlier store or locked access to
 * its location (loads of it in between are passed over: a store and two loads read it from the
 * buffer twice) when that is a store not yet performed and the model forwards; else -1. The
 * loads in between still go first (may_go). */
static int forward_source(const MmCore *k, int i)
{
    if (k->kind[i] != MA_LOAD || !k->mm->forward)
        return -1;
    const LitOp *ops = k->th->ops;
    for (int j = i - 1; j >= k->first; j--)
        if (is_access(k->kind[j]) && k->kind[j] != MA_LOAD && ops[j].loc == ops[i].loc)
            return k->kind[j] == MA_STORE && k->st[j] != OPS_DONE ? j : -1;
    return -1;
}

/* May op i go now: its register inputs known and no earlier op not yet performed holding it
 * back? A load may go past buffered stores to its own location when it can forward from the
 * latest of them (whose value must be known). */
static bool may_go(const MmCore *k, int i)
{
    if (!inputs_known(k, i))
        return false;
    int ki = k->kind[i];
    if (ki == MA_OTHER)
        return true;
    const LitOp *ops = k->th->ops;
    int loc = ops[i].loc;
    int s = forward_source(k, i);
    if (s >= 0 && !inputs_known(k, s))
        return false;
    for (int j = k->first; j < i; j++) {
        int kj = k->kind[j];
        if (k->st[j] == OPS_DONE || kj == MA_OTHER)
            continue;
        if (is_access(ki) && is_access(kj) && ops[j].loc == loc) {
            if (s >= 0 && j <= s && kj == MA_STORE)
                continue;        /* buffered stores the load forwards past */
            return false;
        }
        if (holds_back(k, j, i))
            return false;
    }
    return true;
}

static const char *loc_name(const MmCore *k, int loc, char *buf, size_t n)
{
    if (k->names && k->names[loc])
        return k->names[loc];
    g_snprintf(buf, n, "0x%" G_GINT64_MODIFIER "x", k->addr[loc]);
    return buf;
}

/* ---- the store buffer: stores retired in program order (every earlier op DONE or itself a
 * buffered store) or already sent, until they drain ---------------------------------------- */
static void sb_update(MmCore *k)
{
    uint64_t sb = 0;
    bool retired = true;
    for (int i = k->first; i < k->n; i++) {
        bool store = k->kind[i] == MA_STORE;
        if (store && k->st[i] != OPS_DONE &&
            ((retired && inputs_known(k, i)) || k->st[i] == OPS_SENT))
            sb |= 1ull << i;
        if (k->st[i] != OPS_DONE && !(store && inputs_known(k, i)))
            retired = false;
    }
    if (sb == k->sb)
        return;
    uint64_t entered = sb & ~k->sb;
    int occ = __builtin_popcountll(sb);
    for (; entered; entered &= entered - 1)
        sim_hist_add(&k->sb_occ, (uint64_t)occ);
    k->sb = sb;
    if (G_LIKELY(k->base.trace_track < 0))
        return;
    GString *s = g_string_new(NULL);
    char buf[32];
    for (int i = k->first; i < k->n; i++)
        if (sb & (1ull << i))
            g_string_append_printf(s, "%s[%s]=%" G_GINT64_FORMAT, s->len ? " " : "",
                                   loc_name(k, k->th->ops[i].loc, buf, sizeof buf),
                                   operand(k, i));
    SIM_TRACE(&k->base, "sb", 0, TARG_S("entries", s->len ? s->str : "(empty)"),
              TARG_U("n", occ));
    g_string_free(s, TRUE);
}

/* ---- execution ----------------------------------------------------------------------------- */

static void op_done(MmCore *k, int i)
{
    k->st[i] = OPS_DONE;
    k->ndone++;
    while (k->first < k->n && k->st[k->first] == OPS_DONE)
        k->first++;
}

static int64_t alu(LitAluKind a, int64_t x, int64_t y)
{
    switch (a) {
    case LALU_MOV:
        return y;
    case LALU_ADD:
        return (int64_t)((uint64_t)x + (uint64_t)y);
    case LALU_SUB:
        return (int64_t)((uint64_t)x - (uint64_t)y);
    case LALU_XOR:
        return x ^ y;
    case LALU_AND:
        return x & y;
    case LALU_OR:
        return x | y;
    }
    g_assert_not_reached();
}

/* A random delay in 0 .. max cycles, log-uniform (a random bit length, then uniform below it):
 * short delays are as likely as long ones at every scale, so both "at once" and "after the
 * other threads have finished" happen often, and every interleaving shows up in few runs. */
static uint64_t rand_delay(SimRng *rng, uint64_t max)
{
    if (max == 0)
        return 0;
    unsigned bits = 64 - (unsigned)__builtin_clzll(max);
    unsigned b = (unsigned)sim_rng_below(rng, bits + 1);
    uint64_t lim = b >= 64 ? max : MIN((1ull << b) - 1, max);
    return sim_rng_below(rng, lim + 1);
}

/* Time order of the dump: the oldest access in flight is the earliest "load"/"store" this core
 * may still report (SIM_TRACE_HOLD). */
static void mm_trace_hold(MmCore *k)
{
    uint64_t since = UINT64_MAX;
    for (int i = 0; i < k->n; i++)
        if (k->st[i] == OPS_SENT && k->sent_at[i] < since)
            since = k->sent_at[i];
    SIM_TRACE_HOLD(&k->base, since);
}

static void send(MmCore *k, int i, uint64_t now)
{
    Component *c = &k->base;
    const LitOp *op = &k->th->ops[i];
    Msg *m = sim_msg_alloc(c->sim);
    mem_msg(m)->addr = k->addr[op->loc];
    m->size = 8;
    mem_msg(m)->tag = (uint64_t)i;
    m->issued = c->eng->now;
    m->flags = 0;
    if (op->kind == LOP_LOAD) {
        m->cmd = MSG_READ_REQ;
        mem_msg(m)->value = 0;
        k->loads++;
    } else {
        m->cmd = MSG_WRITE_REQ;
        mem_msg(m)->value = (uint64_t)k->val[i];
        if (op->kind == LOP_RMW) {
            static const unsigned rmw_op[] = { [LRMW_XCHG] = MSG_RMW_XCHG,
                                               [LRMW_ADD] = MSG_RMW_ADD,
                                               [LRMW_CMPXCHG] = MSG_RMW_CMPXCHG };
            m->flags = MSG_RMW_FLAGS(rmw_op[op->rmw]);
            mem_msg(m)->arg = op->rmw == LRMW_CMPXCHG ? (uint64_t)in_value(k, i, 1) : 0;
            k->rmws++;
        } else {
            k->stores++;
        }
    }
    k->st[i] = OPS_SENT;
    k->sent_at[i] = now;
    mm_trace_hold(k);
    sim_port_send(c, k->dc, m, 0);
}

/* Completes what can complete at once and sends what is due; returns the cycles until the next
 * send is due, 0 when only answers from the L1 can make progress. */
static uint64_t advance(MmCore *k)
{
    Component *c = &k->base;
    uint64_t now = sim_component_cycle(c);
    if (!k->running)
        return 0;
    if (now < k->start_at)
        return k->start_at - now;
    const LitOp *ops = k->th->ops;
    uint64_t next = UINT64_MAX;
    char buf[32];
    sb_update(k);                    /* stores that retired since: traced before what follows */
    bool again = true;
    while (again) {
        again = false;
        bool all_issued = true;      /* every earlier op is at least READY (fence "reached") */
        for (int i = k->first; i < k->n; i++) {
            if (k->st[i] == OPS_WAIT && may_go(k, i)) {
                if (k->kind[i] == MA_OTHER) {
                    k->res[i] = alu(ops[i].alu, in_value(k, i, 1), operand(k, i));
                    op_done(k, i);
                    again = true;
                } else if (k->kind[i] == MA_FENCE) {
                    k->fences++;
                    SIM_TRACE(c, "fence", 0, TARG_S("what", "done"),
                              TARG_S("insn", ops[i].text ? ops[i].text : "MFENCE"));
                    k->fence_wait &= ~(1ull << i);
                    op_done(k, i);
                    again = true;
                } else {
                    k->val[i] = operand(k, i);
                    uint64_t d = 0;
                    if (k->random && k->staged) {
                        d = sim_rng_below(&c->rng, MM_STAGED_JITTER + 1);
                        if (k->hold_at[i] > now + d)
                            d = k->hold_at[i] - now;
                    } else if (k->random) {
                        d = rand_delay(&c->rng, k->p.jitter);
                        if (k->kind[i] == MA_STORE)
                            d += rand_delay(&c->rng, k->p.drain);
                    }
                    k->ready_at[i] = now + d;
                    k->st[i] = OPS_READY;
                }
            } else if (k->st[i] == OPS_WAIT && k->kind[i] == MA_FENCE && all_issued &&
                       !(k->fence_wait & (1ull << i))) {
                k->fence_wait |= 1ull << i;
                int pending = 0;
                for (int j = k->first; j < i; j++)
                    pending += k->st[j] != OPS_DONE && holds_back(k, j, i);
                SIM_TRACE(c, "fence", 0, TARG_S("what", "wait"), TARG_U("pending", pending),
                          TARG_S("insn", ops[i].text ? ops[i].text : "MFENCE"));
            }
            if (k->st[i] == OPS_READY && k->ready_at[i] <= now) {
                /* a load whose store is still buffered when its time comes takes its value;
                   once the store has drained it reads the L1 like any other */
                int fwd = forward_source(k, i);
                if (fwd >= 0) {
                    k->res[i] = operand(k, fwd);
                    k->forwarded++;
                    SIM_TRACE(c, "forward", 0,
                              TARG_S("loc", loc_name(k, ops[i].loc, buf, sizeof buf)),
                              TARG_X("addr", k->addr[ops[i].loc]), TARG_I("value", k->res[i]));
                    op_done(k, i);
                    sim_progress(c->eng);
                    again = true;
                } else {
                    send(k, i, now);
                }
            } else if (k->st[i] == OPS_READY && k->ready_at[i] < next) {
                next = k->ready_at[i];
            }
            if (k->st[i] == OPS_WAIT)
                all_issued = false;
        }
    }
    sb_update(k);
    if (k->ndone == k->n) {
        k->running = false;
        k->cycles += now - k->started;
        return 0;
    }
    return next == UINT64_MAX ? 0 : next - now;
}

static uint64_t mm_tick(Component *c) { return advance((MmCore *)c); }

static void mm_recv(Component *c, Port *port, Msg *m)
{
    MmCore *k = (MmCore *)c;
    (void)port;
    int i = (int)mem_msg(m)->tag;
    g_assert(k->running && i < k->n && k->st[i] == OPS_SENT);
    const LitOp *op = &k->th->ops[i];
    uint64_t now = sim_component_cycle(c);
    char buf[32];
    const char *name = loc_name(k, op->loc, buf, sizeof buf);
    uint64_t a = k->addr[op->loc];
    const char *cache = k->dc->peer->owner->name;
    if (op->kind == LOP_LOAD) {
        k->res[i] = (int64_t)mem_msg(m)->value;
        SIM_TRACE_AT(c, k->sent_at[i], "load", now - k->sent_at[i], TARG_X("addr", a),
                     TARG_I("value", k->res[i]), TARG_S("cache", cache), TARG_S("loc", name));
    } else if (op->kind == LOP_STORE) {
        SIM_TRACE_AT(c, k->sent_at[i], "store", now - k->sent_at[i], TARG_X("addr", a),
                     TARG_I("value", k->val[i]), TARG_S("cache", cache), TARG_S("loc", name));
        SIM_TRACE(c, "drain", 0, TARG_S("loc", name), TARG_X("addr", a),
                  TARG_I("value", k->val[i]));
    } else {
        k->res[i] = (int64_t)mem_msg(m)->value;
        /* the value memory holds now, for the teaching table's store row */
        int64_t nv = op->rmw == LRMW_ADD ? (int64_t)(mem_msg(m)->value + (uint64_t)k->val[i])
                     : mem_msg(m)->arg         ? k->val[i]
                                         : k->res[i];
        SIM_TRACE_AT(c, k->sent_at[i], "store", now - k->sent_at[i], TARG_X("addr", a),
                     TARG_I("value", nv), TARG_S("cache", cache), TARG_S("loc", name),
                     TARG_I("old", k->res[i]), TARG_S("rmw", op->text ? op->text : "RMW"));
    }
    sim_msg_free(c->sim, m);
    sim_progress(c->eng);
    op_done(k, i);
    mm_trace_hold(k);
    uint64_t next = advance(k);
    if (next > 0)
        sim_component_wake_in(c, next);
}

/* ---- API ------------------------------------------------------------------------------------ */

void mmcore_start(Component *c)
{
    MmCore *k = (MmCore *)c;
    g_assert(c->cls == &mm_core_class && k->th && !k->running);
    uint64_t now = sim_component_cycle(c);
    k->running = k->n > 0;
    k->programs++;
    k->started = now;
    if (k->random && k->staged) {
        k->start_at = now + (uint64_t)k->slot * k->p.stagger +
                      sim_rng_below(&c->rng, MM_STAGED_JITTER + 1);
        for (int i = 0; i < k->n; i++) {
            k->hold_at[i] = 0;
            if (!is_access(k->kind[i]))
                continue;
            bool by = k->holdable >> i & 1;
            if (sim_rng_below(&c->rng, 100) >= (by ? k->late_pct : k->split_pct))
                continue;
            /* a later slot: after every slot (half the time for a bypassable op), else one of
               the later threads' slots, so the op lands between their accesses */
            uint64_t later = (uint64_t)(k->nslots - k->slot);
            uint64_t to = by && sim_rng_below(&c->rng, 2) ? (uint64_t)k->nslots
                          : (uint64_t)k->slot + 1 + sim_rng_below(&c->rng, later);
            k->hold_at[i] = now + to * k->p.stagger + sim_rng_below(&c->rng, k->p.stagger);
        }
    } else {
        k->start_at = now + (k->random ? rand_delay(&c->rng, k->p.start_delay) : 0);
    }
    if (k->running)
        sim_component_wake(c);
}

/* May some later op of the thread perform while op j has not (the model's table, forwarding
 * from a buffered store, fences in between)? Only such ops are worth holding back: holding any
 * other one just delays the whole thread, which the slot already does. */
static bool mm_bypassable(const MmCore *k, int j)
{
    const LitOp *ops = k->th->ops;
    int kj = k->kind[j];
    if (kj != MA_LOAD && kj != MA_STORE)
        return false;
    for (int i = j + 1; i < k->n; i++) {
        int ki = k->kind[i];
        if (ki == MA_OTHER || k->dep[i][0] == j || k->dep[i][1] == j)
            continue;
        if (ki == MA_FENCE || ki == MA_LOCKED) {
            if (holds_back(k, j, i))
                return false;            /* it waits for j, and everything after it waits too */
            continue;
        }
        if (ops[i].loc == ops[j].loc) {
            if (kj == MA_STORE && ki == MA_LOAD && k->mm->forward)
                return true;             /* the load forwards from j in the store buffer */
            continue;
        }
        if (!holds_back(k, j, i))
            return true;
    }
    return false;
}

void mmcore_set_stage(Component *c, int slot, int nslots, unsigned late_pct,
                      unsigned split_pct)
{
    MmCore *k = (MmCore *)c;
    g_assert(c->cls == &mm_core_class && k->th && !k->running && k->random);
    g_assert(slot >= 0 && slot < nslots && late_pct <= 100 && split_pct <= 100);
    k->split_pct = split_pct;
    k->staged = true;
    k->slot = slot;
    k->nslots = nslots;
    k->late_pct = late_pct;
    k->holdable = 0;
    for (int j = 0; j < k->n; j++)
        if (mm_bypassable(k, j))
            k->holdable |= 1ull << j;
}

bool mmcore_done(const Component *c)
{
    g_assert(c->cls == &mm_core_class);
    return !((const MmCore *)c)->running;
}

int64_t mmcore_reg(const Component *c, int reg)
{
    const MmCore *k = (const MmCore *)c;
    g_assert(c->cls == &mm_core_class && !k->running && k->th && reg >= 0 && reg < LIT_MAX_REGS);
    for (int i = k->n - 1; i >= 0; i--)
        if (k->wreg[i] == reg)
            return k->res[i];
    return k->th->reg_init[reg];
}

/* ---- class -------------------------------------------------------------------------------- */

static bool mm_realize(Component *c, GError **error)
{
    MmCore *k = (MmCore *)c;
    k->dc = sim_port(c, "dcache", 0);
    if (!k->dc) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "dcache is not connected");
        return false;
    }
    return true;
}

static bool mm_busy(const Component *c) { return ((const MmCore *)c)->running; }

static void mm_dump(Component *c, GString *out)
{
    MmCore *k = (MmCore *)c;
    static const char *const sname[] = { "waits", "ready", "sent", "done" };
    if (!k->running) {
        g_string_append(out, "  idle\n");
        return;
    }
    static const char *const kname[] = { [LOP_LOAD] = "load", [LOP_STORE] = "store",
                                         [LOP_MFENCE] = "fence", [LOP_RMW] = "locked RMW",
                                         [LOP_ALU] = "ALU op" };
    g_string_append_printf(out, "  model %s, %d/%d ops done\n", k->mm->name, k->ndone, k->n);
    for (int i = k->first; i < k->n; i++) {
        const LitOp *op = &k->th->ops[i];
        char buf[32];
        g_string_append_printf(out, "    op %d (%s", i, op->text ? op->text : kname[op->kind]);
        if (!op->text && op->loc >= 0)
            g_string_append_printf(out, " %s", loc_name(k, op->loc, buf, sizeof buf));
        g_string_append_printf(out, "): %s\n", sname[k->st[i]]);
    }
}

/* What its trace events mean to the teaching view (`run --teach`). */
static const TeachEvent mm_teach_events[] = {
    { "load", TEACH_LOAD }, { "store", TEACH_STORE },
    TEACH_EVENTS_END,
};

const ComponentClass mm_core_class = {
    .name = "mm-core",
    .doc = "core running a litmus thread under a memory model (SC/TSO/PSO/WEAK), random timing",
    .size = sizeof(MmCore),
    .params_offset = offsetof(MmCore, p),
    .params = mm_params,
    .ports = mm_ports,
    .stats = mm_stats,
    .realize = mm_realize,
    .tick = mm_tick,
    .recv = mm_recv,
    .dump = mm_dump,
    .busy = mm_busy,
    .check_link = mem_link_line_down,
    .teach_events = mm_teach_events,
};
