/* thread_core.h: the core class that replays one thread of a recorded parallel program. */
#ifndef ARCHSIM_THREAD_CORE_H
#define ARCHSIM_THREAD_CORE_H

#include "../../sim/component.h"

extern const ComponentClass thread_core_class;

#endif
