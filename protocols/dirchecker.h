/* dirchecker.h: explicit-state checker for the directory tables of dirproto.h, after Murphi: N
 * caches (2 or 3) and one directory on ONE block, every message in flight held in an unordered
 * multiset per virtual network (any may be delivered next; at most DIRCK_MAX_MSGS in flight).
 * Checks SWMR, the data-value invariant (copies abstracted to fresh/stale),
 * permissions of hits, missing rows, ack counting, and that no state is stuck (quiescence stays
 * reachable). `archsim check-protocol dir-msi` runs it; docs/protocols/README.md explains it.
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

/* Explores p with ncaches caches (1..DIRCK_MAX_CACHES); appends the counts, the first violation
 * with a shortest counterexample, and the dead rows of both tables to report (may be NULL).
 * CheckerResult.rows/dead_rows count cache and directory rows together. CHECK_BUS here means a
 * network/protocol rule: too many messages in flight, a message the receiver cannot take, a
 * hit with no core access waiting, or a stable state entered with acks still counted. */
bool dirchecker_run(const DirProtocol *p, int ncaches, CheckerResult *out, GString *report);

/* archsim check-protocol [--caches N] dir-NAME, called by checker_cli_main. */
int dirchecker_cli(const char *name, int caches);

#endif
