/* atrace_record.h: `archsim trace record -o DIR [--force] [--zlevel N] [--verify] -- PROG ARGS`.
 *
 * Runs a program built with tools/archsim-cc with ARCHSIM_TRACE_OUT=DIR, so its recording runtime
 * (tools/tracer/) writes DIR/T<tid>.trace per thread and DIR/manifest.yaml; then checks that the
 * manifest appeared and that every stream's header names its thread, and prints a summary.
 */
#ifndef ARCHSIM_ATRACE_RECORD_H
#define ARCHSIM_ATRACE_RECORD_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What a finished recording holds, from DIR/manifest.yaml (and, with verify, the streams). */
typedef struct {
    uint32_t threads;
    uint64_t records;           /* over all threads */
    uint64_t bytes;             /* trace files, manifest not counted */
    char *compiler;             /* "gcc 12.2.0" */
    char *frontend;             /* "tsan-gcc" */
    char *cflags;
    int exit_status;            /* the program's, as the runtime saw it at exit */
} AtRecordSummary;

/* Reads DIR/manifest.yaml, opens every thread's stream and checks its header (tid, parent); with
 * verify also decodes every record and compares the counts with the manifest. Errors:
 * ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT for a missing manifest or stream,
 * ARCHSIM_EXIT_DATAERR for a mismatch ("DIR/T3.trace: header says tid 2, manifest 3"). */
bool atrace_record_check(const char *dir, bool verify, AtRecordSummary *out, GError **error);

/* True for a thread's file name in a recording directory: T<digits>.trace. */
bool atrace_is_thread_file(const char *name);
void atrace_record_summary_clear(AtRecordSummary *s);

/* A program started to record: `archsim trace record` and `archsim cachegrind -- PROGRAM`. */
typedef struct {
    pid_t pid;
    void (*old_int)(int), (*old_quit)(int);
} AtChild;

/* Starts argv with ARCHSIM_TRACE_OUT=dir and ARCHSIM_TRACE_ZLEVEL=zlevel, and, when stream_fd >= 0,
 * ARCHSIM_TRACE_FD=stream_fd (the write end of a pipe: the child keeps it, the caller's copy is
 * closed here in every case). Once it runs, SIGINT and SIGQUIT are the program's (ignored here,
 * as time(1) does) until atrace_child_wait. False with an error when it could not be started:
 * "PROG: cannot run: ..." (ARCHSIM_EXIT_NOINPUT), pipe or fork (ARCHSIM_EXIT_SOFTWARE); the child
 * is then already reaped. */
bool atrace_child_start(char **argv, const char *dir, int zlevel, int stream_fd, AtChild *ch,
                        GError **error);
/* Waits for the child and restores the signals: its exit status, or 128 + its signal. */
int atrace_child_wait(AtChild *ch);

/* The subcommand; argv[0] is the subcommand's name ("record"). Returns the exit code: the
 * program's own non-zero status if it failed (traces kept), else an ArchsimExit value. */
int atrace_record_main(int argc, char **argv);

#endif
