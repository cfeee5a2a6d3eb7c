/* proto.c: the shared parts of the protocol tables of protocol.h: event names, the list of
 * shipped protocols, lookup by name and the (state, event) -> row index that the controller and
 * the checker consult on every event.
 */
#include "protocol.h"

#include <string.h>

#include <glib.h>

/* gem5 Ruby's spelling (MSI-cache.sm), so traces and stats read like the Primer's tables. */
const char *const proto_event_names[EV_COUNT] = {
    [EV_LOAD] = "Load",
    [EV_STORE] = "Store",
    [EV_REPLACEMENT] = "Replacement",
    [EV_OWN_GETS] = "Own_GETS",
    [EV_OWN_GETM] = "Own_GETM",
    [EV_OWN_PUTM] = "Own_PUTM",
    [EV_DATA] = "Data",
    [EV_DATA_EXCL] = "Data_Exclusive",
    [EV_OTHER_GETS] = "Other_GETS",
    [EV_OTHER_GETM] = "Other_GETM",
    [EV_OTHER_PUTM] = "Other_PUTM",
};

extern const ProtoTable proto_msi, proto_mesi, proto_moesi;

const ProtoTable *const proto_tables[] = {
    &proto_msi,
    &proto_mesi,
    &proto_moesi,
    NULL,
};

const ProtoTable *proto_find(const char *name)
{
    for (const ProtoTable *const *t = proto_tables; *t != NULL; t++)
        if (g_ascii_strcasecmp((*t)->name, name) == 0)
            return *t;
    return NULL;
}

bool proto_index_build(const ProtoTable *t, ProtoIndex *ix, char **problem)
{
    ix->t = t;
    ix->cell = NULL;
    if (t->nstates <= 0 || t->nstates > 255 || t->initial < 0 || t->initial >= t->nstates) {
        *problem = g_strdup_printf("%s: %d states with initial state %d: out of range", t->name,
                                   t->nstates, t->initial);
        return false;
    }
    size_t ncells = (size_t)t->nstates * EV_COUNT;
    int16_t *cell = g_new(int16_t, ncells);
    for (size_t i = 0; i < ncells; i++)
        cell[i] = -1;
    if (t->nrows > INT16_MAX) {
        *problem = g_strdup_printf("%s: %d rows, more than %d", t->name, t->nrows, INT16_MAX);
        g_free(cell);
        return false;
    }
    for (int r = 0; r < t->nrows; r++) {
        const ProtoRow *row = &t->rows[r];
        if (row->state >= t->nstates || row->next >= t->nstates || row->event >= EV_COUNT) {
            *problem = g_strdup_printf("%s: row %d: state %u, event %u or next state %u out of "
                                       "range (%d states, %d events)", t->name, r, row->state,
                                       row->event, row->next, t->nstates, EV_COUNT);
            g_free(cell);
            return false;
        }
        int16_t *c = &cell[row->state * EV_COUNT + row->event];
        if (*c >= 0) {
            *problem = g_strdup_printf("%s: rows %d and %d both define %s + %s", t->name, *c, r,
                                       t->states[row->state].name,
                                       proto_event_names[row->event]);
            g_free(cell);
            return false;
        }
        *c = (int16_t)r;
    }
    ix->cell = cell;
    return true;
}

void proto_index_free(ProtoIndex *ix)
{
    g_free(ix->cell);
    ix->cell = NULL;
}

int proto_state_index(const ProtoTable *t, const char *name)
{
    for (int s = 0; s < t->nstates; s++)
        if (strcmp(t->states[s].name, name) == 0)
            return s;
    return -1;
}
