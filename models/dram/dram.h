/* dram.h: the DRAM controller + device class. */
#ifndef ARCHSIM_DRAM_H
#define ARCHSIM_DRAM_H

#include "../../sim/component.h"

extern const ComponentClass dram_class;

#endif
