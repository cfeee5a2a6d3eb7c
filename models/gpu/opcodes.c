/* opcodes.c: the SASS opcode tables (opcodes.h). Each generation's table is the opcodes common
 * to Volta onwards plus what that generation added; a mnemonic is looked up by linear search
 * once per distinct opcode of a trace (readers cache the answer), so tables stay plain arrays.
 */
#include "opcodes.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

typedef struct {
    const char *op;
    uint8_t unit;
} OpClass;

/* Volta (sm_70) and every later generation. */
static const OpClass ops_common[] = {
    /* integer ALU */
    { "IADD3", GPU_UNIT_INT }, { "IABS", GPU_UNIT_INT }, { "IDP", GPU_UNIT_INT },
    { "IMAD", GPU_UNIT_INT }, { "IMNMX", GPU_UNIT_INT }, { "IMUL", GPU_UNIT_INT },
    { "ISETP", GPU_UNIT_INT }, { "LEA", GPU_UNIT_INT }, { "LOP", GPU_UNIT_INT },
    { "LOP3", GPU_UNIT_INT }, { "LOP32I", GPU_UNIT_INT }, { "IADD32I", GPU_UNIT_INT },
    { "IMAD32I", GPU_UNIT_INT }, { "IMUL32I", GPU_UNIT_INT }, { "ISCADD", GPU_UNIT_INT },
    { "ISCADD32I", GPU_UNIT_INT }, { "POPC", GPU_UNIT_INT }, { "FLO", GPU_UNIT_INT },
    { "BREV", GPU_UNIT_INT }, { "BMSK", GPU_UNIT_INT }, { "SHF", GPU_UNIT_INT },
    { "SHL", GPU_UNIT_INT }, { "SHR", GPU_UNIT_INT }, { "SGXT", GPU_UNIT_INT },
    { "PRMT", GPU_UNIT_INT }, { "MOV", GPU_UNIT_INT }, { "MOV32I", GPU_UNIT_INT },
    { "SEL", GPU_UNIT_INT }, { "P2R", GPU_UNIT_INT }, { "R2P", GPU_UNIT_INT },
    { "PLOP3", GPU_UNIT_INT }, { "PSETP", GPU_UNIT_INT }, { "CSET", GPU_UNIT_INT },
    { "CSETP", GPU_UNIT_INT }, { "VABSDIFF", GPU_UNIT_INT }, { "VABSDIFF4", GPU_UNIT_INT },
    { "S2R", GPU_UNIT_INT }, { "CS2R", GPU_UNIT_INT }, { "B2R", GPU_UNIT_INT },
    { "R2B", GPU_UNIT_INT }, { "VOTE", GPU_UNIT_INT }, { "NOP", GPU_UNIT_INT },
    { "PMTRIG", GPU_UNIT_INT }, { "LEPC", GPU_UNIT_INT }, { "I2IP", GPU_UNIT_INT },
    { "I2I", GPU_UNIT_INT }, { "IDE", GPU_UNIT_INT }, { "BPT", GPU_UNIT_INT },
    /* FP32 */
    { "FADD", GPU_UNIT_FP32 }, { "FADD32I", GPU_UNIT_FP32 }, { "FCHK", GPU_UNIT_FP32 },
    { "FCMP", GPU_UNIT_FP32 }, { "FFMA", GPU_UNIT_FP32 }, { "FFMA32I", GPU_UNIT_FP32 },
    { "FMNMX", GPU_UNIT_FP32 }, { "FMUL", GPU_UNIT_FP32 }, { "FMUL32I", GPU_UNIT_FP32 },
    { "FSEL", GPU_UNIT_FP32 }, { "FSET", GPU_UNIT_FP32 }, { "FSETP", GPU_UNIT_FP32 },
    { "FSWZADD", GPU_UNIT_FP32 },
    /* FP16, packed */
    { "HADD2", GPU_UNIT_FP16 }, { "HADD2_32I", GPU_UNIT_FP16 }, { "HFMA2", GPU_UNIT_FP16 },
    { "HFMA2_32I", GPU_UNIT_FP16 }, { "HMUL2", GPU_UNIT_FP16 }, { "HMUL2_32I", GPU_UNIT_FP16 },
    { "HSET2", GPU_UNIT_FP16 }, { "HSETP2", GPU_UNIT_FP16 },
    /* FP64 */
    { "DADD", GPU_UNIT_FP64 }, { "DFMA", GPU_UNIT_FP64 }, { "DMUL", GPU_UNIT_FP64 },
    { "DSETP", GPU_UNIT_FP64 },
    /* SFU: MUFU and conversions (16 results/clk/SM, the SFU's rate) */
    { "MUFU", GPU_UNIT_SFU }, { "F2F", GPU_UNIT_SFU }, { "F2I", GPU_UNIT_SFU },
    { "I2F", GPU_UNIT_SFU }, { "FRND", GPU_UNIT_SFU },
    /* tensor cores */
    { "HMMA", GPU_UNIT_TENSOR },
    /* memory */
    { "LD", GPU_UNIT_LDST }, { "LDC", GPU_UNIT_LDST }, { "LDG", GPU_UNIT_LDST },
    { "LDL", GPU_UNIT_LDST }, { "LDS", GPU_UNIT_LDST }, { "ST", GPU_UNIT_LDST },
    { "STG", GPU_UNIT_LDST }, { "STL", GPU_UNIT_LDST }, { "STS", GPU_UNIT_LDST },
    { "ATOM", GPU_UNIT_LDST }, { "ATOMS", GPU_UNIT_LDST }, { "ATOMG", GPU_UNIT_LDST },
    { "RED", GPU_UNIT_LDST }, { "CCTL", GPU_UNIT_LDST }, { "CCTLL", GPU_UNIT_LDST },
    { "CCTLT", GPU_UNIT_LDST }, { "MATCH", GPU_UNIT_LDST }, { "SHFL", GPU_UNIT_LDST },
    { "QSPC", GPU_UNIT_LDST }, { "ERRBAR", GPU_UNIT_LDST }, { "SUATOM", GPU_UNIT_TEX },
    /* texture and surface */
    { "TEX", GPU_UNIT_TEX }, { "TLD", GPU_UNIT_TEX }, { "TLD4", GPU_UNIT_TEX },
    { "TMML", GPU_UNIT_TEX }, { "TXD", GPU_UNIT_TEX }, { "TXQ", GPU_UNIT_TEX },
    { "SULD", GPU_UNIT_TEX }, { "SUST", GPU_UNIT_TEX }, { "SURED", GPU_UNIT_TEX },
    /* control */
    { "BRA", GPU_UNIT_BRANCH }, { "BRX", GPU_UNIT_BRANCH }, { "JMP", GPU_UNIT_BRANCH },
    { "JMX", GPU_UNIT_BRANCH }, { "CALL", GPU_UNIT_BRANCH }, { "RET", GPU_UNIT_BRANCH },
    { "EXIT", GPU_UNIT_BRANCH }, { "BSSY", GPU_UNIT_BRANCH }, { "BSYNC", GPU_UNIT_BRANCH },
    { "BREAK", GPU_UNIT_BRANCH }, { "BMOV", GPU_UNIT_BRANCH }, { "KILL", GPU_UNIT_BRANCH },
    { "RPCMOV", GPU_UNIT_BRANCH }, { "WARPSYNC", GPU_UNIT_BRANCH }, { "YIELD", GPU_UNIT_BRANCH },
    { "NANOSLEEP", GPU_UNIT_BRANCH }, { "RTT", GPU_UNIT_BRANCH },
    /* barriers */
    { "BAR", GPU_UNIT_BARRIER }, { "MEMBAR", GPU_UNIT_BARRIER }, { "DEPBAR", GPU_UNIT_BARRIER },
    { "FENCE", GPU_UNIT_BARRIER },
};

