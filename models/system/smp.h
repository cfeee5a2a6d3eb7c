/* smp.h: the snooping multicore system class. */
#ifndef ARCHSIM_SMP_H
#define ARCHSIM_SMP_H

#include "../../sim/registry.h"

extern const SystemClass smp_system;

/* Shared with dirsmp: thread-core cores replay workload.trace (thread i on core i); and the
 * system stats that sum the l1dN.* counters into l1d.* / L1Cache_Controller.*. */
bool smp_wire_threads(Sim *sim, uint64_t cores, Component *wl, GError **error);
/* SystemClass.expand of smp and dirsmp: with core.type thread-core, links every core's sync
 * port to the workload (first, so that it is the cores' first port, as it always was). */
bool smp_expand_threads(const void *params, const CfgNode *root, CfgNode *graph, GError **error);
void smp_stats(Sim *sim, StatSet *set);
/* An integer statistic already in set, or 0. */
uint64_t smp_stat_u(const StatSet *set, const char *name);
bool smp_sys_set(const CfgNode *root, Component *c, const char *sys, const char *section,
                 const char *key, const char *value, GError **error);
/* The same for a whole number (a count or an index the system derives). */
bool smp_sys_set_u64(const CfgNode *root, Component *c, const char *sys, const char *section,
                     const char *key, uint64_t value, GError **error);

/* core.line > l1d.line: the error (blaming the key the config sets) for every system. */
bool smp_reject_line(Component *core, Component *l1, uint64_t cl, uint64_t ll, GError **error);

#endif
