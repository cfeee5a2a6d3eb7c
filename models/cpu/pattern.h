/* pattern.h: synthetic sharing-pattern cores and the random coherence tester. */
#ifndef ARCHSIM_PATTERN_H
#define ARCHSIM_PATTERN_H

#include "../../sim/component.h"

extern const ComponentClass pattern_core_class;
extern const ComponentClass random_tester_class;

/* For a pattern-core running `private` with L1 lines of `line` bytes: true, or false with
 * *error (78, at core.words) when one core's words end inside a line the next core's share
 * (words x spacing not a multiple of the line), so that `private` would be false sharing. Any
 * other component or pattern: true. */
bool pattern_check_private(Component *core, uint64_t line, GError **error);

#endif
