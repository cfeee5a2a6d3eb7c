/* checker.c: explicit-state model checking of a snooping table (protocol.h), Murphi style:
 * breadth-first search over every state of N caches sharing ONE block on the abstract bus of
 * protocol.h, with the finite value abstraction (a copy is fresh or stale). Invariants after the
 * Primer (2nd ed.) ch. 2; the search, steps and checks are described in docs/protocols/README.md
 * and below. BFS makes the first counterexample found a shortest one.
 */
#include "checker.h"
#include "dirchecker.h"
#include "dirproto.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../sim/cli/cli.h"
#include "../sim/error.h"
#include "../sim/param.h"

/* ---- the abstract machine --------------------------------------------------------------------
 *
 * A global state is, per cache c:
 *   st[c]     its table state
 *   fresh[c]  its copy holds the latest value (kept 0 when the state holds no copy)
 *   req[c]    a request it issued that the bus has not ordered yet (GetS, GetM, PutM) or none
 *   op[c]     a core access waiting on the line (Load, Store) or none
 * and for the block: whether memory is fresh, and the ordered GetS/GetM whose data has not
 * reached its requester yet (at most one: transactions are atomic), with the freshness of the
 * data it carries and whether it will arrive as Data_Exclusive.
 *
 * Steps (each enabled one is explored):
 *   core(c, Load|Store)  the core presents an access. With none waiting, it becomes the waiting
 *                        access and its row fires (a hit completes it; a stall keeps it waiting).
 *                        The waiting access may be presented again at any time (the retry after a
 *                        transition). Another access while one waits: its row is looked up (so it
 *                        must exist) and fires if it stalls or is a plain hit; otherwise the core
 *                        holds it back (one outstanding miss per core).
 *   replace(c)           Replacement, in every state but a stable one without a copy (I). A
 *                        stall means the cache picks another victim; nothing is remembered.
 *   order(c)             no transaction in flight and c has a request waiting: the bus orders it.
 *                        Every other cache fires Other_<req>, then c fires Own_<req>. The data of
 *                        a GetS/GetM comes from c itself if c's state (before) is an owner, else
 *                        from the snooper whose row has SEND_DATA, else from memory after this
 *                        instant's write-backs; SEND_DATA/WRITEBACK take the copy as it was before
 *                        the step. A PutM completes here (its write-back, if the row has one).
 *   data                 the in-flight data reaches its requester: Data, or Data_Exclusive for a
 *                        GetS that no snooper shared. The copy is installed, then the row fires.
 * A store (ACT_HIT on a Store) makes the writer's copy fresh and every other copy, memory and
 * the in-flight data stale.
 */

enum { REQ_NONE, REQ_GETS, REQ_GETM, REQ_PUTM };
enum { OP_NONE, OP_LOAD, OP_STORE };

typedef struct {
    uint8_t st[CHECKER_MAX_CACHES];
    uint8_t fresh[CHECKER_MAX_CACHES];
    uint8_t req[CHECKER_MAX_CACHES];
    uint8_t op[CHECKER_MAX_CACHES];
    uint8_t mem_fresh;
    int8_t txn;             /* requester of the in-flight GetS/GetM, or -1 */
    uint8_t txn_kind;       /* REQ_GETS or REQ_GETM */
    uint8_t txn_fresh;
    uint8_t txn_excl;
} CkState;

typedef enum { STEP_CORE, STEP_REPLACE, STEP_ORDER, STEP_DATA } CkStepKind;

typedef struct {
    uint8_t kind;           /* CkStepKind */
    uint8_t cache;
    uint8_t ev;             /* EV_LOAD or EV_STORE for STEP_CORE */
} CkStep;

typedef struct {
    const ProtoTable *t;
    ProtoIndex ix;
    int n;
    bool counting;          /* count fired rows; off while replaying a counterexample */
    uint64_t *fired;        /* per row */
    CheckerVerdict fault;   /* the first violation found, CHECK_PASS until then */
    GString *why;
    GString *desc;          /* while replaying: what the current step did */
    GArray *states;         /* CkState, in BFS order */
    GArray *parent;         /* guint32: index of the state it was first reached from */
    GArray *via;            /* CkStep: the step from the parent */
    GArray *edges;          /* guint32 pairs (from, to) of state-changing progress steps */
    guint32 *slots;         /* open addressing: state index + 1, 0 = empty */
    size_t cap;
} Ck;

const char *const checker_verdict_names[CHECK_KINDS] = {
    [CHECK_PASS] = "pass",
    [CHECK_MALFORMED] = "malformed table",
    [CHECK_MISSING_ROW] = "missing row",
    [CHECK_SWMR] = "SWMR violated",
    [CHECK_OWNER] = "two owners",
    [CHECK_DATA_VALUE] = "data-value invariant violated",
    [CHECK_PERM] = "access without permission",
    [CHECK_BUS] = "bus rule broken",
    [CHECK_STUCK] = "stuck (deadlock)",
};

static const char *const req_names[] = { "-", "GetS", "GetM", "PutM" };
static const char *const op_names[] = { "-", "Load", "Store" };

static void ck_fault(Ck *ck, CheckerVerdict v, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

static void ck_fault(Ck *ck, CheckerVerdict v, const char *fmt, ...)
{
    if (ck->fault != CHECK_PASS)
        return;                 /* the first violation is the one reported */
    ck->fault = v;
    va_list ap;
    va_start(ap, fmt);
    g_string_vprintf(ck->why, fmt, ap);
    va_end(ap);
}

static const ProtoState *ck_state(const Ck *ck, int s)
{
    return &ck->t->states[s];
}

/* The state keeps a copy the data-value invariant applies to. */
static bool ck_holds_copy(const ProtoState *ps)
{
    return ps->valid || ps->perm >= PERM_READ;
}

static const char *ck_sname(const Ck *ck, int s)
{
    return ck->t->states[s].name;
}

/* Actions as the docs write them: "issue GetS, send data" ("-" for none). */
static void ck_append_actions(GString *out, unsigned a)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        { ACT_ISSUE_GETS, "issue GetS" }, { ACT_ISSUE_GETM, "issue GetM" },
        { ACT_ISSUE_PUTM, "issue PutM" }, { ACT_SEND_DATA, "send data" },
        { ACT_WRITEBACK, "write back" }, { ACT_SHARED, "shared" }, { ACT_HIT, "hit" },
        { ACT_STALL, "stall" },
    };
    bool first = true;
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        if (!(a & names[i].bit))
            continue;
        g_string_append_printf(out, "%s%s", first ? "" : ", ", names[i].name);
        first = false;
    }
    if (first)
        g_string_append(out, "-");
}

