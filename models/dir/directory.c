/* directory.c: the directory controller of one LLC bank (its home slice), interpreting the
 * DIRECTORY table of a protocol of protocols/dirproto.h (the Primer, 2nd ed., ch. 8: directory
 * at the home node, three-hop forwarding, acks counted at the requester). Messages arrive from
 * the on-chip network (models/noc) in the format of models/dir/dirmsg.h.
 *
 *   noc --GetS/GetM/Put*, Data--> [entry lookup: state, owner, sharers] --row--> sends, bookkeeping
 *        Data from memory: the line is read (functional memory here) when the row fires and
 *        leaves after the LLC bank's timing answer (mem_side read); forwards, Invs and Put-Acks
 *        leave after `latency` cycles, one message handled per cycle (occupancy)
 *   DA_STALL: the request waits in the entry's queue and is retried after each state change
 *
 * Sharers: a full bit vector or `pointers` limited pointers falling back to broadcast (Dir_i B,
 * Agarwal et al., ISCA 1988; protocols/dirproto.h's DirSharers). The directory holds an entry for
 * every block (a full-map memory-side directory: no directory evictions or recalls). It also holds
 * the functional memory of its blocks: the values memory supplies and write-backs update; the
 * LLC bank and DRAM behind mem_side give only the timing.
 */
#include "directory.h"
#include "../mem/memmsg.h"

#include <string.h>

#include "../../sim/error.h"
#include "dirmsg.h"
#include "../mem/funcmem.h"

typedef struct {
    uint64_t line, latency, caches, banks, pointers;
    int protocol;
} DirParams;

typedef struct {
    uint64_t block;         /* key (line-aligned address) */
    uint8_t state;
    int8_t owner;           /* -1: none */
    DirSharers sh;
    Msg *stall_head, *stall_tail;
} DirEntry;

typedef struct {
    Component base;
    DirParams p;
    const DirProtocol *proto;
    int16_t *cell;          /* state * DDE_COUNT + event -> row, -1 none */
    uint32_t line_shift;
    uint32_t node;          /* this directory's noc endpoint */
    Port *net, *mem;
    GHashTable *entries;    /* &block -> DirEntry */
    GHashTable *mem_pages;  /* page number -> bytes */
    GPtrArray *pending;     /* memory reads in flight: tag -> the Data message to send */
    GArray *pending_free;
    uint64_t busy_until;    /* first cycle the controller is free (one message per cycle) */
    uint64_t *trans;        /* state * DDE_COUNT + event */
    uint32_t stalled;
    /* stats */
    uint64_t msgs_in[DM_COUNT], msgs_out[DM_COUNT];
    uint64_t mem_reads, writebacks, broadcasts, stalls, overflows, queue_cycles;
} Dir;

static const char *const proto_choices[] = { "dir-msi", "dir-mesi", NULL };

static const ParamSpec dir_params[] = {
    { .name = "protocol", .type = PARAM_ENUM, .def = "dir-mesi", .choices = proto_choices,
      .doc = "directory protocol table (protocols/dir_*.c); must match l1d.protocol",
      .offset = offsetof(DirParams, protocol) },
    { .name = "line", .type = PARAM_SIZE, .def = "64B", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 8, .max = 4096, .doc = "coherence block size", .offset = offsetof(DirParams, line) },
    { .name = "latency", .type = PARAM_CYCLES, .def = "2", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1000, .doc = "cycles from a message's arrival to the messages it sends (directory "
      "lookup); data from memory waits for the LLC bank instead",
      .offset = offsetof(DirParams, latency) },
    { .name = "pointers", .type = PARAM_UINT, .def = "0", .flags = PARAM_F_RANGE, .min = 0,
      .max = 64, .doc = "0: full bit-vector sharers; K: K limited pointers, broadcast Inv on "
      "overflow (Dir_K B)", .offset = offsetof(DirParams, pointers) },
    { .name = "caches", .type = PARAM_UINT, .def = "1", .flags = PARAM_F_RANGE, .min = 1,
      .max = 64, .doc = "number of caches (set by the system)",
      .offset = offsetof(DirParams, caches) },
    { .name = "banks", .type = PARAM_UINT, .def = "1", .flags = PARAM_F_RANGE, .min = 1,
      .max = 4096, .doc = "number of directory banks (set by the system)",
      .offset = offsetof(DirParams, banks) },
    PARAM_END,
};

