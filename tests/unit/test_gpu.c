/* test_gpu.c: CUnit tests for the GPU front end: occupancy (models/gpu/occupancy.c) against a
 * table of cases worked by hand from NVIDIA's rules (docs/gpu.md, "Occupancy", shows the
 * arithmetic of each), GPGPU-Sim's max_cta where it differs, the SASS opcode tables and widths,
 * and the trace reader (models/gpu/sasstrace.c) on every quirk of the format with exact error
 * positions, plain, gzip and xz. Run from the repo root.
 */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <lzma.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "../../models/gpu/coalesce.h"
#include "../../models/gpu/occupancy.h"
#include "../../models/gpu/opcodes.h"
#include "../../models/gpu/sasstrace.h"
#include "../../sim/error.h"
#include "tmpdir.h"

static char *tdir;

/* ---- occupancy ---- */

#define U GPU_OCC_UNLIMITED
typedef struct {
    uint32_t cc, threads, regs;
    uint64_t smem;
    int64_t carveout;
    uint32_t bw, br, bs, bb;        /* blocks by warps, registers, shared memory, slots */
    uint32_t blocks, warps;
    const char *limiter;
} OccCase;

/* docs/gpu.md's worked table ("Occupancy"), ids A1.. there: 20 per compute capability. The
 * expected values were worked from the rules independently of occupancy.c (the first 34 by hand,
 * all 120 by tools/occupancy-table.py, a separate implementation of the rules in Python that
 * prints each row's arithmetic); occupancy.c must agree with every one. */
