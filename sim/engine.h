/* engine.h: the discrete-event core of archsim: an event queue ordered by (tick, priority, seq),
 * clock domains, and the run loop with a progress watchdog.
 *
 * Time is an integer tick of 1 ps, so components with different clocks (a 3 GHz core, a DRAM
 * bus in ns) share one run. seq is the order in which events were scheduled: two events at the
 * same tick and priority run in that order, so every run is bit-reproducible. Events are
 * embedded in their owners (components, messages): the engine never allocates per event.
 * The queue is a timing wheel for near events (Varghese & Lauck, SOSP 1987), O(1) per event
 * at any depth, with a binary heap for far ones; engine.c says why it keeps the (tick,
 * priority, seq) order exactly. Follows the classic design of gem5's EventQueue and SST's TimeVortex (STYLE.md).
 */
#ifndef ARCHSIM_ENGINE_H
#define ARCHSIM_ENGINE_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef uint64_t Tick;               /* picoseconds */
#define TICKS_PER_SECOND 1000000000000ull
#define TICK_MAX UINT64_MAX

/* Event priorities at one tick, lower first. The order is part of the timing model:
 *   DELIVER  messages arrive before their receiver ticks, so a response that lands on a cycle
 *            edge is visible to the tick of that same cycle (one-cycle handshakes stay exact);
 *   TICK     clocked components advance;
 *   WATCHDOG progress checks see the state after every tick of that instant;
 *   STATS    periodic stat dumps, warm-up resets and end-of-run hooks come last. A STATS event
 *            only observes the machine: it is not counted in Engine.events, is not work (it
 *            moves neither last_work nor the watchdog) and does not keep the run alive (the
 *            loop ends when only STATS events are left), so scheduling one never changes what
 *            the simulation computes (docs/outputs.md, "Warm-up, ROI and epochs"). */
typedef enum {
    SIM_PRI_DELIVER = 0,
    SIM_PRI_TICK = 1,
    SIM_PRI_WATCHDOG = 2,
    SIM_PRI_STATS = 3,
} SimPriority;

typedef struct SimEvent SimEvent;
typedef void (*SimEventFn)(SimEvent *ev);

/* A link of a circular doubly linked list: a scheduled event sits in one list of the wheel, so
 * removing it (deschedule) is O(1) and writes nothing but its two neighbours. */
typedef struct SimLink SimLink;
struct SimLink {
    SimLink *next, *prev;
};

struct SimEvent {
    SimLink link;       /* in its window slot; next == NULL when not scheduled */
    SimEventFn fn;
    void *ctx;          /* owner */
    Tick when;
    int32_t heap_idx;   /* its place in the far-event heap, -1 when in the window or idle */
    uint8_t prio;
};

static inline void sim_event_init(SimEvent *ev, SimEventFn fn, void *ctx)
{
    ev->link.next = ev->link.prev = NULL;
    ev->fn = fn;
    ev->ctx = ctx;
    ev->when = 0;
    ev->heap_idx = -1;
    ev->prio = SIM_PRI_TICK;
}
static inline bool sim_event_scheduled(const SimEvent *ev) { return ev->link.next != NULL; }

/* A clock domain maps a component's cycles to ticks. Every event asks it which cycle `now` is,
 * so the division by the period is a multiply by a precomputed reciprocal (Granlund &
 * Montgomery, PLDI 1994; the "round-up" method with its 65-bit variant): exact for every tick. */
typedef struct {
    const char *name;
    uint64_t freq_hz;
    Tick period;        /* ticks per cycle, rounded to the nearest ps */
    uint64_t div_magic; /* t / period == (mulhi(t, magic) [+ add step]) >> shift; 0: t >> shift */
    uint8_t div_shift;
    uint8_t div_add;    /* the 65-bit case: add ((t - hi) >> 1) before the shift */
    /* clock_div_now's memo: the last `now` divided and its quotient (one event asks its clock
     * about the same `now` several times: its cycle, each send's edge) */
    Tick memo_t;
    uint64_t memo_q;
} ClockDomain;

