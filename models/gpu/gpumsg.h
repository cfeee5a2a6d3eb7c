/* gpumsg.h: the GPU message family: the block scheduler (gpu-workload) hands a thread block to
 * an SM (CTA_LAUNCH) and the SM hands it back when its last warp has finished (CTA_DONE); an
 * SM's L1 sends one line's sectors to an L2 slice across the crossbar (MEM_REQ: load, store,
 * atomic, reduction) and a slice answers loads and atomics (MEM_RESP). The payload starts with a
 * NocRoute, so a noc carries these messages as they are (nocmsg.h). A launch's payload is a
 * pointer to the block, owned by the workload; the SM reads its instructions. */
#ifndef ARCHSIM_GPU_GPUMSG_H
#define ARCHSIM_GPU_GPUMSG_H

#include "../../sim/msg.h"
#include "../msgfam.h"
#include "../noc/nocmsg.h"
#include "sasstrace.h"

enum { GPU_CTA_LAUNCH, GPU_CTA_DONE, GPU_MEM_REQ, GPU_MEM_RESP, GPU_CMDS };
#define MSG_GPU_CTA_LAUNCH MSG_CMD(MSG_FAM_GPU, GPU_CTA_LAUNCH)
#define MSG_GPU_CTA_DONE MSG_CMD(MSG_FAM_GPU, GPU_CTA_DONE)
#define MSG_GPU_MEM_REQ MSG_CMD(MSG_FAM_GPU, GPU_MEM_REQ)
#define MSG_GPU_MEM_RESP MSG_CMD(MSG_FAM_GPU, GPU_MEM_RESP)

/* What a memory request does at the L2 slice. */
enum { GPU_MEM_LOAD, GPU_MEM_STORE, GPU_MEM_ATOM, GPU_MEM_RED };

/* Per opcode of a kernel (index = SassInst.op), what the SM needs beyond its unit class. */
enum {
    GPU_OPF_BAR_SYNC = 1,   /* BAR.SYNC / BAR: a CTA-wide barrier */
    GPU_OPF_WIDE = 2,       /* .WIDE: the destination and the register after it */
    GPU_OPF_ATOM = 4,       /* ATOM, ATOMG: an atomic that returns the old value */
    GPU_OPF_RED = 8,        /* RED: a reduction without a result */
    GPU_OPF_EXACT = 16,     /* every register written is listed (PTX): none is widened */
    GPU_OPF_FLOP = 32,      /* a floating-point add or multiply: one FLOP per lane */
    GPU_OPF_FMA = 64,       /* a fused multiply-add: two FLOPs per lane */
    GPU_OPF_LOAD = 128,     /* a load the trace lists no destination register for (LDGSTS,
                               cp.async: global memory into shared memory) */
    /* cp.async's groups (PTX): a copy joins the warp's open group, commit_group closes it,
     * wait_group N (SassInst.imm; -1: wait_all) holds the warp until at most N are pending */
    GPU_OPF_ACOPY = 256, GPU_OPF_ACOMMIT = 512, GPU_OPF_AWAIT = 1024,
};

/* One kernel as the SMs see it (owned by the workload, alive while any of its blocks is). */
typedef struct {
    const SassKernel *k;
    const void *src;            /* where its blocks come from (a SASS trace, a PTX run) */
    const char *(*op_text)(const void *src, uint16_t op);   /* its opcode texts */
    uint32_t index;             /* launch number, from 0 */
    uint16_t *op_flags;         /* GPU_OPF_*, by opcode index; grows as blocks are read */
    uint32_t nops;
} GpuKernelCtx;

typedef struct {
    SassBlock b;
    GpuKernelCtx *kc;
    uint64_t warp_insts, thread_insts;   /* of this block */
} GpuCta;

typedef struct {
    NocRoute route;             /* first: what a noc reads */
    uint8_t op;                 /* GPU_MEM_* (memory requests) */
    uint8_t sectors;            /* the line's 32-byte sectors asked for / carried */
    uint8_t lanes;              /* atomics: active lanes on this line (the ROP's work) */
    uint32_t id;                /* the requester's cookie (its L1 MSHR), returned as it came */
    union {
        GpuCta *cta;            /* launch, done */
        uint64_t line;          /* memory: the line's address (128-byte aligned) */
    };
} GpuPayload;
MSG_PAYLOAD_FITS(GpuPayload);

static inline GpuPayload *gpu_msg(Msg *m) { return (GpuPayload *)SIM_MSG_PAYLOAD(m, MSG_FAM_BIT(MSG_FAM_GPU)); }

extern const MsgFamily gpu_msg_family;

static inline const char *sass_opcode_text(const GpuKernelCtx *kc, uint16_t op)
{
    return kc->op_text(kc->src, op);
}

#endif
