/* trace_core.h: the trace-driven in-order core class. */
#ifndef ARCHSIM_TRACE_CORE_H
#define ARCHSIM_TRACE_CORE_H

#include "../../sim/component.h"

extern const ComponentClass trace_core_class;

#endif
