/* syncmsg.h: messages between thread-replaying cores and the workload's synchronization manager
 * (models/sync/workload.c). Requests go core -> workload; MSG_SYNC_GO and MSG_SYNC_START answer. */
#ifndef ARCHSIM_SYNCMSG_H
#define ARCHSIM_SYNCMSG_H

#include "../../sim/component.h"
#include "../../traces/atrace.h"
#include "../msgfam.h"

typedef enum {
    SYNC_START,     /* workload -> core: the thread may run (it was created) */
    SYNC_CREATE,    /* arg = child thread id */
    SYNC_DONE,      /* the thread finished */
    SYNC_JOIN,      /* arg = thread id to wait for */
    SYNC_BARRIER,   /* addr = barrier, arg = participants */
    SYNC_LOCK,      /* addr = mutex */
    SYNC_UNLOCK,    /* addr = mutex */
    SYNC_GO,        /* workload -> core: the join/barrier/lock is granted */
    SYNC_LOCKWORD,  /* workload -> core: addr is an atomic lock word */
    SYNC_CMDS
} SyncCmd;
#define MSG_SYNC_START MSG_CMD(MSG_FAM_SYNC, SYNC_START)
#define MSG_SYNC_CREATE MSG_CMD(MSG_FAM_SYNC, SYNC_CREATE)
#define MSG_SYNC_DONE MSG_CMD(MSG_FAM_SYNC, SYNC_DONE)
#define MSG_SYNC_JOIN MSG_CMD(MSG_FAM_SYNC, SYNC_JOIN)
#define MSG_SYNC_BARRIER MSG_CMD(MSG_FAM_SYNC, SYNC_BARRIER)
#define MSG_SYNC_LOCK MSG_CMD(MSG_FAM_SYNC, SYNC_LOCK)
#define MSG_SYNC_UNLOCK MSG_CMD(MSG_FAM_SYNC, SYNC_UNLOCK)
#define MSG_SYNC_GO MSG_CMD(MSG_FAM_SYNC, SYNC_GO)
#define MSG_SYNC_LOCKWORD MSG_CMD(MSG_FAM_SYNC, SYNC_LOCKWORD)

/* The sync family's payload (sync_msg(m)). */
typedef struct {
    uint64_t addr;       /* the barrier, mutex or lock word */
    uint64_t tag;        /* the requester's cookie (unused by the workload) */
    uint64_t arg;        /* see the commands */
} SyncPayload;
MSG_PAYLOAD_FITS(SyncPayload);
static inline SyncPayload *sync_msg(Msg *m)
{
    return (SyncPayload *)SIM_MSG_PAYLOAD(m, MSG_FAM_BIT(MSG_FAM_SYNC));
}
static inline const SyncPayload *sync_msg_c(const Msg *m)
{
    return (const SyncPayload *)SIM_MSG_PAYLOAD(m, MSG_FAM_BIT(MSG_FAM_SYNC));
}
extern const MsgFamily sync_msg_family;

/* ---- atomic lock words (spin locks built from C11 atomics) --------------------------------
 * One rule, shared by the workload's pre-scan (which decides the lock words) and the cores
 * (which re-time them), so both count the same acquisitions. r is an atomic record of a thread,
 * next the record that follows it in the same thread (NULL at the end), holding whether the
 * thread holds r->addr as a lock (an acquisition without its release yet).
 *   evidence  a failed CAS, an RMW that left the value unchanged (failed test-and-set), an atomic
 *             load followed by another atomic load of the same address from the same site
 *   acquire   not holding: a successful CAS, or an xchg/or RMW that changed the value, with
 *             acquire, acq_rel or seq_cst order (TAS, TTAS); or an acquire-or-stronger atomic
 *             load that ends its run, i.e. is not followed by another atomic load, RMW or CAS
 *             of the same address (the last load of a ticket lock's spin on `serving`)
 *   release   holding: a release-or-stronger atomic store or RMW to the address */
enum { SPIN_NONE, SPIN_EVIDENCE, SPIN_ACQUIRE, SPIN_RELEASE };

static inline bool spin_mo_acquires(int mo)
{
    return mo == AT_MO_ACQUIRE || mo == AT_MO_ACQ_REL || mo == AT_MO_SEQ_CST;
}

static inline bool spin_mo_releases(int mo)
{
    return mo == AT_MO_RELEASE || mo == AT_MO_ACQ_REL || mo == AT_MO_SEQ_CST;
}

static inline int spin_classify(const AtRecord *r, const AtRecord *next, bool holding)
{
    switch (r->kind) {
    case AT_CAS_FAIL:
        return SPIN_EVIDENCE;
    case AT_RMW:
        if (r->flags & AT_F_UNCHANGED)
            return SPIN_EVIDENCE;
        if (holding)
            return spin_mo_releases(r->mo) ? SPIN_RELEASE : SPIN_NONE;
        return (r->op == AT_OP_XCHG || r->op == AT_OP_OR) && spin_mo_acquires(r->mo)
                   ? SPIN_ACQUIRE : SPIN_NONE;
    case AT_CAS_OK:
        if (holding)
            return spin_mo_releases(r->mo) ? SPIN_RELEASE : SPIN_NONE;
        return spin_mo_acquires(r->mo) ? SPIN_ACQUIRE : SPIN_NONE;
    case AT_ASTORE:
        return holding && spin_mo_releases(r->mo) ? SPIN_RELEASE : SPIN_NONE;
    case AT_ALOAD:
        if (next && next->addr == r->addr &&
            (next->kind == AT_ALOAD || next->kind == AT_RMW || next->kind == AT_CAS_OK ||
             next->kind == AT_CAS_FAIL))
            return next->kind == AT_ALOAD && next->pc == r->pc ? SPIN_EVIDENCE : SPIN_NONE;
        return !holding && spin_mo_acquires(r->mo) ? SPIN_ACQUIRE : SPIN_NONE;
    default:
        return SPIN_NONE;
    }
}

#endif
