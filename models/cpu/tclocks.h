/* tclocks.h: pthread mutexes of a replayed trace run as a real lock algorithm (thread-core's
 * `mutex` parameter): per-thread state machines that emit the loads, stores and atomics of the
 * built-in lock kernels (models/cpu/locks.c, docs/locks.md) one access at a time, with real values,
 * plus the run-wide checks (mutual exclusion, wait cycles) every thread-core shares.
 *
 * Layout of the reserved region (never a trace address: x86-64 user space ends below 2^47), with
 * L the core's `line` and n the thread-cores of the run:
 *
 *   TCL_BASE + i x (2 + n) x L     mutex i (numbered in the order first locked, run-wide):
 *     +0 L        word A: lock (tas, ttas, ttas-backoff, llsc), next_ticket (ticket),
 *                 next_slot (anderson), tail (mcs, clh; 0 = clh's initial node, word B)
 *     +1 L        word B: now_serving (ticket), clh's initial free node
 *     +(2+s) L    anderson slot s, s < n (slot 0 stores its flag inverted: memory starts at 0)
 *   TCL_NODE_BASE + (t x TCL_NODES + j) x L     queue node j of thread t (mcs: +0 next,
 *                 +8 locked; clh: one word). Pointers are node addresses, 0 = nil.
 */
#ifndef ARCHSIM_TCLOCKS_H
#define ARCHSIM_TCLOCKS_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../sim/rng.h"
#include "../mem/memmsg.h"

#define TCL_BASE 0x0000800000000000ull
#define TCL_NODE_BASE (TCL_BASE + (1ull << 44))
#define TCL_NODES 64               /* queue nodes per thread: mutexes held or awaited at once */

typedef enum {
    TCL_MANAGER, TCL_TAS, TCL_TTAS, TCL_BACKOFF, TCL_TICKET, TCL_ANDERSON, TCL_MCS, TCL_CLH,
    TCL_LLSC, TCL_COUNT
} TclAlgo;

extern const char *const tcl_algo_names[];     /* "manager", "tas", ... NULL (the enum's order) */

/* One access for the core to send to its L1 (size 8) and wait for. */
typedef struct {
    uint16_t cmd, flags;        /* MSG_READ_REQ / MSG_WRITE_REQ, MSG_F_* */
    uint64_t addr;
    uint64_t aux[2];
} TclAccess;

enum { TCL_STEP_ACCESS, TCL_STEP_DELAY, TCL_STEP_DONE };

typedef struct TclWorld TclWorld;
typedef struct TclThread TclThread;

/* Per-thread counters (the core prints them as core<i>.lock_*). */
typedef struct {
    uint64_t acquisitions, releases, acquire_cycles, accesses, spin_waits, failed_attempts;
    uint64_t order_conflicts, handoffs_in, handoff_cycles, unheld_unlocks;
} TclStats;

TclWorld *tcl_world_new(TclAlgo algo, int nthreads, uint64_t line, uint64_t backoff_min,
                        uint64_t backoff_max);
void tcl_world_free(TclWorld *w);
TclAlgo tcl_world_algo(const TclWorld *w);
TclThread *tcl_thread(TclWorld *w, int id);
const TclStats *tcl_thread_stats(const TclThread *t);

/* Starts a lock (unlock) of `mutex` at cycle now: TCL_RUN (step it), or TCL_SKIP, nothing to
 * run, because the acquisition would close a wait cycle that the recorded run never had (it is
 * granted at once, as the lock manager does, and counted in order_conflicts; its unlock is then
 * skipped too), or the unlock is of such a grant or of a mutex the thread does not hold
 * (unheld_unlocks); TCL_FAIL with *error set: more than TCL_NODES queue nodes in use. */
enum { TCL_RUN, TCL_SKIP, TCL_FAIL };
int tcl_lock_begin(TclThread *t, uint64_t mutex, uint64_t now, GError **error);
int tcl_unlock_begin(TclThread *t, uint64_t mutex, uint64_t now);
/* The next action of the operation in progress: an access to perform (*a), a delay (*delay
 * cycles, then step again) or done. */
int tcl_step(TclThread *t, SimRng *rng, TclAccess *a, uint64_t *delay);
/* The L1 answered the access: old value (aux[0]), success flag (aux[1]). False with *error set
 * when a check failed (mutual exclusion). */
bool tcl_answer(TclThread *t, uint64_t now, uint64_t aux0, uint64_t aux1, GError **error);

/* Run-wide figures. */
typedef struct {
    uint64_t acquisitions, handoffs, handoff_cycles, order_conflicts, mutexes;
} TclTotals;
TclTotals tcl_world_totals(const TclWorld *w);
void tcl_thread_dump(const TclThread *t, GString *out);

#endif
