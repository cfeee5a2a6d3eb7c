/* ptx.h: PTX as nvcc 12/13 emits it (`nvcc -ptx`, sm_75..sm_90), parsed into kernels that
 * ptxexec.c runs with real values. The subset, its grammar and how to add an instruction are
 * docs/gpu-ptx.md; the instruction set is NVIDIA's "Parallel Thread Execution ISA" (version 8.x
 * and 9.0, the chapters on state spaces, instructions and special registers).
 *
 * Every error is `file.ptx:line:col: problem`, exit 65 (ARCHSIM_TRACE_ERROR, EXIT_DATAERR); an
 * instruction outside the subset is named, never skipped.
 */
#ifndef ARCHSIM_GPU_PTX_H
#define ARCHSIM_GPU_PTX_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

/* Bounds on what one file may ask for (each refused with its own message). */
#define PTX_MAX_BYTES ((uint64_t)64 << 20)     /* a .ptx file */
#define PTX_MAX_INSTS 1000000                  /* instructions in one kernel */
#define PTX_MAX_REGS 1000000                   /* registers declared in one kernel */
#define PTX_MAX_OPERANDS 8
#define PTX_MAX_ARRAY ((uint64_t)1 << 30)      /* bytes of one .shared/.local/.global array */
#define PTX_MAX_VARIABLES ((uint64_t)4 << 30)  /* bytes of all .global/.const variables */
#define PTX_MAX_TEXTS 65535                    /* distinct opcode texts in one file */

/* Operand and instruction types. */
typedef enum {
    PTX_T_NONE, PTX_T_PRED,
    PTX_T_B8, PTX_T_B16, PTX_T_B32, PTX_T_B64,
    PTX_T_U8, PTX_T_U16, PTX_T_U32, PTX_T_U64,
    PTX_T_S8, PTX_T_S16, PTX_T_S32, PTX_T_S64,
    PTX_T_F16, PTX_T_F32, PTX_T_F64,
    PTX_T_F16X2,        /* two halves in 32 bits: the low half is element 0 */
    PTX_T_BF16, PTX_T_BF16X2,   /* bfloat16: the high 16 bits of an f32; two in 32 bits */
    PTX_T_COUNT
} PtxType;

typedef enum {
    PTX_OP_LD, PTX_OP_ST, PTX_OP_MOV, PTX_OP_CVTA, PTX_OP_CVT,
    PTX_OP_ADD, PTX_OP_SUB, PTX_OP_MUL, PTX_OP_MAD, PTX_OP_FMA, PTX_OP_DIV, PTX_OP_REM,
    PTX_OP_ABS, PTX_OP_NEG, PTX_OP_MIN, PTX_OP_MAX,
    PTX_OP_AND, PTX_OP_OR, PTX_OP_XOR, PTX_OP_NOT, PTX_OP_SHL, PTX_OP_SHR,
    PTX_OP_POPC, PTX_OP_CLZ, PTX_OP_BREV, PTX_OP_BFE,
    PTX_OP_SETP, PTX_OP_SELP,
    PTX_OP_EX2, PTX_OP_LG2, PTX_OP_RCP, PTX_OP_SQRT, PTX_OP_RSQRT, PTX_OP_SIN, PTX_OP_COS,
    PTX_OP_BRA, PTX_OP_RET, PTX_OP_EXIT, PTX_OP_BAR, PTX_OP_BAR_WARP, PTX_OP_MEMBAR,
    PTX_OP_ATOM, PTX_OP_RED, PTX_OP_SHFL, PTX_OP_VOTE, PTX_OP_ACTIVEMASK,
    PTX_OP_BFI, PTX_OP_PRMT, PTX_OP_LOP3, PTX_OP_SHF, PTX_OP_COPYSIGN, PTX_OP_SET,
    PTX_OP_BFIND, PTX_OP_REDUX, PTX_OP_SAD, PTX_OP_DP4A,
    PTX_OP_WMMA_LD, PTX_OP_WMMA_ST, PTX_OP_WMMA_MMA,   /* wmma.load, wmma.store, wmma.mma */
    PTX_OP_CP_ASYNC, PTX_OP_CP_COMMIT, PTX_OP_CP_WAIT, /* cp.async, .commit_group, .wait_group */
    PTX_OP_TRAP,
    PTX_OP_MMA, PTX_OP_LDMATRIX,                        /* mma.sync, ldmatrix (tensor cores) */
    PTX_OP_HOSTCALL,    /* a call of CUDA's device runtime: vprintf (printf), __assertfail */
    PTX_OP_MATCH, PTX_OP_NANOSLEEP,                     /* match.any/all.sync, nanosleep */
    PTX_OP_DP2A,                                        /* dp2a.lo/.hi */
    PTX_OP_VABSDIFF,    /* vabsdiff2/4: sub = the lanes (2 or 4); type, type2, wtype: d, a, b */
    PTX_OP_COUNT
} PtxOp;

