/* coalesce.c: the warp coalescer and the shared-memory bank model (coalesce.h). Both look at
 * 32 lanes at most, each touching at most 16 bytes, so plain arrays on the stack do. */
#include "coalesce.h"

#include <string.h>

#include <glib.h>

uint32_t gpu_coalesce(const uint64_t *addr, uint32_t mask, uint32_t width, GpuLineAccess *out)
{
    g_assert(width >= 1 && width <= 16);
    uint32_t n = 0;
    uint32_t k = 0;
    for (uint32_t lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        uint64_t a = addr[k++];
        uint64_t last = a + width - 1;
        if (last < a)
            last = UINT64_MAX;                      /* a wrapping address keeps its own line */
        for (uint64_t line = a & ~(uint64_t)(GPU_LINE - 1);;) {
            uint64_t lo = a > line ? a : line;
            uint64_t hi = last < line + GPU_LINE - 1 ? last : line + GPU_LINE - 1;
            uint8_t sec = 0;
            for (uint64_t s = (lo - line) / GPU_SECTOR; s <= (hi - line) / GPU_SECTOR; s++)
                sec |= (uint8_t)(1u << s);
            uint32_t i = 0;
            while (i < n && out[i].line != line)
                i++;
            if (i == n)
                out[n++] = (GpuLineAccess){ .line = line };
            out[i].sectors |= sec;
            out[i].lanes |= 1u << lane;
            if (hi == last || line + GPU_LINE == 0)
                break;
            line += GPU_LINE;
        }
    }
    return n;
}

uint32_t gpu_sectors(const GpuLineAccess *a, uint32_t n)
{
    uint32_t s = 0;
    for (uint32_t i = 0; i < n; i++)
        s += (uint32_t)__builtin_popcount(a[i].sectors);
    return s;
}

GpuSmemCost gpu_smem_cost(const uint64_t *addr, uint32_t mask, uint32_t width)
{
    g_assert(width >= 1 && width <= 16);
    /* the distinct words each bank must deliver: at most 32 lanes x 5 words (16 bytes that
     * straddle) */
    uint64_t word[32 * 5];
    uint32_t nwords = 0;
    uint32_t k = 0;
    for (uint32_t lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        uint64_t a = addr[k++];
        for (uint64_t w = a / GPU_SMEM_BANK_BYTES; w <= (a + width - 1) / GPU_SMEM_BANK_BYTES; w++) {
            bool seen = false;
            for (uint32_t j = 0; j < nwords && !seen; j++)
                seen = word[j] == w;
            if (!seen)
                word[nwords++] = w;
        }
    }
    GpuSmemCost c = { 0, 0 };
    if (nwords == 0)
        return c;
    uint32_t per_bank[GPU_SMEM_BANKS] = { 0 };
    for (uint32_t j = 0; j < nwords; j++) {
        uint32_t b = (uint32_t)(word[j] % GPU_SMEM_BANKS);
        if (++per_bank[b] > c.wavefronts)
            c.wavefronts = per_bank[b];
    }
    c.ideal = (nwords + GPU_SMEM_BANKS - 1) / GPU_SMEM_BANKS;
    return c;
}
