/* kernel.h: the kernel language and kernel-core, a core that runs small micro-op programs with
 * real values against its coherent L1: lock algorithms (locks.c), atomics tests, users' own
 * kernels. One op per line, labels `name:`, `#` comments (docs/locks.md):
 *
 *   .var   tail = n                 # a word on its own cache line (initial value optional)
 *   .array node[n+1] bytes 16       # elements one per line (unless `packed`)
 *   acquire:
 *       xchg  r12, tail, r13        # atomic exchange through coherence (obtains M)
 *   spin:
 *       load  r1, node[r12]+8       # ADDR = symbol [index] + byte offset
 *       bne   r1, 0, spin
 *       ret
 *
 * Registers r0..r15 (64-bit, start at 0) per core, plus read-only values: id (core index), n
 * (cores) and the core's parameters iterations, cs, outside, jitter, backoff_min, backoff_max,
 * size (a free number for the program: a table size, a key range).
 * A program that defines `acquire` and `release` (and no `main`) is a lock kernel: the harness
 * (kernel_harness_text) runs it in the lock experiment's loop.
 * kernel_lang.c parses and lays out; kernel_core.c executes; locks.c holds the built-in kernels.
 */
#ifndef ARCHSIM_KERNEL_H
#define ARCHSIM_KERNEL_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../sim/component.h"

#define KERNEL_NREGS 16          /* r0..r15 */

/* Read-only values, after the registers in a core's value file (index KERNEL_NREGS + name). */
typedef enum {
    KN_ID, KN_N, KN_ITERATIONS, KN_CS, KN_OUTSIDE, KN_JITTER, KN_BACKOFF_MIN, KN_BACKOFF_MAX,
    KN_SIZE,
    KN_COUNT
} KernelName;
#define KERNEL_NVALS (KERNEL_NREGS + KN_COUNT)
extern const char *const kernel_name_text[KN_COUNT];   /* "id", "n", "iterations", ... */

typedef enum {
    KOP_LOAD, KOP_STORE, KOP_TAS, KOP_XCHG, KOP_CAS, KOP_FAA, KOP_LL, KOP_SC,
    KOP_BEQ, KOP_BNE, KOP_BLT, KOP_BGE, KOP_JMP, KOP_CALL, KOP_RET, KOP_LOOP,
    KOP_MOV, KOP_ADD, KOP_SUB, KOP_MUL, KOP_REM, KOP_AND, KOP_OR, KOP_XOR, KOP_SHL, KOP_SHR,
    KOP_MIN, KOP_MAX, KOP_RAND,
    KOP_DELAY, KOP_FENCE, KOP_ACQUIRED, KOP_RELEASED, KOP_HALT, KOP_NOP,
    KOP_XBEGIN, KOP_XEND, KOP_XABORT, KOP_XTEST,      /* hardware transactions (docs/htm.md) */
    KOP_COUNT
} KernelOpKind;

/* The op table that drives the parser, the docs and the core: name, operand signature
 * (d destination register, v value, a address, l label, f a fence kind; '?' makes the rest
 * optional), usage, what it does. */
typedef struct {
    const char *name;
    const char *sig;
    const char *usage;
    const char *doc;
} KernelOpInfo;
extern const KernelOpInfo kernel_ops[KOP_COUNT];

/* `fence [full|st|ld]` (the operand `f`): what a fence orders under kernel-core's `model`
 * (docs/locks.md "Memory models"): everything (MFENCE-like, the default), earlier stores before
 * later stores (SFENCE-like), earlier loads before later accesses (LFENCE-like). */
typedef enum { KFENCE_FULL, KFENCE_ST, KFENCE_LD, KFENCE_COUNT } KernelFenceKind;
extern const char *const kernel_fence_names[KFENCE_COUNT];   /* "full", "st", "ld" */

/* A source operand: a value-file slot (register or read-only value) or an immediate. */
typedef struct {
    bool is_slot;
    uint8_t slot;
    int64_t imm;
} KernelVal;

typedef struct {
    int32_t sym;                 /* symbol index, -1: no address (a file may declare 100,000) */
    KernelVal index;             /* element index (imm 0 when absent) */
    KernelVal offset;            /* byte offset in the element (imm 0 when absent) */
} KernelAddr;