/* Turing (sm_75) adds the uniform datapath and integer tensor cores; Ampere and Hopper keep them. */
static const OpClass ops_turing[] = {
    { "IMMA", GPU_UNIT_TENSOR }, { "BMMA", GPU_UNIT_TENSOR }, { "MOVM", GPU_UNIT_LDST },
    { "LDSM", GPU_UNIT_LDST },
    { "R2UR", GPU_UNIT_UNIFORM }, { "S2UR", GPU_UNIT_UNIFORM }, { "UBMSK", GPU_UNIT_UNIFORM },
    { "UBREV", GPU_UNIT_UNIFORM }, { "UCLEA", GPU_UNIT_UNIFORM }, { "UFLO", GPU_UNIT_UNIFORM },
    { "UIADD3", GPU_UNIT_UNIFORM }, { "UIMAD", GPU_UNIT_UNIFORM }, { "UISETP", GPU_UNIT_UNIFORM },
    { "ULDC", GPU_UNIT_UNIFORM }, { "ULEA", GPU_UNIT_UNIFORM }, { "ULOP", GPU_UNIT_UNIFORM },
    { "ULOP3", GPU_UNIT_UNIFORM }, { "ULOP32I", GPU_UNIT_UNIFORM }, { "UMOV", GPU_UNIT_UNIFORM },
    { "UP2UR", GPU_UNIT_UNIFORM }, { "UPLOP3", GPU_UNIT_UNIFORM }, { "UPOPC", GPU_UNIT_UNIFORM },
    { "UPRMT", GPU_UNIT_UNIFORM }, { "UPSETP", GPU_UNIT_UNIFORM }, { "UR2UP", GPU_UNIT_UNIFORM },
    { "USEL", GPU_UNIT_UNIFORM }, { "USGXT", GPU_UNIT_UNIFORM }, { "USHF", GPU_UNIT_UNIFORM },
    { "USHL", GPU_UNIT_UNIFORM }, { "USHR", GPU_UNIT_UNIFORM }, { "VOTEU", GPU_UNIT_UNIFORM },
};

