/* lru.c: least-recently-used: each way remembers the access counter of its last use; the victim
 * is the smallest stamp. Exact LRU, the textbook policy (Hennessy & Patterson, App. B). */
#include "repl.h"

#include <stddef.h>

static void lru_touch(uint64_t *st, uint32_t w, uint32_t ways, uint64_t now)
{
    (void)ways;
    st[w] = now;
}

static uint32_t lru_victim(uint64_t *st, uint32_t ways, const uint8_t *ok, SimRng *rng)
{
    (void)rng;
    if (ok == NULL) {               /* every way may go: the oldest stamp, the lowest way on a tie */
        uint32_t v = 0;
        uint64_t oldest = st[0];
        for (uint32_t w = 1; w < ways; w++)
            if (st[w] < oldest) {
                oldest = st[w];
                v = w;
            }
        return v;
    }
    uint32_t v = ways;
    for (uint32_t w = 0; w < ways; w++)
        if ((!ok || ok[w]) && (v == ways || st[w] < st[v]))
            v = w;
    return v;
}

const ReplPolicy repl_lru = {
    .name = "lru",
    .doc = "least recently used",
    .touch = lru_touch,
    .insert = lru_touch,
    .victim = lru_victim,
};
