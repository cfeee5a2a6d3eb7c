/* enumerate.c: `archsim litmus --exhaustive`: every final outcome of a litmus test under a memory
 * model, by exploring all interleavings of an abstract machine (an operational reading of the
 * Primer's ch. 4-5 "reordering tables", with memory that is multi-copy atomic).
 *
 * The machine: each thread's ops are either unperformed or performed; memory is one value per
 * location. A step performs one op of one thread; it may perform before an earlier unperformed
 * op of its thread only as memmodel.h's table allows (mm_may_bypass for different locations;
 * same location: never, except a load that takes the value of the latest earlier unperformed
 * store to its location when the model forwards; register dependencies: never; MFENCE and locked
 * ops: never). Stores write memory when they perform, so all threads see a store at once.
 * Registers are renamed: each op's result is kept per op and every reader takes the value of its
 * producer, so a later write to EAX never clobbers an earlier reader.
 *
 * Search: depth-first over states (performed sets, op results, memory), each state visited once
 * (a hash set of whole states), so the cost is the number of distinct states, not of
 * interleavings. Two reductions keep the states few: ops that other threads cannot observe
 * (ALU ops, fences, loads whose value nothing uses) are performed alone as soon as they may (they
 * commute with every other step), and results and locations that nothing will read any more and
 * that are not observed are forgotten (set to 0), so states that differ only there merge.
 */
#include "litmus.h"

#include <string.h>

#include "../../sim/error.h"

typedef struct {
    int nops;
    uint64_t block[LIT_MAX_OPS];      /* earlier ops that keep op j waiting while unperformed */
    uint64_t block_fwd[LIT_MAX_OPS];  /* the same when j forwards from fwd_src[j] */
    uint64_t deps[LIT_MAX_OPS];       /* ops whose results j reads (register dependencies) */
    int fwd_src[LIT_MAX_OPS];         /* LOAD: the latest earlier STORE to its location (loads
                                         of it between), or -1 (none, or an RMW after it) */
    int src_prod[LIT_MAX_OPS];        /* producer of src.reg, of reg (ALU input), of cmp */
    int dst_prod[LIT_MAX_OPS];
    int cmp_prod[LIT_MAX_OPS];
    int slot[LIT_MAX_OPS];            /* where the op's result lives in the state, or -1 */
    int final_prod[LIT_MAX_REGS];     /* last writer of each register, or -1 */
    uint64_t users[LIT_MAX_OPS];      /* ops that read op j's result */
    uint64_t kept;                    /* ops whose result is observed at the end */
    uint64_t readers[LIT_MAX_LOCS];   /* ops that read each location (loads, RMWs) */
    uint64_t invisible;               /* ALU ops, fences, loads whose value nothing uses */
} EnThread;

typedef struct {
    const LitTest *t;
    const MemModel *m;
    EnThread th[LIT_MAX_THREADS];
    int nwords, off_vals, off_mem;    /* state layout, in int64 words */
    bool observed_loc[LIT_MAX_LOCS];
    /* the visited set: states packed in `arena`, an open-addressing table of indices + 1 */
    int64_t *arena;
    size_t nstates, cap_states;
    uint32_t *table;
    size_t table_size;                /* power of two */
    uint64_t max_states;
    int64_t *stack;                   /* one state per depth of the search */
    LitHist *out;
    bool overflow;
} En;

static bool op_is_mem(const LitOp *op)
{
    return op->kind == LOP_LOAD || op->kind == LOP_STORE || op->kind == LOP_RMW;
}

static MemAccessKind op_access(const LitOp *op)
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

/* LFENCE and SFENCE (litmus.h): which earlier kinds they wait for and which later kinds wait
 * for them. Fences and locked ops stay in order with them. */