/* Ampere (sm_80/86/87) and Ada (sm_89). */
static const OpClass ops_ampere[] = {
    { "DMMA", GPU_UNIT_TENSOR }, { "HMNMX2", GPU_UNIT_FP16 }, { "F2FP", GPU_UNIT_SFU },
    { "DMNMX", GPU_UNIT_FP64 }, { "LDGSTS", GPU_UNIT_LDST }, { "LDGDEPBAR", GPU_UNIT_LDST },
    { "REDUX", GPU_UNIT_INT }, { "UF2FP", GPU_UNIT_UNIFORM }, { "SYNCS", GPU_UNIT_BARRIER },
    { "ARRIVES", GPU_UNIT_BARRIER }, { "F2IP", GPU_UNIT_SFU }, { "I2FP", GPU_UNIT_SFU },
};

/* Hopper (sm_90): warpgroup MMA, TMA, clusters, distributed shared memory. */
static const OpClass ops_hopper[] = {
    { "HGMMA", GPU_UNIT_TENSOR }, { "IGMMA", GPU_UNIT_TENSOR }, { "QGMMA", GPU_UNIT_TENSOR },
    { "BGMMA", GPU_UNIT_TENSOR }, { "WARPGROUP", GPU_UNIT_BARRIER }, { "UBLKCP", GPU_UNIT_LDST },
    { "UTMALDG", GPU_UNIT_LDST }, { "UTMASTG", GPU_UNIT_LDST }, { "UTMAPF", GPU_UNIT_LDST },
    { "UTMACCTL", GPU_UNIT_LDST }, { "UTMAREDG", GPU_UNIT_LDST }, { "UBLKRED", GPU_UNIT_LDST },
    { "UBLKPF", GPU_UNIT_LDST }, { "STSM", GPU_UNIT_LDST }, { "FENCE", GPU_UNIT_BARRIER },
    { "ACQBULK", GPU_UNIT_BARRIER }, { "ELECT", GPU_UNIT_INT }, { "ENDCOLLECTIVE", GPU_UNIT_BRANCH },
    { "UCGABAR_ARV", GPU_UNIT_BARRIER }, { "UCGABAR_WAIT", GPU_UNIT_BARRIER },
    { "USETMAXREG", GPU_UNIT_UNIFORM }, { "VIMNMX", GPU_UNIT_INT }, { "VIADD", GPU_UNIT_INT },
    { "FMNMX3", GPU_UNIT_FP32 }, { "LDSM", GPU_UNIT_LDST },
};