/* "I + Load -> IS_AD (issue GetS)" */
static void ck_append_row(const Ck *ck, GString *out, const ProtoRow *row)
{
    g_string_append_printf(out, "%s + %s -> %s (", ck_sname(ck, row->state),
                           proto_event_names[row->event], ck_sname(ck, row->next));
    ck_append_actions(out, row->actions);
    g_string_append(out, ")");
}

/* ---- static checks on the table -------------------------------------------------------------- */

static bool ck_is_core_event(int ev)
{
    return ev == EV_LOAD || ev == EV_STORE || ev == EV_REPLACEMENT;
}

/* Actions that mean nothing on their event. The controller relies on these too. */
static bool ck_lint(Ck *ck)
{
    const ProtoTable *t = ck->t;
    for (int r = 0; r < t->nrows; r++) {
        const ProtoRow *row = &t->rows[r];
        unsigned a = row->actions;
        unsigned issue = a & (ACT_ISSUE_GETS | ACT_ISSUE_GETM | ACT_ISSUE_PUTM);
        const char *problem = NULL;
        if (issue & (issue - 1))
            problem = "issues two requests at once";
        else if ((a & ACT_SEND_DATA) && row->event != EV_OTHER_GETS &&
                 row->event != EV_OTHER_GETM)
            problem = "sends data, which only a snooped GetS or GetM can ask for";
        else if ((a & ACT_SHARED) && row->event != EV_OTHER_GETS)
            problem = "asserts the shared line, which only a snooped GetS samples";
        else if ((a & ACT_STALL) && (a != ACT_STALL || row->next != row->state))
            problem = "stalls but also acts or moves (a stall keeps the state and does nothing)";
        else if ((a & ACT_STALL) && !ck_is_core_event(row->event))
            problem = "stalls an event that cannot wait (only Load, Store, Replacement can)";
        else if ((a & ACT_HIT) && row->event == EV_REPLACEMENT)
            problem = "hits on a Replacement, which is no core access";
        else if (row->event == EV_LOAD && (a & ACT_HIT) &&
                 ck_state(ck, row->next)->perm < PERM_READ)
            problem = "performs a Load in a state without read permission";
        else if (row->event == EV_STORE && (a & ACT_HIT) &&
                 ck_state(ck, row->next)->perm < PERM_WRITE)
            problem = "performs a Store in a state without write permission";
        if (problem != NULL) {
            g_string_append_printf(ck->why, "%s: row %d, ", t->name, r);
            ck_append_row(ck, ck->why, row);
            g_string_append_printf(ck->why, ": %s", problem);
            ck->fault = CHECK_MALFORMED;
            return false;
        }
    }
    return true;
}

/* ---- the state set ---------------------------------------------------------------------------- */

/* 13 bits a cache (state 8, fresh 1, request 2, access 2) and 7 for the block: 59 bits for 4. */
static guint64 ck_pack(const Ck *ck, const CkState *s)
{
    guint64 k = 0;
    for (int c = 0; c < ck->n; c++)
        k = (k << 13) | ((guint64)s->st[c] << 5) | ((guint64)s->fresh[c] << 4) |
            ((guint64)s->req[c] << 2) | s->op[c];
    k = (k << 7) | ((guint64)s->mem_fresh << 6) | ((guint64)(s->txn + 1) << 3) |
        ((guint64)(s->txn_kind == REQ_GETM) << 2) | ((guint64)s->txn_fresh << 1) | s->txn_excl;
    return k;
}

static guint64 ck_hash(guint64 k)
{
    /* splitmix64's finalizer */
    k ^= k >> 30;
    k *= UINT64_C(0xbf58476d1ce4e5b9);
    k ^= k >> 27;
    k *= UINT64_C(0x94d049bb133111eb);
    return k ^ (k >> 31);
}

static void ck_grow(Ck *ck)
{
    size_t cap = ck->cap ? ck->cap * 2 : 1024;
    guint32 *slots = g_new0(guint32, cap);
    for (size_t i = 0; i < ck->cap; i++) {
        if (ck->slots[i] == 0)
            continue;
        const CkState *s = &g_array_index(ck->states, CkState, ck->slots[i] - 1);
        size_t h = ck_hash(ck_pack(ck, s)) & (cap - 1);
        while (slots[h] != 0)
            h = (h + 1) & (cap - 1);
        slots[h] = ck->slots[i];
    }
    g_free(ck->slots);
    ck->slots = slots;
    ck->cap = cap;
}

/* The index of s, added (with its parent and step) when new; *added tells which. */
static guint32 ck_intern(Ck *ck, const CkState *s, guint32 parent, CkStep via, bool *added)
{
    if ((ck->states->len + 1) * 2 > ck->cap)
        ck_grow(ck);
    guint64 key = ck_pack(ck, s);
    size_t h = ck_hash(key) & (ck->cap - 1);
    while (ck->slots[h] != 0) {
        guint32 i = ck->slots[h] - 1;
        if (ck_pack(ck, &g_array_index(ck->states, CkState, i)) == key) {
            *added = false;
            return i;
        }
        h = (h + 1) & (ck->cap - 1);
    }
    guint32 i = ck->states->len;
    g_array_append_val(ck->states, *s);
    g_array_append_val(ck->parent, parent);
    g_array_append_val(ck->via, via);
    ck->slots[h] = i + 1;
    *added = true;
    return i;
}

