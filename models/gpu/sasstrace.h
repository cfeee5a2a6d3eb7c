/* sasstrace.h: Accel-Sim's SASS traces (the NVBit tracer's output after post-processing):
 * `kernelslist.g` and `kernel-N.traceg`, tracer versions below 3 (each line led by its block
 * and warp), 3, 4 and 5 (an immediate ends each line), with or without `enable lineinfo`,
 * with cluster lines (Hopper), plain, gzip or xz (traces/zsource.h), read one thread block at a
 * time so that memory stays constant in the trace's length. The grammar and its quirks are
 * docs/gpu.md's "Trace format" (from Accel-Sim's tracer and trace_parser.cc, checked on real
 * files). Every error is `file:line:col: problem`, exit 65 (ARCHSIM_TRACE_ERROR).
 */
#ifndef ARCHSIM_GPU_SASSTRACE_H
#define ARCHSIM_GPU_SASSTRACE_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "opcodes.h"

/* Bounds on what one trace may ask for (each refused with its own message). */
#define SASS_MAX_BLOCK_INSTS ((uint64_t)1 << 26)   /* warp instructions held for one block */
#define SASS_MAX_LINE 65536                        /* bytes in one line */
#define SASS_MAX_OPCODES 65535                     /* distinct opcode texts in one kernel */
#define SASS_MAX_DST 4
#define SASS_MAX_SRC 8
#define SASS_LOCAL_MEM_SIZE_MAX (1u << 14)         /* GPGPU-Sim's per-thread local window */

typedef struct {
    char *path;
    char *name;                 /* mangled */
    uint32_t id;
    uint32_t grid[3], block[3];
    uint64_t shmem;             /* static + dynamic, bytes */
    uint32_t nregs;
    uint32_t binary_version;
    uint32_t stream;
    uint64_t shmem_base, local_base;
    char *nvbit_version;        /* NULL when absent */
    uint32_t tracer_version;    /* 0 when absent (read as the oldest format) */
    bool lineinfo;
    /* where the header gave the block's threads, registers and shared memory: line << 16 |
     * column of the value, 0 when absent (the occupancy error is placed there) */
    uint64_t at_block, at_regs, at_shmem;
    uint64_t nblocks;           /* grid x * y * z */
    uint32_t warps_per_block;   /* ceil(threads / 32) */
} SassKernel;

/* A register operand: kind << 8 | number. RZ is R255, URZ UR63, PT P7, UPT UP7. */
enum { SASS_REG_R = 0, SASS_REG_UR = 1, SASS_REG_P = 2, SASS_REG_UP = 3 };
#define SASS_REG(kind, n) ((uint16_t)((kind) << 8 | (n)))

typedef enum {
    SASS_SPACE_NONE, SASS_SPACE_GLOBAL, SASS_SPACE_SHARED, SASS_SPACE_LOCAL, SASS_SPACE_CONST,
    SASS_SPACE_GENERIC,         /* LD, ST, ATOM: sass_generic_space() by address */
} SassSpace;

typedef struct {
    uint32_t pc;                /* kernel-relative */
    uint32_t mask;              /* active and predicated-on lanes; may be 0 */
    uint32_t src_line;          /* the source line (enable lineinfo = 1), else 0 */
    uint16_t op;                /* opcode text: sass_opcode(reader, op) */
    uint8_t unit;               /* GpuUnitClass */
    uint8_t ndst, nsrc;
    uint8_t width;              /* bytes per thread from the opcode; 0: not a memory access */
    uint8_t space;              /* SassSpace */
    uint8_t addr_mode;          /* 0 list, 1 base+stride, 2 base+deltas (as written) */
    bool has_imm;
    uint16_t dst[SASS_MAX_DST], src[SASS_MAX_SRC];
    uint32_t addr;              /* first of popcount(mask) addresses in the block's array, in
                                   lane order (none when mask is 0 or width is 0) */
    int64_t imm;                /* tracer v5 */
} SassInst;

typedef struct {
    uint32_t warp;              /* warp within its block */
    uint32_t first, n;          /* its instructions in the block's array */
    const SassInst *insts;      /* or its own array (the PTX runner's), first unused */
    const uint64_t *addrs;      /* ... and its addresses (SassInst.addr indexes them) */
} SassWarp;

typedef struct {
    uint32_t x, y, z;
    bool cluster;
    uint32_t cluster_id[3], cluster_cta[3], cluster_rank;
    uint64_t line;              /* of its #BEGIN_TB */
    SassWarp *warps;
    uint32_t nwarps, warps_cap;
    SassInst *insts;
    uint64_t ninsts, insts_cap;
    uint64_t *addrs;
    uint64_t naddrs, addrs_cap;
    GPtrArray *store;           /* the PTX runner's per-warp arrays (GArray *: instructions,
                                   addresses, by turns), kept with the block for reuse */
} SassBlock;

/* Warp i's instructions and the addresses its SassInst.addr index. */
static inline const SassInst *sass_warp_insts(const SassBlock *b, uint32_t i)
{
    return b->warps[i].insts ? b->warps[i].insts : b->insts + b->warps[i].first;
}
static inline const uint64_t *sass_warp_addrs(const SassBlock *b, uint32_t i)
{
    return b->warps[i].insts ? b->warps[i].addrs : b->addrs;
}

typedef struct SassReader SassReader;

/* Opens a .traceg (plain, .gz or .xz by content) and reads its header. */
SassReader *sass_open(const char *path, GError **error);
const SassKernel *sass_kernel(const SassReader *r);
/* Reads the next thread block into b (its arrays reused): 1, or 0 at the end of the file, or
 * -1 with error set. */
int sass_next_block(SassReader *r, SassBlock *b, GError **error);
const char *sass_opcode(const SassReader *r, uint16_t op);
/* Where in the kernel file opcode op was first read: line << 16 | column (for messages). */
uint64_t sass_opcode_line(const SassReader *r, uint16_t op);
uint32_t sass_nopcodes(const SassReader *r);
/* Bytes of the file consumed, and its size (compressed), for progress. */
double sass_progress(const SassReader *r);
void sass_close(SassReader *r);
void sass_block_clear(SassBlock *b);
/* Instruction lines are read in one pass, and only a line that pass refuses is split into
 * fields and read again to name its error (the default); false reads every line the second
 * way, for tests that compare the two. */
void sass_set_one_pass(bool on);
/* Lines the one pass refused so far (in this process): read field by field, for an error. */
uint64_t sass_one_pass_refused(void);

/* The space of a generic access at addr, by Accel-Sim's rule (trace_driven.cc): shared when
 * either base address is 0 or addr is in [shmem base, local base), local within
 * SASS_LOCAL_MEM_SIZE_MAX above the local base, else global. */
SassSpace sass_generic_space(const SassKernel *k, uint64_t addr);

/* kernelslist.g */
typedef enum { SASS_LIST_KERNEL, SASS_LIST_MEMCPY } SassListKind;
typedef struct {
    SassListKind kind;
    char *path;                 /* kernel: the trace file, resolved against the list's folder */
    uint64_t addr, bytes;       /* MemcpyHtoD */
    uint64_t line;
} SassListEntry;
typedef struct {
    char *path;                 /* the list file */
    SassListEntry *e;
    uint32_t n;
    uint32_t kernels;
} SassList;

/* Reads PATH, or PATH/kernelslist.g when PATH is a folder. A kernel file that is absent is
 * looked for with .xz and .gz added (traces compressed after they were listed); one that is
 * still absent is an error at its line (exit 66). */
SassList *sass_list_read(const char *path, GError **error);
void sass_list_free(SassList *l);

#endif
