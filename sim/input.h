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

#endif
