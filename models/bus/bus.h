/* bus.h: the snooping bus class. */
#ifndef ARCHSIM_BUS_H
#define ARCHSIM_BUS_H

#include "../../sim/component.h"

extern const ComponentClass bus_class;

#endif