void clock_domain_init(ClockDomain *cd, const char *name, uint64_t freq_hz);
/* Sets cd's period directly (and its reciprocal), for tests and clocks given in ticks. */
void clock_domain_set_period(ClockDomain *cd, Tick period);
static inline uint64_t clock_div(const ClockDomain *cd, Tick t)
{
    if (G_UNLIKELY(cd->div_magic == 0))               /* a power of two */
        return t >> cd->div_shift;
    uint64_t hi = (uint64_t)(((unsigned __int128)t * cd->div_magic) >> 64);
    if (cd->div_add)
        hi += (t - hi) >> 1;
    return hi >> cd->div_shift;
}
/* clock_div of the engine's current time, remembered per domain (a cache, not part of the
 * domain's value: no ClockDomain is defined const, and a run is one thread). Durations and
 * other times go through clock_div, so they never push `now` out of the memo. */
static inline uint64_t clock_div_now(const ClockDomain *cd, Tick now)
{
    if (G_LIKELY(now == cd->memo_t))
        return cd->memo_q;
    uint64_t q = clock_div(cd, now);
    ((ClockDomain *)cd)->memo_t = now;
    ((ClockDomain *)cd)->memo_q = q;
    return q;
}
static inline uint64_t clock_cycle(const ClockDomain *cd, Tick t) { return clock_div(cd, t); }
/* The start of the cycle that t falls in. */
static inline Tick clock_edge_at_or_before(const ClockDomain *cd, Tick t)
{
    return clock_div(cd, t) * cd->period;
}
/* The first cycle edge at or after t. */
static inline Tick clock_edge_at_or_after(const ClockDomain *cd, Tick t)
{
    Tick e = clock_div(cd, t) * cd->period;
    return e == t ? t : e + cd->period;
}

/* The queue (engine.c): a timing wheel of SIM_WINDOW one-tick slots for the events of the next
 * SIM_WINDOW ticks (a cycle-level model's near events: the next edges, deliveries), and a binary
 * heap for the events beyond it. */
#define SIM_WINDOW_BITS 12
#define SIM_WINDOW (1u << SIM_WINDOW_BITS)
typedef struct {
    SimLink slot[SIM_WINDOW];               /* sentinels: tick t's events in slot t % SIM_WINDOW */
    uint64_t bits[SIM_WINDOW / 64];         /* nonempty slots */
    uint64_t summary;                       /* nonempty words of bits */
} SimWheel;
_Static_assert(SIM_WINDOW / 64 <= 64, "one summary word covers the window");

/* A far event in the heap: its sort key beside the pointer, so that sifting compares within the
 * array and touches the event only to update its index. */
typedef struct {
    Tick when;
    uint64_t key2;      /* prio << 56 | seq */
    SimEvent *ev;
} SimHeapEntry;

typedef struct Engine Engine;
typedef void (*SimWatchdogFn)(Engine *eng, void *ctx);

struct Engine {
    Tick now;
    Tick pos;                   /* the window's start: every pending event is at or after it, the
                                   window holds those before pos + SIM_WINDOW (engine.c) */
    uint64_t seq;               /* schedulings so far: the far heap's tie-break */
    uint64_t events;            /* events executed (SIM_PRI_STATS ones excepted) */
    uint32_t pending;           /* events in the queue */
    uint32_t passive;           /* SIM_PRI_STATS events in the queue */
    uint32_t near;              /* events in the window */
    Tick last_work;             /* tick of the last event other than the watchdog's */
    SimWheel *wheel;
    SimHeapEntry *heap;         /* far events */
    uint32_t heap_len, heap_cap;
    bool stop;
    Tick limit;                 /* stop before executing an event after this tick */
    /* progress: components bump `progress` when they retire work; the watchdog checks it */
    uint64_t progress;
    Tick watchdog_period;       /* 0 = off */
    uint64_t watchdog_seen;
    Tick quiet_until;           /* sim_quiet_until: no check of a period that ends before it */
    SimEvent watchdog_ev;
    SimWatchdogFn on_deadlock;
    void *on_deadlock_ctx;
    bool deadlocked;
    /* host progress reporting, called every 2^16 events */
    void (*heartbeat)(Engine *eng, void *ctx);
    void *heartbeat_ctx;
};

