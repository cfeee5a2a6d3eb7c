/* litmus.h: herd7 X86 litmus tests in archsim: the parsed test (LitTest), its final condition,
 * outcomes, and the two ways of running it (models/litmus/):
 *   parse.c      herd7's X86 (Intel syntax) .litmus files -> LitTest, errors as file:line:col
 *   cond.c       the final condition (exists / ~exists / forall over P:REG=V and loc=V atoms)
 *   enumerate.c  --exhaustive: every execution the memory model's reorderings allow
 *                (models/cpu/memmodel.h), on an abstract machine with atomic memory
 *   simrun.c     random mode: the test on the simulated coherent multiprocessor (smp: mmcore
 *                cores with store buffers, coherent L1s, bus), N runs with seeded random timing
 *   manifest.c   `--manifest`: a CSV of expected verdicts per test and model
 *   cli.c        `archsim litmus`: herd7-like output, verdicts
 *
 * A thread's program (models/cpu/litprog.h) is a list of micro-ops over per-thread registers
 * (EAX ... as indices into LitThread.regs) and shared locations (indices into LitTest.locs).
 * Values are int64. */
#ifndef ARCHSIM_LITMUS_H
#define ARCHSIM_LITMUS_H

#include <glib.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "../cpu/litprog.h"
#include "../cpu/memmodel.h"

#define LIT_MAX_THREADS 8
#define LIT_MAX_LOCS 16

/* Final condition: a small expression tree. */
typedef enum { LC_TRUE, LC_FALSE, LC_REG, LC_LOC, LC_NOT, LC_AND, LC_OR } LitCondKind;
typedef struct LitCond LitCond;
struct LitCond {
    LitCondKind kind;
    int thread, reg;    /* LC_REG: thread:reg = value */
    int loc;            /* LC_LOC: loc = value */
    int64_t value;
    LitCond *a, *b;     /* LC_NOT: a; LC_AND / LC_OR: a, b */
};

typedef enum { LQ_EXISTS, LQ_NOT_EXISTS, LQ_FORALL } LitQuantifier;

typedef struct {
    char *name;                     /* from the header line, e.g. "SB" */
    char *file;
    int nthreads;
    LitThread t[LIT_MAX_THREADS];
    int nlocs;
    char *locs[LIT_MAX_LOCS];       /* location names (x, y, ...) */
    int64_t loc_init[LIT_MAX_LOCS];
    LitQuantifier quant;
    LitCond *cond;
    char *cond_text;                /* the condition as written, normalised to one line */
    /* what an outcome records, in print order: the registers and locations the condition and a
       `locations [...]` line name */
    int nobs;
    struct { bool is_loc; int thread, idx; } obs[LIT_MAX_THREADS * LIT_MAX_REGS + LIT_MAX_LOCS];
} LitTest;

/* Errors of the litmus front end and runners; codes are ArchsimExit values (sim/error.h). */
#define LITMUS_ERROR (litmus_error_quark())
GQuark litmus_error_quark(void);

/* parse.c. Returns NULL with error (ARCHSIM_EXIT_DATAERR, "file:line:col: problem") on any
 * input it cannot read; never crashes on bad input. */
LitTest *litmus_parse_file(const char *path, GError **error);
LitTest *litmus_parse_string(const char *name, const char *text, GError **error);
void litmus_free(LitTest *t);
/* A condition written elsewhere (a manifest's column), parsed against t and printed like
 * t->cond_text, so that two spellings of one condition compare equal; NULL with an error
 * ("name:line:col: problem") if it does not parse. */
char *litmus_cond_normalise(const LitTest *t, const char *name, const char *text, GError **error);

/* The arithmetic of the ops, shared by every runner. ALU: dest <- alu(a = dest, b = src)
 * (LALU_MOV: b). RMW: the value written to memory given the old one, the operand (src) and, for
 * CMPXCHG, the compared register's value (a failed CMPXCHG writes the old value back). */
int64_t litmus_alu_eval(LitAluKind k, int64_t a, int64_t b);
int64_t litmus_rmw_eval(const LitOp *op, int64_t old, int64_t src, int64_t cmp);

