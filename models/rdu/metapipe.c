/* metapipe.c: the metapipeline runtime (metapipe.h). Every change of a stage (start, finish,
 * hand-off) re-tries only the stages it can unblock: its consumers, its producers and itself, so
 * an event costs the stage's edges, not the loop's size.
 */
#include "metapipe.h"

#include <stdio.h>
#include <string.h>

typedef struct MpLoop MpLoop;

typedef enum { W_NONE, W_STARVED, W_BLOCKED } WaitKind;

struct MpStage {
    MpRun *run;
    MpLoop *loop;
    uint32_t ix;
    const RduStage *sp;
    MpLoop *child;
    uint32_t *in, nin;               /* dep indices of its loop where it is the consumer */
    uint32_t *out, nout;             /* ... the producer */
    uint64_t started, finished;
    bool busy, compute_done;
    uint32_t mem_pending;
    Tick start_tick;
    SimEvent done_ev;
    int track;
    WaitKind wait;
    Tick wait_since;
    int stat;                        /* index in MpRun.stats, -1 for a nested loop */
};

/* One edge between two stages at run time: the producer's finished iterations travel to the
 * consumer (a control token at once, a tile after its transfer over the network). */
typedef struct {
    MpLoop *loop;
    const RduDep *sp;
    uint64_t arrived;                /* iterations the consumer may read */
    Tick *q;                         /* arrival ticks of those in flight, in order */
    uint32_t head, len, cap;
    Tick last;                       /* the latest arrival queued (arrivals stay in order) */
    uint32_t gen;                    /* runs of its loop so far: tiles of an old run are dropped */
    SimEvent ev;
} MpDep;

struct MpLoop {
    const RduMLoop *sp;
    MpStage *st;
    MpDep *dep;
    MpStage *owner;                  /* the stage it is the iteration of (NULL: the root) */
    bool active;
};

struct MpRun {
    Engine *eng;
    Tick period;
    const RduKernel *k;
    MpHooks h;
    TraceDump *td;
    MpLoop *loops;
    uint32_t nloops;
    MpStageStats *stats;
    uint32_t nstats;
    Tick t0, t1;
    bool done;
};

static void try_stage(MpStage *s);

static uint64_t cyc(const MpRun *r, Tick t) { return t / r->period; }

static void loop_reset(MpLoop *L)
{
    for (uint32_t i = 0; i < L->sp->nst; i++) {
        MpStage *s = &L->st[i];
        s->started = s->finished = 0;
    }
    /* hand-offs still in flight at the end of the last run went to no one */
    for (uint32_t j = 0; j < L->sp->ndep; j++) {
        MpDep *d = &L->dep[j];
        if (sim_event_scheduled(&d->ev))
            sim_deschedule(L->st[0].run->eng, &d->ev);
        d->arrived = 0;
        d->head = d->len = 0;
        d->last = 0;
        d->gen++;
    }
}

/* Every stage has finished every trip: whatever is still in flight between them (a carried
 * hand-off after the last trip) has no consumer left. */
static bool loop_complete(const MpLoop *L)
{
    for (uint32_t i = 0; i < L->sp->nst; i++)
        if (L->st[i].finished < L->sp->trips || L->st[i].busy)
            return false;
    return true;
}

static void stage_finish_iteration(MpStage *s);

static void loop_check_done(MpLoop *L)
{
    if (!L->active || !loop_complete(L))
        return;
    L->active = false;
    MpRun *r = L->st[0].run;
    if (L->owner) {
        stage_finish_iteration(L->owner);
    } else {
        r->done = true;
        r->t1 = r->eng->now;
        if (r->h.done)
            r->h.done(r->h.ctx);
    }
}

static void wait_close(MpStage *s, Tick now)
{
    if (s->wait == W_NONE || s->stat < 0)
        return;
    MpStageStats *ss = &s->run->stats[s->stat];
    uint64_t d = cyc(s->run, now) - cyc(s->run, s->wait_since);
    if (s->wait == W_STARVED)
        ss->starved += d;
    else
        ss->blocked += d;
    s->wait = W_NONE;
}

static void wait_open(MpStage *s, WaitKind w, Tick now)
{
    if (s->wait == w)
        return;
    wait_close(s, now);
    s->wait = w;
    s->wait_since = now;
}