static const OccCase occ_cases[] = {
    { 70, 256, 32, 0, -1, 8, 8, U, 32, 8, 64, "warps+registers" },  /* A1 */
    { 70, 128, 64, 0, -1, 16, 8, U, 32, 8, 32, "registers" },  /* A2 */
    { 70, 64, 16, 0, -1, 32, 64, U, 32, 32, 64, "warps+blocks" },  /* A3 */
    { 70, 256, 0, 40000, -1, 8, U, 2, 32, 2, 16, "shared_memory" },  /* A4 */
    { 70, 32, 255, 0, -1, 64, 8, U, 32, 8, 8, "registers" },  /* A5 */
    { 70, 128, 0, 10240, 16384, 16, U, 1, 32, 1, 4, "shared_memory" },  /* A6 */
    { 70, 64, 0, 20000, 0, 32, U, 1, 32, 1, 2, "shared_memory" },  /* A7 */
    { 70, 32, 0, 0, -1, 64, U, U, 32, 32, 32, "blocks" },  /* A8 */
    { 70, 64, 24, 0, -1, 32, 42, U, 32, 32, 64, "warps+blocks" },  /* A9 */
    { 70, 96, 32, 0, -1, 21, 21, U, 32, 21, 63, "warps+registers" },  /* A10 */
    { 70, 128, 48, 0, -1, 16, 10, U, 32, 10, 40, "registers" },  /* A11 */
    { 70, 160, 40, 0, -1, 12, 9, U, 32, 9, 45, "registers" },  /* A12 */
    { 70, 192, 64, 0, -1, 10, 5, U, 32, 5, 30, "registers" },  /* A13 */
    { 70, 224, 32, 4096, -1, 9, 9, 24, 32, 9, 63, "warps+registers" },  /* A14 */
    { 70, 256, 48, 0, -1, 8, 5, U, 32, 5, 40, "registers" },  /* A15 */
    { 70, 256, 64, 16384, -1, 8, 4, 6, 32, 4, 32, "registers" },  /* A16 */
    { 70, 320, 32, 0, -1, 6, 6, U, 32, 6, 60, "warps+registers" },  /* A17 */
    { 70, 384, 64, 0, -1, 5, 2, U, 32, 2, 24, "registers" },  /* A18 */
    { 70, 512, 32, 0, -1, 4, 4, U, 32, 4, 64, "warps+registers" },  /* A19 */
    { 70, 512, 40, 8192, -1, 4, 3, 12, 32, 3, 48, "registers" },  /* A20 */
    { 75, 256, 32, 0, -1, 4, 8, U, 16, 4, 32, "warps" },  /* B1 */
    { 75, 128, 64, 0, -1, 8, 8, U, 16, 8, 32, "warps+registers" },  /* B2 */
    { 75, 32, 32, 0, -1, 32, 64, U, 16, 16, 16, "blocks" },  /* B3 */
    { 75, 256, 16, 20480, -1, 4, 16, 3, 16, 3, 24, "shared_memory" },  /* B4 */
    { 75, 32, 0, 0, -1, 32, U, U, 16, 16, 16, "blocks" },  /* B5 */
    { 75, 64, 24, 0, -1, 16, 42, U, 16, 16, 32, "warps+blocks" },  /* B6 */
    { 75, 96, 32, 0, -1, 10, 21, U, 16, 10, 30, "warps" },  /* B7 */
    { 75, 128, 48, 0, -1, 8, 10, U, 16, 8, 32, "warps" },  /* B8 */
    { 75, 160, 40, 0, -1, 6, 9, U, 16, 6, 30, "warps" },  /* B9 */
    { 75, 192, 64, 0, -1, 5, 5, U, 16, 5, 30, "warps+registers" },  /* B10 */
    { 75, 224, 32, 4096, -1, 4, 9, 16, 16, 4, 28, "warps" },  /* B11 */
    { 75, 256, 48, 0, -1, 4, 5, U, 16, 4, 32, "warps" },  /* B12 */
    { 75, 256, 64, 16384, -1, 4, 4, 4, 16, 4, 32, "warps+registers+shared_memory" },  /* B13 */
    { 75, 320, 32, 0, -1, 3, 6, U, 16, 3, 30, "warps" },  /* B14 */
    { 75, 384, 64, 0, -1, 2, 2, U, 16, 2, 24, "warps+registers" },  /* B15 */
    { 75, 512, 32, 0, -1, 2, 4, U, 16, 2, 32, "warps" },  /* B16 */
    { 75, 512, 40, 8192, -1, 2, 3, 8, 16, 2, 32, "warps" },  /* B17 */
    { 75, 640, 24, 0, -1, 1, 4, U, 16, 1, 20, "warps" },  /* B18 */
    { 75, 768, 32, 0, -1, 1, 2, U, 16, 1, 24, "warps" },  /* B19 */
    { 75, 768, 80, 0, -1, 1, 1, U, 16, 1, 24, "warps+registers" },  /* B20 */
    { 80, 256, 32, 49152, -1, 8, 8, 3, 32, 3, 24, "shared_memory" },  /* C1 */
    { 80, 256, 32, 0, -1, 8, 8, 164, 32, 8, 64, "warps+registers" },  /* C2 */
    { 80, 1024, 64, 0, -1, 2, 1, 164, 32, 1, 32, "registers" },  /* C3 */
    { 80, 1024, 65, 0, -1, 2, 0, 164, 32, 0, 0, "registers" },  /* C4 */
    { 80, 96, 40, 0, -1, 21, 16, 164, 32, 16, 48, "registers" },  /* C5 */
    { 80, 128, 0, 102400, -1, 16, U, 1, 32, 1, 4, "shared_memory" },  /* C6 */
    { 80, 128, 0, 167936, -1, 16, U, 0, 32, 0, 0, "shared_memory" },  /* C7 */
    { 80, 32, 8, 0, -1, 64, 256, 164, 32, 32, 32, "blocks" },  /* C8 */
    { 80, 64, 0, 2000, 8192, 32, U, 2, 32, 2, 4, "shared_memory" },  /* C9 */
    { 80, 32, 0, 0, -1, 64, U, 164, 32, 32, 32, "blocks" },  /* C10 */
    { 80, 64, 24, 0, -1, 32, 42, 164, 32, 32, 64, "warps+blocks" },  /* C11 */
    { 80, 96, 32, 0, -1, 21, 21, 164, 32, 21, 63, "warps+registers" },  /* C12 */
    { 80, 128, 48, 0, -1, 16, 10, 164, 32, 10, 40, "registers" },  /* C13 */
    { 80, 160, 40, 0, -1, 12, 9, 164, 32, 9, 45, "registers" },  /* C14 */
    { 80, 192, 64, 0, -1, 10, 5, 164, 32, 5, 30, "registers" },  /* C15 */
    { 80, 224, 32, 4096, -1, 9, 9, 32, 32, 9, 63, "warps+registers" },  /* C16 */
    { 80, 256, 48, 0, -1, 8, 5, 164, 32, 5, 40, "registers" },  /* C17 */
    { 80, 256, 64, 16384, -1, 8, 4, 9, 32, 4, 32, "registers" },  /* C18 */
    { 80, 320, 32, 0, -1, 6, 6, 164, 32, 6, 60, "warps+registers" },  /* C19 */
    { 80, 384, 64, 0, -1, 5, 2, 164, 32, 2, 24, "registers" },  /* C20 */
    { 86, 256, 32, 0, -1, 6, 8, 100, 16, 6, 48, "warps" },  /* D1 */
    { 86, 128, 32, 0, -1, 12, 16, 100, 16, 12, 48, "warps" },  /* D2 */
    { 86, 64, 32, 0, -1, 24, 32, 100, 16, 16, 32, "blocks" },  /* D3 */
    { 86, 256, 32, 32768, -1, 6, 8, 3, 16, 3, 24, "shared_memory" },  /* D4 */
    { 86, 512, 72, 0, -1, 3, 1, 100, 16, 1, 16, "registers" },  /* D5 */
    { 86, 32, 0, 0, -1, 48, U, 100, 16, 16, 16, "blocks" },  /* D6 */
    { 86, 64, 24, 0, -1, 24, 42, 100, 16, 16, 32, "blocks" },  /* D7 */
    { 86, 96, 32, 0, -1, 16, 21, 100, 16, 16, 48, "warps+blocks" },  /* D8 */
    { 86, 128, 48, 0, -1, 12, 10, 100, 16, 10, 40, "registers" },  /* D9 */
    { 86, 160, 40, 0, -1, 9, 9, 100, 16, 9, 45, "warps+registers" },  /* D10 */
    { 86, 192, 64, 0, -1, 8, 5, 100, 16, 5, 30, "registers" },  /* D11 */
    { 86, 224, 32, 4096, -1, 6, 9, 20, 16, 6, 42, "warps" },  /* D12 */
    { 86, 256, 48, 0, -1, 6, 5, 100, 16, 5, 40, "registers" },  /* D13 */
    { 86, 256, 64, 16384, -1, 6, 4, 5, 16, 4, 32, "registers" },  /* D14 */
    { 86, 320, 32, 0, -1, 4, 6, 100, 16, 4, 40, "warps" },  /* D15 */
    { 86, 384, 64, 0, -1, 4, 2, 100, 16, 2, 24, "registers" },  /* D16 */
    { 86, 512, 32, 0, -1, 3, 4, 100, 16, 3, 48, "warps" },  /* D17 */
    { 86, 512, 40, 8192, -1, 3, 3, 11, 16, 3, 48, "warps+registers" },  /* D18 */
    { 86, 640, 24, 0, -1, 2, 4, 100, 16, 2, 40, "warps" },  /* D19 */
    { 86, 768, 32, 0, -1, 2, 2, 100, 16, 2, 48, "warps+registers" },  /* D20 */
    { 89, 64, 32, 0, -1, 24, 32, 100, 24, 24, 48, "warps+blocks" },  /* E1 */
    { 89, 32, 16, 0, -1, 48, 128, 100, 24, 24, 24, "blocks" },  /* E2 */
    { 89, 256, 128, 0, -1, 6, 2, 100, 24, 2, 16, "registers" },  /* E3 */
    { 89, 128, 0, 49152, -1, 12, U, 2, 24, 2, 8, "shared_memory" },  /* E4 */
    { 89, 32, 0, 0, -1, 48, U, 100, 24, 24, 24, "blocks" },  /* E5 */
    { 89, 64, 24, 0, -1, 24, 42, 100, 24, 24, 48, "warps+blocks" },  /* E6 */
    { 89, 96, 32, 0, -1, 16, 21, 100, 24, 16, 48, "warps" },  /* E7 */
    { 89, 128, 48, 0, -1, 12, 10, 100, 24, 10, 40, "registers" },  /* E8 */
    { 89, 160, 40, 0, -1, 9, 9, 100, 24, 9, 45, "warps+registers" },  /* E9 */
    { 89, 192, 64, 0, -1, 8, 5, 100, 24, 5, 30, "registers" },  /* E10 */
    { 89, 224, 32, 4096, -1, 6, 9, 20, 24, 6, 42, "warps" },  /* E11 */
    { 89, 256, 48, 0, -1, 6, 5, 100, 24, 5, 40, "registers" },  /* E12 */
    { 89, 256, 64, 16384, -1, 6, 4, 5, 24, 4, 32, "registers" },  /* E13 */
    { 89, 320, 32, 0, -1, 4, 6, 100, 24, 4, 40, "warps" },  /* E14 */
    { 89, 384, 64, 0, -1, 4, 2, 100, 24, 2, 24, "registers" },  /* E15 */
    { 89, 512, 32, 0, -1, 3, 4, 100, 24, 3, 48, "warps" },  /* E16 */
    { 89, 512, 40, 8192, -1, 3, 3, 11, 24, 3, 48, "warps+registers" },  /* E17 */
    { 89, 640, 24, 0, -1, 2, 4, 100, 24, 2, 40, "warps" },  /* E18 */
    { 89, 768, 32, 0, -1, 2, 2, 100, 24, 2, 48, "warps+registers" },  /* E19 */
    { 89, 768, 80, 0, -1, 2, 1, 100, 24, 1, 24, "registers" },  /* E20 */
    { 90, 256, 32, 49152, -1, 8, 8, 4, 32, 4, 32, "shared_memory" },  /* F1 */
    { 90, 128, 168, 0, -1, 16, 3, 228, 32, 3, 12, "registers" },  /* F2 */
    { 90, 384, 40, 0, -1, 5, 4, 228, 32, 4, 48, "registers" },  /* F3 */
    { 90, 128, 0, 204800, -1, 16, U, 1, 32, 1, 4, "shared_memory" },  /* F4 */
    { 90, 1024, 32, 0, -1, 2, 2, 228, 32, 2, 64, "warps+registers" },  /* F5 */
    { 90, 32, 0, 0, -1, 64, U, 228, 32, 32, 32, "blocks" },  /* F6 */
    { 90, 64, 24, 0, -1, 32, 42, 228, 32, 32, 64, "warps+blocks" },  /* F7 */
    { 90, 96, 32, 0, -1, 21, 21, 228, 32, 21, 63, "warps+registers" },  /* F8 */
    { 90, 128, 48, 0, -1, 16, 10, 228, 32, 10, 40, "registers" },  /* F9 */
    { 90, 160, 40, 0, -1, 12, 9, 228, 32, 9, 45, "registers" },  /* F10 */
    { 90, 192, 64, 0, -1, 10, 5, 228, 32, 5, 30, "registers" },  /* F11 */
    { 90, 224, 32, 4096, -1, 9, 9, 45, 32, 9, 63, "warps+registers" },  /* F12 */
    { 90, 256, 48, 0, -1, 8, 5, 228, 32, 5, 40, "registers" },  /* F13 */
    { 90, 256, 64, 16384, -1, 8, 4, 13, 32, 4, 32, "registers" },  /* F14 */
    { 90, 320, 32, 0, -1, 6, 6, 228, 32, 6, 60, "warps+registers" },  /* F15 */
    { 90, 384, 64, 0, -1, 5, 2, 228, 32, 2, 24, "registers" },  /* F16 */
    { 90, 512, 32, 0, -1, 4, 4, 228, 32, 4, 64, "warps+registers" },  /* F17 */
    { 90, 512, 40, 8192, -1, 4, 3, 25, 32, 3, 48, "registers" },  /* F18 */
    { 90, 640, 24, 0, -1, 3, 4, 228, 32, 3, 60, "warps" },  /* F19 */
    { 90, 768, 32, 0, -1, 2, 2, 228, 32, 2, 48, "warps+registers" },  /* F20 */
};

