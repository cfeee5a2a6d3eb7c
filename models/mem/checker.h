/* checker.h: the mem-checker component (the reference checks of a machine graph). */
#ifndef ARCHSIM_MEM_CHECKER_H
#define ARCHSIM_MEM_CHECKER_H

#include "../../sim/component.h"

extern const ComponentClass mem_checker_class;

#endif
