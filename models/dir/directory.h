/* directory.h: the directory controller class "directory" (one per LLC bank; see directory.c and
 * dirmsg.h). */
#ifndef ARCHSIM_DIRECTORY_H
#define ARCHSIM_DIRECTORY_H

#include "../../sim/component.h"

extern const ComponentClass directory_class;

#endif