static void test_occupancy_table(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(occ_cases); i++) {
        const OccCase *c = &occ_cases[i];
        const GpuCcLimits *lim = gpu_cc_limits(c->cc);
        CU_ASSERT_PTR_NOT_NULL_FATAL(lim);
        GpuOccInput in = { c->threads, c->regs, c->smem, c->carveout };
        GpuOccResult r;
        gpu_occupancy(lim, &in, &r);
        bool ok = r.blocks_warps == c->bw && r.blocks_regs == c->br && r.blocks_smem == c->bs &&
                  r.blocks_slots == c->bb && r.active_blocks == c->blocks &&
                  r.active_warps == c->warps && strcmp(gpu_limiter_name(r.limiters), c->limiter) == 0;
        if (!ok)
            fprintf(stderr, "\ncase %zu (cc %u, %u threads, %u regs, %" G_GUINT64_FORMAT " B): got "
                    "%u/%u/%u/%u -> %u blocks %u warps %s\n", i, c->cc, c->threads, c->regs, c->smem,
                    r.blocks_warps, r.blocks_regs, r.blocks_smem, r.blocks_slots, r.active_blocks,
                    r.active_warps, gpu_limiter_name(r.limiters));
        CU_ASSERT(ok);
        CU_ASSERT_DOUBLE_EQUAL(r.occupancy_percent, 100.0 * c->warps / lim->max_warps, 1e-9);
    }
    CU_ASSERT(G_N_ELEMENTS(occ_cases) >= 6 * 20);
}

static void test_occupancy_gpgpusim(void)
{
    const char *why;
    /* cc 8.6: the hardware holds 16 blocks; the tested config's 32 CTAs and 1536 threads let
     * GPGPU-Sim place 1536 / 64 = 24 */
    GpuOccInput in = { 64, 32, 0, -1 };
    CU_ASSERT_EQUAL(gpu_gpgpusim_max_cta(gpu_cc_limits(86), &in, &why), 24);
    CU_ASSERT_STRING_EQUAL(why, "threads");
    /* cc 8.0, 33 registers: NVIDIA allocates 1,280 per warp (6 blocks of 8 warps), GPGPU-Sim
     * rounds to 36 per thread: 65536 / (256 x 36) = 7 */
    GpuOccInput in2 = { 256, 33, 0, -1 };
    GpuOccResult r;
    gpu_occupancy(gpu_cc_limits(80), &in2, &r);
    CU_ASSERT_EQUAL(r.active_blocks, 6);
    CU_ASSERT_EQUAL(gpu_gpgpusim_max_cta(gpu_cc_limits(80), &in2, &why), 7);
    CU_ASSERT_STRING_EQUAL(why, "regs");
    /* no tested config for 7.5 */
    CU_ASSERT_EQUAL(gpu_gpgpusim_max_cta(gpu_cc_limits(75), &in2, &why), 0);
    CU_ASSERT_PTR_NULL(gpu_cc_limits(61));
}

/* ---- opcodes ---- */

static void test_opcodes(void)
{
    CU_ASSERT_EQUAL(gpu_opcode_class(80, "IMAD.MOV.U32"), GPU_UNIT_INT);
    CU_ASSERT_EQUAL(gpu_opcode_class(80, "ULDC.64"), GPU_UNIT_UNIFORM);
    CU_ASSERT_EQUAL(gpu_opcode_class(70, "ULDC.64"), GPU_UNIT_UNKNOWN);    /* no uniform datapath */
    CU_ASSERT_EQUAL(gpu_opcode_class(90, "FFMA"), GPU_UNIT_FP32);
    CU_ASSERT_EQUAL(gpu_opcode_class(90, "HGMMA.64x128x16.F32"), GPU_UNIT_TENSOR);
    CU_ASSERT_EQUAL(gpu_opcode_class(80, "HGMMA.64x128x16.F32"), GPU_UNIT_UNKNOWN);
    CU_ASSERT_EQUAL(gpu_opcode_class(80, "LDG.E.U8"), GPU_UNIT_LDST);
    CU_ASSERT_EQUAL(gpu_opcode_class(80, "MUFU.EX2"), GPU_UNIT_SFU);
    CU_ASSERT_EQUAL(gpu_opcode_class(80, "EXIT"), GPU_UNIT_BRANCH);
    CU_ASSERT_EQUAL(gpu_opcode_class(80, "BAR.SYNC.DEFER_BLOCKING"), GPU_UNIT_BARRIER);
    CU_ASSERT_EQUAL(gpu_opcode_class(80, "LDGX"), GPU_UNIT_UNKNOWN);       /* whole mnemonic */
    CU_ASSERT_EQUAL(gpu_opcode_class(61, "FFMA"), GPU_UNIT_UNKNOWN);
    CU_ASSERT_EQUAL(gpu_opcode_width("LDG.E.128"), 16);
    CU_ASSERT_EQUAL(gpu_opcode_width("LDG.E.64.CONSTANT"), 8);
    CU_ASSERT_EQUAL(gpu_opcode_width("LDG.E.U8"), 1);
    CU_ASSERT_EQUAL(gpu_opcode_width("STS.U16"), 2);
    CU_ASSERT_EQUAL(gpu_opcode_width("LDG.E.S16"), 4);                    /* Accel-Sim's fallback */
    CU_ASSERT_EQUAL(gpu_opcode_width("LDG.E"), 4);
    CU_ASSERT_STRING_EQUAL(gpu_generation(86), "Ampere");
    CU_ASSERT_PTR_NULL(gpu_generation(61));
}

