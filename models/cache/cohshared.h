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
#include "../mem/bytes.h"
#include "../mem/memmsg.h"
#include "../mem/oracle.h"

/* ---- op FIFO (no allocation: the Msg's next_free field links it) ------------------------- */
/* A plain load or store of n <= 8 bytes at d (the line's copy of the address) when checks are
 * off (no reference memory): the word written, or read into the message, and the message turned
 * into its answer. coh_perform's common case, and the coherent L1's fast hit. */
static inline void coh_plain_access(uint8_t *d, Msg *m, uint32_t n)
{
    if (m->cmd == MSG_WRITE_REQ) {
        mem_store_le(d, mem_msg(m)->value, n);
        m->cmd = MSG_WRITE_RESP;
    } else {
        mem_msg(m)->value = mem_load_le(d, n);
        m->cmd = MSG_READ_RESP;
    }
}

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

/* ---- atomics: per-type counts, the LL/SC reservation, the spin-wait watch ------------------
 * One per cache. The controller calls coh_atomics_arrive for each core op as it arrives (it may
 * answer the op itself: a watch, an SC without its reservation), coh_line_lost whenever a line
 * loses read permission here or is chosen as a victim, and passes it to coh_perform. Costs
 * nothing to a run without LL/SC or watches: two compares per permission change. */
typedef struct {
    bool resv;               /* the reservation (LL) is held ... */
    uint64_t resv_block;     /* ... on this line */
    Msg *watch;              /* the parked spin-wait watch (MSG_F_WATCH), or NULL */
    uint64_t watch_block;
    /* stats */
    uint64_t tas, xchg, cas, faa, ll, sc_success, sc_fail, watches;
} CohAtomics;

/* A core op m arrives at cache c (answers go out on `cpu`): counts it by type; a watch
 * (MSG_F_WATCH) is answered (at once) or parked, an SC whose reservation is not held fails after
 * `delay` cycles (the hit latency); returns true when the op was consumed so, false when the controller serves it
 * as usual. `line` is the line's bytes when the block is readable here, else NULL. */
bool coh_atomics_arrive(Component *c, Port *cpu, CohAtomics *a, Msg *m, uint64_t block,
                        const uint8_t *line, uint64_t delay);
/* The block lost read permission here, or is being evicted: the reservation on it is lost and a
 * watch on it is answered. */
void coh_line_lost_slow(Component *c, Port *cpu, CohAtomics *a, uint64_t block);
static inline void coh_line_lost(Component *c, Port *cpu, CohAtomics *a, uint64_t block)
{
    if (G_UNLIKELY((a->resv && a->resv_block == block) || (a->watch && a->watch_block == block)))
        coh_line_lost_slow(c, cpu, a, block);
}
/* The atomics' part of a cache's dump (nothing when idle). */
void coh_atomics_dump(const CohAtomics *a, GString *out);

/* Performs the core's op m (MSG_READ_REQ / MSG_WRITE_REQ, size <= 8 within the line) on the
 * line's bytes `line` (block address `block`) and sends the response on `cpu` after `delay`
 * cycles. A store writes `value` and tells the oracle (as cache `who`); a load reads `value` and is
 * checked against the oracle; a mismatch fails the run (exit 3) naming the line's `state`. A store
 * with MSG_F_RMW is a locked read-modify-write (component.h): the caller holds the line with write
 * permission; the old value is checked like a load's and returned in `value`. An LL (MSG_F_LL)
 * sets the reservation in `a` when `readable` (the line's state after this event lets the core
 * read); an SC (MSG_F_SC, line held with write permission) writes only if the reservation is
 * still held on the block, answers arg = 1 or 0, and clears it. */
void coh_perform(Component *c, Port *cpu, uint8_t *line, uint64_t block, Msg *m, uint64_t delay,
                 int who, const char *state, CohAtomics *a, bool readable);

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
