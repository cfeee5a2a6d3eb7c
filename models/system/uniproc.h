/* uniproc.h: the single-core system class. */
#ifndef ARCHSIM_UNIPROC_H
#define ARCHSIM_UNIPROC_H

#include "../../sim/registry.h"

extern const SystemClass uniproc_system;

#endif
