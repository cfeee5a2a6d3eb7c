/* busmsg.h: the messages between coherent caches and the snooping bus (models/bus/bus.c).
 *
 *   cache --BUS_REQ(kind, block)--> bus        queued; arbitration; ordered after the address phase
 *   bus ==BUS_SNOOP(kind, requester)==> every cache, synchronously, at the ordering point; each
 *        answers in msg->flags (SNOOP_*) and, when it supplies or writes back, copies its line
 *        into msg->data
 *   bus --BUS_DATA(excl)--> requester          the line arrives (msg->data), for GetS/GetM
 */
#ifndef ARCHSIM_BUSMSG_H
#define ARCHSIM_BUSMSG_H

#include "../../sim/component.h"

enum {
    MSG_BUS_REQ = MSG_CMD_USER + 1,
    MSG_BUS_SNOOP,
    MSG_BUS_DATA,
};

typedef enum { BUS_GETS = 0, BUS_GETM = 1, BUS_PUTM = 2, BUS_KINDS } BusKind;

/* BUS_REQ: aux[0] = kind, aux[1] = the requester's transaction age (1 + its first begin cycle
 * x 256 + its cache index; 0 when the access is not transactional), tag = the cache's cookie.
 * Flags: */
#define BUSF_UPGRADE 0x1u        /* a GetM from a cache that holds a valid copy */

/* BUS_SNOOP: aux[0] = kind, aux[1] = requester's bus port slot; flags carry the answers */
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

/* BUS_DATA: aux[0] = 1 if exclusive (no other copy), aux[1] = where the data came from
 * (0 memory, 1 another cache, 2 the requester itself, BUS_NACKED: refused, no data: send the
 * request again); tag = the request's tag */
#define BUS_NACKED 3u

#endif