void sim_engine_init(Engine *eng);
void sim_engine_destroy(Engine *eng);

/* Schedules ev at tick `when` (>= now) with priority prio. ev must not be scheduled. The
 * common case, an event within the timing window, is inline: it goes to the tail of its tick's
 * slot, after the last event of its priority or lower (engine.c). */
void sim_schedule_far(Engine *eng, SimEvent *ev, Tick when, SimPriority prio);
static inline void sim_schedule(Engine *eng, SimEvent *ev, Tick when, SimPriority prio)
{
    g_assert(ev->link.next == NULL && when >= eng->now);
    if (G_UNLIKELY(when - eng->pos >= SIM_WINDOW || prio == SIM_PRI_STATS)) {
        sim_schedule_far(eng, ev, when, prio);          /* beyond the window, before it, STATS */
        return;
    }
    ev->when = when;
    ev->prio = (uint8_t)prio;
    eng->pending++;
    eng->near++;
    SimWheel *w = eng->wheel;
    unsigned s = (unsigned)(when & (SIM_WINDOW - 1));
    SimLink *sent = &w->slot[s], *at = sent->prev;
    if (at == sent) {                                   /* the slot was empty */
        w->bits[s / 64] |= 1ull << (s % 64);
        w->summary |= 1ull << (s / 64);
    } else {
        while (at != sent && ((SimEvent *)(void *)at)->prio > prio)
            at = at->prev;
    }
    ev->link.prev = at;
    ev->link.next = at->next;
    at->next->prev = &ev->link;
    at->next = &ev->link;
}
/* Removes a scheduled event. */
void sim_deschedule(Engine *eng, SimEvent *ev);
/* Moves an event (scheduled or not) to a new time. */
void sim_reschedule(Engine *eng, SimEvent *ev, Tick when, SimPriority prio);
static inline Tick sim_now(const Engine *eng) { return eng->now; }
static inline void sim_progress(Engine *eng) { eng->progress++; }
static inline uint32_t sim_pending(const Engine *eng) { return eng->pending; }
/* Pending events other than the watchdog's own and the SIM_PRI_STATS observers. */
static inline uint32_t sim_pending_work(const Engine *eng)
{
    return eng->pending - eng->passive - (sim_event_scheduled(&eng->watchdog_ev) ? 1u : 0u);
}
/* a * b, saturating at TICK_MAX (periods times large cycle counts from configs) */
static inline Tick sim_tick_mul(uint64_t a, uint64_t b)
{
    return b != 0 && a > TICK_MAX / b ? TICK_MAX : a * b;
}

/* Watchdog: every `period` ticks, if the progress counter has not moved while events are still
 * pending, calls on_deadlock (which dumps state) and stops the run with eng->deadlocked set. */
void sim_watchdog_arm(Engine *eng, Tick period, SimWatchdogFn on_deadlock, void *ctx);
/* A component that does nothing on purpose until tick t, with nothing in flight (a scripted
 * access at a later cycle, a recorded compute gap), says so: a watchdog check that falls before
 * t is put off to a whole period after it, so the quiet is not called a deadlock. For waits that
 * finite input sets only: a program that can loop (kernel `delay`) must not call it, or a loop of
 * delays would never be caught. */
static inline void sim_quiet_until(Engine *eng, Tick t)
{
    if (t > eng->quiet_until)
        eng->quiet_until = t;
}

/* Runs until only SIM_PRI_STATS events are left, sim_stop() is called, or the next event is
 * past `limit`. Returns the number of events executed (SIM_PRI_STATS ones excepted). */
uint64_t sim_run(Engine *eng, Tick limit);
static inline void sim_stop(Engine *eng) { eng->stop = true; }

#endif