/* ---- the trace reader ---- */

static char *put(const char *name, const char *text)
{
    char *p = g_build_filename(tdir, name, NULL);
    CU_ASSERT_FATAL(g_file_set_contents(p, text, -1, NULL));
    return p;
}

#define HDR(ver, extra)                                                                    \
    "-kernel name = _Z3fooPf\n-kernel id = 3\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n"  \
    "-shmem = 256\n-nregs = 16\n-binary version = 80\n-cuda stream id = 0\n"                \
    "-shmem base_addr = 0x00007f0000000000\n-local mem base_addr = 0x00007e0000000000\n"    \
    "-nvbit version = 1.5.3\n-accelsim tracer version = " ver "\n" extra                    \
    "\n#traces format = whatever the tracer wrote\n\n"

static const char v3_ok[] =
    HDR("3", "")
    "#BEGIN_TB\n\nthread block = 1,0,0\n\nwarp = 1\ninsts = 6\n"
    "0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 \n"
    "0010 0000000f 1 R2 LDG.E.64 1 R4 8 1 0x1000 8 \n"
    "0020 00000005 1 R3 LDG.E.U8 1 R4 1 2 0x2000 -16 \n"
    "0030 00000000 1 R7 LDG.E 1 R4 4 1 0x0 0 \n"
    "0040 80000000 0 STG.E.128 2 R2 R3 16 0 0x3000 \n"
    "0050 ffffffff 0 EXIT 0 0 \n"
    "warp = 0\ninsts = 1\n"
    "0000 ffffffff 0 ULDC.64 0 0 \n"
    "#END_TB\n\n";

