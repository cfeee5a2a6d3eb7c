/* moesi.c: snooping MOESI, the Primer's baseline (2nd ed., section 7.2.3: non-atomic requests,
 * atomic transactions) with O as in section 7.4 ("adding the Owned state") and E as in mesi.c.
 * Deviations: (1) E is clean and not an owner (silent eviction, memory supplies). (2) The bus of
 * protocol.h delivers data even to an owner that upgrades (it supplies itself), so O + Store goes
 * OM_AD -> (Own_GETM) OM_D -> (Data) M instead of the Primer's OM_A -> M at Own_GETM. (3) M and
 * MI_A answer Other_GETS by keeping ownership (O, OI_A), never by writing back.
 */
#include "protocol.h"

enum {
    I, IS_AD, IS_D, IM_AD, IM_D, S, SM_AD, SM_D, E, O, OM_AD, OM_D, M, MI_A, OI_A, II_A, NSTATES
};

static const ProtoState moesi_states[NSTATES] = {
    /*          name     perm        valid  owner  stable */
    [I] =     { "I",     PERM_NONE,  false, false, true },
    [IS_AD] = { "IS_AD", PERM_NONE,  false, false, false },
    [IS_D] =  { "IS_D",  PERM_NONE,  false, false, false },
    [IM_AD] = { "IM_AD", PERM_NONE,  false, false, false },
    [IM_D] =  { "IM_D",  PERM_NONE,  false, false, false },
    [S] =     { "S",     PERM_READ,  true,  false, true },
    [SM_AD] = { "SM_AD", PERM_READ,  true,  false, false },
    [SM_D] =  { "SM_D",  PERM_READ,  true,  false, false },
    [E] =     { "E",     PERM_READ,  true,  false, true },
    [O] =     { "O",     PERM_READ,  true,  true,  true },    /* dirty, shared: memory is stale */
    [OM_AD] = { "OM_AD", PERM_READ,  true,  true,  false },   /* upgrade; still supplies others */
    [OM_D] =  { "OM_D",  PERM_READ,  true,  true,  false },   /* ordered; its own data is coming */
    [M] =     { "M",     PERM_WRITE, true,  true,  true },
    [MI_A] =  { "MI_A",  PERM_WRITE, true,  true,  false },
    [OI_A] =  { "OI_A",  PERM_READ,  true,  true,  false },   /* PutM issued from O */
    [II_A] =  { "II_A",  PERM_NONE,  false, false, false },
};

#define STALL_CORE(s)                                   \
    { s, EV_LOAD, s, ACT_STALL },                       \
    { s, EV_STORE, s, ACT_STALL },                      \
    { s, EV_REPLACEMENT, s, ACT_STALL }

