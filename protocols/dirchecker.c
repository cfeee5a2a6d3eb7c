/* dirchecker.c: breadth-first explicit-state search over a directory protocol (dirproto.h):
 * N caches + one directory on one block, messages in unordered networks (a sorted multiset, so
 * delivery order is free) but the forward network FIFO per directory->cache pair; the sharer set
 * is a full bit vector or limited pointers with broadcast (DirSharers). BFS makes the first
 * counterexample a shortest one. Also prints the tables as Markdown. See dirchecker.h.
 */
#include "dirchecker.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../sim/error.h"
#include "../sim/param.h"

#define DIR_ID 0xff

enum { OP_NONE, OP_LOAD, OP_STORE };

typedef struct {
    uint8_t type, src, dst, req;
    int8_t acks;
    uint8_t fresh;
    uint8_t excl;       /* Data from the directory with DA_EXCL: Exclusive-Data */
    uint8_t ord;        /* forward network: position in its directory->cache FIFO (1 = head);
                           0 on the unordered request and response networks */
} DMsg;

typedef struct {
    uint8_t st[DIRCK_MAX_CACHES], fresh[DIRCK_MAX_CACHES], op[DIRCK_MAX_CACHES];
    int8_t acks[DIRCK_MAX_CACHES];
    uint8_t dst, sharers, overflow, mem_fresh, nmsg;   /* sharers/overflow: a DirSharers */
    int8_t owner;
    DMsg msg[DIRCK_MAX_MSGS];
} DState;

enum { STEP_LOAD, STEP_STORE, STEP_REPL, STEP_DELIVER };

typedef struct {
    uint8_t kind, cache;
    DMsg m;
} DStep;

typedef struct {
    const DirProtocol *p;
    int n, pointers;
    int16_t *ccell, *dcell;
    uint64_t *cfired, *dfired;
    CheckerVerdict fault;
    GString *why;
    GArray *states, *parent, *via, *edges;
    GHashTable *seen;
} DCk;

static void dk_fault(DCk *k, CheckerVerdict v, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

static void dk_fault(DCk *k, CheckerVerdict v, const char *fmt, ...)
{
    if (k->fault != CHECK_PASS)
        return;
    k->fault = v;
    va_list ap;
    va_start(ap, fmt);
    g_string_vprintf(k->why, fmt, ap);
    va_end(ap);
}

static guint dk_hash(gconstpointer key)
{
    const guint8 *b = key;
    guint h = 2166136261u;
    for (size_t i = 0; i < sizeof(DState); i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

static gboolean dk_equal(gconstpointer a, gconstpointer b)
{
    return memcmp(a, b, sizeof(DState)) == 0;
}

#define DK_CA_KNOWN (CA_SEND_GETS | CA_SEND_GETM | CA_SEND_PUTS | CA_SEND_PUTM | CA_DATA_TO_REQ | \
                     CA_DATA_TO_DIR | CA_INV_ACK | CA_COUNT_ACKS | CA_HIT | CA_STALL | CA_SEND_PUTE)
#define DK_DA_KNOWN (DA_DATA_TO_REQ | DA_FWD_GETS | DA_FWD_GETM | DA_INV_SHARERS | DA_PUT_ACK | \
                     DA_CLEAR_SHARERS | DA_ADD_REQ | DA_ADD_OWNER | DA_REMOVE_REQ | DA_CLEAR_OWNER | \
                     DA_SET_OWNER | DA_COPY_MEM | DA_STALL | DA_EXCL)

static int dk_msg_cmp(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(DMsg));
}

static bool dk_send_x(DCk *k, DState *s, uint8_t type, uint8_t src, uint8_t dst, uint8_t req,
                      int acks, uint8_t fresh, uint8_t excl)
{
    if (s->nmsg >= DIRCK_MAX_MSGS) {
        dk_fault(k, CHECK_BUS, "more than %d messages in flight", DIRCK_MAX_MSGS);
        return false;
    }
    DMsg m = { type, src, dst, req, (int8_t)acks, fresh, excl, 0 };
    /* The forward network keeps point-to-point order (the Primer's directory protocol needs
     * it: a Put-Ack must not overtake an earlier Fwd-GetS or Inv to the same cache); request
     * and response stay unordered. The position in the FIFO is part of the state, bounded by
     * the number of messages in flight. */
    if (dir_msg_vnet[type] == DVN_FORWARD) {
        uint8_t n = 0;
        for (int i = 0; i < s->nmsg; i++)
            if (s->msg[i].ord && s->msg[i].src == src && s->msg[i].dst == dst)
                n++;
        m.ord = (uint8_t)(n + 1);
    }
    s->msg[s->nmsg++] = m;
    return true;
}

static bool dk_send(DCk *k, DState *s, uint8_t type, uint8_t src, uint8_t dst, uint8_t req,
                    int acks, uint8_t fresh)
{
    return dk_send_x(k, s, type, src, dst, req, acks, fresh, 0);
}

static DirSharers dk_sharers(const DState *s)
{
    return (DirSharers){ .bits = s->sharers, .overflow = s->overflow != 0 };
}

static void dk_set_sharers(DState *s, DirSharers d)
{
    s->sharers = (uint8_t)d.bits;
    s->overflow = d.overflow;
}

static void dk_normalize(const DCk *k, DState *s)
{
    for (int c = 0; c < k->n; c++)
        if (!k->p->cstates[s->st[c]].valid && k->p->cstates[s->st[c]].perm == PERM_NONE)
            s->fresh[c] = 0;
    for (int i = s->nmsg; i < DIRCK_MAX_MSGS; i++)
        memset(&s->msg[i], 0, sizeof(DMsg));
    qsort(s->msg, s->nmsg, sizeof(DMsg), dk_msg_cmp);
}

