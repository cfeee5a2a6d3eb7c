/* occupancy.h: how many thread blocks of a kernel fit on one SM, by NVIDIA's rules as the CUDA
 * occupancy calculator applies them (cuda_occupancy.h of CUDA 12.2, cudaOccMaxActiveBlocksPer-
 * Multiprocessor; device limits from the CUDA C++ Programming Guide, "Compute Capabilities",
 * and NVIDIA/cccl arch_traits.h), for compute capabilities 7.0, 7.5, 8.0, 8.6, 8.9 and 9.0.
 * Also GPGPU-Sim's looser max_cta (shader.cc), which Accel-Sim uses, so that a user can see why
 * Accel-Sim admits more blocks. docs/gpu.md, "Occupancy", works the arithmetic of every rule.
 */
#ifndef ARCHSIM_GPU_OCCUPANCY_H
#define ARCHSIM_GPU_OCCUPANCY_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

/* One compute capability's limits (per SM unless said). */
typedef struct {
    uint32_t cc;                    /* 70, 75, 80, 86, 89, 90 */
    const char *name;               /* "Volta (V100)" */
    uint32_t max_threads_block;     /* 1024 */
    uint32_t max_warps;             /* resident warps per SM */
    uint32_t max_blocks;            /* resident blocks per SM */
    uint32_t regs;                  /* 32-bit registers per SM (and per block) */
    uint32_t reg_unit;              /* registers allocated per warp in units of this */
    uint32_t max_regs_thread;       /* 255 */
    uint32_t sub_partitions;        /* register file split in this many (4) */
    uint32_t smem_unit;             /* shared memory allocation granularity, bytes */
    uint32_t smem_reserve;          /* driver-reserved shared memory per block (cc >= 8.0: 1 KiB) */
    uint32_t smem_block;            /* per block without opt-in (48 KiB) */
    uint32_t smem_block_optin;      /* per block with opt-in */
    const uint16_t *carveout_kib;   /* the SM's shared-memory sizes (carve-out steps), ascending */
    uint32_t ncarveouts;
    /* GPGPU-Sim's tested config for this cc (0: none): threads per SM, shmem_size, shader_cta */
    uint32_t gs_threads, gs_smem, gs_cta;
} GpuCcLimits;

/* The limits of cc (70 for "7.0"), or NULL. */
const GpuCcLimits *gpu_cc_limits(uint32_t cc);
/* "7.0, 7.5, 8.0, 8.6, 8.9, 9.0" (static). */
const char *gpu_cc_list(void);

#define GPU_OCC_UNLIMITED UINT32_MAX

/* Which limits bind (bit set). */
enum {
    GPU_LIMIT_WARPS = 1, GPU_LIMIT_REGISTERS = 2, GPU_LIMIT_SHARED = 4, GPU_LIMIT_BLOCKS = 8,
};

typedef struct {
    uint32_t threads;               /* per block, 1..max_threads_block */
    uint32_t regs;                  /* per thread, 0..max_regs_thread */
    uint64_t smem;                  /* static + dynamic shared memory per block, bytes */
    int64_t carveout;               /* preferred shared memory per SM in bytes; -1: the maximum */
} GpuOccInput;

typedef struct {
    uint32_t warps_per_block;
    uint32_t blocks_warps, blocks_regs, blocks_smem, blocks_slots;   /* GPU_OCC_UNLIMITED: unused */
    uint32_t active_blocks, active_warps, max_warps;
    double occupancy_percent;
    uint32_t limiters;              /* GPU_LIMIT_* */
    uint32_t regs_per_warp;         /* allocated, after the unit */
    uint64_t smem_per_block;        /* allocated: reserve and unit included */
    uint64_t smem_per_sm;           /* the carve-out the SM runs with */
    uint64_t smem_block_limit;      /* what one block may hold (opt-in above 48 KiB) */
    bool regs_over_block;           /* a block needs more registers than the SM has */
    bool smem_over_block;           /* a block needs more shared memory than one block may have */
} GpuOccResult;

/* NVIDIA's rules. in must be valid for cc (threads 1..max_threads_block, regs <= 255). */
void gpu_occupancy(const GpuCcLimits *cc, const GpuOccInput *in, GpuOccResult *out);

/* GPGPU-Sim's max_cta for the same block with cc's tested config (0 when it has none or it
 * would abort); *why gets the limiting term ("threads", "shmem", "regs", "cta_limit"). */
uint32_t gpu_gpgpusim_max_cta(const GpuCcLimits *cc, const GpuOccInput *in, const char **why);

/* "warps+registers" (static text for each combination). */
const char *gpu_limiter_name(uint32_t limiters);

#endif
