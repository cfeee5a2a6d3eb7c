/* dir_mesi.c: directory MESI after the Primer (2nd ed., sec. 8.3, "Adding the Exclusive state"):
 * dir-msi (dir_msi.c) plus E. A GetS that finds no copy (directory I) gets Exclusive-Data and
 * the cache enters E; a store in E upgrades to M silently, so the directory's E means "owned by a
 * cache in E or, unknown to it, in M": it forwards requests to that cache like M, takes a PutE
 * (no data: memory is current) or a PutM (with data: the owner upgraded), and does not count on
 * memory being current. Checked by `archsim check-protocol [--pointers K] dir-mesi`.
 *
 * Deviations: those of dir-msi (stale Invs acked in I, IM_AD, II_A; IS_D + Inv -> IS_D_I, which
 * discards Data and re-issues GetS; no rows for pairs that cannot happen, here also E + Inv and
 * EI_A + Inv, and PutS-NotLast in E). Additions:
 *  - IS_D and IS_D_I stall Fwd-GetS/Fwd-GetM: the directory makes the cache the owner when it
 *    sends Exclusive-Data, and may forward the next request before the data has arrived.
 *  - IS_D_I + Exclusive-Data does NOT discard: it enters E and performs the load. The directory
 *    has made this cache the owner, so asking again would have the GetS forwarded to the
 *    requester itself; and the data is current: from the moment the directory sent it every
 *    request is forwarded to this cache, which answers none before the data arrives, so no
 *    store can perform meanwhile, and the Inv that led to IS_D_I was a stale one.
 */
#include <glib.h>

#include "dirproto.h"

enum { I, IS_D, IS_D_I, IM_AD, IM_A, S, SM_AD, SM_A, E, M, MI_A, EI_A, SI_A, II_A, NCSTATES };

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
    [E] =      { "E",      PERM_READ,  true,  false, true },    /* clean: memory is current */
    [M] =      { "M",      PERM_WRITE, true,  true,  true },
    [MI_A] =   { "MI_A",   PERM_NONE,  true,  true,  false },   /* PutM sent, still supplies */
    [EI_A] =   { "EI_A",   PERM_NONE,  true,  false, false },   /* PutE sent, still supplies */
    [SI_A] =   { "SI_A",   PERM_NONE,  false, false, false },
    [II_A] =   { "II_A",   PERM_NONE,  false, false, false },
};

#define STALL_CORE(s)                                   \
    { s, DCE_LOAD, s, CA_STALL },                       \
    { s, DCE_STORE, s, CA_STALL },                      \
    { s, DCE_REPLACEMENT, s, CA_STALL }

/* The directory may make an IS_D/IS_D_I cache the owner (Exclusive-Data in flight) and forward
 * the next request to it: the forward waits for the data. */
#define STALL_FWD(s)                                    \
    { s, DCE_FWD_GETS, s, CA_STALL },                   \
    { s, DCE_FWD_GETM, s, CA_STALL }

