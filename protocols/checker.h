/* checker.h: an explicit-state checker for the snooping tables of protocol.h, after Murphi: it
 * explores every state that 2 or 3 caches sharing one block can reach on the abstract bus of
 * protocol.h and checks SWMR, the data-value invariant, missing rows, the bus rules and that no
 * state is stuck. `archsim check-protocol NAME` runs it; docs/protocols/README.md explains it.
 */
#ifndef ARCHSIM_CHECKER_H
#define ARCHSIM_CHECKER_H

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>

#include "protocol.h"

#define CHECKER_MAX_CACHES 4    /* the state encoding's limit; the CLI offers 2 and 3 */

/* What the check found; the first violation (in breadth-first order, so with the shortest
 * counterexample) stops the search. */
typedef enum {
    CHECK_PASS = 0,
    CHECK_MALFORMED,    /* the table itself: duplicate row, index out of range, an action that
                           means nothing on its event (SEND_DATA on a Load, STALL that moves) */
    CHECK_MISSING_ROW,  /* an event that can occur in a reachable state has no row */
    CHECK_SWMR,         /* two writers, or a writer and a reader */
    CHECK_OWNER,        /* two caches in owner states */
    CHECK_DATA_VALUE,   /* a valid copy, a hit or memory (with no owner) holds a stale value */
    CHECK_PERM,         /* a hit in a state whose permission does not allow the access */
    CHECK_BUS,          /* a bus rule broken: a second request while one waits, two suppliers,
                           a hit with no core access waiting */
    CHECK_STUCK,        /* a reachable state from which no quiescent state can be reached */
    CHECK_KINDS
} CheckerVerdict;

extern const char *const checker_verdict_names[CHECK_KINDS];

typedef struct {
    CheckerVerdict verdict;
    int ncaches;
    size_t states;          /* distinct states explored (all reachable ones when it passed) */
    size_t transitions;     /* steps explored that lead to a different state */
    int rows;               /* rows in the table */
    int dead_rows;          /* rows that never fired (of the part explored) */
    int trace_steps;        /* steps in the counterexample, 0 when there is none */
} CheckerResult;

/* Explores t with ncaches caches (1..CHECKER_MAX_CACHES) and appends a readable report to
 * report (may be NULL): the counts, the violation with its counterexample, the dead rows.
 * Returns true when every invariant holds (dead rows are only a warning). */
bool checker_run(const ProtoTable *t, int ncaches, CheckerResult *out, GString *report);

/* The table as one Markdown table: rows = states with their flags, columns = events, cells
 * "actions / next", blank where the pair cannot happen. */
void checker_markdown(const ProtoTable *t, GString *out);

/* archsim check-protocol [--caches N] [--markdown] NAME; argv[0] is the subcommand. */
int checker_cli_main(int argc, char **argv);

#endif
