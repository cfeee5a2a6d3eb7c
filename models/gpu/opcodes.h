/* opcodes.h: SASS opcodes by the functional unit that executes them, one table per SASS
 * generation (Volta sm_70/72, Turing sm_75, Ampere and Ada sm_80/86/87/89, Hopper sm_90), as
 * data. A trace's `binary version` picks the table; an opcode is looked up by its base mnemonic
 * (before the first '.'). Classes follow NVIDIA's instruction set reference (CUDA Binary
 * Utilities, "Instruction Set Reference") and the unit each instruction issues to in the
 * throughput table of the CUDA C++ Programming Guide (conversions run at the SFU's rate).
 */
#ifndef ARCHSIM_GPU_OPCODES_H
#define ARCHSIM_GPU_OPCODES_H

#include <stdint.h>

typedef enum {
    GPU_UNIT_INT,       /* integer and logic ALU, moves, predicates */
    GPU_UNIT_FP32,
    GPU_UNIT_FP16,      /* packed half (HFMA2 ...) */
    GPU_UNIT_FP64,
    GPU_UNIT_SFU,       /* MUFU transcendental functions, conversions */
    GPU_UNIT_TENSOR,    /* HMMA, IMMA, DMMA, warpgroup GMMA */
    GPU_UNIT_LDST,      /* memory: global, shared, local, constant, atomics, shuffles */
    GPU_UNIT_TEX,       /* texture and surface */
    GPU_UNIT_BRANCH,    /* control flow, EXIT */
    GPU_UNIT_BARRIER,   /* BAR, memory barriers, dependency barriers */
    GPU_UNIT_UNIFORM,   /* the uniform datapath (Turing and later) */
    GPU_UNIT_UNKNOWN,   /* not in the generation's table: run as integer ALU, counted */
    GPU_UNIT_COUNT
} GpuUnitClass;

/* "int", "fp32", ... "unknown" */
const char *gpu_unit_name(GpuUnitClass u);

/* The generation of a trace's binary version (70..90), or NULL when archsim has no table. */
const char *gpu_generation(uint32_t binary_version);

/* The class of opcode (full text, e.g. "IMAD.MOV.U32") in binary_version's table;
 * GPU_UNIT_UNKNOWN when absent (or the version has no table). */
GpuUnitClass gpu_opcode_class(uint32_t binary_version, const char *opcode);

/* Bytes per thread of a memory opcode as Accel-Sim derives it: the first modifier that is a
 * number of bits (.64 -> 8, .128 -> 16) or U followed by one (.U8 -> 1, .U16 -> 2), else 4. */
uint32_t gpu_opcode_width(const char *opcode);

#endif
