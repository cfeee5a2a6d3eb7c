/* fuzz_sass.c: AFL++ harness for the Accel-Sim SASS trace reader (models/gpu/sasstrace.c) and
 * the occupancy function it feeds.
 *
 * Reads each file named in argv[1..] block by block to its end and abort()s (a crash to AFL) if
 * an invariant breaks: an error must be in the trace domain with code 65 (66 for a missing file)
 * and start with the path; every instruction's addresses lie inside the block's array; a
 * memory instruction has a width; warps are below the block's warp count and each appears once;
 * the counts add up. A header that parses is also run through gpu_occupancy for every compute
 * capability. Plain, gzip and xz inputs all reach the reader (it decides by content).
 * Each file is read twice, instruction lines in one pass and field by field (the reader's two
 * ways, sasstrace.c), and both must give the same blocks and the same error, byte for byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/gpu/occupancy.h"
#include "../../models/gpu/sasstrace.h"
#include "../../sim/error.h"

static void fuzz_check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_sass: invariant broken: %s\n", what);
        abort();
    }
}

static void fuzz_error(const GError *e, const char *path)
{
    fuzz_check(e != NULL, "failure without an error");
    fuzz_check(e->domain == ARCHSIM_TRACE_ERROR, "error outside the trace domain");
    fuzz_check(e->code == ARCHSIM_EXIT_DATAERR || e->code == ARCHSIM_EXIT_NOINPUT,
               "error code is not 65 or 66");
    fuzz_check(g_str_has_prefix(e->message, path), "message does not start with the path");
}

/* Reads path to its end; returns a digest of every block read and the error (g_free it). */
static char *fuzz_one(const char *path)
{
    GError *e = NULL;
    SassReader *r = sass_open(path, &e);
    if (!r) {
        fuzz_error(e, path);
        char *d = g_strdup(e->message);
        g_error_free(e);
        return d;
    }
    GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
    const SassKernel *k = sass_kernel(r);
    fuzz_check(k->warps_per_block >= 1 && k->warps_per_block <= 32, "warps per block");
    static const uint32_t ccs[] = { 70, 75, 80, 86, 89, 90 };
    for (size_t i = 0; i < G_N_ELEMENTS(ccs); i++) {
        const GpuCcLimits *cc = gpu_cc_limits(ccs[i]);
        GpuOccInput in = { k->block[0] * k->block[1] * k->block[2], k->nregs, k->shmem, -1 };
        GpuOccResult res;
        gpu_occupancy(cc, &in, &res);
        fuzz_check(res.active_warps <= cc->max_warps, "more warps than the SM holds");
    }
    SassBlock b = { 0 };
    int got;
    uint64_t blocks = 0;
    while ((got = sass_next_block(r, &b, &e)) > 0) {
        blocks++;
        uint64_t insts = 0;
        uint32_t seen = 0;
        for (uint32_t w = 0; w < b.nwarps; w++) {
            fuzz_check(b.warps[w].warp < k->warps_per_block, "warp beyond the block");
            fuzz_check(!(seen >> b.warps[w].warp & 1), "warp twice");
            seen |= 1u << b.warps[w].warp;
            fuzz_check(b.warps[w].first == insts, "warps not contiguous");
            insts += b.warps[w].n;
        }
        fuzz_check(insts == b.ninsts, "instruction counts do not add up");
        for (uint64_t i = 0; i < b.ninsts; i++) {
            const SassInst *in = &b.insts[i];
            fuzz_check(in->op < sass_nopcodes(r), "opcode index");
            fuzz_check(in->unit < GPU_UNIT_COUNT, "unit class");
            if (in->width > 0 && in->mask)
                fuzz_check((uint64_t)in->addr + (uint64_t)__builtin_popcount(in->mask) <= b.naddrs,
                           "addresses outside the block's array");
        }
        fuzz_check(b.x < k->grid[0] && b.y < k->grid[1] && b.z < k->grid[2], "block outside grid");
        g_checksum_update(sum, (const guchar *)b.warps, b.nwarps * sizeof *b.warps);
        g_checksum_update(sum, (const guchar *)b.insts, b.ninsts * sizeof *b.insts);
        g_checksum_update(sum, (const guchar *)b.addrs, b.naddrs * sizeof *b.addrs);
        for (uint32_t i = 0; i < sass_nopcodes(r); i++)
            g_checksum_update(sum, (const guchar *)sass_opcode(r, (uint16_t)i), -1);
    }
    if (got < 0) {
        fuzz_error(e, path);
        g_checksum_update(sum, (const guchar *)e->message, -1);
        g_error_free(e);
    }
    sass_block_clear(&b);
    sass_close(r);
    char *d = g_strdup(g_checksum_get_string(sum));
    g_checksum_free(sum);
    return d;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        sass_set_one_pass(true);
        char *a = fuzz_one(argv[i]);
        sass_set_one_pass(false);
        char *b = fuzz_one(argv[i]);
        fuzz_check(strcmp(a, b) == 0, "the one-pass and field-by-field readers differ");
        g_free(a);
        g_free(b);
    }
    return 0;
}