static const PortSpec dir_ports[] = {
    { .name = "net", .role = PORT_REQUESTER, .doc = "the on-chip network (node caches + bank)" },
    { .name = "mem_side", .role = PORT_REQUESTER, .doc = "this bank's LLC slice (timing)" },
    PORT_END,
};

#define D_(x) ((const Dir *)(x))
static double f_requests(const Component *c)
{
    const Dir *k = D_(c);
    return (double)(k->msgs_in[DM_GETS] + k->msgs_in[DM_GETM]);
}
static double f_msgs_out(const Component *c)
{
    double s = 0;
    for (int t = 0; t < DM_COUNT; t++)
        s += (double)D_(c)->msgs_out[t];
    return s;
}

static const StatSpec dir_stats[] = {
    { "requests", STAT_FORMULA_U64, "count", "GetS + GetM received", 0, f_requests },
    { "gets", STAT_COUNTER, "count", "GetS received", offsetof(Dir, msgs_in[DM_GETS]), NULL },
    { "getm", STAT_COUNTER, "count", "GetM received", offsetof(Dir, msgs_in[DM_GETM]), NULL },
    { "puts", STAT_COUNTER, "count", "PutS received", offsetof(Dir, msgs_in[DM_PUTS]), NULL },
    { "putm", STAT_COUNTER, "count", "PutM received", offsetof(Dir, msgs_in[DM_PUTM]), NULL },
    { "pute", STAT_COUNTER, "count", "PutE received", offsetof(Dir, msgs_in[DM_PUTE]), NULL },
    { "owner_data", STAT_COUNTER, "count", "Data received from an owner (after Fwd-GetS)",
      offsetof(Dir, msgs_in[DM_DATA]), NULL },
    { "data_sent", STAT_COUNTER, "count", "Data sent from memory to a requester (two-hop)",
      offsetof(Dir, msgs_out[DM_DATA]), NULL },
    { "fwd_gets", STAT_COUNTER, "count", "Fwd-GetS sent to an owner (three-hop)",
      offsetof(Dir, msgs_out[DM_FWD_GETS]), NULL },
    { "fwd_getm", STAT_COUNTER, "count", "Fwd-GetM sent to an owner (three-hop)",
      offsetof(Dir, msgs_out[DM_FWD_GETM]), NULL },
    { "invs", STAT_COUNTER, "count", "Inv sent", offsetof(Dir, msgs_out[DM_INV]), NULL },
    { "put_acks", STAT_COUNTER, "count", "Put-Ack sent", offsetof(Dir, msgs_out[DM_PUT_ACK]),
      NULL },
    { "msgs_sent", STAT_FORMULA_U64, "count", "messages sent", 0, f_msgs_out },
    { "broadcasts", STAT_COUNTER, "count", "invalidations sent to every cache (pointer overflow)",
      offsetof(Dir, broadcasts), NULL },
    { "overflows", STAT_COUNTER, "count", "sharer sets that outgrew the pointers",
      offsetof(Dir, overflows), NULL },
    { "stalls", STAT_COUNTER, "count", "requests that waited on a block in a transient state",
      offsetof(Dir, stalls), NULL },
    { "memory_reads", STAT_COUNTER, "count", "lines read from the LLC bank",
      offsetof(Dir, mem_reads), NULL },
    { "writebacks", STAT_COUNTER, "count", "lines written to the LLC bank (PutM, owner data)",
      offsetof(Dir, writebacks), NULL },
    { "queue_cycles", STAT_COUNTER, "cycle", "cycles messages waited for the busy controller",
      offsetof(Dir, queue_cycles), NULL },
    STAT_END,
};

/* ---- sending ------------------------------------------------------------------------------ */
static Msg *new_msg(Dir *k, int type, uint64_t block, uint32_t dst, unsigned flags, int req,
                    int acks, Tick issued)
{
    Msg *m = sim_msg_alloc(k->base.sim);
    m->cmd = MSG_DIR;
    dir_msg(m)->addr = block;
    dir_msg_set(m, type, flags, req, acks);
    noc_msg_route(m, dst, dir_msg_vnet[type]);
    m->issued = issued;
    m->size = 0;
    m->data = NULL;
    k->msgs_out[type]++;
    return m;
}

