/* protocol.h: snooping coherence protocols as data, after "A Primer on Memory Consistency and
 * Cache Coherence" (Nagarajan, Sorin, Hill, Wood; 2nd ed., 2020), ch. 7: the baseline snooping
 * system with non-atomic requests and atomic transactions (section 7.5).
 *
 * A protocol is a table of rows {state, event -> next state, actions}. One generic controller
 * (models/cache/coherent.c) and one checker (protocols/checker.c) interpret every table, so adding
 * a protocol means adding a table. A (state, event) pair with no row is "impossible"; reaching it
 * at run time is a simulator bug (the controller asserts), and the checker reports it.
 *
 * The bus these tables assume (models/bus/, and the checker's abstract model of it):
 *  - A cache issues a request (GetS, GetM, PutM) by asking for the bus; the request is ORDERED
 *    when the bus grants it. Ordering is the coherence point: at that moment the requester sees
 *    Own-<Req> and every other cache snoops Other-<Req>, all in the same instant.
 *  - Transactions are atomic per block: after a GetS/GetM is ordered, no other request for that
 *    block is ordered until its data has reached the requester (the bus holds later requests for
 *    the block, as the SGI Challenge's request table did). So caches in *_D states never snoop
 *    a request for their block; caches in *_AD / *_A states (request issued, not yet ordered) do.
 *  - Data source for an ordered GetS/GetM: the requester itself if its current state is an owner
 *    (e.g. O upgrading with GetM: memory may be stale); else the snooper whose row has
 *    ACT_SEND_DATA (cache-to-cache transfer, like the HITM# wired-OR line); else memory (LLC).
 *  - Data arrives as EV_DATA, or as EV_DATA_EXCL for a GetS when no other cache asserted
 *    ACT_SHARED while snooping it (the wired-OR "shared" line; MESI's E state).
 *  - Memory is updated by ACT_WRITEBACK (own PutM, or data sent to memory while snooping). A PutM
 *    from a cache that lost ownership meanwhile carries no data (no ACT_WRITEBACK in its row) and
 *    memory ignores it.
 *  - ACT_STALL: the core's request waits and is retried after the line's next transition.
 */
/* Details the rules above leave open, as the tables and protocols/checker.c settle them (the
 * controller must do the same; docs/protocols/README.md has the whole model):
 *  - Data_Exclusive is sent in every protocol (shared line = OR of the snoopers' ACT_SHARED);
 *    MSI's IS_D takes it like Data. Only a GetS's data can be exclusive.
 *  - "The requester's current state is an owner" is judged BEFORE its Own_* row fires; the bus
 *    still delivers Data (from the requester itself), so MOESI goes OM_AD -> OM_D -> M.
 *  - All data is taken at the ordering instant: SEND_DATA/WRITEBACK copy the line as it was
 *    before the row; memory supplies after that instant's write-backs. Two suppliers are a bug.
 *  - One waiting request per cache and block, and a row never changes its kind: SM_AD/OM_AD +
 *    Other_GETM -> IM_AD keep the GetM waiting; MI_A/OI_A + Other_GETM -> II_A keep the PutM
 *    waiting, which II_A's Own_PUTM row then answers without ACT_WRITEBACK.
 *  - Replacement occurs in every state but I. ACT_HIT on a non-core event performs the core
 *    access that waits on the line (there must be one). Load and Store have a row in every
 *    state; SM_AD/SM_D/OM_AD/OM_D/OI_A hit loads and MI_A hits loads and stores (the Primer's).
 *  - owner marks who supplies: M, O, and the transients still holding owned data (MI_A, OI_A,
 *    OM_AD, OM_D); never E (clean: silent eviction, memory supplies) nor IM_D/SM_D.
 */
#ifndef ARCHSIM_PROTOCOL_H
#define ARCHSIM_PROTOCOL_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { PERM_NONE = 0, PERM_READ = 1, PERM_WRITE = 2 } ProtoPerm;  /* WRITE implies read */