/* How many of its output versions stage s holds (produced, not yet released). */
static uint64_t held(const MpStage *s)
{
    uint64_t h = 0;
    for (uint32_t j = 0; j < s->nout; j++) {
        const RduDep *d = &s->loop->sp->dep[s->out[j]];
        if (d->carried)
            continue;
        const MpStage *c = &s->loop->st[d->to];
        uint64_t rel = s->loop->sp->ctrl == RDU_CTRL_STREAM ? c->started : c->finished;
        h = MAX(h, s->finished > rel ? s->finished - rel : 0);
    }
    return h;
}

static void stage_start(MpStage *s)
{
    MpRun *r = s->run;
    Tick now = r->eng->now;
    wait_close(s, now);
    s->busy = true;
    s->compute_done = false;
    s->start_tick = now;
    s->started++;
    if (s->stat >= 0)
        trace_hold(r->td, s->track, cyc(r, now));
    if (s->child) {
        loop_reset(s->child);
        s->child->active = true;
        for (uint32_t i = 0; i < s->child->sp->nst; i++)
            try_stage(&s->child->st[i]);
    } else {
        const RduStage *sp = s->sp;
        for (int t = RDU_TIER_HBM; t <= RDU_TIER_DDR; t++) {
            if (sp->rd[t]) {
                s->mem_pending++;
                r->h.mem(r->h.ctx, s, (RduTier)t, false, sp->rd[t]);
            }
            if (sp->wr[t]) {
                s->mem_pending++;
                r->h.mem(r->h.ctx, s, (RduTier)t, true, sp->wr[t]);
            }
        }
        /* a long stage (a `fixed` op of 2^40 cycles, a slow clock) is work under way, not a
         * deadlock; one that would end past the last tick fails the run (it wrapped before) */
        Tick d = sim_tick_mul(sp->compute_cycles, r->period);
        if (d > TICK_MAX - now) {
            if (r->h.fail) {
                r->h.fail(r->h.ctx, s->sp->name, sp->compute_cycles);
                return;
            }
            d = TICK_MAX - now;                 /* no owner to fail it: the last tick */
        }
        sim_quiet_until(r->eng, now + d);
        sim_schedule(r->eng, &s->done_ev, now + d, SIM_PRI_TICK);
    }
    /* a stream consumer frees its FIFO entry as it starts */
    if (s->loop->sp->ctrl == RDU_CTRL_STREAM)
        for (uint32_t j = 0; j < s->nin; j++)
            try_stage(&s->loop->st[s->loop->sp->dep[s->in[j]].from]);
}

static void dep_arrive(MpDep *d)
{
    d->arrived++;
    MpLoop *L = d->loop;
    try_stage(&L->st[d->sp->to]);
}

static void dep_event(SimEvent *ev)
{
    MpDep *d = ev->ctx;
    MpRun *r = d->loop->st[0].run;
    g_assert(d->len > 0);
    d->head = (d->head + 1) % d->cap;
    d->len--;
    if (d->len)
        sim_schedule(r->eng, &d->ev, d->q[d->head], SIM_PRI_TICK);
    dep_arrive(d);
}

/* Stage s finished an iteration: each edge out of it carries it to its consumer, a control
 * token at once, a tile when the network has moved it. */
static void send_outputs(MpStage *s)
{
    MpRun *r = s->run;
    MpLoop *L = s->loop;
    Tick now = r->eng->now;
    for (uint32_t j = 0; j < s->nout; j++) {
        MpDep *d = &L->dep[s->out[j]];
        const RduDep *sp = d->sp;
        uint64_t bytes = sp->bytes / L->sp->split + (sp->bytes % L->sp->split != 0);
        if (sp->xfer_cycles == 0 && bytes == 0) {
            dep_arrive(d);
            continue;
        }
        if (r->h.net) {
            r->h.net(r->h.ctx, d, d->gen, sp, bytes);
            continue;
        }
        Tick at = MAX(now + sp->xfer_cycles * r->period, d->last);
        d->last = at;
        if (d->len == d->cap) {
            uint32_t nc = d->cap ? d->cap * 2 : 4;
            Tick *q = g_new(Tick, nc);
            for (uint32_t i = 0; i < d->len; i++)
                q[i] = d->q[(d->head + i) % d->cap];
            g_free(d->q);
            d->q = q;
            d->head = 0;
            d->cap = nc;
        }
        d->q[(d->head + d->len) % d->cap] = at;
        if (d->len++ == 0)
            sim_schedule(r->eng, &d->ev, at, SIM_PRI_TICK);
    }
    if (L->sp->ctrl == RDU_CTRL_SEQUENTIAL && s->ix == L->sp->nst - 1)
        try_stage(&L->st[0]);
}

