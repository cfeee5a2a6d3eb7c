/* gpumsg.h: the GPU message family: the block scheduler (gpu-workload) hands a thread block to
 * an SM (CTA_LAUNCH) and the SM hands it back when its last warp has finished (CTA_DONE). The
 * payload is a pointer to the block, owned by the workload; the SM reads its instructions. */
#ifndef ARCHSIM_GPU_GPUMSG_H
#define ARCHSIM_GPU_GPUMSG_H

#include "../../sim/msg.h"
#include "../msgfam.h"
#include "sasstrace.h"

enum { GPU_CTA_LAUNCH, GPU_CTA_DONE, GPU_CMDS };
#define MSG_GPU_CTA_LAUNCH MSG_CMD(MSG_FAM_GPU, GPU_CTA_LAUNCH)
#define MSG_GPU_CTA_DONE MSG_CMD(MSG_FAM_GPU, GPU_CTA_DONE)

/* Per opcode of a kernel (index = SassInst.op), what the SM needs beyond its unit class. */
enum {
    GPU_OPF_BAR_SYNC = 1,   /* BAR.SYNC / BAR: a CTA-wide barrier */
    GPU_OPF_WIDE = 2,       /* .WIDE: the destination and the register after it */
};

/* One kernel as the SMs see it (owned by the workload, alive while any of its blocks is). */
typedef struct {
    const SassKernel *k;
    const SassReader *reader;   /* its opcode texts (sass_opcode) */
    uint32_t index;             /* launch number, from 0 */
    uint8_t *op_flags;          /* GPU_OPF_*, by opcode index; grows as blocks are read */
    uint32_t nops;
} GpuKernelCtx;

typedef struct {
    SassBlock b;
    GpuKernelCtx *kc;
    uint64_t warp_insts, thread_insts;   /* of this block */
} GpuCta;

typedef struct {
    GpuCta *cta;
} GpuPayload;
MSG_PAYLOAD_FITS(GpuPayload);

static inline GpuPayload *gpu_msg(Msg *m) { return (GpuPayload *)SIM_MSG_PAYLOAD(m, MSG_FAM_BIT(MSG_FAM_GPU)); }

extern const MsgFamily gpu_msg_family;

static inline const char *sass_opcode_text(const GpuKernelCtx *kc, uint16_t op)
{
    return sass_opcode(kc->reader, op);
}

#endif
