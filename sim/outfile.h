/* outfile.h: the one rule for every file archsim writes (docs/outputs.md, "Output files").
 *
 * A target is written through a temporary file beside it (PATH.part-XXXXXX, created with
 * O_EXCL, so no symbolic link is followed) that is renamed into place only when complete.
 * An existing target is replaced only when --force says so AND it is archsim's own, i.e. a
 * regular file (not a symbolic link) that the caller's OutfileKind recognises by its content;
 * a device, FIFO, socket, directory or symbolic link is never written to. Without a
 * replacement the rename refuses to replace a file that appeared meanwhile (RENAME_NOREPLACE).
 * Run reservations (item 6 of issue 15): a reserved run directory records who reserved it, so
 * that one left by a process that is gone (killed, crashed) can be recognised and replaced.
 */
#ifndef ARCHSIM_OUTFILE_H
#define ARCHSIM_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <glib.h>

/* What kind of file an output is, and how archsim recognises one it wrote itself. */
typedef struct {
    const char *what;                    /* "trace dump", ... (in messages) */
    bool (*is_own)(const char *path);    /* NULL: no existing file is ever replaced */
} OutfileKind;

extern const OutfileKind outfile_trace_dump;     /* run/litmus --trace: text, JSONL, Perfetto,
                                                    VCD (each recognised by its own grammar) */
extern const OutfileKind outfile_vcd_side_file;  /* a VCD dump's .filter and .gtkw files */
extern const OutfileKind outfile_sweep_file;     /* sweep.csv, sweep.json, sweep-base.yaml */
extern const OutfileKind outfile_tpu_teach;      /* archsim tpu --teach (text or VCD) */

typedef struct {
    char *path;       /* the target */
    char *tmp;        /* the temporary file beside it; NULL for stdout */
    int fd;           /* open on tmp (or a dup of stdout); -1 when closed */
    bool replace;     /* an own file is there and --force allows replacing it */
    const OutfileKind *kind;
} OutFile;

/* Whether PATH may be written: absent (*replace = false), or, with force, a regular file that
 * kind recognises (*replace = true). Else false with ARCHSIM_EXIT_CANTCREAT and a message
 * naming PATH and why (exists without --force, not archsim's, not a regular file, a link). */
bool outfile_check(const char *path, bool force, const OutfileKind *kind, bool *replace,
                   GError **error);

/* outfile_check, then creates the temporary file. PATH "-" means stdout (no temporary). */
bool outfile_open(OutFile *of, const char *path, bool force, const OutfileKind *kind,
                  GError **error);
/* Closes the descriptor (when still open) and renames the temporary file into place;
 * ARCHSIM_EXIT_IOERR when closing fails, ARCHSIM_EXIT_CANTCREAT when the target changed. */
bool outfile_commit(OutFile *of, GError **error);
/* Closes and removes the temporary file; the target is untouched. Safe on a zeroed OutFile. */
void outfile_abort(OutFile *of);
/* The whole of LEN bytes at DATA to PATH under the rule above. */
bool outfile_write(const char *path, const char *data, size_t len, bool force,
                   const OutfileKind *kind, GError **error);

/* The two halves of outfile_open/commit for code that writes through its own FILE*: creates a
 * new temporary file beside PATH (*tmp, open on the returned descriptor; -1 and
 * ARCHSIM_EXIT_CANTCREAT on failure), and renames TMP to PATH under the rule above (the check
 * is made here; on failure TMP is removed). */
int outfile_create_temp(const char *path, char **tmp, GError **error);
bool outfile_place(const char *tmp, const char *path, bool force, const OutfileKind *kind,
                   GError **error);
/* Whether the first 4 KiB of PATH (decompressed when gzip) satisfy LINE_OK line by line (at
 * least one complete line): a building block for OutfileKind recognisers. */
bool outfile_lines_match(const char *path, bool (*line_ok)(const char *line));

/* rename() that never replaces an existing target (files and directories); errno EEXIST. */
bool outfile_rename_noreplace(const char *from, const char *to);

/* ---- run and sweep directories ------------------------------------------------------------- */

/* Whether DIR is an archsim run directory (its run.json written by archsim: recognised by its
 * content, not by the name alone) or a sweep directory (sweep.json likewise). */
bool outfile_is_run_dir(const char *dir);
bool outfile_is_sweep_dir(const char *dir);
/* Whether PATH's last component is "." or ".." (a directory that cannot be replaced by name:
 * the current one or a parent). */
bool outfile_names_dot(const char *path);
/* Removes a tree that archsim made (symbolic links are removed, never followed). */
void outfile_remove_tree(const char *path);
/* Replaces the directory DIR by STAGE (--force on an archsim run directory): DIR is first moved
 * aside, STAGE renamed into its place, then the old tree removed; if the rename fails DIR is put
 * back as it was (errno from the failure). */
bool outfile_replace_dir(const char *stage, const char *dir);

/* ---- run reservations ---------------------------------------------------------------------- */

#define OUTFILE_RESERVATION ".archsim-reserved"   /* inside a reserved, still empty run dir */

/* Writes DIR/.archsim-reserved: this process's pid, the boot id and the process start time. */
bool outfile_reserve(const char *dir, GError **error);
/* Removes DIR/.archsim-reserved and then the (empty) DIR itself. */
void outfile_unreserve(const char *dir);
/* When DIR holds nothing but a reservation whose process is gone (or from an earlier boot),
 * returns true and sets *pid to the process that made it. */
bool outfile_reservation_stale(const char *dir, pid_t *pid);
/* When DIR holds a reservation (stale or not), true with the pid that made it. */
bool outfile_reservation_pid(const char *dir, pid_t *pid);
/* Whether process PID is alive and is the one that started at START (clock ticks since boot,
 * /proc/PID/stat field 22; 0 = do not compare) in this boot (BOOT_ID; NULL = this boot). */
bool outfile_process_alive(pid_t pid, guint64 start, const char *boot_id);

#endif
