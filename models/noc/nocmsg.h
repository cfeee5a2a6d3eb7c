/* nocmsg.h: how an endpoint addresses a message to another endpoint of a noc.
 *
 * The network forwards the endpoint's own Msg (never a copy); it reads and writes only aux[1]:
 *
 *   aux[1]  63        48 47        32 31    24 23     16 15          0
 *          +------------+------------+--------+---------+-------------+
 *          |  note      | src (noc)  | (zero) |  vnet   |  dst node   |
 *          +------------+------------+--------+---------+-------------+
 *
 *   dst   destination endpoint: the slot of the noc's `node` port it is connected to (with
 *         concentration c, endpoint e sits at router e % nodes; there are nodes x c of them)
 *   vnet  virtual network (message class): 0 request, 1 forward, 2 response by convention
 *   src   set by the network on injection, so the receiver knows the sender
 *   note  16 bits the two endpoints may use between them; the network never reads them
 *         (noc_msg_route clears them: set the note after routing)
 *   size  payload bytes carried (0 for a control message); the network adds its `header`
 * Everything else (cmd, addr, tag, issued, flags, aux[0], data) belongs to the protocol.
 * Order: messages from one source to one destination on one vnet arrive in the order sent;
 * nothing is promised across vnets or between sources (docs/noc.md, "Ordering").
 */
#ifndef ARCHSIM_NOCMSG_H
#define ARCHSIM_NOCMSG_H

#include "../../sim/component.h"

enum { NOC_VNET_REQUEST = 0, NOC_VNET_FORWARD = 1, NOC_VNET_RESPONSE = 2 };

static inline void noc_msg_route(Msg *m, uint32_t dst, uint32_t vnet)
{
    m->aux[1] = (uint64_t)(dst & 0xffffu) | (uint64_t)(vnet & 0xffu) << 16;
}
static inline uint32_t noc_msg_dst(const Msg *m) { return (uint32_t)(m->aux[1] & 0xffffu); }
static inline uint32_t noc_msg_vnet(const Msg *m) { return (uint32_t)(m->aux[1] >> 16 & 0xffu); }
static inline uint32_t noc_msg_src(const Msg *m) { return (uint32_t)(m->aux[1] >> 32 & 0xffffu); }
static inline uint32_t noc_msg_note(const Msg *m) { return (uint32_t)(m->aux[1] >> 48 & 0xffffu); }
static inline void noc_msg_set_note(Msg *m, uint32_t note)
{
    m->aux[1] = (m->aux[1] & ~(0xffffull << 48)) | (uint64_t)(note & 0xffffu) << 48;
}
static inline void noc_msg_set_src(Msg *m, uint32_t src)
{
    m->aux[1] = (m->aux[1] & ~(0xffffull << 32)) | (uint64_t)(src & 0xffffu) << 32;
}

#endif