static void send(Dir *k, Msg *m, uint64_t delay)
{
    SIM_TRACE(&k->base, "send", 0, TARG_X("addr", dir_msg(m)->addr),
              TARG_E("msg", dir_msg_type(m), dir_msg_names[dir_msg_type(m)]),
              TARG_U("dst", noc_msg_dst(m)),
              TARG_E("class", noc_msg_vnet(m), dir_vnet_names[noc_msg_vnet(m)]),
              TARG_I("acks", dir_msg_acks(m)));
    sim_port_send(&k->base, k->net, m, delay);
}

/* Data from memory: the value is taken now; the message leaves when the LLC bank answers. */
static void send_mem_data(Dir *k, uint64_t block, int req, unsigned flags, int acks, Tick issued)
{
    Msg *d = new_msg(k, DM_DATA, block, (uint32_t)req, flags, req, acks, issued);
    d->size = (uint32_t)k->p.line;
    dir_data_new(d, (uint32_t)k->p.line);
    funcmem_read(k->mem_pages, block, d->data, (uint32_t)k->p.line);
    uint64_t tag;
    if (k->pending_free->len) {
        tag = g_array_index(k->pending_free, uint64_t, k->pending_free->len - 1);
        g_array_set_size(k->pending_free, k->pending_free->len - 1);
        g_ptr_array_index(k->pending, tag) = d;
    } else {
        tag = k->pending->len;
        g_ptr_array_add(k->pending, d);
    }
    Msg *r = sim_msg_alloc(k->base.sim);
    r->cmd = MSG_READ_REQ;
    mem_msg(r)->addr = block;
    r->size = (uint32_t)k->p.line;
    mem_msg(r)->tag = tag;
    r->issued = k->base.eng->now;
    k->mem_reads++;
    sim_port_send(&k->base, k->mem, r, k->p.latency);
}

static void write_mem(Dir *k, uint64_t block, const uint8_t *data)
{
    g_assert(data);
    funcmem_write(k->mem_pages, block, data, (uint32_t)k->p.line);
    SIM_TRACE(&k->base, "writeback", 0, TARG_X("addr", block));
    Msg *w = sim_msg_alloc(k->base.sim);
    w->cmd = MSG_WRITEBACK;
    mem_msg(w)->addr = block;
    w->size = (uint32_t)k->p.line;
    w->issued = k->base.eng->now;
    k->writebacks++;
    sim_port_send(&k->base, k->mem, w, k->p.latency);
}

/* ---- the table ---------------------------------------------------------------------------- */
static DirEntry *entry_get(Dir *k, uint64_t block)
{
    DirEntry *e = g_hash_table_lookup(k->entries, &block);
    if (!e) {
        e = g_new0(DirEntry, 1);
        e->block = block;
        e->state = (uint8_t)k->proto->dinitial;
        e->owner = -1;
        g_hash_table_insert(k->entries, &e->block, e);
    }
    return e;
}

static int classify(const Dir *k, const DirEntry *e, const Msg *m)
{
    int req = dir_msg_req(m);
    switch (dir_msg_type(m)) {
    case DM_GETS: return DDE_GETS;
    case DM_GETM: return DDE_GETM;
    case DM_PUTS: return dir_sharers_last(&e->sh, req) ? DDE_PUTS_LAST : DDE_PUTS_NOTLAST;
    case DM_PUTM: return e->owner == req ? DDE_PUTM_OWNER : DDE_PUTM_NONOWNER;
    case DM_PUTE: return e->owner == req ? DDE_PUTE_OWNER : DDE_PUTE_NONOWNER;
    case DM_DATA: return DDE_DATA;
    default:
        g_error("%s: cycle %" G_GUINT64_FORMAT ": block 0x%" G_GINT64_MODIFIER
                "x: a directory cannot receive %s", k->base.name,
                sim_component_cycle(&k->base), dir_msg_c(m)->addr, dir_msg_names[dir_msg_type(m)]);
    }
}

static char *sharers_text(const Dir *k, const DirEntry *e)
{
    if (e->sh.overflow)
        return g_strdup("all");
    GString *s = g_string_new("{");
    for (int c = 0; c < (int)k->p.caches; c++)
        if (e->sh.bits >> c & 1)
            g_string_append_printf(s, "%s%d", s->len > 1 ? "," : "", c);
    g_string_append_c(s, '}');
    return g_string_free(s, FALSE);
}

