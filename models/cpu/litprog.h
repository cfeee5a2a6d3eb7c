/* litprog.h: a thread's program of micro-ops (loads, stores, fences, locked read-modify-writes,
 * register ALU ops) over per-thread registers and shared locations, as a herd7 X86 litmus test's
 * threads are written (herdtools7, the X86 litmus format) and as mm-core (mmcore.h) runs them
 * under a memory model. models/litmus parses tests into these (litmus.h); the cores need only
 * this header, so the CPU models do not include the litmus front end. Values are int64. */
#ifndef ARCHSIM_LITPROG_H
#define ARCHSIM_LITPROG_H

#include <stdbool.h>
#include <stdint.h>

#define LIT_MAX_REGS 16       /* per thread */
#define LIT_MAX_OPS 64        /* per thread */

typedef enum {
    LOP_LOAD,       /* reg <- [loc] */
    LOP_STORE,      /* [loc] <- src */
    LOP_MFENCE,     /* full fence */
    LOP_RMW,        /* locked read-modify-write of [loc] (rmw below); old value -> reg when
                       reg >= 0; orders like MFENCE */
    LOP_ALU,        /* reg <- alu(reg or src) : thread-local, no memory access */
} LitOpKind;

typedef enum {
    LRMW_XCHG,      /* [loc] <- src, reg <- old */
    LRMW_ADD,       /* [loc] <- old + src (LOCK ADD: reg = -1; LOCK XADD: reg <- old) */
    LRMW_CMPXCHG,   /* if old == regs[cmp] then [loc] <- src; EAX (cmp) <- old */
} LitRmwKind;

typedef enum { LALU_MOV, LALU_ADD, LALU_SUB, LALU_XOR, LALU_AND, LALU_OR } LitAluKind;

/* What an LOP_MFENCE orders. MFENCE (0, the default) is full. LFENCE orders earlier loads before
 * every later load and store; SFENCE orders earlier stores before later stores (Intel SDM vol. 3
 * 8.2.2); neither orders store->load, so under TSO both change nothing (as in herd's x86tso.cat).
 * A runner that does not distinguish them may treat them as MFENCE: that only loses outcomes. */
typedef enum { LFEN_FULL = 0, LFEN_LOAD, LFEN_STORE } LitFenceKind;

/* An operand: an immediate, or a register of the same thread. */
typedef struct {
    bool is_reg;
    int reg;
    int64_t imm;
} LitSrc;

typedef struct {
    LitOpKind kind;
    int loc;            /* LOAD, STORE, RMW: location index; else -1 */
    int reg;            /* LOAD: destination; RMW: gets the old value (-1: none); ALU: dest */
    LitSrc src;         /* STORE: value stored; RMW: operand; ALU: second operand */
    LitRmwKind rmw;
    LitAluKind alu;
    int cmp;            /* CMPXCHG: the register compared (EAX) */
    LitFenceKind fence; /* MFENCE: which fence (MFENCE, LFENCE, SFENCE) */
    int line, col;      /* position of the instruction in the file */
    char *text;         /* the instruction as written (for traces) */
} LitOp;

typedef struct {
    int nops;
    LitOp ops[LIT_MAX_OPS];
    int nregs;
    char *regs[LIT_MAX_REGS];       /* register names used by this thread (EAX, EBX, ...) */
    int64_t reg_init[LIT_MAX_REGS];
} LitThread;

#endif
