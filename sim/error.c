/* error.c: GError domains of archsim; see error.h for the code = exit status convention. */
#include "error.h"

G_DEFINE_QUARK(archsim-config-error-quark, archsim_config_error)
G_DEFINE_QUARK(archsim-trace-error-quark, archsim_trace_error)
G_DEFINE_QUARK(archsim-run-error-quark, archsim_run_error)
G_DEFINE_QUARK(archsim-sim-error-quark, archsim_sim_error)
G_DEFINE_QUARK(archsim-cli-error-quark, archsim_cli_error)

int archsim_exit_code(const GError *error)
{
    if (error == NULL)
        return ARCHSIM_EXIT_OK;
    switch (error->code) {
    case ARCHSIM_EXIT_CHECK:
    case ARCHSIM_EXIT_USAGE:
    case ARCHSIM_EXIT_DATAERR:
    case ARCHSIM_EXIT_NOINPUT:
    case ARCHSIM_EXIT_SOFTWARE:
    case ARCHSIM_EXIT_CANTCREAT:
    case ARCHSIM_EXIT_IOERR:
    case ARCHSIM_EXIT_CONFIG:
    case ARCHSIM_EXIT_INTERRUPTED:
        return error->code;
    default:
        return ARCHSIM_EXIT_SOFTWARE;
    }
}