static void stage_finish_iteration(MpStage *s)
{
    MpRun *r = s->run;
    Tick now = r->eng->now;
    s->busy = false;
    s->finished++;
    sim_progress(r->eng);
    if (s->stat >= 0) {
        MpStageStats *ss = &r->stats[s->stat];
        ss->iterations++;
        ss->busy += cyc(r, now) - cyc(r, s->start_tick);
        if (s->track >= 0) {
            const TraceArg a[] = { TARG_U("iter", s->finished - 1), TARG_U("held", held(s)) };
            trace_emit(r->td, s->track, cyc(r, s->start_tick), "run",
                       cyc(r, now) - cyc(r, s->start_tick), a, 2);
            trace_hold(r->td, s->track, UINT64_MAX);
        }
    }
    send_outputs(s);
    /* its own next iteration; producers whose buffer it released (pipe, sequential) */
    try_stage(s);
    if (s->loop->sp->ctrl != RDU_CTRL_STREAM)
        for (uint32_t j = 0; j < s->nin; j++)
            try_stage(&s->loop->st[s->loop->sp->dep[s->in[j]].from]);
    loop_check_done(s->loop);
}

static void leaf_maybe_done(MpStage *s)
{
    if (s->compute_done && s->mem_pending == 0)
        stage_finish_iteration(s);
}

static void done_event(SimEvent *ev)
{
    MpStage *s = ev->ctx;
    s->compute_done = true;
    leaf_maybe_done(s);
}

void mp_tile_arrived(MpRun *r, void *tile, uint32_t gen)
{
    MpDep *d = tile;
    g_assert(d->loop->st[0].run == r);
    if (d->gen == gen)
        dep_arrive(d);
}

void mp_mem_done(MpRun *r, MpStage *s)
{
    g_assert(s->mem_pending > 0);
    s->mem_pending--;
    if (s->mem_pending == 0 && s->compute_done) {
        /* a transfer that ends between two chip edges is seen at the next edge */
        Tick now = r->eng->now, e = (now + r->period - 1) / r->period * r->period;
        if (e == now)
            stage_finish_iteration(s);
        else
            sim_schedule(r->eng, &s->done_ev, e, SIM_PRI_TICK);
    }
}

/* Starts s's next iteration if its inputs are there and its outputs have room; else notes
 * why it waits. */
static void try_stage(MpStage *s)
{
    MpLoop *L = s->loop;
    if (!L->active || s->busy || s->started >= L->sp->trips)
        return;
    uint64_t i = s->started;
    Tick now = s->run->eng->now;
    const RduMLoop *sp = L->sp;
    for (uint32_t j = 0; j < s->nin; j++) {
        const MpDep *d = &L->dep[s->in[j]];
        bool ok = d->sp->carried ? (i == 0 || d->arrived >= i) : d->arrived > i;
        if (!ok) {
            wait_open(s, W_STARVED, now);
            return;
        }
    }
    if (sp->ctrl == RDU_CTRL_SEQUENTIAL && s->ix == 0 && i > 0 &&
        L->st[sp->nst - 1].finished < i) {
        wait_open(s, W_STARVED, now);
        return;
    }
    for (uint32_t j = 0; j < s->nout; j++) {
        const RduDep *d = &sp->dep[s->out[j]];
        if (d->carried)
            continue;
        const MpStage *c = &L->st[d->to];
        uint64_t rel = sp->ctrl == RDU_CTRL_STREAM ? c->started : c->finished;
        if (i >= rel + d->depth) {
            wait_open(s, W_BLOCKED, now);
            return;
        }
    }
    stage_start(s);
}

