/* repl.h: pluggable replacement policies for set-associative tag stores. A policy keeps one
 * 64-bit word of state per way (a use stamp, an insertion stamp, ...) and picks victims among
 * valid ways; invalid ways are always filled first by the tag store itself. */
#ifndef ARCHSIM_REPL_H
#define ARCHSIM_REPL_H

#include <stdint.h>

#include "../../../sim/rng.h"

typedef struct {
    const char *name;
    const char *doc;
    /* a hit on way w of a set whose state words are st[0..assoc) */
    void (*touch)(uint64_t *st, uint32_t w, uint64_t now);
    /* way w was just filled */
    void (*insert)(uint64_t *st, uint32_t w, uint64_t now);
    /* victim among assoc valid ways */
    uint32_t (*victim)(const uint64_t *st, uint32_t assoc, SimRng *rng);
} ReplPolicy;

extern const ReplPolicy repl_lru, repl_fifo, repl_random;
/* Policies by enum index, in the order of repl_names (the cache's `repl` parameter). */
extern const ReplPolicy *const repl_policies[];
extern const char *const repl_names[];

#endif
