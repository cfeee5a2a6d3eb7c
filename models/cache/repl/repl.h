/* repl.h: pluggable replacement policies for set-associative tag stores (models/cache/tagstore.h).
 * A policy keeps one 64-bit word of state per way (a use stamp, an insertion stamp, an RRPV; or,
 * for tree-PLRU, the whole set's tree in word 0) and picks victims among the set's valid ways;
 * invalid ways are always filled first by the tag store itself. `ways` is the number of ways in
 * use (a GPU L1 gives ways to shared memory per kernel), at most the ways allocated. */
#ifndef ARCHSIM_REPL_H
#define ARCHSIM_REPL_H

#include <stdbool.h>
#include <stdint.h>

#include "../../../sim/rng.h"

typedef struct {
    const char *name;
    const char *doc;
    /* a hit on way w of a set whose state words are st[0..ways) */
    void (*touch)(uint64_t *st, uint32_t w, uint32_t ways, uint64_t now);
    /* way w was just filled */
    void (*insert)(uint64_t *st, uint32_t w, uint32_t ways, uint64_t now);
    /* victim among the ways valid ways, only those with ok[w] != 0 when ok is not NULL (ways a
     * coherence controller may not replace now: busy, transient); returns ways when none may
     * go. May age the set's state (SRRIP). */
    uint32_t (*victim)(uint64_t *st, uint32_t ways, const uint8_t *ok, SimRng *rng);
    bool pow2_ways;     /* needs a power-of-two number of ways (tree-PLRU) */
} ReplPolicy;

extern const ReplPolicy repl_lru, repl_fifo, repl_random, repl_plru, repl_srrip;
/* Policies by enum index, in the order of repl_names (the caches' `repl` parameter). */
extern const ReplPolicy *const repl_policies[];
extern const char *const repl_names[];

#endif