static const ProtoRow moesi_rows[] = {
    { I, EV_LOAD, IS_AD, ACT_ISSUE_GETS },
    { I, EV_STORE, IM_AD, ACT_ISSUE_GETM },
    { I, EV_OTHER_GETS, I, 0 },
    { I, EV_OTHER_GETM, I, 0 },
    { I, EV_OTHER_PUTM, I, 0 },

    STALL_CORE(IS_AD),
    { IS_AD, EV_OWN_GETS, IS_D, 0 },
    { IS_AD, EV_OTHER_GETS, IS_AD, 0 },
    { IS_AD, EV_OTHER_GETM, IS_AD, 0 },
    { IS_AD, EV_OTHER_PUTM, IS_AD, 0 },

    STALL_CORE(IS_D),
    { IS_D, EV_DATA, S, ACT_HIT },
    { IS_D, EV_DATA_EXCL, E, ACT_HIT },

    STALL_CORE(IM_AD),
    { IM_AD, EV_OWN_GETM, IM_D, 0 },
    { IM_AD, EV_OTHER_GETS, IM_AD, 0 },
    { IM_AD, EV_OTHER_GETM, IM_AD, 0 },
    { IM_AD, EV_OTHER_PUTM, IM_AD, 0 },

    STALL_CORE(IM_D),
    { IM_D, EV_DATA, M, ACT_HIT },

    { S, EV_LOAD, S, ACT_HIT },
    { S, EV_STORE, SM_AD, ACT_ISSUE_GETM },
    { S, EV_REPLACEMENT, I, 0 },                    /* silent: the owner or memory has the data */
    { S, EV_OTHER_GETS, S, ACT_SHARED },
    { S, EV_OTHER_GETM, I, 0 },
    { S, EV_OTHER_PUTM, S, 0 },

    { SM_AD, EV_LOAD, SM_AD, ACT_HIT },
    { SM_AD, EV_STORE, SM_AD, ACT_STALL },
    { SM_AD, EV_REPLACEMENT, SM_AD, ACT_STALL },
    { SM_AD, EV_OWN_GETM, SM_D, 0 },
    { SM_AD, EV_OTHER_GETS, SM_AD, ACT_SHARED },
    { SM_AD, EV_OTHER_GETM, IM_AD, 0 },
    { SM_AD, EV_OTHER_PUTM, SM_AD, 0 },

    { SM_D, EV_LOAD, SM_D, ACT_HIT },
    { SM_D, EV_STORE, SM_D, ACT_STALL },
    { SM_D, EV_REPLACEMENT, SM_D, ACT_STALL },
    { SM_D, EV_DATA, M, ACT_HIT },

    { E, EV_LOAD, E, ACT_HIT },
    { E, EV_STORE, M, ACT_HIT },
    { E, EV_REPLACEMENT, I, 0 },
    { E, EV_OTHER_GETS, S, ACT_SHARED },
    { E, EV_OTHER_GETM, I, 0 },
    { E, EV_OTHER_PUTM, E, 0 },

    { O, EV_LOAD, O, ACT_HIT },
    { O, EV_STORE, OM_AD, ACT_ISSUE_GETM },
    { O, EV_REPLACEMENT, OI_A, ACT_ISSUE_PUTM },
    { O, EV_OTHER_GETS, O, ACT_SEND_DATA | ACT_SHARED },
    { O, EV_OTHER_GETM, I, ACT_SEND_DATA },
    { O, EV_OTHER_PUTM, O, 0 },

    { OM_AD, EV_LOAD, OM_AD, ACT_HIT },
    { OM_AD, EV_STORE, OM_AD, ACT_STALL },
    { OM_AD, EV_REPLACEMENT, OM_AD, ACT_STALL },
    { OM_AD, EV_OWN_GETM, OM_D, 0 },                /* the bus takes the data from this cache */
    { OM_AD, EV_OTHER_GETS, OM_AD, ACT_SEND_DATA | ACT_SHARED },
    { OM_AD, EV_OTHER_GETM, IM_AD, ACT_SEND_DATA },
    { OM_AD, EV_OTHER_PUTM, OM_AD, 0 },

    { OM_D, EV_LOAD, OM_D, ACT_HIT },
    { OM_D, EV_STORE, OM_D, ACT_STALL },
    { OM_D, EV_REPLACEMENT, OM_D, ACT_STALL },
    { OM_D, EV_DATA, M, ACT_HIT },

    { M, EV_LOAD, M, ACT_HIT },
    { M, EV_STORE, M, ACT_HIT },
    { M, EV_REPLACEMENT, MI_A, ACT_ISSUE_PUTM },
    { M, EV_OTHER_GETS, O, ACT_SEND_DATA | ACT_SHARED },   /* no write-back: O keeps it dirty */
    { M, EV_OTHER_GETM, I, ACT_SEND_DATA },
    { M, EV_OTHER_PUTM, M, 0 },

    { MI_A, EV_LOAD, MI_A, ACT_HIT },
    { MI_A, EV_STORE, MI_A, ACT_HIT },
    { MI_A, EV_REPLACEMENT, MI_A, ACT_STALL },
    { MI_A, EV_OWN_PUTM, I, ACT_WRITEBACK },
    { MI_A, EV_OTHER_GETS, OI_A, ACT_SEND_DATA | ACT_SHARED },
    { MI_A, EV_OTHER_GETM, II_A, ACT_SEND_DATA },
    { MI_A, EV_OTHER_PUTM, MI_A, 0 },

    { OI_A, EV_LOAD, OI_A, ACT_HIT },
    { OI_A, EV_STORE, OI_A, ACT_STALL },
    { OI_A, EV_REPLACEMENT, OI_A, ACT_STALL },
    { OI_A, EV_OWN_PUTM, I, ACT_WRITEBACK },
    { OI_A, EV_OTHER_GETS, OI_A, ACT_SEND_DATA | ACT_SHARED },
    { OI_A, EV_OTHER_GETM, II_A, ACT_SEND_DATA },
    { OI_A, EV_OTHER_PUTM, OI_A, 0 },

    STALL_CORE(II_A),
    { II_A, EV_OWN_PUTM, I, 0 },
    { II_A, EV_OTHER_GETS, II_A, 0 },
    { II_A, EV_OTHER_GETM, II_A, 0 },
    { II_A, EV_OTHER_PUTM, II_A, 0 },
};

const ProtoTable proto_moesi = {
    .name = "moesi",
    .title = "MOESI snooping protocol (Primer 7.2.3 baseline plus O, section 7.4, and a clean E)",
    .states = moesi_states,
    .nstates = NSTATES,
    .initial = I,
    .rows = moesi_rows,
    .nrows = (int)(sizeof moesi_rows / sizeof moesi_rows[0]),
};