static bool partial_orders(const LitOp *f, MemAccessKind k, bool f_is_earlier)
{
    if (k == MA_OTHER)
        return false;
    if (k == MA_FENCE || k == MA_LOCKED)
        return true;
    if (f->fence == LFEN_LOAD)
        return f_is_earlier ? true : k == MA_LOAD;       /* earlier loads -> all later */
    return k == MA_STORE;                                /* earlier stores -> later stores */
}

/* Must op i (earlier, unperformed) keep op j waiting? Dependencies and forwarding apart. */
static bool en_orders(const MemModel *m, const LitOp *i, const LitOp *j, bool same_loc_kept)
{
    MemAccessKind ki = op_access(i), kj = op_access(j);
    if (ki == MA_OTHER || kj == MA_OTHER)
        return false;
    if (same_loc_kept && op_is_mem(i) && op_is_mem(j) && i->loc == j->loc)
        return true;
    if (i->kind == LOP_MFENCE && i->fence != LFEN_FULL)
        return partial_orders(i, kj, true);
    if (j->kind == LOP_MFENCE && j->fence != LFEN_FULL)
        return partial_orders(j, ki, false);
    return !mm_may_bypass(m, ki, kj);
}

static bool op_writes_reg(const LitOp *op)
{
    return op->reg >= 0 && (op->kind == LOP_LOAD || op->kind == LOP_RMW || op->kind == LOP_ALU);
}

static void en_prepare(En *en, const LitTest *t, const MemModel *m)
{
    int slots = 0;
    for (int p = 0; p < t->nthreads; p++) {
        const LitThread *lt = &t->t[p];
        EnThread *et = &en->th[p];
        et->nops = lt->nops;
        int last_writer[LIT_MAX_REGS];
        for (int r = 0; r < LIT_MAX_REGS; r++)
            last_writer[r] = -1;
        for (int j = 0; j < lt->nops; j++) {
            const LitOp *op = &lt->ops[j];
            et->src_prod[j] = op->src.is_reg && (op->kind == LOP_STORE || op->kind == LOP_RMW ||
                                                 op->kind == LOP_ALU)
                                  ? last_writer[op->src.reg] : -1;
            et->dst_prod[j] = op->kind == LOP_ALU && op->alu != LALU_MOV ? last_writer[op->reg]
                                                                         : -1;
            et->cmp_prod[j] = op->kind == LOP_RMW && op->rmw == LRMW_CMPXCHG ? last_writer[op->cmp]
                                                                             : -1;
            et->deps[j] = 0;
            if (et->src_prod[j] >= 0)
                et->deps[j] |= UINT64_C(1) << et->src_prod[j];
            if (et->dst_prod[j] >= 0)
                et->deps[j] |= UINT64_C(1) << et->dst_prod[j];
            if (et->cmp_prod[j] >= 0)
                et->deps[j] |= UINT64_C(1) << et->cmp_prod[j];
            et->fwd_src[j] = -1;
            et->block[j] = et->block_fwd[j] = 0;
            for (int i = 0; i < j; i++) {
                const LitOp *e = &lt->ops[i];
                if (en_orders(m, e, op, true))
                    et->block[j] |= UINT64_C(1) << i;
                /* forwarding, the load goes past earlier stores to its location, not past
                 * earlier loads of it (they stay in order) */
                if (en_orders(m, e, op, e->kind == LOP_LOAD))
                    et->block_fwd[j] |= UINT64_C(1) << i;
                /* the latest earlier store to its location, loads of it in between or not (a
                 * store, a load, a load reads x=1 from the buffer twice); an RMW ends it */
                if (op->kind == LOP_LOAD && op_is_mem(e) && e->loc == op->loc &&
                    e->kind != LOP_LOAD)
                    et->fwd_src[j] = e->kind == LOP_STORE ? i : -1;
            }
            if (!m->forward)
                et->fwd_src[j] = -1;
            et->slot[j] = op_writes_reg(op) ? slots++ : -1;
            if (op_writes_reg(op))
                last_writer[op->reg] = j;
        }
        for (int r = 0; r < LIT_MAX_REGS; r++)
            et->final_prod[r] = last_writer[r];
        for (int j = 0; j < lt->nops; j++) {
            for (int i = 0; i < j; i++)
                if (et->deps[j] & (UINT64_C(1) << i))
                    et->users[i] |= UINT64_C(1) << j;
            const LitOp *op = &lt->ops[j];
            if (op->kind == LOP_LOAD || op->kind == LOP_RMW)
                et->readers[op->loc] |= UINT64_C(1) << j;
        }
    }
    for (int k = 0; k < t->nobs; k++) {
        if (t->obs[k].is_loc) {
            en->observed_loc[t->obs[k].idx] = true;
        } else {
            int prod = en->th[t->obs[k].thread].final_prod[t->obs[k].idx];
            if (prod >= 0)
                en->th[t->obs[k].thread].kept |= UINT64_C(1) << prod;
        }
    }
    for (int p = 0; p < t->nthreads; p++) {
        EnThread *et = &en->th[p];
        for (int j = 0; j < et->nops; j++) {
            const LitOp *op = &t->t[p].ops[j];
            bool dead_load = op->kind == LOP_LOAD && et->users[j] == 0 &&
                             !(et->kept & (UINT64_C(1) << j));
            if (!op_is_mem(op) || dead_load)
                et->invisible |= UINT64_C(1) << j;
        }
    }
    en->off_vals = t->nthreads;
    en->off_mem = en->off_vals + slots;
    en->nwords = en->off_mem + t->nlocs;
}

