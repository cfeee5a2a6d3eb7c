/* sweep_mpi.c: `archsim sweep --mpi`, the points of a sweep spread over MPI ranks
 * (docs/sweeps.md, "MPI").
 *
 * Rank 0 is the master: it checks and prepares the sweep directory (sweep.c), then hands out
 * point indices one at a time. A worker asks for work by sending a message that carries the
 * result of its previous point (or nothing, the first time); the master stores that result and
 * answers with the next index, or with -1 (stop) when none are left. So a rank that finishes
 * early asks early: dynamic load balancing with one point in flight per worker. Workers run each
 * point exactly like the local sweep (SweepPoints.run, sweep_exec.h: a child `archsim run` process into
 * DIR/point-NNNN/), so the sweep directory must be visible to every rank (one node, or a shared
 * file system). Rank 0 then writes sweep.csv and sweep.json with the same code as a local run.
 *
 * This file is built twice where OpenMPI is found (the Makefile): with ARCHSIM_HAVE_MPI into
 * archsim-mpi, the one binary that links libmpi, and with ARCHSIM_MPI_HELPER into archsim, whose
 * sweep --mpi then runs archsim-mpi with the same command line (execv, so under mpirun each rank
 * becomes an archsim-mpi process): archsim itself loads no MPI library, which costs every start
 * about 3 ms (docs/testing.md). archsim-mpi runs the points with, and records the checksum of,
 * the archsim that handed over (ARCHSIM_MPI_PLAIN), so the sweep's files are those of a local
 * run. Without either, the same functions say how to enable MPI. MPI_Init is called only in
 * --mpi mode, so archsim-mpi also runs normally without mpirun.
 */
#include "sweep_mpi.h"

#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../error.h"
#include "../input.h"

#ifdef ARCHSIM_HAVE_MPI
#include <mpi.h>

enum { TAG_READY = 1, TAG_WORK = 2 };

/* ARCHSIM_MPI_PLAIN when it names an executable file by an absolute path */
static bool plain_exe_ok(const char *plain)
{
    return g_path_is_absolute(plain) && g_file_test(plain, G_FILE_TEST_IS_REGULAR) &&
           g_file_test(plain, G_FILE_TEST_IS_EXECUTABLE);
}

bool sweep_mpi_built(void)
{
    return true;
}

int sweep_mpi_init(int *rank, int *size)
{
    /* a sweep that ran its points with this binary would record another checksum than the
     * archsim that handed over, and a later local --resume would refuse it */
    const char *plain = g_getenv("ARCHSIM_MPI_PLAIN");
    if (plain != NULL && *plain != '\0' && !plain_exe_ok(plain)) {
        fprintf(stderr, "archsim sweep: --mpi: ARCHSIM_MPI_PLAIN=%s is not an executable file "
                "named by an absolute path (archsim sets it when it hands --mpi over; unset "
                "it to run this archsim-mpi alone)\n", plain);
        return ARCHSIM_EXIT_USAGE;
    }
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "archsim sweep: --mpi: MPI_Init failed\n");
        return ARCHSIM_EXIT_SOFTWARE;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return 0;
}

void sweep_mpi_finalize(void)
{
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin)
        MPI_Finalize();
}