static void test_reader_v3(void)
{
    char *p = put("v3.traceg", v3_ok);
    GError *e = NULL;
    SassReader *r = sass_open(p, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    const SassKernel *k = sass_kernel(r);
    CU_ASSERT_STRING_EQUAL(k->name, "_Z3fooPf");
    CU_ASSERT_EQUAL(k->id, 3);
    CU_ASSERT_EQUAL(k->grid[0], 2);
    CU_ASSERT_EQUAL(k->warps_per_block, 2);
    CU_ASSERT_EQUAL(k->shmem, 256);
    CU_ASSERT_EQUAL(k->tracer_version, 3);
    CU_ASSERT_EQUAL(k->shmem_base, 0x7f0000000000ull);
    SassBlock b = { 0 };
    CU_ASSERT_EQUAL_FATAL(sass_next_block(r, &b, &e), 1);
    CU_ASSERT_EQUAL(b.x, 1);
    CU_ASSERT_EQUAL(b.nwarps, 2);
    CU_ASSERT_EQUAL(b.warps[0].warp, 1);
    CU_ASSERT_EQUAL(b.warps[0].n, 6);
    CU_ASSERT_EQUAL(b.warps[1].warp, 0);
    CU_ASSERT_EQUAL(b.ninsts, 7);
    const SassInst *in = b.insts;
    CU_ASSERT_EQUAL(in[0].ndst, 1);
    CU_ASSERT_EQUAL(in[0].dst[0], SASS_REG(SASS_REG_R, 1));
    CU_ASSERT_EQUAL(in[0].src[1], SASS_REG(SASS_REG_R, 255));
    CU_ASSERT_EQUAL(in[0].width, 0);
    CU_ASSERT_EQUAL(in[0].unit, GPU_UNIT_INT);
    /* mode 1: lanes 0-3 at base + k * 8; the width is the opcode's (.64) */
    CU_ASSERT_EQUAL(in[1].width, 8);
    CU_ASSERT_EQUAL(in[1].space, SASS_SPACE_GLOBAL);
    CU_ASSERT_EQUAL(b.addrs[in[1].addr + 3], 0x1000 + 24);
    /* mode 2, mask 0101: two lanes, one delta (popcount - 1), negative */
    CU_ASSERT_EQUAL(in[2].width, 1);
    CU_ASSERT_EQUAL(b.addrs[in[2].addr], 0x2000);
    CU_ASSERT_EQUAL(b.addrs[in[2].addr + 1], 0x2000 - 16);
    /* mask 0: a memory instruction with no address */
    CU_ASSERT_EQUAL(in[3].mask, 0);
    CU_ASSERT_EQUAL(in[3].width, 4);
    CU_ASSERT_EQUAL(in[4].addr, in[3].addr);
    /* one lane, mode 2: the base only; .128 -> 16 B */
    CU_ASSERT_EQUAL(in[4].width, 16);
    CU_ASSERT_EQUAL(b.addrs[in[4].addr], 0x3000);
    CU_ASSERT_EQUAL(b.naddrs, 4 + 2 + 1);
    CU_ASSERT_EQUAL(in[5].unit, GPU_UNIT_BRANCH);
    CU_ASSERT_STRING_EQUAL(sass_opcode(r, in[6].op), "ULDC.64");
    CU_ASSERT_EQUAL(in[6].unit, GPU_UNIT_UNIFORM);
    CU_ASSERT_FALSE(in[0].has_imm);
    CU_ASSERT_EQUAL(sass_next_block(r, &b, &e), 0);
    CU_ASSERT_PTR_NULL(e);
    sass_block_clear(&b);
    sass_close(r);
    g_free(p);
}

static void test_reader_v5_lineinfo_old_clusters(void)
{
    GError *e = NULL;
    SassBlock b = { 0 };
    /* v5 with source lines: line number first, immediate last (after the deltas) */
    char *p = put("v5.traceg", HDR("5", "-enable lineinfo = 1\n")
                  "#BEGIN_TB\nthread block = 0,0,0\ncluster id = 0,0,0\ncluster cta = 1,0,0\n"
                  "cluster rank = 1\nwarp = 0\ninsts = 2\n"
                  "17 0020 0000ffff 1 R0 MOV 0 0 1077937386 \n"
                  "18 0030 00000003 1 R2 LDS.U16 1 R4 2 2 0x10 4 -5 \n#END_TB\n");
    SassReader *r = sass_open(p, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL_FATAL(sass_next_block(r, &b, &e), 1);
    CU_ASSERT(b.cluster);
    CU_ASSERT_EQUAL(b.cluster_cta[0], 1);
    CU_ASSERT_EQUAL(b.cluster_rank, 1);
    CU_ASSERT_EQUAL(b.insts[0].src_line, 17);
    CU_ASSERT(b.insts[0].has_imm);
    CU_ASSERT_EQUAL(b.insts[0].imm, 1077937386);
    CU_ASSERT_EQUAL(b.insts[1].imm, -5);
    CU_ASSERT_EQUAL(b.insts[1].space, SASS_SPACE_SHARED);
    CU_ASSERT_EQUAL(b.insts[1].width, 2);
    CU_ASSERT_EQUAL(b.addrs[b.insts[1].addr + 1], 0x14);
    sass_close(r);
    g_free(p);
    /* tracer version 2: block and warp numbers lead every line */
    p = put("v2.traceg", HDR("2", "") "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n"
                                        "0 0 0 0 0000 ffffffff 0 EXIT 0 0 \n#END_TB\n");
    r = sass_open(p, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(sass_next_block(r, &b, &e), 1);
    CU_ASSERT_EQUAL(b.insts[0].mask, 0xffffffffu);
    sass_close(r);
    g_free(p);
    /* generic space by Accel-Sim's rule */
    SassKernel k = { .shmem_base = 0x7f0000000000ull, .local_base = 0x7f1000000000ull };
    CU_ASSERT_EQUAL(sass_generic_space(&k, 0x7f0000000010ull), SASS_SPACE_SHARED);
    CU_ASSERT_EQUAL(sass_generic_space(&k, 0x7f1000000010ull), SASS_SPACE_LOCAL);
    CU_ASSERT_EQUAL(sass_generic_space(&k, 0x7f1000004000ull), SASS_SPACE_GLOBAL);
    k.local_base = 0;
    CU_ASSERT_EQUAL(sass_generic_space(&k, 0x1234), SASS_SPACE_SHARED);
    sass_block_clear(&b);
}

/* Reads the whole file; returns the error's message (newly allocated) or NULL. */
static char *read_error(const char *name, const char *text)
{
    char *p = put(name, text);
    GError *e = NULL;
    SassReader *r = sass_open(p, &e);
    if (r) {
        SassBlock b = { 0 };
        while (sass_next_block(r, &b, &e) > 0)
            ;
        sass_block_clear(&b);
        sass_close(r);
    }
    g_free(p);
    if (!e)
        return NULL;
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_DATAERR);
    char *m = g_strdup(strchr(e->message, ':') ? strchr(e->message, ':') + 1 : e->message);
    g_error_free(e);
    return m;
}

#define TB(lines) "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n" lines "#END_TB\n"
static const struct {
    const char *text, *want;
} bad_traces[] = {
    /* header */
    { "garbage\n", "1:1: not an Accel-Sim .traceg file" },
    { HDR("3", "-block dim = (33,32,1)\n") TB("0000 ffffffff 0 EXIT 0 0 \n"),
      "13:14: block dim (33,32,1) is 1056 threads" },
    { "-kernel name = k\n-grid dim = (1,0,1)\n", "2:13: grid dim: expected (x,y,z)" },
    { "-kernel name = k\n-binary version = 61\n", "2:19: binary version 61: no SASS opcode table" },
    { "-kernel name = k\n-accelsim tracer version = 6\n", "2:28: accelsim tracer version 6" },
    { "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n#BEGIN_TB\n",
      "4:1: the header has no '-binary version = ...' line" },
    /* lines: field by field, the column of the bad field */
    { HDR("3", "") TB("0000 fffffffff 0 EXIT 0 0 \n"), "20:6: expected the active mask, 8 hex digits" },
    { HDR("3", "") TB("0000 ffffffff 1 Q1 MOV 0 0 \n"), "20:17: expected a register" },
    { HDR("3", "") TB("0000 ffffffff 0 exit 0 0 \n"), "20:17: expected an opcode" },
    { HDR("3", "") TB("0000 ffffffff 0 EXIT 9 0 \n"), "20:22: expected the number of source registers" },
    { HDR("3", "") TB("0000 ffffffff 0 EXIT 0 0 7 \n"), "20:26: unexpected '7' after the instruction (a tracer version below 5 has no immediate)" },
    { HDR("5", "") TB("0000 ffffffff 0 EXIT 0 0 \n"), "20:25: the line ends before its immediate" },
    { HDR("3", "") TB("0000 00000007 1 R2 LDG.E 1 R4 4 2 0x10 4 \n"),
      "20:41: the line ends before its address deltas" },
    { HDR("3", "") TB("0000 00000003 1 R2 LDG.E 1 R4 4 3 0x10 4 \n"), "20:33: expected the address mode" },
    { HDR("5", "") TB("0000 00000003 1 R2 LDG.E 1 R4 4 2 0x10 4 8 9 \n"),
      "20:44: unexpected '9' after the instruction" },
    /* structure */
    { HDR("3", "") "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n0000 ffffffff 0 EXIT 0 0 \n#END_TB\n",
      "21:1: 'insts = 2' at line 19 but only 1 instruction lines follow" },
    { HDR("3", "") "#BEGIN_TB\nthread block = 0,0,0\nwarp = 2\n", "18:8: warp 2 of a block of 64 threads (2 warps)" },
    { HDR("3", "") "#BEGIN_TB\nthread block = 2,0,0\n", "17:16: thread block (2,0,0) is outside the grid (2,1,1)" },
    { HDR("3", "") "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 0\nwarp = 0\n",
      "20:8: warp 0 appears twice in this thread block" },
    { HDR("3", "") "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 0\n",
      "the file ends inside the thread block that starts at line 16 (no #END_TB)" },
    { HDR("3", "") "#BEGIN_TB\nwarp = 0\n", "17:1: a warp before the block's 'thread block = x,y,z' line" },
    { HDR("3", "") "thread block = 0,0,0\n", "16:1: expected a '-KEY = VALUE' header line or #BEGIN_TB" },
};

static void test_reader_errors(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(bad_traces); i++) {
        char name[32];
        g_snprintf(name, sizeof name, "bad%zu.traceg", i);
        char *m = read_error(name, bad_traces[i].text);
        bool ok = m && strstr(m, bad_traces[i].want);
        if (!ok)
            fprintf(stderr, "\nbad trace %zu: wanted '%s', got '%s'\n", i, bad_traces[i].want,
                    m ? m : "(no error)");
        CU_ASSERT(ok);
        g_free(m);
    }
}

static void write_gz(const char *path, const char *text, size_t n)
{
    gzFile g = gzopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT(gzwrite(g, text, (unsigned)n) == (int)n);
    gzclose(g);
}

static void write_xz(const char *path, const char *text, size_t n, size_t cut)
{
    size_t cap = n + 4096, out = 0;
    uint8_t *buf = g_malloc(cap);
    CU_ASSERT_FATAL(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)text, n,
                                            buf, &out, cap) == LZMA_OK);
    CU_ASSERT_FATAL(g_file_set_contents(path, (const char *)buf, (gssize)(out - cut), NULL));
    g_free(buf);
}

static int count_insts(const char *path, GError **e)
{
    SassReader *r = sass_open(path, e);
    if (!r)
        return -1;
    SassBlock b = { 0 };
    int n = 0, got;
    while ((got = sass_next_block(r, &b, e)) > 0)
        n += (int)b.ninsts;
    sass_block_clear(&b);
    sass_close(r);
    return got < 0 ? -1 : n;
}