/* An outcome: the final values of the observed registers and locations, in obs order. */
typedef struct {
    int n;
    int64_t v[LIT_MAX_THREADS * LIT_MAX_REGS + LIT_MAX_LOCS];
} LitOutcome;

/* cond.c */
bool litmus_cond_holds(const LitTest *t, const LitOutcome *o);   /* the bare expression */
/* "0:EAX=1; 1:EAX=0; x=2;" in herd7's order (obs order). */
char *litmus_outcome_text(const LitTest *t, const LitOutcome *o);
/* A condition as herd7 prints it: "exists (0:EAX=0 /\ 1:EAX=0)" (with the quantifier). */
char *litmus_cond_text(const LitTest *t, LitQuantifier q, const LitCond *c);
void litmus_cond_free(LitCond *c);

/* A histogram of outcomes: outcome text -> count, kept sorted for printing. */
typedef struct {
    GHashTable *counts;     /* char* -> uint64_t* */
    GHashTable *holds;      /* char* -> GINT_TO_POINTER(1) when the expression holds */
    uint64_t runs;
} LitHist;
void litmus_hist_init(LitHist *h);
void litmus_hist_add(LitHist *h, const LitTest *t, const LitOutcome *o, uint64_t n);
void litmus_hist_clear(LitHist *h);
/* The outcome texts in print order (numbers compared as numbers); free with g_ptr_array_unref
 * (the strings belong to h). pos/neg: runs where the condition's expression held / did not. */
GPtrArray *litmus_hist_sorted(const LitHist *h);
void litmus_hist_totals(const LitHist *h, uint64_t *pos, uint64_t *neg);

/* enumerate.c: every final outcome the model allows (each counted once per distinct
 * execution path class; only presence matters). Returns false with error on a state explosion
 * past max_states. */
bool litmus_enumerate(const LitTest *t, const MemModel *m, uint64_t max_states, LitHist *out,
                      GError **error);

/* simrun.c: `runs` runs on the simulated machine described by config (a YAML text overriding
 * the litmus machine's defaults: e.g. "l1d: {protocol: moesi}"; may be NULL), seeded. */
typedef struct {
    const MemModel *model;
    uint64_t runs;
    uint64_t seed;
    const char *config_yaml;        /* extra YAML merged over the default litmus machine */
    const struct CfgNode *config;   /* or a parsed config (--config/--set), merged likewise:
                                       its nodes keep their file:line:col for errors */
    const char *trace_path;         /* optional per-cycle dump of the first run(s) */
    bool trace_force;               /* may replace an existing archsim dump (sim/outfile.h) */
} LitSimOptions;
bool litmus_simulate(const LitTest *t, const LitSimOptions *o, LitHist *out, GError **error);
/* Set (to the signal number) by `archsim litmus --trace`'s SIGINT/SIGTERM/SIGHUP handler:
 * litmus_simulate stops before its next run with ARCHSIM_EXIT_INTERRUPTED and removes the
 * dump it was writing instead of keeping a part of it. */
extern volatile sig_atomic_t litmus_stop_requested;

/* manifest.c: a CSV of expected verdicts (docs/litmus.md, "Manifests"), read for one model. */
typedef struct {
    char *test, *file, *cond;       /* cond "" when the manifest has no condition column */
    bool allowed;                   /* the model's column: allowed (true) or forbidden */
    int line;                       /* of the row in the file, 1-based */
} LitRow;

typedef struct {
    char *path;
    GArray *rows;                   /* LitRow, in file order */
} LitManifest;

/* NULL with error (LITMUS_ERROR, 65 "path:line:col: problem", 66 unreadable) on a file that is
 * not a manifest with a column for model, or is over 16 MiB. */
LitManifest *litmus_manifest_load(const char *path, const MemModel *model, GError **error);
/* The row for a test: by its file's basename first, else by its name; NULL if none. */
const LitRow *litmus_manifest_find(const LitManifest *m, const LitTest *t);
void litmus_manifest_free(LitManifest *m);

/* cli.c */
int litmus_cli_main(int argc, char **argv);

#endif
