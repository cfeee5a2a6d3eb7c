/* cache.h: the timing cache class (cache.c) and the functional cachegrind model (cgsim.h). */
#ifndef ARCHSIM_CACHE_H
#define ARCHSIM_CACHE_H

#include "../../sim/component.h"

extern const ComponentClass cache_class;

#endif
