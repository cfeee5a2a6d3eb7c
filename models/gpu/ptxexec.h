/* ptxexec.h: PTX kernels run functionally with real values (ptx.h parses them), one thread
 * block at a time, into the warp instructions the SM model runs (SassBlock: per warp, each
 * executed instruction with its active mask, registers and lane addresses), and a launch's
 * device memory: its buffers, set up from a launch YAML (docs/gpu-ptx.md) and written back.
 *
 * SIMT: a reconvergence stack per warp (immediate post-dominator, as GPGPU-Sim's PTX mode and
 * Fung et al., MICRO 2007); a divergent branch runs its fall-through lanes first. Blocks run in
 * the order the block scheduler asks for them; in a block, warps run in turn until each
 * reaches a barrier or ends (bar.sync releases when every warp that has not ended is there);
 * in a warp, lanes in increasing order. Atomics take effect in that order.
 */
#ifndef ARCHSIM_GPU_PTXEXEC_H
#define ARCHSIM_GPU_PTXEXEC_H

#include "ptx.h"
#include "sasstrace.h"

/* Generic-address windows: a shared or local address a is generic WINDOW + a. */
#define PTX_SHARED_WINDOW 0x0000700000000000ull
#define PTX_LOCAL_WINDOW 0x0000710000000000ull
#define PTX_GLOBAL_BASE 0x0000000200000000ull      /* the first buffer's device address */
#define PTX_MAX_BUFFER ((uint64_t)4 << 30)          /* bytes of one buffer */
#define PTX_MAX_DEVICE ((uint64_t)16 << 30)         /* bytes of all buffers */
#define PTX_MAX_WARP_INSTS ((uint64_t)1 << 22)      /* executed by one block (64 B each held,
                                                       plus up to 256 B of lane addresses) */

typedef enum {
    PTX_D_F32, PTX_D_F64, PTX_D_F16, PTX_D_S32, PTX_D_U32, PTX_D_S64, PTX_D_U64, PTX_D_U8,
    PTX_D_BF16, PTX_D_COUNT
} PtxDtype;

typedef struct {
    char *name;
    PtxDtype dtype;
    uint64_t count, bytes;
    uint64_t addr;              /* device address */
    uint8_t *data;
} PtxBuffer;

typedef struct PtxRun PtxRun;

/* A launch: the entry, its grid and block, dynamic shared memory, its parameters (raw bytes,
 * entry->param_bytes of them), the buffers (owned by the run). order_seed != 0 runs the blocks
 * in a permutation of their ids drawn from it (else x fastest, then y, then z). */
typedef struct {
    const PtxModule *m;
    const PtxEntry *e;
    uint32_t grid[3], block[3];
    uint64_t dyn_shared;
    uint8_t *params;
    GPtrArray *buffers;         /* PtxBuffer *, owned */
    uint64_t order_seed;
    uint32_t registers;         /* per thread, for the SM's occupancy (0: 32) */
    uint64_t max_warp_insts;    /* a block running more fails (0: PTX_MAX_WARP_INSTS) */
    uint32_t id;                /* the kernel's launch number (0: 1) */
} PtxLaunch;

PtxRun *ptx_run_new(PtxLaunch *l, GError **error);
/* The header the SM model reads (name, dims, shared bytes, registers per thread). */
const SassKernel *ptx_run_kernel(const PtxRun *r);
/* Runs the next block into b: 1, 0 when every block has run, -1 with error set. */
int ptx_run_next_block(PtxRun *r, SassBlock *b, GError **error);
const char *ptx_run_opcode(const PtxRun *r, uint16_t op);
uint32_t ptx_run_nopcodes(const PtxRun *r);
double ptx_run_progress(const PtxRun *r);
void ptx_run_free(PtxRun *r);

/* The unit class of a PTX instruction in the SM model (the table in docs/gpu-ptx.md). */
uint8_t ptx_unit_class(const PtxInst *in);

/* Gives each buffer its device address, in order from PTX_GLOBAL_BASE (256-byte aligned, 256
 * bytes apart); returns the first address after them. */
uint64_t ptx_place_buffers(GPtrArray *buffers);
/* A zeroed buffer, or NULL when its memory cannot be had. */
PtxBuffer *ptx_buffer_new(const char *name, PtxDtype dtype, uint64_t count);
void ptx_buffer_free(PtxBuffer *b);
const char *ptx_dtype_name(PtxDtype d);
bool ptx_dtype_parse(const char *s, PtxDtype *d);
uint32_t ptx_dtype_bytes(PtxDtype d);
/* d as an IEEE half, rounded once to nearest even (subnormals kept; a double rounded to float
 * first, then to half, could round twice: cvt.rn.f16.f64, fma.rn.f16, f16 initial data). */
uint16_t ptx_half_of_double(double d);
/* d rounded once to the nearest even bfloat16 (subnormals kept, NaN quiet) */
uint16_t ptx_bf16_of_double(double d);

#endif