static const DirRow crows[] = {
    { I, DCE_LOAD, IS_D, CA_SEND_GETS },
    { I, DCE_STORE, IM_AD, CA_SEND_GETM },
    { I, DCE_INV, I, CA_INV_ACK },                  /* stale (broadcast) */

    STALL_CORE(IS_D),
    STALL_FWD(IS_D),
    { IS_D, DCE_INV, IS_D_I, CA_INV_ACK },
    { IS_D, DCE_DATA_DIR_ACK0, S, CA_HIT },
    { IS_D, DCE_DATA_DIR_EXCL, E, CA_HIT },
    { IS_D, DCE_DATA_OWNER, S, CA_HIT },

    STALL_CORE(IS_D_I),
    STALL_FWD(IS_D_I),
    { IS_D_I, DCE_INV, IS_D_I, CA_INV_ACK },
    { IS_D_I, DCE_DATA_DIR_ACK0, IS_D, CA_SEND_GETS },     /* discard the data, ask again */
    { IS_D_I, DCE_DATA_DIR_EXCL, E, CA_HIT },               /* current: see the header */
    { IS_D_I, DCE_DATA_OWNER, IS_D, CA_SEND_GETS },

    STALL_CORE(IM_AD),
    STALL_FWD(IM_AD),
    { IM_AD, DCE_INV, IM_AD, CA_INV_ACK },          /* stale (broadcast) */
    { IM_AD, DCE_DATA_DIR_ACK0, M, CA_COUNT_ACKS | CA_HIT },
    { IM_AD, DCE_DATA_DIR_ACKS, IM_A, CA_COUNT_ACKS },
    { IM_AD, DCE_DATA_OWNER, M, CA_HIT },
    { IM_AD, DCE_INV_ACK, IM_AD, CA_COUNT_ACKS },

    STALL_CORE(IM_A),
    STALL_FWD(IM_A),
    { IM_A, DCE_INV_ACK, IM_A, CA_COUNT_ACKS },
    { IM_A, DCE_LAST_INV_ACK, M, CA_COUNT_ACKS | CA_HIT },

    { S, DCE_LOAD, S, CA_HIT },
    { S, DCE_STORE, SM_AD, CA_SEND_GETM },
    { S, DCE_REPLACEMENT, SI_A, CA_SEND_PUTS },
    { S, DCE_INV, I, CA_INV_ACK },

    { SM_AD, DCE_LOAD, SM_AD, CA_HIT },
    { SM_AD, DCE_STORE, SM_AD, CA_STALL },
    { SM_AD, DCE_REPLACEMENT, SM_AD, CA_STALL },
    STALL_FWD(SM_AD),
    { SM_AD, DCE_INV, IM_AD, CA_INV_ACK },
    { SM_AD, DCE_DATA_DIR_ACK0, M, CA_COUNT_ACKS | CA_HIT },
    { SM_AD, DCE_DATA_DIR_ACKS, SM_A, CA_COUNT_ACKS },
    { SM_AD, DCE_INV_ACK, SM_AD, CA_COUNT_ACKS },

    { SM_A, DCE_LOAD, SM_A, CA_HIT },
    { SM_A, DCE_STORE, SM_A, CA_STALL },
    { SM_A, DCE_REPLACEMENT, SM_A, CA_STALL },
    STALL_FWD(SM_A),
    { SM_A, DCE_INV_ACK, SM_A, CA_COUNT_ACKS },
    { SM_A, DCE_LAST_INV_ACK, M, CA_COUNT_ACKS | CA_HIT },

    { E, DCE_LOAD, E, CA_HIT },
    { E, DCE_STORE, M, CA_HIT },                    /* silent upgrade */
    { E, DCE_REPLACEMENT, EI_A, CA_SEND_PUTE },
    { E, DCE_FWD_GETS, S, CA_DATA_TO_REQ | CA_DATA_TO_DIR },
    { E, DCE_FWD_GETM, I, CA_DATA_TO_REQ },

    { M, DCE_LOAD, M, CA_HIT },
    { M, DCE_STORE, M, CA_HIT },
    { M, DCE_REPLACEMENT, MI_A, CA_SEND_PUTM },
    { M, DCE_FWD_GETS, S, CA_DATA_TO_REQ | CA_DATA_TO_DIR },
    { M, DCE_FWD_GETM, I, CA_DATA_TO_REQ },

    STALL_CORE(MI_A),
    { MI_A, DCE_FWD_GETS, SI_A, CA_DATA_TO_REQ | CA_DATA_TO_DIR },
    { MI_A, DCE_FWD_GETM, II_A, CA_DATA_TO_REQ },
    { MI_A, DCE_PUT_ACK, I, 0 },

    STALL_CORE(EI_A),
    { EI_A, DCE_FWD_GETS, SI_A, CA_DATA_TO_REQ | CA_DATA_TO_DIR },
    { EI_A, DCE_FWD_GETM, II_A, CA_DATA_TO_REQ },
    { EI_A, DCE_PUT_ACK, I, 0 },

    STALL_CORE(SI_A),
    { SI_A, DCE_INV, II_A, CA_INV_ACK },
    { SI_A, DCE_PUT_ACK, I, 0 },

    STALL_CORE(II_A),
    { II_A, DCE_INV, II_A, CA_INV_ACK },            /* stale (broadcast) */
    { II_A, DCE_PUT_ACK, I, 0 },
};

enum { DI, DS, DE, DM, DS_D, NDSTATES };