int sweep_mpi_agree(int rc)
{
    int all = 0;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

void sweep_mpi_bcast_string(char **text)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int len = rank == 0 ? (int)strlen(*text) : 0;
    MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank != 0) {
        g_free(*text);
        *text = g_malloc0((gsize)len + 1);
    }
    MPI_Bcast(*text, len, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* ---- a result on the wire: "INDEX EXIT SIGNAL RESUMED COUNT\n", then the message and each
 * name/value pair as LEN:BYTES ------------------------------------------------------------- */

static void put_bytes(GString *o, const char *t)
{
    g_string_append_printf(o, "%zu:", strlen(t));
    g_string_append(o, t);
}

static GString *encode(int index, const SweepResult *r)
{
    GString *o = g_string_new(NULL);
    if (!r) {
        g_string_append_printf(o, "%d 0 0 0 0\n0:", index);
        return o;
    }
    guint n = r->names ? r->names->len : 0;
    g_string_append_printf(o, "%d %d %d %d %u\n", index, r->exit_code, r->signal,
                           r->resumed ? 1 : 0, n);
    put_bytes(o, r->message ? r->message : "");
    for (guint k = 0; k < n; k++) {
        put_bytes(o, g_ptr_array_index(r->names, k));
        put_bytes(o, g_ptr_array_index(r->values, k));
    }
    return o;
}

static char *get_bytes(const char **p, const char *end)
{
    char *colon = NULL;
    unsigned long len = strtoul(*p, &colon, 10);
    if (colon == *p || colon >= end || *colon != ':' || len > (unsigned long)(end - colon - 1))
        return NULL;
    char *t = g_strndup(colon + 1, len);
    *p = colon + 1 + len;
    return t;
}

/* Fills r (initialised here, cleared by the caller if not kept) from a message; returns the point index, -1 for "ready", -2 when
 * the message is malformed. */
static int decode(const char *buf, int len, SweepResult *r)
{
    const char *end = buf + len, *p = buf;
    int index = 0, ex = 0, sig = 0, res = 0, used = 0;
    unsigned n = 0;
    memset(r, 0, sizeof *r);
    r->names = g_ptr_array_new_with_free_func(g_free);
    r->values = g_ptr_array_new_with_free_func(g_free);
    char *head = g_strndup(buf, (gsize)len);
    int got = sscanf(head, "%d %d %d %d %u\n%n", &index, &ex, &sig, &res, &n, &used);
    g_free(head);
    if (got != 5 || used <= 0)
        return -2;
    p += used;
    r->exit_code = ex;
    r->signal = sig;
    r->resumed = res != 0;
    r->message = get_bytes(&p, end);
    if (!r->message)
        return -2;
    for (unsigned k = 0; k < n; k++) {
        char *name = get_bytes(&p, end), *value = name ? get_bytes(&p, end) : NULL;
        if (!value) {
            g_free(name);
            return -2;
        }
        g_ptr_array_add(r->names, name);
        g_ptr_array_add(r->values, value);
    }
    return index;
}

/* ---- master and workers ------------------------------------------------------------------ */

static int worker(const SweepPoints *p)
{
    SweepResult r;
    int index = -1;
    for (;;) {
        GString *msg = encode(index, index >= 0 ? &r : NULL);
        if (index >= 0)
            sweep_result_clear(&r);
        MPI_Send(msg->str, (int)msg->len, MPI_CHAR, 0, TAG_READY, MPI_COMM_WORLD);
        g_string_free(msg, TRUE);
        MPI_Recv(&index, 1, MPI_INT, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (index < 0)
            return 0;
        p->run(p->ctx, (unsigned)index, &r);
    }
}

static int master(const SweepPoints *p, bool resume, SweepResult *results, guint *resumed,
                  guint *failed, int size)
{
    guint n = p->n, next = 0, finished = 0;
    int active = size - 1;   /* workers not yet told to stop */
    int rc = 0;
    while (active > 0) {
        MPI_Status st;
        int len = 0;
        MPI_Probe(MPI_ANY_SOURCE, TAG_READY, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_CHAR, &len);
        char *buf = g_malloc((gsize)len + 1);
        MPI_Recv(buf, len, MPI_CHAR, st.MPI_SOURCE, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        buf[len] = '\0';
        SweepResult r;
        int index = decode(buf, len, &r);
        g_free(buf);
        if (index >= (int)n || index == -2) {
            fprintf(stderr, "archsim sweep: --mpi: malformed result from rank %d\n",
                    st.MPI_SOURCE);
            rc = ARCHSIM_EXIT_SOFTWARE;
        }
        if (index >= 0 && index < (int)n) {
            sweep_result_clear(&results[index]);
            results[index] = r;
            finished++;
            if (!(r.signal == 0 && r.exit_code == 0))
                (*failed)++;
            p->report(p->ctx, (unsigned)index, &results[index], finished, n);
        } else {
            sweep_result_clear(&r);
        }
        /* the next point that --resume does not find complete */
        int give = -1;
        while (rc == 0 && next < n) {
            guint i = next++;
            if (resume && p->done(p->ctx, i, &results[i])) {
                (*resumed)++;
                finished++;
                continue;
            }
            give = (int)i;
            break;
        }
        MPI_Send(&give, 1, MPI_INT, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
        if (give < 0)
            active--;
    }
    return rc;
}

int sweep_mpi_run(const SweepPoints *p, bool resume, SweepResult *results, guint *resumed,
                  guint *failed)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank != 0)
        return worker(p);
    return master(p, resume, results, resumed, failed, size);
}

const char *sweep_mpi_plain_exe(void)
{
    const char *plain = g_getenv("ARCHSIM_MPI_PLAIN");
    return plain != NULL && *plain != '\0' && plain_exe_ok(plain) ? plain : NULL;
}

#else /* !ARCHSIM_HAVE_MPI */

bool sweep_mpi_built(void)
{
    return false;
}

const char *sweep_mpi_plain_exe(void)
{
    return NULL;
}

#ifdef ARCHSIM_MPI_HELPER
/* archsim-mpi beside this binary: DIR/archsim-mpi in a build folder, PREFIX/lib/archsim/ once
 * installed (PREFIX/bin/archsim); NULL if neither is there. */
static char *mpi_helper_path(const char *exe)
{
    char *dir = g_path_get_dirname(exe);
    char *cand[] = { g_build_filename(dir, "archsim-mpi", NULL),
                     g_build_filename(dir, "..", "lib", "archsim", "archsim-mpi", NULL) };
    g_free(dir);
    char *found = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(cand); i++) {
        if (found == NULL && g_file_test(cand[i], G_FILE_TEST_IS_EXECUTABLE))
            found = g_strdup(cand[i]);
        g_free(cand[i]);
    }
    return found;
}

/* This process's command line as it was given (GOption has consumed argv since). */
static char **own_argv(void)
{
    gchar *text = NULL;
    gsize len = 0;
    if (!g_file_get_contents("/proc/self/cmdline", &text, &len, NULL) || len == 0) {
        g_free(text);
        return NULL;
    }
    GPtrArray *v = g_ptr_array_new();
    for (gsize i = 0; i < len; i += strlen(text + i) + 1)
        g_ptr_array_add(v, g_strdup(text + i));
    g_ptr_array_add(v, NULL);
    g_free(text);
    return (char **)g_ptr_array_free(v, FALSE);
}
#endif

int sweep_mpi_init(int *rank, int *size)
{
    *rank = 0;
    *size = 1;
#ifdef ARCHSIM_MPI_HELPER
    char *exe = g_file_read_link("/proc/self/exe", NULL);
    char *helper = exe != NULL ? mpi_helper_path(exe) : NULL;
    char **argv = helper != NULL ? own_argv() : NULL;
    if (argv != NULL) {
        g_setenv("ARCHSIM_MPI_PLAIN", exe, TRUE);
        /* an installed archsim-mpi is not where the data directory is found from */
        const char *data = sim_data_dir(), *cur = g_getenv("ARCHSIM_DATA");
        if (data != NULL && (cur == NULL || *cur == '\0'))    /* empty: not set (input.c) */
            g_setenv("ARCHSIM_DATA", data, TRUE);
        fflush(NULL);
        execv(helper, argv);
        fprintf(stderr, "archsim sweep: --mpi: cannot run %s: %s\n", helper, g_strerror(errno));
        g_strfreev(argv);
        g_free(helper);
        g_free(exe);
        return ARCHSIM_EXIT_SOFTWARE;
    }
    if (helper != NULL)
        fprintf(stderr, "archsim sweep: --mpi: cannot read this process's command line "
                "(/proc/self/cmdline) to hand it to %s\n", helper);
    else
        fprintf(stderr, "archsim sweep: --mpi: archsim-mpi, the MPI side of this build, is not "
                "beside %s (nor in ../lib/archsim/); rebuild (make) or reinstall (make install)\n",
                exe != NULL ? exe : "this archsim");
    g_free(helper);
    g_free(exe);
    return ARCHSIM_EXIT_SOFTWARE;
#else
    fprintf(stderr, "archsim sweep: --mpi: this archsim was built without MPI; to enable it, "
            "install OpenMPI (as root: apt-get install -y openmpi-bin libopenmpi-dev) and "
            "rebuild (make)\n");
    return ARCHSIM_EXIT_USAGE;
#endif
}

void sweep_mpi_finalize(void)
{
}

int sweep_mpi_agree(int rc)
{
    return rc;
}

void sweep_mpi_bcast_string(char **text)
{
    (void)text;
}

int sweep_mpi_run(const SweepPoints *p, bool resume, SweepResult *results, guint *resumed,
                  guint *failed)
{
    (void)p;
    (void)resume;
    (void)results;
    (void)resumed;
    (void)failed;
    return ARCHSIM_EXIT_SOFTWARE;
}

#endif
