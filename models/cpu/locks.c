/* locks.c: the built-in lock kernels, written in the kernel language (kernel.h, docs/locks.md),
 * and the harness that runs a lock kernel in the lock experiment's loop. The algorithms follow
 * Mellor-Crummey & Scott, "Algorithms for scalable synchronization on shared-memory
 * multiprocessors", ACM TOCS 9(1), 1991 (TAS, TTAS, backoff, ticket, MCS); Anderson, "The
 * performance of spin lock alternatives for shared-memory multiprocessors", IEEE TPDS 1(1), 1990
 * (array lock); Magnusson, Landin & Hagersten, "Queue locks on cache coherent multiprocessors",
 * IPPS 1994 (CLH). Queue nodes are named by index (core id, or id + 1 where 0 means nil) instead
 * of by pointer. Registers r13 and r14 keep a kernel's state from acquire to release; the
 * harness uses r15.
 */
#include <string.h>

#include "kernel.h"

static const char tas_text[] =
    "# test-and-set: every attempt is an atomic write, so each waiter's retry is a coherence\n"
    "# transaction (GetM) even while the lock is held\n"
    ".var lock                      # 0 free, 1 held\n"
    "acquire:\n"
    "    tas   r1, lock\n"
    "    bne   r1, 0, acquire\n"
    "    ret\n"
    "release:\n"
    "    store lock, 0\n"
    "    ret\n";

static const char ttas_text[] =
    "# test-and-test-and-set: spin reading the cached copy; try the atomic only when it looks free\n"
    ".var lock                      # 0 free, 1 held\n"
    "acquire:\n"
    "    load  r1, lock\n"
    "    bne   r1, 0, acquire       # spins in the L1 until the holder's release invalidates it\n"
    "    tas   r1, lock\n"
    "    bne   r1, 0, acquire\n"
    "    ret\n"
    "release:\n"
    "    store lock, 0\n"
    "    ret\n";

static const char backoff_text[] =
    "# test-and-test-and-set with exponential backoff: after a failed test-and-set wait a random\n"
    "# 0 .. limit cycles; the limit starts at backoff_min and doubles up to backoff_max\n"
    ".var lock                      # 0 free, 1 held\n"
    "acquire:\n"
    "    mov   r2, backoff_min      # the backoff limit\n"
    "bo_test:\n"
    "    load  r1, lock\n"
    "    bne   r1, 0, bo_test\n"
    "    tas   r1, lock\n"
    "    beq   r1, 0, bo_got\n"
    "    rand  r3, r2\n"
    "    delay r3\n"
    "    shl   r2, r2, 1\n"
    "    min   r2, r2, backoff_max\n"
    "    jmp   bo_test\n"
    "bo_got:\n"
    "    ret\n"
    "release:\n"
    "    store lock, 0\n"
    "    ret\n";

static const char ticket_text[] =
    "# ticket lock: take a ticket with fetch-and-add, wait until it is served; FIFO, but every\n"
    "# release invalidates every waiter's copy of now_serving\n"
    ".var next_ticket\n"
    ".var now_serving\n"
    "acquire:\n"
    "    faa   r13, next_ticket, 1  # my ticket (kept until release)\n"
    "tk_spin:\n"
    "    load  r1, now_serving\n"
    "    bne   r1, r13, tk_spin\n"
    "    ret\n"
    "release:\n"
    "    add   r1, r13, 1\n"
    "    store now_serving, r1\n"
    "    ret\n";

static const char anderson_text[] =
    "# Anderson's array lock: each waiter spins on its own slot (one per cache line); a release\n"
    "# writes only the next slot\n"
    ".var   next_slot\n"
    ".array slots[n]                # 1: that slot's waiter may enter\n"
    ".init  slots[0] = 1\n"
    "acquire:\n"
    "    faa   r13, next_slot, 1\n"
    "    rem   r13, r13, n          # my slot (kept until release)\n"
    "an_spin:\n"
    "    load  r1, slots[r13]\n"
    "    beq   r1, 0, an_spin\n"
    "    store slots[r13], 0        # reset it for its next user\n"
    "    ret\n"
    "release:\n"
    "    add   r1, r13, 1\n"
    "    rem   r1, r1, n\n"
    "    store slots[r1], 1         # hand over to the next slot\n"
    "    ret\n";

