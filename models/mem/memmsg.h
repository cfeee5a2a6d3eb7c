/* memmsg.h: the memory family's messages (MSG_FAM_MEM), between cores, caches and memory: reads,
 * writes, write-backs, locked read-modify-writes, LL/SC and spin-wait watches. The payload
 * (MemPayload) lies in the message's inline area (sim/msg.h); mem_msg(m) reaches it. The HTM
 * commands (models/cache/htm.h) use the same payload.
 *
 *   field   request                                   response
 *   addr    the byte address accessed                 the same
 *   tag     the requester's cookie                    returned as it came
 *   value   store / RMW operand / SC value            the value read, the old value (RMW)
 *   arg     CMPXCHG compare value, watched value      1: the RMW / SC did what was asked, 0 not
 *
 * `size` (header) is the access's bytes; flags (header, bits 0-14) the MEM_F_* below.
 */
#ifndef ARCHSIM_MEMMSG_H
#define ARCHSIM_MEMMSG_H

#include <stdint.h>

#include "../../sim/component.h"
#include "../msgfam.h"

typedef enum {
    MEM_READ_REQ,        /* read a block (or part of one) */
    MEM_WRITE_REQ,       /* write part of a block (store) */
    MEM_READ_RESP,
    MEM_WRITE_RESP,
    MEM_WRITEBACK,       /* dirty block evicted downward; no response */
    MEM_CMDS
} MemCmd;

#define MSG_READ_REQ MSG_CMD(MSG_FAM_MEM, MEM_READ_REQ)
#define MSG_WRITE_REQ MSG_CMD(MSG_FAM_MEM, MEM_WRITE_REQ)
#define MSG_READ_RESP MSG_CMD(MSG_FAM_MEM, MEM_READ_RESP)
#define MSG_WRITE_RESP MSG_CMD(MSG_FAM_MEM, MEM_WRITE_RESP)
#define MSG_WRITEBACK MSG_CMD(MSG_FAM_MEM, MEM_WRITEBACK)

typedef struct {
    uint64_t addr;
    uint64_t tag;        /* requester's cookie, returned in the response */
    uint64_t value;      /* see the table above */
    uint64_t arg;
} MemPayload;
MSG_PAYLOAD_FITS(MemPayload);

/* The families whose messages carry a MemPayload. */
#define MEM_PAYLOAD_FAMS (MSG_FAM_BIT(MSG_FAM_MEM) | MSG_FAM_BIT(MSG_FAM_HTM))

static inline MemPayload *mem_msg(Msg *m)
{
    return (MemPayload *)SIM_MSG_PAYLOAD(m, MEM_PAYLOAD_FAMS);
}
static inline const MemPayload *mem_msg_c(const Msg *m)
{
    return (const MemPayload *)SIM_MSG_PAYLOAD(m, MEM_PAYLOAD_FAMS);
}

extern const MsgFamily mem_msg_family;

/* What the memory family's components share in one run (Sim.ext[MSG_FAM_MEM], created on first
 * use, freed by sim_destroy): the engine knows none of it. */
typedef struct {
    struct Oracle *oracle;   /* reference checks (golden memory, SWMR: models/mem/oracle.h), or
                                NULL; set by the systems that enable checks */
    int htm_nackers;         /* L1s running a transaction that may refuse requests (HTM
                                responder wins): the bus asks before ordering while > 0 */
    struct Oracle *writes;   /* with checks off, the per-word last-writer record that splits
                                coherence misses into true and false sharing (mem_writes) */
} MemShared;

MemShared *mem_shared_new(Sim *sim);
static inline MemShared *mem_shared(Sim *sim)
{
    MemShared *s = (MemShared *)sim->ext[MSG_FAM_MEM];
    return G_LIKELY(s != NULL) ? s : mem_shared_new(sim);
}
/* The run's oracle, or NULL (no checks). */
static inline struct Oracle *mem_oracle(Sim *sim)
{
    MemShared *s = (MemShared *)sim->ext[MSG_FAM_MEM];
    return s != NULL ? s->oracle : NULL;
}
/* Where performed stores are recorded (writer and order per word, for the true/false sharing
 * split of coherence misses): the oracle when checks are on, else the record an L1 that
 * classifies misses asked for (mem_writes_enable), else NULL. The miss classes are the same
 * with checks on or off. */