static void build_loop_rt(MpRun *r, uint32_t li, MpStage *owner, const char *prefix)
{
    MpLoop *L = &r->loops[li];
    const RduMLoop *sp = &r->k->loops[li];
    L->sp = sp;
    L->owner = owner;
    L->st = g_new0(MpStage, sp->nst ? sp->nst : 1);
    L->dep = g_new0(MpDep, sp->ndep ? sp->ndep : 1);
    for (uint32_t j = 0; j < sp->ndep; j++) {
        L->dep[j].loop = L;
        L->dep[j].sp = &sp->dep[j];
        sim_event_init(&L->dep[j].ev, dep_event, &L->dep[j]);
    }
    for (uint32_t i = 0; i < sp->nst; i++) {
        MpStage *s = &L->st[i];
        s->run = r;
        s->loop = L;
        s->ix = i;
        s->sp = &sp->st[i];
        s->track = -1;
        s->stat = -1;
        sim_event_init(&s->done_ev, done_event, s);
        for (uint32_t j = 0; j < sp->ndep; j++) {
            if (sp->dep[j].to == i)
                s->nin++;
            if (sp->dep[j].from == i)
                s->nout++;
        }
        s->in = g_new(uint32_t, s->nin + 1);
        s->out = g_new(uint32_t, s->nout + 1);
        s->nin = s->nout = 0;
        for (uint32_t j = 0; j < sp->ndep; j++) {
            if (sp->dep[j].to == i)
                s->in[s->nin++] = j;
            if (sp->dep[j].from == i)
                s->out[s->nout++] = j;
        }
        if (s->sp->child >= 0) {
            s->child = &r->loops[s->sp->child];
            build_loop_rt(r, (uint32_t)s->sp->child, s, prefix);
        } else {
            s->stat = (int)r->nstats++;
            MpStageStats *ss = &r->stats[s->stat];
            ss->name = g_strdup_printf("%s.%s", sp->name, s->sp->name);
            if (r->td) {
                char *tn = g_strdup_printf("%s.%s.%s", prefix, sp->name, s->sp->name);
                s->track = trace_register(r->td, tn);
                g_free(tn);
            }
        }
    }
}

MpRun *mp_new(Engine *eng, Tick period, const RduKernel *k, const MpHooks *hooks, TraceDump *td,
              const char *prefix)
{
    MpRun *r = g_new0(MpRun, 1);
    r->eng = eng;
    r->period = period;
    r->k = k;
    r->h = *hooks;
    r->td = td;
    r->nloops = k->nloops;
    r->loops = g_new0(MpLoop, k->nloops);
    uint32_t leaves = 0;
    for (uint32_t li = 0; li < k->nloops; li++)
        for (uint32_t s = 0; s < k->loops[li].nst; s++)
            leaves += k->loops[li].st[s].child < 0;
    r->stats = g_new0(MpStageStats, leaves ? leaves : 1);
    build_loop_rt(r, 0, NULL, prefix);
    return r;
}

void mp_start(MpRun *r)
{
    r->t0 = r->eng->now;
    r->done = false;
    MpLoop *L = &r->loops[0];
    loop_reset(L);
    L->active = true;
    for (uint32_t i = 0; i < L->sp->nst; i++)
        try_stage(&L->st[i]);
    loop_check_done(L);
}

bool mp_done(const MpRun *r) { return r->done; }
uint32_t mp_stage_count(const MpRun *r) { return r->nstats; }
const MpStageStats *mp_stage_stats(MpRun *r, uint32_t i) { return &r->stats[i]; }
Tick mp_started(const MpRun *r) { return r->t0; }
Tick mp_finished(const MpRun *r) { return r->t1; }

void mp_dump(const MpRun *r, GString *out)
{
    for (uint32_t li = 0; li < r->nloops; li++) {
        const MpLoop *L = &r->loops[li];
        if (!L->active)
            continue;
        for (uint32_t i = 0; i < L->sp->nst; i++) {
            const MpStage *s = &L->st[i];
            g_string_append_printf(out, "    %s.%s: iteration %" G_GUINT64_FORMAT " of %"
                                   G_GUINT64_FORMAT "%s, %u transfers out, %s\n", L->sp->name,
                                   s->sp->name, s->started, L->sp->trips,
                                   s->busy ? " running" : "", s->mem_pending,
                                   s->wait == W_STARVED ? "waiting for an input"
                                   : s->wait == W_BLOCKED ? "waiting for buffer room" : "");
        }
    }
}

void mp_free(MpRun *r)
{
    if (!r)
        return;
    for (uint32_t li = 0; li < r->nloops; li++) {
        MpLoop *L = &r->loops[li];
        if (!L->st)
            continue;
        for (uint32_t i = 0; i < L->sp->nst; i++) {
            MpStage *s = &L->st[i];
            if (sim_event_scheduled(&s->done_ev))
                sim_deschedule(r->eng, &s->done_ev);
            g_free(s->in);
            g_free(s->out);
        }
        for (uint32_t j = 0; j < L->sp->ndep; j++) {
            if (sim_event_scheduled(&L->dep[j].ev))
                sim_deschedule(r->eng, &L->dep[j].ev);
            g_free(L->dep[j].q);
        }
        g_free(L->st);
        g_free(L->dep);
    }
    for (uint32_t i = 0; i < r->nstats; i++)
        g_free((char *)r->stats[i].name);
    g_free(r->stats);
    g_free(r->loops);
    g_free(r);
}
