/* msi.c: snooping MSI, the Primer's baseline snooping system (2nd ed., section 7.2.3: non-atomic
 * requests, atomic transactions), cache-controller table. Rows and transient names follow it.
 * Deviations: (1) the bus of protocol.h answers a GetS that no snooper shared with Data_Exclusive
 * even in MSI; MSI has no E, so IS_D takes it as plain data (-> S). Snoopers that keep a copy
 * still assert ACT_SHARED, as the action means, though MSI ignores the line. (2) Other_PUTM rows
 * (no action) wherever a stale PutM from II_A can be ordered; the Primer's "-" cells.
 * Checked by `archsim check-protocol msi` (2 and 3 caches); docs/protocols/msi.md is generated.
 */
#include "protocol.h"

enum { I, IS_AD, IS_D, IM_AD, IM_D, S, SM_AD, SM_D, M, MI_A, II_A, NSTATES };

static const ProtoState msi_states[NSTATES] = {
    /*          name     perm        valid  owner  stable */
    [I] =     { "I",     PERM_NONE,  false, false, true },
    [IS_AD] = { "IS_AD", PERM_NONE,  false, false, false },   /* GetS issued, not ordered */
    [IS_D] =  { "IS_D",  PERM_NONE,  false, false, false },   /* GetS ordered, awaiting data */
    [IM_AD] = { "IM_AD", PERM_NONE,  false, false, false },
    [IM_D] =  { "IM_D",  PERM_NONE,  false, false, false },
    [S] =     { "S",     PERM_READ,  true,  false, true },
    [SM_AD] = { "SM_AD", PERM_READ,  true,  false, false },   /* upgrade: loads still hit */
    [SM_D] =  { "SM_D",  PERM_READ,  true,  false, false },
    [M] =     { "M",     PERM_WRITE, true,  true,  true },
    [MI_A] =  { "MI_A",  PERM_WRITE, true,  true,  false },   /* PutM issued: still the owner */
    [II_A] =  { "II_A",  PERM_NONE,  false, false, false },   /* lost ownership before the PutM */
};

/* Every transient state makes the core wait and keeps the frame. */
#define STALL_CORE(s)                                   \
    { s, EV_LOAD, s, ACT_STALL },                       \
    { s, EV_STORE, s, ACT_STALL },                      \
    { s, EV_REPLACEMENT, s, ACT_STALL }

static const ProtoRow msi_rows[] = {
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
    { IS_D, EV_DATA_EXCL, S, ACT_HIT },             /* deviation (1): no E in MSI */

    STALL_CORE(IM_AD),
    { IM_AD, EV_OWN_GETM, IM_D, 0 },
    { IM_AD, EV_OTHER_GETS, IM_AD, 0 },
    { IM_AD, EV_OTHER_GETM, IM_AD, 0 },
    { IM_AD, EV_OTHER_PUTM, IM_AD, 0 },

    STALL_CORE(IM_D),
    { IM_D, EV_DATA, M, ACT_HIT },

    { S, EV_LOAD, S, ACT_HIT },
    { S, EV_STORE, SM_AD, ACT_ISSUE_GETM },
    { S, EV_REPLACEMENT, I, 0 },                    /* silent: memory is up to date */
    { S, EV_OTHER_GETS, S, ACT_SHARED },
    { S, EV_OTHER_GETM, I, 0 },
    { S, EV_OTHER_PUTM, S, 0 },

    { SM_AD, EV_LOAD, SM_AD, ACT_HIT },
    { SM_AD, EV_STORE, SM_AD, ACT_STALL },
    { SM_AD, EV_REPLACEMENT, SM_AD, ACT_STALL },
    { SM_AD, EV_OWN_GETM, SM_D, 0 },
    { SM_AD, EV_OTHER_GETS, SM_AD, ACT_SHARED },
    { SM_AD, EV_OTHER_GETM, IM_AD, 0 },             /* lost the copy; the GetM now needs data */
    { SM_AD, EV_OTHER_PUTM, SM_AD, 0 },

    { SM_D, EV_LOAD, SM_D, ACT_HIT },
    { SM_D, EV_STORE, SM_D, ACT_STALL },
    { SM_D, EV_REPLACEMENT, SM_D, ACT_STALL },
    { SM_D, EV_DATA, M, ACT_HIT },

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
    { MI_A, EV_OTHER_GETS, II_A, ACT_SEND_DATA | ACT_WRITEBACK },
    { MI_A, EV_OTHER_GETM, II_A, ACT_SEND_DATA },
    { MI_A, EV_OTHER_PUTM, MI_A, 0 },

    STALL_CORE(II_A),
    { II_A, EV_OWN_PUTM, I, 0 },                    /* stale PutM: no data, memory ignores it */
    { II_A, EV_OTHER_GETS, II_A, 0 },
    { II_A, EV_OTHER_GETM, II_A, 0 },
    { II_A, EV_OTHER_PUTM, II_A, 0 },
};

const ProtoTable proto_msi = {
    .name = "msi",
    .title = "MSI snooping protocol (Primer 7.2.3: non-atomic requests, atomic transactions)",
    .states = msi_states,
    .nstates = NSTATES,
    .initial = I,
    .rows = msi_rows,
    .nrows = (int)(sizeof msi_rows / sizeof msi_rows[0]),
};
