/* engine.c: the event queue keyed by (tick, priority, seq), the run loop and the progress
 * watchdog. Near events go to a timing wheel (Varghese & Lauck, "Hashed and hierarchical timing
 * wheels", SOSP 1987), far ones to a binary heap:
 *
 *   window   [pos, pos + W): one slot per tick, slot t % W, W = SIM_WINDOW; each slot a FIFO
 *            kept in (priority, seq) order; a bit per nonempty slot and a summary word, so the
 *            next event is two find-first-set away. O(1) to schedule, deschedule and pop.
 *   heap     events at pos + W or later, keyed (tick, priority << 56 | seq); when pos moves, the
 *            heap's events that enter the window move into it, in key order.
 *
 * A cycle-level model schedules mostly within a few cycles (the next edge, a delivery one tick
 * later, a cache's hit latency), so most events never touch the heap, and none writes an index
 * back into a scattered event on every sift step as a heap-only queue does (PHOLD against a
 * plain C heap: `make bench`, tools/bench_engine.c).
 *
 * Why the order is exactly (tick, priority, seq), seq being the order of scheduling: a slot's
 * FIFO holds one tick (the window is W ticks long) and takes its events in scheduling order,
 * each after the last one of its priority or lower. An event of tick t scheduled while t was
 * beyond the window waits in the heap; it moves into the window at the moment pos passes
 * t - W, before any event of the new position runs, hence before any event of tick t can be
 * scheduled into the window directly, and the heap hands its events over in key order. So each
 * slot is in (priority, seq) order, and slots are taken in tick order from pos.
 *
 * Clocked components that have nothing to do sleep and leave the queue, so an idle system costs
 * nothing.
 */
#include "engine.h"

#include <string.h>

#define W_SIZE SIM_WINDOW
#define W_MASK ((Tick)SIM_WINDOW - 1)
#define W_WORDS (SIM_WINDOW / 64)

/* link.next of an event in the heap (not in a window slot): marks it scheduled. */
static SimLink in_heap;

void clock_domain_set_period(ClockDomain *cd, Tick period)
{
    g_assert(period > 0);
    cd->period = period;
    cd->memo_t = cd->memo_q = 0;                              /* 0 / period == 0 */
    unsigned l = 63u - (unsigned)__builtin_clzll(period);      /* floor(log2 period) */
    cd->div_shift = (uint8_t)l;
    cd->div_add = 0;
    if ((period & (period - 1)) == 0) {
        cd->div_magic = 0;                                    /* t >> l */
        return;
    }
    /* m = floor(2^(64 + l) / period) (fits: period > 2^l); the magic is m + 1 when that is
     * exact for every 64-bit t, else the 65-bit magic 2m + 1 (+1) with the add step */
    unsigned __int128 num = (unsigned __int128)1 << (64 + l);
    uint64_t m = (uint64_t)(num / period), rem = (uint64_t)(num % period);
    if (period - rem < (1ull << l)) {
        cd->div_magic = m + 1;
    } else {
        uint64_t twice = rem + rem;
        m += m;
        if (twice >= period || twice < rem)
            m += 1;
        cd->div_magic = m + 1;
        cd->div_add = 1;
    }
}

void clock_domain_init(ClockDomain *cd, const char *name, uint64_t freq_hz)
{
    g_assert(freq_hz > 0);
    cd->name = name;
    cd->freq_hz = freq_hz;
    Tick period = (TICKS_PER_SECOND + freq_hz / 2) / freq_hz;
    clock_domain_set_period(cd, period == 0 ? 1 : period);
}

/* ---- the heap of far events ---------------------------------------------------------------- */
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

static G_GNUC_NO_INLINE void heap_push(Engine *eng, SimEvent *ev)
{
    if (eng->heap_len == eng->heap_cap) {
        eng->heap_cap = eng->heap_cap ? eng->heap_cap * 2 : 256;
        eng->heap = g_renew(SimHeapEntry, eng->heap, eng->heap_cap);
    }
    uint32_t i = eng->heap_len++;
    eng->heap[i] = (SimHeapEntry){ ev->when, ((uint64_t)ev->prio << 56) |
                                   (eng->seq++ & ((1ull << 56) - 1)), ev };
    ev->link.next = ev->link.prev = &in_heap;
    heap_sift_up(eng, i);
}