/* State spaces. */
typedef enum {
    PTX_SPACE_GENERIC, PTX_SPACE_GLOBAL, PTX_SPACE_SHARED, PTX_SPACE_LOCAL, PTX_SPACE_PARAM,
    PTX_SPACE_CONST,
} PtxSpace;

/* Modifiers (a bit each; which apply depends on the instruction). */
enum {
    PTX_M_LO = 1u << 0, PTX_M_HI = 1u << 1, PTX_M_WIDE = 1u << 2,
    PTX_M_TO = 1u << 3,                     /* cvta.to */
    PTX_M_SAT = 1u << 4, PTX_M_FTZ = 1u << 5, PTX_M_APPROX = 1u << 6,
    PTX_M_RNI = 1u << 7, PTX_M_RZI = 1u << 8, PTX_M_RMI = 1u << 9, PTX_M_RPI = 1u << 10,
    PTX_M_UNI = 1u << 11,                   /* bra.uni */
    PTX_M_CC = 1u << 12,
    PTX_M_RZ = 1u << 13, PTX_M_RM = 1u << 14, PTX_M_RP = 1u << 15,    /* float rounding */
    PTX_M_CIN = 1u << 16,                   /* addc, subc, madc: the carry flag comes in */
    PTX_M_SHIFTAMT = 1u << 17,              /* bfind.shiftamt */
    PTX_M_RELU = 1u << 18,                  /* fma.rn.relu on 16-bit floats: max(0, d) */
    PTX_M_NAN = 1u << 19,                   /* min.NaN, max.NaN: a NaN in, the canonical NaN out */
    PTX_M_CG = 1u << 20,                    /* cp.async.cg (else .ca) */
    PTX_M_TRANS = 1u << 21,                 /* ldmatrix.trans */
    PTX_M_VACC = 1u << 22,                  /* vabsdiff.add: the lanes summed into c */
};

/* setp comparisons, then the boolean combiner (setp.CMP.and ...) */
typedef enum {
    PTX_CMP_EQ, PTX_CMP_NE, PTX_CMP_LT, PTX_CMP_LE, PTX_CMP_GT, PTX_CMP_GE,
    PTX_CMP_LO, PTX_CMP_LS, PTX_CMP_HI, PTX_CMP_HS,
    PTX_CMP_EQU, PTX_CMP_NEU, PTX_CMP_LTU, PTX_CMP_LEU, PTX_CMP_GTU, PTX_CMP_GEU,
    PTX_CMP_NUM, PTX_CMP_NAN,
} PtxCmp;
typedef enum { PTX_BOOL_NONE, PTX_BOOL_AND, PTX_BOOL_OR, PTX_BOOL_XOR } PtxBool;

typedef enum {
    PTX_ATOM_ADD, PTX_ATOM_MIN, PTX_ATOM_MAX, PTX_ATOM_INC, PTX_ATOM_DEC, PTX_ATOM_CAS,
    PTX_ATOM_EXCH, PTX_ATOM_AND, PTX_ATOM_OR, PTX_ATOM_XOR,
} PtxAtomOp;

typedef enum { PTX_SHFL_UP, PTX_SHFL_DOWN, PTX_SHFL_BFLY, PTX_SHFL_IDX } PtxShfl;
/* PTX_OP_HOSTCALL's function (its operands: the call's argument symbols, then its result's) */
typedef enum { PTX_HOST_VPRINTF, PTX_HOST_ASSERTFAIL } PtxHostCall;
typedef enum { PTX_VOTE_ALL, PTX_VOTE_ANY, PTX_VOTE_UNI, PTX_VOTE_BALLOT } PtxVote;
typedef enum { PTX_MATCH_ANY, PTX_MATCH_ALL } PtxMatch;

/* Special registers. */
typedef enum {
    PTX_SR_TID_X, PTX_SR_TID_Y, PTX_SR_TID_Z, PTX_SR_NTID_X, PTX_SR_NTID_Y, PTX_SR_NTID_Z,
    PTX_SR_CTAID_X, PTX_SR_CTAID_Y, PTX_SR_CTAID_Z, PTX_SR_NCTAID_X, PTX_SR_NCTAID_Y,
    PTX_SR_NCTAID_Z, PTX_SR_LANEID, PTX_SR_WARPID, PTX_SR_NWARPID, PTX_SR_SMID,
    PTX_SR_LANEMASK_EQ, PTX_SR_LANEMASK_LT, PTX_SR_LANEMASK_LE, PTX_SR_LANEMASK_GT,
    PTX_SR_LANEMASK_GE, PTX_SR_CLOCK, PTX_SR_CLOCK64,
    PTX_SR_GLOBALTIMER, PTX_SR_GLOBALTIMER_LO, PTX_SR_GLOBALTIMER_HI, PTX_SR_COUNT
} PtxSreg;