/* ---- the one-pass reader against the field-by-field one ----
 *
 * Instruction lines are read in one pass, and a line that pass refuses is read again field by
 * field to name its error (sasstrace.c). Both must give the same instruction, the same
 * addresses and the same error, on valid lines of every shape and on lines broken every way. */

static uint64_t lcg;
static uint32_t rnd(uint32_t n)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(lcg >> 33) % n;
}

static void rnd_reg(GString *l)
{
    static const char *const kinds[] = { "R", "UR", "P", "UP", "R", "R" };
    const char *k = kinds[rnd(6)];
    uint32_t max = k[0] == 'R' ? 256 : k[1] == 'R' ? 64 : 8;
    g_string_append_printf(l, "%s%u ", k, rnd(max + (rnd(400) == 0 ? 300 : 0)));
}

/* a valid line for tracer version ver (lineinfo li), random in every field */
static void rnd_line(GString *l, uint32_t ver, bool li)
{
    static const char *const ops[] = { "IMAD.MOV.U32", "LDG.E.64", "STG.E", "LDS.U.128",
                                       "ATOMG.E.ADD.STRONG.GPU", "EXIT", "S2R", "LD.E",
                                       "RED.E.ADD.STRONG.GPU", "LDGSTS.E.BYPASS.128", "BAR.SYNC",
                                       "FFMA", "LDC.64", "ULDC" };
    static const uint32_t masks[] = { 0xffffffffu, 0, 1, 0x80000000u, 0x0000ffffu, 0x55555555u };
    if (ver < 3)
        g_string_append_printf(l, "%u %u %u %u ", rnd(4), rnd(2), rnd(2), rnd(2));
    if (li)
        g_string_append_printf(l, "%u ", rnd(5000));
    uint32_t mask = rnd(3) ? masks[rnd(6)] : (uint32_t)(lcg >> 11);
    g_string_append_printf(l, rnd(4) ? "%04x " : "0x%x ", rnd(0x10000) * 16);
    g_string_append_printf(l, rnd(4) ? "%08x " : "%x ", mask);
    uint32_t nd = rnd(5), ns = rnd(9);
    g_string_append_printf(l, "%u ", nd);
    for (uint32_t i = 0; i < nd; i++)
        rnd_reg(l);
    g_string_append_printf(l, "%s %u ", ops[rnd(G_N_ELEMENTS(ops))], ns);
    for (uint32_t i = 0; i < ns; i++)
        rnd_reg(l);
    if (rnd(2)) {
        g_string_append(l, "0 ");
    } else {
        uint32_t lanes = (uint32_t)__builtin_popcount(mask), mode = rnd(3);
        g_string_append_printf(l, "%u %u ", 1u << rnd(5), mode);
        if (mode == 0)
            for (uint32_t i = 0; i < lanes; i++)
                g_string_append_printf(l, "0x%" G_GINT64_MODIFIER "x ",
                                       (uint64_t)0x7f0000000000ull + rnd(1u << 20));
        else if (mode == 1)
            g_string_append_printf(l, "0x%x %d ", 0x1000 + rnd(4096), (int)rnd(65) - 32);
        else {
            g_string_append_printf(l, "0x%x ", 0x2000 + rnd(4096));
            for (uint32_t i = 1; i < lanes; i++)
                g_string_append_printf(l, "%d ", (int)rnd(257) - 128);
        }
    }
    if (ver >= 5)
        g_string_append_printf(l, "%d ", (int)rnd(2001) - 1000);
}

/* a mutation: a byte changed, dropped, doubled or inserted, a field's digits stretched */
static void mutate(GString *l)
{
    static const char pool[] = "0123456789abcdefxXRUP-+ \t.#_AZz\x01";
    if (l->len == 0)
        return;
    uint32_t at = rnd((uint32_t)l->len);
    switch (rnd(7)) {
    case 0:
        l->str[at] = pool[rnd(sizeof pool - 1)];
        break;
    case 1:
        g_string_erase(l, at, 1);
        break;
    case 2:
        g_string_insert_c(l, at, pool[rnd(sizeof pool - 1)]);
        break;
    case 3:
        g_string_insert(l, at, "00000000000000000000");
        break;
    case 4:
        g_string_insert(l, at, "99999999999999999999 ");
        break;
    case 5:
        g_string_truncate(l, at);
        break;
    default:
        g_string_insert(l, at, " 7 ");
        break;
    }
    /* NUL bytes are the line reader's business, newlines end the line early: neither here */
    for (gsize i = 0; i < l->len; i++)
        if (l->str[i] == '\0' || l->str[i] == '\n')
            l->str[i] = ' ';
}

