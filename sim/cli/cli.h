/* cli.h: what every subcommand's command line shares: its --help in one hand-written layout
 * (usage, one-line summary, options with their arguments, details, examples, exit status),
 * its usage errors (`archsim CMD: problem` + `Try 'archsim CMD --help'.`, exit 64) and the
 * checks GLib does not make (an empty value for an option that names a file or a value). */
#ifndef ARCHSIM_CLI_H
#define ARCHSIM_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <glib.h>

typedef struct {
    const char *cmd;       /* as typed after `archsim`: "run", "trace dump" */
    /* the usage forms, one per line, each printed after "Usage: " (the first) or seven spaces;
     * a line that starts with a space continues the form above and is printed as it is */
    const char *usage;
    const char *summary;   /* one line, no final newline */
    /* after the options: what the command reads and writes, examples and exit status (or a
     * pointer to `archsim --help` for them); may be NULL */
    const char *details;
} CliHelp;

/* Prints the help of h to f: usage, summary, "Options:" listing entries (NULL-terminated;
 * G_OPTION_FLAG_HIDDEN ones and G_OPTION_REMAINING left out) plus -h/--help when entries has
 * none, then details. */
void cli_help_print(FILE *f, const CliHelp *h, const GOptionEntry *entries);

/* Prints "archsim CMD: MESSAGE\nTry 'archsim CMD --help'.\n" to stderr; returns 64. */
int cli_usage_error(const char *cmd, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* After parsing: an option of entries that names a file or takes a string and was given an
 * empty value ("" from -o "" or --trace=) is a usage error naming the option (printed; returns
 * false). NONE, INT and callback options are not looked at. */
bool cli_check_empty(const char *cmd, const GOptionEntry *entries);

/* Parses argc and argv (argv[0] is the subcommand) against entries with GLib's own --help off:
 * returns -1 to go on; otherwise the exit code to return at once: 0 after printing the help
 * (-h/--help, on stdout; 74 when it could not be written), 64 after a usage error (an unknown
 * option, a bad value, an empty one). Positional arguments are left in *argv. */
int cli_parse(const CliHelp *h, GOptionEntry *entries, int *argc, char ***argv);

#endif
