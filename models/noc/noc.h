/* noc.h: the on-chip network class "noc" (crossbar, ring or 2D mesh; see noc.c and docs/noc.md).
 * Endpoints address each other with the fields of nocmsg.h. */
#ifndef ARCHSIM_NOC_H
#define ARCHSIM_NOC_H

#include "../../sim/component.h"

extern const ComponentClass noc_class;

#endif
