/* dir_msi.c: the Primer's directory MSI (2nd ed., ch. 8, Tables 8.1 and 8.2): cache and
 * directory controller tables, transient states named as in the Primer. Three-hop forwarding (the
 * owner sends data straight to the requester), invalidation acks counted at the requester, and
 * the put/ack races (stale PutS/PutM answered with Put-Ack). As in the Primer, the forward network
 * is ordered point to point (the checker models it so); request and response are unordered.
 * Deviation: MI_A, SI_A and II_A stall loads and stores (the line is on its way out).
 * Checked by `archsim check-protocol dir-msi`.
 */
#include <glib.h>

#include "dirproto.h"

const char *const dir_msg_names[DM_COUNT] = {
    "GetS", "GetM", "PutS", "PutM", "Fwd-GetS", "Fwd-GetM", "Inv", "Put-Ack", "Data", "Inv-Ack",
};
const DirVnet dir_msg_vnet[DM_COUNT] = {
    DVN_REQUEST, DVN_REQUEST, DVN_REQUEST, DVN_REQUEST,
    DVN_FORWARD, DVN_FORWARD, DVN_FORWARD, DVN_FORWARD,
    DVN_RESPONSE, DVN_RESPONSE,
};
const char *const dir_vnet_names[DVN_COUNT] = { "request", "forward", "response" };
const char *const dir_cache_event_names[DCE_COUNT] = {
    "Load", "Store", "Replacement", "Fwd-GetS", "Fwd-GetM", "Inv", "Put-Ack",
    "Data-from-Dir(ack=0)", "Data-from-Dir(ack>0)", "Data-from-Owner", "Inv-Ack", "Last-Inv-Ack",
};
const char *const dir_dir_event_names[DDE_COUNT] = {
    "GetS", "GetM", "PutS-NotLast", "PutS-Last", "PutM+data-from-Owner", "PutM-from-NonOwner",
    "Data",
};

enum { I, IS_D, IM_AD, IM_A, S, SM_AD, SM_A, M, MI_A, SI_A, II_A, NCSTATES };

static const ProtoState cstates[NCSTATES] = {
    /*          name     perm        valid  owner  stable */
    [I] =     { "I",     PERM_NONE,  false, false, true },
    [IS_D] =  { "IS_D",  PERM_NONE,  false, false, false },
    [IM_AD] = { "IM_AD", PERM_NONE,  false, false, false },
    [IM_A] =  { "IM_A",  PERM_NONE,  true,  false, false },   /* data here, acks to come */
    [S] =     { "S",     PERM_READ,  true,  false, true },
    [SM_AD] = { "SM_AD", PERM_READ,  true,  false, false },
    [SM_A] =  { "SM_A",  PERM_READ,  true,  false, false },
    [M] =     { "M",     PERM_WRITE, true,  true,  true },
    [MI_A] =  { "MI_A",  PERM_NONE,  true,  true,  false },   /* PutM sent, still supplies */
    [SI_A] =  { "SI_A",  PERM_NONE,  false, false, false },
    [II_A] =  { "II_A",  PERM_NONE,  false, false, false },
};

#define STALL_CORE(s)                                   \
    { s, DCE_LOAD, s, CA_STALL },                       \
    { s, DCE_STORE, s, CA_STALL },                      \
    { s, DCE_REPLACEMENT, s, CA_STALL }

static const DirRow crows[] = {
    { I, DCE_LOAD, IS_D, CA_SEND_GETS },
    { I, DCE_STORE, IM_AD, CA_SEND_GETM },

    STALL_CORE(IS_D),
    { IS_D, DCE_INV, IS_D, CA_STALL },              /* Inv overtook the data */
    { IS_D, DCE_DATA_DIR_ACK0, S, CA_HIT },
    { IS_D, DCE_DATA_OWNER, S, CA_HIT },

    STALL_CORE(IM_AD),
    { IM_AD, DCE_FWD_GETS, IM_AD, CA_STALL },
    { IM_AD, DCE_FWD_GETM, IM_AD, CA_STALL },
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
    { SM_AD, DCE_DATA_OWNER, M, CA_HIT },
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
    { II_A, DCE_PUT_ACK, I, 0 },
};

enum { DI, DS, DM, DS_D, NDSTATES };

static const DirDirState dstates[NDSTATES] = {
    [DI] = { "I", true, true },
    [DS] = { "S", true, true },
    [DM] = { "M", true, false },
    [DS_D] = { "S_D", false, false },   /* Fwd-GetS sent; waiting for the owner's data */
};

static const DirRow drows[] = {
    { DI, DDE_GETS, DS, DA_DATA_TO_REQ | DA_ADD_REQ },
    { DI, DDE_GETM, DM, DA_DATA_TO_REQ | DA_SET_OWNER },
    { DI, DDE_PUTS_NOTLAST, DI, DA_PUT_ACK },
    { DI, DDE_PUTS_LAST, DI, DA_PUT_ACK },
    { DI, DDE_PUTM_NONOWNER, DI, DA_PUT_ACK },

    { DS, DDE_GETS, DS, DA_DATA_TO_REQ | DA_ADD_REQ },
    { DS, DDE_GETM, DM, DA_DATA_TO_REQ | DA_INV_SHARERS | DA_CLEAR_SHARERS | DA_SET_OWNER },
    { DS, DDE_PUTS_NOTLAST, DS, DA_REMOVE_REQ | DA_PUT_ACK },
    { DS, DDE_PUTS_LAST, DI, DA_REMOVE_REQ | DA_PUT_ACK },
    { DS, DDE_PUTM_NONOWNER, DS, DA_REMOVE_REQ | DA_PUT_ACK },

    { DM, DDE_GETS, DS_D, DA_FWD_GETS | DA_ADD_REQ | DA_ADD_OWNER | DA_CLEAR_OWNER },
    { DM, DDE_GETM, DM, DA_FWD_GETM | DA_SET_OWNER },
    { DM, DDE_PUTS_NOTLAST, DM, DA_PUT_ACK },
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
    "dir-msi", "Directory MSI (Primer 2nd ed., ch. 8)",
    cstates, NCSTATES, I, crows, (int)G_N_ELEMENTS(crows),
    dstates, NDSTATES, DI, drows, (int)G_N_ELEMENTS(drows),
};

const DirProtocol *const dir_protocols[] = { &dir_proto_msi, NULL };

const DirProtocol *dir_proto_find(const char *name)
{
    for (const DirProtocol *const *p = dir_protocols; *p != NULL; p++)
        if (g_ascii_strcasecmp((*p)->name, name) == 0)
            return *p;
    return NULL;
}