typedef enum {
    PTX_A_NONE,
    PTX_A_REG,          /* reg */
    PTX_A_IMM,          /* imm: integer bits, or the float's bits (0f..., 0d...) */
    PTX_A_SREG,         /* reg = PtxSreg */
    PTX_A_ADDR,         /* [reg + imm] (reg < 0: [imm]), or [symbol + imm] */
    PTX_A_SYM,          /* a symbol's address: reg = symbol index */
    PTX_A_VEC,          /* {vec[0..n)} */
    PTX_A_LABEL,        /* imm = instruction index */
} PtxArgKind;

enum { PTX_LIT_INT, PTX_LIT_F, PTX_LIT_D };

typedef struct {
    uint8_t kind;       /* PtxArgKind */
    bool neg;           /* !%p (a predicate operand) */
    bool pair;          /* the second of d|p (shfl, setp) */
    bool zero;          /* VEC: has a 0 element (a packed source's zero, as '_') */
    uint8_t n;          /* vector length: at most 4, or PTX_MAX_VEC for a wmma fragment */
    uint8_t lit;        /* IMM: how it was written: PTX_LIT_INT, PTX_LIT_F (0f...), PTX_LIT_D */
    union {             /* a vector's registers in the place of the other kinds' fields: an
                           operand stays 40 bytes with the wmma fragments' eight */
        struct {
            int32_t reg;        /* register (or symbol) index; -1: none */
            int32_t sym;        /* ADDR: symbol index or -1 */
            int64_t imm;
        };
        int32_t vec[8];         /* VEC: its registers (-1: '_', a sink) */
    };
} PtxArg;
#define PTX_MAX_VEC 8
_Static_assert(sizeof(PtxArg) == 40, "an operand in 40 bytes");

/* wmma (PTX ISA 9.7.14.4, warp-level matrix multiply-accumulate): the shapes and the matrices
 * of a load or store */
typedef enum { PTX_WMMA_M16N16K16, PTX_WMMA_M32N8K16, PTX_WMMA_M8N32K16 } PtxWmmaShape;
typedef enum { PTX_WMMA_A, PTX_WMMA_B, PTX_WMMA_C, PTX_WMMA_D } PtxWmmaMatrix;

/* prmt's byte selection: the generic form (four 4-bit selectors in c) or a mode on c[1:0] */
typedef enum {
    PTX_PRMT_GENERIC, PTX_PRMT_F4E, PTX_PRMT_B4E, PTX_PRMT_RC8, PTX_PRMT_ECL, PTX_PRMT_ECR,
    PTX_PRMT_RC16,
} PtxPrmt;
/* shf (funnel shift): the direction and how the amount is limited */
enum { PTX_SHF_R = 1, PTX_SHF_CLAMP = 2 };

typedef struct {
    uint8_t op;         /* PtxOp */
    uint8_t type, type2;        /* type; cvt's source type; atom/ld's second is unused */
    uint8_t space;      /* PtxSpace (ld, st, atom, red, cvta) */
    uint8_t vec;        /* ld/st .v2/.v4: 2 or 4, else 1 */
    uint8_t cmp, boolop;        /* setp */
    uint8_t sub;        /* atom/red op, shfl mode, vote mode, prmt mode (PtxPrmt), shf (PTX_SHF_*),
                           wmma.load/store's matrix (PtxWmmaMatrix) */
    uint8_t wshape;     /* wmma: PtxWmmaShape; mma: PtxMmaShape */
    uint8_t wlayout;    /* wmma.load/store: 1 column-major; wmma.mma: bit 0 A, bit 1 B column-major */
    uint8_t wtype;      /* wmma.mma, mma: the type of A and B (.f16 or .bf16; type is D's, type2
                           C's) */
    uint32_t mods;      /* PTX_M_* */
    int32_t guard;      /* predicate register, or -1 */
    bool guard_neg;
    uint8_t nargs;
    PtxArg a[PTX_MAX_OPERANDS];
    uint16_t text;      /* the opcode's text with its modifiers ("ld.global.f32"), interned */
    uint32_t line, col;
} PtxInst;

typedef struct {
    char *name;
    PtxSpace space;     /* SHARED, LOCAL, GLOBAL, CONST, PARAM */
    uint64_t size, align;       /* bytes; an `.extern .shared` array of no size is 0 */
    uint64_t offset;    /* param: in its entry's parameters; global/const: in the module's
                           variables (shared and local: PtxEntry.sym_offset) */
    bool dynamic;       /* extern shared: the launch's dynamic shared memory */
    uint8_t type;       /* PARAM: the element type */
    uint8_t *init;      /* .global/.const with an initialiser: its size bytes (else NULL) */
    bool callparam;     /* a call's argument or result (.param in a body): per-thread LOCAL */
} PtxSym;

