/* wrap.c: library-level events through `-Wl,--wrap=NAME` (the linker sends the program's calls
 * to __wrap_NAME, which calls the real one as __real_NAME): thread create/join, mutexes,
 * barriers, condition variables, memcpy/memmove/memset; plus the strong definitions of the
 * markers of archsim_trace.h. The --wrap list is in tools/archsim-cc.
 *
 * Order in the trace: an acquire is recorded after the call returns, a release before the call,
 * so that replaying the records in order never holds a lock the program did not hold.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARCHSIM_TRACE_RUNTIME
#include "archsim_trace.h"
#include "rt.h"

#define RT_ADDR(p) ((uint64_t)(uintptr_t)(p))

/* ---- threads ------------------------------------------------------------------------------ */

int __real_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
                          void *arg);
int __wrap_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
                          void *arg);
int __real_pthread_join(pthread_t th, void **ret);
int __wrap_pthread_join(pthread_t th, void **ret);

typedef struct {
    void *(*fn)(void *);
    void *arg;
    RtThread *t;
} RtStart;

static void *rt_trampoline(void *p)
{
    RtStart *s = p;
    void *(*fn)(void *) = s->fn;
    void *arg = s->arg;
    RtThread *t = s->t;
    free(s);
    rt_thread_start(t);
    void *ret = fn(arg);
    rt_thread_finish(t);               /* pthread_exit instead: the key destructor does it */
    return ret;
}

int __wrap_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
                          void *arg)
{
    uint64_t pc = RT_PC();
    RtThread *self = rt_enter();
    if (self == NULL)
        return __real_pthread_create(th, attr, fn, arg);
    self->guard++;
    RtThread *child = rt_thread_new((int32_t)self->tid);
    RtStart *s = child != NULL ? malloc(sizeof *s) : NULL;
    int rc;
    if (s == NULL) {
        if (child != NULL)
            rt_thread_discard(child);
        rc = __real_pthread_create(th, attr, fn, arg);
        self->guard--;
        return rc;
    }
    s->fn = fn;
    s->arg = arg;
    s->t = child;
    uint32_t tid = child->tid;         /* child may be running (and finished) after the call */
    rc = __real_pthread_create(th, attr, rt_trampoline, s);
    if (rc != 0) {
        rt_thread_discard(child);
        free(s);
    }
    self->guard--;
    if (rc == 0)
        rt_event(AT_CREATE, 0, 0, tid, pc);
    return rc;
}

int __wrap_pthread_join(pthread_t th, void **ret)
{
    uint64_t pc = RT_PC();
    int rc = __real_pthread_join(th, ret);
    RtThread *self = rt_enter();
    if (rc != 0 || self == NULL)
        return rc;
    self->guard++;
    int64_t tid = rt_thread_joined((uint64_t)th);
    self->guard--;
    rt_event(AT_JOIN, 0, 0, tid >= 0 ? (uint64_t)tid : UINT64_MAX, pc);
    return rc;
}

/* ---- mutexes ------------------------------------------------------------------------------ */

int __real_pthread_mutex_lock(pthread_mutex_t *m);
int __real_pthread_mutex_trylock(pthread_mutex_t *m);
int __real_pthread_mutex_unlock(pthread_mutex_t *m);
int __wrap_pthread_mutex_lock(pthread_mutex_t *m);
int __wrap_pthread_mutex_trylock(pthread_mutex_t *m);
int __wrap_pthread_mutex_unlock(pthread_mutex_t *m);

int __wrap_pthread_mutex_lock(pthread_mutex_t *m)
{
    uint64_t pc = RT_PC();
    int rc = __real_pthread_mutex_lock(m);
    if (rc == 0 || rc == EOWNERDEAD)
        rt_event(AT_LOCK_ACQ, 0, RT_ADDR(m), 0, pc);
    return rc;
}

int __wrap_pthread_mutex_trylock(pthread_mutex_t *m)
{
    uint64_t pc = RT_PC();
    int rc = __real_pthread_mutex_trylock(m);
    if (rc == 0 || rc == EOWNERDEAD)
        rt_event(AT_LOCK_ACQ, 0, RT_ADDR(m), 0, pc);
    return rc;
}

int __wrap_pthread_mutex_unlock(pthread_mutex_t *m)
{
    rt_event(AT_LOCK_REL, 0, RT_ADDR(m), 0, RT_PC());
    return __real_pthread_mutex_unlock(m);
}

/* ---- barriers ----------------------------------------------------------------------------- */

int __real_pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr,
                                unsigned count);
int __wrap_pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr,
                                unsigned count);
int __real_pthread_barrier_wait(pthread_barrier_t *b);
int __wrap_pthread_barrier_wait(pthread_barrier_t *b);

