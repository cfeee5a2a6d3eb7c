/* smp.h: the snooping multicore system class. */
#ifndef ARCHSIM_SMP_H
#define ARCHSIM_SMP_H

#include "../../sim/registry.h"

extern const SystemClass smp_system;

#endif