typedef struct {
    const char *name;     /* textbook name: I, S, E, O, M, IS_AD, IS_D, IM_AD, IM_D, SM_AD, ... */
    ProtoPerm perm;       /* what the core may do with the line in this state */
    bool valid;           /* the line holds data (a copy the data-value invariant checks) */
    bool owner;           /* this cache, not memory, must supply the block (M, O; not E/S) */
    bool stable;
} ProtoState;

typedef enum {
    EV_LOAD = 0,        /* core load */
    EV_STORE,           /* core store */
    EV_REPLACEMENT,     /* the cache wants the frame for another block */
    EV_OWN_GETS,        /* own request ordered on the bus */
    EV_OWN_GETM,
    EV_OWN_PUTM,
    EV_DATA,            /* data for the own GetS/GetM arrived */
    EV_DATA_EXCL,       /* data for the own GetS arrived and no other cache keeps a copy */
    EV_OTHER_GETS,      /* another cache's request ordered on the bus (snooped) */
    EV_OTHER_GETM,
    EV_OTHER_PUTM,
    EV_COUNT
} ProtoEvent;

/* Actions, a bit set per row. Order of execution when several are set: the issue actions request
 * the bus; SEND_DATA and WRITEBACK take the line's data before the state changes; HIT performs
 * the core's access in the new state. */
enum {
    ACT_ISSUE_GETS = 1u << 0,   /* ask for the bus to order a GetS */
    ACT_ISSUE_GETM = 1u << 1,   /* ... a GetM (from S, SM: an upgrade) */
    ACT_ISSUE_PUTM = 1u << 2,   /* ... a PutM (write-back of a dirty/owned line) */
    ACT_SEND_DATA = 1u << 3,    /* snooping: supply the data to the requester (cache-to-cache) */
    ACT_WRITEBACK = 1u << 4,    /* send the line's data to memory */
    ACT_SHARED = 1u << 5,       /* snooping a GetS: assert the shared line (a copy stays here) */
    ACT_HIT = 1u << 6,          /* perform the core's load/store now (a store writes the data) */
    ACT_STALL = 1u << 7,        /* the core's request waits; retried after the next transition */
};

typedef struct {
    uint8_t state;      /* index into ProtoTable.states */
    uint8_t event;      /* ProtoEvent */
    uint8_t next;       /* index of the next state */
    uint8_t actions;    /* ACT_* */
} ProtoRow;

typedef struct {
    const char *name;           /* "msi", "mesi", "moesi" (and broken variants in tests) */
    const char *title;          /* one line for docs */
    const ProtoState *states;
    int nstates;
    int initial;                /* index of I */
    const ProtoRow *rows;
    int nrows;
} ProtoTable;

extern const char *const proto_event_names[EV_COUNT];  /* gem5-style: Load, Store, Replacement,
                                                          Own_GETS, ..., Other_PUTM */

/* The protocols archsim ships, NULL-terminated; and lookup by name (ignoring ASCII case). */
extern const ProtoTable proto_msi, proto_mesi, proto_moesi;    /* protocols/{msi,mesi,moesi}.c */
extern const ProtoTable *const proto_tables[];
const ProtoTable *proto_find(const char *name);

/* Fast lookup built once per table: row index for (state, event), or -1. */
typedef struct {
    const ProtoTable *t;
    int16_t *cell;              /* nstates * EV_COUNT */
} ProtoIndex;

/* Builds the index; fails (returns false, message in *problem, newly allocated) if a (state,
 * event) pair has two rows or a row names a state out of range. */
bool proto_index_build(const ProtoTable *t, ProtoIndex *ix, char **problem);
void proto_index_free(ProtoIndex *ix);
static inline int proto_lookup(const ProtoIndex *ix, int state, int event)
{
    return ix->cell[state * EV_COUNT + event];
}
int proto_state_index(const ProtoTable *t, const char *name);   /* -1 if none */

#endif
