/* coherent.h: the generic snooping cache controller class (coherent.c). */
#ifndef ARCHSIM_COHERENT_H
#define ARCHSIM_COHERENT_H

#include "../../sim/component.h"

extern const ComponentClass coherent_cache_class;

#endif