/* ---- steps ------------------------------------------------------------------------------------ */

static void ck_normalize(const Ck *ck, CkState *s)
{
    for (int c = 0; c < ck->n; c++)
        if (!ck_holds_copy(ck_state(ck, s->st[c])))
            s->fresh[c] = 0;
    if (s->txn < 0)
        s->txn_kind = s->txn_fresh = s->txn_excl = 0;
}

/* Fires row r for cache c in *to. access: the core access a hit performs (OP_NONE: none waits).
 * Returns whether the row performed that access. */
static bool ck_fire(Ck *ck, CkState *to, int c, int r, int access)
{
    const ProtoRow *row = &ck->t->rows[r];
    unsigned a = row->actions;
    if (ck->counting)
        ck->fired[r]++;
    /* the trace leaves out only the snoops that find the block absent (I + Other_X, no action) */
    if (ck->desc != NULL && (a != 0 || row->next != row->state || row->state != ck->t->initial ||
                             row->event < EV_OTHER_GETS)) {
        g_string_append_printf(ck->desc, "%sC%d %s: %s -> %s (", ck->desc->len ? "; " : "", c,
                               proto_event_names[row->event], ck_sname(ck, row->state),
                               ck_sname(ck, row->next));
        ck_append_actions(ck->desc, a);
        g_string_append(ck->desc, ")");
    }
    unsigned issue = a & (ACT_ISSUE_GETS | ACT_ISSUE_GETM | ACT_ISSUE_PUTM);
    if (issue) {
        int q = issue == ACT_ISSUE_GETS ? REQ_GETS : issue == ACT_ISSUE_GETM ? REQ_GETM : REQ_PUTM;
        if (to->req[c] != REQ_NONE)
            ck_fault(ck, CHECK_BUS, "C%d: %s + %s issues a %s while its %s still waits for the "
                     "bus (one request per cache and block)", c, ck_sname(ck, row->state),
                     proto_event_names[row->event], req_names[q], req_names[to->req[c]]);
        to->req[c] = (uint8_t)q;
    }
    if (a & ACT_WRITEBACK)
        to->mem_fresh = to->fresh[c];
    to->st[c] = row->next;
    const ProtoState *ns = ck_state(ck, row->next);
    if (!ck_holds_copy(ns))
        to->fresh[c] = 0;
    if (!(a & ACT_HIT))
        return false;
    if (access == OP_NONE) {
        ck_fault(ck, CHECK_BUS, "C%d: %s + %s hits, but no core access is waiting", c,
                 ck_sname(ck, row->state), proto_event_names[row->event]);
        return false;
    }
    if (ns->perm < (access == OP_LOAD ? PERM_READ : PERM_WRITE))
        ck_fault(ck, CHECK_PERM, "C%d: %s + %s performs the waiting %s in %s, whose permission "
                 "does not allow it", c, ck_sname(ck, row->state), proto_event_names[row->event],
                 op_names[access], ns->name);
    if (!to->fresh[c])
        ck_fault(ck, CHECK_DATA_VALUE, access == OP_LOAD ?
                 "C%d: a Load hits in %s (%s + %s) and reads a stale value" :
                 "C%d: a Store hits in %s (%s + %s) on a stale copy (the rest of the block is "
                 "lost)", c, ns->name, ck_sname(ck, row->state), proto_event_names[row->event]);
    if (access == OP_STORE) {
        for (int d = 0; d < ck->n; d++)
            to->fresh[d] = d == c;
        to->mem_fresh = 0;
        to->txn_fresh = 0;
    }
    return true;
}

static int ck_row(const Ck *ck, int state, int ev)
{
    return proto_lookup(&ck->ix, state, ev);
}

static void ck_missing(Ck *ck, int c, int state, int ev, const char *when)
{
    ck_fault(ck, CHECK_MISSING_ROW, "C%d in %s gets %s%s, and the table has no row for %s + %s",
             c, ck_sname(ck, state), proto_event_names[ev], when, ck_sname(ck, state),
             proto_event_names[ev]);
}

/* Applies step to s into *to. Returns false when the step is not enabled in s (to is then
 * meaningless); ck->fault tells whether it broke a rule. */
