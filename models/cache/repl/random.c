/* random.c: a uniformly random victim drawn from the cache's own seeded PRNG, so runs stay
 * reproducible for a given seed. */
#include <stddef.h>

#include "repl.h"

static void rnd_touch(uint64_t *st, uint32_t w, uint32_t ways, uint64_t now)
{
    (void)st, (void)w, (void)ways, (void)now;
}

static uint32_t rnd_victim(uint64_t *st, uint32_t ways, const uint8_t *ok, SimRng *rng)
{
    (void)st;
    if (!ok)
        return (uint32_t)sim_rng_below(rng, ways);
    uint32_t n = 0;
    for (uint32_t w = 0; w < ways; w++)
        n += ok[w] != 0;
    if (n == 0)
        return ways;
    uint64_t k = sim_rng_below(rng, n);      /* the k-th way that may go */
    for (uint32_t w = 0; w < ways; w++)
        if (ok[w] && k-- == 0)
            return w;
    return ways;
}

const ReplPolicy repl_random = {
    .name = "random",
    .doc = "uniformly random victim (seeded)",
    .touch = rnd_touch,
    .insert = rnd_touch,
    .victim = rnd_victim,
};

const ReplPolicy *const repl_policies[] = { &repl_lru, &repl_fifo, &repl_random, &repl_plru,
                                            &repl_srrip, NULL };
const char *const repl_names[] = { "lru", "fifo", "random", "plru", "srrip", NULL };