int __wrap_pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr,
                                unsigned count)
{
    int rc = __real_pthread_barrier_init(b, attr, count);
    RtThread *self = rt_enter();
    if (rc == 0 && self != NULL) {
        self->guard++;
        rt_barrier_set(RT_ADDR(b), count);
        self->guard--;
    }
    return rc;
}

int __wrap_pthread_barrier_wait(pthread_barrier_t *b)
{
    uint64_t pc = RT_PC();
    int rc = __real_pthread_barrier_wait(b);
    RtThread *self = rt_enter();
    if ((rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD) && self != NULL) {
        self->guard++;
        uint32_t count = rt_barrier_count(RT_ADDR(b));
        self->guard--;
        rt_event(AT_BARRIER, 0, RT_ADDR(b), count, pc);
    }
    return rc;
}

/* ---- condition variables: a wait releases and re-acquires the mutex ----------------------- */

int __real_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int __wrap_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int __real_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                  const struct timespec *abstime);
int __wrap_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                  const struct timespec *abstime);
int __real_pthread_cond_signal(pthread_cond_t *c);
int __wrap_pthread_cond_signal(pthread_cond_t *c);
int __real_pthread_cond_broadcast(pthread_cond_t *c);
int __wrap_pthread_cond_broadcast(pthread_cond_t *c);

int __wrap_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    uint64_t pc = RT_PC();
    rt_event(AT_LOCK_REL, 0, RT_ADDR(m), 0, pc);
    int rc = __real_pthread_cond_wait(c, m);
    rt_event(AT_COND_WAIT, 0, RT_ADDR(c), 0, pc);
    rt_event(AT_LOCK_ACQ, 0, RT_ADDR(m), 0, pc);
    return rc;
}

int __wrap_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                  const struct timespec *abstime)
{
    uint64_t pc = RT_PC();
    rt_event(AT_LOCK_REL, 0, RT_ADDR(m), 0, pc);
    int rc = __real_pthread_cond_timedwait(c, m, abstime);
    rt_event(AT_COND_WAIT, 0, RT_ADDR(c), 0, pc);
    rt_event(AT_LOCK_ACQ, 0, RT_ADDR(m), 0, pc);
    return rc;
}

/* the format has no arg on AT_COND_SIGNAL: signal and broadcast record alike */
int __wrap_pthread_cond_signal(pthread_cond_t *c)
{
    rt_event(AT_COND_SIGNAL, 0, RT_ADDR(c), 0, RT_PC());
    return __real_pthread_cond_signal(c);
}

int __wrap_pthread_cond_broadcast(pthread_cond_t *c)
{
    rt_event(AT_COND_SIGNAL, 0, RT_ADDR(c), 0, RT_PC());
    return __real_pthread_cond_broadcast(c);
}

/* ---- memory ranges (clang calls these for struct copies and memset; gcc mostly inlines them
 * and calls __tsan_read_range/__tsan_write_range instead) ----------------------------------- */

void *__real_memcpy(void *d, const void *s, size_t n);
void *__real_memmove(void *d, const void *s, size_t n);
void *__real_memset(void *d, int c, size_t n);
void *__wrap_memcpy(void *d, const void *s, size_t n);
void *__wrap_memmove(void *d, const void *s, size_t n);
void *__wrap_memset(void *d, int c, size_t n);

void *__wrap_memcpy(void *d, const void *s, size_t n)
{
    if (n != 0) {
        uint64_t pc = RT_PC();
        rt_event(AT_RANGE_R, 0, RT_ADDR(s), n, pc);
        rt_event(AT_RANGE_W, 0, RT_ADDR(d), n, pc);
    }
    return __real_memcpy(d, s, n);
}

void *__wrap_memmove(void *d, const void *s, size_t n)
{
    if (n != 0) {
        uint64_t pc = RT_PC();
        rt_event(AT_RANGE_R, 0, RT_ADDR(s), n, pc);
        rt_event(AT_RANGE_W, 0, RT_ADDR(d), n, pc);
    }
    return __real_memmove(d, s, n);
}

void *__wrap_memset(void *d, int c, size_t n)
{
    if (n != 0)
        rt_event(AT_RANGE_W, 0, RT_ADDR(d), n, RT_PC());
    return __real_memset(d, c, n);
}

/* ---- markers (override the weak no-ops of archsim_trace.h) -------------------------------- */

void archsim_roi_begin(void)
{
    rt_event(AT_ROI_BEGIN, 0, 0, 0, RT_PC());
}

void archsim_roi_end(void)
{
    rt_event(AT_ROI_END, 0, 0, 0, RT_PC());
}

void archsim_tx_begin(void)
{
    rt_event(AT_TX_BEGIN, 0, 0, 0, RT_PC());
}

void archsim_tx_end(void)
{
    rt_event(AT_TX_END, 0, 0, 0, RT_PC());
}

void archsim_tx_abort(void)
{
    rt_event(AT_TX_ABORT, 0, 0, 0, RT_PC());
}