static bool ck_step(Ck *ck, const CkState *s, CkStep step, CkState *to)
{
    *to = *s;
    int c = step.cache;
    switch ((CkStepKind)step.kind) {
    case STEP_CORE: {
        int access = step.ev == EV_LOAD ? OP_LOAD : OP_STORE;
        int r = ck_row(ck, s->st[c], step.ev);
        if (r < 0) {
            ck_missing(ck, c, s->st[c], step.ev, " from its core");
            return true;
        }
        if (s->op[c] == OP_NONE || s->op[c] == access) {
            to->op[c] = (uint8_t)access;
            if (ck_fire(ck, to, c, r, access))
                to->op[c] = OP_NONE;
            return true;
        }
        /* another access while one waits: it stalls, hits at once, or is held back */
        const ProtoRow *row = &ck->t->rows[r];
        if (row->actions == ACT_STALL || (row->actions == ACT_HIT && row->next == row->state)) {
            ck_fire(ck, to, c, r, access);
            return true;
        }
        return false;
    }
    case STEP_REPLACE: {
        const ProtoState *ps = ck_state(ck, s->st[c]);
        if (ps->stable && !ps->valid)
            return false;
        int r = ck_row(ck, s->st[c], EV_REPLACEMENT);
        if (r < 0)
            ck_missing(ck, c, s->st[c], EV_REPLACEMENT, "");
        else
            ck_fire(ck, to, c, r, OP_NONE);
        return true;
    }
    case STEP_ORDER: {
        if (s->req[c] == REQ_NONE || s->txn >= 0)
            return false;
        int q = s->req[c];
        int own = EV_OWN_GETS + q - REQ_GETS, other = EV_OTHER_GETS + q - REQ_GETS;
        int rows[CHECKER_MAX_CACHES];
        bool missing = false;
        for (int d = 0; d < ck->n; d++) {
            int ev = d == c ? own : other;
            rows[d] = ck_row(ck, s->st[d], ev);
            if (rows[d] >= 0)
                continue;
            char *when = g_strdup_printf(" (C%d's %s is ordered)", c, req_names[q]);
            ck_missing(ck, d, s->st[d], ev, d == c ? "" : when);
            g_free(when);
            missing = true;
        }
        if (missing)
            return true;
        to->req[c] = REQ_NONE;
        int suppliers = ck_state(ck, s->st[c])->owner ? 1 : 0;
        uint8_t data = suppliers ? s->fresh[c] : 0;
        bool shared = false;
        for (int d = 0; d < ck->n; d++) {
            if (d == c)
                continue;
            unsigned a = ck->t->rows[rows[d]].actions;
            if (a & ACT_SEND_DATA) {
                suppliers++;
                data = s->fresh[d];
            }
            shared |= (a & ACT_SHARED) != 0;
        }
        for (int d = 0; d < ck->n && d < CHECKER_MAX_CACHES; d++)
            if (d != c && ck_fire(ck, to, d, rows[d], to->op[d]))
                to->op[d] = OP_NONE;
        if (ck_fire(ck, to, c, rows[c], to->op[c]))
            to->op[c] = OP_NONE;
        if (suppliers > 1)
            ck_fault(ck, CHECK_BUS, "%d caches supply the data for C%d's %s (the requester "
                     "counts when it is an owner)", suppliers, c, req_names[q]);
        if (q != REQ_PUTM) {
            to->txn = (int8_t)c;
            to->txn_kind = (uint8_t)q;
            to->txn_fresh = suppliers ? data : to->mem_fresh;
            to->txn_excl = q == REQ_GETS && !shared;
        }
        if (ck->desc != NULL && q != REQ_PUTM)
            g_string_append_printf(ck->desc, "; data from %s, %s%s",
                                   ck_state(ck, s->st[c])->owner ? "the requester itself" :
                                   suppliers ? "a cache" : "memory",
                                   to->txn_fresh ? "fresh" : "STALE",
                                   to->txn_excl ? ", exclusive" : "");
        return true;
    }
    case STEP_DATA: {
        if (s->txn < 0 || s->txn != c)
            return false;
        int ev = s->txn_kind == REQ_GETS && s->txn_excl ? EV_DATA_EXCL : EV_DATA;
        int r = ck_row(ck, s->st[c], ev);
        if (r < 0) {
            ck_missing(ck, c, s->st[c], ev, s->txn_kind == REQ_GETS ? " for its GetS" :
                       " for its GetM");
            return true;
        }
        to->txn = -1;
        to->fresh[c] = s->txn_fresh;
        if (ck_fire(ck, to, c, r, to->op[c]))
            to->op[c] = OP_NONE;
        return true;
    }
    }
    g_assert_not_reached();
}

/* The invariants every reachable state must satisfy. */
static void ck_check_state(Ck *ck, const CkState *s)
{
    int writer = -1, owner = -1;
    for (int c = 0; c < ck->n; c++) {
        const ProtoState *ps = ck_state(ck, s->st[c]);
        if (ps->perm == PERM_WRITE) {
            if (writer >= 0) {
                ck_fault(ck, CHECK_SWMR, "C%d (%s) and C%d (%s) both have write permission",
                         writer, ck_sname(ck, s->st[writer]), c, ps->name);
                return;
            }
            writer = c;
        }
        if (ps->owner) {
            if (owner >= 0) {
                ck_fault(ck, CHECK_OWNER, "C%d (%s) and C%d (%s) are both owners", owner,
                         ck_sname(ck, s->st[owner]), c, ps->name);
                return;
            }
            owner = c;
        }
    }
    for (int c = 0; writer >= 0 && c < ck->n; c++)
        if (c != writer && ck_state(ck, s->st[c])->perm >= PERM_READ) {
            ck_fault(ck, CHECK_SWMR, "C%d (%s) may write while C%d (%s) may read", writer,
                     ck_sname(ck, s->st[writer]), c, ck_sname(ck, s->st[c]));
            return;
        }
    for (int c = 0; c < ck->n; c++)
        if (ck_holds_copy(ck_state(ck, s->st[c])) && !s->fresh[c]) {
            ck_fault(ck, CHECK_DATA_VALUE, "C%d in %s holds a stale copy", c,
                     ck_sname(ck, s->st[c]));
            return;
        }
    /* Memory may be stale only while a cache owns the block or the fresh value is on its way to
     * a requester (a GetM that took the data from an M that went to I). */
    if (!s->mem_fresh && owner < 0 && !(s->txn >= 0 && s->txn_fresh))
        ck_fault(ck, CHECK_DATA_VALUE, "memory is stale, yet no cache owns the block and no fresh "
                 "data is in flight (no one would supply the latest value)");
}

/* ---- reporting -------------------------------------------------------------------------------- */

static void ck_append_state(const Ck *ck, GString *out, const CkState *s)
{
    for (int c = 0; c < ck->n; c++) {
        const ProtoState *ps = ck_state(ck, s->st[c]);
        g_string_append_printf(out, "%sC%d %s", c ? " | " : "", c, ps->name);
        bool open = false;
#define CK_NOTE(...)                                                            \
        do {                                                                    \
            g_string_append(out, open ? ", " : " [");                           \
            g_string_append_printf(out, __VA_ARGS__);                           \
            open = true;                                                        \
        } while (0)
        if (ck_holds_copy(ps))
            CK_NOTE("%s", s->fresh[c] ? "fresh" : "STALE");
        if (s->req[c] != REQ_NONE)
            CK_NOTE("%s waits for the bus", req_names[s->req[c]]);
        if (s->op[c] != OP_NONE)
            CK_NOTE("%s waits", op_names[s->op[c]]);
#undef CK_NOTE
        if (open)
            g_string_append(out, "]");
    }
    g_string_append_printf(out, " | memory %s", s->mem_fresh ? "fresh" : "STALE");
    if (s->txn >= 0)
        g_string_append_printf(out, " | bus: C%d's %s, data %s%s", s->txn, req_names[s->txn_kind],
                               s->txn_fresh ? "fresh" : "STALE", s->txn_excl ? ", exclusive" : "");
}

