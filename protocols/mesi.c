/* mesi.c: snooping MESI, the Primer's MSI baseline (2nd ed., section 7.2.3: non-atomic requests,
 * atomic transactions) plus E as in section 7.3 ("adding the Exclusive state"). Deviation: E is
 * clean and NOT an owner (Illinois-style): a Replacement in E is silent, E + Other_GETS lets
 * memory supply the data, and so there is no EI_A state and no PutE. The Primer may treat E as an
 * owner state instead (not checked against the book). Data_Exclusive (no snooper asserted the
 * shared line) is what makes IS_D go to E.
 */
#include "protocol.h"

enum { I, IS_AD, IS_D, IM_AD, IM_D, S, SM_AD, SM_D, E, M, MI_A, II_A, NSTATES };

static const ProtoState mesi_states[NSTATES] = {
    /*          name     perm        valid  owner  stable */
    [I] =     { "I",     PERM_NONE,  false, false, true },
    [IS_AD] = { "IS_AD", PERM_NONE,  false, false, false },
    [IS_D] =  { "IS_D",  PERM_NONE,  false, false, false },
    [IM_AD] = { "IM_AD", PERM_NONE,  false, false, false },
    [IM_D] =  { "IM_D",  PERM_NONE,  false, false, false },
    [S] =     { "S",     PERM_READ,  true,  false, true },
    [SM_AD] = { "SM_AD", PERM_READ,  true,  false, false },
    [SM_D] =  { "SM_D",  PERM_READ,  true,  false, false },
    /* READ, not WRITE: a store in E goes through the E + Store row, which makes the line M */
    [E] =     { "E",     PERM_READ,  true,  false, true },
    [M] =     { "M",     PERM_WRITE, true,  true,  true },
    [MI_A] =  { "MI_A",  PERM_WRITE, true,  true,  false },
    [II_A] =  { "II_A",  PERM_NONE,  false, false, false },
};

#define STALL_CORE(s)                                   \
    { s, EV_LOAD, s, ACT_STALL },                       \
    { s, EV_STORE, s, ACT_STALL },                      \
    { s, EV_REPLACEMENT, s, ACT_STALL }

static const ProtoRow mesi_rows[] = {
    { I, EV_LOAD, IS_AD, ACT_ISSUE_GETS },
    { I, EV_STORE, IM_AD, ACT_ISSUE_GETM },
    { I, EV_OTHER_GETS, I, 0 },
    { I, EV_OTHER_GETM, I, 0 },
    { I, EV_OTHER_PUTM, I, 0 },

    STALL_CORE(IS_AD),
    { IS_AD, EV_OWN_GETS, IS_D, 0 },
    { IS_AD, EV_OTHER_GETS, IS_AD, 0 },             /* no copy yet: does not assert shared */
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
    { S, EV_REPLACEMENT, I, 0 },
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
    { E, EV_STORE, M, ACT_HIT },                    /* silent upgrade: no bus request */
    { E, EV_REPLACEMENT, I, 0 },                    /* silent: E is clean */
    { E, EV_OTHER_GETS, S, ACT_SHARED },            /* memory supplies: it is up to date */
    { E, EV_OTHER_GETM, I, 0 },
    { E, EV_OTHER_PUTM, E, 0 },

    { M, EV_LOAD, M, ACT_HIT },
    { M, EV_STORE, M, ACT_HIT },
    { M, EV_REPLACEMENT, MI_A, ACT_ISSUE_PUTM },
    { M, EV_OTHER_GETS, S, ACT_SEND_DATA | ACT_WRITEBACK | ACT_SHARED },
    { M, EV_OTHER_GETM, I, ACT_SEND_DATA },
    { M, EV_OTHER_PUTM, M, 0 },

    { MI_A, EV_LOAD, MI_A, ACT_HIT },
    { MI_A, EV_STORE, MI_A, ACT_HIT },
    { MI_A, EV_REPLACEMENT, MI_A, ACT_STALL },
    { MI_A, EV_OWN_PUTM, I, ACT_WRITEBACK },
    /* no copy stays, so no shared line: the requester may get E; memory is written, so E is clean */
    { MI_A, EV_OTHER_GETS, II_A, ACT_SEND_DATA | ACT_WRITEBACK },
    { MI_A, EV_OTHER_GETM, II_A, ACT_SEND_DATA },
    { MI_A, EV_OTHER_PUTM, MI_A, 0 },

    STALL_CORE(II_A),
    { II_A, EV_OWN_PUTM, I, 0 },
    { II_A, EV_OTHER_GETS, II_A, 0 },
    { II_A, EV_OTHER_GETM, II_A, 0 },
    { II_A, EV_OTHER_PUTM, II_A, 0 },
};

const ProtoTable proto_mesi = {
    .name = "mesi",
    .title = "MESI snooping protocol (Primer 7.2.3 baseline plus E, section 7.3; E is clean)",
    .states = mesi_states,
    .nstates = NSTATES,
    .initial = I,
    .rows = mesi_rows,
    .nrows = (int)(sizeof mesi_rows / sizeof mesi_rows[0]),
};
