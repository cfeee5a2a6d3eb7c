/* dirsmp.h: the directory-based multicore system class (see dirsmp.c). */
#ifndef ARCHSIM_DIRSMP_H
#define ARCHSIM_DIRSMP_H

#include "../../sim/registry.h"

extern const SystemClass dirsmp_system;

#endif