static const char *dk_cname(const DCk *k, int s) { return k->p->cstates[s].name; }
static const char *dk_dname(const DCk *k, int s) { return k->p->dstates[s].name; }

/* Performs a core access in cache c (already in its new state); `waiting` says whether it is the
 * access the core waits on (completed here) or another one presented meanwhile (a plain hit). */
static void dk_hit(DCk *k, DState *s, int c, int op, bool waiting)
{
    const ProtoState *ps = &k->p->cstates[s->st[c]];
    if (op == OP_NONE) {
        dk_fault(k, CHECK_BUS, "C%d: hit in %s with no core access waiting", c, ps->name);
        return;
    }
    if ((op == OP_LOAD && ps->perm < PERM_READ) || (op == OP_STORE && ps->perm < PERM_WRITE)) {
        dk_fault(k, CHECK_PERM, "C%d: %s hit in %s", c, op == OP_LOAD ? "Load" : "Store",
                 ps->name);
        return;
    }
    if (op == OP_LOAD && !s->fresh[c]) {
        dk_fault(k, CHECK_DATA_VALUE, "C%d: load in %s reads a stale value", c, ps->name);
        return;
    }
    if (op == OP_STORE) {
        for (int o = 0; o < k->n; o++)
            s->fresh[o] = o == c;
        s->mem_fresh = 0;
        for (int i = 0; i < s->nmsg; i++)
            s->msg[i].fresh = 0;
    }
    if (waiting)
        s->op[c] = OP_NONE;
}

/* A core event (Load, Store, Replacement) at cache c. One access waits at a time per core (the
 * one that missed); while it waits, another Load or Store is looked up (so its row must exist),
 * and fires only when it stalls (nothing happens) or is a plain hit that keeps the state (SM_AD +
 * Load); any other row is held back, as a core with one outstanding miss would. */
static bool dk_core_step(DCk *k, const DState *from, const DStep *step, DState *to)
{
    const DirProtocol *p = k->p;
    int c = step->cache;
    int ev = step->kind == STEP_LOAD ? DCE_LOAD : step->kind == STEP_STORE ? DCE_STORE
                                                                           : DCE_REPLACEMENT;
    if (ev == DCE_REPLACEMENT && from->st[c] == p->cinitial)
        return false;
    int r = k->ccell[from->st[c] * DCE_COUNT + ev];
    if (r < 0) {
        dk_fault(k, CHECK_MISSING_ROW, "C%d: no row for %s + %s", c, dk_cname(k, from->st[c]),
                 dir_cache_event_names[ev]);
        return true;
    }
    const DirRow *row = &p->crows[r];
    if (row->actions & CA_STALL)
        return false;
    int op = ev == DCE_LOAD ? OP_LOAD : ev == DCE_STORE ? OP_STORE : OP_NONE;
    if (from->op[c] != OP_NONE && op != OP_NONE) {
        if (row->actions != CA_HIT || row->next != row->state)
            return false;
        k->cfired[r]++;
        dk_hit(k, to, c, op, false);
        return true;
    }
    k->cfired[r]++;
    to->st[c] = row->next;
    uint8_t f = from->fresh[c];
    if (row->actions & CA_SEND_GETS)
        dk_send(k, to, DM_GETS, (uint8_t)c, DIR_ID, (uint8_t)c, 0, 0);
    if (row->actions & CA_SEND_GETM)
        dk_send(k, to, DM_GETM, (uint8_t)c, DIR_ID, (uint8_t)c, 0, 0);
    if (row->actions & CA_SEND_PUTS)
        dk_send(k, to, DM_PUTS, (uint8_t)c, DIR_ID, (uint8_t)c, 0, 0);
    if (row->actions & CA_SEND_PUTM)
        dk_send(k, to, DM_PUTM, (uint8_t)c, DIR_ID, (uint8_t)c, 0, f);
    if (row->actions & CA_SEND_PUTE)
        dk_send(k, to, DM_PUTE, (uint8_t)c, DIR_ID, (uint8_t)c, 0, 0);
    if (op != OP_NONE) {
        to->op[c] = (uint8_t)op;
        if (row->actions & CA_HIT)
            dk_hit(k, to, c, op, true);
    } else if (row->actions & CA_HIT) {
        dk_fault(k, CHECK_BUS, "C%d: hit on Replacement in %s", c, dk_cname(k, from->st[c]));
    }
    return true;
}