static void ck_append_step_name(const Ck *ck, GString *out, const CkState *s, CkStep step,
                                bool no_row)
{
    /* core steps name themselves when a row fires: its description starts "C0 Load: ..." */
    if (step.kind == STEP_CORE && no_row)
        g_string_append_printf(out, "C%d %s: ", step.cache, proto_event_names[step.ev]);
    else if (step.kind == STEP_REPLACE && no_row)
        g_string_append_printf(out, "C%d Replacement: ", step.cache);
    else if (step.kind == STEP_ORDER)
        g_string_append_printf(out, "bus orders C%d's %s: ", step.cache,
                               req_names[s->req[step.cache]]);
    else if (step.kind == STEP_DATA)
        g_string_append_printf(out, "data of C%d's %s arrives: ", step.cache,
                               req_names[s->txn_kind]);
    (void)ck;
}

/* The path from the initial state to state `last`, then (when bad_step is non-NULL) the step
 * from `last` that broke a rule; numbered, with every cache's state after each step. */
static int ck_append_trace(Ck *ck, GString *out, guint32 last, const CkStep *bad_step)
{
    GArray *path = g_array_new(FALSE, FALSE, sizeof(guint32));
    for (guint32 i = last; i != 0; i = g_array_index(ck->parent, guint32, i))
        g_array_prepend_val(path, i);
    int steps = (int)path->len + (bad_step != NULL);
    g_string_append_printf(out, "counterexample (%d step%s):\n", steps, steps == 1 ? "" : "s");
    CkState cur = g_array_index(ck->states, CkState, 0);
    g_string_append(out, "   0. initial\n        ");
    ck_append_state(ck, out, &cur);
    g_string_append(out, "\n");
    ck->counting = false;
    CheckerVerdict saved = ck->fault;
    ck->fault = CHECK_MALFORMED;     /* replay: keep the recorded violation and its message */
    GString *desc = g_string_new(NULL);
    for (guint i = 0; i <= path->len; i++) {
        CkStep step;
        if (i < path->len)
            step = g_array_index(ck->via, CkStep, g_array_index(path, guint32, i));
        else if (bad_step != NULL)
            step = *bad_step;
        else
            break;
        g_string_truncate(desc, 0);
        ck->desc = desc;
        CkState next;
        bool enabled = ck_step(ck, &cur, step, &next);
        ck->desc = NULL;
        g_assert(enabled);
        ck_normalize(ck, &next);
        g_string_append_printf(out, "  %2u. ", i + 1);
        ck_append_step_name(ck, out, &cur, step, desc->len == 0);
        g_string_append_printf(out, "%s\n        ", desc->len ? desc->str : "no row");
        if (i < path->len)
            ck_append_state(ck, out, &next);
        else
            g_string_append_printf(out, "!! %s", ck->why->str);
        g_string_append(out, "\n");
        cur = next;
    }
    if (bad_step == NULL)
        g_string_append_printf(out, "        !! %s\n", ck->why->str);
    ck->fault = saved;
    g_string_free(desc, TRUE);
    g_array_free(path, TRUE);
    return steps;
}

/* ---- stuck states ------------------------------------------------------------------------------ */

static bool ck_quiescent(const Ck *ck, const CkState *s)
{
    if (s->txn >= 0)
        return false;
    for (int c = 0; c < ck->n; c++)
        if (!ck_state(ck, s->st[c])->stable || s->req[c] != REQ_NONE || s->op[c] != OP_NONE)
            return false;
    return true;
}

/* The steps the system takes by itself: the bus orders a request, data arrives, a core retries
 * its waiting access. New accesses and Replacements are the environment's, which need not come. */
static bool ck_progress_step(const CkState *s, CkStep step)
{
    switch ((CkStepKind)step.kind) {
    case STEP_ORDER:
    case STEP_DATA:
        return true;
    case STEP_CORE:
        return s->op[step.cache] == (step.ev == EV_LOAD ? OP_LOAD : OP_STORE);
    case STEP_REPLACE:
        return false;
    }
    return false;
}

/* Every reachable state must reach a quiescent one (all caches stable, no access or request
 * waiting, no data in flight) by progress steps alone: AG EF quiescent over those edges, by a
 * backward search. So an access that waits for a Replacement or another core's access to unblock
 * it counts as stuck. Returns the first (so shallowest) state that cannot, or -1. */
static gint64 ck_find_stuck(Ck *ck)
{
    guint n = ck->states->len, ne = ck->edges->len / 2;
    const guint32 *e = (const guint32 *)(void *)ck->edges->data;
    guint32 *start = g_new0(guint32, n + 1), *from = g_new(guint32, ne > 0 ? ne : 1);
    for (guint i = 0; i < ne; i++)
        start[e[2 * i + 1] + 1]++;
    for (guint i = 0; i < n; i++)
        start[i + 1] += start[i];
    guint32 *fill = g_memdup2(start, sizeof(guint32) * (n + 1));
    for (guint i = 0; i < ne; i++)
        from[fill[e[2 * i + 1]]++] = e[2 * i];
    bool *ok = g_new0(bool, n);
    guint32 *queue = g_new(guint32, n);
    guint head = 0, tail = 0;
    for (guint i = 0; i < n; i++)
        if (ck_quiescent(ck, &g_array_index(ck->states, CkState, i))) {
            ok[i] = true;
            queue[tail++] = i;
        }
    while (head < tail) {
        guint32 v = queue[head++];
        for (guint32 j = start[v]; j < start[v + 1]; j++)
            if (!ok[from[j]]) {
                ok[from[j]] = true;
                queue[tail++] = from[j];
            }
    }
    gint64 stuck = -1;
    for (guint i = 0; i < n && stuck < 0; i++)
        if (!ok[i])
            stuck = i;
    g_free(start);
    g_free(from);
    g_free(fill);
    g_free(ok);
    g_free(queue);
    return stuck;
}