static const DirDirState dstates[NDSTATES] = {
    /*          name   stable mem_current */
    [DI] =   { "I",   true,  true },
    [DS] =   { "S",   true,  true },
    [DE] =   { "E",   true,  false },   /* the owner may have upgraded to M silently */
    [DM] =   { "M",   true,  false },
    [DS_D] = { "S_D", false, false },   /* Fwd-GetS sent; waiting for the owner's data */
};

static const DirRow drows[] = {
    { DI, DDE_GETS, DE, DA_DATA_TO_REQ | DA_EXCL | DA_SET_OWNER },
    { DI, DDE_GETM, DM, DA_DATA_TO_REQ | DA_SET_OWNER },
    { DI, DDE_PUTS_LAST, DI, DA_PUT_ACK },
    { DI, DDE_PUTM_NONOWNER, DI, DA_PUT_ACK },
    { DI, DDE_PUTE_NONOWNER, DI, DA_PUT_ACK },

    { DS, DDE_GETS, DS, DA_DATA_TO_REQ | DA_ADD_REQ },
    { DS, DDE_GETM, DM, DA_DATA_TO_REQ | DA_INV_SHARERS | DA_CLEAR_SHARERS | DA_SET_OWNER },
    { DS, DDE_PUTS_NOTLAST, DS, DA_REMOVE_REQ | DA_PUT_ACK },
    { DS, DDE_PUTS_LAST, DI, DA_REMOVE_REQ | DA_PUT_ACK },
    { DS, DDE_PUTM_NONOWNER, DS, DA_REMOVE_REQ | DA_PUT_ACK },
    { DS, DDE_PUTE_NONOWNER, DS, DA_REMOVE_REQ | DA_PUT_ACK },

    { DE, DDE_GETS, DS_D, DA_FWD_GETS | DA_ADD_REQ | DA_ADD_OWNER | DA_CLEAR_OWNER },
    { DE, DDE_GETM, DM, DA_FWD_GETM | DA_SET_OWNER },
    { DE, DDE_PUTS_LAST, DE, DA_PUT_ACK },
    { DE, DDE_PUTM_OWNER, DI, DA_COPY_MEM | DA_CLEAR_OWNER | DA_PUT_ACK },  /* upgraded */
    { DE, DDE_PUTM_NONOWNER, DE, DA_PUT_ACK },
    { DE, DDE_PUTE_OWNER, DI, DA_CLEAR_OWNER | DA_PUT_ACK },
    { DE, DDE_PUTE_NONOWNER, DE, DA_PUT_ACK },

    { DM, DDE_GETS, DS_D, DA_FWD_GETS | DA_ADD_REQ | DA_ADD_OWNER | DA_CLEAR_OWNER },
    { DM, DDE_GETM, DM, DA_FWD_GETM | DA_SET_OWNER },
    { DM, DDE_PUTS_LAST, DM, DA_PUT_ACK },
    { DM, DDE_PUTM_OWNER, DI, DA_COPY_MEM | DA_CLEAR_OWNER | DA_PUT_ACK },
    { DM, DDE_PUTM_NONOWNER, DM, DA_PUT_ACK },
    { DM, DDE_PUTE_NONOWNER, DM, DA_PUT_ACK },

    { DS_D, DDE_GETS, DS_D, DA_STALL },
    { DS_D, DDE_GETM, DS_D, DA_STALL },
    { DS_D, DDE_PUTS_NOTLAST, DS_D, DA_REMOVE_REQ | DA_PUT_ACK },
    { DS_D, DDE_PUTS_LAST, DS_D, DA_REMOVE_REQ | DA_PUT_ACK },
    { DS_D, DDE_PUTM_NONOWNER, DS_D, DA_REMOVE_REQ | DA_PUT_ACK },
    { DS_D, DDE_PUTE_NONOWNER, DS_D, DA_REMOVE_REQ | DA_PUT_ACK },
    { DS_D, DDE_DATA, DS, DA_COPY_MEM },
};

const DirProtocol dir_proto_mesi = {
    "dir-mesi", "Directory MESI (Primer 2nd ed., sec. 8.3)",
    cstates, NCSTATES, I, crows, (int)G_N_ELEMENTS(crows),
    dstates, NDSTATES, DI, drows, (int)G_N_ELEMENTS(drows),
};