/* A request (or the owner's data) reaches the directory. */
static bool dk_dir_step(DCk *k, const DState *from, const DMsg *m, DState *to)
{
    const DirProtocol *p = k->p;
    int ev;
    DirSharers sh = dk_sharers(from);
    switch (m->type) {
    case DM_GETS: ev = DDE_GETS; break;
    case DM_GETM: ev = DDE_GETM; break;
    case DM_PUTS: ev = dir_sharers_last(&sh, m->req) ? DDE_PUTS_LAST : DDE_PUTS_NOTLAST; break;
    case DM_PUTM: ev = from->owner == m->req ? DDE_PUTM_OWNER : DDE_PUTM_NONOWNER; break;
    case DM_PUTE: ev = from->owner == m->req ? DDE_PUTE_OWNER : DDE_PUTE_NONOWNER; break;
    case DM_DATA: ev = DDE_DATA; break;
    default:
        dk_fault(k, CHECK_BUS, "the directory received %s", dir_msg_names[m->type]);
        return true;
    }
    int r = k->dcell[from->dst * DDE_COUNT + ev];
    if (r < 0) {
        dk_fault(k, CHECK_MISSING_ROW, "directory: no row for %s + %s", dk_dname(k, from->dst),
                 dir_dir_event_names[ev]);
        return true;
    }
    const DirRow *row = &p->drows[r];
    uint32_t a = row->actions;
    if (a & DA_STALL)
        return false;
    k->dfired[r]++;
    uint8_t req = m->req;
    int old_owner = from->owner;
    uint64_t targets = dir_sharers_inv_targets(&sh, req, k->n);
    if (a & DA_DATA_TO_REQ) {
        int acks = m->type == DM_GETM ? __builtin_popcountll(targets) : 0;
        if ((a & DA_EXCL) && acks != 0) {
            dk_fault(k, CHECK_BUS, "directory: Exclusive-Data with an ack count of %d (%s + %s)",
                     acks, dk_dname(k, from->dst), dir_dir_event_names[ev]);
            return true;
        }
        dk_send_x(k, to, DM_DATA, DIR_ID, req, req, acks, from->mem_fresh, (a & DA_EXCL) != 0);
    }
    if ((a & (DA_FWD_GETS | DA_FWD_GETM)) && (old_owner < 0 || old_owner == req)) {
        dk_fault(k, CHECK_BUS, "directory: forward %s (%s + %s)",
                 old_owner < 0 ? "with no owner" : "to the requester itself",
                 dk_dname(k, from->dst), dir_dir_event_names[ev]);
        return true;
    }
    if (a & DA_FWD_GETS)
        dk_send(k, to, DM_FWD_GETS, DIR_ID, (uint8_t)old_owner, req, 0, 0);
    if (a & DA_FWD_GETM)
        dk_send(k, to, DM_FWD_GETM, DIR_ID, (uint8_t)old_owner, req, 0, 0);
    if (a & DA_INV_SHARERS)
        for (int c = 0; c < k->n; c++)
            if (targets & (1ull << c))
                dk_send(k, to, DM_INV, DIR_ID, (uint8_t)c, req, 0, 0);
    if (a & DA_PUT_ACK)
        dk_send(k, to, DM_PUT_ACK, DIR_ID, req, req, 0, 0);
    if (a & DA_CLEAR_SHARERS)
        dir_sharers_clear(&sh);
    if (a & DA_ADD_REQ)
        dir_sharers_add(&sh, req, k->pointers);
    if ((a & DA_ADD_OWNER) && old_owner >= 0)
        dir_sharers_add(&sh, old_owner, k->pointers);
    if (a & DA_REMOVE_REQ)
        dir_sharers_remove(&sh, req);
    dk_set_sharers(to, sh);
    if (a & DA_CLEAR_OWNER)
        to->owner = -1;
    if (a & DA_SET_OWNER)
        to->owner = (int8_t)req;
    if (a & DA_COPY_MEM) {
        if (m->type != DM_PUTM && m->type != DM_DATA) {
            dk_fault(k, CHECK_BUS, "directory: copy to memory from %s, which carries no data",
                     dir_msg_names[m->type]);
            return true;
        }
        to->mem_fresh = m->fresh;
    }
    to->dst = row->next;
    return true;
}

/* A forward, Put-Ack, Data or Inv-Ack reaches cache m->dst. */
static bool dk_cache_step(DCk *k, const DState *from, const DMsg *m, DState *to)
{
    const DirProtocol *p = k->p;
    int c = m->dst, ev;
    switch (m->type) {
    case DM_FWD_GETS: ev = DCE_FWD_GETS; break;
    case DM_FWD_GETM: ev = DCE_FWD_GETM; break;
    case DM_INV: ev = DCE_INV; break;
    case DM_PUT_ACK: ev = DCE_PUT_ACK; break;
    case DM_DATA:
        ev = m->src != DIR_ID ? DCE_DATA_OWNER
             : m->excl ? DCE_DATA_DIR_EXCL
             : from->acks[c] + m->acks == 0 ? DCE_DATA_DIR_ACK0 : DCE_DATA_DIR_ACKS;
        break;
    case DM_INV_ACK: ev = from->acks[c] - 1 == 0 ? DCE_LAST_INV_ACK : DCE_INV_ACK; break;
    default:
        dk_fault(k, CHECK_BUS, "C%d received %s", c, dir_msg_names[m->type]);
        return true;
    }
    int r = k->ccell[from->st[c] * DCE_COUNT + ev];
    if (r < 0) {
        dk_fault(k, CHECK_MISSING_ROW, "C%d: no row for %s + %s", c, dk_cname(k, from->st[c]),
                 dir_cache_event_names[ev]);
        return true;
    }
    const DirRow *row = &p->crows[r];
    uint32_t a = row->actions;
    if (a & CA_STALL)
        return false;
    k->cfired[r]++;
    uint8_t f = from->fresh[c];
    if ((a & (CA_DATA_TO_REQ | CA_DATA_TO_DIR | CA_INV_ACK)) && m->req == c) {
        dk_fault(k, CHECK_BUS, "C%d: %s + %s answers its own request", c,
                 dk_cname(k, from->st[c]), dir_cache_event_names[ev]);
        return true;
    }
    if (a & CA_DATA_TO_REQ)
        dk_send(k, to, DM_DATA, (uint8_t)c, m->req, m->req, 0, f);
    if (a & CA_DATA_TO_DIR)
        dk_send(k, to, DM_DATA, (uint8_t)c, DIR_ID, m->req, 0, f);
    if (a & CA_INV_ACK)
        dk_send(k, to, DM_INV_ACK, (uint8_t)c, m->req, m->req, 0, 0);
    if (a & CA_SEND_GETS)      /* IS_D_I: the data was not usable, ask again */
        dk_send(k, to, DM_GETS, (uint8_t)c, DIR_ID, (uint8_t)c, 0, 0);
    if (a & CA_SEND_GETM)
        dk_send(k, to, DM_GETM, (uint8_t)c, DIR_ID, (uint8_t)c, 0, 0);
    if (m->type == DM_DATA)
        to->fresh[c] = m->fresh;
    if (a & CA_COUNT_ACKS)
        to->acks[c] = (int8_t)(to->acks[c] + (m->type == DM_DATA ? m->acks
                                              : m->type == DM_INV_ACK ? -1 : 0));
    to->st[c] = row->next;
    if (a & CA_HIT)
        dk_hit(k, to, c, to->op[c], true);
    if (p->cstates[row->next].stable && to->acks[c] != 0)
        dk_fault(k, CHECK_BUS, "C%d entered %s with an ack counter of %d", c,
                 dk_cname(k, row->next), to->acks[c]);
    return true;
}

