/* dirproto.h: directory coherence protocols as data, after "A Primer on Memory Consistency and
 * Cache Coherence" (Nagarajan, Sorin, Hill, Wood; 2nd ed., 2020), ch. 8 (directory MSI, MESI).
 *
 * A directory protocol is two tables of rows {state, event -> next state, actions}: one for the
 * cache controller (one copy per cache) and one for the directory controller (one per block,
 * memory behind it). protocols/dirchecker.c interprets them; a (state, event) pair with no row is
 * "impossible", and the checker reports reaching it.
 *
 * The network these tables assume:
 *  - Messages travel on three virtual networks: request (GetS, GetM, PutS, PutM, PutE: cache ->
 *    directory), forward (Fwd-GetS, Fwd-GetM, Inv, Put-Ack: directory -> cache) and response
 *    (Data, Inv-Ack: cache or directory -> cache or directory). Request and response are
 *    UNORDERED: any message in flight may be delivered next, including overtaking one sent
 *    earlier on the same path. Forward is ordered point to point (FIFO per directory -> cache
 *    pair), as the Primer assumes: else a Put-Ack could overtake an earlier Fwd-GetS or Inv.
 *  - Delivering a message to a controller fires the row for (its state, the message's event).
 *    A row with DA_STALL / CA_STALL leaves the message in the network (it is retried later); the
 *    other rows consume it.
 *  - Event classification (the Primer's): at the directory a PutS is PutS-Last when the sharer
 *    set minus its sender is known to be empty (dir_sharers_last), else PutS-NotLast; a PutM or
 *    PutE is from the Owner when its sender is the directory's owner. At a cache, Data from the
 *    directory sent with DA_EXCL is Exclusive-Data (its ack count is 0); other Data from the
 *    directory is (ack=0) when its ack count plus the cache's counter (acks still expected;
 *    negative when Inv-Acks overtook the data) is 0, else (ack>0); an Inv-Ack is the
 *    Last-Inv-Ack when the counter minus one is 0.
 *  - Data messages and PutM carry the block's value; a data message's arrival installs it in
 *    the receiving cache before the row fires.
 *  - Core accesses (Load, Store) and Replacement are events like the others; ACT_HIT on a message
 *    event performs the core access that waits on the line.
 */
/* Order of execution within a row: sends first, using the directory's sharers/owner as they were
 * before the row (so S + GetM counts and invalidates the old sharers); then the directory's
 * bookkeeping in the order CLEAR_SHARERS, ADD_REQ, ADD_OWNER (the old owner), REMOVE_REQ,
 * CLEAR_OWNER, SET_OWNER, COPY_MEM; for a cache, COUNT_ACKS, then HIT in the new state. */
#ifndef ARCHSIM_DIRPROTO_H
#define ARCHSIM_DIRPROTO_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol.h"       /* ProtoState: name, perm, valid, owner, stable (cache states) */

typedef enum { DVN_REQUEST = 0, DVN_FORWARD, DVN_RESPONSE, DVN_COUNT } DirVnet;

/* Message types; each has one virtual network (dir_msg_vnet). */
typedef enum {
    DM_GETS = 0, DM_GETM, DM_PUTS, DM_PUTM, DM_PUTE, /* request: cache -> directory (PutE:
                                                        MESI, a clean exclusive copy leaves) */
    DM_FWD_GETS, DM_FWD_GETM, DM_INV, DM_PUT_ACK,   /* forward: directory -> cache */
    DM_DATA, DM_INV_ACK,                            /* response */
    DM_COUNT
} DirMsgType;

extern const char *const dir_msg_names[DM_COUNT];
extern const DirVnet dir_msg_vnet[DM_COUNT];
extern const char *const dir_vnet_names[DVN_COUNT];

/* Cache-controller events (the Primer's Table 8.1 columns). */
typedef enum {
    DCE_LOAD = 0, DCE_STORE, DCE_REPLACEMENT,
    DCE_FWD_GETS, DCE_FWD_GETM, DCE_INV, DCE_PUT_ACK,
    DCE_DATA_DIR_ACK0,      /* Data from Dir, no acks (still) to wait for */
    DCE_DATA_DIR_ACKS,      /* Data from Dir, acks still to come */
    DCE_DATA_DIR_EXCL,      /* Exclusive-Data from Dir (MESI: GetS found no other copy) */
    DCE_DATA_OWNER,         /* Data from the previous owner (three-hop) */
    DCE_INV_ACK, DCE_LAST_INV_ACK,
    DCE_COUNT
} DirCacheEvent;

/* Directory-controller events (Table 8.2 columns). */
typedef enum {
    DDE_GETS = 0, DDE_GETM, DDE_PUTS_NOTLAST, DDE_PUTS_LAST,
    DDE_PUTM_OWNER,         /* PutM + data from the owner */
    DDE_PUTM_NONOWNER,      /* PutM (stale) from a cache that is no longer the owner */
    DDE_DATA,               /* data from the old owner (after Fwd-GetS) */
    DDE_PUTE_OWNER,         /* PutE (no data) from the owner (MESI) */
    DDE_PUTE_NONOWNER,      /* PutE (stale) from a cache that is no longer the owner */
    DDE_COUNT
} DirDirEvent;

extern const char *const dir_cache_event_names[DCE_COUNT];
extern const char *const dir_dir_event_names[DDE_COUNT];

