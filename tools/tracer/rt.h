/* rt.h: internals of archsim's recording runtime (tools/tracer/), shared by rt.c, hooks.c and
 * wrap.c. Design: TSan instrumentation as a pure hook source (GCC/Clang -fsanitize=thread;
 * docs/references.md §4).
 *
 * Every recording path goes through rt_enter(): one TLS load, one byte test. A thread that must
 * not record (recording off, runtime busy, thread finished) points at a sentinel RtThread whose
 * guard is never 0, so the fast path has no other branch.
 */
#ifndef ARCHSIM_TRACER_RT_H
#define ARCHSIM_TRACER_RT_H

#include <stdbool.h>
#include <stdint.h>

#define ATRACE_WRITER_ONLY              /* no GLib: the writer half of the header */
#include "../../traces/atrace.h"

typedef struct RtThread {
    uint32_t guard;             /* > 0: inside the runtime or not recording; records dropped */
    uint32_t tid;               /* 0 = main thread, then pthread_create order */
    int32_t parent;             /* creator's tid; -1 for the main and adopted threads */
    bool live;                  /* writer open */
    bool complete;              /* writer closed cleanly */
    bool failed;                /* an I/O error stopped this thread's recording */
    bool joined;                /* pthread_join returned for this thread */
    AtWriter *w;
    uint64_t handle;            /* pthread_self() of the thread, for pthread_join */
    uint64_t records;           /* at_writer_records() at close */
    uint64_t counts[AT_KINDS];  /* records per kind */
} RtThread;

/* the calling thread's state: NULL until the first event, then a real thread or a sentinel */
extern _Thread_local RtThread *rt_self __attribute__((tls_model("initial-exec")));

RtThread *rt_adopt(void);                       /* slow path of rt_enter */
void rt_put_failed(RtThread *t);                /* at_writer_put failed: stop this thread */

#define RT_PC() ((uint64_t)(uintptr_t)__builtin_return_address(0))

/* The recording thread, or NULL when this event must not be recorded. */
static inline __attribute__((always_inline)) RtThread *rt_enter(void)
{
    RtThread *t = rt_self;
    if (__builtin_expect(t == NULL, 0))
        t = rt_adopt();
    return t->guard == 0 ? t : NULL;
}

/* Appends one record. The caller has raised t->guard before building the record, so that
 * nothing the compiler or the writer calls (memset, memcpy: both --wrap'ped) records itself. */
static inline __attribute__((always_inline)) void rt_put(RtThread *t, const AtRecord *r)
{
    if (__builtin_expect(at_writer_put(t->w, r) != 0, 0))
        rt_put_failed(t);
    t->counts[r->kind]++;
}

/* One record with the common fields; the others are zero. */
static inline __attribute__((always_inline)) void rt_event(AtKind kind, uint32_t size,
                                                           uint64_t addr, uint64_t arg,
                                                           uint64_t pc)
{
    RtThread *t = rt_enter();
    if (t == NULL)
        return;
    t->guard++;
    AtRecord r = { .kind = (uint8_t)kind, .size = size, .addr = addr, .arg = arg, .pc = pc };
    rt_put(t, &r);
    t->guard--;
}

/* C11 memory order from a hook's argument: gcc may add HLE bits above the low byte. */
static inline AtOrder rt_order(int mo)
{
    int m = mo & 0xff;
    return m <= AT_MO_SEQ_CST ? (AtOrder)m : AT_MO_SEQ_CST;
}

void rt_init(void);                             /* idempotent; __tsan_init and a constructor */

/* thread registry (rt.c) */
RtThread *rt_thread_new(int32_t parent);        /* next tid; NULL if recording is off */
void rt_thread_start(RtThread *t);              /* in the new thread: open its stream */
void rt_thread_finish(RtThread *t);             /* close its stream (idempotent) */
void rt_thread_discard(RtThread *t);            /* pthread_create failed */
int64_t rt_thread_joined(uint64_t handle);      /* tid of a joined thread, -1 if unknown */
void rt_barrier_set(uint64_t addr, uint32_t count);
uint32_t rt_barrier_count(uint64_t addr);       /* 0 if pthread_barrier_init was not seen */

#endif
