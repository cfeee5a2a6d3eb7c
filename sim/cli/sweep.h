/* sweep.h: `archsim sweep`, parameter sweeps over one config (docs/sweeps.md).
 *
 * A sweep is a list of axes: --grid axes (cartesian product) and one group of --zip lists
 * (advanced together, so they count as one axis). Point i of the sweep is a set of KEY=VALUE
 * assignments plus a seed; it runs as a child process `archsim run CONFIG --seed S --set ...`
 * into DIR/point-NNNN/, and its result becomes one row of DIR/sweep.csv.
 *
 * Point order: axes in order (the sweep: block's grid keys, then command-line --grid keys, then
 * the zip group); the LAST axis varies fastest, like nested loops written in that order. Seeds
 * (SweepSeeds): every point gets the base seed (common random numbers, the default), or point i
 * gets base + i (--seeds per-point); a swept `seed` (or `sim.seed`) overrides both.
 *
 * The pieces are separate so that another driver (e.g. MPI ranks) can hand out points:
 * sweep_run_point() runs point i synchronously and returns its result; the writer collects the
 * results of all points, then sweep_csv_columns() and sweep_csv_row() make the table.
 */
#ifndef ARCHSIM_SWEEP_H
#define ARCHSIM_SWEEP_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "../config.h"
#include "sweep_exec.h"

/* The most points a sweep may have: each is a run of its own (a process, a directory, a row) */
#define SWEEP_MAX_POINTS 1000000u

/* The default --stats globs (docs/sweeps.md). */
#define SWEEP_DEFAULT_STATS "sim.cycles,*.ipc,*.amat,*.miss_rate,bus.transactions,bus.utilization"

typedef struct {
    char *key;          /* as given: anything --set accepts, or "seed" */
    GPtrArray *values;  /* char*: the text of each value, as it goes into --set and the CSV */
    GPtrArray *args;    /* char*: the value as passed to --set (quoted YAML values re-quoted) */
    bool zip;           /* one of the zipped lists */
    bool from_yaml;     /* from the config's sweep: block */
} SweepAxis;

/* How points get their seeds. COMMON gives every point the same seed, so that two points
 * differ only in what is swept: common random numbers, the standard variance-reduction
 * technique for comparing configurations (Law & Kelton, "Simulation Modeling and Analysis",
 * the chapter on variance-reduction techniques). PER_POINT is the rule of archsim before issue
 * 16 (seed = base + index), kept for replications and for results made with it; a sweep.json
 * without "seeds" was made with it. */
typedef enum {
    SWEEP_SEEDS_COMMON,
    SWEEP_SEEDS_PER_POINT,
} SweepSeeds;

/* "common" / "per-point", as --seeds, the sweep: block and sweep.json spell them. */
const char *sweep_seeds_name(SweepSeeds m);
bool sweep_seeds_parse(const char *text, SweepSeeds *out);

typedef struct {
    char *config;        /* the config the user gave (recorded) */
    char *run_config;    /* the config each point runs (config, or DIR/sweep-base.yaml) */
    char *dir;           /* the sweep directory */
    char *exe;           /* the archsim binary the points run */
    GPtrArray *axes;     /* SweepAxis*: grid axes in order, then the zip lists */
    GPtrArray *sets;     /* char*: fixed --set assignments for every point */
    char **stats;        /* stats globs */
    uint64_t base_seed;
    SweepSeeds seeds;    /* the rule for points whose seed is not swept (sweep: block's
                            seeds:, overridden by --seeds) */
    bool quiet;
    /* what defines the points, recorded in sweep.json and checked by --resume (docs/sweeps.md
     * "Resume"): the binary (version, git hash, SHA-256 of its file), the config as the points
     * see it (includes merged, fixed --sets applied) and, per point, the SHA-256 of the binary
     * id, that point's config text (its swept values applied) and its seed */
    char *binary_id;     /* "archsim VERSION (git HASH)" */
    char *binary_sha256;
    char *config_sha256;
    GPtrArray *point_sha256;   /* char*, one per point */
} Sweep;


Sweep *sweep_new(void);
/* Computes the digests above from BASE, the config every point runs (before its swept values;
 * fixed --sets are applied here); exe is s->exe. */
void sweep_digest_points(Sweep *s, const CfgNode *base);
void sweep_free(Sweep *s);

/* Parses "KEY=V1,V2,..." (commas inside [..], {..} or quotes do not split; items are trimmed).
 * opt ("--grid" or "--zip") names the option in errors, which are ARCHSIM_CLI_ERROR /
 * ARCHSIM_EXIT_USAGE:
 *   archsim sweep: --grid system.cores: expected KEY=V1,V2,...
 *   archsim sweep: --grid =1,2: empty KEY
 *   archsim sweep: --grid system.cores=1,,4: empty value (item 2)
 *   archsim sweep: --grid l1d.size=[1,2: unbalanced brackets or quotes
 *   archsim sweep: --grid seed=1,x: seed: 'x' is not a non-negative integer */
