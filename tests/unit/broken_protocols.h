/* broken_protocols.h: deliberately wrong snooping tables for test_protocols.c (included there
 * only). Each is a shipped table with one or two rows changed or removed, and each breaks one
 * thing the checker (protocols/checker.c) must catch, named in `expect`.
 */
#ifndef ARCHSIM_BROKEN_PROTOCOLS_H
#define ARCHSIM_BROKEN_PROTOCOLS_H

#include <string.h>

#include <glib.h>

#include "../../protocols/checker.h"

#define BROKEN_DELETE 0xffu     /* as BrokenEdit.actions: remove the row */

typedef struct {
    const char *state, *event;  /* the row to change (or add) */
    const char *next;           /* its new next state */
    unsigned actions;           /* its new actions, or BROKEN_DELETE */
} BrokenEdit;

typedef struct {
    const char *name;
    const char *bug;            /* what is wrong, in words */
    const ProtoTable *base;
    CheckerVerdict expect;      /* with 2 and with 3 caches */
    BrokenEdit edits[3];        /* ends at state == NULL */
} BrokenSpec;

static const BrokenSpec broken_specs[] = {
    { "msi_m_gets_no_data", "M + Other_GETS -> S without sending data or writing back: the "
      "requester reads stale memory and memory stays stale with no owner",
      &proto_msi, CHECK_DATA_VALUE, { { "M", "Other_GETS", "S", ACT_SHARED } } },
    { "msi_s_ignores_getm", "S ignores Other_GETM and stays S: a reader beside the new writer",
      &proto_msi, CHECK_SWMR, { { "S", "Other_GETM", "S", 0 } } },
    { "mesi_e_stays_e", "E + Other_GETS stays E without asserting shared: the requester gets E "
      "too, then a silent E -> M upgrade leaves it a stale copy",
      &proto_mesi, CHECK_DATA_VALUE, { { "E", "Other_GETS", "E", 0 } } },
    { "msi_no_sm_ad_getm", "no row for SM_AD + Other_GETM (two upgrades race)",
      &proto_msi, CHECK_MISSING_ROW, { { "SM_AD", "Other_GETM", NULL, BROKEN_DELETE } } },
    { "moesi_o_silent_drop", "O + Replacement drops to I silently: the only fresh copy is lost",
      &proto_moesi, CHECK_DATA_VALUE, { { "O", "Replacement", "I", 0 } } },
    { "msi_ii_a_stuck", "II_A + Own_PUTM stays in II_A: the cache never leaves the transient "
      "state", &proto_msi, CHECK_STUCK, { { "II_A", "Own_PUTM", "II_A", 0 } } },
    { "msi_s_store_stalls", "S + Store stalls instead of issuing a GetM: the store waits forever",
      &proto_msi, CHECK_STUCK, { { "S", "Store", "S", ACT_STALL } } },
    { "msi_is_d_ignores_data", "IS_D + Data stays IS_D: the bus has finished the transaction, so "
      "IS_D later snoops a request, a cell atomic transactions rule out",
      &proto_msi, CHECK_MISSING_ROW, { { "IS_D", "Data", "IS_D", 0 } } },
    { "msi_ii_a_writes_back", "II_A + Own_PUTM writes its (stale) line back: a PutM from a cache "
      "that lost ownership must carry no data",
      &proto_msi, CHECK_DATA_VALUE, { { "II_A", "Own_PUTM", "I", ACT_WRITEBACK } } },
    { "mesi_mi_a_no_writeback", "MI_A + Other_GETS sends data but neither writes back nor "
      "asserts shared: the requester gets a clean E while memory is stale",
      &proto_mesi, CHECK_DATA_VALUE, { { "MI_A", "Other_GETS", "II_A", ACT_SEND_DATA } } },
    { "moesi_s_supplies", "S + Other_GETM sends data too: with an owner upgrading from O, two "
      "caches drive the data bus",
      &proto_moesi, CHECK_BUS, { { "S", "Other_GETM", "I", ACT_SEND_DATA } } },
    { "msi_im_d_to_s", "IM_D + Data goes to S and performs the store there: a store without write "
      "permission", &proto_msi, CHECK_PERM, { { "IM_D", "Data", "S", ACT_HIT } } },
    { "msi_stall_moves", "IS_AD + Load stalls but moves to I: a stall keeps the state",
      &proto_msi, CHECK_MALFORMED, { { "IS_AD", "Load", "I", ACT_STALL } } },
};

typedef struct {
    ProtoTable t;
    ProtoRow *rows;
} BrokenTable;

static int broken_event_index(const char *name)
{
    for (int e = 0; e < EV_COUNT; e++)
        if (strcmp(proto_event_names[e], name) == 0)
            return e;
    g_error("broken_protocols.h: no event %s", name);
}

static int broken_state_index(const ProtoTable *t, const char *name)
{
    int s = proto_state_index(t, name);
    if (s < 0)
        g_error("broken_protocols.h: %s has no state %s", t->name, name);
    return s;
}

/* The table of spec: base's rows with the edits applied. Free with broken_table_free. */
static BrokenTable *broken_table_new(const BrokenSpec *spec)
{
    const ProtoTable *base = spec->base;
    BrokenTable *b = g_new0(BrokenTable, 1);
    b->rows = g_new(ProtoRow, (size_t)base->nrows + G_N_ELEMENTS(spec->edits));
    int n = 0;
    for (int r = 0; r < base->nrows; r++)
        b->rows[n++] = base->rows[r];
    for (size_t k = 0; k < G_N_ELEMENTS(spec->edits) && spec->edits[k].state != NULL; k++) {
        const BrokenEdit *e = &spec->edits[k];
        int s = broken_state_index(base, e->state), ev = broken_event_index(e->event);
        int at = -1;
        for (int r = 0; r < n; r++)
            if (b->rows[r].state == s && b->rows[r].event == ev)
                at = r;
        if (e->actions == BROKEN_DELETE) {
            g_assert(at >= 0);
            memmove(&b->rows[at], &b->rows[at + 1], sizeof(ProtoRow) * (size_t)(n - at - 1));
            n--;
            continue;
        }
        if (at < 0)
            at = n++;
        b->rows[at] = (ProtoRow){ (uint8_t)s, (uint8_t)ev,
                                  (uint8_t)broken_state_index(base, e->next),
                                  (uint8_t)e->actions };
    }
    b->t = *base;
    b->t.name = spec->name;
    b->t.title = spec->bug;
    b->t.rows = b->rows;
    b->t.nrows = n;
    return b;
}

static void broken_table_free(BrokenTable *b)
{
    g_free(b->rows);
    g_free(b);
}

#endif
