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
    char *warmup;            /* "N[:insts|refs|cycles]"; "0": none */
    uint64_t stats_every;    /* epoch length in system cycles; 0: no stats.jsonl */
    bool roi_markers;        /* a trace's ROI markers reset and freeze the stats */
} SimParams;

/* What a warm-up counts (sim.warmup, --warmup). */
typedef enum { SIM_WARM_INSTS, SIM_WARM_REFS, SIM_WARM_CYCLES } SimWarmUnit;
extern const char *const sim_warm_unit_names[];
/* Parses "N", "N:insts", "N:refs" or "N:cycles" (N a decimal count, '_' separators allowed, with
 * an optional k, M or G suffix: 1000, 10^6, 10^9). On failure *problem says why (newly
 * allocated, without position). N = 0 means no warm-up. */
bool sim_warmup_parse(const char *text, uint64_t *n, SimWarmUnit *unit, char **problem);

extern const ParamSpec sim_param_specs[];
/* A seed as sim.seed reads it (decimal, 0x hex, _ separators, 0 to 2^64 - 1): `--seed N` of run
 * and sweep and swept seeds take the same values as `--set sim.seed=N`. */
bool sim_parse_seed(const char *text, uint64_t *seed);

/* `clock:` in a component section (docs/config.md, "Clocks"): the frequency the section's
 * instances run on, same units and range as sim.clock; without it they run on the system clock.
 * One entry and PARAM_END; its value field is a uint64_t at offset 0 (Hz). */
extern const ParamSpec sim_section_clock_spec[];
/* The clock of section `sec` (a map, or NULL) named `path` in messages: *hz = its `clock:`, or
 * sys_hz when it has none. A bad value fails with ARCHSIM_EXIT_CONFIG
 * "FILE:LINE:COL: l2.clock: PROBLEM". */
bool system_section_clock(const CfgNode *sec, const char *path, uint64_t sys_hz, uint64_t *hz,
                          GError **error);

typedef struct {
    Sim sim;
    SimParams sp;
    const SystemClass *sys;
    void *sys_params;
    CfgNode *root;
    bool deadlocked;
    bool truncated;          /* stopped by max_cycles */
    GString *deadlock_report;
    uint64_t warm_n;         /* the parsed sim.warmup (0: none) */
    SimWarmUnit warm_unit;
    StatSet *frozen;         /* the stats at the ROI end marker, or NULL */
    uint64_t frozen_cycle;   /* the system cycle it froze at */
    GString *epochs;         /* stats.jsonl lines (sim.stats_every), or NULL */
    uint64_t epoch, epoch_begin;   /* the next epoch's number and first cycle */
    GHashTable *epoch_prev;  /* count stats at the previous epoch's end: name -> uint64_t* */
    SimEvent epoch_ev;
    bool epochs_closed;      /* the ROI ended: no more epochs */
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
/* sim.* stats then every component's stats (those frozen at the ROI end if it was reached). */
void system_collect_stats(SystemRun *run, StatSet *set);
/* One of those stats by name, for tests and harnesses: an integer as it is, a formula rounded;
 * UINT64_MAX when the run has no such stat. Collects them all: not for a loop. */
uint64_t system_stat_u64(SystemRun *run, const char *name);
/* After a successful run: the last, partial epoch line of stats.jsonl (if epochs are on). */
void system_finish_epochs(SystemRun *run);
/* The warm-up was asked for and never reached (the stats then describe the whole run). */
bool system_warmup_missed(const SystemRun *run);
/* Every parameter with its value, defaults included, as YAML that loads back. */
/* A machine graph's resolved config is the graph as given (paths absolute), not every
 * parameter with its default: the header says so. */
bool system_resolved_is_graph(const SystemRun *run);
void system_emit_resolved(SystemRun *run, GString *out);
/* The places ("FILE:LINE:COL") of the config values the run's components read as file paths
 * (their classes' PARAM_PATH parameters), a set to free with g_hash_table_destroy. */
GHashTable *system_path_places(const SystemRun *run);
/* Makes absolute, in the tree n, every include: and every scalar whose place is in
 * path_places (relative to the file that holds it; from --set, to the current directory). */
void system_absolute_paths(CfgNode *n, GHashTable *path_places);
void system_free(SystemRun *run);

/* `archsim describe [TYPE]`. Returns false if TYPE is unknown. */
bool system_describe(const char *type, GString *out);

#endif
