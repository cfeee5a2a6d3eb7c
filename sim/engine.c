/* engine.c: binary min-heap event queue keyed by (tick, priority, seq), the run loop and the
 * progress watchdog. A binary heap keeps the cost near 70-130 ns per event at the queue sizes a
 * cycle-level model has (PHOLD, Fujimoto 1990, measured: docs/references.md §3); clocked
 * components that have nothing to do sleep and leave the heap, so an idle system costs nothing.
 */
#include "engine.h"

#include <string.h>

void clock_domain_init(ClockDomain *cd, const char *name, uint64_t freq_hz)
{
    g_assert(freq_hz > 0);
    cd->name = name;
    cd->freq_hz = freq_hz;
    cd->period = (TICKS_PER_SECOND + freq_hz / 2) / freq_hz;
    if (cd->period == 0)
        cd->period = 1;
}

void sim_engine_init(Engine *eng)
{
    memset(eng, 0, sizeof *eng);
    eng->heap_cap = 1024;
    eng->heap = g_new(SimHeapEntry, eng->heap_cap);
    eng->limit = TICK_MAX;
    sim_event_init(&eng->watchdog_ev, NULL, eng);
}

void sim_engine_destroy(Engine *eng)
{
    for (uint32_t i = 0; i < eng->heap_len; i++)
        eng->heap[i].ev->heap_idx = -1;
    g_free(eng->heap);
    eng->heap = NULL;
    eng->heap_len = eng->heap_cap = 0;
}

static inline bool heap_less(const SimHeapEntry *a, const SimHeapEntry *b)
{
    return a->when < b->when || (a->when == b->when && a->key2 < b->key2);
}

static void heap_sift_up(Engine *eng, uint32_t i)
{
    SimHeapEntry *h = eng->heap;
    SimHeapEntry e = h[i];
    while (i > 0) {
        uint32_t p = (i - 1) >> 1;
        if (!heap_less(&e, &h[p]))
            break;
        h[i] = h[p];
        h[i].ev->heap_idx = (int32_t)i;
        i = p;
    }
    h[i] = e;
    e.ev->heap_idx = (int32_t)i;
}

static void heap_sift_down(Engine *eng, uint32_t i)
{
    SimHeapEntry *h = eng->heap;
    uint32_t n = eng->heap_len;
    SimHeapEntry e = h[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && heap_less(&h[c + 1], &h[c]))
            c++;
        if (!heap_less(&h[c], &e))
            break;
        h[i] = h[c];
        h[i].ev->heap_idx = (int32_t)i;
        i = c;
    }
    h[i] = e;
    e.ev->heap_idx = (int32_t)i;
}

void sim_schedule(Engine *eng, SimEvent *ev, Tick when, SimPriority prio)
{
    g_assert(ev->heap_idx < 0);
    g_assert(when >= eng->now);
    if (eng->heap_len == eng->heap_cap) {
        eng->heap_cap *= 2;
        eng->heap = g_renew(SimHeapEntry, eng->heap, eng->heap_cap);
    }
    ev->when = when;
    ev->prio = (uint8_t)prio;
    if (prio == SIM_PRI_STATS)
        eng->passive++;
    uint32_t i = eng->heap_len++;
    eng->heap[i] = (SimHeapEntry){ when, ((uint64_t)prio << 56) | (eng->seq++ & ((1ull << 56) - 1)),
                                   ev };
    heap_sift_up(eng, i);
}

static void heap_remove_at(Engine *eng, uint32_t i)
{
    SimEvent *ev = eng->heap[i].ev;
    ev->heap_idx = -1;
    if (ev->prio == SIM_PRI_STATS)
        eng->passive--;
    uint32_t last = --eng->heap_len;
    if (i == last)
        return;
    eng->heap[i] = eng->heap[last];
    eng->heap[i].ev->heap_idx = (int32_t)i;
    if (i > 0 && heap_less(&eng->heap[i], &eng->heap[(i - 1) >> 1]))
        heap_sift_up(eng, i);
    else
        heap_sift_down(eng, i);
}

void sim_deschedule(Engine *eng, SimEvent *ev)
{
    g_assert(ev->heap_idx >= 0 && (uint32_t)ev->heap_idx < eng->heap_len);
    heap_remove_at(eng, (uint32_t)ev->heap_idx);
}

void sim_reschedule(Engine *eng, SimEvent *ev, Tick when, SimPriority prio)
{
    if (sim_event_scheduled(ev))
        sim_deschedule(eng, ev);
    sim_schedule(eng, ev, when, prio);
}

static void watchdog_fire(SimEvent *ev)
{
    Engine *eng = ev->ctx;
    if (eng->progress == eng->watchdog_seen) {
        /* Nothing retired in a whole period: with events still pending this is a livelock or a
         * lost message; with only the watchdog left, run() ends by itself below. */
        if (eng->heap_len > eng->passive) {
            eng->deadlocked = true;
            if (eng->on_deadlock)
                eng->on_deadlock(eng, eng->on_deadlock_ctx);
            eng->stop = true;
            return;
        }
    }
    eng->watchdog_seen = eng->progress;
    /* Re-arm only while other work exists, so the watchdog never keeps a finished run alive. */
    if (eng->heap_len > eng->passive)
        sim_schedule(eng, ev, eng->now + eng->watchdog_period, SIM_PRI_WATCHDOG);
}

void sim_watchdog_arm(Engine *eng, Tick period, SimWatchdogFn on_deadlock, void *ctx)
{
    eng->watchdog_period = period;
    eng->on_deadlock = on_deadlock;
    eng->on_deadlock_ctx = ctx;
    eng->watchdog_seen = eng->progress;
    sim_event_init(&eng->watchdog_ev, watchdog_fire, eng);
    if (period > 0)
        sim_schedule(eng, &eng->watchdog_ev, eng->now + period, SIM_PRI_WATCHDOG);
}

uint64_t sim_run(Engine *eng, Tick limit)
{
    uint64_t n = 0;
    eng->stop = false;
    eng->limit = limit;
    while (eng->heap_len > eng->passive && !eng->stop) {
        SimHeapEntry top = eng->heap[0];
        if (top.when > limit)
            break;
        /* pop */
        uint32_t last = --eng->heap_len;
        top.ev->heap_idx = -1;
        if (last > 0) {
            eng->heap[0] = eng->heap[last];
            heap_sift_down(eng, 0);
        }
        eng->now = top.when;
        if (G_UNLIKELY(top.ev->prio == SIM_PRI_STATS)) {
            eng->passive--;          /* an observer: not an event of the simulation */
            top.ev->fn(top.ev);
            continue;
        }
        if (G_LIKELY(top.ev != &eng->watchdog_ev))
            eng->last_work = top.when;
        eng->events++;               /* kept current: a warm-up reset reads it mid-run */
        top.ev->fn(top.ev);
        n++;
        if (G_UNLIKELY((n & 0xffff) == 0) && eng->heartbeat)
            eng->heartbeat(eng, eng->heartbeat_ctx);
    }
    return n;
}