/* ---- the search --------------------------------------------------------------------------------- */

static void ck_free(Ck *ck)
{
    proto_index_free(&ck->ix);
    g_free(ck->fired);
    g_string_free(ck->why, TRUE);
    if (ck->states != NULL) {
        g_array_free(ck->states, TRUE);
        g_array_free(ck->parent, TRUE);
        g_array_free(ck->via, TRUE);
        g_array_free(ck->edges, TRUE);
    }
    g_free(ck->slots);
}

static void ck_append_dead_rows(Ck *ck, GString *out, bool complete)
{
    int dead = 0;
    for (int r = 0; r < ck->t->nrows; r++)
        dead += ck->fired[r] == 0;
    if (dead == 0) {
        g_string_append(out, "dead rows: none (every row fired)\n");
        return;
    }
    g_string_append_printf(out, "dead rows (never fired%s; a warning): %d\n",
                           complete ? "" : " before the search stopped", dead);
    for (int r = 0; r < ck->t->nrows; r++) {
        if (ck->fired[r] != 0)
            continue;
        g_string_append(out, "  ");
        ck_append_row(ck, out, &ck->t->rows[r]);
        g_string_append(out, "\n");
    }
}

bool checker_run(const ProtoTable *t, int ncaches, CheckerResult *out, GString *report)
{
    g_assert(ncaches >= 1 && ncaches <= CHECKER_MAX_CACHES);
    Ck ck = { .t = t, .n = ncaches, .counting = true, .why = g_string_new(NULL) };
    CheckerResult res = { .verdict = CHECK_PASS, .ncaches = ncaches, .rows = t->nrows };
    GString *rep = report != NULL ? report : g_string_new(NULL);
    g_string_append_printf(rep, "%s with %d caches: ", t->name, ncaches);

    char *problem = NULL;
    if (!proto_index_build(t, &ck.ix, &problem)) {
        g_string_append_printf(ck.why, "%s", problem);
        g_free(problem);
        ck.fault = CHECK_MALFORMED;
    } else {
        ck_lint(&ck);
    }
    if (ck.fault != CHECK_PASS) {
        res.verdict = ck.fault;
        g_string_append_printf(rep, "FAIL: %s: %s\n", checker_verdict_names[ck.fault],
                               ck.why->str);
        goto done;
    }

    ck.fired = g_new0(uint64_t, (size_t)t->nrows);
    ck.states = g_array_new(FALSE, FALSE, sizeof(CkState));
    ck.parent = g_array_new(FALSE, FALSE, sizeof(guint32));
    ck.via = g_array_new(FALSE, FALSE, sizeof(CkStep));
    ck.edges = g_array_new(FALSE, FALSE, sizeof(guint32));

    CkState init;
    memset(&init, 0, sizeof init);
    for (int c = 0; c < ncaches; c++)
        init.st[c] = (uint8_t)t->initial;
    init.mem_fresh = 1;
    init.txn = -1;
    bool added;
    ck_intern(&ck, &init, 0, (CkStep){ 0, 0, 0 }, &added);
    ck_check_state(&ck, &init);

    /* the steps, in the order they are tried (which decides among equally short traces) */
    CkStep steps[4 * CHECKER_MAX_CACHES + 1];
    int nsteps = 0;
    for (int c = 0; c < ncaches; c++) {
        steps[nsteps++] = (CkStep){ STEP_CORE, (uint8_t)c, EV_LOAD };
        steps[nsteps++] = (CkStep){ STEP_CORE, (uint8_t)c, EV_STORE };
        steps[nsteps++] = (CkStep){ STEP_REPLACE, (uint8_t)c, EV_REPLACEMENT };
    }
    for (int c = 0; c < ncaches; c++)
        steps[nsteps++] = (CkStep){ STEP_ORDER, (uint8_t)c, 0 };
    for (int c = 0; c < ncaches; c++)
        steps[nsteps++] = (CkStep){ STEP_DATA, (uint8_t)c, 0 };

    gint64 bad_state = ck.fault != CHECK_PASS ? 0 : -1, bad_parent = -1;
    CkStep bad_step = { 0, 0, 0 };
    for (guint32 i = 0; i < ck.states->len && ck.fault == CHECK_PASS; i++) {
        for (int k = 0; k < nsteps && ck.fault == CHECK_PASS; k++) {
            CkState s = g_array_index(ck.states, CkState, i), next;
            if (!ck_step(&ck, &s, steps[k], &next))
                continue;
            if (ck.fault != CHECK_PASS) {
                bad_parent = i;
                bad_step = steps[k];
                break;
            }
            ck_normalize(&ck, &next);
            guint32 j = ck_intern(&ck, &next, i, steps[k], &added);
            if (j != i) {
                res.transitions++;
                if (ck_progress_step(&s, steps[k])) {
                    g_array_append_val(ck.edges, i);
                    g_array_append_val(ck.edges, j);
                }
            }
            if (added) {
                ck_check_state(&ck, &next);
                if (ck.fault != CHECK_PASS)
                    bad_state = j;
            }
        }
    }
    res.states = ck.states->len;
    if (ck.fault == CHECK_PASS) {
        gint64 stuck = ck_find_stuck(&ck);
        if (stuck >= 0) {
            const CkState *s = &g_array_index(ck.states, CkState, stuck);
            GString *who = g_string_new(NULL);
            for (int c = 0; c < ncaches; c++) {
                if (ck_state(&ck, s->st[c])->stable && s->op[c] == OP_NONE &&
                    s->req[c] == REQ_NONE)
                    continue;
                g_string_append_printf(who, "%sC%d in %s", who->len ? ", " : "", c,
                                       ck_sname(&ck, s->st[c]));
                if (s->op[c] != OP_NONE)
                    g_string_append_printf(who, " with a %s waiting", op_names[s->op[c]]);
            }
            ck_fault(&ck, CHECK_STUCK, "from the last state, ordering requests, delivering data "
                     "and retrying waiting accesses never bring every cache back to a stable "
                     "state with nothing waiting (%s)", who->str);
            g_string_free(who, TRUE);
            bad_state = stuck;
        }
    }
    res.verdict = ck.fault;
    for (int r = 0; r < t->nrows; r++)
        res.dead_rows += ck.fired[r] == 0;
    if (ck.fault == CHECK_PASS) {
        g_string_append_printf(rep, "pass: %zu states, %zu transitions; SWMR, single owner, "
                               "data value, permissions, bus rules, every row present, no stuck "
                               "state\n", res.states, res.transitions);
    } else {
        g_string_append_printf(rep, "FAIL: %s: %s\n", checker_verdict_names[ck.fault],
                               ck.why->str);
        if (bad_parent >= 0)
            res.trace_steps = ck_append_trace(&ck, rep, (guint32)bad_parent, &bad_step);
        else
            res.trace_steps = ck_append_trace(&ck, rep, (guint32)bad_state, NULL);
        g_string_append_printf(rep, "explored %zu states, %zu transitions%s\n", res.states,
                               res.transitions, ck.fault == CHECK_STUCK ? "" :
                               " before the violation");
    }
    ck_append_dead_rows(&ck, rep, ck.fault == CHECK_PASS || ck.fault == CHECK_STUCK);

done:
    if (out != NULL)
        *out = res;
    if (report == NULL)
        g_string_free(rep, TRUE);
    ck_free(&ck);
    return res.verdict == CHECK_PASS;
}

