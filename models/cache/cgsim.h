/* cgsim.h: a functional cache hierarchy with cachegrind's exact rules (valgrind 3.19 cg_sim.c),
 * for `archsim cachegrind` and the speed benchmark.
 *
 * Rules (valgrind's cachegrind/cg_sim.c; docs/references.md §1): I1 and D1 looked up first, LL
 * only on an L1 miss with the same address and size; LRU by move-to-front; write-allocate, writes simulated as
 * reads (no dirty state); a reference straddling two lines is one access that misses if either
 * line misses; "M" counts as one read; set index = (addr >> log2(line)) & (sets - 1). Sizes above
 * the smallest line size are clamped to it, as cachegrind does for memory-touching helper calls.
 */
#ifndef ARCHSIM_CGSIM_H
#define ARCHSIM_CGSIM_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../traces/memref.h"

typedef struct {
    uint64_t size;
    uint32_t assoc;
    uint32_t line;
} CgGeom;

/* Parses cachegrind's "size,assoc,line" (e.g. "32768,8,64") and checks it as cachegrind does
 * (sets a power of two, line >= 16, ...). */
bool cg_geom_parse(const char *text, CgGeom *out, char **problem);

typedef struct {
    uint64_t ir, i1mr, ilmr, dr, d1mr, dlmr, dw, d1mw, dlmw;
} CgCounts;

typedef struct CgSim CgSim;

CgSim *cgsim_new(const CgGeom *i1, const CgGeom *d1, const CgGeom *ll, GError **error);
void cgsim_access(CgSim *s, const MemRef *ref);
void cgsim_access_batch(CgSim *s, const MemRef *refs, size_t n);
CgCounts cgsim_counts(const CgSim *s);
void cgsim_free(CgSim *s);

/* `archsim cachegrind [--I1=S,A,L] [--D1=S,A,L] [--LL=S,A,L] TRACE`: prints the header line
 * "Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw", then the nine values on one line (the order of
 * cachegrind's "summary:" line). argv[0] is "cachegrind". Returns the exit code. */
int cgsim_cli_main(int argc, char **argv);

/* Runs argv (a program built with tools/archsim-cc, argv NULL-terminated) and simulates its
 * data references into s as it runs (cgprog.c); the counts in *counts, the program's exit status
 * in *prog_status. False with *error when it cannot run, recorded nothing or its stream is bad. */
bool cgsim_cli_program(CgSim *s, char **argv, bool quiet, CgCounts *counts, int *prog_status,
                       GError **error);
/* Simulates a recording directory of `archsim trace record` (DIR/T0.trace, T1.trace, ... in
 * thread order) into s, as cgsim_cli_program does a live program; *refs counts references. */
bool cgsim_run_recording(CgSim *s, const char *dir, uint64_t *refs, GError **error);

#endif
