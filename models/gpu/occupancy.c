/* occupancy.c: resident blocks per SM by NVIDIA's rules (occupancy.h). The four limits, with
 * W = ceil(threads / 32) warps per block:
 *   warps      floor(max_warps / W)
 *   slots      max_blocks
 *   registers  per warp round_up(regs x 32, 256); the register file is four sub-partitions of
 *              16 K, each holding floor(16384 / per_warp) warps: floor(4 x that / W) blocks; none
 *              if a block, counted as round_up(W, 4) warps (the hardware's launch check), needs
 *              more than 64 K
 *   shared     per block round_up(smem + reserve, unit); the SM's carve-out is the preferred one
 *              when a block fits in it, else the smallest step that holds one block;
 *              floor(carve-out / per block); none above the per-block limit
 * and the result is the smallest; every limit equal to it is a limiter.
 */
#include "occupancy.h"

static const uint16_t steps_70[] = { 0, 8, 16, 32, 64, 96 };
static const uint16_t steps_75[] = { 32, 64 };
static const uint16_t steps_80[] = { 0, 8, 16, 32, 64, 100, 132, 164 };
static const uint16_t steps_86[] = { 0, 8, 16, 32, 64, 100 };
static const uint16_t steps_90[] = { 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 };

#define STEPS(a) a, (uint32_t)G_N_ELEMENTS(a)
static const GpuCcLimits cc_table[] = {
    { 70, "Volta (V100)", 1024, 64, 32, 65536, 256, 255, 4, 256, 0, 48 << 10, 96 << 10,
      STEPS(steps_70), 2048, 98304, 32 },
    { 75, "Turing (T4, RTX 20)", 1024, 32, 16, 65536, 256, 255, 4, 256, 0, 48 << 10, 64 << 10,
      STEPS(steps_75), 0, 0, 0 },
    { 80, "Ampere (A100)", 1024, 64, 32, 65536, 256, 255, 4, 128, 1024, 48 << 10, 163 << 10,
      STEPS(steps_80), 2048, 167936, 32 },
    { 86, "Ampere (RTX 30, A40)", 1024, 48, 16, 65536, 256, 255, 4, 128, 1024, 48 << 10, 99 << 10,
      STEPS(steps_86), 1536, 102400, 32 },
    { 89, "Ada (RTX 40, L40)", 1024, 48, 24, 65536, 256, 255, 4, 128, 1024, 48 << 10, 99 << 10,
      STEPS(steps_86), 0, 0, 0 },
    { 90, "Hopper (H100, H200)", 1024, 64, 32, 65536, 256, 255, 4, 128, 1024, 48 << 10, 227 << 10,
      STEPS(steps_90), 2048, 233472, 32 },
};

const GpuCcLimits *gpu_cc_limits(uint32_t cc)
{
    for (size_t i = 0; i < G_N_ELEMENTS(cc_table); i++)
        if (cc_table[i].cc == cc)
            return &cc_table[i];
    return NULL;
}

const char *gpu_cc_list(void) { return "7.0, 7.5, 8.0, 8.6, 8.9, 9.0"; }

static uint64_t round_up(uint64_t x, uint64_t unit) { return (x + unit - 1) / unit * unit; }

/* The smallest carve-out step of at least bytes (the largest if none is). */
static uint64_t carveout_at_least(const GpuCcLimits *cc, uint64_t bytes)
{
    for (uint32_t i = 0; i < cc->ncarveouts; i++)
        if ((uint64_t)cc->carveout_kib[i] << 10 >= bytes)
            return (uint64_t)cc->carveout_kib[i] << 10;
    return (uint64_t)cc->carveout_kib[cc->ncarveouts - 1] << 10;
}