/* The directory's view of a block for the teaching table: state, then owner or sharers. */
static char *entry_text(const Dir *k, const DirEntry *e)
{
    if (e->owner >= 0)
        return g_strdup_printf("%s(l1d%d)", k->proto->dstates[e->state].name, e->owner);
    char *sh = sharers_text(k, e);
    char *t = g_strdup_printf("%s%s", k->proto->dstates[e->state].name,
                              strcmp(sh, "{}") == 0 ? "" : sh);
    g_free(sh);
    return t;
}

/* Fires the row for m; returns false if it stalls (m stays with the caller). */
static bool fire(Dir *k, DirEntry *e, Msg *m, uint64_t delay)
{
    int ev = classify(k, e, m);
    int old = e->state;
    int r = k->cell[old * DDE_COUNT + ev];
    if (G_UNLIKELY(r < 0))
        g_error("%s: cycle %" G_GUINT64_FORMAT ": block 0x%" G_GINT64_MODIFIER
                "x: protocol %s has no directory transition for state %s, event %s",
                k->base.name, sim_component_cycle(&k->base), e->block, k->proto->name,
                k->proto->dstates[old].name, dir_dir_event_names[ev]);
    const DirRow *row = &k->proto->drows[r];
    uint32_t a = row->actions;
    if (a & DA_STALL)
        return false;
    k->trans[old * DDE_COUNT + ev]++;
    int req = dir_msg_req(m), n = (int)k->p.caches;
    int old_owner = e->owner;
    uint64_t targets = dir_sharers_inv_targets(&e->sh, req, n);
    if (a & DA_DATA_TO_REQ)
        send_mem_data(k, e->block, req, (a & DA_EXCL) ? DMF_EXCL : 0,
                      dir_msg_type(m) == DM_GETM ? __builtin_popcountll(targets) : 0, m->issued);
    if (a & (DA_FWD_GETS | DA_FWD_GETM)) {
        if (old_owner < 0)
            g_error("%s: cycle %" G_GUINT64_FORMAT ": block 0x%" G_GINT64_MODIFIER
                    "x: %s + %s forwards, but the block has no owner", k->base.name,
                    sim_component_cycle(&k->base), e->block, k->proto->dstates[old].name,
                    dir_dir_event_names[ev]);
        int t = (a & DA_FWD_GETS) ? DM_FWD_GETS : DM_FWD_GETM;
        send(k, new_msg(k, t, e->block, (uint32_t)old_owner, 0, req, 0, m->issued), delay);
    }
    if (a & DA_INV_SHARERS) {
        if (e->sh.overflow && targets)
            k->broadcasts++;
        for (int c = 0; c < n; c++)
            if (targets >> c & 1)
                send(k, new_msg(k, DM_INV, e->block, (uint32_t)c, 0, req, 0, m->issued), delay);
    }
    if (a & DA_PUT_ACK)
        send(k, new_msg(k, DM_PUT_ACK, e->block, (uint32_t)req, 0, req, 0, m->issued), delay);
    if (a & DA_CLEAR_SHARERS)
        dir_sharers_clear(&e->sh);
    bool was_over = e->sh.overflow;
    if (a & DA_ADD_REQ)
        dir_sharers_add(&e->sh, req, (int)k->p.pointers);
    if ((a & DA_ADD_OWNER) && old_owner >= 0)
        dir_sharers_add(&e->sh, old_owner, (int)k->p.pointers);
    if (!was_over && e->sh.overflow)
        k->overflows++;
    if (a & DA_REMOVE_REQ)
        dir_sharers_remove(&e->sh, req);
    if (a & DA_CLEAR_OWNER)
        e->owner = -1;
    if (a & DA_SET_OWNER)
        e->owner = (int8_t)req;
    if (a & DA_COPY_MEM)
        write_mem(k, e->block, m->data);
    e->state = row->next;
    if (G_UNLIKELY(k->base.trace_track >= 0)) {
        char *sh = sharers_text(k, e), *view = entry_text(k, e);
        SIM_TRACE(&k->base, "dir", 0, TARG_X("addr", e->block),
                  TARG_E("from", old, k->proto->dstates[old].name),
                  TARG_E("to", row->next, k->proto->dstates[row->next].name),
                  TARG_E("on", ev, dir_dir_event_names[ev]), TARG_U("req", req),
                  TARG_I("owner", e->owner), TARG_S("sharers", sh), TARG_S("view", view));
        g_free(sh);
        g_free(view);
    }
    return true;
}