/* reads path one way: the block, or the error text */
static int read_one(const char *path, bool one_pass, SassBlock *b, char **err, GPtrArray *ops)
{
    sass_set_one_pass(one_pass);
    GError *e = NULL;
    SassReader *r = sass_open(path, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    int got = sass_next_block(r, b, &e);
    *err = got < 0 ? g_strdup(e->message) : NULL;
    g_clear_error(&e);
    for (uint64_t i = 0; got > 0 && i < b->ninsts; i++)
        g_ptr_array_add(ops, g_strdup(sass_opcode(r, b->insts[i].op)));
    sass_close(r);
    sass_set_one_pass(true);
    return got;
}

static void test_reader_one_pass(void)
{
    lcg = 20261205;
    char *p = g_build_filename(tdir, "diff.traceg", NULL);
    uint32_t same_ok = 0, same_err = 0;
    for (uint32_t c = 0; c < 4000; c++) {
        uint32_t ver = (uint32_t[]){ 2, 3, 4, 5 }[rnd(4)];
        bool li = rnd(3) == 0;
        GString *t = g_string_new(NULL);
        g_string_append_printf(t, "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
                               "-binary version = 80\n-accelsim tracer version = %u\n"
                               "-enable lineinfo = %d\n\n#BEGIN_TB\nthread block = 0,0,0\n"
                               "warp = 0\ninsts = 2\n", ver, li);
        for (int j = 0; j < 2; j++) {
            GString *l = g_string_new(NULL);
            rnd_line(l, ver, li);
            if (j == 1 && rnd(4) != 0)
                for (uint32_t m = 1 + rnd(2); m > 0; m--)
                    mutate(l);
            g_string_append_len(t, l->str, (gssize)l->len);
            g_string_append_c(t, '\n');
            g_string_free(l, TRUE);
        }
        g_string_append(t, "#END_TB\n");
        CU_ASSERT_FATAL(g_file_set_contents(p, t->str, (gssize)t->len, NULL));
        SassBlock a = { 0 }, b = { 0 };
        char *ea, *eb;
        GPtrArray *oa = g_ptr_array_new_with_free_func(g_free);
        GPtrArray *ob = g_ptr_array_new_with_free_func(g_free);
        int ga = read_one(p, true, &a, &ea, oa), gb = read_one(p, false, &b, &eb, ob);
        bool same = ga == gb && (ga < 0 ? strcmp(ea, eb) == 0
                                        : a.ninsts == b.ninsts && a.naddrs == b.naddrs &&
                                          memcmp(a.insts, b.insts, a.ninsts * sizeof *a.insts) == 0 &&
                                          memcmp(a.addrs, b.addrs, a.naddrs * sizeof *a.addrs) == 0);
        for (guint i = 0; same && ga > 0 && i < oa->len; i++)
            same = strcmp(oa->pdata[i], ob->pdata[i]) == 0;
        if (!same)
            fprintf(stderr, "\none-pass and field-by-field readers differ on:\n%s\n(%s | %s)\n",
                    t->str, ea ? ea : "ok", eb ? eb : "ok");
        CU_ASSERT_FATAL(same);
        if (ga < 0)
            same_err++;
        else
            same_ok++;
        g_free(ea);
        g_free(eb);
        g_ptr_array_free(oa, TRUE);
        g_ptr_array_free(ob, TRUE);
        sass_block_clear(&a);
        sass_block_clear(&b);
        g_string_free(t, TRUE);
    }
    /* both kinds were exercised, plenty of each */
    CU_ASSERT(same_ok > 1000);
    CU_ASSERT(same_err > 1000);
    g_free(p);
}

static void test_reader_compressed(void)
{
    char *gz = g_build_filename(tdir, "k.traceg.gz", NULL);
    char *xz = g_build_filename(tdir, "k.traceg.xz", NULL);
    char *cut = g_build_filename(tdir, "cut.traceg.xz", NULL);
    GError *e = NULL;
    write_gz(gz, v3_ok, strlen(v3_ok));
    CU_ASSERT_EQUAL(count_insts(gz, &e), 7);
    write_xz(xz, v3_ok, strlen(v3_ok), 0);
    CU_ASSERT_EQUAL(count_insts(xz, &e), 7);
    CU_ASSERT_PTR_NULL(e);
    write_xz(cut, v3_ok, strlen(v3_ok), 20);
    CU_ASSERT_EQUAL(count_insts(cut, &e), -1);
    CU_ASSERT(e && strstr(e->message, "cut.traceg.xz: truncated xz stream"));
    g_clear_error(&e);
    /* a kernels list: copies, a kernel found with .xz added, comments ignored, a missing one */
    char *list = put("kernelslist.g", "MemcpyHtoD,0x00007fc841527000,1\n\nk.traceg\n# note\n");
    /* "k.traceg" does not start with "kernel": an ignored line, so no kernel at all */
    SassList *l = sass_list_read(tdir, &e);
    CU_ASSERT_PTR_NULL(l);
    CU_ASSERT(e && strstr(e->message, "lists no kernel"));
    g_clear_error(&e);
    char *kx = g_build_filename(tdir, "kernel-1.traceg.xz", NULL);
    write_xz(kx, v3_ok, strlen(v3_ok), 0);
    g_free(list);
    list = put("kernelslist.g", "MemcpyHtoD,0x00007fc841527000,1\nkernel-1.traceg\n");
    l = sass_list_read(tdir, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT_EQUAL(l->n, 2);
    CU_ASSERT_EQUAL(l->kernels, 1);
    CU_ASSERT_EQUAL(l->e[0].kind, SASS_LIST_MEMCPY);
    CU_ASSERT_EQUAL(l->e[0].bytes, 1);
    CU_ASSERT(g_str_has_suffix(l->e[1].path, "kernel-1.traceg.xz"));
    sass_list_free(l);
    g_free(list);
    list = put("kernelslist.g", "kernel-1.traceg\nkernel-9.traceg\n");
    l = sass_list_read(tdir, &e);
    CU_ASSERT_PTR_NULL(l);
    CU_ASSERT(e && e->code == ARCHSIM_EXIT_NOINPUT && strstr(e->message, "kernelslist.g:2:1:"));
    g_clear_error(&e);
    list = (g_free(list), put("kernelslist.g", "MemcpyHtoD,zz,1\nkernel-1.traceg\n"));
    l = sass_list_read(tdir, &e);
    CU_ASSERT(e && strstr(e->message, "kernelslist.g:1:1: expected MemcpyHtoD,0xADDRESS,BYTES"));
    g_clear_error(&e);
    g_free(list);
    g_free(kx);
    g_free(gz);
    g_free(xz);
    g_free(cut);
}

/* The real traces: every kernel reads to its end (the counts are checked in regress/gpu.sh). */
static void test_reader_real(void)
{
    GError *e = NULL;
    SassList *l = sass_list_read("tests/gpu/traces/bfs-rodinia2-sm80-tracer-v3-k5-16", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    int total = 0;
    uint64_t refused = sass_one_pass_refused();
    for (uint32_t i = 0; i < l->n; i++)
        if (l->e[i].kind == SASS_LIST_KERNEL) {
            int n = count_insts(l->e[i].path, &e);
            CU_ASSERT(n > 0);
            total += n;
        }
    CU_ASSERT_EQUAL(total, 150081);
    sass_list_free(l);
    /* and a Hopper trace of tracer version 5: the one pass reads every line of both */
    l = sass_list_read("tests/gpu/traces/ffma-h100-sm90-tracer-v5-4096x16", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT_EQUAL(count_insts(l->e[0].path, &e), 102400);
    sass_list_free(l);
    CU_ASSERT_EQUAL(sass_one_pass_refused(), refused);
}

/* ---- coalescing and shared-memory banks ---- */

static uint32_t gcd32(uint32_t a, uint32_t b)
{
    while (b) {
        uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The lanes of mask at base + stride x lane, in the reader's order (active lanes only). */
static uint32_t lanes_at(uint64_t *addr, uint32_t mask, uint64_t base, uint64_t stride)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < 32; i++)
        if (mask >> i & 1)
            addr[k++] = base + stride * i;
    return k;
}

/* Brute force: the distinct 32-byte sectors and 128-byte lines of every byte the lanes touch. */
static void brute(const uint64_t *addr, uint32_t n, uint32_t width, uint32_t *sectors,
                  uint32_t *lines)
{
    GHashTable *sec = g_hash_table_new(g_int64_hash, g_int64_equal);
    GHashTable *lin = g_hash_table_new(g_int64_hash, g_int64_equal);
    static gint64 keys[2][32 * 16];
    uint32_t ks = 0, kl = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t b = 0; b < width; b++) {
            gint64 s = (gint64)((addr[i] + b) / 32), l = (gint64)((addr[i] + b) / 128);
            if (!g_hash_table_contains(sec, &s)) {
                keys[0][ks] = s;
                g_hash_table_add(sec, &keys[0][ks++]);
            }
            if (!g_hash_table_contains(lin, &l)) {
                keys[1][kl] = l;
                g_hash_table_add(lin, &keys[1][kl++]);
            }
        }
    *sectors = g_hash_table_size(sec);
    *lines = g_hash_table_size(lin);
    g_hash_table_destroy(sec);
    g_hash_table_destroy(lin);
}

static void test_coalesce(void)
{
    static const uint32_t masks[] = { 0xffffffffu, 0x0000ffffu, 0xaaaaaaaau, 0x1u, 0x80000000u,
                                      0x00ff00f0u };
    static const uint32_t widths[] = { 1, 2, 4, 8, 16 };
    uint64_t addr[32];
    GpuLineAccess out[64];
    unsigned checked = 0;
    for (size_t wi = 0; wi < G_N_ELEMENTS(widths); wi++)
        for (uint64_t stride = 0; stride <= 272; stride += (stride < 32 ? 1 : 16))
            for (uint64_t off = 0; off < 128; off += (off < 8 ? 1 : 20))
                for (size_t mi = 0; mi < G_N_ELEMENTS(masks); mi++) {
                    uint32_t w = widths[wi];
                    uint32_t n = lanes_at(addr, masks[mi], 0x7f0000000000ull + off, stride);
                    uint32_t na = gpu_coalesce(addr, masks[mi], w, out);
                    uint32_t want_s, want_l;
                    brute(addr, n, w, &want_s, &want_l);
                    bool ok = gpu_sectors(out, na) == want_s && na == want_l;
                    uint32_t lanes = 0;
                    for (uint32_t i = 0; i < na; i++) {
                        ok &= out[i].line % 128 == 0 && out[i].sectors != 0;
                        lanes |= out[i].lanes;
                    }
                    ok &= lanes == masks[mi];
                    if (!ok)
                        fprintf(stderr, "\ncoalesce width %u stride %" G_GUINT64_FORMAT " offset %"
                                G_GUINT64_FORMAT " mask %08x: %u lines %u sectors, wanted %u, %u\n",
                                w, stride, off, masks[mi], na, gpu_sectors(out, na), want_l, want_s);
                    CU_ASSERT(ok);
                    checked++;
                }
    CU_ASSERT(checked > 5000);
    /* the textbook cases: 32 x 4 B contiguous and aligned: one line, four sectors */
    lanes_at(addr, 0xffffffffu, 0x1000, 4);
    CU_ASSERT_EQUAL(gpu_coalesce(addr, 0xffffffffu, 4, out), 1);
    CU_ASSERT_EQUAL(out[0].sectors, 0xf);
    /* ... shifted by 4 bytes: two lines, five sectors */
    lanes_at(addr, 0xffffffffu, 0x1004, 4);
    CU_ASSERT_EQUAL(gpu_coalesce(addr, 0xffffffffu, 4, out), 2);
    CU_ASSERT_EQUAL(gpu_sectors(out, 2), 5);
    /* a 4-byte access at byte 30 straddles two sectors; at byte 126, two lines */
    addr[0] = 30;
    CU_ASSERT_EQUAL(gpu_coalesce(addr, 1, 4, out), 1);
    CU_ASSERT_EQUAL(out[0].sectors, 0x3);
    addr[0] = 126;
    CU_ASSERT_EQUAL(gpu_coalesce(addr, 1, 4, out), 2);
    /* mask 0: nothing */
    CU_ASSERT_EQUAL(gpu_coalesce(addr, 0, 4, out), 0);
    /* every lane the same word: one sector */
    lanes_at(addr, 0xffffffffu, 0x2000, 0);
    CU_ASSERT_EQUAL(gpu_coalesce(addr, 0xffffffffu, 4, out), 1);
    CU_ASSERT_EQUAL(gpu_sectors(out, 1), 1);
}

static void test_smem_banks(void)
{
    uint64_t addr[32];
    /* 4-byte words, stride s words: gcd(s, 32)-way (s = 0: every lane the same word, broadcast) */
    for (uint32_t s = 0; s <= 64; s++) {
        lanes_at(addr, 0xffffffffu, 0, 4ull * s);
        GpuSmemCost c = gpu_smem_cost(addr, 0xffffffffu, 4);
        uint32_t want = s == 0 ? 1 : gcd32(s, 32);
        CU_ASSERT_EQUAL(c.wavefronts, want);
        CU_ASSERT_EQUAL(c.ideal, 1);
    }
    /* 8-byte words, stride s: two banks per lane, 2 x gcd(s, 16) wavefronts, 2 ideal */
    for (uint32_t s = 0; s <= 32; s++) {
        lanes_at(addr, 0xffffffffu, 0, 8ull * s);
        GpuSmemCost c = gpu_smem_cost(addr, 0xffffffffu, 8);
        uint32_t want = s == 0 ? 1 : 2 * gcd32(s, 16);
        CU_ASSERT_EQUAL(c.wavefronts, want);
        CU_ASSERT_EQUAL(c.ideal, s == 0 ? 1u : 2u);
    }
    /* a half warp at stride 2: banks 0, 2, ... 30, one word each: no conflict */
    lanes_at(addr, 0x0000ffffu, 0, 8);
    GpuSmemCost c = gpu_smem_cost(addr, 0x0000ffffu, 4);
    CU_ASSERT_EQUAL(c.wavefronts, 1);
    /* mask 0 */
    c = gpu_smem_cost(addr, 0, 4);
    CU_ASSERT_EQUAL(c.wavefronts, 0);
    CU_ASSERT_EQUAL(c.ideal, 0);
    /* 16-byte accesses, contiguous: 128 words, 4 per bank, 4 ideal: no conflict */
    lanes_at(addr, 0xffffffffu, 0, 16);
    c = gpu_smem_cost(addr, 0xffffffffu, 16);
    CU_ASSERT_EQUAL(c.wavefronts, 4);
    CU_ASSERT_EQUAL(c.ideal, 4);
}

static int suite_init(void)
{
    tdir = tmpdir_new("test_gpu.XXXXXX");
    return tdir ? 0 : 1;
}

static int suite_clean(void)
{
    tmpdir_remove(&tdir);
    return 0;
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("gpu", suite_init, suite_clean);
    if (s == NULL || !CU_add_test(s, "occupancy: the hand-worked table", test_occupancy_table) ||
        !CU_add_test(s, "occupancy: GPGPU-Sim's max_cta", test_occupancy_gpgpusim) ||
        !CU_add_test(s, "opcode classes and widths", test_opcodes) ||
        !CU_add_test(s, "reader: tracer v3, every address mode, mask 0", test_reader_v3) ||
        !CU_add_test(s, "reader: v5 immediates, line info, clusters, v2", test_reader_v5_lineinfo_old_clusters) ||
        !CU_add_test(s, "reader: errors at their line and column", test_reader_errors) ||
        !CU_add_test(s, "reader: gzip, xz, truncation, kernels lists", test_reader_compressed) ||
        !CU_add_test(s, "reader: the real BFS traces", test_reader_real) ||
        !CU_add_test(s, "reader: one pass and field by field agree", test_reader_one_pass) ||
        !CU_add_test(s, "coalescing: every width, stride, alignment and mask", test_coalesce) ||
        !CU_add_test(s, "shared memory: bank conflicts of every stride", test_smem_banks)) {
        CU_cleanup_registry();
        return 1;
    }
    CU_basic_set_mode(CU_BRM_NORMAL);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures();
    unsigned errors = CU_get_error() != CUE_SUCCESS;
    CU_cleanup_registry();
    return failures || errors ? 1 : 0;
}