typedef struct {
    uint8_t kind;                /* KernelOpKind */
    int8_t rd;                   /* destination register, -1: none */
    bool spin;                   /* a load heading a two-op spin loop (load rX; bCC rX, .., self):
                                    the core may sleep on the line instead of re-reading it */
    uint8_t fence;               /* fence: KernelFenceKind */
    uint8_t nvals;
    KernelVal v[2];              /* value operands in order (store: value; cas: expected, new;
                                    branches: the two compared; delay: cycles, jitter) */
    KernelAddr addr;
    int32_t target;              /* branch, call and loop target (op index) */
    uint16_t src;                /* index into Kernel.files */
    uint32_t line, col;          /* position of the op's name */
} KernelOp;

typedef struct {
    char *name;
    uint64_t count;              /* elements */
    uint64_t elem;               /* bytes per element (multiple of 8) */
    uint64_t stride;             /* bytes from one element to the next */
    uint64_t addr;               /* first element */
    bool packed;
    uint16_t src;
    uint32_t line, col;
} KernelSym;

typedef struct {
    uint64_t addr;
    int64_t value;
} KernelInit;

/* `.expect SYM[I] = EXPR`: checked once every core has halted; EXPR may name `acquisitions`. */
typedef struct {
    uint64_t addr;
    char *what;                  /* "counter" or "flags[3]" */
    char *expr;                  /* the expression's text, evaluated at the end */
    uint16_t src;
    uint32_t line, col;
} KernelExpect;

typedef struct {
    GPtrArray *files;            /* source names (char*), for messages */
    KernelOp *ops;
    int nops;
    int entry;                   /* first op to run */
    KernelSym *syms;
    int nsyms;
    GArray *inits;               /* KernelInit, nonzero initial words */
    GArray *expects;             /* KernelExpect */
    bool harness;                /* a lock kernel run by the lock-experiment harness */
    bool markers;                /* uses acquired / released */
    uint64_t bytes;              /* data laid out from base */
    int64_t env[KN_COUNT];       /* the values the program was built with (id = 0) */
} Kernel;

/* Where the program comes from: a name for messages ("core.program", a path, "<builtin mcs>")
 * and its text. */
typedef struct {
    const char *file;
    const char *text;
} KernelSource;

/* Parses the sources (one program) and lays out its data from `base`, one coherence `line` per
 * symbol unless packed. `env` gives n and the parameters (its id is ignored). A lock kernel gets
 * the harness appended. Errors: ARCHSIM_CONFIG_ERROR / ARCHSIM_EXIT_CONFIG, "FILE:LINE:COL:
 * problem" with a hint where one helps. */
Kernel *kernel_parse(const KernelSource *srcs, int nsrcs, const int64_t env[KN_COUNT],
                     uint64_t base, uint64_t line, GError **error);
void kernel_free(Kernel *k);
/* Evaluates a `.expect` expression with `acquisitions`; false (message in *problem) if it no
 * longer evaluates. */
bool kernel_eval_expect(const Kernel *k, const KernelExpect *e, uint64_t acquisitions,
                        int64_t *out, char **problem);
/* The symbol named so, or -1. */
int kernel_find_sym(const Kernel *k, const char *name);
/* The "FILE:LINE:COL" of an op, newly allocated. */
char *kernel_op_where(const Kernel *k, int op);

/* ---- built-in kernels (locks.c) ------------------------------------------------------------- */
typedef struct {
    const char *name;            /* "mcs" */
    const char *title;           /* one line */
    const char *text;            /* the kernel, in the language */
} KernelBuiltin;
extern const KernelBuiltin kernel_builtins[];       /* NULL-name terminated */
extern const char *const kernel_builtin_names[];    /* "none" then each name, NULL-terminated */
const KernelBuiltin *kernel_builtin_find(const char *name);
/* The lock-experiment harness: calls `init` once first when the kernel has one. */
const char *kernel_harness_text(bool has_init);

/* ---- the core (kernel_core.c) --------------------------------------------------------------- */
extern const ComponentClass kernel_core_class;

/* After a run (tests): a register's final value, and the address of a symbol's element
 * (UINT64_MAX if the program has no such symbol or element). */
int64_t kernel_core_reg(const Component *c, int reg);
uint64_t kernel_core_addr(const Component *c, const char *sym, uint64_t index);
uint64_t kernel_core_acquisitions(const Component *c);

#endif
