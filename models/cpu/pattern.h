/* pattern.h: synthetic sharing-pattern cores and the random coherence tester. */
#ifndef ARCHSIM_PATTERN_H
#define ARCHSIM_PATTERN_H

#include "../../sim/component.h"

extern const ComponentClass pattern_core_class;
extern const ComponentClass random_tester_class;

#endif
