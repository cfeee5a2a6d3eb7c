/* error.h: archsim's GError domains and exit codes.
 *
 * Every fallible function returns bool (or NULL) and takes GError **error last; the error's code
 * IS the process exit code (sysexits.h values), so the CLI exits with error->code unchanged.
 * One domain per subsystem tells where the error came from. Bugs are g_assert, never GErrors.
 */
#ifndef ARCHSIM_ERROR_H
#define ARCHSIM_ERROR_H

#include <glib.h>

/* Exit codes (documented in docs/exit-codes.md and `archsim --help`). */
typedef enum {
    ARCHSIM_EXIT_OK = 0,
    ARCHSIM_EXIT_CHECK = 3,       /* simulation ran but a checker failed: deadlock watchdog,
                                     invariant violation, forbidden litmus outcome */
    ARCHSIM_EXIT_USAGE = 64,      /* EX_USAGE: bad command line */
    ARCHSIM_EXIT_DATAERR = 65,    /* EX_DATAERR: bad input data (trace, topology, litmus file) */
    ARCHSIM_EXIT_NOINPUT = 66,    /* EX_NOINPUT: an input file is missing or unreadable */
    ARCHSIM_EXIT_SOFTWARE = 70,   /* EX_SOFTWARE: internal error */
    ARCHSIM_EXIT_CANTCREAT = 73,  /* EX_CANTCREAT: output directory exists or cannot be made */
    ARCHSIM_EXIT_IOERR = 74,      /* EX_IOERR: write failed */
    ARCHSIM_EXIT_CONFIG = 78,     /* EX_CONFIG: bad configuration */
    ARCHSIM_EXIT_INTERRUPTED = 130, /* SIGINT/SIGTERM: stopped, partial outputs removed */
} ArchsimExit;

#define ARCHSIM_CONFIG_ERROR (archsim_config_error_quark())  /* YAML, params, --set */
#define ARCHSIM_TRACE_ERROR (archsim_trace_error_quark())    /* input traces (lackey, ...) */
#define ARCHSIM_RUN_ERROR (archsim_run_error_quark())        /* run directory, outputs, dumps */
#define ARCHSIM_SIM_ERROR (archsim_sim_error_quark())        /* engine: deadlock, checkers */
#define ARCHSIM_CLI_ERROR (archsim_cli_error_quark())        /* command line */

GQuark archsim_config_error_quark(void);
GQuark archsim_trace_error_quark(void);
GQuark archsim_run_error_quark(void);
GQuark archsim_sim_error_quark(void);
GQuark archsim_cli_error_quark(void);

/* The exit code for an error: its code when it is one of ArchsimExit, else EX_SOFTWARE. */
int archsim_exit_code(const GError *error);

#endif
