/* funcmem.h: functional memory: the values memory holds, in 4 KiB pages created on first write
 * (unwritten bytes read as zero), keyed by page number in a GHashTable made by funcmem_new().
 * Used by the snooping bus and the directory slices, which supply memory's data and take the
 * write-backs; the LLC and DRAM components behind them give only the timing. A line never
 * crosses a page (line <= 4 KiB). */
#ifndef ARCHSIM_FUNCMEM_H
#define ARCHSIM_FUNCMEM_H

#include <glib.h>
#include <stdint.h>
#include <string.h>

#define FUNCMEM_PAGE 4096u

static inline GHashTable *funcmem_new(void)
{
    return g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
}

static inline uint8_t *funcmem_page(GHashTable *pages, uint64_t addr, gboolean create)
{
    uint64_t pn = addr / FUNCMEM_PAGE;
    uint8_t *p = g_hash_table_lookup(pages, &pn);
    if (!p && create) {
        p = g_malloc0(FUNCMEM_PAGE);
        uint64_t *k = g_new(uint64_t, 1);
        *k = pn;
        g_hash_table_insert(pages, k, p);
    }
    return p;
}

static inline void funcmem_read(GHashTable *pages, uint64_t addr, uint8_t *out, uint32_t n)
{
    uint8_t *p = funcmem_page(pages, addr, FALSE);
    if (p)
        memcpy(out, p + addr % FUNCMEM_PAGE, n);
    else
        memset(out, 0, n);
}

static inline void funcmem_write(GHashTable *pages, uint64_t addr, const uint8_t *in, uint32_t n)
{
    memcpy(funcmem_page(pages, addr, TRUE) + addr % FUNCMEM_PAGE, in, n);
}

#endif
