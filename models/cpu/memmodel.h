/* memmodel.h: memory consistency models as data (the Primer, 2nd ed., ch. 3-5; Adve &
 * Gharachorloo, "Shared Memory Consistency Models: A Tutorial", 1996). A model says which of the
 * four program orders between accesses to DIFFERENT addresses a core may relax; everything else
 * is common to all models:
 *  - accesses to the same address stay in program order (a load may take the value of the
 *    latest earlier store to its address still in the store buffer when `forward` is set);
 *  - a load whose value feeds a later access (address or stored value) is performed first;
 *  - MFENCE orders everything before it against everything after it;
 *  - a locked instruction (XCHG, LOCK ADD/XADD/INC/DEC/CMPXCHG) is performed atomically with its
 *    line held exclusive, and orders like MFENCE (x86);
 *  - memory is multi-copy atomic: a store becomes visible to all other cores at once, when it
 *    performs at the coherent L1 (the store buffer is private).
 *
 *   model  ld->ld  ld->st  st->st  st->ld  forward
 *   SC     kept    kept    kept    kept    -
 *   TSO    kept    kept    kept    relaxed yes      (x86-TSO; FIFO store buffer)
 *   PSO    kept    kept    relaxed relaxed yes      (stores to different addresses drain in any order)
 *   WEAK   relaxed relaxed relaxed relaxed yes      (RMO-like: loads also performed out of order)
 *
 * "i may perform before an earlier j" (both unperformed) is mm_may_bypass(). The cycle-level core
 * (models/cpu/mmcore.c) and the exhaustive litmus enumerator (models/litmus/enumerate.c) both use
 * this one table, so they allow exactly the same reorderings. */
#ifndef ARCHSIM_MEMMODEL_H
#define ARCHSIM_MEMMODEL_H

#include <stdbool.h>

typedef enum { MM_SC = 0, MM_TSO, MM_PSO, MM_WEAK, MM_COUNT } MemModelId;

typedef struct {
    const char *name;           /* "sc", "tso", "pso", "weak" */
    bool ld_ld, ld_st, st_st, st_ld;   /* true: this order (earlier -> later) is relaxed */
    bool forward;               /* store-to-load forwarding from the store buffer */
} MemModel;

extern const MemModel mem_models[MM_COUNT];
extern const char *const mem_model_choices[];   /* { "sc", "tso", "pso", "weak", NULL } */

/* Case-insensitive; NULL if unknown. */
const MemModel *mem_model_find(const char *name);

/* Access kinds for ordering. */
typedef enum { MA_LOAD, MA_STORE, MA_FENCE, MA_LOCKED, MA_OTHER } MemAccessKind;

/* May a later access `later` perform while an earlier `earlier` of the same core has not? Both
 * are memory accesses to different addresses (same-address pairs and dependencies are the
 * caller's: they never bypass). Fences and locked instructions never bypass nor are bypassed. */
static inline bool mm_may_bypass(const MemModel *m, MemAccessKind earlier, MemAccessKind later)
{
    if (earlier == MA_OTHER || later == MA_OTHER)
        return true;
    if (earlier == MA_FENCE || earlier == MA_LOCKED || later == MA_FENCE || later == MA_LOCKED)
        return false;
    if (earlier == MA_LOAD)
        return later == MA_LOAD ? m->ld_ld : m->ld_st;
    return later == MA_LOAD ? m->st_ld : m->st_st;
}

#endif
