/* dirmsg.h: the messages of the directory protocols (protocols/dirproto.h) as they travel through
 * the on-chip network (models/noc) between the private caches (models/dir/dircache.c, class
 * dir-cache) and the directory slices at the LLC banks (models/dir/directory.c, class directory).
 *
 * Endpoints of the noc (system dirsmp): cache i is endpoint i (0 <= i < caches); the directory
 * of LLC bank b is endpoint caches + b. Block B's home is bank (B / line) % banks, as for the
 * snooping LLC. Every message is one Msg:
 *
 *   cmd     MSG_DIR
 *   addr    the block address (line aligned)
 *   aux[0]  63      48 47        32 31        16 15     8 7      0
 *          +----------+------------+------------+--------+--------+
 *          |  (zero)  | acks (s16) | req (cache)|  flags |  type  |
 *          +----------+------------+------------+--------+--------+
 *     type  DirMsgType (GetS ... Inv-Ack)
 *     req   the requester's cache id: the sender of GetS/GetM/Put*, the cache that Fwd-GetS,
 *           Fwd-GetM and Inv name (data and Inv-Ack go to it)
 *     acks  Data from the directory: Inv-Acks the requester must collect
 *     flags DMF_* below
 *   aux[1]  routing (models/noc/nocmsg.h): destination endpoint, vnet = dir_msg_vnet[type]
 *           (request 0, forward 1, response 2); the network adds the source
 *   size    payload bytes: the line size for Data and PutM, 0 for control messages
 *   data    the line's bytes for Data and PutM: a buffer from dir_data_new(), owned by the
 *           message; the receiver frees it with dir_data_free() when it frees the message
 *   flags   MSG_F_OWNS_DATA when data is set
 *   tag     unused by the protocol (0)
 *   issued  when the miss that caused the message began (latency stats)
 */
#ifndef ARCHSIM_DIRMSG_H
#define ARCHSIM_DIRMSG_H

#include <glib.h>

#include "../../protocols/dirproto.h"
#include "../../sim/component.h"
#include "../noc/nocmsg.h"

enum { MSG_DIR = MSG_CMD_USER + 40 };

#define DMF_EXCL 0x01u          /* Data: Exclusive-Data (MESI E grant) */
#define DMF_FROM_OWNER 0x02u    /* Data: sent by the previous owner cache (three-hop) */

static inline uint64_t dir_msg_pack(int type, unsigned flags, int req, int acks)
{
    return (uint64_t)(type & 0xff) | (uint64_t)(flags & 0xffu) << 8 |
           (uint64_t)(req & 0xffff) << 16 | (uint64_t)(uint16_t)(int16_t)acks << 32;
}
static inline int dir_msg_type(const Msg *m) { return (int)(m->aux[0] & 0xff); }
static inline unsigned dir_msg_flags(const Msg *m) { return (unsigned)(m->aux[0] >> 8 & 0xff); }
static inline int dir_msg_req(const Msg *m) { return (int)(m->aux[0] >> 16 & 0xffff); }
static inline int dir_msg_acks(const Msg *m) { return (int)(int16_t)(uint16_t)(m->aux[0] >> 32); }

/* Gives m a line buffer it owns (MSG_F_OWNS_DATA: if the run stops with m still in flight, the
 * simulator's teardown frees it). */
static inline uint8_t *dir_data_new(Msg *m, uint32_t line)
{
    m->flags |= MSG_F_OWNS_DATA;
    return m->data = g_malloc(line);
}
static inline void dir_data_free(Msg *m)
{
    g_free(m->data);
    m->data = NULL;
}

/* The home directory's endpoint of a block. */
static inline uint32_t dir_home(uint64_t block, uint32_t line_shift, uint32_t caches,
                                uint32_t banks)
{
    return caches + (uint32_t)((block >> line_shift) % banks);
}

#endif
