/* busmsg.h: the messages between coherent caches and the snooping bus (models/bus/bus.c).
 *
 *   cache --BUS_REQ(kind, block)--> bus        queued; arbitration; ordered after the address phase
 *   bus ==BUS_SNOOP(kind, requester)==> every cache, synchronously, at the ordering point; each
 *        answers in msg->flags (SNOOP_*) and, when it supplies or writes back, copies its line
 *        into msg->data
 *   bus --BUS_DATA(excl)--> requester          the line arrives (msg->data), for GetS/GetM
 *   cache ==BUS_FILTER(add/remove, block)==> bus   synchronously, when a block enters or leaves
 *        the cache (a frame in a state other than I), so that the bus's snoop filter snoops only
 *        the caches that hold a block (models/bus/snoopfilter.h)
 */
#ifndef ARCHSIM_BUSMSG_H
#define ARCHSIM_BUSMSG_H

#include "../../sim/component.h"
#include "../msgfam.h"

typedef enum { BUS_REQ, BUS_SNOOP, BUS_DATA, BUS_FILTER, BUS_CMDS } BusCmd;
#define MSG_BUS_REQ MSG_CMD(MSG_FAM_BUS, BUS_REQ)
#define MSG_BUS_SNOOP MSG_CMD(MSG_FAM_BUS, BUS_SNOOP)
#define MSG_BUS_DATA MSG_CMD(MSG_FAM_BUS, BUS_DATA)
#define MSG_BUS_FILTER MSG_CMD(MSG_FAM_BUS, BUS_FILTER)

typedef enum { BUS_GETS = 0, BUS_GETM = 1, BUS_PUTM = 2, BUS_KINDS } BusKind;

/* The bus family's payload (bus_msg(m)); `kind` and `who` mean, per command: */
typedef struct {
    uint64_t addr;       /* the block */
    uint64_t tag;        /* REQ: the cache's cookie; DATA: the request's; probe: the age */
    uint64_t kind;       /* REQ, SNOOP: BusKind; DATA: 1 if exclusive */
    uint64_t who;        /* REQ: transaction age; SNOOP: requester's slot; DATA: data source;
                            FILTER: the answer */
} BusPayload;
MSG_PAYLOAD_FITS(BusPayload);
static inline BusPayload *bus_msg(Msg *m)
{
    return (BusPayload *)SIM_MSG_PAYLOAD(m, MSG_FAM_BIT(MSG_FAM_BUS));
}
static inline const BusPayload *bus_msg_c(const Msg *m)
{
    return (const BusPayload *)SIM_MSG_PAYLOAD(m, MSG_FAM_BIT(MSG_FAM_BUS));
}
extern const MsgFamily bus_msg_family;

/* BUS_REQ: kind, who = the requester's transaction age (1 + its first begin cycle
 * x 256 + its cache index; 0 when the access is not transactional), tag = the cache's cookie.
 * Flags: */
#define BUSF_UPGRADE 0x1u        /* a GetM from a cache that holds a valid copy */

/* BUS_SNOOP: kind, who = requester's bus port slot; flags carry the answers */
#define SNOOP_OWN 0x01u          /* set by the bus: this cache is the requester */
#define SNOOP_SHARED 0x02u       /* a snooper keeps a copy (wired-OR shared line) */
#define SNOOP_SUPPLY 0x04u       /* a snooper supplies the data (cache-to-cache) */
#define SNOOP_WRITEBACK 0x08u    /* data goes to memory (own PutM, or MSI's M -> S) */
#define SNOOP_REQ_OWNER 0x10u    /* the requester owns the line: data comes from itself */
#define SNOOP_INVALIDATED 0x20u  /* a snooper lost a valid copy */
#define SNOOP_NODATA 0x40u       /* own PutM from a cache that lost ownership: nothing to write */
#define SNOOP_PROBE 0x80u        /* set by the bus: only asking whether this cache refuses the
                                    request (HTM responder wins, models/cache/htm.h); change
                                    nothing; tag = the requester's transaction age (BUS_REQ) */
#define SNOOP_NACK 0x100u        /* answer to a probe: refused; the request is not ordered */
#define SNOOP_UPGRADE 0x200u     /* own GetM: the requester still holds a valid copy (an upgrade;
                                    BUSF_UPGRADE says only that it held one when it asked) */

/* BUS_DATA: kind = 1 if exclusive (no other copy), who = where the data came from
 * (0 memory, 1 another cache, 2 the requester itself, BUS_NACKED: refused, no data: send the
 * request again); tag = the request's tag */
#define BUS_NACKED 3u

/* BUS_FILTER, always an express call (sim_port_call); kind says which:
 *   OFFER    bus -> cache, at the start: a cache that keeps the filter exact (it tells every
 *            block it takes and drops, and its protocol's I state answers every other cache's
 *            request with no action and no state change) sets BUSF_SF_ACCEPT in flags; the bus
 *            then snoops it only for the blocks it holds and counts the rest for it
 *   ADD      cache -> bus: addr = a block the cache now holds (its frame left I)
 *   REMOVE   cache -> bus: addr = a block it no longer holds (its frame went to I)
 *   SKIPPED  cache -> bus: tag = a BusKind; who = requests of that kind ordered for other caches
 *            that the bus did not snoop this cache for (it held nothing of theirs); the cache
 *            counts them as its I state's Other_* transitions, which they would have been */
enum { BUS_SF_OFFER, BUS_SF_ADD, BUS_SF_REMOVE, BUS_SF_SKIPPED };
#define BUSF_SF_ACCEPT 0x2u

#endif
