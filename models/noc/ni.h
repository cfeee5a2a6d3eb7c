/* ni.h: network interfaces that carry plain memory traffic (a cache's misses, a DRAM's answers)
 * across a noc, so that a machine graph can put a network between levels of its hierarchy. */
#ifndef ARCHSIM_NI_H
#define ARCHSIM_NI_H

#include "../../sim/component.h"

extern const ComponentClass noc_req_ni_class;   /* a requester's side: cpu_side in, net out */
extern const ComponentClass noc_mem_ni_class;   /* a memory's side: net in, mem_side out */
extern const MsgFamily net_msg_family;          /* the envelopes (models/noc/ni.c) */

#endif
