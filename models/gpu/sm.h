/* sm.h: the GPU's streaming multiprocessor (sm.c), block scheduler (gpuwork.c) and L2 slice
 * (l2.c) classes. */
#ifndef ARCHSIM_GPU_SM_H
#define ARCHSIM_GPU_SM_H

#include "../../sim/component.h"
#include "../../sim/registry.h"

extern const ComponentClass gpu_sm_class;
extern const ComponentClass gpu_workload_class;
extern const ComponentClass gpu_l2_class;
extern const SystemClass gpu_system;

/* The SM's compute capability x 10 (for the block scheduler's occupancy). */
uint32_t sm_cc(const Component *c);
/* Stall reason names, in the order of the SM's stall_ stats. */
const char *sm_stall_name(unsigned i);
unsigned sm_stall_count(void);
/* An L2 slice's line-to-slice hash ("linear", "xor"): the SMs must route by the same. */
const char *gpu_l2_hash_name(const Component *c);
/* Warps the SM holds at most (its compute capability's). */
uint32_t gpu_sm_max_warps(const Component *c);

#endif
