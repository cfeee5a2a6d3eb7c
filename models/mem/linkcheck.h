/* linkcheck.h: what memory-system classes check across their links in a machine graph
 * (ComponentClass.check_link): a request never spans two lines of the cache that receives it,
 * so a requester's line may not exceed its responder's (lines only grow from the core down), and
 * the two ends of a snooping bus move whole coherence blocks, so their lines are equal. A class
 * whose neighbour has no `line` parameter (a DRAM, a network) has nothing to check there.
 */
#ifndef ARCHSIM_LINKCHECK_H
#define ARCHSIM_LINKCHECK_H

#include "../../sim/component.h"

/* check_link for any requester port: my line <= the responder's line, when both have one. */
static inline bool mem_link_line_down(Component *c, Port *mine, Port *theirs, GError **error)
{
    Component *o = theirs->owner;
    uint64_t a = 0, b = 0;
    if (c->cls->ports[mine->spec].role != PORT_REQUESTER || !sim_component_param_u64(c, "line", &a) ||
        !sim_component_param_u64(o, "line", &b) || a <= b)
        return true;
    return sim_component_reject_pair(c, "line", o, "line", error,
                                     "%s.line (%" G_GUINT64_FORMAT " B) is larger than %s.line (%"
                                     G_GUINT64_FORMAT " B) across the link %s.%s -> %s.%s: a "
                                     "request must fit in one line of the cache that receives "
                                     "it (lines may only grow from the core down); make them "
                                     "equal", c->name, a, o->name, b, c->name,
                                     c->cls->ports[mine->spec].name, o->name,
                                     o->cls->ports[theirs->spec].name);
}

/* check_link for a snooping bus's ends: equal lines on both sides of the link. */
static inline bool mem_link_line_equal(Component *c, Port *mine, Port *theirs, GError **error)
{
    Component *o = theirs->owner;
    uint64_t a = 0, b = 0;
    if (c->cls->ports[mine->spec].role != PORT_REQUESTER || !sim_component_param_u64(c, "line", &a) ||
        !sim_component_param_u64(o, "line", &b) || a == b)
        return true;
    return sim_component_reject_pair(c, "line", o, "line", error,
                                     "%s.line (%" G_GUINT64_FORMAT " B) and %s.line (%"
                                     G_GUINT64_FORMAT " B) must be equal across the link %s.%s -> "
                                     "%s.%s: the bus moves whole coherence blocks", c->name, a,
                                     o->name, b, c->name, c->cls->ports[mine->spec].name, o->name,
                                     o->cls->ports[theirs->spec].name);
}

#endif