static void consume(Dir *k, Msg *m)
{
    if (m->data)
        dir_data_free(m);
    sim_msg_free(k->base.sim, m);
}

/* After a state change, the requests that waited on the block try again, in arrival order. */
static void retry_stalled(Dir *k, DirEntry *e, uint64_t delay)
{
    while (e->stall_head) {
        Msg *m = e->stall_head;
        int before = e->state;
        if (!fire(k, e, m, delay))
            return;
        e->stall_head = m->next_free;
        if (!e->stall_head)
            e->stall_tail = NULL;
        k->stalled--;
        consume(k, m);
        if (e->state == before)
            continue;
    }
}

static void handle(Dir *k, Msg *m)
{
    uint64_t now = sim_component_cycle(&k->base);
    uint64_t start = now > k->busy_until ? now : k->busy_until;
    k->queue_cycles += start - now;
    k->busy_until = start + 1;
    uint64_t delay = start - now + k->p.latency;
    int type = dir_msg_type(m);
    k->msgs_in[type]++;
    SIM_TRACE(&k->base, "recv", 0, TARG_X("addr", dir_msg(m)->addr),
              TARG_E("msg", type, dir_msg_names[type]), TARG_U("src", noc_msg_src(m)),
              TARG_E("class", noc_msg_vnet(m), dir_vnet_names[noc_msg_vnet(m)]));
    DirEntry *e = entry_get(k, dir_msg(m)->addr);
    if (e->stall_head && type != DM_DATA) {     /* keep the order of waiting requests */
        int ev = classify(k, e, m);
        int r = k->cell[e->state * DDE_COUNT + ev];
        if (r >= 0 && (k->proto->drows[r].actions & DA_STALL)) {
            k->stalls++;
            m->next_free = NULL;
            e->stall_tail->next_free = m;
            e->stall_tail = m;
            k->stalled++;
            return;
        }
    }
    int before = e->state;
    if (!fire(k, e, m, delay)) {
        k->stalls++;
        m->next_free = NULL;
        if (e->stall_tail)
            e->stall_tail->next_free = m;
        else
            e->stall_head = m;
        e->stall_tail = m;
        k->stalled++;
        return;
    }
    consume(k, m);
    if (e->state != before && e->stall_head)
        retry_stalled(k, e, delay);
}

static void dir_recv(Component *c, Port *port, Msg *m)
{
    Dir *k = (Dir *)c;
    if (port == k->mem) {
        g_assert(m->cmd == MSG_READ_RESP && mem_msg(m)->tag < k->pending->len);
        Msg *d = g_ptr_array_index(k->pending, mem_msg(m)->tag);
        g_assert(d);
        g_ptr_array_index(k->pending, mem_msg(m)->tag) = NULL;
        g_array_append_val(k->pending_free, mem_msg(m)->tag);
        sim_msg_free(c->sim, m);
        send(k, d, 0);
        return;
    }
    g_assert(m->cmd == MSG_DIR);
    handle(k, m);
}

static bool dir_realize(Component *c, GError **error)
{
    Dir *k = (Dir *)c;
    k->proto = dir_proto_find(proto_choices[k->p.protocol]);
    if (!k->proto) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "protocol %s is not built into this archsim", proto_choices[k->p.protocol]);
        return false;
    }
    k->net = sim_port(c, "net", 0);
    k->mem = sim_port(c, "mem_side", 0);
    if (!k->net || !k->mem) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "net and mem_side must be connected");
        return false;
    }
    if (k->p.pointers >= k->p.caches)
        k->p.pointers = 0;                      /* as many pointers as caches: a full map */
    int ns = k->proto->ndstates;
    k->cell = g_new(int16_t, (size_t)ns * DDE_COUNT);
    for (int i = 0; i < ns * DDE_COUNT; i++)
        k->cell[i] = -1;
    for (int r = 0; r < k->proto->ndrows; r++) {
        const DirRow *row = &k->proto->drows[r];
        k->cell[row->state * DDE_COUNT + row->event] = (int16_t)r;
    }
    k->trans = g_new0(uint64_t, (size_t)ns * DDE_COUNT);
    k->line_shift = (uint32_t)__builtin_ctzll(k->p.line);
    k->node = (uint32_t)(k->p.caches + (uint64_t)(c->index >= 0 ? c->index : 0));
    k->entries = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
    k->mem_pages = funcmem_new();
    k->pending = g_ptr_array_new();
    k->pending_free = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    return true;
}

