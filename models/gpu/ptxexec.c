/* ptxexec.c: PTX run functionally, a thread block at a time (ptxexec.h). Semantics of each
 * instruction: NVIDIA, "Parallel Thread Execution ISA" 9.0, chapter 9; the reconvergence stack:
 * Fung, Sham, Yuan and Aamodt, "Dynamic Warp Formation and Scheduling for Efficient GPU Control
 * Flow", MICRO 2007 (the immediate post-dominator stack GPGPU-Sim's PTX mode keeps).
 */
#include "ptxexec.h"

#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "opcodes.h"

#define SIMT_MAX_DEPTH 1024

typedef struct {
    uint32_t pc, rpc, mask;
} SimtEntry;

typedef struct {
    SimtEntry *stack;
    uint32_t sp, cap;
    uint32_t live;              /* lanes that have not ended */
    /* lanes parked at a warp-synchronous instruction (bar.sync, bar.warp.sync, shfl.sync,
     * vote.sync) until the other lanes it waits for have reached it (sync_park) */
    uint32_t park_mask, park_pc, park_rpc;
    bool at_bar, done;
    GArray *insts;              /* SassInst, recorded (the block's own array) */
    GArray *addrs;              /* uint64_t (the same) */
} PWarp;

struct PtxRun {
    PtxLaunch l;
    SassKernel k;
    uint32_t nthreads, nwarps, nregs;
    uint64_t nblocks, next;
    uint64_t *order;            /* a permutation of the block ids (order_seed), or NULL */
    uint64_t *regs;             /* nregs x nthreads */
    uint8_t *shared;
    uint64_t shared_bytes, local_bytes;
    uint8_t *local;             /* nthreads x local_bytes */
    uint8_t *cc;                /* per thread: the carry flag of add.cc and friends */
    uint64_t *sym_addr;         /* each symbol's address in its space */
    GPtrArray *sorted;          /* PtxBuffer *, by address (the launch's and the module's) */
    GPtrArray *own;             /* module variables' buffers, owned here */
    PWarp *w;
    uint32_t bx, by, bz;        /* the block running */
    uint64_t executed;          /* warp instructions of this block */
    uint64_t max_insts;         /* ... at most */
    uint64_t clock;             /* %clock: warp instructions run so far */
    SassInst *tmpl;             /* per instruction: its record but for the mask (make_template) */
    uint64_t *rmask;            /* per register: the bits its type holds (predicates: 1) */
    uint8_t *rpred;             /* per register: a predicate */
    PtxBuffer *last_buf;        /* the buffer the last global access hit */
    uint64_t printed;           /* bytes printf wrote (bounded: PTX_PRINTF_LIMIT) */
    GError **error;
    bool failed;
};

/* ---- dtypes and buffers ---- */

static const char *const dtype_names[PTX_D_COUNT] = {
    "f32", "f64", "f16", "s32", "u32", "s64", "u64", "u8", "bf16",
};
static const uint32_t dtype_bytes[PTX_D_COUNT] = { 4, 8, 2, 4, 4, 8, 8, 1, 2 };

const char *ptx_dtype_name(PtxDtype d) { return d < PTX_D_COUNT ? dtype_names[d] : "?"; }
uint32_t ptx_dtype_bytes(PtxDtype d) { return d < PTX_D_COUNT ? dtype_bytes[d] : 0; }

bool ptx_dtype_parse(const char *s, PtxDtype *d)
{
    for (int i = 0; i < PTX_D_COUNT; i++)
        if (strcmp(s, dtype_names[i]) == 0) {
            *d = (PtxDtype)i;
            return true;
        }
    return false;
}

PtxBuffer *ptx_buffer_new(const char *name, PtxDtype dtype, uint64_t count)
{
    PtxBuffer *b = g_new0(PtxBuffer, 1);
    b->name = g_strdup(name);
    b->dtype = dtype;
    b->count = count;
    b->bytes = count * dtype_bytes[dtype];
    b->data = g_try_malloc0(b->bytes ? b->bytes : 1);
    if (!b->data) {
        g_free(b->name);
        g_free(b);
        return NULL;
    }
    return b;
}

void ptx_buffer_free(PtxBuffer *b)
{
    if (!b)
        return;
    g_free(b->name);
    g_free(b->data);
    g_free(b);
}

uint64_t ptx_place_buffers(GPtrArray *buffers)
{
    uint64_t at = PTX_GLOBAL_BASE;
    for (guint i = 0; i < buffers->len; i++) {
        PtxBuffer *b = g_ptr_array_index(buffers, i);
        b->addr = at;
        at += (b->bytes + 255) / 256 * 256 + 256;     /* 256-byte aligned, a gap between */
    }
    return at;
}

/* ---- values ---- */

static const uint8_t type_bits[PTX_T_COUNT] = {
    [PTX_T_PRED] = 1, [PTX_T_B8] = 8, [PTX_T_B16] = 16, [PTX_T_B32] = 32, [PTX_T_B64] = 64,
    [PTX_T_U8] = 8, [PTX_T_U16] = 16, [PTX_T_U32] = 32, [PTX_T_U64] = 64, [PTX_T_S8] = 8,
    [PTX_T_S16] = 16, [PTX_T_S32] = 32, [PTX_T_S64] = 64, [PTX_T_F16] = 16, [PTX_T_F32] = 32,
    [PTX_T_F64] = 64, [PTX_T_F16X2] = 32, [PTX_T_BF16] = 16, [PTX_T_BF16X2] = 32,
};
static inline uint32_t tbits(PtxType t) { return type_bits[t]; }
static inline bool is_float(PtxType t)
{
    return t == PTX_T_F16 || t == PTX_T_F32 || t == PTX_T_F64 || t == PTX_T_BF16;
}
static inline bool is_signed(PtxType t)
{
    return t == PTX_T_S8 || t == PTX_T_S16 || t == PTX_T_S32 || t == PTX_T_S64;
}
static inline uint64_t trunc_to(uint64_t v, uint32_t bits)
{
    return bits >= 64 ? v : v & ((1ull << bits) - 1);
}
static inline int64_t sext(uint64_t v, uint32_t bits)
{
    if (bits >= 64)
        return (int64_t)v;
    uint64_t m = 1ull << (bits - 1);
    v = trunc_to(v, bits);
    return (int64_t)((v ^ m) - m);
}