/* Cache actions, a bit set per row. */
enum {
    CA_SEND_GETS = 1u << 0,     /* send GetS / GetM / PutS / PutM (+ the line's data) to the dir
                                   (GetS also on a data event: IS_D_I discards Data, asks again) */
    CA_SEND_GETM = 1u << 1,
    CA_SEND_PUTS = 1u << 2,
    CA_SEND_PUTM = 1u << 3,
    CA_DATA_TO_REQ = 1u << 4,   /* on Fwd-*: send the line's data (ack 0) to the requester */
    CA_DATA_TO_DIR = 1u << 5,   /* on Fwd-GetS: send the line's data to the directory too */
    CA_INV_ACK = 1u << 6,       /* on Inv: send Inv-Ack to the requester named in it */
    CA_COUNT_ACKS = 1u << 7,    /* Data: counter += its ack count; Inv-Ack: counter -= 1 */
    CA_HIT = 1u << 8,           /* perform the core access (a store writes the data) */
    CA_STALL = 1u << 9,         /* core access / message waits; nothing changes */
    CA_SEND_PUTE = 1u << 10,    /* send PutE (no data) to the directory (MESI, from E) */
};

/* Directory actions, a bit set per row; "requester" is the sender of the request handled. */
enum {
    DA_DATA_TO_REQ = 1u << 0,   /* send memory's data to the requester, with an ack count
                                   (GetM: sharers other than the requester; GetS: 0) */
    DA_FWD_GETS = 1u << 1,      /* forward GetS / GetM to the owner (naming the requester) */
    DA_FWD_GETM = 1u << 2,
    DA_INV_SHARERS = 1u << 3,   /* send Inv (naming the requester) to every sharer but it */
    DA_PUT_ACK = 1u << 4,       /* send Put-Ack to the requester */
    DA_CLEAR_SHARERS = 1u << 5,
    DA_ADD_REQ = 1u << 6,       /* add the requester to the sharers */
    DA_ADD_OWNER = 1u << 7,     /* add the (old) owner to the sharers */
    DA_REMOVE_REQ = 1u << 8,    /* remove the requester from the sharers */
    DA_CLEAR_OWNER = 1u << 9,
    DA_SET_OWNER = 1u << 10,    /* owner := requester */
    DA_COPY_MEM = 1u << 11,     /* copy the message's data (PutM, Data) to memory */
    DA_STALL = 1u << 12,        /* leave the request in the network */
    DA_EXCL = 1u << 13,         /* with DA_DATA_TO_REQ: the data is Exclusive-Data (MESI E) */
};

typedef struct {
    const char *name;   /* I, S, E, M, S_D */
    bool stable;
    bool mem_current;   /* memory must hold the latest value in this state (I, S; not E, whose
                           owner may have upgraded to M silently) */
} DirDirState;

typedef struct {
    uint8_t state, event, next;
    uint32_t actions;
} DirRow;               /* used for both tables; event is a DirCacheEvent or DirDirEvent */

typedef struct {
    const char *name;           /* "dir-msi" */
    const char *title;
    const ProtoState *cstates;  /* cache states with perm/valid/owner/stable flags */
    int ncstates;
    int cinitial;
    const DirRow *crows;
    int ncrows;
    const DirDirState *dstates;
    int ndstates;
    int dinitial;
    const DirRow *drows;
    int ndrows;
} DirProtocol;

extern const DirProtocol dir_proto_msi;            /* protocols/dir_msi.c */
extern const DirProtocol dir_proto_mesi;           /* protocols/dir_mesi.c */
extern const DirProtocol *const dir_protocols[];   /* NULL-terminated */
const DirProtocol *dir_proto_find(const char *name);   /* ignoring ASCII case; NULL if none */

/* Sharer sets, shared by the checker and the simulated directory. Full bit vector (pointers = 0)
 * or limited pointers with broadcast, Dir_i B (Agarwal, Simoni, Hennessy, Horowitz, ISCA 1988):
 * at most `pointers` sharers are recorded; one more sets `overflow`, and from then on
 *  - DA_INV_SHARERS sends Inv to every cache but the requester (the data's ack count says so),
 *  - a PutS is always PutS-NotLast and DA_REMOVE_REQ removes nothing (the set is unknown),
 *  - DA_CLEAR_SHARERS clears the overflow.
 * So a cache may receive a stale Inv (it holds no copy): tables answer it with an Inv-Ack and
 * leave the line as it is, in every state where one can arrive (I, IS_D_I, IM_AD, II_A; IS_D
 * acks and enters IS_D_I, which re-requests the data: see dir_msi.c). At most 64 caches. */
typedef struct {
    uint64_t bits;
    bool overflow;
} DirSharers;

static inline void dir_sharers_clear(DirSharers *s)
{
    s->bits = 0;
    s->overflow = false;
}

static inline void dir_sharers_add(DirSharers *s, int who, int pointers)
{
    if (s->overflow)
        return;
    uint64_t b = s->bits | (1ull << who);
    if (pointers > 0 && __builtin_popcountll(b) > pointers) {
        s->overflow = true;
        s->bits = 0;
    } else {
        s->bits = b;
    }
}

static inline void dir_sharers_remove(DirSharers *s, int who)
{
    if (!s->overflow)
        s->bits &= ~(1ull << who);
}

/* PutS-Last: the set minus `who` is known to be empty. */
static inline bool dir_sharers_last(const DirSharers *s, int who)
{
    return !s->overflow && (s->bits & ~(1ull << who)) == 0;
}

/* The caches DA_INV_SHARERS sends Inv to (their count is the requester's ack count). */
static inline uint64_t dir_sharers_inv_targets(const DirSharers *s, int req, int ncaches)
{
    uint64_t all = ncaches >= 64 ? ~0ull : (1ull << ncaches) - 1;
    return (s->overflow ? all : s->bits) & ~(1ull << req);
}

#endif