static inline struct Oracle *mem_writes(Sim *sim)
{
    MemShared *s = (MemShared *)sim->ext[MSG_FAM_MEM];
    return s == NULL ? NULL : s->oracle != NULL ? s->oracle : s->writes;
}
void mem_writes_enable(Sim *sim);

#define MSG_F_IFETCH 0x1u  /* read is an instruction fetch */
/* A MSG_WRITE_REQ with MSG_F_RMW is a locked read-modify-write (x86 XCHG, LOCK ADD/XADD,
 * LOCK CMPXCHG) of `size` bytes: the coherent L1 performs it once the line is held with write
 * permission, reading and writing in one step (no snoop can come between):
 *   flags bits 2-3  the operation, MSG_RMW_OP(flags): MSG_RMW_XCHG, MSG_RMW_ADD, MSG_RMW_CMPXCHG
 *   value           the operand: XCHG the new value, ADD the addend, CMPXCHG the new value
 *   arg             CMPXCHG only: the compare value (the core's EAX)
 * The response is MSG_WRITE_RESP with value = the old value and arg = 1 when the operation
 * changed memory as asked (always for XCHG and ADD; for CMPXCHG when old == compare value), else
 * 0. ADD wraps modulo 2^(8 size). A failed CMPXCHG writes the old value back, as x86 does. */
#define MSG_F_RMW 0x2u
#define MSG_RMW_XCHG 0u
#define MSG_RMW_ADD 1u
#define MSG_RMW_CMPXCHG 2u
#define MSG_RMW_FLAGS(op) ((uint16_t)(MSG_F_RMW | ((unsigned)(op) << 2)))
#define MSG_RMW_OP(flags) (((unsigned)(flags) >> 2) & 0x3u)
/* Test-and-set: with MSG_RMW_FLAGS(MSG_RMW_XCHG) and value = 1; performed as that XCHG, only
 * counted apart (atomics.tas) by the coherent L1s. */
#define MSG_F_TAS 0x10u
/* Load-linked / store-conditional at the coherent L1 (models/cache/cohshared.h): each cache holds
 * one reservation (a line), as a MIPS/ARM local monitor does.
 *   MSG_F_LL  a MSG_READ_REQ that is a load and then sets the reservation on its line (if the
 *             line is still readable here once the load performs)
 *   MSG_F_SC  a MSG_WRITE_REQ of `value`: when the reservation is not held as it arrives, it
 *             fails at once (no coherence action); else it is a store (obtains M) that writes
 *             only if the reservation survived until it performs. Either way the reservation is
 *             cleared. The response (MSG_WRITE_RESP) has arg = 1 on success, 0 on failure.
 * The reservation is lost when the line loses read permission here (another cache's GetM, an
 * Inv or Fwd-GetM), when it is evicted, or by any SC. The core must wait for an LL's answer
 * before it sends the SC (the SC is checked as it arrives). */
#define MSG_F_LL 0x20u
#define MSG_F_SC 0x40u
/* A spin-wait watch (a core eliding a spin loop on a cached line, models/cpu/kernel.h): a
 * MSG_READ_REQ that reads nothing and is answered (MSG_READ_RESP, value = 0) only when the
 * line may hold a value other than arg: at once if the line is not readable here or its
 * `size` bytes differ, else once it loses read permission here or is evicted. Not counted as a
 * load (spin_waits). One per cache at a time. */
#define MSG_F_WATCH 0x80u
/* 0x100 and 0x200 are the HTM flags (models/cache/htm.h: MSG_F_TX, MSG_F_TX_STALE). */

#endif