static void free_stalled(Dir *k)
{
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, k->entries);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        DirEntry *e = v;
        while (e->stall_head) {
            Msg *m = e->stall_head;
            e->stall_head = m->next_free;
            dir_data_free(m);
        }
    }
}

static void dir_finalize(Component *c)
{
    Dir *k = (Dir *)c;
    if (k->entries) {
        free_stalled(k);
        g_hash_table_destroy(k->entries);
        g_hash_table_destroy(k->mem_pages);
    }
    if (k->pending) {
        for (guint i = 0; i < k->pending->len; i++) {
            Msg *d = g_ptr_array_index(k->pending, i);
            if (d)
                dir_data_free(d);
        }
        g_ptr_array_free(k->pending, TRUE);
        g_array_free(k->pending_free, TRUE);
    }
    g_free(k->cell);
    g_free(k->trans);
}

static void dir_dump(Component *c, GString *out)
{
    Dir *k = (Dir *)c;
    g_string_append_printf(out, "  protocol %s, %u requests stalled\n", k->proto->name,
                           k->stalled);
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, k->entries);
    GPtrArray *busy = g_ptr_array_new();
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        DirEntry *e = v;
        if (!k->proto->dstates[e->state].stable || e->stall_head)
            g_ptr_array_add(busy, e);
    }
    for (guint i = 0; i < busy->len; i++) {
        DirEntry *e = g_ptr_array_index(busy, i);
        char *sh = sharers_text(k, e);
        int waiting = 0;
        for (Msg *m = e->stall_head; m; m = m->next_free)
            waiting++;
        g_string_append_printf(out, "  block 0x%" G_GINT64_MODIFIER "x: %s owner %d sharers %s, "
                               "%d requests waiting\n", e->block, k->proto->dstates[e->state].name,
                               e->owner, sh, waiting);
        g_free(sh);
    }
    g_ptr_array_free(busy, TRUE);
}

static bool dir_busy(const Component *c)
{
    return D_(c)->stalled > 0;
}

/* gem5's Ruby names: <name>.Directory_Controller.<State>.<Event> for every row. */
static void dir_extra_stats(const Component *c, StatSet *out)
{
    const Dir *k = D_(c);
    const DirProtocol *p = k->proto;
    for (int r = 0; r < p->ndrows; r++) {
        const DirRow *row = &p->drows[r];
        if (row->actions & DA_STALL)
            continue;
        char *n = g_strdup_printf("%s.Directory_Controller.%s.%s", c->name,
                                  p->dstates[row->state].name, dir_dir_event_names[row->event]);
        char *d = g_strdup_printf("transitions %s -> %s", p->dstates[row->state].name,
                                  p->dstates[row->next].name);
        stats_add_u64(out, n, k->trans[row->state * DDE_COUNT + row->event], "count", d);
        g_free(n);
        g_free(d);
    }
}

/* What its trace events mean to the teaching view (`run --teach`). */
static const TeachEvent dir_teach_events[] = {
    { "dir", TEACH_STATE }, { "writeback", TEACH_WRITEBACK },
    TEACH_EVENTS_END,
};

const ComponentClass directory_class = {
    .name = "directory",
    .doc = "directory controller of one LLC bank interpreting a directory protocol table",
    .size = sizeof(Dir),
    .params_offset = offsetof(Dir, p),
    .params = dir_params,
    .ports = dir_ports,
    .stats = dir_stats,
    .realize = dir_realize,
    .recv = dir_recv,
    .dump = dir_dump,
    .busy = dir_busy,
    .finalize = dir_finalize,
    .extra_stats = dir_extra_stats,
    .teach_events = dir_teach_events,
};

/* ---- the directory message family (dirmsg.h): one command; the protocol's own message type
 * (dir_msg_names) is in the payload ---- */
static const char *const dir_cmd_names[DIR_CMDS] = { [DIR_MSG] = "msg" };
const MsgFamily dir_msg_family = {
    .name = "dir", .id = MSG_FAM_DIR, .payload = sizeof(DirPayload),
    .cmds = dir_cmd_names, .ncmds = DIR_CMDS,
};