/* One step; false when it is not enabled or changes nothing (stall). */
static bool dk_step(DCk *k, const DState *from, const DStep *step, DState *to)
{
    *to = *from;
    if (step->kind != STEP_DELIVER)
        return dk_core_step(k, from, step, to);
    /* delivery: take the message out */
    const DMsg m = step->m;
    int idx = -1;
    for (int i = 0; i < from->nmsg; i++)
        if (memcmp(&from->msg[i], &m, sizeof m) == 0)
            idx = i;
    g_assert(idx >= 0);
    to->msg[idx] = to->msg[to->nmsg - 1];
    to->nmsg--;
    if (m.ord)      /* the FIFO's head left: the others move up */
        for (int i = 0; i < to->nmsg; i++)
            if (to->msg[i].ord && to->msg[i].src == m.src && to->msg[i].dst == m.dst)
                to->msg[i].ord--;
    if (m.dst == DIR_ID)
        return dk_dir_step(k, from, &m, to);
    return dk_cache_step(k, from, &m, to);
}

static void dk_check_state(DCk *k, const DState *s)
{
    int writer = -1, owners = 0;
    for (int c = 0; c < k->n; c++) {
        const ProtoState *ps = &k->p->cstates[s->st[c]];
        owners += ps->owner;
        if (ps->perm == PERM_WRITE)
            writer = c;
        if (ps->perm >= PERM_READ && !s->fresh[c]) {
            dk_fault(k, CHECK_DATA_VALUE, "C%d in %s holds a stale copy", c, ps->name);
            return;
        }
    }
    if (writer >= 0)
        for (int c = 0; c < k->n; c++)
            if (c != writer && k->p->cstates[s->st[c]].perm >= PERM_READ) {
                dk_fault(k, CHECK_SWMR, "C%d in %s may write while C%d in %s may read", writer,
                         dk_cname(k, s->st[writer]), c, dk_cname(k, s->st[c]));
                return;
            }
    (void)owners;   /* MI_A may outlive its ownership (PutM taken, Put-Ack in flight): the
                       directory's owner field, not the flag, says who supplies */
    if (k->p->dstates[s->dst].mem_current && !s->mem_fresh) {
        dk_fault(k, CHECK_DATA_VALUE, "directory in %s but memory is stale", dk_dname(k, s->dst));
        return;
    }
    /* A clean copy (valid, not an owner state: S, E, EI_A, ...) that holds the latest value is
     * backed by memory, or by the data on its way to it (M + Fwd-GetS -> S). This is what makes
     * E honest: E may be left with PutE (no data) only while no store happened; a store in E
     * must move the line to an owner state (M), since it makes memory stale. */
    if (s->mem_fresh)
        return;
    for (int i = 0; i < s->nmsg; i++)
        if (s->msg[i].type == DM_DATA && s->msg[i].dst == DIR_ID && s->msg[i].fresh)
            return;
    for (int c = 0; c < k->n; c++) {
        const ProtoState *ps = &k->p->cstates[s->st[c]];
        if (ps->valid && !ps->owner && s->fresh[c]) {
            dk_fault(k, CHECK_DATA_VALUE, "C%d in %s (clean: not an owner state) holds the "
                     "latest value but memory is stale and no data is on its way to it", c,
                     ps->name);
            return;
        }
    }
}

static bool dk_quiescent(const DCk *k, const DState *s)
{
    if (s->nmsg != 0 || !k->p->dstates[s->dst].stable)
        return false;
    for (int c = 0; c < k->n; c++)
        if (!k->p->cstates[s->st[c]].stable || s->op[c] != OP_NONE)
            return false;
    return true;
}

static void dk_append_state(const DCk *k, GString *out, const DState *s)
{
    for (int c = 0; c < k->n; c++)
        g_string_append_printf(out, "C%d=%s%s%s%s ", c, dk_cname(k, s->st[c]),
                               s->fresh[c] ? "(fresh)" : "",
                               s->op[c] == OP_LOAD ? "[Load]" : s->op[c] == OP_STORE ? "[Store]"
                                                                                      : "",
                               s->acks[c] ? "{acks}" : "");
    g_string_append_printf(out, "Dir=%s sharers=", dk_dname(k, s->dst));
    if (s->overflow) {
        g_string_append(out, "all(overflow)");
    } else {
        g_string_append(out, "{");
        for (int c = 0; c < k->n; c++)
            if (s->sharers & (1u << c))
                g_string_append_printf(out, "C%d", c);
        g_string_append(out, "}");
    }
    if (s->owner >= 0)
        g_string_append_printf(out, " owner=C%d", s->owner);
    g_string_append_printf(out, " mem=%s", s->mem_fresh ? "fresh" : "stale");
    for (int i = 0; i < s->nmsg; i++) {
        const DMsg *m = &s->msg[i];
        g_string_append_printf(out, "%s%s ", i ? ", " : "; in flight: ", dir_msg_names[m->type]);
        if (m->src == DIR_ID)
            g_string_append(out, "Dir");
        else
            g_string_append_printf(out, "C%d", m->src);
        if (m->dst == DIR_ID)
            g_string_append(out, "->Dir");
        else
            g_string_append_printf(out, "->C%d", m->dst);
        if (m->type == DM_DATA && m->src == DIR_ID)
            g_string_append_printf(out, " %s%d", m->excl ? "excl, ack=" : "ack=", m->acks);
    }
}

