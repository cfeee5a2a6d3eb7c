/* dir_msi.c: the Primer's directory MSI (2nd ed., sec. 8.2, Tables 8.1 and 8.2): cache and
 * directory controller tables, transient states named as in the Primer. Three-hop forwarding (the
 * owner sends data straight to the requester), invalidation acks counted at the requester, and
 * the put/ack races (stale PutS/PutM answered with Put-Ack). As in the Primer, the forward network
 * is ordered point to point (the checker models it so); request and response are unordered.
 * Checked by `archsim check-protocol [--pointers K] dir-msi`.
 *
 * Deviations from the Primer. Most come from limited-pointer directories that fall back to
 * broadcast (dirproto.h, DirSharers), where an Inv may reach a cache that holds no copy:
 *  - I, IM_AD and II_A answer a (stale) Inv with Inv-Ack and keep their state: the directory
 *    sends Inv only from S, to a broadcast set or to a sharer that has left since, never to a
 *    live copy in these states. S -> I, SM_AD -> IM_AD, SI_A -> II_A as in the Primer.
 *  - IS_D + Inv no longer stalls: with broadcast the IS_D cache may not be a sharer yet, and
 *    stalling deadlocks (the GetM requester waits for this ack while the IS_D cache's GetS is
 *    forwarded to that requester; tests/unit/test_dirproto.c shows it). IS_D acks at once and
 *    enters IS_D_I. The data that then arrives may be older than a store that has already
 *    performed (the requester had the ack), so IS_D_I discards it and re-issues GetS (-> IS_D).
 *  - No Inv row in IM_A, SM_A, M, MI_A: no Inv can reach them. The GetM whose Inv it would be
 *    waits for this cache's Inv-Ack, so the directory cannot meanwhile have handled this
 *    cache's own GetM from S (IM_A, SM_A) nor made it the owner (M, MI_A); the checker agrees
 *    for 2 and 3 caches, full map and broadcast. Likewise, rows of the Primer that cannot fire
 *    are left out:
 *    SM_AD + Data-from-Owner (a GetM from SM_AD reaches an owner only after the Inv that moved
 *    SM_AD to IM_AD) and PutS-NotLast in I and M (their sharer set is empty). A controller that
 *    meets one of these pairs has a bug, and a missing row says so.
 *  - MI_A, SI_A, II_A and IS_D_I stall loads and stores (the line is on its way out, or unusable).
 */
#include <glib.h>

#include "dirproto.h"

enum { I, IS_D, IS_D_I, IM_AD, IM_A, S, SM_AD, SM_A, M, MI_A, SI_A, II_A, NCSTATES };

static const ProtoState cstates[NCSTATES] = {
    /*          name      perm        valid  owner  stable */
    [I] =      { "I",      PERM_NONE,  false, false, true },
    [IS_D] =   { "IS_D",   PERM_NONE,  false, false, false },
    [IS_D_I] = { "IS_D_I", PERM_NONE,  false, false, false },   /* acked an Inv: data unusable */
    [IM_AD] =  { "IM_AD",  PERM_NONE,  false, false, false },
    [IM_A] =   { "IM_A",   PERM_NONE,  true,  false, false },   /* data here, acks to come */
    [S] =      { "S",      PERM_READ,  true,  false, true },
    [SM_AD] =  { "SM_AD",  PERM_READ,  true,  false, false },
    [SM_A] =   { "SM_A",   PERM_READ,  true,  false, false },
    [M] =      { "M",      PERM_WRITE, true,  true,  true },
    [MI_A] =   { "MI_A",   PERM_NONE,  true,  true,  false },   /* PutM sent, still supplies */
    [SI_A] =   { "SI_A",   PERM_NONE,  false, false, false },
    [II_A] =   { "II_A",   PERM_NONE,  false, false, false },
};

#define STALL_CORE(s)                                   \
    { s, DCE_LOAD, s, CA_STALL },                       \
    { s, DCE_STORE, s, CA_STALL },                      \
    { s, DCE_REPLACEMENT, s, CA_STALL }

