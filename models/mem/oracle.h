/* oracle.h: the run's reference checks, in the style of gem5's Ruby random tester: a golden
 * byte memory updated when each store performs, every performed load compared against it (the
 * data-value invariant), and per-block permission tracking that asserts single-writer /
 * multiple-reader at every permission change (equivalent to checking every cycle, since
 * permissions only change at those points). Also the per-word last-writer record that classifies
 * coherence misses as true or false sharing (Dubois et al., ISCA 1993).
 * A violation fails the run with ARCHSIM_EXIT_CHECK and a message naming cycle, cache, address.
 */
#ifndef ARCHSIM_ORACLE_H
#define ARCHSIM_ORACLE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct Oracle Oracle;

Oracle *oracle_new(uint32_t line_size, bool check_values);
void oracle_free(Oracle *o);

/* A store of size bytes (<= 8) with little-endian value performed by cache `who`. Records the
 * writer and a global sequence number per 4-byte word. */
void oracle_store(Oracle *o, int who, uint64_t addr, uint32_t size, uint64_t value);
/* Checks a performed load; returns false and fills *msg (newly allocated) on a mismatch. */
bool oracle_check_load(Oracle *o, int who, uint64_t addr, uint32_t size, uint64_t value,
                       char **msg);
/* Reference value (for initialising memories in tests). */
uint64_t oracle_value(const Oracle *o, uint64_t addr, uint32_t size);

/* Cache `who` now has permission perm (0 none, 1 read, 2 write) on block `block` (an address
 * divided by the line size). Returns false with *msg set if SWMR no longer holds. */
bool oracle_perm(Oracle *o, int who, uint64_t block, int perm, char **msg);

/* Global store sequence number (monotonic), and whether any word of [addr, addr+size) was
 * written by a cache other than `who` after sequence `since` (true-sharing test). */
uint64_t oracle_seq(const Oracle *o);
bool oracle_written_by_other_since(const Oracle *o, int who, uint64_t addr, uint32_t size,
                                   uint64_t since);

uint64_t oracle_loads_checked(const Oracle *o);
uint64_t oracle_perm_checks(const Oracle *o);

#endif