static void dk_append_step(GString *out, const DStep *st)
{
    static const char *const core[] = { "Load", "Store", "Replacement" };
    if (st->kind != STEP_DELIVER) {
        g_string_append_printf(out, "C%d %s", st->cache, core[st->kind]);
        return;
    }
    g_string_append_printf(out, "deliver %s (%s) ", dir_msg_names[st->m.type],
                           dir_vnet_names[dir_msg_vnet[st->m.type]]);
    if (st->m.src == DIR_ID)
        g_string_append(out, "Dir");
    else
        g_string_append_printf(out, "C%d", st->m.src);
    if (st->m.dst == DIR_ID)
        g_string_append(out, "->Dir");
    else
        g_string_append_printf(out, "->C%d", st->m.dst);
}

static int dk_trace(DCk *k, GString *out, guint32 last, const DStep *bad)
{
    GArray *chain = g_array_new(FALSE, FALSE, sizeof(guint32));
    for (guint32 i = last;; i = g_array_index(k->parent, guint32, i)) {
        g_array_prepend_val(chain, i);
        if (i == 0)
            break;
    }
    g_string_append(out, "counterexample:\n");
    int steps = 0;
    for (guint i = 0; i < chain->len; i++) {
        guint32 j = g_array_index(chain, guint32, i);
        if (i > 0) {
            g_string_append_printf(out, "  %d. ", ++steps);
            dk_append_step(out, &g_array_index(k->via, DStep, j));
            g_string_append(out, "\n");
        }
        g_string_append(out, "     ");
        dk_append_state(k, out, &g_array_index(k->states, DState, j));
        g_string_append(out, "\n");
    }
    if (bad != NULL) {
        g_string_append_printf(out, "  %d. ", ++steps);
        dk_append_step(out, bad);
        g_string_append(out, "  <- violation\n");
    }
    g_array_free(chain, TRUE);
    return steps;
}

static guint32 dk_intern(DCk *k, const DState *s, guint32 parent, const DStep *via, bool *added)
{
    gpointer v;
    if (g_hash_table_lookup_extended(k->seen, s, NULL, &v)) {
        *added = false;
        return GPOINTER_TO_UINT(v) - 1;
    }
    guint32 idx = k->states->len;
    g_array_append_val(k->states, *s);
    g_array_append_val(k->parent, parent);
    g_array_append_val(k->via, *via);
    g_hash_table_insert(k->seen, g_memdup2(s, sizeof *s), GUINT_TO_POINTER(idx + 1));
    *added = true;
    return idx;
}

/* A state from which no quiescent state is reachable by deliveries alone, or -1. */
static gint64 dk_find_stuck(DCk *k)
{
    guint32 n = k->states->len;
    GPtrArray *rev = g_ptr_array_new_full(n, NULL);
    guint32 *deg = g_new0(guint32, n + 1), *adj;
    for (guint i = 0; i + 1 < k->edges->len; i += 2)
        deg[g_array_index(k->edges, guint32, i + 1) + 1]++;
    for (guint32 i = 0; i < n; i++)
        deg[i + 1] += deg[i];
    adj = g_new(guint32, k->edges->len / 2 + 1);
    guint32 *fill = g_memdup2(deg, sizeof(guint32) * (n + 1));
    for (guint i = 0; i + 1 < k->edges->len; i += 2) {
        guint32 from = g_array_index(k->edges, guint32, i), to = g_array_index(k->edges, guint32,
                                                                                 i + 1);
        adj[fill[to]++] = from;
    }
    guint8 *ok = g_new0(guint8, n);
    guint32 *queue = g_new(guint32, n), qh = 0, qt = 0;
    for (guint32 i = 0; i < n; i++)
        if (dk_quiescent(k, &g_array_index(k->states, DState, i))) {
            ok[i] = 1;
            queue[qt++] = i;
        }
    while (qh < qt) {
        guint32 j = queue[qh++];
        for (guint32 e = deg[j]; e < deg[j + 1]; e++)
            if (!ok[adj[e]]) {
                ok[adj[e]] = 1;
                queue[qt++] = adj[e];
            }
    }
    gint64 bad = -1;
    for (guint32 i = 0; i < n && bad < 0; i++)
        if (!ok[i])
            bad = i;
    g_free(ok);
    g_free(queue);
    g_free(fill);
    g_free(adj);
    g_free(deg);
    g_ptr_array_free(rev, TRUE);
    return bad;
}

/* The (state, event) -> row index, and the table's shape: indices in range, one row per pair, a
 * stall that neither acts nor moves, no unknown action bits, `need` only with `with`. */
static bool dk_build_cells(const DirRow *rows, int nrows, int nstates, int nev, int16_t *cell,
                           uint32_t stall, uint32_t known, uint32_t need, uint32_t with,
                           const char *what, GString *why)
{
    for (int i = 0; i < nstates * nev; i++)
        cell[i] = -1;
    for (int r = 0; r < nrows; r++) {
        const DirRow *row = &rows[r];
        if (row->state >= nstates || row->next >= nstates || row->event >= nev) {
            g_string_printf(why, "%s row %d: index out of range", what, r);
            return false;
        }
        if ((row->actions & stall) && (row->actions != stall || row->next != row->state)) {
            g_string_printf(why, "%s row %d: a stall that acts or moves", what, r);
            return false;
        }
        if ((row->actions & ~known) || ((row->actions & need) && !(row->actions & with))) {
            g_string_printf(why, "%s row %d: actions 0x%x mean nothing", what, r, row->actions);
            return false;
        }
        int16_t *c = &cell[row->state * nev + row->event];
        if (*c >= 0) {
            g_string_printf(why, "%s rows %d and %d: same state and event", what, *c, r);
            return false;
        }
        *c = (int16_t)r;
    }
    return true;
}

