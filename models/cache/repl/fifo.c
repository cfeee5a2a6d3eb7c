/* fifo.c: first-in first-out: the oldest fill is the victim; hits do not refresh a line. */
#include "repl.h"

static void fifo_touch(uint64_t *st, uint32_t w, uint32_t ways, uint64_t now)
{
    (void)st, (void)w, (void)ways, (void)now;
}
static void fifo_insert(uint64_t *st, uint32_t w, uint32_t ways, uint64_t now)
{
    (void)ways;
    st[w] = now;
}

static uint32_t fifo_victim(uint64_t *st, uint32_t ways, const uint8_t *ok, SimRng *rng)
{
    (void)rng;
    uint32_t v = ways;
    for (uint32_t w = 0; w < ways; w++)
        if ((!ok || ok[w]) && (v == ways || st[w] < st[v]))
            v = w;
    return v;
}

const ReplPolicy repl_fifo = {
    .name = "fifo",
    .doc = "first in, first out",
    .touch = fifo_touch,
    .insert = fifo_insert,
    .victim = fifo_victim,
};