static inline float f32_of(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint64_t bits_f32(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline double f64_of(uint64_t v)
{
    double d;
    memcpy(&d, &v, 8);
    return d;
}
static inline uint64_t bits_f64(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* IEEE half <-> float (round to nearest even) */
static float half_to_float(uint16_t h)
{
    uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    uint32_t u;
    if (e == 0) {
        if (m == 0) {
            u = s;
        } else {                    /* subnormal */
            e = 127 - 15 + 1;
            while (!(m & 0x400)) {
                m <<= 1;
                e--;
            }
            u = s | e << 23 | (m & 0x3ff) << 13;
        }
    } else if (e == 31) {
        u = s | 0x7f800000u | m << 13;
    } else {
        u = s | (e + 127 - 15) << 23 | m << 13;
    }
    return f32_of(u);
}

/* d rounded once to the nearest even value of a 16-bit binary format with `m` fraction bits and
 * exponent bias `bias` (f16: 10, 15; bfloat16: 7, 127): subnormals kept, past the largest
 * finite value an infinity, NaN quiet. */
static uint16_t small_float_of_double(double d, int m, int bias)
{
    uint16_t s = signbit(d) ? 0x8000 : 0, inf = (uint16_t)((2 * bias + 1) << m);
    if (isnan(d))
        return (uint16_t)(s | inf | 1u << (m - 1));
    double a = fabs(d);
    if (isinf(a))
        return (uint16_t)(s | inf);
    if (a == 0)
        return s;
    int e;
    (void)frexp(a, &e);             /* a = 1.f x 2^(e - 1) */
    int E = e - 1 < 1 - bias ? 1 - bias : e - 1;
    /* a in units of 2^(E - m), the format's spacing there (the subnormals' below the normals):
     * the scaling is exact, the one rounding is nearbyint's (to nearest even by default) */
    double q = nearbyint(ldexp(a, m - E)), one = ldexp(1.0, m);
    if (q >= 2 * one) {             /* rounded up to the next binade */
        q /= 2;
        E++;
    }
    if (E > bias) {                 /* past the largest finite value: infinity, or that value
                                       when the rounding (cvt.rz, .rm, .rp) goes the other way */
        int rm = fegetround();
        bool keep = rm == FE_TOWARDZERO || (rm == FE_DOWNWARD && !s) || (rm == FE_UPWARD && s);
        return (uint16_t)(s | (keep ? inf - 1 : inf));
    }
    if (q < one)                    /* a subnormal (E is 1 - bias) */
        return (uint16_t)(s | (uint16_t)q);
    return (uint16_t)(s | (uint16_t)((E + bias) << m) | (uint16_t)((uint32_t)(q - one)));
}

uint16_t ptx_half_of_double(double d) { return small_float_of_double(d, 10, 15); }
uint16_t ptx_bf16_of_double(double d) { return small_float_of_double(d, 7, 127); }

/* x * y + z rounded once to a bfloat16: the product is exact in a double, the sum is made
 * round-to-odd in a double (two-sum, then the last bit set when anything was lost), which a
 * second rounding to 8 bits cannot turn into a wrong tie (Boldo and Melquiond, "Emulation of
 * FMA and correctly rounded sums", IEEE TC 2008) */
static uint16_t bf16_fma(double x, double y, double z)
{
    double p = x * y, s = p + z;
    if (!isfinite(s))
        return ptx_bf16_of_double(s);
    double bp = s - z, err = (p - bp) + (z - (s - bp));
    if (err != 0) {
        uint64_t u;
        memcpy(&u, &s, 8);
        if (!(u & 1)) {             /* even: step one ulp toward the lost part */
            s = nextafter(s, err > 0 ? INFINITY : -INFINITY);
        }
    }
    return ptx_bf16_of_double(s);
}

/* a float operand of type t as a double (f16 and f32 exactly) */
static inline double fval(uint64_t v, PtxType t)
{
    return t == PTX_T_F64 ? f64_of(v) : t == PTX_T_F32 ? (double)f32_of(v)
         : t == PTX_T_BF16 ? (double)f32_of((v & 0xffff) << 16)
                           : (double)half_to_float((uint16_t)v);
}
static inline uint64_t fbits(double d, PtxType t)
{
    return t == PTX_T_F64 ? bits_f64(d) : t == PTX_T_F32 ? bits_f32((float)d)
         : t == PTX_T_BF16 ? ptx_bf16_of_double(d) : ptx_half_of_double(d);
}

/* ---- errors ---- */

static G_GNUC_PRINTF(4, 5) int rerr(PtxRun *r, const PtxInst *in, uint32_t tid, const char *fmt,
                                    ...)
{
    if (r->failed)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    uint32_t tx = tid % r->l.block[0], ty = tid / r->l.block[0] % r->l.block[1];
    uint32_t tz = tid / (r->l.block[0] * r->l.block[1]);
    g_set_error(r->error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%s:%u:%u: %s (block "
                "(%u,%u,%u), thread (%u,%u,%u))", r->l.m->path, in ? in->line : r->l.e->line,
                in ? in->col : 1, msg, r->bx, r->by, r->bz, tx, ty, tz);
    g_free(msg);
    r->failed = true;
    return -1;
}

/* ---- operands ---- */

#define REG(r, reg, tid) ((r)->regs[(size_t)(reg) * (r)->nthreads + (tid)])

static uint64_t sreg(PtxRun *r, PtxSreg s, uint32_t tid)
{
    uint32_t lane = tid % 32;
    switch (s) {
    case PTX_SR_TID_X: return tid % r->l.block[0];
    case PTX_SR_TID_Y: return tid / r->l.block[0] % r->l.block[1];
    case PTX_SR_TID_Z: return tid / (r->l.block[0] * r->l.block[1]);
    case PTX_SR_NTID_X: return r->l.block[0];
    case PTX_SR_NTID_Y: return r->l.block[1];
    case PTX_SR_NTID_Z: return r->l.block[2];
    case PTX_SR_CTAID_X: return r->bx;
    case PTX_SR_CTAID_Y: return r->by;
    case PTX_SR_CTAID_Z: return r->bz;
    case PTX_SR_NCTAID_X: return r->l.grid[0];
    case PTX_SR_NCTAID_Y: return r->l.grid[1];
    case PTX_SR_NCTAID_Z: return r->l.grid[2];
    case PTX_SR_LANEID: return lane;
    case PTX_SR_WARPID: return tid / 32;
    case PTX_SR_NWARPID: return 64;
    case PTX_SR_SMID: return 0;
    case PTX_SR_LANEMASK_EQ: return 1u << lane;
    case PTX_SR_LANEMASK_LT: return (1u << lane) - 1;
    case PTX_SR_LANEMASK_LE: return lane == 31 ? 0xffffffffu : (2u << lane) - 1;
    case PTX_SR_LANEMASK_GT: return lane == 31 ? 0 : ~((2u << lane) - 1) & 0xffffffffu;
    case PTX_SR_LANEMASK_GE: return ~((1u << lane) - 1) & 0xffffffffu;
    case PTX_SR_CLOCK: return (uint32_t)r->clock;
    case PTX_SR_CLOCK64: return r->clock;
    /* nanoseconds on a GPU; here, as %clock, the warp instructions run so far (the functional
     * run has no time) */
    case PTX_SR_GLOBALTIMER: return r->clock;
    case PTX_SR_GLOBALTIMER_LO: return (uint32_t)r->clock;
    case PTX_SR_GLOBALTIMER_HI: return (uint32_t)(r->clock >> 32);
    default: return 0;
    }
}

static inline uint64_t val(PtxRun *r, const PtxArg *a, uint32_t tid)
{
    switch (a->kind) {
    case PTX_A_REG: {
        uint64_t v = REG(r, a->reg, tid);
        return a->neg ? !v : v;
    }
    case PTX_A_IMM:
        return (uint64_t)a->imm;
    case PTX_A_SREG:
        return sreg(r, (PtxSreg)a->reg, tid);
    case PTX_A_SYM:
        return r->sym_addr[a->reg];
    default:
        return 0;
    }
}

/* Operand a for every lane of exec, into out[lane]: the kind decided once per instruction. */
static inline void fetch(PtxRun *r, const PtxArg *a, uint32_t base, uint32_t exec, uint64_t *out)
{
    if (a->kind == PTX_A_REG) {
        const uint64_t *row = &REG(r, a->reg, base);
        if (a->neg)
            for (uint32_t l = exec; l; l &= l - 1)
                out[__builtin_ctz(l)] = !row[__builtin_ctz(l)];
        else
            for (uint32_t l = exec; l; l &= l - 1)
                out[__builtin_ctz(l)] = row[__builtin_ctz(l)];
    } else if (a->kind == PTX_A_IMM || a->kind == PTX_A_SYM) {
        uint64_t v = val(r, a, base);
        for (uint32_t l = exec; l; l &= l - 1)
            out[__builtin_ctz(l)] = v;
    } else {
        for (uint32_t l = exec; l; l &= l - 1)
            out[__builtin_ctz(l)] = val(r, a, base + (uint32_t)__builtin_ctz(l));
    }
}

static inline void set(PtxRun *r, int32_t reg, uint32_t tid, uint64_t v, PtxType t)
{
    if (reg < 0 || (uint32_t)reg >= r->nregs)
        return;
    if (is_signed(t) && tbits(t) < 64)      /* a narrower signed value fills a wider register */
        v = (uint64_t)sext(v, tbits(t));
    REG(r, reg, tid) = r->rpred[reg] ? (v != 0) : v & r->rmask[reg];
}

/* ---- memory ---- */

/* The last buffer at or below address a (it may end before a), or NULL. */
static PtxBuffer *buffer_below(PtxRun *r, uint64_t a)
{
    guint lo = 0, hi = r->sorted->len;
    while (lo < hi) {
        guint mid = (lo + hi) / 2;
        if (((PtxBuffer *)g_ptr_array_index(r->sorted, mid))->addr <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? NULL : g_ptr_array_index(r->sorted, lo - 1);
}

static const char *space_name(PtxSpace s)
{
    static const char *const n[] = { "generic", "global", "shared", "local", "param", "const" };
    return s <= PTX_SPACE_CONST ? n[s] : "?";
}

/* The host bytes of a size-byte access at addr in space sp by thread tid (NULL: error set);
 * *rs gets the space it resolved to and *ta the address the timing model sees. Inline in both
 * callers (as a call, once wmma was its second caller, it cost a run 5 % more host
 * instructions). */
static inline __attribute__((always_inline)) uint8_t *
mem_at(PtxRun *r, const PtxInst *in, PtxSpace sp, uint64_t addr, uint32_t size, uint32_t tid,
       PtxSpace *rs, uint64_t *ta)
{
    if (size > 1 && addr % size) {
        rerr(r, in, tid, "misaligned %s access of %u bytes at 0x%" G_GINT64_MODIFIER "x",
             space_name(sp), size, addr);
        return NULL;
    }
    if (sp == PTX_SPACE_GENERIC) {
        if (addr >= PTX_SHARED_WINDOW && addr - PTX_SHARED_WINDOW < ((uint64_t)1 << 32)) {
            sp = PTX_SPACE_SHARED;
            addr -= PTX_SHARED_WINDOW;
        } else if (addr >= PTX_LOCAL_WINDOW && addr - PTX_LOCAL_WINDOW < ((uint64_t)1 << 32)) {
            sp = PTX_SPACE_LOCAL;
            addr -= PTX_LOCAL_WINDOW;
        } else {
            sp = PTX_SPACE_GLOBAL;
        }
    }
    *rs = sp;
    switch (sp) {
    case PTX_SPACE_SHARED:
        if (addr + size > r->shared_bytes || addr + size < addr) {
            rerr(r, in, tid, "shared-memory access at %" G_GUINT64_FORMAT " (+%u bytes) beyond "
                 "the block's %" G_GUINT64_FORMAT " bytes", addr, size, r->shared_bytes);
            return NULL;
        }
        *ta = addr;
        return r->shared + addr;
    case PTX_SPACE_LOCAL:
        if (addr + size > r->local_bytes || addr + size < addr) {
            rerr(r, in, tid, "local-memory access at %" G_GUINT64_FORMAT " (+%u bytes) beyond the "
                 "thread's %" G_GUINT64_FORMAT " bytes", addr, size, r->local_bytes);
            return NULL;
        }
        *ta = PTX_LOCAL_WINDOW + (((uint64_t)r->next * r->nthreads + tid) * r->local_bytes + addr);
        return r->local + (size_t)tid * r->local_bytes + addr;
    case PTX_SPACE_PARAM:
        if (addr + size > r->l.e->param_bytes || addr + size < addr) {
            rerr(r, in, tid, "parameter access at %" G_GUINT64_FORMAT " (+%u bytes) beyond the "
                 "entry's %" G_GUINT64_FORMAT " bytes of parameters", addr, size,
                 r->l.e->param_bytes);
            return NULL;
        }
        *ta = addr;
        return r->l.params + addr;
    default: {
        PtxBuffer *b = r->last_buf;
        if (!b || addr < b->addr || addr - b->addr >= b->bytes)
            b = r->last_buf = buffer_below(r, addr);
        if (!b || addr + size - b->addr > b->bytes) {
            char *near = b ? g_strdup_printf(" (%" G_GUINT64_FORMAT " bytes past the end of %s, %"
                                             G_GUINT64_FORMAT " bytes at 0x%" G_GINT64_MODIFIER "x)",
                                             addr >= b->addr + b->bytes ? addr - b->addr - b->bytes : 0,
                                             b->name, b->bytes, b->addr)
                           : g_strdup("");
            rerr(r, in, tid, "%s access of %u bytes at 0x%" G_GINT64_MODIFIER "x is outside every "
                 "buffer%s", space_name(sp), size, addr, near);
            g_free(near);
            return NULL;
        }
        *ta = addr;
        return b->data + (addr - b->addr);
    }
    }
}

static inline uint64_t load_bytes(const uint8_t *p, uint32_t n)
{
    uint64_t v = 0;
    memcpy(&v, p, n);           /* little-endian host */
    return v;
}
static inline void store_bytes(uint8_t *p, uint64_t v, uint32_t n) { memcpy(p, &v, n); }

/* ---- recording ---- */

static const uint8_t unit_of_op[PTX_OP_COUNT] = {
    [PTX_OP_LD] = GPU_UNIT_LDST, [PTX_OP_ST] = GPU_UNIT_LDST, [PTX_OP_MOV] = GPU_UNIT_INT,
    [PTX_OP_CVTA] = GPU_UNIT_INT, [PTX_OP_CVT] = GPU_UNIT_SFU, [PTX_OP_AND] = GPU_UNIT_INT,
    [PTX_OP_OR] = GPU_UNIT_INT, [PTX_OP_XOR] = GPU_UNIT_INT, [PTX_OP_NOT] = GPU_UNIT_INT,
    [PTX_OP_SHL] = GPU_UNIT_INT, [PTX_OP_SHR] = GPU_UNIT_INT, [PTX_OP_POPC] = GPU_UNIT_INT,
    [PTX_OP_CLZ] = GPU_UNIT_INT, [PTX_OP_BREV] = GPU_UNIT_INT, [PTX_OP_BFE] = GPU_UNIT_INT,
    [PTX_OP_SETP] = GPU_UNIT_INT, [PTX_OP_SELP] = GPU_UNIT_INT, [PTX_OP_EX2] = GPU_UNIT_SFU,
    [PTX_OP_LG2] = GPU_UNIT_SFU, [PTX_OP_RCP] = GPU_UNIT_SFU, [PTX_OP_SQRT] = GPU_UNIT_SFU,
    [PTX_OP_RSQRT] = GPU_UNIT_SFU, [PTX_OP_SIN] = GPU_UNIT_SFU, [PTX_OP_COS] = GPU_UNIT_SFU,
    [PTX_OP_BRA] = GPU_UNIT_BRANCH, [PTX_OP_RET] = GPU_UNIT_BRANCH,
    [PTX_OP_EXIT] = GPU_UNIT_BRANCH, [PTX_OP_BAR] = GPU_UNIT_BARRIER,
    [PTX_OP_BAR_WARP] = GPU_UNIT_BARRIER, [PTX_OP_MEMBAR] = GPU_UNIT_BARRIER,
    [PTX_OP_ATOM] = GPU_UNIT_LDST, [PTX_OP_RED] = GPU_UNIT_LDST, [PTX_OP_SHFL] = GPU_UNIT_LDST,
    [PTX_OP_VOTE] = GPU_UNIT_INT, [PTX_OP_ACTIVEMASK] = GPU_UNIT_INT, [PTX_OP_BFI] = GPU_UNIT_INT,
    [PTX_OP_PRMT] = GPU_UNIT_INT, [PTX_OP_LOP3] = GPU_UNIT_INT, [PTX_OP_SHF] = GPU_UNIT_INT,
    [PTX_OP_COPYSIGN] = GPU_UNIT_INT,       /* a bit operation (LOP3 in SASS) */
    [PTX_OP_SET] = GPU_UNIT_INT, [PTX_OP_BFIND] = GPU_UNIT_INT, [PTX_OP_REDUX] = GPU_UNIT_INT,
    [PTX_OP_SAD] = GPU_UNIT_INT, [PTX_OP_DP4A] = GPU_UNIT_INT, [PTX_OP_DP2A] = GPU_UNIT_INT,
    [PTX_OP_VABSDIFF] = GPU_UNIT_INT,
    [PTX_OP_WMMA_LD] = GPU_UNIT_LDST, [PTX_OP_WMMA_ST] = GPU_UNIT_LDST,
    [PTX_OP_WMMA_MMA] = GPU_UNIT_TENSOR,
    [PTX_OP_CP_ASYNC] = GPU_UNIT_LDST, [PTX_OP_CP_COMMIT] = GPU_UNIT_LDST,     /* LDGSTS, LDGDEPBAR */
    [PTX_OP_CP_WAIT] = GPU_UNIT_BARRIER,                                       /* DEPBAR */
    [PTX_OP_TRAP] = GPU_UNIT_BRANCH,                                           /* BPT.TRAP */
    [PTX_OP_MMA] = GPU_UNIT_TENSOR, [PTX_OP_LDMATRIX] = GPU_UNIT_LDST,          /* HMMA, LDSM */
    [PTX_OP_HOSTCALL] = GPU_UNIT_BRANCH,                                       /* CALL */
    [PTX_OP_MATCH] = GPU_UNIT_INT, [PTX_OP_NANOSLEEP] = GPU_UNIT_BRANCH,       /* MATCH, NANOSLEEP */
};

uint8_t ptx_unit_class(const PtxInst *in)
{
    PtxType t = (PtxType)in->type;
    switch ((PtxOp)in->op) {
    case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_MAD: case PTX_OP_FMA:
    case PTX_OP_ABS: case PTX_OP_NEG: case PTX_OP_MIN: case PTX_OP_MAX:
        return t == PTX_T_F32 ? GPU_UNIT_FP32 : t == PTX_T_F64 ? GPU_UNIT_FP64
             : t == PTX_T_F16 || t == PTX_T_F16X2 || t == PTX_T_BF16 || t == PTX_T_BF16X2
                 ? GPU_UNIT_FP16 : GPU_UNIT_INT;
    case PTX_OP_DIV: case PTX_OP_REM:       /* a subroutine in SASS: the SFU's rate */
        return t == PTX_T_F64 ? GPU_UNIT_FP64 : GPU_UNIT_SFU;
    case PTX_OP_CVT:                        /* integer resizes are ALU work */
        return is_float((PtxType)in->type) || is_float((PtxType)in->type2) ? GPU_UNIT_SFU
                                                                           : GPU_UNIT_INT;
    default:
        return unit_of_op[in->op];
    }
}

static inline uint16_t sb_reg(int32_t reg) { return SASS_REG(SASS_REG_R, (uint32_t)reg % 255); }

static uint32_t n_dst(const PtxInst *in)
{
    switch ((PtxOp)in->op) {
    case PTX_OP_ST: case PTX_OP_RED: case PTX_OP_BRA: case PTX_OP_RET: case PTX_OP_EXIT:
    case PTX_OP_BAR: case PTX_OP_BAR_WARP: case PTX_OP_MEMBAR: case PTX_OP_WMMA_ST:
    case PTX_OP_CP_ASYNC: case PTX_OP_CP_COMMIT: case PTX_OP_CP_WAIT: case PTX_OP_TRAP:
    case PTX_OP_HOSTCALL: case PTX_OP_NANOSLEEP:
        return 0;
    default:
        return in->nargs > 1 && in->a[1].pair ? 2 : 1;
    }
}

static void add_reg(uint16_t *list, uint8_t *n, uint32_t max, int32_t reg)
{
    if (reg < 0 || *n >= max)
        return;
    list[(*n)++] = sb_reg(reg);
}

/* What the SM sees of instruction idx whatever lanes run it: its pc, opcode, unit, line and
 * registers (made once per run; record() adds the mask, exec_mem the memory fields). */
static void make_template(uint32_t idx, const PtxInst *in, SassInst *out)
{
    SassInst si;
    memset(&si, 0, sizeof si);
    si.pc = idx * 16;
    si.src_line = in->line;
    si.op = in->text;
    si.unit = ptx_unit_class(in);
    uint32_t nd = n_dst(in);
    for (uint32_t i = 0; i < in->nargs; i++) {
        const PtxArg *a = &in->a[i];
        bool dst = i < nd;
        uint16_t *list = dst ? si.dst : si.src;
        uint8_t *cnt = dst ? &si.ndst : &si.nsrc;
        uint32_t max = dst ? SASS_MAX_DST : SASS_MAX_SRC;
        if (a->kind == PTX_A_REG)
            add_reg(list, cnt, max, a->reg);
        else if (a->kind == PTX_A_VEC)
            for (uint32_t j = 0; j < a->n; j++)
                add_reg(list, cnt, max, a->vec[j]);
        else if (a->kind == PTX_A_ADDR)
            add_reg(si.src, &si.nsrc, SASS_MAX_SRC, a->reg);
    }
    add_reg(si.src, &si.nsrc, SASS_MAX_SRC, in->guard);
    if (in->op == PTX_OP_CP_WAIT) {     /* the groups that may stay pending; -1: wait_all */
        si.has_imm = true;
        si.imm = in->sub ? -1 : in->a[0].imm;
    } else if (in->op == PTX_OP_CP_COMMIT) {
        si.has_imm = true;              /* (what the SM's issue test looks for, sm.c) */
    }
    *out = si;
}

static inline SassInst *record(PtxRun *r, PWarp *w, uint32_t idx, uint32_t mask)
{
    g_array_append_val(w->insts, r->tmpl[idx]);
    SassInst *si = &g_array_index(w->insts, SassInst, w->insts->len - 1);
    si->mask = mask;
    return si;
}

/* ---- the SIMT stack ---- */

static bool push(PtxRun *r, PWarp *w, const PtxInst *in, uint32_t pc, uint32_t rpc, uint32_t mask)
{
    if (w->sp == w->cap) {
        if (w->cap >= SIMT_MAX_DEPTH) {
            rerr(r, in, 0, "the reconvergence stack is deeper than %d entries", SIMT_MAX_DEPTH);
            return false;
        }
        w->cap = w->cap ? w->cap * 2 : 16;
        w->stack = g_renew(SimtEntry, w->stack, w->cap);
    }
    w->stack[w->sp++] = (SimtEntry){ pc, rpc, mask };
    return true;
}

/* lanes in mask end: off every entry; empty entries and reconverged ones popped. When nothing
 * is left but lanes parked at a synchronizing instruction, they go on from it, together (the
 * rpc the kernel's end, as the first entry's: they are the whole warp that has not ended). */
static void settle(PWarp *w, uint32_t ended)
{
    if (ended) {
        w->live &= ~ended;
        w->park_mask &= ~ended;
        for (uint32_t i = 0; i < w->sp; i++)
            w->stack[i].mask &= ~ended;
    }
    while (w->sp > 0 && (w->stack[w->sp - 1].mask == 0 ||
                         w->stack[w->sp - 1].pc == w->stack[w->sp - 1].rpc))
        w->sp--;
    if (w->sp == 0 && w->park_mask) {
        g_assert(w->cap > 0);                       /* the first push made the stack */
        w->stack[w->sp++] = (SimtEntry){ w->park_pc, w->park_rpc, w->park_mask };
        w->park_mask = 0;
    }
    if (w->sp == 0)
        w->done = true;
}

/* The lanes a warp-synchronous instruction waits for (PTX ISA: bar.sync waits for every thread
 * of the block that has not exited; bar.warp.sync, shfl.sync and vote.sync for the lanes of
 * their member mask), 0 for any other instruction. */
static uint32_t sync_lanes(PtxRun *r, const PWarp *w, const PtxInst *in, uint32_t active,
                           uint32_t base)
{
    const PtxArg *mask;
    switch ((PtxOp)in->op) {
    case PTX_OP_BAR:
    case PTX_OP_WMMA_LD: case PTX_OP_WMMA_ST: case PTX_OP_WMMA_MMA:   /* the whole warp */
    case PTX_OP_MMA: case PTX_OP_LDMATRIX:
        return w->live;
    case PTX_OP_BAR_WARP:
        mask = &in->a[0];
        break;
    case PTX_OP_VOTE: case PTX_OP_REDUX: case PTX_OP_MATCH:
        mask = &in->a[in->nargs - 1];
        break;
    case PTX_OP_SHFL:
        mask = &in->a[in->nargs - 1];
        break;
    default:
        return 0;
    }
    return (uint32_t)val(r, mask, base + (uint32_t)__builtin_ctz(active)) & w->live;
}

/* The top entry (mask `active`) has reached a synchronizing instruction that waits for lanes
 * still elsewhere in the warp: with a loop that may `return`, the reconvergence point of its
 * branch is the kernel's end, so the lanes that left the loop ran through the barrier, the
 * shuffle or the vote before the others had left it (and read their registers, or counted the
 * warp as arrived). Its lanes are parked there, off every entry, and the others run on; when
 * no entry is left (settle) the parked lanes go on from it together. One such instruction at
 * a time: lanes that reach another one while some are parked are not held (divergent
 * barriers, which CUDA leaves undefined). True when the lanes were parked. */
static bool sync_park(PtxRun *r, PWarp *w, const PtxInst *in, uint32_t pc, uint32_t active,
                      uint32_t base)
{
    uint32_t need = sync_lanes(r, w, in, active, base);
    if ((need & ~active) == 0 || (w->park_mask && w->park_pc != pc))
        return false;
    w->park_pc = pc;
    w->park_rpc = r->l.e->insts->len;
    w->park_mask |= active;
    for (uint32_t i = 0; i < w->sp; i++)
        w->stack[i].mask &= ~active;
    settle(w, 0);
    return true;
}

/* ---- execution ---- */

static bool cmp_int(PtxCmp c, uint64_t a, uint64_t b, PtxType t)
{
    uint32_t bits = tbits(t);
    if (is_signed(t)) {
        int64_t x = sext(a, bits), y = sext(b, bits);
        switch (c) {
        case PTX_CMP_EQ: return x == y;
        case PTX_CMP_NE: return x != y;
        case PTX_CMP_LT: return x < y;
        case PTX_CMP_LE: return x <= y;
        case PTX_CMP_GT: return x > y;
        case PTX_CMP_GE: return x >= y;
        default: break;
        }
    }
    uint64_t x = trunc_to(a, bits), y = trunc_to(b, bits);
    switch (c) {
    case PTX_CMP_EQ: return x == y;
    case PTX_CMP_NE: return x != y;
    case PTX_CMP_LT: case PTX_CMP_LO: return x < y;
    case PTX_CMP_LE: case PTX_CMP_LS: return x <= y;
    case PTX_CMP_GT: case PTX_CMP_HI: return x > y;
    case PTX_CMP_GE: case PTX_CMP_HS: return x >= y;
    default: return false;
    }
}

static bool cmp_float(PtxCmp c, double x, double y)
{
    bool un = isnan(x) || isnan(y);
    switch (c) {
    case PTX_CMP_EQ: return !un && x == y;
    case PTX_CMP_NE: return !un && x != y;
    case PTX_CMP_LT: return !un && x < y;
    case PTX_CMP_LE: return !un && x <= y;
    case PTX_CMP_GT: return !un && x > y;
    case PTX_CMP_GE: return !un && x >= y;
    case PTX_CMP_EQU: return un || x == y;
    case PTX_CMP_NEU: return un || x != y;
    case PTX_CMP_LTU: return un || x < y;
    case PTX_CMP_LEU: return un || x <= y;
    case PTX_CMP_GTU: return un || x > y;
    case PTX_CMP_GEU: return un || x >= y;
    case PTX_CMP_NUM: return !un;
    case PTX_CMP_NAN: return un;
    default: return false;
    }
}

/* float -> integer with cvt's rounding (.rzi by default for float-to-int: PTX requires one) */
static uint64_t f2i(double d, PtxType t, uint32_t mods)
{
    if (mods & PTX_M_RNI)
        d = nearbyint(d);
    else if (mods & PTX_M_RMI)
        d = floor(d);
    else if (mods & PTX_M_RPI)
        d = ceil(d);
    else
        d = trunc(d);
    uint32_t bits = tbits(t);
    if (isnan(d))
        return 0;
    /* saturating, as the hardware; the limits compared exactly (2^63 - 1 is no double) */
    if (is_signed(t)) {
        double lim = ldexp(1.0, (int)bits - 1);
        if (d >= lim)
            return trunc_to((1ull << (bits - 1)) - 1, bits);
        if (d < -lim)
            return trunc_to(1ull << (bits - 1), bits);
        return trunc_to((uint64_t)(int64_t)d, bits);
    }
    if (d >= ldexp(1.0, (int)bits))
        return bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;
    return d <= 0 ? 0 : (uint64_t)d;
}

static inline uint64_t ftz32(uint64_t v);

static uint64_t do_cvt(const PtxInst *in, uint64_t v)
{
    PtxType dt = (PtxType)in->type, st = (PtxType)in->type2;
    if (G_UNLIKELY(in->mods & PTX_M_FTZ) && (st == PTX_T_F32 || dt == PTX_T_F32)) {
        /* .ftz: an f32 subnormal source, and result, is a zero of its sign (PTX ISA, cvt) */
        PtxInst plain = *in;
        plain.mods &= ~PTX_M_FTZ;
        uint64_t r = do_cvt(&plain, st == PTX_T_F32 ? ftz32(v) : v);
        return dt == PTX_T_F32 ? ftz32(r) : r;
    }
    if (is_float(st)) {
        double d = fval(v, st);
        if (is_float(dt)) {
            if (in->mods & (PTX_M_RNI | PTX_M_RZI | PTX_M_RMI | PTX_M_RPI))
                d = (in->mods & PTX_M_RNI) ? nearbyint(d) : (in->mods & PTX_M_RMI) ? floor(d)
                  : (in->mods & PTX_M_RPI) ? ceil(d) : trunc(d);
            if (in->mods & PTX_M_SAT)
                d = isnan(d) ? 0 : d < 0 ? 0 : d > 1 ? 1 : d;
            return fbits(d, dt);
        }
        return f2i(d, dt, in->mods);
    }
    /* from an integer */
    uint32_t sb = tbits(st);
    if (is_float(dt)) {
        if (dt == PTX_T_F32)        /* rounded once, to single precision */
            return bits_f32(is_signed(st) ? (float)sext(v, sb) : (float)trunc_to(v, sb));
        double d = is_signed(st) ? (double)sext(v, sb) : (double)trunc_to(v, sb);
        return fbits(d, dt);
    }
    uint64_t x = is_signed(st) ? (uint64_t)sext(v, sb) : trunc_to(v, sb);
    if (in->mods & PTX_M_SAT) {
        uint32_t db = tbits(dt);
        if (is_signed(dt)) {
            int64_t lo = -(int64_t)(1ull << (db - 1)), hi = (int64_t)((1ull << (db - 1)) - 1);
            int64_t s = is_signed(st) ? (int64_t)x : (x > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)x);
            x = (uint64_t)(s < lo ? lo : s > hi ? hi : s);
        } else {
            uint64_t hi = db >= 64 ? UINT64_MAX : (1ull << db) - 1;
            if (is_signed(st) && (int64_t)x < 0)
                x = 0;
            else if (x > hi)
                x = hi;
        }
    }
    return trunc_to(x, tbits(dt));
}

/* An f32's bits with a subnormal flushed to a zero of its sign (.ftz). */
/* An f16's bits with a subnormal flushed to a zero of its sign (.ftz on f16 and f16x2). */
static inline uint64_t ftz16(uint64_t v)
{
    uint16_t u = (uint16_t)v;
    return (u & 0x7c00u) == 0 ? u & 0x8000u : u;
}

static inline uint64_t ftz32(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    return (u & 0x7f800000u) == 0 ? u & 0x80000000u : u;
}

/* prmt: byte i of d is byte sel(i) of {b, a} (a: bytes 0-3, b: 4-7); the generic form takes
 * four 4-bit selectors from c (bit 3: replicate the byte's sign), a mode takes c[1:0] and the
 * ISA's table for that mode (PTX ISA, "prmt") */
static uint32_t prmt(uint8_t mode, uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t src = (uint64_t)b << 32 | a;
    uint32_t s = c & 3, d = 0;
    for (uint32_t i = 0; i < 4; i++) {
        uint32_t k, byte;
        switch ((PtxPrmt)mode) {
        case PTX_PRMT_F4E: k = s + i; break;                          /* 3210 4321 5432 6543 */
        case PTX_PRMT_B4E: k = (s - i) & 7; break;                    /* 5670 6701 7012 0123 */
        case PTX_PRMT_RC8: k = s; break;                              /* 0000 1111 2222 3333 */
        case PTX_PRMT_ECL: k = MAX(i, s); break;                      /* 3210 3211 3222 3333 */
        case PTX_PRMT_ECR: k = MIN(i, s); break;                      /* 0000 1110 2210 3210 */
        case PTX_PRMT_RC16: k = 2 * (s & 1) + (i & 1); break;         /* 1010 3232 1010 3232 */
        default: k = (c >> (4 * i)) & 7; break;
        }
        byte = (uint32_t)(src >> (8 * k)) & 0xff;
        if (mode == PTX_PRMT_GENERIC && (c >> (4 * i + 3) & 1))
            byte = byte & 0x80 ? 0xff : 0;
        d |= byte << (8 * i);
    }
    return d;
}

/* Arithmetic of one lane: d = op(a, b, c, e) in type t. */
static uint64_t alu(const PtxInst *in, uint64_t a, uint64_t b, uint64_t c, uint64_t e)
{
    PtxType t = (PtxType)in->type;
    uint32_t bits = tbits(t);
    if (t == PTX_T_F16X2 || t == PTX_T_BF16X2) {    /* each half on its own, the low one first */
        PtxInst half = *in;
        half.type = t == PTX_T_F16X2 ? PTX_T_F16 : PTX_T_BF16;
        uint64_t lo = alu(&half, a & 0xffff, b & 0xffff, c & 0xffff, e);
        uint64_t hi = alu(&half, a >> 16 & 0xffff, b >> 16 & 0xffff, c >> 16 & 0xffff, e);
        return (lo & 0xffff) | (hi & 0xffff) << 16;
    }
    if (in->op == PTX_OP_COPYSIGN) {        /* copysign d, a, b: b with the sign of a */
        uint64_t sign = 1ull << (bits - 1);
        return (b & ~sign & (sign | (sign - 1))) | (a & sign);
    }
    if (t == PTX_T_F32 && (in->mods & PTX_M_FTZ)) {      /* subnormals in and out are zero */
        a = ftz32(a), b = ftz32(b), c = ftz32(c);
        PtxInst plain = *in;
        plain.mods &= ~PTX_M_FTZ;
        return ftz32(alu(&plain, a, b, c, e));
    }
    if (t == PTX_T_F16 && (in->mods & PTX_M_FTZ)) {      /* the same for halves */
        a = ftz16(a), b = ftz16(b), c = ftz16(c);
        PtxInst plain = *in;
        plain.mods &= ~PTX_M_FTZ;
        return ftz16(alu(&plain, a, b, c, e));
    }
    if (t == PTX_T_F32 && !(in->mods & PTX_M_SAT)) {     /* the common case, in single precision */
        float x = f32_of(a), y = f32_of(b);
        switch ((PtxOp)in->op) {
        case PTX_OP_ADD: return bits_f32(x + y);
        case PTX_OP_SUB: return bits_f32(x - y);
        case PTX_OP_MUL: return bits_f32(x * y);
        case PTX_OP_MAD:
        case PTX_OP_FMA: return bits_f32(fmaf(x, y, f32_of(c)));
        case PTX_OP_MIN:
        case PTX_OP_MAX:
            if ((in->mods & PTX_M_NAN) && (isnan(x) || isnan(y)))
                return 0x7fffffffu;         /* min.NaN/max.NaN: the canonical NaN */
            return bits_f32(in->op == PTX_OP_MIN ? fminf(x, y) : fmaxf(x, y));
        default: break;
        }
    }
    if ((t == PTX_T_F16 || t == PTX_T_BF16) && (in->op == PTX_OP_MIN || in->op == PTX_OP_MAX)) {
        /* cuda_fp16/cuda_bf16's __hmin/__hmax: +0 above -0; a NaN gives the other value, two
         * NaNs (or one, with .NaN) the canonical NaN 0x7fff; else the input itself */
        double x = fval(a, t), y = fval(b, t);
        bool na = isnan(x), nb = isnan(y), mn = in->op == PTX_OP_MIN;
        if ((na && nb) || ((na || nb) && (in->mods & PTX_M_NAN)))
            return 0x7fff;
        if (na || nb)
            return (na ? b : a) & 0xffff;
        if (x == y)                 /* equal, or zeros of two signs: the negative one for min */
            return ((a >> 15 & 1) == mn ? a : b) & 0xffff;
        return ((mn ? x < y : x > y) ? a : b) & 0xffff;
    }
    if ((in->mods & PTX_M_RELU) && (t == PTX_T_F16 || t == PTX_T_BF16)) {
        PtxInst plain = *in;        /* fma.rn.relu: a NaN gives the canonical NaN, below 0 gives 0 */
        plain.mods &= ~PTX_M_RELU;
        uint64_t r = alu(&plain, a, b, c, e);
        return isnan(fval(r, t)) ? 0x7fff : (r & 0x8000) ? 0 : r;
    }
    if (t == PTX_T_BF16 && (in->op == PTX_OP_FMA || in->op == PTX_OP_MAD))
        return bf16_fma(fval(a, t), fval(b, t), fval(c, t));
    if (is_float(t)) {
        double x = fval(a, t), y = fval(b, t), z = fval(c, t), d = 0;
        bool f32 = t == PTX_T_F32;
        switch ((PtxOp)in->op) {
        case PTX_OP_ADD: d = f32 ? (double)(f32_of(a) + f32_of(b)) : x + y; break;
        case PTX_OP_SUB: d = f32 ? (double)(f32_of(a) - f32_of(b)) : x - y; break;
        case PTX_OP_MUL: d = f32 ? (double)(f32_of(a) * f32_of(b)) : x * y; break;
        case PTX_OP_MAD:
        case PTX_OP_FMA: d = f32 ? (double)fmaf(f32_of(a), f32_of(b), f32_of(c)) : fma(x, y, z); break;
        case PTX_OP_DIV: d = f32 ? (double)(f32_of(a) / f32_of(b)) : x / y; break;
        case PTX_OP_ABS: d = fabs(x); break;
        case PTX_OP_NEG: d = -x; break;
        case PTX_OP_MIN: d = f32 ? (double)fminf(f32_of(a), f32_of(b)) : fmin(x, y); break;
        case PTX_OP_MAX: d = f32 ? (double)fmaxf(f32_of(a), f32_of(b)) : fmax(x, y); break;
        case PTX_OP_EX2: d = f32 ? (double)exp2f(f32_of(a)) : exp2(x); break;
        case PTX_OP_LG2: d = f32 ? (double)log2f(f32_of(a)) : log2(x); break;
        case PTX_OP_RCP: d = f32 ? (double)(1.0f / f32_of(a)) : 1.0 / x; break;
        case PTX_OP_SQRT: d = f32 ? (double)sqrtf(f32_of(a)) : sqrt(x); break;
        case PTX_OP_RSQRT: d = f32 ? (double)(1.0f / sqrtf(f32_of(a))) : 1.0 / sqrt(x); break;
        case PTX_OP_SIN: d = f32 ? (double)sinf(f32_of(a)) : sin(x); break;
        case PTX_OP_COS: d = f32 ? (double)cosf(f32_of(a)) : cos(x); break;
        default: break;
        }
        if (in->mods & PTX_M_SAT)
            d = isnan(d) ? 0 : d < 0 ? 0 : d > 1 ? 1 : d;
        return fbits(d, t);
    }
    bool sg = is_signed(t);
    uint64_t ua = trunc_to(a, bits), ub = trunc_to(b, bits);
    int64_t sa = sext(a, bits), sb = sext(b, bits);
    switch ((PtxOp)in->op) {
    case PTX_OP_ADD:
        if ((in->mods & PTX_M_SAT) && t == PTX_T_S32) {
            int64_t s = sa + sb;
            return trunc_to((uint64_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s), 32);
        }
        return a + b;
    case PTX_OP_SUB:
        if ((in->mods & PTX_M_SAT) && t == PTX_T_S32) {
            int64_t d = sa - sb;
            return trunc_to((uint64_t)(d > INT32_MAX ? INT32_MAX : d < INT32_MIN ? INT32_MIN : d), 32);
        }
        return a - b;
    case PTX_OP_MUL:
    case PTX_OP_MAD: {
        uint64_t addend = in->op == PTX_OP_MAD ? c : 0;
        if (in->mods & PTX_M_WIDE) {
            uint64_t p = sg ? (uint64_t)(sa * sb) : ua * ub;
            return p + addend;
        }
        if (in->mods & PTX_M_HI) {
            if (bits == 64) {
                __int128 p = sg ? (__int128)sa * sb : (__int128)((unsigned __int128)ua * ub);
                return (uint64_t)((unsigned __int128)p >> 64) + addend;
            }
            uint64_t p = sg ? (uint64_t)(sa * sb) : ua * ub;
            if ((in->mods & PTX_M_SAT) && t == PTX_T_S32) {    /* mad.hi.sat.s32 */
                int64_t d = (sa * sb >> 32) + sext(addend, 32);
                return trunc_to((uint64_t)(d > INT32_MAX ? INT32_MAX : d < INT32_MIN ? INT32_MIN : d), 32);
            }
            return (p >> bits) + addend;
        }
        return a * b + addend;
    }
    case PTX_OP_DIV:
        if (ub == 0)
            return sg ? (sa < 0 ? 1 : UINT64_MAX) : UINT64_MAX;
        if (sg)
            return (sa == INT64_MIN && sb == -1) ? (uint64_t)sa : (uint64_t)(sa / sb);
        return ua / ub;
    case PTX_OP_REM:
        if (ub == 0)
            return a;
        if (sg)
            return (sa == INT64_MIN && sb == -1) ? 0 : (uint64_t)(sa % sb);
        return ua % ub;
    case PTX_OP_ABS:
        return sa < 0 ? 0 - (uint64_t)sa : (uint64_t)sa;      /* abs(INT64_MIN) = INT64_MIN */
    case PTX_OP_NEG:
        return 0 - a;
    case PTX_OP_MIN:
        return sg ? (uint64_t)(sa < sb ? sa : sb) : (ua < ub ? ua : ub);
    case PTX_OP_MAX:
        return sg ? (uint64_t)(sa > sb ? sa : sb) : (ua > ub ? ua : ub);
    case PTX_OP_AND:
        return a & b;
    case PTX_OP_OR:
        return a | b;
    case PTX_OP_XOR:
        return a ^ b;
    case PTX_OP_NOT:
        return t == PTX_T_PRED ? !a : ~a;
    case PTX_OP_SHL: {
        uint64_t s = trunc_to(b, 32);
        return s >= bits ? 0 : a << s;
    }
    case PTX_OP_SHR: {
        uint64_t s = trunc_to(b, 32);
        if (sg)
            return (uint64_t)(s >= bits ? (sa < 0 ? -1 : 0) : sa >> s);
        return s >= bits ? 0 : ua >> s;
    }
    case PTX_OP_POPC:
        return (uint64_t)__builtin_popcountll(ua);
    case PTX_OP_CLZ:
        return ua == 0 ? bits : (uint64_t)__builtin_clzll(ua) - (64 - bits);
    case PTX_OP_BREV: {
        uint64_t x = 0;
        for (uint32_t i = 0; i < bits; i++)
            x |= ((ua >> i) & 1) << (bits - 1 - i);
        return x;
    }
    case PTX_OP_BFE: {
        /* bit i of d is a[pos + i] for i < len and pos + i <= msb, else the sign bit
         * a[min(pos + len - 1, msb)] (0 for unsigned types and len 0): the ISA's pseudocode */
        uint32_t pos = (uint32_t)(b & 0xff), len = (uint32_t)(c & 0xff);
        uint32_t have = pos >= bits ? 0 : MIN(len, bits - pos);
        uint64_t f = have ? (ua >> pos) & (have >= 64 ? UINT64_MAX : (1ull << have) - 1) : 0;
        if (sg && len > 0 && (ua >> MIN(pos + len - 1, bits - 1) & 1) && have < 64)
            f |= ~0ull << have;
        return f;
    }
    case PTX_OP_SAD:                        /* |a - b| + c */
        return (sg ? (sa < sb ? (uint64_t)sb - (uint64_t)sa : (uint64_t)sa - (uint64_t)sb)
                   : (ua < ub ? ub - ua : ua - ub)) + c;
    case PTX_OP_DP4A: {
        /* c + the four products of a's and b's bytes, each byte signed by its operand's type */
        bool as = t == PTX_T_S32, bs = (PtxType)in->type2 == PTX_T_S32;
        uint32_t d = (uint32_t)c;
        for (uint32_t i = 0; i < 4; i++) {
            uint32_t x = (uint32_t)a >> (8 * i) & 0xff, y = (uint32_t)b >> (8 * i) & 0xff;
            int32_t xs = as ? (int8_t)x : (int32_t)x, ys = bs ? (int8_t)y : (int32_t)y;
            d += (uint32_t)(xs * ys);
        }
        return d;
    }
    case PTX_OP_DP2A: {
        /* c + a's two 16-bit halves times two of b's bytes (.lo: bytes 0 and 1, .hi: 2 and 3),
         * each signed by its operand's type (PTX ISA, dp2a) */
        bool as = t == PTX_T_S32, bs = (PtxType)in->type2 == PTX_T_S32;
        uint32_t d = (uint32_t)c, first = (in->mods & PTX_M_HI) ? 2 : 0;
        for (uint32_t i = 0; i < 2; i++) {
            uint32_t x = (uint32_t)a >> (16 * i) & 0xffff, y = (uint32_t)b >> (8 * (first + i)) & 0xff;
            int32_t xs = as ? (int16_t)x : (int32_t)x, ys = bs ? (int8_t)y : (int32_t)y;
            d += (uint32_t)(xs * ys);
        }
        return d;
    }
    case PTX_OP_VABSDIFF: {
        /* lanes of 8 bits (vabsdiff4) or 16 (vabsdiff2): |a_i - b_i|, each lane signed by its
         * operand's type; d's lanes are those (clamped to the range of d's lane type with .sat,
         * else cut to the lane), or with .add: c plus the sum of the lanes (PTX ISA, "SIMD
         * video instructions": the default mask, every lane, and lane selectors) */
        uint32_t w = 32u / in->sub, m = (1u << w) - 1;
        bool as = (PtxType)in->type2 == PTX_T_S32,
             bs = (PtxType)in->wtype == PTX_T_S32, ds = t == PTX_T_S32;
        uint32_t d = 0;
        int64_t sum = 0;
        for (uint32_t i = 0; i < in->sub; i++) {
            int64_t x = (int64_t)((uint32_t)a >> (w * i) & m), y = (int64_t)((uint32_t)b >> (w * i) & m);
            if (as && x >> (w - 1))
                x -= (int64_t)1 << w;
            if (bs && y >> (w - 1))
                y -= (int64_t)1 << w;
            int64_t r = x > y ? x - y : y - x;
            sum += r;
            if (in->mods & PTX_M_SAT) {
                int64_t hi = ds ? ((int64_t)1 << (w - 1)) - 1 : (int64_t)m;
                r = r > hi ? hi : r;            /* never below 0 */
            }
            d |= ((uint32_t)r & m) << (w * i);
        }
        return (in->mods & PTX_M_VACC) ? (uint32_t)((uint32_t)c + (uint32_t)sum) : d;
    }
    case PTX_OP_BFIND: {
        /* the most significant 1 (unsigned) or bit unlike the sign (signed), 0xffffffff when
         * none; .shiftamt: how far left it is from the msb */
        uint64_t x = sg && (ua >> (bits - 1) & 1) ? ~ua & (bits >= 64 ? UINT64_MAX : (1ull << bits) - 1)
                                                  : ua;
        if (x == 0)
            return 0xffffffffu;
        uint32_t pos = 63u - (uint32_t)__builtin_clzll(x);
        return (in->mods & PTX_M_SHIFTAMT) ? bits - 1 - pos : pos;
    }
    case PTX_OP_BFI: {
        /* bfi f, a, b, c, d: b with bits [pos, pos + len) from a's low bits, pos = c[7:0],
         * len = d[7:0], none past the msb */
        uint32_t pos = (uint32_t)(c & 0xff), len = (uint32_t)(e & 0xff);
        uint32_t have = pos >= bits ? 0 : MIN(len, bits - pos);
        if (have == 0)
            return b;
        uint64_t m = (have >= 64 ? UINT64_MAX : (1ull << have) - 1) << pos;
        return (b & ~m) | ((a << pos) & m);
    }
    case PTX_OP_PRMT:
        return prmt(in->sub, (uint32_t)a, (uint32_t)b, (uint32_t)c);
    case PTX_OP_LOP3: {
        /* bit i of d is bit (a_i b_i c_i) of the table: F(0xF0, 0xCC, 0xAA) = the table */
        uint32_t d = 0;
        for (uint32_t i = 0; i < 32; i++) {
            uint32_t k = (uint32_t)((a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1));
            d |= (uint32_t)(e >> k & 1) << i;
        }
        return d;
    }
    case PTX_OP_SHF: {
        /* funnel shift of {b, a} (b high) by n: .wrap n = c & 31, .clamp n = min(c, 32); shf.l
         * keeps the high 32 bits, shf.r the low 32 */
        uint64_t ab = (uint64_t)(uint32_t)b << 32 | (uint32_t)a;
        uint32_t n = (in->sub & PTX_SHF_CLAMP) ? (uint32_t)MIN((uint32_t)c, 32u) : (uint32_t)c & 31;
        return (in->sub & PTX_SHF_R) ? (uint32_t)(ab >> n) : (uint32_t)((ab << n) >> 32);
    }
    default:
        return 0;
    }
}

/* Carry arithmetic of one lane (PTX ISA 9.7.2): add and mad.lo/.hi add their c and, for addc
 * and madc, the flag *cf; sub subtracts b and, for subc, the flag (a borrow); .cc writes the
 * carry (the borrow for sub) out of the instruction's width to *cf. mad.hi takes the high half
 * of the signed or unsigned product by the type. */
static uint64_t alu_carry(const PtxInst *in, uint64_t a, uint64_t b, uint64_t c, uint8_t *cf)
{
    PtxType t = (PtxType)in->type;
    uint32_t bits = tbits(t);
    unsigned __int128 m = bits >= 64 ? ((unsigned __int128)1 << 64) - 1 : (1ull << bits) - 1;
    unsigned __int128 ua = a & m, ub = b & m, uc = c & m, cin = (in->mods & PTX_M_CIN) ? *cf : 0;
    unsigned __int128 r;
    bool out;
    if (in->op == PTX_OP_SUB) {
        r = (ua - ub - cin) & m;
        out = ua < ub + cin;
    } else {
        unsigned __int128 x = ua;
        if (in->op == PTX_OP_MAD) {
            if (in->mods & PTX_M_HI) {
                if (is_signed(t)) {
                    __int128 sp = (__int128)sext(a, bits) * (__int128)sext(b, bits);
                    x = ((unsigned __int128)sp >> bits) & m;
                } else {
                    x = ((ua * ub) >> bits) & m;
                }
            } else {
                x = (ua * ub) & m;
            }
            ub = uc;
        }
        unsigned __int128 sum = x + ub + cin;
        r = sum & m;
        out = sum > m;
    }
    if (in->mods & PTX_M_CC)
        *cf = out;
    return (uint64_t)r;
}

/* .rz, .rm, .rp (the parser allows them on f32/f64 IEEE operations and conversions to f32/f64):
 * the host's floating point computes in that rounding mode for one lane. The operands are read
 * and the result written through volatile objects between the two fesetround calls, so the
 * compiler cannot move the arithmetic out of the window (C11 7.6; GCC does not honour FENV_ACCESS). */
static int rounding_of(const PtxInst *in)
{
    return (in->mods & PTX_M_RZ) ? FE_TOWARDZERO : (in->mods & PTX_M_RM) ? FE_DOWNWARD
         : (in->mods & PTX_M_RP) ? FE_UPWARD : FE_TONEAREST;
}
static G_GNUC_NO_INLINE uint64_t alu_rounded(const PtxInst *in, uint64_t a, uint64_t b, uint64_t c,
                                             uint64_t e)
{
    volatile uint64_t va = a, vb = b, vc = c, ve = e, vr;
    fesetround(rounding_of(in));
    vr = alu(in, va, vb, vc, ve);
    fesetround(FE_TONEAREST);
    return vr;
}
static G_GNUC_NO_INLINE uint64_t cvt_rounded(const PtxInst *in, uint64_t v)
{
    volatile uint64_t vv = v, vr;
    fesetround(rounding_of(in));
    vr = do_cvt(in, vv);
    fesetround(FE_TONEAREST);
    return vr;
}

static uint64_t atom_apply(PtxAtomOp op, PtxType t, uint64_t old, uint64_t b, uint64_t c,
                           bool *write)
{
    *write = true;
    uint32_t bits = tbits(t);
    if (t == PTX_T_F16X2 || t == PTX_T_BF16X2) {        /* add: each half on its own */
        PtxType h = t == PTX_T_F16X2 ? PTX_T_F16 : PTX_T_BF16;
        return fbits(fval(old & 0xffff, h) + fval(b & 0xffff, h), h) |
               fbits(fval(old >> 16 & 0xffff, h) + fval(b >> 16 & 0xffff, h), h) << 16;
    }
    if (is_float(t)) {
        double x = fval(old, t), y = fval(b, t);
        switch (op) {
        case PTX_ATOM_ADD: return t == PTX_T_F32 ? bits_f32(f32_of(old) + f32_of(b)) : fbits(x + y, t);
        case PTX_ATOM_MIN: return fbits(fmin(x, y), t);
        case PTX_ATOM_MAX: return fbits(fmax(x, y), t);
        case PTX_ATOM_EXCH: return b;
        default: break;
        }
    }
    bool sg = is_signed(t);
    uint64_t uo = trunc_to(old, bits), ub = trunc_to(b, bits);
    switch (op) {
    case PTX_ATOM_ADD: return old + b;
    case PTX_ATOM_MIN: return sg ? (uint64_t)MIN(sext(old, bits), sext(b, bits)) : MIN(uo, ub);
    case PTX_ATOM_MAX: return sg ? (uint64_t)MAX(sext(old, bits), sext(b, bits)) : MAX(uo, ub);
    case PTX_ATOM_INC: return uo >= ub ? 0 : uo + 1;
    case PTX_ATOM_DEC: return (uo == 0 || uo > ub) ? ub : uo - 1;
    case PTX_ATOM_CAS:
        *write = uo == ub;
        return c;
    case PTX_ATOM_EXCH: return b;
    case PTX_ATOM_AND: return old & b;
    case PTX_ATOM_OR: return old | b;
    case PTX_ATOM_XOR: return old ^ b;
    default: return old;
    }
}

/* the address of operand a (an ADDR) for thread tid */
static inline uint64_t addr_of(PtxRun *r, const PtxArg *a, uint32_t tid)
{
    uint64_t base = a->reg >= 0 ? REG(r, a->reg, tid) : a->sym >= 0 ? r->sym_addr[a->sym] : 0;
    return base + (uint64_t)a->imm;
}

/* Memory instructions: ld, st, atom, red for the lanes of exec; their addresses recorded. */
static bool exec_mem(PtxRun *r, PWarp *w, const PtxInst *in, SassInst *si, uint32_t exec,
                     uint32_t base_tid)
{
    PtxType t = (PtxType)in->type;
    uint32_t size = ptx_type_bytes(t), vec = in->vec;
    if (t == PTX_T_PRED)
        size = 1;
    const PtxArg *addr = &in->a[in->op == PTX_OP_LD || in->op == PTX_OP_ATOM ? 1 : 0];
    const PtxArg *data = in->op == PTX_OP_LD ? &in->a[0] : in->op == PTX_OP_ATOM ? &in->a[0]
                                                                                : &in->a[1];
    si->width = (uint8_t)MIN(size * vec, 255u);
    si->addr = (uint32_t)w->addrs->len;
    PtxSpace resolved = (PtxSpace)in->space;
    g_array_set_size(w->addrs, w->addrs->len + (guint)__builtin_popcount(exec));
    uint64_t *out = &g_array_index(w->addrs, uint64_t, si->addr);
    for (uint32_t lanes = exec; lanes; lanes &= lanes - 1) {
        uint32_t tid = base_tid + (uint32_t)__builtin_ctz(lanes);
        uint64_t a = addr_of(r, addr, tid), ta;
        PtxSpace rs;
        uint8_t *p = mem_at(r, in, (PtxSpace)in->space, a, size * vec, tid, &rs, &ta);
        if (!p)
            return false;
        resolved = rs;
        *out++ = ta;
        switch ((PtxOp)in->op) {
        case PTX_OP_LD:
            if (vec == 1)
                set(r, data->reg, tid, load_bytes(p, size), t);
            else
                for (uint32_t j = 0; j < vec; j++)
                    set(r, data->vec[j], tid, load_bytes(p + j * size, size), t);
            break;
        case PTX_OP_ST:
            if (vec == 1)
                store_bytes(p, val(r, data, tid), size);
            else
                for (uint32_t j = 0; j < vec; j++)
                    if (data->vec[j] >= 0)
                        store_bytes(p + j * size, REG(r, data->vec[j], tid), size);
            break;
        default: {          /* atom, red */
            uint64_t old = load_bytes(p, size), b = val(r, &in->a[in->op == PTX_OP_ATOM ? 2 : 1], tid);
            uint64_t c = in->op == PTX_OP_ATOM && in->nargs > 3 ? val(r, &in->a[3], tid) : 0;
            bool write;
            uint64_t nv = atom_apply((PtxAtomOp)in->sub, t, old, b, c, &write);
            if (write)
                store_bytes(p, nv, size);
            if (in->op == PTX_OP_ATOM)
                set(r, data->reg, tid, old, t);
            break;
        }
        }
    }
    SassSpace ss = resolved == PTX_SPACE_SHARED ? SASS_SPACE_SHARED
                 : resolved == PTX_SPACE_LOCAL ? SASS_SPACE_LOCAL
                 : resolved == PTX_SPACE_PARAM || resolved == PTX_SPACE_CONST ? SASS_SPACE_CONST
                                                                               : SASS_SPACE_GLOBAL;
    si->space = (uint8_t)ss;
    return true;
}

/* ---- wmma (PTX ISA 9.7.14.4) ---- */

/* How a fragment holds its matrix. The ISA leaves the distribution of elements over the lanes
 * unspecified (a program may only load, store, multiply and change every element alike), so
 * archsim chooses one: lane l holds elements l*u .. l*u+u-1 (u = the matrix's elements / 32)
 * of the matrix read in the order of the fragment's layout (row by row for .row, column by
 * column for .col; C and D always row by row, since wmma.mma names no layout for them). A
 * lane's share is then one run of memory for A and B (and C and D stored .row), as a hardware
 * load of 16 bytes a lane reads it. Slot s of a fragment (s / 2 its register, s % 2 the half,
 * for 16-bit elements) holds element s % u: the .f16 A and B fragments' 16 slots hold a share
 * of 8 or 4 elements two or four times, as the ISA's eight registers must. */
static inline void wmma_pos(uint8_t mat, uint8_t shape, bool col, uint32_t lane, uint32_t j,
                            uint32_t *row, uint32_t *column)
{
    uint32_t rows = ptx_wmma_rows(mat, shape), cols = ptx_wmma_cols(mat, shape);
    uint32_t e = lane * (rows * cols / 32) + j;
    if (col && mat <= PTX_WMMA_B) {
        *row = e % rows;
        *column = e / rows;
    } else {
        *row = e / cols;
        *column = e % cols;
    }
}
static inline uint64_t frag_get(PtxRun *r, const PtxArg *a, uint32_t tid, uint32_t s, PtxType et)
{
    if (et == PTX_T_F32)
        return REG(r, a->vec[s], tid) & 0xffffffffu;
    return REG(r, a->vec[s / 2], tid) >> (16 * (s % 2)) & 0xffffu;
}
static inline void frag_put(PtxRun *r, const PtxArg *a, uint32_t tid, uint32_t s, PtxType et,
                            uint64_t v)
{
    if (et == PTX_T_F32) {
        set(r, a->vec[s], tid, v, PTX_T_B32);
        return;
    }
    if (a->vec[s / 2] < 0)                      /* '_': a sink */
        return;
    uint64_t old = REG(r, a->vec[s / 2], tid), sh = 16 * (s % 2);
    set(r, a->vec[s / 2], tid, (old & ~(0xffffull << sh)) | (v & 0xffff) << sh, PTX_T_B32);
}

/* The registers of fragment a that record k of n stands for (at most max of them): what the
 * SM's scoreboard waits on. Each record names its part of the fragment, so every register is
 * named once when the records are enough (the first `max` of each part otherwise). */
static void frag_regs(SassInst *si, bool dst, const PtxArg *a, uint32_t k, uint32_t n,
                      uint32_t max)
{
    uint32_t lo = a->n * k / n, hi = a->n * (k + 1) / n;
    for (uint32_t j = lo; j < hi && j - lo < max; j++)
        add_reg(dst ? si->dst : si->src, dst ? &si->ndst : &si->nsrc,
                dst ? SASS_MAX_DST : SASS_MAX_SRC, a->vec[j]);
}

/* The registers of a loaded or stored fragment that hold elements [lo, hi) of a lane's share
 * of u (slot s holds element s % u; 16-bit elements two to a register): what record k of a
 * wmma.load or wmma.store names, each register once. */
static void piece_regs(SassInst *si, bool dst, const PtxArg *a, PtxType et, uint32_t u,
                       uint32_t lo, uint32_t hi)
{
    uint32_t slots = et == PTX_T_F32 ? a->n : 2 * a->n;
    int32_t last = -2;
    for (uint32_t s = 0; s < slots; s++) {
        int32_t reg = a->vec[et == PTX_T_F32 ? s : s / 2];
        if (s % u < lo || s % u >= hi || reg == last)
            continue;
        add_reg(dst ? si->dst : si->src, dst ? &si->ndst : &si->nsrc,
                dst ? SASS_MAX_DST : SASS_MAX_SRC, reg);
        last = reg;
    }
}

/* Appends record k > 0 of instruction pc (record 0 is the one run_warp made): a copy of it with
 * no registers, which the caller names. */
static SassInst *record_more(PtxRun *r, PWarp *w, uint32_t pc, uint32_t exec)
{
    SassInst *si = record(r, w, pc, exec);
    si->ndst = si->nsrc = 0;
    return si;
}

/* wmma.load, wmma.store and wmma.mma for the warp (every lane runs it: PTX's .sync.aligned).
 * The multiply-accumulate is computed exactly (in double: a product of two halves or bfloat16s
 * is exact, the sum of 16 of them and C nearly always) and rounded once to D's type; tensor
 * cores add in a way NVIDIA does not document (Fasi, Higham, Mikaitis and Pranesh, "Numerical
 * behavior of NVIDIA tensor cores", PeerJ Computer Science 7:e330, 2021, measured truncation
 * in their sums), so D may differ from the hardware's in its last bits. Records for the SM:
 * a load or store one per 16 bytes that a lane moves from one run of memory (one a lane, per
 * element, when its share is not one run), each at its lanes' addresses; wmma.mma two tensor
 * instructions, as sm_80's SASS runs a 16x16x16 product as two HMMA.16816. */
/* A warp-wide matrix instruction (wmma, mma, ldmatrix) needs every lane (.sync.aligned: CUDA
 * leaves fewer undefined); false with the error set. */
static bool whole_warp(PtxRun *r, const PtxInst *in, uint32_t exec, uint32_t base)
{
    if (exec == 0xffffffffu)
        return true;
    rerr(r, in, base + (exec ? (uint32_t)__builtin_ctz(exec) : 0), "%s runs on the whole warp: "
         "all 32 lanes, converged (lanes 0x%08x run it)", ptx_op_is_wmma(in->op) ? "wmma"
         : ptx_op_name((PtxOp)in->op), exec);
    return false;
}

static bool exec_wmma(PtxRun *r, PWarp *w, uint32_t pc, const PtxInst *in, uint32_t exec,
                      uint32_t base)
{
    if (!whole_warp(r, in, exec, base))
        return false;
    guint first = w->insts->len - 1;            /* run_warp's record of it */
    if (in->op == PTX_OP_WMMA_MMA) {
        uint32_t M, N, K;
        ptx_wmma_dims(in->wshape, &M, &N, &K);
        double A[32 * 16], B[16 * 32], C[32 * 32];
        PtxType at = (PtxType)in->wtype, ct = (PtxType)in->type2, dt = (PtxType)in->type;
        const PtxArg *fd = &in->a[0], *fa = &in->a[1], *fb = &in->a[2], *fc = &in->a[3];
        for (uint32_t lane = 0; lane < 32; lane++) {
            uint32_t tid = base + lane, row, col;
            for (uint32_t j = 0; j < M * K / 32; j++) {
                wmma_pos(PTX_WMMA_A, in->wshape, in->wlayout & 1, lane, j, &row, &col);
                A[row * K + col] = fval(frag_get(r, fa, tid, j, at), at);
            }
            for (uint32_t j = 0; j < K * N / 32; j++) {
                wmma_pos(PTX_WMMA_B, in->wshape, in->wlayout >> 1 & 1, lane, j, &row, &col);
                B[row * N + col] = fval(frag_get(r, fb, tid, j, at), at);
            }
            for (uint32_t j = 0; j < 8; j++) {
                wmma_pos(PTX_WMMA_C, in->wshape, false, lane, j, &row, &col);
                C[row * N + col] = fval(frag_get(r, fc, tid, j, ct), ct);
            }
        }
        for (uint32_t lane = 0; lane < 32; lane++)
            for (uint32_t j = 0; j < 8; j++) {
                uint32_t row, col;
                wmma_pos(PTX_WMMA_D, in->wshape, false, lane, j, &row, &col);
                double sum = C[row * N + col];
                for (uint32_t k = 0; k < K; k++)
                    sum += A[row * K + k] * B[k * N + col];
                frag_put(r, fd, base + lane, j, dt, fbits(sum, dt));
            }
        for (uint32_t k = 0; k < 2; k++) {
            SassInst *si = k == 0 ? &g_array_index(w->insts, SassInst, first)
                                  : record_more(r, w, pc, exec);
            si->ndst = si->nsrc = 0;
            frag_regs(si, true, fd, k, 2, SASS_MAX_DST);
            add_reg(si->src, &si->nsrc, SASS_MAX_SRC, fa->vec[0]);
            add_reg(si->src, &si->nsrc, SASS_MAX_SRC, fb->vec[0]);
            frag_regs(si, false, fc, k, 2, 4);
            add_reg(si->src, &si->nsrc, SASS_MAX_SRC, fa->vec[fa->n - 1]);
            add_reg(si->src, &si->nsrc, SASS_MAX_SRC, fb->vec[fb->n - 1]);
            add_reg(si->src, &si->nsrc, SASS_MAX_SRC, in->guard);
        }
        return true;
    }
    bool ld = in->op == PTX_OP_WMMA_LD, col = in->wlayout & 1;
    uint8_t mat = in->sub;
    PtxType et = (PtxType)in->type;
    const PtxArg *frag = &in->a[ld ? 0 : 1], *addr = &in->a[ld ? 1 : 0];
    uint32_t rows = ptx_wmma_rows(mat, in->wshape), cols = ptx_wmma_cols(mat, in->wshape);
    uint32_t u = rows * cols / 32, esize = et == PTX_T_F32 ? 4 : 2;
    uint32_t slots = et == PTX_T_F32 ? frag->n : 2 * frag->n;
    /* one matrix for the warp: its address and stride (in elements; by default the leading
     * dimension: a row's length for .row, a column's for .col) the same in every lane */
    uint64_t a0 = addr_of(r, addr, base);
    uint64_t s0 = in->nargs > 2 ? (uint32_t)val(r, &in->a[2], base) : col ? rows : cols;
    for (uint32_t lane = 1; lane < 32; lane++) {
        uint64_t al = addr_of(r, addr, base + lane);
        uint64_t sl = in->nargs > 2 ? (uint32_t)val(r, &in->a[2], base + lane) : s0;
        if (al != a0 || sl != s0) {
            rerr(r, in, base + lane, "wmma: every lane gives the same address and stride (lane 0: "
                 "0x%" G_GINT64_MODIFIER "x, %" G_GUINT64_FORMAT "; lane %u: 0x%"
                 G_GINT64_MODIFIER "x, %" G_GUINT64_FORMAT ")", a0, s0, lane, al, sl);
            return false;
        }
    }
    /* CUDA's rule (the programming guide, load_matrix_sync): a 256-bit aligned pointer, and a
     * stride of a multiple of 16 bytes */
    if (a0 % 32 || (s0 * esize) % 16) {
        rerr(r, in, base, "wmma: the matrix at 0x%" G_GINT64_MODIFIER "x with a stride of %"
             G_GUINT64_FORMAT " elements: the address must be a multiple of 32 bytes and the "
             "stride of 16 bytes (%u elements)", a0, s0, 16 / esize);
        return false;
    }
    bool run = mat <= PTX_WMMA_B || !col;       /* a lane's share is one run of memory */
    uint32_t per = run ? MIN(u, 16 / esize) : 1;
    /* a piece's registers (the scoreboard's entries of a record: at most SASS_MAX_DST; an .f16
     * A or B holds each element two or four times) */
    while (per > 1 && per * (slots / u) / (et == PTX_T_F32 ? 1 : 2) > SASS_MAX_DST)
        per /= 2;
    uint32_t pieces = u / per;
    uint64_t ta[32][16];                        /* each lane's elements, as the SM sees them */
    PtxSpace resolved = (PtxSpace)in->space;
    for (uint32_t lane = 0; lane < 32; lane++) {
        uint32_t tid = base + lane;
        for (uint32_t j = 0; j < u; j++) {
            uint32_t row, column;
            wmma_pos(mat, in->wshape, col, lane, j, &row, &column);
            uint64_t off = col ? (uint64_t)column * s0 + row : (uint64_t)row * s0 + column;
            PtxSpace rs;
            uint8_t *p = mem_at(r, in, (PtxSpace)in->space, a0 + off * esize, esize, tid, &rs,
                                &ta[lane][j]);
            if (!p)
                return false;
            resolved = rs;
            if (ld) {
                uint64_t v = load_bytes(p, esize);
                for (uint32_t s = j; s < slots; s += u)
                    frag_put(r, frag, tid, s, et, v);
            } else {
                store_bytes(p, frag_get(r, frag, tid, j, et), esize);
            }
        }
    }
    SassSpace ss = resolved == PTX_SPACE_SHARED ? SASS_SPACE_SHARED
                 : resolved == PTX_SPACE_LOCAL ? SASS_SPACE_LOCAL : SASS_SPACE_GLOBAL;
    for (uint32_t k = 0; k < pieces; k++) {
        SassInst *si = k == 0 ? &g_array_index(w->insts, SassInst, first)
                              : record_more(r, w, pc, exec);
        si->ndst = si->nsrc = 0;
        add_reg(si->src, &si->nsrc, SASS_MAX_SRC, addr->reg);
        if (in->nargs > 2 && in->a[2].kind == PTX_A_REG)
            add_reg(si->src, &si->nsrc, SASS_MAX_SRC, in->a[2].reg);
        add_reg(si->src, &si->nsrc, SASS_MAX_SRC, in->guard);
        piece_regs(si, ld, frag, et, u, k * per, (k + 1) * per);
        si->width = (uint8_t)(per * esize);
        si->space = (uint8_t)ss;
        si->addr = (uint32_t)w->addrs->len;
        for (uint32_t lane = 0; lane < 32; lane++)
            g_array_append_val(w->addrs, ta[lane][k * per]);
    }
    return true;
}

/* cp.async for the lanes of exec (PTX ISA 9.7.9.25): each copies cp-size bytes, the first
 * src-size of them from global memory and zeros after (all zeros under a true ignore-src), at
 * once: reading the destination before the wait is a race, so any time up to the wait is a
 * correct one. The SM sees a global load of cp-size bytes a lane with no register to write
 * (LDGSTS), in flight until its lines are back, counted in the warp's open group. */
static bool exec_cp_async(PtxRun *r, PWarp *w, const PtxInst *in, SassInst *si, uint32_t exec,
                          uint32_t base)
{
    uint32_t size = in->sub;
    /* .L2::cache_hint: the last operand is the cache policy (ignored) */
    bool hint = strstr(g_ptr_array_index(r->l.m->texts, in->text), ".L2::cache_hint") != NULL;
    const PtxArg *extra = in->nargs > 3 + (hint ? 1u : 0u) ? &in->a[3] : NULL;
    si->width = (uint8_t)size;
    si->space = SASS_SPACE_GLOBAL;
    si->addr = (uint32_t)w->addrs->len;
    g_array_set_size(w->addrs, w->addrs->len + (guint)__builtin_popcount(exec));
    uint64_t *out = &g_array_index(w->addrs, uint64_t, si->addr);
    for (uint32_t lanes = exec; lanes; lanes &= lanes - 1) {
        uint32_t tid = base + (uint32_t)__builtin_ctz(lanes);
        uint64_t dst = addr_of(r, &in->a[0], tid), src = addr_of(r, &in->a[1], tid), ta, sa;
        uint32_t n = size;
        if (extra && extra->kind == PTX_A_REG && r->rpred[extra->reg])
            n = val(r, extra, tid) ? 0 : size;                  /* ignore-src */
        else if (extra)
            n = (uint32_t)MIN(val(r, extra, tid) & 0xffffffffu, (uint64_t)size);
        PtxSpace rs;
        uint8_t *d = mem_at(r, in, PTX_SPACE_SHARED, dst, size, tid, &rs, &ta);
        if (!d)
            return false;
        if (n == 0) {               /* nothing read (the source may be anywhere): zeros */
            memset(d, 0, size);
            *out++ = UINT64_MAX;    /* for now: another lane's address, below */
            continue;
        }
        if (src % size) {
            rerr(r, in, tid, "cp.async: the source 0x%" G_GINT64_MODIFIER "x is not aligned to "
                 "its %u bytes", src, size);
            return false;
        }
        /* the bytes read: the first checked as a 1-byte access (src-size need not be a power
         * of two), the last in the same buffer */
        uint8_t *p = mem_at(r, in, PTX_SPACE_GLOBAL, src, 1, tid, &rs, &sa);
        if (!p)
            return false;
        if (n > 1) {
            uint64_t la;
            uint8_t *q = mem_at(r, in, PTX_SPACE_GLOBAL, src + n - 1, 1, tid, &rs, &la);
            if (!q)
                return false;
            if (q != p + n - 1) {
                rerr(r, in, tid, "cp.async: the %u bytes read at 0x%" G_GINT64_MODIFIER "x cross "
                     "the end of their buffer", n, src);
                return false;
            }
        }
        memmove(d, p, n);
        memset(d + n, 0, size - n);
        *out++ = sa;
    }
    /* a lane that read nothing takes the address of one that did (the same sector: no traffic
     * of its own); when none did, the record is no memory access at all */
    uint64_t *a = &g_array_index(w->addrs, uint64_t, si->addr), some = UINT64_MAX;
    uint32_t na = (uint32_t)__builtin_popcount(exec);
    for (uint32_t i = 0; i < na && some == UINT64_MAX; i++)
        some = a[i];
    if (some == UINT64_MAX) {
        si->width = 0;
        g_array_set_size(w->addrs, si->addr);
        return true;
    }
    for (uint32_t i = 0; i < na; i++)
        if (a[i] == UINT64_MAX)
            a[i] = some;
    return true;
}

/* mma.sync m16n8k16 / m16n8k8 (PTX ISA 9.7.14.5.8, the fragment figures for .f16 and .bf16):
 * with g = lane / 4 and t = lane % 4, A's halves 2p and 2p+1 (register p) are row g + 8 (p & 1),
 * columns 2t, 2t+1 (+ 8 for p >= 2, m16n8k16); B's are rows (k) 2t, 2t+1 (+ 8 for register 1),
 * column g; C's and D's element i is row g + 8 (i / 2), column 2t + i % 2. Computed as wmma.mma
 * is (exact, rounded once); the SM sees one tensor instruction (HMMA.16816 or HMMA.1688). */
static bool exec_mma(PtxRun *r, const PtxInst *in, SassInst *si, uint32_t exec, uint32_t base)
{
    if (!whole_warp(r, in, exec, base))
        return false;
    uint32_t K = in->wshape == PTX_MMA_M16N8K8 ? 8 : 16;
    double A[16 * 16], B[16 * 8], C[16 * 8];
    PtxType at = (PtxType)in->wtype, ct = (PtxType)in->type2, dt = (PtxType)in->type;
    const PtxArg *fd = &in->a[0], *fa = &in->a[1], *fb = &in->a[2], *fc = &in->a[3];
    for (uint32_t lane = 0; lane < 32; lane++) {
        uint32_t tid = base + lane, g = lane / 4, t = lane % 4;
        for (uint32_t i = 0; i < 2 * fa->n; i++) {
            uint32_t pr = i / 2, row = g + 8 * (pr & 1), col = 2 * t + i % 2 + 8 * (pr >> 1);
            A[row * K + col] = fval(frag_get(r, fa, tid, i, at), at);
        }
        for (uint32_t i = 0; i < 2 * fb->n; i++)
            B[(2 * t + i % 2 + 8 * (i / 2)) * 8 + g] = fval(frag_get(r, fb, tid, i, at), at);
        for (uint32_t i = 0; i < 4; i++)
            C[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = fval(frag_get(r, fc, tid, i, ct), ct);
    }
    for (uint32_t lane = 0; lane < 32; lane++)
        for (uint32_t i = 0; i < 4; i++) {
            uint32_t row = lane / 4 + 8 * (i / 2), col = 2 * (lane % 4) + i % 2;
            double sum = C[row * 8 + col];
            for (uint32_t k = 0; k < K; k++)
                sum += A[row * K + k] * B[k * 8 + col];
            frag_put(r, fd, base + lane, i, dt, fbits(sum, dt));
        }
    /* the sources the scoreboard waits on, at most eight: every register of C (an accumulator
     * from the mma before, or loads of its own), then the first and last of A and B (a fragment
     * comes whole from one ldmatrix), then the guard */
    si->nsrc = 0;
    for (uint32_t j = 0; j < fc->n; j++)
        add_reg(si->src, &si->nsrc, SASS_MAX_SRC, fc->vec[j]);
    add_reg(si->src, &si->nsrc, SASS_MAX_SRC, fa->vec[0]);
    add_reg(si->src, &si->nsrc, SASS_MAX_SRC, fa->vec[fa->n - 1]);
    add_reg(si->src, &si->nsrc, SASS_MAX_SRC, fb->vec[0]);
    if (fb->n > 1)
        add_reg(si->src, &si->nsrc, SASS_MAX_SRC, fb->vec[fb->n - 1]);
    add_reg(si->src, &si->nsrc, SASS_MAX_SRC, in->guard);
    return true;
}

/* ldmatrix (PTX ISA 9.7.14.5.15): lanes 8j .. 8j+7 give the addresses of rows 0-7 of matrix j
 * (16 bytes each, 16-byte aligned); lane l receives, in its register j, row l / 4, elements
 * 2 (l % 4) and the next of matrix j (with .trans: column l / 4, rows 2 (l % 4) and the next).
 * The SM sees one shared load of 16 bytes a lane at those row addresses (a lane past the 8 x num
 * that give one reads lane l % (8 x num)'s, which costs nothing more). */
static bool exec_ldmatrix(PtxRun *r, PWarp *w, const PtxInst *in, SassInst *si, uint32_t exec,
                          uint32_t base)
{
    if (!whole_warp(r, in, exec, base))
        return false;
    uint32_t num = in->sub;
    uint16_t M[4][8][8];
    uint64_t ta[32];
    PtxSpace resolved = (PtxSpace)in->space;
    for (uint32_t l = 0; l < 8 * num; l++) {
        uint64_t a = addr_of(r, &in->a[1], base + l);
        PtxSpace rs;
        uint8_t *p = mem_at(r, in, (PtxSpace)in->space, a, 16, base + l, &rs, &ta[l]);
        if (!p)
            return false;
        if (rs != PTX_SPACE_SHARED) {
            rerr(r, in, base + l, "ldmatrix reads shared memory; 0x%" G_GINT64_MODIFIER "x is %s",
                 a, rs == PTX_SPACE_GLOBAL ? "global" : "local");
            return false;
        }
        resolved = rs;
        memcpy(M[l / 8][l % 8], p, 16);
    }
    const PtxArg *d = &in->a[0];
    bool trans = in->mods & PTX_M_TRANS;
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t row = l / 4, c = 2 * (l % 4);
        for (uint32_t j = 0; j < num; j++) {
            uint32_t lo = trans ? M[j][c][row] : M[j][row][c];
            uint32_t hi = trans ? M[j][c + 1][row] : M[j][row][c + 1];
            set(r, d->kind == PTX_A_VEC ? d->vec[j] : d->reg, base + l, lo | hi << 16, PTX_T_B32);
        }
    }
    si->width = 16;
    si->space = resolved == PTX_SPACE_SHARED ? SASS_SPACE_SHARED : SASS_SPACE_GLOBAL;
    si->addr = (uint32_t)w->addrs->len;
    for (uint32_t l = 0; l < 32; l++)
        g_array_append_val(w->addrs, ta[l % (8 * num)]);
    return true;
}

/* ---- CUDA's device runtime: printf and assert ---- */

/* What printf may write in one launch: CUDA's default printf buffer (cudaLimitPrintfFifoSize,
 * 1 MiB); CUDA drops what does not fit, and so does archsim (saying so once). */
#define PTX_PRINTF_LIMIT ((uint64_t)1 << 20)
#define PTX_CSTR_MAX 65536              /* a format or a %s string, with its NUL */

/* The value of a call's .param symbol sym (n bytes) for thread tid. */
static bool param_value(PtxRun *r, const PtxInst *in, uint32_t tid, int32_t sym, uint32_t n,
                        uint64_t *v)
{
    PtxSpace rs;
    uint64_t ta;
    uint8_t *p = mem_at(r, in, PTX_SPACE_LOCAL, r->sym_addr[sym], n, tid, &rs, &ta);
    if (p)
        *v = load_bytes(p, n);
    return p != NULL;
}

/* The NUL-terminated string at generic address a, at most max bytes of it (a %s precision),
 * appended to out; a string with no NUL in its first PTX_CSTR_MAX bytes is an error. */
static bool read_cstr(PtxRun *r, const PtxInst *in, uint32_t tid, uint64_t a, GString *out,
                      uint32_t max)
{
    for (uint32_t i = 0; i < PTX_CSTR_MAX; i++) {
        if (i == max)
            return true;
        PtxSpace rs;
        uint64_t ta;
        const uint8_t *c = mem_at(r, in, PTX_SPACE_GENERIC, a + i, 1, tid, &rs, &ta);
        if (!c)
            return false;
        if (*c == 0)
            return true;
        g_string_append_c(out, (char)*c);
    }
    rerr(r, in, tid, "a string at 0x%" G_GINT64_MODIFIER "x has no NUL in its first %d bytes", a,
         PTX_CSTR_MAX);
    return false;
}

/* printf's next argument of n bytes from the packed list at argp (each aligned to its size, as
 * CUDA's vprintf takes them: ints 4 bytes, longs, pointers and doubles 8; a float promoted to
 * double). */
static bool printf_arg(PtxRun *r, const PtxInst *in, uint32_t tid, uint64_t argp, uint64_t *off,
                       uint32_t n, uint64_t *v)
{
    *off = (*off + n - 1) / n * n;
    PtxSpace rs;
    uint64_t ta;
    const uint8_t *p = mem_at(r, in, PTX_SPACE_GENERIC, argp + *off, n, tid, &rs, &ta);
    if (!p)
        return false;
    *v = load_bytes(p, n);
    *off += n;
    return true;
}

/* CUDA's printf (the CUDA C++ Programming Guide, "Formatted Output"): the format's conversions
 * %[flags][width][.precision][size]type, each formatted by the host's printf from a format
 * archsim writes itself (the flags -+ #0 each once, a width and precision in digits or `*` from
 * the arguments (a negative precision: none), both at most PTX_PRINTF_FIELD; sizes h, hh, l, ll,
 * z, j, t, L); %n writes nothing. As CUDA's, at most 32 arguments are read: the conversions past
 * them are printed as written. *count: the arguments read. */
#define PTX_PRINTF_ARGS 32
#define PTX_PRINTF_FIELD 4096
static bool format_printf(PtxRun *r, const PtxInst *in, uint32_t tid, uint64_t fmt, uint64_t argp,
                          GString *out, int *count)
{
    GString *f = g_string_new(NULL);
    bool ok = read_cstr(r, in, tid, fmt, f, PTX_CSTR_MAX);
    uint64_t off = 0;
    *count = 0;
    for (size_t i = 0; ok && i < f->len; i++) {
        char c = f->str[i];
        if (c != '%') {
            g_string_append_c(out, c);
            continue;
        }
        size_t start = i++;
        char spec[64];
        size_t sl = 0;
        spec[sl++] = '%';
        while (i < f->len && strchr("-+ #0", f->str[i])) {     /* each flag once in spec */
            if (!memchr(spec + 1, f->str[i], sl - 1))
                spec[sl++] = f->str[i];
            i++;
        }
        long prec = -1;
        for (int part = 0; part < 2 && ok; part++) {       /* width, then .precision */
            if (part == 1 && (i >= f->len || f->str[i] != '.'))
                break;
            if (part == 1)
                i++;
            long v = 0;
            bool given = true;
            if (i < f->len && f->str[i] == '*') {
                uint64_t a = 0;
                if (*count < PTX_PRINTF_ARGS)
                    ok = printf_arg(r, in, tid, argp, &off, 4, &a);
                ++*count;
                v = (int32_t)a;
                i++;
            } else {
                given = part == 1 || (i < f->len && g_ascii_isdigit(f->str[i]));
                while (i < f->len && g_ascii_isdigit(f->str[i])) {
                    v = MIN(v * 10 + (f->str[i] - '0'), (long)INT32_MAX);
                    i++;
                }
            }
            if (part == 1 && v < 0)
                given = false;                  /* a negative precision: as if none */
            if (!given)
                continue;
            v = CLAMP(v, -PTX_PRINTF_FIELD, PTX_PRINTF_FIELD);
            if (part == 1)
                prec = v;
            sl += (size_t)g_snprintf(spec + sl, sizeof spec - sl, part ? ".%ld" : "%ld", v);
        }
        int longs = 0;                  /* 0: int, 1: 64 bits */
        int shorts = 0;                 /* h: 1, hh: 2 */
        while (i < f->len && strchr("hlzjtL", f->str[i])) {
            longs |= f->str[i] != 'h';
            shorts += f->str[i] == 'h';
            i++;
        }
        if (!ok || i >= f->len)
            break;
        char conv = f->str[i];
        bool takes = strchr("diuoxXcfFeEgGaAspn", conv) != NULL;
        if (takes && *count >= PTX_PRINTF_ARGS) {
            /* past CUDA's 32 arguments: the conversion as written */
            g_string_append_len(out, f->str + start, (gssize)(i + 1 - start));
            continue;
        }
        uint64_t v = 0;
        if (strchr("diuoxXc", conv)) {
            ok = printf_arg(r, in, tid, argp, &off, longs ? 8 : 4, &v);
            ++*count;
            if (!ok)
                break;
            bool sg = conv == 'd' || conv == 'i';
            if (conv == 'c') {
                spec[sl++] = 'c';
                spec[sl] = 0;
                g_string_append_printf(out, spec, (int)(unsigned char)v);
            } else {
                spec[sl++] = 'l';
                spec[sl++] = 'l';
                spec[sl++] = conv;
                spec[sl] = 0;
                long long x = longs ? (long long)v : sg ? (long long)(int32_t)v : (long long)(uint32_t)v;
                if (shorts == 1 && !longs)      /* h: the int as a short, hh: as a char */
                    x = sg ? (long long)(int16_t)x : (long long)(uint16_t)x;
                else if (shorts >= 2 && !longs)
                    x = sg ? (long long)(int8_t)x : (long long)(uint8_t)x;
                g_string_append_printf(out, spec, x);
            }
        } else if (strchr("fFeEgGaA", conv)) {
            ok = printf_arg(r, in, tid, argp, &off, 8, &v);
            ++*count;
            if (!ok)
                break;
            double d;
            memcpy(&d, &v, 8);
            spec[sl++] = conv;
            spec[sl] = 0;
            g_string_append_printf(out, spec, d);
        } else if (conv == 's' || conv == 'p' || conv == 'n') {
            ok = printf_arg(r, in, tid, argp, &off, 8, &v);
            ++*count;
            if (!ok)
                break;
            GString *str = g_string_new(NULL);
            if (conv == 's' && v == 0)
                g_string_append(str, "(null)");
            else if (conv == 's')
                ok = read_cstr(r, in, tid, v, str, prec >= 0 ? (uint32_t)prec : PTX_CSTR_MAX);
            else if (conv == 'p')
                g_string_append_printf(str, "0x%" G_GINT64_MODIFIER "x", v);
            if (ok && conv != 'n') {
                spec[sl++] = 's';
                spec[sl] = 0;
                g_string_append_printf(out, spec, str->str);
            }
            g_string_free(str, TRUE);
        } else if (conv == '%' && i == start + 1) {
            g_string_append_c(out, '%');
        } else {                        /* not a conversion: as written */
            g_string_append_len(out, f->str + start, (gssize)(i + 1 - start));
        }
    }
    g_string_free(f, TRUE);
    return ok;
}

/* vprintf for each lane of exec in turn (lane order: the order CUDA's buffer gives lanes of one
 * warp), the text written to standard output; __assertfail stops the launch with the
 * assertion's message as CUDA prints it. */
static bool exec_hostcall(PtxRun *r, const PtxInst *in, uint32_t exec, uint32_t base)
{
    for (uint32_t lanes = exec; lanes; lanes &= lanes - 1) {
        uint32_t tid = base + (uint32_t)__builtin_ctz(lanes);
        uint64_t a0, a1;
        if (!param_value(r, in, tid, in->a[0].reg, 8, &a0) ||
            !param_value(r, in, tid, in->a[1].reg, 8, &a1))
            return false;
        if (in->sub == PTX_HOST_ASSERTFAIL) {
            uint64_t line, fn;
            GString *msg = g_string_new(NULL), *file = g_string_new(NULL), *func = g_string_new(NULL);
            bool ok = param_value(r, in, tid, in->a[2].reg, 4, &line) &&
                      param_value(r, in, tid, in->a[3].reg, 8, &fn) &&
                      read_cstr(r, in, tid, a0, msg, PTX_CSTR_MAX) &&
                      read_cstr(r, in, tid, a1, file, PTX_CSTR_MAX) &&
                      read_cstr(r, in, tid, fn, func, PTX_CSTR_MAX);
            /* CUDA's line for it (the first thread whose assertion fails: the launch stops) */
            if (ok)
                rerr(r, in, tid, "device assertion failed: %s:%u: %s: block: [%u,%u,%u], thread: "
                     "[%u,%u,%u] Assertion `%s` failed.", file->str, (uint32_t)line, func->str,
                     r->bx, r->by, r->bz, tid % r->l.block[0], tid / r->l.block[0] % r->l.block[1],
                     tid / (r->l.block[0] * r->l.block[1]), msg->str);
            g_string_free(msg, TRUE);
            g_string_free(file, TRUE);
            g_string_free(func, TRUE);
            return false;
        }
        GString *out = g_string_new(NULL);
        int count = -1;                         /* a NULL format: nothing printed, -1 */
        bool ok = a0 == 0 || format_printf(r, in, tid, a0, a1, out, &count);
        if (ok && r->printed < PTX_PRINTF_LIMIT) {
            if (r->printed + out->len > PTX_PRINTF_LIMIT) {
                g_string_truncate(out, 0);
                g_string_append_printf(out, "\n[archsim: printf output past the first %"
                                       G_GUINT64_FORMAT " bytes of this launch dropped (CUDA's "
                                       "buffer is as large and keeps the latest)]\n",
                                       PTX_PRINTF_LIMIT);
                r->printed = PTX_PRINTF_LIMIT;
            } else {
                r->printed += out->len;
            }
            fwrite(out->str, 1, out->len, stdout);
        }
        g_string_free(out, TRUE);
        if (!ok)
            return false;
        if (in->nargs > 2) {                    /* the result: the arguments read */
            PtxSpace rs;
            uint64_t ta;
            uint8_t *p = mem_at(r, in, PTX_SPACE_LOCAL, r->sym_addr[in->a[2].reg], 4, tid, &rs, &ta);
            if (!p)
                return false;
            store_bytes(p, (uint64_t)(uint32_t)count, 4);
        }
    }
    return true;
}

/* The instructions that wait for other lanes of the warp (or block): sync_lanes says which. */
static const bool warp_sync_op[PTX_OP_COUNT] = {
    [PTX_OP_BAR] = true, [PTX_OP_BAR_WARP] = true, [PTX_OP_SHFL] = true, [PTX_OP_VOTE] = true,
    [PTX_OP_REDUX] = true, [PTX_OP_MATCH] = true, [PTX_OP_WMMA_LD] = true,
    [PTX_OP_WMMA_ST] = true, [PTX_OP_WMMA_MMA] = true, [PTX_OP_MMA] = true,
    [PTX_OP_LDMATRIX] = true,
};

/* Runs warp wi until it ends or waits at a barrier. */
static bool run_warp(PtxRun *r, uint32_t wi)
{
    PWarp *w = &r->w[wi];
    const PtxEntry *e = r->l.e;
    const PtxInst *insts = (const PtxInst *)(void *)e->insts->data;
    uint32_t n = e->insts->len, base = wi * 32;
    while (!w->done && !w->at_bar) {
        SimtEntry *top = &w->stack[w->sp - 1];
        uint32_t pc = top->pc, active = top->mask;
        g_assert(pc < n);
        const PtxInst *in = &insts[pc];
        if (G_UNLIKELY(warp_sync_op[in->op]) && active != w->live &&
            sync_park(r, w, in, pc, active, base))
            continue;
        if (++r->executed > r->max_insts) {
            rerr(r, in, base, "the block ran more than %" G_GUINT64_FORMAT " warp instructions "
                 "(an endless loop?)", r->max_insts);
            return false;
        }
        r->clock++;
        uint32_t exec = active;
        if (in->guard >= 0) {
            uint32_t g = 0;
            const uint64_t *row = &REG(r, in->guard, base);
            for (uint32_t l = active; l; l &= l - 1)
                if ((row[__builtin_ctz(l)] != 0) != in->guard_neg)
                    g |= l & -l;
            exec = g;
        }
        SassInst *si = record(r, w, pc, exec);
        PtxType t = (PtxType)in->type;
        top->pc = pc + 1;           /* the default: on to the next instruction */
        switch ((PtxOp)in->op) {
        case PTX_OP_BRA: {
            uint32_t target = (uint32_t)in->a[0].imm, rest = active & ~exec;
            if (exec == 0)
                break;
            if (rest == 0) {
                top->pc = target;
                break;
            }
            /* divergence: both paths run to the branch's reconvergence point */
            uint32_t rpc = e->ipdom[pc], fall = pc + 1;
            if (top->rpc == rpc) {
                top->pc = target;
                top->mask = exec;
            } else {
                top->pc = rpc;
                if (!push(r, w, in, target, rpc, exec))
                    return false;
            }
            if (!push(r, w, in, fall, rpc, rest))
                return false;
            break;
        }
        case PTX_OP_RET:
        case PTX_OP_EXIT:
            settle(w, exec);
            continue;
        case PTX_OP_BAR:
            w->at_bar = exec != 0;      /* a guard false for every lane: no barrier */
            break;
        case PTX_OP_BAR_WARP:
        case PTX_OP_MEMBAR:
            break;
        case PTX_OP_LD:
        case PTX_OP_ST:
        case PTX_OP_ATOM:
        case PTX_OP_RED:
            if (!exec_mem(r, w, in, si, exec, base))
                return false;
            break;
        case PTX_OP_SHFL: {
            /* shfl.sync.MODE.b32 d[|p], a, b, c, membermask: c packs the clamp (bits 0-4) and
             * the segment mask (bits 8-12) */
            const PtxArg *dst = &in->a[0];
            int32_t pdst = in->a[1].pair ? in->a[1].reg : -1;
            uint32_t o = pdst >= 0 ? 2 : 1;
            uint64_t src[32];
            for (uint32_t lane = 0; lane < 32; lane++)
                src[lane] = base + lane < r->nthreads ? val(r, &in->a[o], base + lane) : 0;
            uint64_t res[32];
            bool ok[32];
            for (uint32_t lane = 0; lane < 32; lane++) {
                if (!(exec >> lane & 1))
                    continue;
                uint32_t tid = base + lane;
                uint32_t bv = (uint32_t)val(r, &in->a[o + 1], tid) & 31;
                uint32_t cv = (uint32_t)val(r, &in->a[o + 2], tid);
                uint32_t clamp = cv & 0x1f, segmask = (cv >> 8) & 0x1f;
                uint32_t maxl = (lane & segmask) | (clamp & ~segmask), minl = lane & segmask;
                uint32_t j = lane;
                bool in_range;
                switch ((PtxShfl)in->sub) {
                case PTX_SHFL_UP: j = lane - bv; in_range = (int32_t)j >= (int32_t)maxl; break;
                case PTX_SHFL_DOWN: j = lane + bv; in_range = j <= maxl; break;
                case PTX_SHFL_BFLY: j = lane ^ bv; in_range = j <= maxl; break;
                default: j = minl | (bv & ~segmask); in_range = j <= maxl; break;
                }
                if (in->sub == PTX_SHFL_UP)
                    in_range = (int32_t)(lane - bv) >= (int32_t)maxl;
                if (!in_range || j > 31)
                    j = lane;
                res[lane] = src[j];
                ok[lane] = in_range;
            }
            for (uint32_t lane = 0; lane < 32; lane++)
                if (exec >> lane & 1) {
                    set(r, dst->reg, base + lane, res[lane], t);
                    if (pdst >= 0)
                        set(r, pdst, base + lane, ok[lane], PTX_T_PRED);
                }
            break;
        }
        case PTX_OP_VOTE: {
            uint32_t ballot = 0;
            for (uint32_t lane = 0; lane < 32; lane++)
                if ((exec >> lane & 1) && val(r, &in->a[1], base + lane))
                    ballot |= 1u << lane;
            uint64_t v;
            switch ((PtxVote)in->sub) {
            case PTX_VOTE_ALL: v = ballot == exec; break;
            case PTX_VOTE_ANY: v = ballot != 0; break;
            case PTX_VOTE_UNI: v = ballot == 0 || ballot == exec; break;
            default: v = ballot; break;
            }
            for (uint32_t lane = 0; lane < 32; lane++)
                if (exec >> lane & 1)
                    set(r, in->a[0].reg, base + lane, v, t);
            break;
        }
        case PTX_OP_REDUX: {
            /* one value from the lanes that run it, to each of them (PTX ISA, redux.sync) */
            bool first = true, sg = t == PTX_T_S32;
            uint32_t v = 0;
            for (uint32_t lane = 0; lane < 32; lane++) {
                if (!(exec >> lane & 1))
                    continue;
                uint32_t x = (uint32_t)val(r, &in->a[1], base + lane);
                switch ((PtxAtomOp)in->sub) {
                case PTX_ATOM_ADD: v += x; break;
                case PTX_ATOM_MIN: v = first || (sg ? (int32_t)x < (int32_t)v : x < v) ? x : v; break;
                case PTX_ATOM_MAX: v = first || (sg ? (int32_t)x > (int32_t)v : x > v) ? x : v; break;
                case PTX_ATOM_AND: v = first ? x : v & x; break;
                case PTX_ATOM_OR: v |= x; break;
                default: v ^= x; break;
                }
                first = false;
            }
            for (uint32_t lane = 0; lane < 32; lane++)
                if (exec >> lane & 1)
                    set(r, in->a[0].reg, base + lane, v, t);
            break;
        }
        case PTX_OP_CP_ASYNC:
            if (exec && !exec_cp_async(r, w, in, si, exec, base))
                return false;
            break;
        case PTX_OP_CP_COMMIT:
        case PTX_OP_CP_WAIT:
            break;                      /* the copies are done: only the SM waits */
        case PTX_OP_TRAP:               /* __trap(): the launch fails */
            if (exec) {
                rerr(r, in, base + (uint32_t)__builtin_ctz(exec), "the kernel executed trap (an "
                     "abort: __trap() or a failed assertion)");
                return false;
            }
            break;
        case PTX_OP_MMA:                /* (a guard false in every lane: nothing to do) */
            if (exec && !exec_mma(r, in, si, exec, base))
                return false;
            break;
        case PTX_OP_HOSTCALL:
            if (!exec_hostcall(r, in, exec, base))
                return false;
            break;
        case PTX_OP_LDMATRIX:
            if (exec && !exec_ldmatrix(r, w, in, si, exec, base))
                return false;
            break;
        case PTX_OP_WMMA_LD:
        case PTX_OP_WMMA_ST:
        case PTX_OP_WMMA_MMA:
            if (exec && !exec_wmma(r, w, pc, in, exec, base))
                return false;
            break;
        case PTX_OP_MATCH: {
            /* match.any: the lanes of exec whose a equals this lane's; match.all: exec when every
             * one's a is the same (p true), else 0 (PTX ISA 9.7.13.8) */
            uint64_t v[32];
            for (uint32_t lane = 0; lane < 32; lane++)
                if (exec >> lane & 1)
                    v[lane] = trunc_to(val(r, &in->a[in->a[1].pair ? 2 : 1], base + lane), tbits(t));
            int32_t pd = in->a[1].pair ? in->a[1].reg : -1;
            for (uint32_t lane = 0; lane < 32; lane++) {
                if (!(exec >> lane & 1))
                    continue;
                uint32_t same = 0;
                for (uint32_t o = 0; o < 32; o++)
                    if ((exec >> o & 1) && v[o] == v[lane])
                        same |= 1u << o;
                bool all = same == exec;
                set(r, in->a[0].reg, base + lane,
                    in->sub == PTX_MATCH_ANY ? same : all ? exec : 0, PTX_T_B32);
                if (pd >= 0)
                    set(r, pd, base + lane, all, PTX_T_PRED);
            }
            break;
        }
        case PTX_OP_NANOSLEEP:      /* the ISA allows any sleep from 0 to twice the time: 0 */
            break;
        case PTX_OP_ACTIVEMASK:
            for (uint32_t lane = 0; lane < 32; lane++)
                if (exec >> lane & 1)
                    set(r, in->a[0].reg, base + lane, active, PTX_T_B32);
            break;
        default:
            if (in->op != PTX_OP_MOV && in->op != PTX_OP_CVTA && in->op != PTX_OP_CVT &&
                in->op != PTX_OP_SETP && in->op != PTX_OP_SELP && in->op != PTX_OP_SET)
                goto arith;
            for (uint32_t lanes = exec; lanes; lanes &= lanes - 1) {
                uint32_t tid = base + (uint32_t)__builtin_ctz(lanes);
                switch ((PtxOp)in->op) {
                case PTX_OP_MOV: {
                    const PtxArg *d = &in->a[0], *s = &in->a[1];
                    if (d->kind == PTX_A_VEC) {         /* unpack */
                        uint64_t v = val(r, s, tid);
                        uint32_t part = tbits(t) / d->n;
                        for (uint32_t j = 0; j < d->n; j++)
                            set(r, d->vec[j], tid, trunc_to(v >> (j * part), part), t);
                    } else if (s->kind == PTX_A_VEC) {  /* pack */
                        uint64_t v = 0;
                        uint32_t part = tbits(t) / s->n;
                        for (uint32_t j = 0; j < s->n; j++)
                            v |= trunc_to(s->vec[j] >= 0 ? REG(r, s->vec[j], tid) : 0, part)
                                 << (j * part);
                        set(r, d->reg, tid, v, t);
                    } else {
                        set(r, d->reg, tid, val(r, s, tid), t);
                    }
                    break;
                }
                case PTX_OP_CVTA: {
                    uint64_t v = val(r, &in->a[1], tid);
                    uint64_t win = in->space == PTX_SPACE_SHARED ? PTX_SHARED_WINDOW
                                 : in->space == PTX_SPACE_LOCAL ? PTX_LOCAL_WINDOW : 0;
                    set(r, in->a[0].reg, tid, (in->mods & PTX_M_TO) ? v - win : v + win, t);
                    break;
                }
                case PTX_OP_CVT: {
                    uint64_t v = val(r, &in->a[1], tid);
                    if (t == PTX_T_F16X2 || t == PTX_T_BF16X2) {  /* d, a, b: a high, b low */
                        PtxInst half = *in;
                        half.type = t == PTX_T_F16X2 ? PTX_T_F16 : PTX_T_BF16;
                        uint64_t lo = do_cvt(&half, val(r, &in->a[2], tid)) & 0xffff;
                        set(r, in->a[0].reg, tid, lo | (do_cvt(&half, v) & 0xffff) << 16, t);
                        break;
                    }
                    set(r, in->a[0].reg, tid, G_UNLIKELY(in->mods & (PTX_M_RZ | PTX_M_RM | PTX_M_RP))
                                                  ? cvt_rounded(in, v) : do_cvt(in, v), t);
                    break;
                }
                case PTX_OP_SET: {
                    /* set.CMP[.BOOL].DTYPE.STYPE d, a, b[, c]: all ones (u32, s32), 1.0 (f32), per
                     * half 1.0 (f16x2) when true, else 0 */
                    PtxType st = (PtxType)in->type2;
                    uint64_t a = val(r, &in->a[1], tid), b = val(r, &in->a[2], tid), d = 0;
                    bool x = in->nargs > 3 && val(r, &in->a[3], tid) != 0;
                    uint32_t parts = st == PTX_T_F16X2 || st == PTX_T_BF16X2 ? 2 : 1;
                    /* true: 1.0 of a float destination, else all ones (per half from a pair) */
                    uint64_t one = t == PTX_T_F32 ? 0x3f800000u : t == PTX_T_F16 || t == PTX_T_F16X2
                                 ? 0x3c00 : t == PTX_T_BF16X2 ? 0x3f80
                                 : parts == 2 ? 0xffff : tbits(t) >= 64 ? UINT64_MAX
                                                                        : (1ull << tbits(t)) - 1;
                    for (uint32_t h = 0; h < parts; h++) {
                        PtxType et = st == PTX_T_F16X2 ? PTX_T_F16 : st == PTX_T_BF16X2 ? PTX_T_BF16 : st;
                        uint64_t ah = parts == 2 ? a >> (16 * h) & 0xffff : a;
                        uint64_t bh = parts == 2 ? b >> (16 * h) & 0xffff : b;
                        if (et == PTX_T_F32 && (in->mods & PTX_M_FTZ))
                            ah = ftz32(ah), bh = ftz32(bh);
                        if (et == PTX_T_F16 && (in->mods & PTX_M_FTZ))
                            ah = ftz16(ah), bh = ftz16(bh);
                        bool c = is_float(et) ? cmp_float((PtxCmp)in->cmp, fval(ah, et), fval(bh, et))
                                              : cmp_int((PtxCmp)in->cmp, ah, bh, et);
                        if (in->boolop != PTX_BOOL_NONE && in->nargs > 3)
                            c = in->boolop == PTX_BOOL_AND ? c && x
                              : in->boolop == PTX_BOOL_OR ? c || x : c != x;
                        d |= (c ? one : 0) << (16 * h);
                    }
                    set(r, in->a[0].reg, tid, d, t);
                    break;
                }
                case PTX_OP_SETP: {
                    int32_t q = in->a[1].pair ? in->a[1].reg : -1;
                    uint32_t o = q >= 0 ? 2 : 1;
                    uint64_t a = val(r, &in->a[o], tid), b = val(r, &in->a[o + 1], tid);
                    if (t == PTX_T_F16X2 || t == PTX_T_BF16X2) {
                        /* p|q: the low halves' comparison, then the high halves' (PTX ISA,
                         * setp), each with the .BOOL and c */
                        PtxType et = t == PTX_T_F16X2 ? PTX_T_F16 : PTX_T_BF16;
                        bool x = in->nargs > o + 2 && val(r, &in->a[o + 2], tid) != 0;
                        for (uint32_t h = 0; h < 2; h++) {
                            uint64_t ah = a >> (16 * h) & 0xffff, bh = b >> (16 * h) & 0xffff;
                            if (in->mods & PTX_M_FTZ)
                                ah = ftz16(ah), bh = ftz16(bh);
                            bool c = cmp_float((PtxCmp)in->cmp, fval(ah, et), fval(bh, et));
                            if (in->boolop != PTX_BOOL_NONE && in->nargs > o + 2)
                                c = in->boolop == PTX_BOOL_AND ? c && x
                                  : in->boolop == PTX_BOOL_OR ? c || x : c != x;
                            if (h == 0 || q >= 0)
                                set(r, h == 0 ? in->a[0].reg : q, tid, c, PTX_T_PRED);
                        }
                        break;
                    }
                    if (t == PTX_T_F32 && (in->mods & PTX_M_FTZ))
                        a = ftz32(a), b = ftz32(b);     /* subnormal inputs compare as zeros */
                    if (t == PTX_T_F16 && (in->mods & PTX_M_FTZ))
                        a = ftz16(a), b = ftz16(b);
                    bool c = is_float(t) ? cmp_float((PtxCmp)in->cmp, fval(a, t), fval(b, t))
                                         : cmp_int((PtxCmp)in->cmp, a, b, t);
                    bool p = c, np = !c;
                    if (in->boolop != PTX_BOOL_NONE && in->nargs > o + 2) {
                        bool x = val(r, &in->a[o + 2], tid) != 0;
                        p = in->boolop == PTX_BOOL_AND ? c && x : in->boolop == PTX_BOOL_OR ? c || x
                                                                                            : c != x;
                        np = in->boolop == PTX_BOOL_AND ? !c && x
                           : in->boolop == PTX_BOOL_OR ? !c || x : !c != x;
                    }
                    set(r, in->a[0].reg, tid, p, PTX_T_PRED);
                    if (q >= 0)
                        set(r, q, tid, np, PTX_T_PRED);
                    break;
                }
                case PTX_OP_SELP:
                    set(r, in->a[0].reg, tid, val(r, &in->a[3], tid) ? val(r, &in->a[1], tid)
                                                                     : val(r, &in->a[2], tid), t);
                    break;
                default:
                    g_assert_not_reached();     /* arithmetic: below */
                }
            }
            break;
        arith: {
            /* arithmetic and logic: operands for the whole warp, then one op per lane */
            uint64_t A[32], Bv[32], C[32], E[32];
            if (in->nargs > 1)
                fetch(r, &in->a[1], base, exec, A);
            if (in->nargs > 2)
                fetch(r, &in->a[2], base, exec, Bv);
            if (in->nargs > 3)
                fetch(r, &in->a[3], base, exec, C);
            if (in->nargs > 4)                  /* bfi's length, lop3's table */
                fetch(r, &in->a[4], base, exec, E);
            for (uint32_t l = exec; l; l &= l - 1) {
                uint32_t lane = (uint32_t)__builtin_ctz(l);
                if (in->nargs <= 1)
                    A[lane] = 0;
                if (in->nargs <= 2)
                    Bv[lane] = 0;
                if (in->nargs <= 3)
                    C[lane] = 0;
                if (in->nargs <= 4)
                    E[lane] = 0;
            }
            PtxType dt = t;
            if (in->mods & PTX_M_WIDE)          /* mul.wide, mad.wide: twice as wide */
                dt = t == PTX_T_S16 ? PTX_T_S32 : t == PTX_T_U16 ? PTX_T_U32
                   : t == PTX_T_S32 ? PTX_T_S64 : PTX_T_U64;
            int32_t dreg = in->a[0].reg;
            if (in->a[0].kind != PTX_A_REG || dreg < 0)
                break;
            uint64_t *drow = &REG(r, dreg, base), dmask = r->rmask[dreg];
            bool dpred = r->rpred[dreg];
            uint32_t sb = is_signed(dt) && tbits(dt) < 64 ? tbits(dt) : 0;
            if (G_UNLIKELY(in->mods & (PTX_M_CC | PTX_M_CIN))) {
                for (uint32_t l = exec; l; l &= l - 1) {
                    uint32_t lane = (uint32_t)__builtin_ctz(l);
                    uint64_t v = alu_carry(in, A[lane], Bv[lane], C[lane], &r->cc[base + lane]);
                    if (sb)
                        v = (uint64_t)sext(v, sb);
                    drow[lane] = dpred ? (v != 0) : v & dmask;
                }
                break;
            }
            for (uint32_t l = exec; l; l &= l - 1) {
                uint32_t lane = (uint32_t)__builtin_ctz(l);
                uint64_t v = G_UNLIKELY(in->mods & (PTX_M_RZ | PTX_M_RM | PTX_M_RP))
                           ? alu_rounded(in, A[lane], Bv[lane], C[lane], E[lane])
                           : alu(in, A[lane], Bv[lane], C[lane], E[lane]);
                if (sb)
                    v = (uint64_t)sext(v, sb);
                drow[lane] = dpred ? (v != 0) : v & dmask;
            }
            break;
        }
        }
        settle(w, 0);
    }
    return !r->failed;
}

static bool run_block(PtxRun *r, uint64_t id)
{
    r->bx = (uint32_t)(id % r->l.grid[0]);
    r->by = (uint32_t)(id / r->l.grid[0] % r->l.grid[1]);
    r->bz = (uint32_t)(id / ((uint64_t)r->l.grid[0] * r->l.grid[1]));
    r->executed = 0;
    memset(r->regs, 0, (size_t)r->nregs * r->nthreads * sizeof(uint64_t));
    memset(r->cc, 0, r->nthreads);
    memset(r->shared, 0, r->shared_bytes);
    if (r->local_bytes)
        memset(r->local, 0, (size_t)r->nthreads * r->local_bytes);
    for (uint32_t i = 0; i < r->nwarps; i++) {
        PWarp *w = &r->w[i];
        uint32_t lanes = MIN(32u, r->nthreads - i * 32);
        w->live = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
        w->sp = 0;
        w->park_mask = 0;
        w->at_bar = w->done = false;
        g_array_set_size(w->insts, 0);
        g_array_set_size(w->addrs, 0);
        if (!push(r, w, NULL, 0, r->l.e->insts->len, w->live))
            return false;
    }
    for (;;) {
        bool any = false;
        for (uint32_t i = 0; i < r->nwarps; i++) {
            if (r->w[i].done || r->w[i].at_bar)
                continue;
            if (!run_warp(r, i))
                return false;
            any = true;
        }
        bool waiting = false;
        for (uint32_t i = 0; i < r->nwarps; i++)
            if (!r->w[i].done && r->w[i].at_bar) {
                r->w[i].at_bar = false;         /* every warp that has not ended is there */
                waiting = true;
            }
        if (!waiting && !any)
            break;
        if (!waiting) {
            bool all = true;
            for (uint32_t i = 0; i < r->nwarps; i++)
                all &= r->w[i].done;
            if (all)
                break;
        }
    }
    return true;
}

int ptx_run_next_block(PtxRun *r, SassBlock *b, GError **error)
{
    r->error = error;
    r->failed = false;
    if (r->next >= r->nblocks)
        return 0;
    /* each warp records into arrays the block keeps (reused when the block is): no copy */
    if (!b->store)
        b->store = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    while (b->store->len < 2 * r->nwarps) {
        g_ptr_array_add(b->store, g_array_new(FALSE, FALSE, sizeof(SassInst)));
        g_ptr_array_add(b->store, g_array_new(FALSE, FALSE, sizeof(uint64_t)));
    }
    for (uint32_t i = 0; i < r->nwarps; i++) {
        r->w[i].insts = g_ptr_array_index(b->store, 2 * i);
        r->w[i].addrs = g_ptr_array_index(b->store, 2 * i + 1);
    }
    uint64_t id = r->order ? r->order[r->next] : r->next;
    if (!run_block(r, id))
        return -1;
    r->next++;
    b->x = r->bx, b->y = r->by, b->z = r->bz;
    b->cluster = false;
    b->line = 0;
    if (b->warps_cap < r->nwarps) {
        b->warps = g_renew(SassWarp, b->warps, r->nwarps);
        b->warps_cap = r->nwarps;
    }
    b->nwarps = r->nwarps;
    b->ninsts = b->naddrs = 0;
    for (uint32_t i = 0; i < r->nwarps; i++) {
        PWarp *w = &r->w[i];
        b->warps[i] = (SassWarp){ .warp = i, .first = 0, .n = w->insts->len,
                                  .insts = (const SassInst *)(void *)w->insts->data,
                                  .addrs = (const uint64_t *)(void *)w->addrs->data };
        b->ninsts += w->insts->len;
        b->naddrs += w->addrs->len;
    }
    return 1;
}

/* ---- a run ---- */

PtxRun *ptx_run_new(PtxLaunch *l, GError **error)
{
    const PtxEntry *e = l->e;
    uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    uint64_t blocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    if (threads == 0 || threads > 1024) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "a block of %" G_GUINT64_FORMAT
                    " threads: CUDA allows 1 to 1024", threads);
        return NULL;
    }
    /* static arrays, then the launch's dynamic shared memory (CUDA reserves it whether or not
     * the kernel names its extern array) */
    uint64_t shared = e->shared_bytes;
    if (e->uses_dynamic || l->dyn_shared)
        shared = e->dyn_offset + l->dyn_shared;
    if (shared > ((uint64_t)228 << 10)) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%s: %" G_GUINT64_FORMAT
                    " bytes of shared memory per block: more than any GPU has (228 KiB)",
                    e->name, shared);
        return NULL;
    }
    if (e->local_bytes * threads > ((uint64_t)1 << 30)) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%s: %" G_GUINT64_FORMAT
                    " bytes of local memory per thread is more than archsim holds", e->name,
                    e->local_bytes);
        return NULL;
    }
    if ((uint64_t)e->regs->len * threads * 8 > ((uint64_t)1 << 31)) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%s: %u registers x %"
                    G_GUINT64_FORMAT " threads is more than archsim holds for one block",
                    e->name, e->regs->len, threads);
        return NULL;
    }
    if (l->order_seed && blocks > ((uint64_t)1 << 24)) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%" G_GUINT64_FORMAT
                    " blocks: a shuffled block order holds at most 2^24", blocks);
        return NULL;
    }
    PtxRun *r = g_new0(PtxRun, 1);
    r->l = *l;
    r->nthreads = (uint32_t)threads;
    r->nwarps = (r->nthreads + 31) / 32;
    r->nregs = e->regs->len;
    r->nblocks = blocks;
    r->max_insts = l->max_warp_insts ? MIN(l->max_warp_insts, PTX_MAX_WARP_INSTS) : PTX_MAX_WARP_INSTS;
    r->shared_bytes = shared;
    r->local_bytes = e->local_bytes;
    r->regs = g_new0(uint64_t, (size_t)MAX(r->nregs, 1u) * r->nthreads);
    r->shared = g_malloc0(shared ? shared : 1);
    r->local = r->local_bytes ? g_malloc0((size_t)r->nthreads * r->local_bytes) : NULL;
    r->cc = g_malloc0(r->nthreads);
    r->w = g_new0(PWarp, r->nwarps);
    r->rmask = g_new(uint64_t, MAX(r->nregs, 1u));
    r->rpred = g_new(uint8_t, MAX(r->nregs, 1u));
    for (uint32_t i = 0; i < r->nregs; i++) {
        PtxType rt = (PtxType)g_array_index(e->regs, PtxReg, i).type;
        r->rpred[i] = rt == PTX_T_PRED;
        r->rmask[i] = tbits(rt) >= 64 ? UINT64_MAX : (1ull << tbits(rt)) - 1;
    }
    r->tmpl = g_new(SassInst, MAX(e->insts->len, 1u));
    for (guint i = 0; i < e->insts->len; i++)
        make_template(i, &g_array_index(e->insts, PtxInst, i), &r->tmpl[i]);
    /* device memory: the launch's buffers, then the module's variables */
    r->sorted = g_ptr_array_new();
    r->own = g_ptr_array_new_with_free_func((GDestroyNotify)ptx_buffer_free);
    uint64_t at = ptx_place_buffers(l->buffers);
    for (guint i = 0; i < l->buffers->len; i++)
        g_ptr_array_add(r->sorted, g_ptr_array_index(l->buffers, i));
    r->sym_addr = g_new0(uint64_t, MAX(l->m->syms->len, 1u));
    /* the module's variables live as long as the module: a later launch sees what an earlier
     * one wrote (they were zeroed for each launch) */
    PtxModule *mod = (PtxModule *)l->m;
    if (!mod->vars) {
        mod->vars = g_ptr_array_new_with_free_func((GDestroyNotify)ptx_buffer_free);
        g_ptr_array_set_size(mod->vars, (gint)l->m->syms->len);
    }
    for (guint i = 0; i < l->m->syms->len; i++) {
        const PtxSym *s = &g_array_index(l->m->syms, PtxSym, i);
        if (s->space == PTX_SPACE_GLOBAL || s->space == PTX_SPACE_CONST) {
            PtxBuffer *b = g_ptr_array_index(mod->vars, i);
            if (!b) {
                if (!(b = ptx_buffer_new(s->name, PTX_D_U8, s->size))) {
                    g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%s: cannot "
                                "allocate %" G_GUINT64_FORMAT " bytes for variable %s",
                                l->m->path, s->size, s->name);
                    ptx_run_free(r);
                    return NULL;
                }
                if (s->init)                /* its initialiser, once: then what launches wrote */
                    memcpy(b->data, s->init, s->size);
            }
            mod->vars->pdata[i] = b;
            b->addr = at;                   /* placed after this launch's buffers */
            at += (b->bytes + 255) / 256 * 256 + 256;
            g_ptr_array_add(r->sorted, b);
            r->sym_addr[i] = b->addr;
        } else {
            r->sym_addr[i] = e->sym_offset[i];  /* shared, local, param: in their space */
        }
    }
    if (l->order_seed) {
        r->order = g_new(uint64_t, blocks);
        for (uint64_t i = 0; i < blocks; i++)
            r->order[i] = i;
        uint64_t x = l->order_seed;
        for (uint64_t i = blocks; i > 1; i--) {     /* Fisher-Yates on splitmix64 */
            x += 0x9e3779b97f4a7c15ull;
            uint64_t z = x;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            z ^= z >> 31;
            uint64_t j = z % i, t = r->order[i - 1];
            r->order[i - 1] = r->order[j];
            r->order[j] = t;
        }
    }
    SassKernel *k = &r->k;
    k->path = g_strdup(l->m->path);
    k->name = g_strdup(e->name);
    k->id = l->id ? l->id : 1;
    memcpy(k->grid, l->grid, sizeof k->grid);
    memcpy(k->block, l->block, sizeof k->block);
    k->shmem = shared;
    k->nregs = l->registers ? l->registers : 32;
    k->binary_version = l->m->target;
    k->shmem_base = PTX_SHARED_WINDOW;
    k->local_base = PTX_LOCAL_WINDOW;
    k->tracer_version = 5;
    k->lineinfo = true;
    k->nblocks = blocks;
    k->warps_per_block = r->nwarps;
    return r;
}

const SassKernel *ptx_run_kernel(const PtxRun *r) { return &r->k; }
const char *ptx_run_opcode(const PtxRun *r, uint16_t op) { return g_ptr_array_index(r->l.m->texts, op); }
uint32_t ptx_run_nopcodes(const PtxRun *r) { return r->l.m->texts->len; }
double ptx_run_progress(const PtxRun *r) { return r->nblocks ? (double)r->next / (double)r->nblocks : 1.0; }

void ptx_run_free(PtxRun *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->nwarps; i++)
        g_free(r->w[i].stack);
    g_free(r->w);
    g_free(r->regs);
    g_free(r->shared);
    g_free(r->local);
    g_free(r->cc);
    g_free(r->sym_addr);
    g_free(r->order);
    g_free(r->tmpl);
    g_free(r->rmask);
    g_free(r->rpred);
    g_ptr_array_free(r->sorted, TRUE);
    g_ptr_array_free(r->own, TRUE);
    g_free(r->k.path);
    g_free(r->k.name);
    g_free(r);
}