static void dk_dead_rows(DCk *k, GString *out, int *dead_out)
{
    int dead = 0;
    for (int r = 0; r < k->p->ncrows; r++)
        dead += k->cfired[r] == 0 && !(k->p->crows[r].actions & CA_STALL);
    for (int r = 0; r < k->p->ndrows; r++)
        dead += k->dfired[r] == 0 && !(k->p->drows[r].actions & DA_STALL);
    *dead_out = dead;
    if (dead == 0) {
        g_string_append(out, "dead rows: none (every non-stall row fired)\n");
        return;
    }
    g_string_append_printf(out, "dead rows (never fired; a warning; stall rows not counted): %d\n",
                           dead);
    for (int r = 0; r < k->p->ncrows; r++)
        if (k->cfired[r] == 0 && !(k->p->crows[r].actions & CA_STALL))
            g_string_append_printf(out, "  cache %s + %s -> %s\n",
                                   dk_cname(k, k->p->crows[r].state),
                                   dir_cache_event_names[k->p->crows[r].event],
                                   dk_cname(k, k->p->crows[r].next));
    for (int r = 0; r < k->p->ndrows; r++)
        if (k->dfired[r] == 0 && !(k->p->drows[r].actions & DA_STALL))
            g_string_append_printf(out, "  directory %s + %s -> %s\n",
                                   dk_dname(k, k->p->drows[r].state),
                                   dir_dir_event_names[k->p->drows[r].event],
                                   dk_dname(k, k->p->drows[r].next));
}

static void dk_append_sharers_model(GString *out, int pointers)
{
    if (pointers == 0)
        g_string_append(out, "full bit vector");
    else
        g_string_append_printf(out, "%d pointer%s, broadcast on overflow", pointers,
                               pointers == 1 ? "" : "s");
}

bool dirchecker_run(const DirProtocol *p, int ncaches, int pointers, CheckerResult *out,
                    GString *report)
{
    g_assert(ncaches >= 1 && ncaches <= DIRCK_MAX_CACHES);
    g_assert(pointers >= 0);
    DCk k = { .p = p, .n = ncaches, .pointers = pointers, .why = g_string_new(NULL) };
    CheckerResult res = { .verdict = CHECK_PASS, .ncaches = ncaches,
                          .rows = p->ncrows + p->ndrows };
    GString *rep = report != NULL ? report : g_string_new(NULL);
    g_string_append_printf(rep, "%s with %d caches (", p->name, ncaches);
    dk_append_sharers_model(rep, pointers);
    g_string_append(rep, "): ");
    k.ccell = g_new(int16_t, (size_t)p->ncstates * DCE_COUNT);
    k.dcell = g_new(int16_t, (size_t)p->ndstates * DDE_COUNT);
    k.cfired = g_new0(uint64_t, (size_t)p->ncrows + 1);
    k.dfired = g_new0(uint64_t, (size_t)p->ndrows + 1);
    k.states = g_array_new(FALSE, FALSE, sizeof(DState));
    k.parent = g_array_new(FALSE, FALSE, sizeof(guint32));
    k.via = g_array_new(FALSE, FALSE, sizeof(DStep));
    k.edges = g_array_new(FALSE, FALSE, sizeof(guint32));
    k.seen = g_hash_table_new_full(dk_hash, dk_equal, g_free, NULL);
    if (!dk_build_cells(p->crows, p->ncrows, p->ncstates, DCE_COUNT, k.ccell, CA_STALL,
                        DK_CA_KNOWN, 0, 0, "cache", k.why) ||
        !dk_build_cells(p->drows, p->ndrows, p->ndstates, DDE_COUNT, k.dcell, DA_STALL,
                        DK_DA_KNOWN, DA_EXCL, DA_DATA_TO_REQ, "directory", k.why)) {
        res.verdict = k.fault = CHECK_MALFORMED;
        g_string_append_printf(rep, "FAIL: %s: %s\n", checker_verdict_names[k.fault], k.why->str);
        goto done;
    }

    DState init;
    memset(&init, 0, sizeof init);
    for (int c = 0; c < ncaches; c++)
        init.st[c] = (uint8_t)p->cinitial;
    init.dst = (uint8_t)p->dinitial;
    init.mem_fresh = 1;
    init.owner = -1;
    DStep none;
    memset(&none, 0, sizeof none);
    bool added;
    dk_intern(&k, &init, 0, &none, &added);

    gint64 bad_state = -1, bad_parent = -1;
    DStep bad_step = none;
    for (guint32 i = 0; i < k.states->len && k.fault == CHECK_PASS; i++) {
        DStep steps[3 * DIRCK_MAX_CACHES + DIRCK_MAX_MSGS];
        int nsteps = 0;
        DState s = g_array_index(k.states, DState, i);
        for (int c = 0; c < ncaches; c++)
            for (int kind = STEP_LOAD; kind <= STEP_REPL; kind++) {
                memset(&steps[nsteps], 0, sizeof(DStep));
                steps[nsteps].kind = (uint8_t)kind;
                steps[nsteps++].cache = (uint8_t)c;
            }
        for (int m = 0; m < s.nmsg; m++) {
            if (m > 0 && memcmp(&s.msg[m], &s.msg[m - 1], sizeof(DMsg)) == 0)
                continue;       /* identical messages: one delivery covers both */
            if (s.msg[m].ord > 1)
                continue;       /* not the head of its ordered channel yet */
            memset(&steps[nsteps], 0, sizeof(DStep));
            steps[nsteps].kind = STEP_DELIVER;
            steps[nsteps++].m = s.msg[m];
        }
        for (int j = 0; j < nsteps && k.fault == CHECK_PASS; j++) {
            s = g_array_index(k.states, DState, i);
            DState next;
            if (!dk_step(&k, &s, &steps[j], &next))
                continue;
            if (k.fault != CHECK_PASS) {
                bad_parent = i;
                bad_step = steps[j];
                break;
            }
            dk_normalize(&k, &next);
            guint32 to = dk_intern(&k, &next, i, &steps[j], &added);
            if (to != i) {
                res.transitions++;
                if (steps[j].kind == STEP_DELIVER) {
                    g_array_append_val(k.edges, i);
                    g_array_append_val(k.edges, to);
                }
            }
            if (added) {
                dk_check_state(&k, &next);
                if (k.fault != CHECK_PASS)
                    bad_state = to;
            }
        }
    }
    res.states = k.states->len;
    if (k.fault == CHECK_PASS) {
        gint64 stuck = dk_find_stuck(&k);
        if (stuck >= 0) {
            dk_fault(&k, CHECK_STUCK, "from the last state no sequence of deliveries brings the "
                     "system back to quiescence (stable states, no access waiting, no message "
                     "in flight)");
            bad_state = stuck;
        }
    }
    res.verdict = k.fault;
    if (k.fault == CHECK_PASS) {
        g_string_append_printf(rep, "pass: %zu states, %zu transitions; SWMR, data value, "
                               "permissions, ack counts, network rules, every row present, no "
                               "stuck state\n", res.states, res.transitions);
    } else {
        g_string_append_printf(rep, "FAIL: %s: %s\n", checker_verdict_names[k.fault],
                               k.why->str);
        if (bad_parent >= 0)
            res.trace_steps = dk_trace(&k, rep, (guint32)bad_parent, &bad_step);
        else
            res.trace_steps = dk_trace(&k, rep, (guint32)bad_state, NULL);
        g_string_append_printf(rep, "explored %zu states, %zu transitions\n", res.states,
                               res.transitions);
    }
    dk_dead_rows(&k, rep, &res.dead_rows);
done:
    if (out != NULL)
        *out = res;
    if (report == NULL)
        g_string_free(rep, TRUE);
    g_free(k.ccell);
    g_free(k.dcell);
    g_free(k.cfired);
    g_free(k.dfired);
    g_array_free(k.states, TRUE);
    g_array_free(k.parent, TRUE);
    g_array_free(k.via, TRUE);
    g_array_free(k.edges, TRUE);
    g_hash_table_destroy(k.seen);
    g_string_free(k.why, TRUE);
    return res.verdict == CHECK_PASS;
}