static const DirRow crows[] = {
    { I, DCE_LOAD, IS_D, CA_SEND_GETS },
    { I, DCE_STORE, IM_AD, CA_SEND_GETM },
    { I, DCE_INV, I, CA_INV_ACK },                  /* stale (broadcast) */

    STALL_CORE(IS_D),
    { IS_D, DCE_INV, IS_D_I, CA_INV_ACK },          /* Inv overtook the data: see the header */
    { IS_D, DCE_DATA_DIR_ACK0, S, CA_HIT },
    { IS_D, DCE_DATA_OWNER, S, CA_HIT },

    STALL_CORE(IS_D_I),
    { IS_D_I, DCE_INV, IS_D_I, CA_INV_ACK },
    { IS_D_I, DCE_DATA_DIR_ACK0, IS_D, CA_SEND_GETS },     /* discard the data, ask again */
    { IS_D_I, DCE_DATA_OWNER, IS_D, CA_SEND_GETS },

    STALL_CORE(IM_AD),
    { IM_AD, DCE_FWD_GETS, IM_AD, CA_STALL },
    { IM_AD, DCE_FWD_GETM, IM_AD, CA_STALL },
    { IM_AD, DCE_INV, IM_AD, CA_INV_ACK },          /* stale (broadcast) */
    { IM_AD, DCE_DATA_DIR_ACK0, M, CA_COUNT_ACKS | CA_HIT },
    { IM_AD, DCE_DATA_DIR_ACKS, IM_A, CA_COUNT_ACKS },
    { IM_AD, DCE_DATA_OWNER, M, CA_HIT },
    { IM_AD, DCE_INV_ACK, IM_AD, CA_COUNT_ACKS },

    STALL_CORE(IM_A),
    { IM_A, DCE_FWD_GETS, IM_A, CA_STALL },
    { IM_A, DCE_FWD_GETM, IM_A, CA_STALL },
    { IM_A, DCE_INV_ACK, IM_A, CA_COUNT_ACKS },
    { IM_A, DCE_LAST_INV_ACK, M, CA_COUNT_ACKS | CA_HIT },

    { S, DCE_LOAD, S, CA_HIT },
    { S, DCE_STORE, SM_AD, CA_SEND_GETM },
    { S, DCE_REPLACEMENT, SI_A, CA_SEND_PUTS },
    { S, DCE_INV, I, CA_INV_ACK },

    { SM_AD, DCE_LOAD, SM_AD, CA_HIT },
    { SM_AD, DCE_STORE, SM_AD, CA_STALL },
    { SM_AD, DCE_REPLACEMENT, SM_AD, CA_STALL },
    { SM_AD, DCE_FWD_GETS, SM_AD, CA_STALL },
    { SM_AD, DCE_FWD_GETM, SM_AD, CA_STALL },
    { SM_AD, DCE_INV, IM_AD, CA_INV_ACK },
    { SM_AD, DCE_DATA_DIR_ACK0, M, CA_COUNT_ACKS | CA_HIT },
    { SM_AD, DCE_DATA_DIR_ACKS, SM_A, CA_COUNT_ACKS },
    { SM_AD, DCE_INV_ACK, SM_AD, CA_COUNT_ACKS },

    { SM_A, DCE_LOAD, SM_A, CA_HIT },
    { SM_A, DCE_STORE, SM_A, CA_STALL },
    { SM_A, DCE_REPLACEMENT, SM_A, CA_STALL },
    { SM_A, DCE_FWD_GETS, SM_A, CA_STALL },
    { SM_A, DCE_FWD_GETM, SM_A, CA_STALL },
    { SM_A, DCE_INV_ACK, SM_A, CA_COUNT_ACKS },
    { SM_A, DCE_LAST_INV_ACK, M, CA_COUNT_ACKS | CA_HIT },

    { M, DCE_LOAD, M, CA_HIT },
    { M, DCE_STORE, M, CA_HIT },
    { M, DCE_REPLACEMENT, MI_A, CA_SEND_PUTM },
    { M, DCE_FWD_GETS, S, CA_DATA_TO_REQ | CA_DATA_TO_DIR },
    { M, DCE_FWD_GETM, I, CA_DATA_TO_REQ },

    STALL_CORE(MI_A),
    { MI_A, DCE_FWD_GETS, SI_A, CA_DATA_TO_REQ | CA_DATA_TO_DIR },
    { MI_A, DCE_FWD_GETM, II_A, CA_DATA_TO_REQ },
    { MI_A, DCE_PUT_ACK, I, 0 },

    STALL_CORE(SI_A),
    { SI_A, DCE_INV, II_A, CA_INV_ACK },
    { SI_A, DCE_PUT_ACK, I, 0 },

    STALL_CORE(II_A),
    { II_A, DCE_INV, II_A, CA_INV_ACK },            /* stale (broadcast) */
    { II_A, DCE_PUT_ACK, I, 0 },
};

