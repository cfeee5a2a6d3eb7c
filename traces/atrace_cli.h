/* atrace_cli.h: `archsim trace SUBCOMMAND ...`, the command-line side of the trace format.
 *
 * One dispatcher on argv[1]; each subcommand is one row of at_cli_commands in atrace_cli.c
 * (info, dump, record, gaps). Exit codes: 0, 64 usage, else the GError's code.
 */
#ifndef ARCHSIM_ATRACE_CLI_H
#define ARCHSIM_ATRACE_CLI_H

/* argv[0] == "trace", argv[1] the subcommand. */
int atrace_cli_main(int argc, char **argv);

#endif