static void heap_remove_at(Engine *eng, uint32_t i)
{
    SimEvent *ev = eng->heap[i].ev;
    ev->heap_idx = -1;
    ev->link.next = ev->link.prev = NULL;
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

/* ---- the window ------------------------------------------------------------------------------ */
/* Puts ev (pos <= when < pos + W) into its slot after every event of its priority or lower
 * (sim_schedule in engine.h is the same, inline). */
static inline void window_put(Engine *eng, SimEvent *ev)
{
    SimWheel *w = eng->wheel;
    unsigned s = (unsigned)(ev->when & W_MASK);
    SimLink *sent = &w->slot[s], *at = sent->prev;
    if (at == sent) {                       /* the slot was empty */
        w->bits[s / 64] |= 1ull << (s % 64);
        w->summary |= 1ull << (s / 64);
    } else {
        while (at != sent && ((SimEvent *)(void *)at)->prio > ev->prio)
            at = at->prev;
    }
    ev->link.prev = at;
    ev->link.next = at->next;
    at->next->prev = &ev->link;
    at->next = &ev->link;
    eng->near++;
}

static inline void window_take(Engine *eng, SimEvent *ev)
{
    SimLink *e = &ev->link;
    bool last = e->next == e->prev;         /* both the sentinel: ev was alone in its slot */
    e->prev->next = e->next;
    e->next->prev = e->prev;
    e->next = e->prev = NULL;
    eng->near--;
    if (last) {
        SimWheel *w = eng->wheel;
        unsigned s = (unsigned)(ev->when & W_MASK);
        if (!(w->bits[s / 64] &= ~(1ull << (s % 64))))
            w->summary &= ~(1ull << (s / 64));
    }
}

/* The first nonempty slot at or after s, in circular order (the window holds an event). */
static inline unsigned window_first(const SimWheel *w, unsigned s)
{
    unsigned wi = s / 64;
    uint64_t x = w->bits[wi] & (~0ull << (s % 64));
    if (x)
        return wi * 64 + (unsigned)__builtin_ctzll(x);
    uint64_t sm = wi + 1 < 64 ? w->summary & (~0ull << (wi + 1)) : 0;
    if (!sm)
        sm = w->summary;                    /* wrap around to the window's start */
    wi = (unsigned)__builtin_ctzll(sm);
    return wi * 64 + (unsigned)__builtin_ctzll(w->bits[wi]);
}

/* pos has moved: far events that are now within the window enter it, in key order. */
static G_GNUC_NO_INLINE void window_refill(Engine *eng)
{
    while (eng->heap_len > 0 && eng->heap[0].when - eng->pos < W_SIZE) {
        SimEvent *ev = eng->heap[0].ev;
        heap_remove_at(eng, 0);
        window_put(eng, ev);
    }
}

/* The next event in (tick, priority, seq) order, left in the queue, or NULL if none is at or
 * before `limit`. Moves pos to its tick. */
static inline SimEvent *queue_next(Engine *eng, Tick limit)
{
    Tick at;
    if (G_LIKELY(eng->near > 0)) {
        unsigned s = (unsigned)(eng->pos & W_MASK);
        unsigned t = window_first(eng->wheel, s);
        at = eng->pos + ((t - s) & W_MASK);
    } else if (eng->heap_len > 0) {
        at = eng->heap[0].when;
    } else {
        return NULL;
    }
    if (at > limit)
        return NULL;
    if (at != eng->pos) {
        eng->pos = at;
        if (eng->heap_len > 0 && eng->heap[0].when - at < W_SIZE)
            window_refill(eng);
    }
    return (SimEvent *)(void *)eng->wheel->slot[at & W_MASK].next;
}

static inline void queue_put(Engine *eng, SimEvent *ev)
{
    if (ev->when - eng->pos < W_SIZE)
        window_put(eng, ev);
    else
        heap_push(eng, ev);
}

static inline void queue_take(Engine *eng, SimEvent *ev)
{
    if (G_UNLIKELY(ev->link.next == &in_heap))
        heap_remove_at(eng, (uint32_t)ev->heap_idx);
    else
        window_take(eng, ev);
}

/* An event is scheduled before pos: possible only after a driver moved `now` back at the end of
 * a run (system.c reports the last event's time). Every pending event is taken out in queue
 * order and put back around the new position: O(pending), and rare. */
static G_GNUC_NO_INLINE void queue_rewind(Engine *eng, Tick to)
{
    uint32_t n = 0, cap = eng->pending;
    SimEvent **all = g_new(SimEvent *, cap > 0 ? cap : 1);
    SimEvent *ev;
    while ((ev = queue_next(eng, TICK_MAX)) != NULL) {
        g_assert(n < cap);
        queue_take(eng, ev);
        all[n++] = ev;
    }
    eng->pos = to;
    for (uint32_t i = 0; i < n; i++)
        queue_put(eng, all[i]);
    g_free(all);
}

void sim_engine_init(Engine *eng)
{
    memset(eng, 0, sizeof *eng);
    eng->wheel = g_new0(SimWheel, 1);
    for (unsigned s = 0; s < W_SIZE; s++)
        eng->wheel->slot[s].next = eng->wheel->slot[s].prev = &eng->wheel->slot[s];
    eng->limit = TICK_MAX;
    sim_event_init(&eng->watchdog_ev, NULL, eng);
}

void sim_engine_destroy(Engine *eng)
{
    SimWheel *w = eng->wheel;
    for (uint32_t i = 0; i < eng->heap_len; i++) {
        eng->heap[i].ev->heap_idx = -1;
        eng->heap[i].ev->link.next = eng->heap[i].ev->link.prev = NULL;
    }
    for (unsigned s = 0; w && s < W_SIZE; s++) {
        SimLink *sent = &w->slot[s];
        for (SimLink *e = sent->next; e != sent;) {
            SimLink *next = e->next;
            e->next = e->prev = NULL;
            e = next;
        }
    }
    g_free(w);
    g_free(eng->heap);
    eng->wheel = NULL;
    eng->heap = NULL;
    eng->heap_len = eng->heap_cap = 0;
    eng->pending = eng->passive = eng->near = 0;
}

/* sim_schedule's other cases: beyond the window (the heap), before its start (a rewind), or a
 * SIM_PRI_STATS observer (counted as passive). */
void sim_schedule_far(Engine *eng, SimEvent *ev, Tick when, SimPriority prio)
{
    g_assert(!sim_event_scheduled(ev));
    g_assert(when >= eng->now);
    ev->when = when;
    ev->prio = (uint8_t)prio;
    if (prio == SIM_PRI_STATS)
        eng->passive++;
    if (G_UNLIKELY(when < eng->pos))
        queue_rewind(eng, when);
    eng->pending++;
    queue_put(eng, ev);
}

void sim_deschedule(Engine *eng, SimEvent *ev)
{
    g_assert(sim_event_scheduled(ev));
    queue_take(eng, ev);
    eng->pending--;
    if (ev->prio == SIM_PRI_STATS)
        eng->passive--;
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
        if (eng->pending > eng->passive && eng->now < eng->quiet_until) {
            /* a component is quiet on purpose until then (sim_quiet_until) */
            Tick q = eng->quiet_until;
            sim_schedule(eng, ev, q > TICK_MAX - eng->watchdog_period ? TICK_MAX
                                                                       : q + eng->watchdog_period,
                         SIM_PRI_WATCHDOG);
            return;
        }
        /* Nothing retired in a whole period: with events still pending this is a livelock or a
         * lost message; with only the watchdog left, run() ends by itself below. */
        if (eng->pending > eng->passive) {
            eng->deadlocked = true;
            if (eng->on_deadlock)
                eng->on_deadlock(eng, eng->on_deadlock_ctx);
            eng->stop = true;
            return;
        }
    }
    eng->watchdog_seen = eng->progress;
    /* Re-arm only while other work exists, so the watchdog never keeps a finished run alive. */
    if (eng->pending > eng->passive)
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
    SimWheel *w = eng->wheel;
    while (eng->pending > eng->passive && !eng->stop) {
        SimEvent *ev = queue_next(eng, limit);       /* moves pos to the next nonempty slot */
        if (ev == NULL)
            break;
        const Tick now = eng->pos;
        const unsigned s = (unsigned)(now & W_MASK);
        SimLink *const sent = &w->slot[s];
        /* Drain the slot: its events (and those its events schedule at this tick) in order. Its
         * bit stays set while it drains and is cleared once it is left empty (sim_schedule sets
         * it again on an empty slot, window_take clears it: both stay right meanwhile). */
        for (;;) {
            SimLink *next = ev->link.next;
            sent->next = next;
            next->prev = sent;
            ev->link.next = ev->link.prev = NULL;
            eng->near--;
            eng->pending--;
            eng->now = now;
            if (G_UNLIKELY(ev->prio >= SIM_PRI_WATCHDOG)) {
                if (ev->prio == SIM_PRI_STATS) {
                    eng->passive--;      /* an observer: not an event of the simulation */
                    ev->fn(ev);
                    goto next_event;
                }
                if (ev != &eng->watchdog_ev)
                    eng->last_work = now;
            } else {
                eng->last_work = now;        /* the watchdog's own wake-ups are not work */
            }
            eng->events++;               /* kept current: a warm-up reset reads it mid-run */
            ev->fn(ev);
            n++;
            if (G_UNLIKELY((n & 0xffff) == 0) && eng->heartbeat)
                eng->heartbeat(eng, eng->heartbeat_ctx);
        next_event:
            if (sent->next == sent || G_UNLIKELY(eng->stop || eng->pending <= eng->passive))
                break;
            ev = (SimEvent *)(void *)sent->next;
        }
        /* (a bit window_take cleared meanwhile stays clear, and so does its summary bit) */
        if (sent->next == sent && !(w->bits[s / 64] &= ~(1ull << (s % 64))))
            w->summary &= ~(1ull << (s / 64));
    }
    return n;
}