enum { DI, DS, DM, DS_D, NDSTATES };

static const DirDirState dstates[NDSTATES] = {
    /*          name   stable mem_current */
    [DI] =   { "I",   true,  true },
    [DS] =   { "S",   true,  true },
    [DM] =   { "M",   true,  false },
    [DS_D] = { "S_D", false, false },   /* Fwd-GetS sent; waiting for the owner's data */
};

static const DirRow drows[] = {
    { DI, DDE_GETS, DS, DA_DATA_TO_REQ | DA_ADD_REQ },
    { DI, DDE_GETM, DM, DA_DATA_TO_REQ | DA_SET_OWNER },
    { DI, DDE_PUTS_LAST, DI, DA_PUT_ACK },
    { DI, DDE_PUTM_NONOWNER, DI, DA_PUT_ACK },

    { DS, DDE_GETS, DS, DA_DATA_TO_REQ | DA_ADD_REQ },
    { DS, DDE_GETM, DM, DA_DATA_TO_REQ | DA_INV_SHARERS | DA_CLEAR_SHARERS | DA_SET_OWNER },
    { DS, DDE_PUTS_NOTLAST, DS, DA_REMOVE_REQ | DA_PUT_ACK },
    { DS, DDE_PUTS_LAST, DI, DA_REMOVE_REQ | DA_PUT_ACK },
    { DS, DDE_PUTM_NONOWNER, DS, DA_REMOVE_REQ | DA_PUT_ACK },

    { DM, DDE_GETS, DS_D, DA_FWD_GETS | DA_ADD_REQ | DA_ADD_OWNER | DA_CLEAR_OWNER },
    { DM, DDE_GETM, DM, DA_FWD_GETM | DA_SET_OWNER },
    { DM, DDE_PUTS_LAST, DM, DA_PUT_ACK },
    { DM, DDE_PUTM_OWNER, DI, DA_COPY_MEM | DA_CLEAR_OWNER | DA_PUT_ACK },
    { DM, DDE_PUTM_NONOWNER, DM, DA_PUT_ACK },

    { DS_D, DDE_GETS, DS_D, DA_STALL },
    { DS_D, DDE_GETM, DS_D, DA_STALL },
    { DS_D, DDE_PUTS_NOTLAST, DS_D, DA_REMOVE_REQ | DA_PUT_ACK },
    { DS_D, DDE_PUTS_LAST, DS_D, DA_REMOVE_REQ | DA_PUT_ACK },
    { DS_D, DDE_PUTM_NONOWNER, DS_D, DA_REMOVE_REQ | DA_PUT_ACK },
    { DS_D, DDE_DATA, DS, DA_COPY_MEM },
};

const DirProtocol dir_proto_msi = {
    "dir-msi", "Directory MSI (Primer 2nd ed., sec. 8.2)",
    cstates, NCSTATES, I, crows, (int)G_N_ELEMENTS(crows),
    dstates, NDSTATES, DI, drows, (int)G_N_ELEMENTS(drows),
};