/* ---- the visited set ----------------------------------------------------------------------- */

static uint64_t en_hash(const int64_t *s, int n)
{
    uint64_t h = UINT64_C(0x9e3779b97f4a7c15);
    for (int k = 0; k < n; k++) {
        uint64_t x = (uint64_t)s[k] + h;
        x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
        h = x ^ (x >> 31);
    }
    return h;
}

static void en_table_insert(En *en, uint32_t idx)
{
    size_t mask = en->table_size - 1;
    size_t b = (size_t)en_hash(en->arena + (size_t)idx * (size_t)en->nwords, en->nwords) & mask;
    while (en->table[b] != 0)
        b = (b + 1) & mask;
    en->table[b] = idx + 1;
}

/* Adds state s; false if it was already there (or the search is over its limit). */
static bool en_visit(En *en, const int64_t *s)
{
    size_t mask = en->table_size - 1;
    size_t bytes = (size_t)en->nwords * sizeof(int64_t);
    size_t b = (size_t)en_hash(s, en->nwords) & mask;
    while (en->table[b] != 0) {
        if (memcmp(en->arena + (size_t)(en->table[b] - 1) * (size_t)en->nwords, s, bytes) == 0)
            return false;
        b = (b + 1) & mask;
    }
    if (en->nstates >= en->max_states || en->nstates >= UINT32_MAX - 1) {
        en->overflow = true;
        return false;
    }
    if (en->nstates == en->cap_states) {
        en->cap_states *= 2;
        en->arena = g_renew(int64_t, en->arena, en->cap_states * (size_t)en->nwords);
    }
    memcpy(en->arena + en->nstates * (size_t)en->nwords, s, bytes);
    en->table[b] = (uint32_t)en->nstates + 1;
    en->nstates++;
    if (en->nstates * 2 > en->table_size) {
        g_free(en->table);
        en->table_size *= 2;
        en->table = g_new0(uint32_t, en->table_size);
        for (size_t k = 0; k < en->nstates; k++)
            en_table_insert(en, (uint32_t)k);
    }
    return true;
}

/* ---- steps --------------------------------------------------------------------------------- */

static int64_t en_reg_value(const En *en, const int64_t *s, int p, int prod, int reg)
{
    if (prod >= 0)
        return s[en->off_vals + en->th[p].slot[prod]];
    return en->t->t[p].reg_init[reg];
}

