/* gpu.h: the GPU model family's entry points: `archsim gpu` (gpucli.c). The SASS trace reader
 * is sasstrace.h, occupancy occupancy.h, the opcode tables opcodes.h. */
#ifndef ARCHSIM_GPU_H
#define ARCHSIM_GPU_H

int gpu_cli_main(int argc, char **argv);

#endif
