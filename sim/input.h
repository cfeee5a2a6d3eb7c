/* input.h: opening input files by path without hanging on what is not a file.
 *
 * Every input archsim reads by path (configs, includes, kernel files, litmus tests, SCALE-Sim
 * .cfg and topology files, traces) must be a regular file: a FIFO would block open() until a
 * writer comes, a device such as /dev/zero or /dev/urandom never ends, and a directory opens
 * but cannot be read. These helpers refuse them before reading a byte (exit 66, as for a
 * missing file) and bound how much of a regular file is read.
 */
#ifndef ARCHSIM_INPUT_H
#define ARCHSIM_INPUT_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Opens path read-only (O_CLOEXEC) if it names a regular file, following symlinks. It never
 * blocks: a FIFO is refused from stat(2) before it is opened, and the open itself is
 * non-blocking, checked again with fstat(2) (the path may change in between). Returns the file
 * descriptor, blocking again, with *size (if not NULL) set to the file's size; -1 on failure with
 * error in `domain`, code ARCHSIM_EXIT_NOINPUT:
 *   "PATH: cannot open: No such file or directory"     (any open/stat errno)
 *   "PATH: not a regular file (a FIFO)"                 (a directory, a character device, ...) */
int sim_open_regular(const char *path, GQuark domain, uint64_t *size, GError **error);

/* sim_open_regular() as a stdio stream ("rb"), for readers written with fread. NULL on failure
 * with the same errors. */
FILE *sim_fopen_regular(const char *path, GQuark domain, GError **error);

/* Reads a whole regular file (sim_open_regular) of at most max_bytes into out (appended, so the
 * caller may keep a prefix). A larger file, or one that grows past max_bytes while it is read,
 * is refused without reading the rest: code too_big_code, "PATH: larger than the limit of N
 * bytes (16 MiB)". Read errors are ARCHSIM_EXIT_NOINPUT "PATH: cannot read:
 * REASON". Every message starts with "PATH: ". out is left as it was on failure. */
bool sim_read_regular(const char *path, uint64_t max_bytes, GQuark domain, int too_big_code,
                      GString *out, GError **error);

/* What a stat(2) mode is, for messages: "a directory", "a FIFO", "a character device"... */
const char *sim_file_kind(unsigned mode);

/* User-named inputs (the operands and file options of every subcommand, --set paths): a
 * relative PATH that does not exist relative to the current directory is looked up in the data
 * directory, so an installed archsim runs `archsim run configs/default.yaml` from anywhere.
 * Paths inside a config stay relative to the config file and never come here.
 *
 * sim_data_dir(): $ARCHSIM_DATA if set; else, from the binary's own location (/proc/self/exe),
 * BINDIR/../share/archsim (installed by `make install`) or BINDIR/.. (build/archsim in a
 * clone), whichever holds configs/default.yaml; NULL if none does. Computed once.
 *
 * sim_input_find(): a new string: PATH itself if it is absolute, "-", or exists (any kind of
 * file) relative to the cwd; else DATADIR/PATH if that exists; else PATH itself, remembered
 * so that the open that fails appends where it looked (sim_input_note_missing, which
 * sim_open_regular calls on ENOENT). Without a data directory the message stays as it was. */
const char *sim_data_dir(void);
char *sim_input_find(const char *path);

/* sim_input_find() on each of a NULL-terminated list of operands, into a new vector (free with
 * g_strfreev). An operand with glob characters (* ? [) that names nothing relative to the cwd
 * is matched in the data directory instead (glob(3), sorted), because the shell leaves a glob
 * that matches nothing as it is: `archsim validate "configs/x*.yaml"` works from any directory. */
char **sim_input_find_all(char *const *paths);

/* If *error is about PATH (or a file inside it) and sim_input_find() looked PATH up in vain,
 * appends " (looked in the current directory, then in DATADIR; ...)" to its message. */
void sim_input_note_missing(const char *path, GError **error);

#endif