static int64_t en_src_value(const En *en, const int64_t *s, int p, int j)
{
    const LitOp *op = &en->t->t[p].ops[j];
    return op->src.is_reg ? en_reg_value(en, s, p, en->th[p].src_prod[j], op->src.reg)
                          : op->src.imm;
}

/* May op j of thread p perform now? *fwd: it takes its value from that earlier store. */
static bool en_ready(const En *en, const int64_t *s, int p, int j, int *fwd)
{
    const EnThread *et = &en->th[p];
    uint64_t done = (uint64_t)s[p];
    *fwd = -1;
    if ((et->deps[j] & ~done) != 0)
        return false;
    int f = et->fwd_src[j];
    if (f >= 0 && !(done & (UINT64_C(1) << f))) {
        if ((et->deps[f] & ~done) != 0)     /* the value to forward is not known yet */
            return false;
        *fwd = f;
        return (et->block_fwd[j] & ~done) == 0;
    }
    return (et->block[j] & ~done) == 0;
}

static void en_perform(const En *en, int64_t *s, int p, int j, int fwd)
{
    const LitOp *op = &en->t->t[p].ops[j];
    const EnThread *et = &en->th[p];
    switch (op->kind) {
    case LOP_LOAD:
        s[en->off_vals + et->slot[j]] = fwd >= 0 ? en_src_value(en, s, p, fwd)
                                                 : s[en->off_mem + op->loc];
        break;
    case LOP_STORE:
        s[en->off_mem + op->loc] = en_src_value(en, s, p, j);
        break;
    case LOP_RMW: {
        int64_t old = s[en->off_mem + op->loc];
        int64_t cmp = op->rmw == LRMW_CMPXCHG ? en_reg_value(en, s, p, et->cmp_prod[j], op->cmp)
                                              : 0;
        s[en->off_mem + op->loc] = litmus_rmw_eval(op, old, en_src_value(en, s, p, j), cmp);
        if (et->slot[j] >= 0)
            s[en->off_vals + et->slot[j]] = old;
        break;
    }
    case LOP_ALU: {
        int64_t a = en_reg_value(en, s, p, et->dst_prod[j], op->reg);
        s[en->off_vals + et->slot[j]] = litmus_alu_eval(op->alu, a, en_src_value(en, s, p, j));
        break;
    }
    case LOP_MFENCE:
        break;
    }
    s[p] |= (int64_t)(UINT64_C(1) << j);
}

/* Forgets what no longer matters: the result of an op that no unperformed op reads and that is
 * not observed, a location that nothing will read and that is not observed. States that differ
 * only there have the same future and the same outcome, so they become one. */
static void en_forget(const En *en, int64_t *s)
{
    const LitTest *t = en->t;
    for (int p = 0; p < t->nthreads; p++) {
        const EnThread *et = &en->th[p];
        uint64_t done = (uint64_t)s[p];
        for (int j = 0; j < et->nops; j++)
            if (et->slot[j] >= 0 && (done & (UINT64_C(1) << j)) &&
                !(et->kept & (UINT64_C(1) << j)) && (et->users[j] & ~done) == 0)
                s[en->off_vals + et->slot[j]] = 0;
    }
    for (int l = 0; l < t->nlocs; l++) {
        bool live = en->observed_loc[l];
        for (int p = 0; p < t->nthreads && !live; p++)
            live = (en->th[p].readers[l] & ~(uint64_t)s[p]) != 0;
        if (!live)
            s[en->off_mem + l] = 0;
    }
}

static void en_record(En *en, const int64_t *s)
{
    const LitTest *t = en->t;
    LitOutcome o = { .n = t->nobs };
    for (int k = 0; k < t->nobs; k++) {
        if (t->obs[k].is_loc) {
            o.v[k] = s[en->off_mem + t->obs[k].idx];
        } else {
            int p = t->obs[k].thread, r = t->obs[k].idx;
            o.v[k] = en_reg_value(en, s, p, en->th[p].final_prod[r], r);
        }
    }
    litmus_hist_add(en->out, t, &o, 1);
}

