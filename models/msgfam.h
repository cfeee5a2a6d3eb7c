/* msgfam.h: the message families, one line each: a family's id is its place in this list, so
 * command ids (sim/msg.h: family << 8 | command) need no hand-kept offsets. A new family adds its
 * line here (at the end, or anywhere: ids are never written to files), its payload and command
 * enum in its own header, and its MsgFamily table in models/registry.c (docs/models.md,
 * "Messages: header and payloads"). Id 0 is no family: a message whose cmd is not set yet.
 */
#ifndef ARCHSIM_MSGFAM_H
#define ARCHSIM_MSGFAM_H

#include "../sim/msg.h"

typedef enum {
    MSG_FAM_NONE = 0,
    MSG_FAM_MEM,    /* models/mem/memmsg.h: core <-> cache <-> memory reads, writes, RMW, LL/SC */
    MSG_FAM_HTM,    /* models/cache/htm.h: transaction begin/end/abort (MemPayload) */
    MSG_FAM_BUS,    /* models/bus/busmsg.h: cache <-> snooping bus */
    MSG_FAM_SYNC,   /* models/sync/syncmsg.h: thread cores <-> the workload's sync manager */
    MSG_FAM_DIR,    /* models/dir/dirmsg.h: directory protocol messages over the noc */
    MSG_FAM_TEST,   /* tests/unit: a mock's own messages (over a noc: a NocRoute first) */
    MSG_FAM_NET,    /* models/noc/ni.c: an envelope carrying a memory message over a noc */
    MSG_FAM_GPU,    /* models/gpu/gpumsg.h: thread blocks between the block scheduler and SMs */
    MSG_FAM_RDU,    /* models/rdu/rdu.h: kernel calls to the RDU chip, its tier transfers */
    MSG_FAM_COUNT
} MsgFamilyId;

#define MSG_FAM_BIT(f) (1u << (f))

#endif
