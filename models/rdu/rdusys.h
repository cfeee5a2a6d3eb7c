/* rdusys.h: `system.type: rdu` (rdusys.c) and `archsim rdu` (rducli.c). */
#ifndef ARCHSIM_RDU_RDUSYS_H
#define ARCHSIM_RDU_RDUSYS_H

#include "../../sim/registry.h"

extern const SystemClass rdu_system;
/* `archsim rdu map|run ...`; argv[0] is "rdu". */
int rdu_cli_main(int argc, char **argv);

#endif
