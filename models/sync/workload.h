/* workload.h: the workload section's class: a recorded multi-thread trace and its
 * synchronization manager. */
#ifndef ARCHSIM_WORKLOAD_H
#define ARCHSIM_WORKLOAD_H

#include "../../sim/component.h"

extern const ComponentClass workload_class;

#endif
