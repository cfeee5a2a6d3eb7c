/* random.c: a uniformly random victim drawn from the cache's own seeded PRNG, so runs stay
 * reproducible for a given seed. */
#include <stddef.h>

#include "repl.h"

static void rnd_touch(uint64_t *st, uint32_t w, uint64_t now) { (void)st, (void)w, (void)now; }

static uint32_t rnd_victim(const uint64_t *st, uint32_t assoc, SimRng *rng)
{
    (void)st;
    return (uint32_t)sim_rng_below(rng, assoc);
}

const ReplPolicy repl_random = {
    .name = "random",
    .doc = "uniformly random victim (seeded)",
    .touch = rnd_touch,
    .insert = rnd_touch,
    .victim = rnd_victim,
};

const ReplPolicy *const repl_policies[] = { &repl_lru, &repl_fifo, &repl_random, NULL };
const char *const repl_names[] = { "lru", "fifo", "random", NULL };