/* ---- Markdown -------------------------------------------------------------------------------- */

static const struct { uint32_t bit; const char *text; } dk_cache_action_text[] = {
    { CA_SEND_GETS, "send GetS" }, { CA_SEND_GETM, "send GetM" }, { CA_SEND_PUTS, "send PutS" },
    { CA_SEND_PUTM, "send PutM+data" }, { CA_SEND_PUTE, "send PutE" },
    { CA_DATA_TO_REQ, "data to req" }, { CA_DATA_TO_DIR, "data to dir" },
    { CA_INV_ACK, "Inv-Ack to req" }, { CA_COUNT_ACKS, "count acks" }, { CA_HIT, "hit" },
    { CA_STALL, "stall" },
};

static const struct { uint32_t bit; const char *text; } dk_dir_action_text[] = {
    { DA_DATA_TO_REQ, "data to req" }, { DA_FWD_GETS, "Fwd-GetS to owner" },
    { DA_FWD_GETM, "Fwd-GetM to owner" }, { DA_INV_SHARERS, "Inv to sharers" },
    { DA_PUT_ACK, "Put-Ack" }, { DA_CLEAR_SHARERS, "clear sharers" },
    { DA_ADD_REQ, "add req to sharers" }, { DA_ADD_OWNER, "add owner to sharers" },
    { DA_REMOVE_REQ, "remove req from sharers" }, { DA_CLEAR_OWNER, "clear owner" },
    { DA_SET_OWNER, "owner = req" }, { DA_COPY_MEM, "copy data to memory" },
    { DA_STALL, "stall" },
};

static void dk_md_cell(GString *out, const DirRow *row, const char *next, bool cache)
{
    bool any = false;
    size_t n = cache ? G_N_ELEMENTS(dk_cache_action_text) : G_N_ELEMENTS(dk_dir_action_text);
    for (size_t i = 0; i < n; i++) {
        uint32_t bit = cache ? dk_cache_action_text[i].bit : dk_dir_action_text[i].bit;
        if (!(row->actions & bit))
            continue;
        const char *text = cache ? dk_cache_action_text[i].text : dk_dir_action_text[i].text;
        if (!cache && bit == DA_DATA_TO_REQ && (row->actions & DA_EXCL))
            text = "Exclusive-Data to req";
        g_string_append_printf(out, "%s%s", any ? ", " : "", text);
        any = true;
    }
    if (!any)
        g_string_append(out, "-");
    if (row->next != row->state)
        g_string_append_printf(out, " / %s", next);
}

/* One table: rows = states (with flag columns from `flags`), columns = the events that have at
 * least one row. */
