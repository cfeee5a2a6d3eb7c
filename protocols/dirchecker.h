/* dirchecker.h: explicit-state checker for the directory tables of dirproto.h, after Murphi: N
 * caches (2 or 3) and one directory on ONE block, every message in flight (at most
 * DIRCK_MAX_MSGS) on unordered request and response networks and a forward network ordered point
 * to point; the sharer set is a full bit vector or limited pointers with broadcast (DirSharers).
 * Checks SWMR, the data-value invariant (copies abstracted to fresh/stale), permissions of hits,
 * missing rows, ack counting, and that no state is stuck (quiescence stays reachable).
 * `archsim check-protocol [--pointers K] dir-NAME` runs it; docs/protocols/README.md explains it.
 */
#ifndef ARCHSIM_DIRCHECKER_H
#define ARCHSIM_DIRCHECKER_H

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>

#include "checker.h"        /* CheckerVerdict, CheckerResult */
#include "dirproto.h"

#define DIRCK_MAX_CACHES 3
#define DIRCK_MAX_MSGS 10   /* in flight, all networks; exceeding it is reported (CHECK_BUS) */

/* Explores p with ncaches caches (1..DIRCK_MAX_CACHES) and a directory that records `pointers`
 * sharers before it falls back to broadcast (0: a full bit vector); appends the counts, the first
 * violation with a shortest counterexample, and the dead rows of both tables to report (may be
 * NULL). CheckerResult.rows/dead_rows count cache and directory rows together. CHECK_MALFORMED:
 * the table's shape (duplicate pair, index out of range, a stall that acts or moves, an unknown
 * action bit, DA_EXCL without DA_DATA_TO_REQ). CHECK_BUS here means a network/protocol rule: too
 * many messages in flight, a message the receiver cannot take, a forward with no owner or to the
 * requester itself, a hit with no core access waiting, Exclusive-Data with acks, or a stable
 * state entered with acks still counted. */
bool dirchecker_run(const DirProtocol *p, int ncaches, int pointers, CheckerResult *out,
                    GString *report);

/* Both tables as Markdown (docs/protocols/dir-*.md): rows = states, columns = events that some
 * row handles, cells "actions / next". */
void dirchecker_markdown(const DirProtocol *p, GString *out);

/* archsim check-protocol [--caches N] [--pointers K] [--markdown] dir-NAME, called by
 * checker_cli_main once the options are parsed (caches 0: both 2 and 3). */
int dirchecker_cli(const char *name, int caches, int pointers, bool markdown);

#endif
