/* bench_mpi_window.c: the cost of one conservative-synchronization window between MPI ranks
 * (docs/scaling.md). Each window does some local work (a stand-in for simulating the events of
 * one lookahead window), then synchronizes the ranks in one of three ways:
 *   allreduce  MPI_Allreduce(MIN) of each rank's next-event time (the barrier-style window
 *              SST uses: everyone learns the global next event time, the next window's end)
 *   barrier    MPI_Barrier only (the floor of any collective)
 *   null       a null message to each neighbour rank (ring) carrying "no event before T":
 *              Chandy-Misra-Bryant style, point to point, no global collective
 * and prints microseconds per window.
 *
 *   make bench-mpi                       (mpirun -np 2 on this machine, every mode)
 *   mpirun -np 2 build/tools/bench_mpi_window [-n WINDOWS] [-w WORK] [-m allreduce|barrier|null|all]
 *
 * Built only with MPI (the Makefile passes -DARCHSIM_HAVE_MPI and OpenMPI's include path);
 * without it the program says so and exits 64.
 */
#include <stdio.h>

#ifdef ARCHSIM_HAVE_MPI
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static volatile uint64_t sink;

/* WORK iterations of a small LCG: a fixed amount of "event processing" per window */
static uint64_t local_work(uint64_t x, long work)
{
    for (long i = 0; i < work; i++)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x;
}

static double run_mode(const char *mode, long windows, long work, int rank, int size)
{
    uint64_t x = (uint64_t)rank + 1, now = 0, lookahead = 1;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long w = 0; w < windows; w++) {
        x = local_work(x, work);
        uint64_t mine = now + lookahead + (x & 1), next = 0;
        if (!strcmp(mode, "allreduce")) {
            MPI_Allreduce(&mine, &next, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
        } else if (!strcmp(mode, "barrier")) {
            MPI_Barrier(MPI_COMM_WORLD);
            next = mine;
        } else {
            uint64_t in = 0;
            MPI_Sendrecv(&mine, 1, MPI_UINT64_T, right, 7, &in, 1, MPI_UINT64_T, left, 7,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            next = in < mine ? in : mine;
        }
        now = next;
    }
    double dt = MPI_Wtime() - t0, worst = 0;
    sink = x + now;
    MPI_Reduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    return worst;
}

int main(int argc, char **argv)
{
    long windows = 200000, work = 0;
    const char *mode = "all";
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            windows = atol(argv[++i]);
        else if (!strcmp(argv[i], "-w") && i + 1 < argc)
            work = atol(argv[++i]);
        else if (!strcmp(argv[i], "-m") && i + 1 < argc)
            mode = argv[++i];
        else {
            if (rank == 0)
                fprintf(stderr, "usage: mpirun -np N bench_mpi_window [-n WINDOWS] [-w WORK] "
                        "[-m allreduce|barrier|null|all]\n");
            MPI_Finalize();
            return 64;
        }
    }
    if (windows < 1)
        windows = 1;
    /* the work alone, for reference (no synchronization) */
    double t0 = MPI_Wtime();
    sink = local_work(1, work * windows);
    double alone = MPI_Wtime() - t0;
    const char *modes[] = { "allreduce", "barrier", "null" };
    if (rank == 0)
        printf("bench_mpi_window: %d ranks, %ld windows, %ld work iterations per window "
               "(%.3f us of work alone)\n", size, windows, work, alone * 1e6 / (double)windows);
    for (int m = 0; m < 3; m++) {
        if (strcmp(mode, "all") && strcmp(mode, modes[m]))
            continue;
        run_mode(modes[m], windows / 10 + 1, work, rank, size);   /* warm-up */
        double dt = run_mode(modes[m], windows, work, rank, size);
        if (rank == 0)
            printf("  %-9s  %8.3f us/window  (%.0f windows/s)\n", modes[m],
                   dt * 1e6 / (double)windows, (double)windows / dt);
    }
    MPI_Finalize();
    return 0;
}

#else

int main(void)
{
    fprintf(stderr, "bench_mpi_window: built without MPI; install openmpi-bin libopenmpi-dev "
            "(as root: sh tools/deps.sh install) and rebuild\n");
    return 64;
}

#endif