SweepAxis *sweep_axis_parse(const char *opt, const char *text, GError **error);
void sweep_axis_free(SweepAxis *a);

/* Adds an axis. A key already swept by the config's sweep: block (from_cli and the old one is
 * not from the command line) is replaced in place; a key given twice on the command line is an
 * error: "archsim sweep: KEY is swept twice". Takes ownership of a (freed on error). */
bool sweep_add_axis(Sweep *s, SweepAxis *a, bool from_cli, GError **error);

/* Reads a `sweep:` block ({grid: {KEY: [V...]}, zip: {KEY: [V...]}, stats: [GLOB...]}).
 * Errors are ARCHSIM_EXIT_CONFIG with the node's FILE:LINE:COL. */
bool sweep_add_yaml(Sweep *s, const CfgNode *block, GError **error);

/* Puts the zip lists last and checks that they have one length:
 *   archsim sweep: --zip lists differ in length: K1 has 3 values, K2 has 2
 * that the points are at most SWEEP_MAX_POINTS, that per-point seeds (base + i) stay at most
 * 2^63 - 1, and that each key is a path --set accepts (checked on a copy of root when root !=
 * NULL). */
bool sweep_check(Sweep *s, const CfgNode *root, GError **error);

/* sweep_check's error (text) as the sweep: block's own, for a sweep the block alone made:
 * "archsim sweep: --zip lists differ..." becomes "FILE:LINE:COL: sweep: zip lists differ...",
 * ARCHSIM_CONFIG_ERROR / ARCHSIM_EXIT_CONFIG (78). */
GError *sweep_block_error(const CfgNode *block, const char *text);

/* The config's sim.seed into *seed (left as it is when there is none); a bad one is a config
 * error at its place (78). The base seed of a sweep without --seed. */
bool sweep_config_seed(const CfgNode *root, uint64_t *seed, GError **error);

guint sweep_n_points(const Sweep *s);
/* The value index of each axis for point i (zip lists share one index); idx has axes->len. */
void sweep_point_index(const Sweep *s, guint i, guint *idx);
const char *sweep_point_value(const Sweep *s, guint i, guint axis);
uint64_t sweep_point_seed(const Sweep *s, guint i);
char *sweep_point_dir(const Sweep *s, guint i);          /* DIR/point-NNNN */

/* The child's argv: EXE run RUN_CONFIG -q -o DIR/point-NNNN --seed S --set ... (NULL-ended). */
char **sweep_point_argv(const Sweep *s, guint i);

/* Starts point i as a child (stdout to /dev/null, stderr to DIR/point-NNNN.stderr); returns its
 * pid, or -1 with errno set. sweep_point_finish() then turns its wait status into a result. */
int sweep_point_start(const Sweep *s, guint i);
void sweep_point_finish(const Sweep *s, guint i, int wait_status, SweepResult *r);
/* Runs point i to completion (start + wait + finish); for drivers that hand out points. */
void sweep_run_point(const Sweep *s, guint i, SweepResult *r);
/* Whether DIR/point-NNNN holds a complete run (run.json); if so fills r from its stats.json. */
bool sweep_point_done(const Sweep *s, guint i, SweepResult *r);

/* Parses a flat stats.json object into names and number texts (verbatim). */
bool sweep_parse_stats_json(const char *text, GPtrArray *names, GPtrArray *values);

/* The stat columns: for each glob in order, every matching name in point order, then in file
 * order, each name once. results has sweep_n_points() entries. */
GPtrArray *sweep_csv_columns(const Sweep *s, const SweepResult *results);
void sweep_csv_header(const Sweep *s, const GPtrArray *columns, GString *out);
void sweep_csv_row(const Sweep *s, guint i, const SweepResult *r, const GPtrArray *columns,
                   GString *out);
/* Appends one CSV field, quoted (RFC 4180) when it holds a comma, quote, CR or LF. */
void sweep_csv_field(GString *out, const char *text);
/* "ok", "exit N" or "signal N" */
char *sweep_status_text(const SweepResult *r);

/* The line a finished point prints (a failure always, success unless s->quiet); finished counts
 * the points done so far, this one included. */
void sweep_report_point(const Sweep *s, guint i, const SweepResult *r, guint finished, guint n);

/* `archsim sweep ...`; argv[0] is "sweep". */
int sweep_main(int argc, char **argv);

#endif
