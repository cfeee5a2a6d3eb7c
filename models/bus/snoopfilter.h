/* snoopfilter.h: the snooping bus's filter: for each block, the set of caches that hold it
 * (a frame in any state but I), so that ordering a request snoops those caches only. The caches
 * keep it exact by telling the bus when a block enters or leaves them (gem5's classic
 * SnoopFilter does the same with its caches' clean-evict notices), so it changes which caches
 * are asked, never what any of them answers: a cache in I answers every snoop with nothing but
 * a count, which the bus keeps for it (bus.c, "Filtered snoops").
 *
 * An open-addressing table (linear probing, backward-shift deletion) from block to a bit set of
 * bus ports; an entry exists while some cache holds the block, so the table follows what the
 * caches hold and never exceeds their lines. Bits are ports of the bus's cpu_side.
 */
#ifndef ARCHSIM_SNOOPFILTER_H
#define ARCHSIM_SNOOPFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t *slots;        /* cap entries of (1 + words) words: block, then the port bits */
    uint64_t cap, used;     /* slots (a power of two) and entries in use */
    uint32_t words;         /* 64-bit words of port bits per entry */
    uint64_t bytes;         /* what the table holds (for sim.memory_limit) */
} SnoopFilter;

void sf_init(SnoopFilter *f, uint32_t ports);
void sf_free(SnoopFilter *f);
/* Port `port` now holds `block` / no longer does. Returns the table's growth in bytes (0 when
 * it did not grow), for the caller to charge. */
uint64_t sf_add(SnoopFilter *f, uint64_t block, uint32_t port);
void sf_remove(SnoopFilter *f, uint64_t block, uint32_t port);
/* Copies the ports holding block into out (f->words words); false if none holds it. */
bool sf_holders(const SnoopFilter *f, uint64_t block, uint64_t *out);
/* Whether port holds block. */
bool sf_has(const SnoopFilter *f, uint64_t block, uint32_t port);
/* The slot where block's probe starts (its home), for tests that build collisions. */
uint64_t sf_home_slot(const SnoopFilter *f, uint64_t block);

#endif
