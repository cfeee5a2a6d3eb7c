/* system.h: from a config tree to a ready-to-run simulation, the run loop with its watchdog,
 * and the resolved configuration. Used by `archsim run` and `archsim validate`. */
#ifndef ARCHSIM_SYSTEM_H
#define ARCHSIM_SYSTEM_H

#include "component.h"
#include "registry.h"

/* The `sim:` section. */
typedef struct {
    uint64_t seed;
    uint64_t clock_hz;
    uint64_t max_cycles;
    uint64_t watchdog;
    uint64_t memory_limit;
} SimParams;

extern const ParamSpec sim_param_specs[];

typedef struct {
    Sim sim;
    SimParams sp;
    const SystemClass *sys;
    void *sys_params;
    CfgNode *root;
    bool deadlocked;
    bool truncated;          /* stopped by max_cycles */
    GString *deadlock_report;
} SystemRun;

/* Checks the whole tree (top-level keys, every section against its class table) and builds the
 * machine. seed_override >= 0 replaces sim.seed. Takes ownership of root. */
SystemRun *system_build(CfgNode *root, int64_t seed_override, TraceDump *trace,
                        const TraceOptions *trace_opts, GError **error);
/* Include-only parts (docs/config.md "Parts"): a tree with a top-level `part: true`, or one
 * without system: and sim: whose every top-level key is a section of some system (such as
 * configs/parts/caches.yaml). system_check_part() checks such a tree on its own: system: (its
 * type and the keys it gives), sim:, and each section against the class it configures (its
 * system's, or with no system: the class of any system that has the section) for the keys it
 * gives; required keys and the machine itself are left to the configs that include it. On
 * success appends "part: N sections checked on their own (a, b)" to summary. */
bool system_is_part(const CfgNode *root);
bool system_check_part(const CfgNode *root, GString *summary, GError **error);

/* Runs to completion. Returns false with ARCHSIM_EXIT_CHECK on deadlock (the report, with every
 * component's dump, is in run->deadlock_report). */
bool system_run(SystemRun *run, GError **error);
/* sim.* stats then every component's stats. */
void system_collect_stats(SystemRun *run, StatSet *set);
/* Every parameter with its value, defaults included, as YAML that loads back. */
void system_emit_resolved(SystemRun *run, GString *out);
void system_free(SystemRun *run);

/* `archsim describe [TYPE]`. Returns false if TYPE is unknown. */
bool system_describe(const char *type, GString *out);

#endif
