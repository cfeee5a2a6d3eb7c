/* sweep_mpi.h: `archsim sweep --mpi` (sweep_mpi.c; docs/sweeps.md "MPI"). */
#ifndef ARCHSIM_SWEEP_MPI_H
#define ARCHSIM_SWEEP_MPI_H

#include "sweep_exec.h"

/* Without ARCHSIM_HAVE_MPI, sweep_mpi_init() hands the command over to archsim-mpi (an archsim
 * built beside one, ARCHSIM_MPI_HELPER: it returns only on failure, 70) or prints how to enable
 * MPI and returns 64; the others do nothing. sweep_mpi_agree() is a collective: every rank's
 * rc, the largest returned to all. sweep_mpi_bcast_string() replaces *text on ranks > 0 with rank 0's. sweep_mpi_run(): rank 0
 * hands out the points (skipping those --resume finds complete) and fills results (n entries,
 * zeroed) and the counts; the other ranks run the points they are given; 0 or an exit code. */
bool sweep_mpi_built(void);
/* In archsim-mpi: the plain archsim that handed a sweep --mpi over to it (ARCHSIM_MPI_PLAIN, an
 * executable at an absolute path), which runs the points; NULL anywhere else. */
const char *sweep_mpi_plain_exe(void);
int sweep_mpi_init(int *rank, int *size);
void sweep_mpi_finalize(void);
int sweep_mpi_agree(int rc);
void sweep_mpi_bcast_string(char **text);
int sweep_mpi_run(const SweepPoints *p, bool resume, SweepResult *results, guint *resumed,
                  guint *failed);

#endif
