/* cohshared.h: what the private coherent cache controllers share: the snooping one
 * (models/cache/coherent.c) and the directory one (models/dir/dircache.c). A FIFO of core ops
 * linked through Msg.next_free, performing a core load/store on a line's bytes with the oracle's
 * checks, and the miss classifier: cold, capacity, conflict (a fully associative LRU shadow of
 * equal size) and coherence misses split into true and false sharing (Dubois et al., ISCA 1993).
 */
#ifndef ARCHSIM_COHSHARED_H
#define ARCHSIM_COHSHARED_H

#include <glib.h>

#include "../../sim/component.h"
#include "../../sim/oracle.h"

/* ---- op FIFO (no allocation: the Msg's next_free field links it) ------------------------- */
static inline void coh_op_push(Msg **head, Msg **tail, Msg *m)
{
    m->next_free = NULL;
    if (*tail)
        (*tail)->next_free = m;
    else
        *head = m;
    *tail = m;
}

static inline Msg *coh_op_pop(Msg **head, Msg **tail)
{
    Msg *m = *head;
    *head = m->next_free;
    if (!*head)
        *tail = NULL;
    return m;
}

/* Performs the core's op m (MSG_READ_REQ / MSG_WRITE_REQ, size <= 8 within the line) on the
 * line's bytes `line` (block address `block`) and sends the response on `cpu` after `delay`
 * cycles. A store writes aux[0] and tells the oracle (as cache `who`); a load reads aux[0] and is
 * checked against the oracle; a mismatch fails the run (exit 3) naming the line's `state`. A store
 * with MSG_F_RMW is a locked read-modify-write (component.h): the caller holds the line with write
 * permission; the old value is checked like a load's and returned in aux[0]. */
void coh_perform(Component *c, Port *cpu, uint8_t *line, uint64_t block, Msg *m, uint64_t delay,
                 int who, const char *state);

/* ---- miss classifier ----------------------------------------------------------------------- */
typedef struct {
    GHashTable *seen;        /* blocks ever present here (cold misses) */
    GHashTable *lost;        /* block -> oracle seq when another cache's write took it */
    GHashTable *map;         /* LRU shadow: block -> GList node in order */
    GQueue order;            /* most recent at head */
    uint64_t cap;            /* shadow capacity in lines */
    uint64_t cold, capacity, conflict, true_sharing, false_sharing;   /* the stats */
} CohMissClass;

void coh_class_init(CohMissClass *mc, uint64_t lines);
void coh_class_free(CohMissClass *mc);          /* also after a failed or no init (zeroed) */
/* An access to the block that hit: refreshes the LRU shadow. */
void coh_class_touch(CohMissClass *mc, uint64_t block);
/* A miss to the block: counts it cold, capacity or conflict and returns false, or returns true
 * with *since (the oracle sequence when the line was lost) for a coherence miss, which
 * coh_class_sharing splits once its data has arrived. */
bool coh_class_miss(CohMissClass *mc, uint64_t block, uint64_t *since);
/* Another cache's write (GetM, invalidation) took the block away at oracle sequence seq. */
void coh_class_lost(CohMissClass *mc, uint64_t block, uint64_t seq);
/* A coherence miss's data arrived for op (may be NULL): true sharing if another cache wrote the
 * bytes op accesses since `since`, else false sharing. */
void coh_class_sharing(CohMissClass *mc, Oracle *o, int who, const Msg *op, uint64_t since);

#endif
