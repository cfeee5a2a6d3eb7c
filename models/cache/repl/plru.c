/* plru.c: tree pseudo-LRU (the binary-tree PLRU of Intel's and ARM's L1s; Handy, "The Cache
 * Memory Book", 1998; gem5's TreePLRURP). The ways are the leaves of a binary tree of ways - 1
 * bits, kept in the set's word 0 (so at most 64 ways, a power of two): node n's children are
 * 2n+1 and 2n+2, and a bit of 0 means "the victim is on the left". A use sets every bit on the
 * way's path to point away from it; the victim follows the bits from the root (when a controller
 * may not replace that way now, the lowest-numbered way it may replace).
 *
 *   ways 4:      bit0                 touch(w=2): bit0 = 0 (victim left), bit2 = 1 (away from 2)
 *              /      \
 *           bit1      bit2
 *           /  \      /  \
 *          w0  w1    w2  w3
 */
#include "repl.h"

static void plru_touch(uint64_t *st, uint32_t w, uint32_t ways, uint64_t now)
{
    (void)now;
    uint64_t t = st[0];
    uint32_t node = 0;
    for (uint32_t half = ways / 2; half >= 1; half /= 2) {
        bool right = (w & half) != 0;
        /* point away from the used side: used right -> victim left (0), and the reverse */
        if (right)
            t &= ~(1ull << node);
        else
            t |= 1ull << node;
        node = 2 * node + (right ? 2 : 1);
    }
    st[0] = t;
}

static uint32_t plru_victim(uint64_t *st, uint32_t ways, const uint8_t *ok, SimRng *rng)
{
    (void)rng;
    uint64_t t = st[0];
    uint32_t node = 0, w = 0;
    for (uint32_t half = ways / 2; half >= 1; half /= 2) {
        bool right = (t >> node) & 1;
        if (right)
            w |= half;
        node = 2 * node + (right ? 2 : 1);
    }
    if (ok && !ok[w]) {            /* the tree's choice may not go now: the first way that may */
        for (w = 0; w < ways && !ok[w]; w++)
            ;
    }
    return w;
}

const ReplPolicy repl_plru = {
    .name = "plru",
    .doc = "tree pseudo-LRU (power-of-two ways, at most 64)",
    .touch = plru_touch,
    .insert = plru_touch,
    .victim = plru_victim,
    .pow2_ways = true,
};