static const char mcs_text[] =
    "# MCS queue lock: a linked queue of per-core nodes; each waiter spins on its own node and its\n"
    "# predecessor hands over by writing it. Node i belongs to core i; pointers are id + 1 (0: nil)\n"
    ".var   tail                    # the last node in the queue, 0 when the lock is free\n"
    ".array node[n] bytes 16        # +0 next (successor's id + 1), +8 locked\n"
    "acquire:\n"
    "    add   r14, id, 1           # my node's name\n"
    "    store node[id]+0, 0        # next = nil\n"
    "    store node[id]+8, 1        # locked = true\n"
    "    xchg  r2, tail, r14        # predecessor = swap(tail, me)\n"
    "    beq   r2, 0, mcs_got       # none: the lock is mine\n"
    "    sub   r2, r2, 1\n"
    "    store node[r2]+0, r14      # predecessor.next = me\n"
    "mcs_spin:\n"
    "    load  r1, node[id]+8\n"
    "    bne   r1, 0, mcs_spin      # until my predecessor clears locked\n"
    "mcs_got:\n"
    "    ret\n"
    "release:\n"
    "    load  r2, node[id]+0\n"
    "    bne   r2, 0, mcs_pass      # a successor is known\n"
    "    cas   r3, tail, r14, 0     # none: free the lock if I am still the tail\n"
    "    beq   r3, r14, mcs_done\n"
    "mcs_wait:\n"
    "    load  r2, node[id]+0       # a successor is linking itself in: wait for it\n"
    "    beq   r2, 0, mcs_wait\n"
    "mcs_pass:\n"
    "    sub   r2, r2, 1\n"
    "    store node[r2]+8, 0        # successor.locked = false\n"
    "mcs_done:\n"
    "    ret\n";

static const char clh_text[] =
    "# CLH queue lock: an implicit queue; each waiter spins on its predecessor's node and takes\n"
    "# that node over when it leaves. Node n is the initial free node\n"
    ".var   tail = n                # the last node enqueued\n"
    ".array node[n+1]               # 1 while its owner holds or waits for the lock\n"
    "init:\n"
    "    mov   r13, id              # my node\n"
    "    ret\n"
    "acquire:\n"
    "    store node[r13], 1\n"
    "    xchg  r14, tail, r13       # predecessor's node (kept until release)\n"
    "clh_spin:\n"
    "    load  r1, node[r14]\n"
    "    bne   r1, 0, clh_spin\n"
    "    ret\n"
    "release:\n"
    "    store node[r13], 0         # my successor (spinning on my node) may go\n"
    "    mov   r13, r14             # the predecessor's node is mine from now on\n"
    "    ret\n";

static const char llsc_text[] =
    "# test-and-test-and-set built from load-linked / store-conditional\n"
    ".var lock                      # 0 free, 1 held\n"
    "acquire:\n"
    "    load  r1, lock\n"
    "    bne   r1, 0, acquire\n"
    "    ll    r1, lock\n"
    "    bne   r1, 0, acquire\n"
    "    sc    r1, lock, 1          # 1: stored while the reservation held\n"
    "    beq   r1, 0, acquire\n"
    "    ret\n"
    "release:\n"
    "    store lock, 0\n"
    "    ret\n";

const KernelBuiltin kernel_builtins[] = {
    { "tas", "test-and-set spin lock", tas_text },
    { "ttas", "test-and-test-and-set spin lock", ttas_text },
    { "ttas-backoff", "test-and-test-and-set with exponential backoff", backoff_text },
    { "ticket", "ticket lock (fetch-and-add)", ticket_text },
    { "anderson", "Anderson's array lock", anderson_text },
    { "mcs", "MCS queue lock", mcs_text },
    { "clh", "CLH queue lock", clh_text },
    { "llsc", "test-and-test-and-set with load-linked / store-conditional", llsc_text },
    { NULL, NULL, NULL },
};

const char *const kernel_builtin_names[] = { "none", "tas", "ttas", "ttas-backoff", "ticket",
                                             "anderson", "mcs", "clh", "llsc", NULL };

const KernelBuiltin *kernel_builtin_find(const char *name)
{
    for (const KernelBuiltin *b = kernel_builtins; b->name; b++)
        if (strcmp(b->name, name) == 0)
            return b;
    return NULL;
}

/* Each acquisition: a critical section that increments `counter` with a plain load, add and
 * store (correct only under mutual exclusion: the final value is checked) and computes for cs
 * cycles; then the release and outside + 0 .. jitter cycles of other work. */
#define HARNESS_HEAD                                                                        \
    "# the lock experiment (docs/locks.md): r15 is the harness's\n"                        \
    ".var counter                   # what the lock protects\n"                            \
    ".expect counter = acquisitions\n"                                                      \
    "main:\n"
#define HARNESS_BODY                                                                        \
    "    delay 0, jitter            # a random start\n"                                    \
    "lock_iteration:\n"                                                                     \
    "    call  acquire\n"                                                                   \
    "    acquired\n"                                                                        \
    "    load  r15, counter\n"                                                              \
    "    add   r15, r15, 1\n"                                                               \
    "    store counter, r15\n"                                                              \
    "    delay cs\n"                                                                        \
    "    released\n"                                                                        \
    "    call  release\n"                                                                   \
    "    delay outside, jitter\n"                                                           \
    "    loop  lock_iteration\n"                                                            \
    "    halt\n"

const char *kernel_harness_text(bool has_init)
{
    static const char with_init[] = HARNESS_HEAD "    call  init\n" HARNESS_BODY;
    static const char without[] = HARNESS_HEAD "    nop\n" HARNESS_BODY;
    return has_init ? with_init : without;
}