typedef struct {
    char *name;
    uint8_t type;       /* PtxType */
} PtxReg;

typedef struct {
    char *name;
    uint32_t line;
    GArray *insts;      /* PtxInst */
    GArray *regs;       /* PtxReg */
    GArray *params;     /* indices into the module's syms, in order */
    uint64_t param_bytes;
    uint64_t shared_bytes;      /* the static shared arrays its instructions name */
    uint64_t dyn_offset;        /* where the dynamic (extern) shared array starts */
    bool uses_dynamic;          /* it names the extern shared array */
    uint64_t local_bytes;       /* its .local arrays, per thread */
    uint64_t *sym_offset;       /* per module symbol: its offset in its space for this entry
                                   (shared, local: this entry's layout; param: the entry's) */
    uint32_t *ipdom;    /* per instruction: where a branch there reconverges (ninsts: exit) */
} PtxEntry;

typedef struct {
    char *path;
    uint32_t version_major, version_minor;
    uint32_t target;    /* sm_XX: XX */
    GArray *syms;       /* PtxSym: module symbols (shared, global, const) and every param */
    GPtrArray *entries; /* PtxEntry * */
    GPtrArray *texts;   /* opcode texts by PtxInst.text */
    GHashTable *text_index;
    /* per symbol, the device memory of its .global and .const variables (NULL for the others),
     * made by the module's first run and kept for the next (CUDA keeps a module's __device__
     * variables from one launch to the next); ptxexec.c owns it, freed with the module */
    GPtrArray *vars;
} PtxModule;

static inline bool ptx_op_is_wmma(uint8_t op)
{
    return op == PTX_OP_WMMA_LD || op == PTX_OP_WMMA_ST || op == PTX_OP_WMMA_MMA;
}
/* The warp-wide matrix instructions: all 32 lanes run them together (.sync.aligned). */
static inline bool ptx_op_is_warp_matrix(uint8_t op)
{
    return ptx_op_is_wmma(op) || op == PTX_OP_MMA || op == PTX_OP_LDMATRIX;
}
/* mma.sync's shapes (PTX ISA 9.7.14.5): M = 16, N = 8, K = 16 or 8 */
typedef enum { PTX_MMA_M16N8K16, PTX_MMA_M16N8K8 } PtxMmaShape;

/* wmma's matrices (PTX ISA 9.7.14.4.1): A is M x K, B is K x N, C and D are M x N. */
static inline void ptx_wmma_dims(uint8_t shape, uint32_t *m, uint32_t *n, uint32_t *k)
{
    *m = shape == PTX_WMMA_M32N8K16 ? 32 : shape == PTX_WMMA_M8N32K16 ? 8 : 16;
    *n = shape == PTX_WMMA_M32N8K16 ? 8 : shape == PTX_WMMA_M8N32K16 ? 32 : 16;
    *k = 16;
}
static inline uint32_t ptx_wmma_rows(uint8_t mat, uint8_t shape)
{
    uint32_t m, n, k;
    ptx_wmma_dims(shape, &m, &n, &k);
    return mat == PTX_WMMA_B ? k : m;
}
static inline uint32_t ptx_wmma_cols(uint8_t mat, uint8_t shape)
{
    uint32_t m, n, k;
    ptx_wmma_dims(shape, &m, &n, &k);
    return mat == PTX_WMMA_A ? k : n;
}
/* The 32-bit registers of one thread's fragment (PTX ISA 9.7.14.4.1): eight .f16x2 for .f16
 * A and B in every shape (so a thread holds some elements more than once), one per two elements
 * of its 1/32 share for .bf16 A and B, four .f16x2 or eight .f32 for C and D. */
static inline uint32_t ptx_wmma_regs(uint8_t mat, uint8_t shape, uint8_t type)
{
    if (mat == PTX_WMMA_C || mat == PTX_WMMA_D)
        return type == PTX_T_F16 ? 4 : 8;
    if (type == PTX_T_F16)
        return 8;
    return ptx_wmma_rows(mat, shape) * ptx_wmma_cols(mat, shape) / 64;
}

/* Parses path (at most PTX_MAX_BYTES). */
PtxModule *ptx_parse_file(const char *path, GError **error);
/* Parses text as if read from path (for tests and the fuzzer); text[len] must be a NUL. */
PtxModule *ptx_parse(const char *path, const char *text, size_t len, GError **error);
void ptx_module_free(PtxModule *m);
/* The entry called name, or the only one when name is NULL (else NULL, with error set). */
PtxEntry *ptx_entry(const PtxModule *m, const char *name, GError **error);
const char *ptx_type_name(PtxType t);
uint32_t ptx_type_bytes(PtxType t);
const char *ptx_op_name(PtxOp op);

#endif