static void en_explore(En *en, int depth)
{
    const int64_t *s = en->stack + (size_t)depth * (size_t)en->nwords;
    int64_t *next = en->stack + (size_t)(depth + 1) * (size_t)en->nwords;
    size_t bytes = (size_t)en->nwords * sizeof(int64_t);
    if (!en_visit(en, s))
        return;
    /* an op that no other thread can tell from a no-op goes first, alone: it commutes with
       every other step, and performing it early only lets later ops of its thread go sooner */
    for (int p = 0; p < en->t->nthreads; p++) {
        uint64_t done = (uint64_t)s[p];
        for (int j = 0; j < en->th[p].nops; j++) {
            int fwd;
            if ((done & (UINT64_C(1) << j)) || !(en->th[p].invisible & (UINT64_C(1) << j)) ||
                !en_ready(en, s, p, j, &fwd))
                continue;
            memcpy(next, s, bytes);
            en_perform(en, next, p, j, fwd);
            en_forget(en, next);
            en_explore(en, depth + 1);
            return;
        }
    }
    bool any = false;
    for (int p = 0; p < en->t->nthreads && !en->overflow; p++) {
        uint64_t done = (uint64_t)s[p];
        for (int j = 0; j < en->th[p].nops && !en->overflow; j++) {
            int fwd;
            if ((done & (UINT64_C(1) << j)) || !en_ready(en, s, p, j, &fwd))
                continue;
            any = true;
            memcpy(next, s, bytes);
            en_perform(en, next, p, j, fwd);
            en_forget(en, next);
            en_explore(en, depth + 1);
        }
    }
    if (!any) {
        for (int p = 0; p < en->t->nthreads; p++) {
            uint64_t all = en->th[p].nops == 64 ? UINT64_MAX : (UINT64_C(1) << en->th[p].nops) - 1;
            /* an op can always perform once every earlier one has: no deadlock */
            g_assert((uint64_t)s[p] == all);
        }
        en_record(en, s);
    }
}

bool litmus_enumerate(const LitTest *t, const MemModel *m, uint64_t max_states, LitHist *out,
                      GError **error)
{
    En *en = g_new0(En, 1);
    en->t = t;
    en->m = m;
    en->out = out;
    en_prepare(en, t, m);
    /* the visited set must also fit in memory: at most 2 GiB of states */
    uint64_t fit = (UINT64_C(1) << 31) / ((uint64_t)en->nwords * sizeof(int64_t));
    en->max_states = MIN(max_states, fit);
    int depth = 0;
    for (int p = 0; p < t->nthreads; p++)
        depth += t->t[p].nops;
    en->stack = g_new0(int64_t, (size_t)(depth + 2) * (size_t)en->nwords);
    for (int l = 0; l < t->nlocs; l++)
        en->stack[en->off_mem + l] = t->loc_init[l];
    en_forget(en, en->stack);
    en->cap_states = 1024;
    en->arena = g_new(int64_t, en->cap_states * (size_t)en->nwords);
    en->table_size = 4096;
    en->table = g_new0(uint32_t, en->table_size);
    en_explore(en, 0);
    bool ok = !en->overflow;
    if (!ok)
        g_set_error(error, LITMUS_ERROR, ARCHSIM_EXIT_DATAERR,
                    "%s: more than %" G_GUINT64_FORMAT " states%s: too large for --exhaustive "
                    "(raise --max-states, or run it in random mode)", t->name, en->max_states,
                    en->max_states < max_states ? " (2 GiB)" : "");
    g_free(en->stack);
    g_free(en->arena);
    g_free(en->table);
    g_free(en);
    return ok;
}