static void dk_md_table(GString *out, const DirRow *rows, int nrows, int nstates, int nev,
                        const char *const *evnames, bool cache, const DirProtocol *p)
{
    int16_t *cell = g_new(int16_t, (size_t)nstates * nev);
    bool *used = g_new0(bool, (size_t)nev);
    for (int i = 0; i < nstates * nev; i++)
        cell[i] = -1;
    for (int r = 0; r < nrows; r++) {
        cell[rows[r].state * nev + rows[r].event] = (int16_t)r;
        used[rows[r].event] = true;
    }
    g_string_append(out, cache ? "| State | Perm | Valid | Owner |" : "| State | Memory current |");
    for (int e = 0; e < nev; e++)
        if (used[e])
            g_string_append_printf(out, " %s |", evnames[e]);
    g_string_append(out, cache ? "\n|---|---|---|---|" : "\n|---|---|");
    for (int e = 0; e < nev; e++)
        if (used[e])
            g_string_append(out, "---|");
    g_string_append(out, "\n");
    static const char *const perms[] = { "-", "R", "RW" };
    for (int s = 0; s < nstates; s++) {
        const char *name = cache ? p->cstates[s].name : p->dstates[s].name;
        bool stable = cache ? p->cstates[s].stable : p->dstates[s].stable;
        g_string_append_printf(out, "| %s%s%s |", stable ? "**" : "", name, stable ? "**" : "");
        if (cache)
            g_string_append_printf(out, " %s | %s | %s |", perms[p->cstates[s].perm],
                                   p->cstates[s].valid ? "yes" : "",
                                   p->cstates[s].owner ? "yes" : "");
        else
            g_string_append_printf(out, " %s |", p->dstates[s].mem_current ? "yes" : "");
        for (int e = 0; e < nev; e++) {
            if (!used[e])
                continue;
            int r = cell[s * nev + e];
            if (r < 0) {
                g_string_append(out, " |");
                continue;
            }
            g_string_append(out, " ");
            const DirRow *row = &rows[r];
            dk_md_cell(out, row, cache ? p->cstates[row->next].name : p->dstates[row->next].name,
                       cache);
            g_string_append(out, " |");
        }
        g_string_append(out, "\n");
    }
    g_free(used);
    g_free(cell);
}

void dirchecker_markdown(const DirProtocol *p, GString *out)
{
    int cstable = 0, dstable = 0;
    for (int s = 0; s < p->ncstates; s++)
        cstable += p->cstates[s].stable;
    for (int s = 0; s < p->ndstates; s++)
        dstable += p->dstates[s].stable;
    char *upper = g_ascii_strup(p->name, -1);
    char *file = g_strdelimit(g_strdup(p->name), "-", '_');
    g_string_append_printf(out, "# %s\n\n%s.\n\n", upper, p->title);
    g_string_append_printf(out,
        "Generated by `archsim check-protocol --markdown %s` from `protocols/%s.c`; do not edit.\n"
        "Cache controller: %d states (%d stable), %d rows; directory controller: %d states\n"
        "(%d stable), %d rows. A cell reads *actions / next state* (`-`: no action; no `/` when\n"
        "the state stays). A blank cell cannot happen under the network rules of\n"
        "`protocols/dirproto.h` (the checker proves it for 2 and 3 caches, full bit vector and\n"
        "one pointer with broadcast); reaching it is a simulator bug. Events that no row of this\n"
        "protocol handles are left out. *req* is the requester named in the message; in a row,\n"
        "sends happen first, with the sharers and owner as they were before it.\n\n",
        p->name, file, p->ncstates, cstable, p->ncrows, p->ndstates, dstable, p->ndrows);
    g_string_append(out, "## Cache controller\n\n"
                    "Perm: `R` read, `RW` read and write. Valid: the line holds data (a copy\n"
                    "the data-value invariant checks). Owner: the copy may be newer than memory;\n"
                    "a valid copy that is not an owner's must match memory or the data on its\n"
                    "way there.\n\n");
    dk_md_table(out, p->crows, p->ncrows, p->ncstates, DCE_COUNT, dir_cache_event_names, true, p);
    g_string_append(out, "\n## Directory controller\n\n"
                    "Memory current: in this state memory holds the latest value (the checker\n"
                    "asserts it).\n\n");
    dk_md_table(out, p->drows, p->ndrows, p->ndstates, DDE_COUNT, dir_dir_event_names, false, p);
    g_free(file);
    g_free(upper);
}

/* ---- the command line ------------------------------------------------------------------------- */

int dirchecker_cli(const char *name, int caches, int pointers, bool markdown)
{
    const DirProtocol *p = dir_proto_find(name);
    if (p == NULL) {
        const char *names[8];
        size_t n = 0;
        GString *known = g_string_new(NULL);
        for (const DirProtocol *const *q = dir_protocols; *q != NULL && n < G_N_ELEMENTS(names);
             q++) {
            names[n++] = (*q)->name;
            g_string_append_printf(known, "%s%s", known->len ? ", " : "", (*q)->name);
        }
        const char *hint = param_suggest(name, names, n);
        if (hint != NULL)
            fprintf(stderr, "archsim check-protocol: unknown directory protocol '%s'; did you "
                    "mean '%s'? (known: %s)\n", name, hint, known->str);
        else
            fprintf(stderr, "archsim check-protocol: unknown directory protocol '%s' (known: "
                    "%s)\n", name, known->str);
        fprintf(stderr, "Try 'archsim check-protocol --help'.\n");
        g_string_free(known, TRUE);
        return ARCHSIM_EXIT_USAGE;
    }
    int rc = ARCHSIM_EXIT_OK;
    GString *text = g_string_new(NULL);
    if (markdown) {
        dirchecker_markdown(p, text);
    } else {
        for (int n = 2; n <= 3; n++) {
            if (caches != 0 && n != caches)
                continue;
            if (text->len)
                g_string_append(text, "\n");
            if (!dirchecker_run(p, n, pointers, NULL, text))
                rc = ARCHSIM_EXIT_CHECK;
        }
    }
    fputs(text->str, stdout);
    g_string_free(text, TRUE);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "archsim check-protocol: cannot write output\n");
        return ARCHSIM_EXIT_IOERR;
    }
    if (rc == ARCHSIM_EXIT_CHECK)
        fprintf(stderr, "archsim check-protocol: %s: an invariant failed (see above)\n", p->name);
    return rc;
}
