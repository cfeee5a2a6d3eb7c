/* validate.h: `archsim validate FILE...`: each file checked as what it is (docs/config.md
 * "Validate"): a config builds its machine, a sweep file builds the config of every point, an
 * include-only part has its sections checked on their own.
 */
#ifndef ARCHSIM_VALIDATE_H
#define ARCHSIM_VALIDATE_H

#include <glib.h>
#include <stdbool.h>

typedef enum { VALIDATE_CONFIG, VALIDATE_SWEEP, VALIDATE_PART } ValidateKind;

/* At most this many failing points of one sweep are reported one by one. */
#define VALIDATE_MAX_POINT_ERRORS 10

/* Checks the file at path with the --set assignments sets (NULL-ended, may be NULL) applied
 * first (to the base config of a sweep, before each point's swept values). How the file is
 * recognised: a top-level `sweep:` (after includes) makes a sweep file; `part: true`, or no
 * system: and sim: with only component sections, makes a part (system_is_part); anything else
 * is a config. On success returns true with "ok (what it was checked as)" in summary. On
 * failure returns false with the errors in errors (GError*, at least one; a sweep gives one per
 * failing point, up to VALIDATE_MAX_POINT_ERRORS plus one that counts the rest); the exit code
 * is the first error's code. */
bool validate_file(const char *path, char *const *sets, GString *summary, GPtrArray *errors);

#endif
