/* machine.h: a machine described as data, a graph of components and links in YAML (the way SST
 * describes a machine: components with parameters, linked port to port), instead of a system
 * class wired in C. docs/machines.md gives the format; in short:
 *
 *   components:                       # a map: name -> entry
 *     cluster0:                       # a group: it holds subcomponents and their links
 *       clock: 3GHz                   # inherited by what it holds (default: sim.clock)
 *       subcomponents:
 *         core: {class: thread-core, count: 4, params: {trace: traces/samples/fs_padded-4t}}
 *         l1d:  {class: coherent-cache, count: 4}
 *       links:                        # endpoints relative to the group
 *         - {from: "core[*].dcache", to: "l1d[*].cpu_side"}
 *     dram: {class: dram}
 *   links:
 *     - {from: cluster0.l2.mem_side, to: dram.port, latency: 2ns}
 *
 * An entry may `include:` a part file (configs/parts/machines/) holding an entry's keys; a
 * top-level key that names a component or group overrides its settings, which is also what
 * `--set cluster1.core[*].clock=2GHz` writes. Instance names read cluster0.core[3]; with
 * `flat: true` an array's instances are named core0, core1, ... (today's systems).
 */
#ifndef ARCHSIM_MACHINE_H
#define ARCHSIM_MACHINE_H

#include "component.h"
#include "registry.h"

/* The system class of a machine given by components: and links: (system_build picks it when the
 * config has a top-level components: key). */
extern const SystemClass machine_system;

/* True when root describes its machine as a graph (a top-level components: key). */
bool machine_is_graph(const CfgNode *root);

/* Builds the machine of graph (components:, links: and top-level overrides) into sim: every
 * component, every link; then settle(sim, ctx, error) if not NULL; then the classes' link
 * checks. */
bool machine_build_graph(Sim *sim, const CfgNode *graph,
                         bool (*settle)(Sim *sim, void *ctx, GError **error), void *ctx,
                         GError **error);

/* `archsim validate` of a graph part (a top-level components: or subcomponents: key): its
 * entries, classes, the parameters it gives, counts, clocks, overrides and links; what it leaves
 * out (required keys, required ports, the link checks that read parameters) is left to the
 * config that includes it. On success appends a one-line summary. */
bool machine_check_part(const CfgNode *root, GString *summary, GError **error);

/* A part of configs/parts/machines/ built into the binary, by file name ("smp.yaml"), parsed,
 * without its part: key; every node gets the position `at` (the config that asked for it), so
 * that messages point at the user's file. NULL with *error if there is none of that name. */
CfgNode *machine_part_load(const char *name, const CfgNode *at, GError **error);

#endif
