/* rdu.h: the RDU's component classes and message family (docs/rdu.md). The host (rdu-workload)
 * launches the kernels of a mapped graph one after another, each after a launch latency; the
 * chip (rdu-chip) maps the graph onto its PCU/PMU grid (mapper.h) and runs each kernel as a
 * metapipeline (metapipe.h): tiles between stages cross the switch network (a noc mesh, one
 * endpoint per PCU/PMU pair), HBM and DDR traffic goes to two memory tiers (rdu-mem), each a
 * bandwidth server with a latency and a capacity. */
#ifndef ARCHSIM_RDU_RDU_H
#define ARCHSIM_RDU_RDU_H

#include "../../sim/component.h"
#include "../../sim/msg.h"
#include "../msgfam.h"
#include "../noc/nocmsg.h"
#include "mapper.h"

extern const ComponentClass rdu_workload_class;
extern const ComponentClass rdu_chip_class;
extern const ComponentClass rdu_mem_class;
extern const MsgFamily rdu_msg_family;

enum { RDU_KERNEL_LAUNCH, RDU_KERNEL_DONE, RDU_MEM_REQ, RDU_MEM_RESP, RDU_TILE, RDU_CMDS };
#define MSG_RDU_KERNEL_LAUNCH MSG_CMD(MSG_FAM_RDU, RDU_KERNEL_LAUNCH)
#define MSG_RDU_KERNEL_DONE MSG_CMD(MSG_FAM_RDU, RDU_KERNEL_DONE)
#define MSG_RDU_MEM_REQ MSG_CMD(MSG_FAM_RDU, RDU_MEM_REQ)
#define MSG_RDU_MEM_RESP MSG_CMD(MSG_FAM_RDU, RDU_MEM_RESP)
#define MSG_RDU_TILE MSG_CMD(MSG_FAM_RDU, RDU_TILE)

typedef struct {
    NocRoute route;             /* first: what a noc reads (tiles cross the chip's mesh) */
    bool last;                  /* done: it was the program's last kernel */
    bool write;                 /* memory: a write (else a read) */
    uint32_t kernel;            /* launch / done: the kernel's number; tile: the run's number */
    uint32_t gen;               /* tile: its loop's run (a tile of a finished run is dropped) */
    uint64_t bytes;             /* memory: the transfer's size */
    void *cookie;               /* memory, tile: the requester's, returned as it came */
} RduPayload;
MSG_PAYLOAD_FITS(RduPayload);

static inline RduPayload *rdu_msg(Msg *m) { return (RduPayload *)SIM_MSG_PAYLOAD(m, MSG_FAM_BIT(MSG_FAM_RDU)); }

/* `archsim rdu map`'s report of the chip's mapping (c: an rdu-chip, realized). */
void rdu_chip_report(Component *c, GString *out);

#endif