/* ---- Markdown -------------------------------------------------------------------------------- */

void checker_markdown(const ProtoTable *t, GString *out)
{
    ProtoIndex ix;
    char *problem = NULL;
    bool indexed = proto_index_build(t, &ix, &problem);
    g_assert(indexed);     /* the shipped tables build; the CLI checks others first */
    int stable = 0;
    for (int s = 0; s < t->nstates; s++)
        stable += t->states[s].stable;
    char *upper = g_ascii_strup(t->name, -1);
    g_string_append_printf(out, "# %s\n\n%s.\n\n", upper, t->title);
    g_free(upper);
    g_string_append_printf(out,
        "Generated by `archsim check-protocol --markdown %s` from `protocols/%s.c`; do not edit.\n"
        "%d states (%d stable), %d rows. A cell reads *actions / next state* (`-`: no action;\n"
        "no `/` when the state stays). A blank cell cannot happen under the bus rules of\n"
        "`protocols/protocol.h`; reaching it is a simulator bug. Perm: `R` read, `RW` read and\n"
        "write. Owner: the cache, not memory, supplies the block.\n\n",
        t->name, t->name, t->nstates, stable, t->nrows);
    g_string_append(out, "| State | Perm | Valid | Owner |");
    for (int e = 0; e < EV_COUNT; e++)
        g_string_append_printf(out, " %s |", proto_event_names[e]);
    g_string_append(out, "\n|---|---|---|---|");
    for (int e = 0; e < EV_COUNT; e++)
        g_string_append(out, "---|");
    g_string_append(out, "\n");
    static const char *const perms[] = { "-", "R", "RW" };
    for (int s = 0; s < t->nstates; s++) {
        const ProtoState *ps = &t->states[s];
        g_string_append_printf(out, "| %s%s%s | %s | %s | %s |", ps->stable ? "**" : "",
                               ps->name, ps->stable ? "**" : "", perms[ps->perm],
                               ps->valid ? "yes" : "", ps->owner ? "yes" : "");
        for (int e = 0; e < EV_COUNT; e++) {
            int r = proto_lookup(&ix, s, e);
            if (r < 0) {
                g_string_append(out, " |");
                continue;
            }
            const ProtoRow *row = &t->rows[r];
            g_string_append(out, " ");
            ck_append_actions(out, row->actions);
            if (row->next != row->state)
                g_string_append_printf(out, " / %s", t->states[row->next].name);
            g_string_append(out, " |");
        }
        g_string_append(out, "\n");
    }
    proto_index_free(&ix);
}

/* ---- the command line ------------------------------------------------------------------------- */

static const char ck_cli_description[] =
    "Explores every state that N caches sharing one block can reach under the protocol NAME and\n"
    "checks: SWMR, a single owner (snooping), the data-value invariant (valid copies, hits and\n"
    "memory are fresh where they must be), permissions, the bus or network rules, that every\n"
    "event that can occur has a row, and that no state is stuck. Prints the state count, a\n"
    "shortest counterexample on failure and the rows that never fired.\n"
    "\n"
    "Snooping protocols (the abstract bus of protocols/protocol.h): msi, mesi, moesi.\n"
    "Directory protocols (protocols/dirproto.h: unordered request and response networks, a\n"
    "forward network ordered point to point, every message in flight explored): dir-msi,\n"
    "dir-mesi. For these --pointers K models a limited-pointer directory that records K sharers\n"
    "and then falls back to broadcast (Inv to every cache); 0, the default, is a full bit vector.\n"
    "\n"
    "Exit status: 0 every invariant holds; 3 an invariant failed; 64 bad command line.\n"
    "\n"
    "Examples:\n"
    "  archsim check-protocol mesi\n"
    "  archsim check-protocol --caches 3 moesi\n"
    "  archsim check-protocol --caches 3 --pointers 1 dir-mesi\n"
    "  archsim check-protocol --markdown msi > docs/protocols/msi.md\n"
    "  archsim check-protocol --markdown dir-msi > docs/protocols/dir-msi.md\n";