void gpu_occupancy(const GpuCcLimits *cc, const GpuOccInput *in, GpuOccResult *out)
{
    g_assert(in->threads >= 1 && in->threads <= cc->max_threads_block);
    g_assert(in->regs <= cc->max_regs_thread);
    *out = (GpuOccResult){ 0 };
    uint32_t w = (in->threads + 31) / 32;
    out->warps_per_block = w;
    out->max_warps = cc->max_warps;
    out->blocks_warps = cc->max_warps / w;
    out->blocks_slots = cc->max_blocks;
    /* registers */
    if (in->regs == 0) {
        out->blocks_regs = GPU_OCC_UNLIMITED;
    } else {
        uint32_t rpw = (uint32_t)round_up((uint64_t)in->regs * 32, cc->reg_unit);
        out->regs_per_warp = rpw;
        uint64_t assumed = (uint64_t)rpw * round_up(w, cc->sub_partitions);
        if (assumed > cc->regs || (uint64_t)rpw * w > cc->regs) {
            out->blocks_regs = 0;
            out->regs_over_block = true;
        } else {
            uint32_t per_sub = cc->regs / cc->sub_partitions / rpw;
            out->blocks_regs = per_sub * cc->sub_partitions / w;
        }
    }
    /* shared memory */
    uint64_t max_sm = (uint64_t)cc->carveout_kib[cc->ncarveouts - 1] << 10;
    uint64_t pref = in->carveout < 0 ? max_sm : carveout_at_least(cc, (uint64_t)in->carveout);
    uint64_t per_block = round_up(in->smem + cc->smem_reserve, cc->smem_unit);
    out->smem_per_block = per_block;
    out->smem_block_limit = (in->smem > cc->smem_block ? cc->smem_block_optin : cc->smem_block) +
                            cc->smem_reserve;
    if (per_block > out->smem_block_limit) {
        out->blocks_smem = 0;
        out->smem_over_block = true;
        out->smem_per_sm = pref;
    } else {
        out->smem_per_sm = pref >= per_block ? pref : carveout_at_least(cc, per_block);
        out->blocks_smem = per_block == 0 ? GPU_OCC_UNLIMITED
                                          : (uint32_t)MIN(out->smem_per_sm / per_block,
                                                          (uint64_t)GPU_OCC_UNLIMITED - 1);
    }
    uint32_t b = MIN(MIN(out->blocks_warps, out->blocks_slots), MIN(out->blocks_regs, out->blocks_smem));
    out->active_blocks = b;
    out->active_warps = b * w;
    out->occupancy_percent = 100.0 * out->active_warps / cc->max_warps;
    out->limiters = (b == out->blocks_warps ? GPU_LIMIT_WARPS : 0) |
                    (b == out->blocks_regs ? GPU_LIMIT_REGISTERS : 0) |
                    (b == out->blocks_smem ? GPU_LIMIT_SHARED : 0) |
                    (b == out->blocks_slots ? GPU_LIMIT_BLOCKS : 0);
}

uint32_t gpu_gpgpusim_max_cta(const GpuCcLimits *cc, const GpuOccInput *in, const char **why)
{
    *why = NULL;
    if (cc->gs_threads == 0)
        return 0;
    uint32_t padded = (uint32_t)round_up(in->threads, 32);
    uint32_t best = cc->gs_threads / padded;
    *why = "threads";
    if (in->smem > 0 && cc->gs_smem / in->smem < best) {
        best = (uint32_t)(cc->gs_smem / in->smem);
        *why = "shmem";
    }
    if (in->regs > 0) {
        uint32_t by_regs = cc->regs / (padded * (uint32_t)round_up(in->regs, 4));
        if (by_regs < best) {
            best = by_regs;
            *why = "regs";
        }
    }
    if (cc->gs_cta < best) {
        best = cc->gs_cta;
        *why = "cta_limit";
    }
    return best;
}

const char *gpu_limiter_name(uint32_t l)
{
    static const char *const names[16] = {
        "none", "warps", "registers", "warps+registers", "shared_memory", "warps+shared_memory",
        "registers+shared_memory", "warps+registers+shared_memory", "blocks", "warps+blocks",
        "registers+blocks", "warps+registers+blocks", "shared_memory+blocks",
        "warps+shared_memory+blocks", "registers+shared_memory+blocks",
        "warps+registers+shared_memory+blocks",
    };
    return names[l & 15];
}
