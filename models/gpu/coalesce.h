/* coalesce.h: what one warp memory instruction asks of the memory side: the coalescer that
 * turns the active lanes' addresses into 32-byte sectors of 128-byte lines (the L1/L2 access
 * unit since Volta: "sectored" caches; GPGPU-Sim's memory_coalescing_arch for arch >= 40,
 * Khairy et al. ISPASS 2019), and the shared-memory bank model: 32 banks of 4 bytes, one word per
 * bank per cycle, lanes reading the same word share it (a broadcast). Pure functions of the
 * lanes' addresses, for the SM's load/store path and for tests. docs/gpu.md, "Coalescing and
 * bank conflicts".
 */
#ifndef ARCHSIM_GPU_COALESCE_H
#define ARCHSIM_GPU_COALESCE_H

#include <stdbool.h>
#include <stdint.h>

#define GPU_LINE 128u
#define GPU_SECTOR 32u
#define GPU_SMEM_BANKS 32u
#define GPU_SMEM_BANK_BYTES 4u

/* One 128-byte line a warp instruction touches. */
typedef struct {
    uint64_t line;          /* address of the line (a multiple of 128) */
    uint8_t sectors;        /* bit s: sector s (bytes 32 s .. 32 s + 31) is touched */
    uint32_t lanes;         /* the lanes whose bytes fall in the line */
} GpuLineAccess;

/* Coalesces the accesses of the lanes set in mask: lane i (in lane order, the k-th active lane
 * at addr[k], as sasstrace.h stores them) reads or writes width bytes (1..16) at its address.
 * Writes at most 64 line accesses into out (a lane's bytes may straddle two lines), in the order
 * their lines are first touched by ascending lane; returns how many. A mask of 0 makes none. */
uint32_t gpu_coalesce(const uint64_t *addr, uint32_t mask, uint32_t width, GpuLineAccess *out);

/* Sectors in the accesses (popcounts of their sector masks). */
uint32_t gpu_sectors(const GpuLineAccess *a, uint32_t n);

/* Shared memory: the wavefronts (cycles of the banks) the instruction needs, the largest number
 * of distinct 4-byte words any one bank must deliver, at least 1 when a lane is active; and the
 * ideal, the distinct words over 32 rounded up. Their difference is the bank conflicts, as
 * Nsight Compute counts them (l1tex__data_bank_conflicts_pipe_lsu_mem_shared). 0 and 0 for a
 * mask of 0. */
typedef struct {
    uint32_t wavefronts, ideal;
} GpuSmemCost;
GpuSmemCost gpu_smem_cost(const uint64_t *addr, uint32_t mask, uint32_t width);

/* L2 slice of a 128-byte line (block = address / 128) among `slices`. GPU_HASH_LINEAR: block %
 * slices, consecutive lines on consecutive slices (GPGPU-Sim's partition indexing 0); GPU_HASH_XOR:
 * the line's slice-local index h = block / slices is mixed into the choice, (block + h ^ (h >> 3)
 * ^ (h >> 7)) % slices, so that power-of-two strides spread over every slice instead of camping
 * on one (the role of GPGPU-Sim's bitwise-permutation and IPOLY indexing). Either way, for a
 * fixed h the slices of the `slices` lines are all different, so h indexes the line inside its
 * slice without collisions (gpu_l2_local). */
enum { GPU_HASH_LINEAR, GPU_HASH_XOR };
static inline uint32_t gpu_l2_slice(uint64_t block, uint32_t slices, int hash)
{
    uint64_t h = block / slices, r = block % slices;
    if (hash == GPU_HASH_XOR)
        r += h ^ (h >> 3) ^ (h >> 7);
    return (uint32_t)(r % slices);
}

#endif
