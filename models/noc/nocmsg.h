/* nocmsg.h: how an endpoint addresses a message to another endpoint of a noc.
 *
 * The network forwards the endpoint's own Msg (never a copy). A family whose messages travel a
 * noc starts its payload with a NocRoute (as a packet starts with its network header: the noc
 * is a transport, it has no commands of its own), and the noc reads and writes only that:
 *
 *   payload  +-----------+-----------+------+---- the family's fields ----+
 *            | dst (u16) | src (u16) | vnet |  (DirPayload: addr, type..) |
 *            +-----------+-----------+------+-----------------------------+
 *
 *   dst   destination endpoint: the slot of the noc's `node` port it is connected to (with
 *         concentration c, endpoint e sits at router e % nodes; there are nodes x c of them)
 *   vnet  virtual network (message class): 0 request, 1 forward, 2 response by convention
 *   src   set by the network on injection, so the receiver knows the sender
 *   size  payload bytes carried (0 for a control message); the network adds its `header`
 * Everything else (cmd, issued, flags, data, the rest of the payload) belongs to the protocol.
 * Order: messages from one source to one destination on one vnet arrive in the order sent;
 * nothing is promised across vnets or between sources (docs/noc.md, "Ordering").
 */
#ifndef ARCHSIM_NOCMSG_H
#define ARCHSIM_NOCMSG_H

#include "../../sim/component.h"
#include "../msgfam.h"

enum { NOC_VNET_REQUEST = 0, NOC_VNET_FORWARD = 1, NOC_VNET_RESPONSE = 2 };

typedef struct {
    uint16_t dst;
    uint16_t src;
    uint8_t vnet;
} NocRoute;

/* The families whose payloads start with a NocRoute (those a noc may carry). */
#define NOC_ROUTED_FAMS (MSG_FAM_BIT(MSG_FAM_DIR) | MSG_FAM_BIT(MSG_FAM_TEST) | \
                         MSG_FAM_BIT(MSG_FAM_NET) | MSG_FAM_BIT(MSG_FAM_GPU) | \
                         MSG_FAM_BIT(MSG_FAM_RDU))

static inline NocRoute *noc_routing(Msg *m)
{
    return (NocRoute *)SIM_MSG_PAYLOAD(m, NOC_ROUTED_FAMS);
}
static inline const NocRoute *noc_routing_c(const Msg *m)
{
    return (const NocRoute *)SIM_MSG_PAYLOAD(m, NOC_ROUTED_FAMS);
}
static inline void noc_msg_route(Msg *m, uint32_t dst, uint32_t vnet)
{
    NocRoute *r = noc_routing(m);
    r->dst = (uint16_t)dst;
    r->vnet = (uint8_t)vnet;
    r->src = 0;
}
static inline uint32_t noc_msg_dst(const Msg *m) { return noc_routing_c(m)->dst; }
static inline uint32_t noc_msg_vnet(const Msg *m) { return noc_routing_c(m)->vnet; }
static inline uint32_t noc_msg_src(const Msg *m) { return noc_routing_c(m)->src; }
static inline void noc_msg_set_src(Msg *m, uint32_t src)
{
    noc_routing(m)->src = (uint16_t)src;
}

#endif