static int ck_cli_usage_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

static int ck_cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    fprintf(stderr, "archsim check-protocol: %s\nTry 'archsim check-protocol --help'.\n", msg);
    g_free(msg);
    return ARCHSIM_EXIT_USAGE;
}

static int ck_cli_unknown(const char *name)
{
    const char *names[8];
    size_t n = 0;
    GString *known = g_string_new(NULL);
    for (const ProtoTable *const *t = proto_tables; *t != NULL && n < G_N_ELEMENTS(names); t++) {
        names[n++] = (*t)->name;
        g_string_append_printf(known, "%s%s", known->len ? ", " : "", (*t)->name);
    }
    for (const DirProtocol *const *q = dir_protocols; *q != NULL && n < G_N_ELEMENTS(names); q++) {
        names[n++] = (*q)->name;                /* the directory ones too */
        g_string_append_printf(known, ", %s", (*q)->name);
    }
    const char *hint = param_suggest(name, names, n);
    int rc;
    if (hint != NULL)
        rc = ck_cli_usage_error("unknown protocol '%s'; did you mean '%s'? (known: %s)", name,
                                hint, known->str);
    else
        rc = ck_cli_usage_error("unknown protocol '%s' (known: %s)", name, known->str);
    g_string_free(known, TRUE);
    return rc;
}

int checker_cli_main(int argc, char **argv)
{
    gint caches = G_MININT, pointers = G_MININT;     /* G_MININT: not given */
    gboolean markdown = FALSE, help = FALSE;
    GOptionEntry entries[] = {
        { "caches", 'n', 0, G_OPTION_ARG_INT, &caches,
          "check with N caches only, 2 or 3 (default: both)", "N" },
        { "pointers", 0, 0, G_OPTION_ARG_INT, &pointers,
          "directory protocols: K sharer pointers, then broadcast (default 0: full bit vector)",
          "K" },
        { "markdown", 0, 0, G_OPTION_ARG_NONE, &markdown,
          "print the table as Markdown instead of checking it", NULL },
        { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "Show this help and exit", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GOptionContext *ctx = g_option_context_new("NAME");
    g_option_context_set_help_enabled(ctx, FALSE);
    g_option_context_add_main_entries(ctx, entries, NULL);
    char **args = g_new0(char *, (size_t)MAX(argc, 1) + 1);
    for (int i = 0; i < argc; i++)
        args[i] = g_strdup(argv[i]);
    if (argc == 0)
        args[0] = g_strdup("check-protocol");

    int rc = ARCHSIM_EXIT_OK;
    GError *err = NULL;
    if (!g_option_context_parse_strv(ctx, &args, &err)) {
        rc = ck_cli_usage_error("%s", err->message);
        goto out;
    }
    if (help) {
        static const CliHelp ck_cli_help = {
            .cmd = "check-protocol",
            .usage = "archsim check-protocol [--caches N] [--pointers K] [--markdown] NAME",
            .summary = "Check a coherence protocol's table by exploring its states (Murphi "
                       "style).",
            .details = ck_cli_description,
        };
        cli_help_print(stdout, &ck_cli_help, entries);
        if (fflush(stdout) != 0 || ferror(stdout))
            rc = ARCHSIM_EXIT_IOERR;
        goto out;
    }
    guint first = args[1] != NULL && strcmp(args[1], "--") == 0 ? 2 : 1;
    guint nargs = g_strv_length(args) - first;
    if (nargs == 0) {
        rc = ck_cli_usage_error("missing NAME (one of the protocols: msi, mesi, moesi, dir-msi, "
                                "dir-mesi)");
        goto out;
    }
    if (nargs > 1) {
        rc = ck_cli_usage_error("unexpected argument '%s' (one NAME only)", args[first + 1]);
        goto out;
    }
    if (caches != G_MININT && caches != 2 && caches != 3) {
        rc = ck_cli_usage_error("--caches %d: expected 2 or 3", caches);
        goto out;
    }
    if (caches == G_MININT)
        caches = 0;                             /* both */
    bool dir = g_ascii_strncasecmp(args[first], "dir-", 4) == 0;
    if (pointers != G_MININT && !dir) {
        rc = ck_cli_usage_error("--pointers applies to directory protocols (dir-msi, dir-mesi), "
                                "not '%s'", args[first]);
        goto out;
    }
    if (pointers != G_MININT && (pointers < 0 || pointers > 64)) {
        rc = ck_cli_usage_error("--pointers %d: expected 0 (full bit vector) to 64", pointers);
        goto out;
    }
    if (dir) {      /* directory protocols: dirchecker.c */
        rc = dirchecker_cli(args[first], caches, MAX(pointers, 0), markdown);
        goto out;
    }
    const ProtoTable *t = proto_find(args[first]);
    if (t == NULL) {
        rc = ck_cli_unknown(args[first]);
        goto out;
    }
    GString *text = g_string_new(NULL);
    if (markdown) {
        checker_markdown(t, text);
    } else {
        for (int n = 2; n <= 3; n++) {
            if (caches != 0 && n != caches)
                continue;
            CheckerResult res;
            if (text->len)
                g_string_append(text, "\n");
            if (!checker_run(t, n, &res, text))
                rc = ARCHSIM_EXIT_CHECK;
        }
    }
    fputs(text->str, stdout);
    g_string_free(text, TRUE);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "archsim check-protocol: cannot write output\n");
        rc = ARCHSIM_EXIT_IOERR;
    } else if (rc == ARCHSIM_EXIT_CHECK) {
        fprintf(stderr, "archsim check-protocol: %s: an invariant failed (see above)\n", t->name);
    }
out:
    g_clear_error(&err);
    g_strfreev(args);
    g_option_context_free(ctx);
    return rc;
}