typedef struct {
    const OpClass *ops;
    size_t n;
} OpTable;

#define T(a) { a, G_N_ELEMENTS(a) }
static const OpTable gen_volta[] = { T(ops_common), { NULL, 0 } };
static const OpTable gen_turing[] = { T(ops_common), T(ops_turing), { NULL, 0 } };
static const OpTable gen_ampere[] = { T(ops_common), T(ops_turing), T(ops_ampere), { NULL, 0 } };
static const OpTable gen_hopper[] = { T(ops_common), T(ops_turing), T(ops_ampere), T(ops_hopper),
                                      { NULL, 0 } };

static const char *const unit_names[GPU_UNIT_COUNT] = {
    [GPU_UNIT_INT] = "int", [GPU_UNIT_FP32] = "fp32", [GPU_UNIT_FP16] = "fp16",
    [GPU_UNIT_FP64] = "fp64", [GPU_UNIT_SFU] = "sfu", [GPU_UNIT_TENSOR] = "tensor",
    [GPU_UNIT_LDST] = "ldst", [GPU_UNIT_TEX] = "tex", [GPU_UNIT_BRANCH] = "branch",
    [GPU_UNIT_BARRIER] = "barrier", [GPU_UNIT_UNIFORM] = "uniform", [GPU_UNIT_UNKNOWN] = "unknown",
};

const char *gpu_unit_name(GpuUnitClass u)
{
    return (unsigned)u < GPU_UNIT_COUNT ? unit_names[u] : "unknown";
}

static const OpTable *gen_table(uint32_t v, const char **name)
{
    switch (v) {
    case 70: case 72:
        *name = "Volta";
        return gen_volta;
    case 75:
        *name = "Turing";
        return gen_turing;
    case 80: case 86: case 87:
        *name = "Ampere";
        return gen_ampere;
    case 89:
        *name = "Ada";
        return gen_ampere;
    case 90:
        *name = "Hopper";
        return gen_hopper;
    default:
        *name = NULL;
        return NULL;
    }
}

const char *gpu_generation(uint32_t v)
{
    const char *name;
    return gen_table(v, &name) ? name : NULL;
}

GpuUnitClass gpu_opcode_class(uint32_t v, const char *opcode)
{
    const char *name;
    const OpTable *t = gen_table(v, &name);
    if (!t)
        return GPU_UNIT_UNKNOWN;
    size_t len = strcspn(opcode, ".");
    for (; t->ops; t++)
        for (size_t i = 0; i < t->n; i++)
            if (strlen(t->ops[i].op) == len && memcmp(t->ops[i].op, opcode, len) == 0)
                return (GpuUnitClass)t->ops[i].unit;
    return GPU_UNIT_UNKNOWN;
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

uint32_t gpu_opcode_width(const char *opcode)
{
    const char *p = opcode;
    while (*p) {
        size_t n = strcspn(p, ".");
        const char *d = p;
        size_t dn = n;
        if (n > 1 && p[0] == 'U') {
            d = p + 1;
            dn = n - 1;
        }
        if (dn <= 4 && all_digits(d, dn)) {
            uint32_t bits = (uint32_t)strtoul(d, NULL, 10);
            if (bits >= 8)
                return bits / 8;
        }
        p += n;
        if (*p == '.')
            p++;
    }
    return 4;
}
