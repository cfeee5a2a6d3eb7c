/* dirmsg.h: the messages of the directory protocols (protocols/dirproto.h) as they travel through
 * the on-chip network (models/noc) between the private caches (models/dir/dircache.c, class
 * dir-cache) and the directory slices at the LLC banks (models/dir/directory.c, class directory).
 *
 * Endpoints of the noc (system dirsmp): cache i is endpoint i (0 <= i < caches); the directory
 * of LLC bank b is endpoint caches + b. Block B's home is bank (B / line) % banks, as for the
 * snooping LLC. Every message is one Msg, family MSG_FAM_DIR, payload DirPayload (dir_msg()):
 *
 *   cmd     MSG_DIR
 *   route   (first, models/noc/nocmsg.h) destination endpoint, vnet = dir_msg_vnet[type]
 *           (request 0, forward 1, response 2); the network adds the source
 *   addr    the block address (line aligned)
 *   type    DirMsgType (GetS ... Inv-Ack)
 *   dflags  DMF_* below
 *   req     the requester's cache id: the sender of GetS/GetM/Put*, the cache that Fwd-GetS,
 *           Fwd-GetM and Inv name (data and Inv-Ack go to it)
 *   acks    Data from the directory: Inv-Acks the requester must collect
 *   size    payload bytes: the line size for Data and PutM, 0 for control messages
 *   data    the line's bytes for Data and PutM: a buffer from dir_data_new(), owned by the
 *           message; the receiver frees it with dir_data_free() when it frees the message
 *   flags   MSG_F_OWNS_DATA when data is set
 *   issued  when the miss that caused the message began (latency stats)
 */
#ifndef ARCHSIM_DIRMSG_H
#define ARCHSIM_DIRMSG_H

#include <glib.h>

#include "../../protocols/dirproto.h"
#include "../../sim/component.h"
#include "../noc/nocmsg.h"

typedef enum { DIR_MSG, DIR_CMDS } DirCmd;
#define MSG_DIR MSG_CMD(MSG_FAM_DIR, DIR_MSG)

#define DMF_EXCL 0x01u          /* Data: Exclusive-Data (MESI E grant) */
#define DMF_FROM_OWNER 0x02u    /* Data: sent by the previous owner cache (three-hop) */

typedef struct {
    NocRoute route;      /* first: the noc reads it */
    uint64_t addr;
    uint8_t type;
    uint8_t dflags;
    uint16_t req;
    int16_t acks;
} DirPayload;
MSG_PAYLOAD_FITS(DirPayload);
_Static_assert(offsetof(DirPayload, route) == 0, "a noc-routed payload starts with its NocRoute");

static inline DirPayload *dir_msg(Msg *m)
{
    return (DirPayload *)SIM_MSG_PAYLOAD(m, MSG_FAM_BIT(MSG_FAM_DIR));
}
static inline const DirPayload *dir_msg_c(const Msg *m)
{
    return (const DirPayload *)SIM_MSG_PAYLOAD(m, MSG_FAM_BIT(MSG_FAM_DIR));
}
static inline void dir_msg_set(Msg *m, int type, unsigned flags, int req, int acks)
{
    DirPayload *d = dir_msg(m);
    d->type = (uint8_t)type;
    d->dflags = (uint8_t)flags;
    d->req = (uint16_t)req;
    d->acks = (int16_t)acks;
}
static inline int dir_msg_type(const Msg *m) { return dir_msg_c(m)->type; }
static inline unsigned dir_msg_flags(const Msg *m) { return dir_msg_c(m)->dflags; }
static inline int dir_msg_req(const Msg *m) { return dir_msg_c(m)->req; }
static inline int dir_msg_acks(const Msg *m) { return dir_msg_c(m)->acks; }
extern const MsgFamily dir_msg_family;

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
