/* noc.c: an on-chip interconnection network: crossbar, bidirectional ring or 2D mesh, after
 * Dally & Towles, "Principles and Practices of Interconnection Networks" (ch. 3-5 topologies,
 * ch. 8-9 dimension-order and ring routing, ch. 12-13 virtual cut-through and credit-based flow
 * control; the ring's deadlock freedom uses the bubble rule of Carrion et al., HiPC 1997;
 * concentration, several endpoints per router, after ch. 7.1).
 *
 *   endpoint i --node[i]--> NI queue --inject--> router --link--> router ... --eject--> node[j]
 *
 * With concentration c there are nodes x c endpoints; endpoint e sits at router e % nodes, with
 * its own NI queue, inject and eject channel. Routes, hops and latency are between routers.
 * Every channel (inject, router-to-router link, eject) carries one message at a time for
 * ceil((header + size) / link_width) cycles (serialization, cut-through: paid once when the path
 * is free). A message waits router_delay cycles in each router before it bids for its output, and
 * link_latency cycles on each link. Each input buffer holds `buffer` messages per vnet; a message
 * takes a link only when the buffer behind it has a free slot (credit) in its own vnet, so one
 * class never blocks another. Unloaded latency, injection to delivery, H router-to-router hops:
 *     H * (router_delay + link_latency) + ceil((header + size) / link_width)      (H >= 1)
 *     router_delay + ceil(...)  to an endpoint of its own router (it turns around there)
 * The crossbar is one central switch: H = 1 for every pair; its output links are the ejects.
 *
 * Point-to-point order: routes are deterministic, every buffer is a FIFO per vnet and each eject
 * channel hands over one message at a time, so one (source, destination, vnet) is delivered in
 * the order sent (the directory protocols rely on it).
 *
 * Speed: each link keeps the list of input queues whose ready head bids for it, and a bitmap
 * marks the links with bidders, so a cycle costs the ready heads, not routers x inputs x vnets;
 * a head that is not ready yet (in its router pipeline) waits in a timing wheel slot for its
 * cycle. The winner is the one a round-robin scan over all (input, vnet) pairs would pick.
 */
#include "noc.h"

#include <string.h>

#include "../../sim/error.h"
#include "nocmsg.h"

enum { TOPO_CROSSBAR, TOPO_RING, TOPO_MESH };
enum { DIR_EAST, DIR_WEST, DIR_NORTH, DIR_SOUTH, DIR_COUNT };   /* ring: EAST = cw, WEST = ccw */
enum { LINK_INJECT, LINK_EJECT, LINK_NET };

#define NOC_MAX_VNETS 16
#define ROUTE_TABLE_MAX 256     /* routers: a table of 256 x 256 links is 256 KiB */

typedef struct {
    int topology;
    uint64_t nodes, width, concentration, link_latency, link_width, router_delay, buffer, vnets,
        header;
} NocParams;

/* A message in the network: the endpoint's Msg plus where it is going (pool entry, no
 * allocation per hop; linked into one input queue at a time through `next`). */
typedef struct {
    Msg *m;
    uint64_t t0;        /* cycle it entered the network (its NI queue) */
    uint64_t ready;     /* cycle its head may bid for `out` (arrival + router pipeline) */
    int32_t next;       /* next in its queue, or free list; -1 ends */
    int32_t out;        /* link it bids for at its current router */
    uint32_t flits;     /* cycles it occupies each link */
    uint16_t src, dst, hops, vnet;  /* endpoints */
    uint16_t drouter;   /* the destination endpoint's router */
} NocPkt;

/* One directed channel. Its input buffer (group) sits at its downstream router. */
typedef struct {
    int kind;           /* LINK_* */
    int from, to;       /* routers (NI pseudo-routers for inject; to = -1 for eject) */
    int node;           /* inject/eject: the endpoint */
    uint64_t latency;
    uint64_t busy_until;/* first cycle it is free again */
    uint64_t busy;      /* busy cycles (stats) */
    uint32_t rr;        /* round-robin pointer over its router's (input, vnet) pairs */
    uint32_t pairs;     /* its router's (input, vnet) pairs */
    uint16_t bubble;    /* 1 on a ring link: entering from an inject buffer needs 2 credits */
    char *name;
} NocLink;

/* One vnet of one input group (a buffer or an NI queue). While it holds a message, it is linked
 * into the bidder list of the link its head is routed to. */
typedef struct {
    int32_t head, tail;
    uint32_t count;     /* messages held plus slots reserved by granted upstream messages */
    uint32_t idx;       /* (input, vnet) pair index at its router: input * vnets + vnet */
    int32_t bid_prev, bid_next;     /* queues bidding for the same link (in the wheel: next
                                     * queue in the same slot); -1 ends */
    uint16_t vnet;
    uint16_t from_inject;           /* the buffer behind an inject channel (ring bubble rule) */
} NocQueue;

typedef struct { uint16_t x, y; } NocXY;

typedef struct {
    Component base;
    NocParams p;
    int n, nrouters;            /* endpoints (nodes x concentration); routers (crossbar: 1) */
    int nlinks;
    NocLink *link;              /* [0,n) inject, [n,2n) eject, then router-to-router links */
    int32_t *bidders;           /* link -> first queue whose head bids for it, -1 none */
    uint64_t *active;           /* bit per link: it has bidders */
    int32_t *wheel;             /* cycle & wheel_mask -> queues whose head gets ready then */
    uint32_t wheel_mask;
    uint64_t wheel_count, drained;  /* queues in the wheel; last cycle whose slot was emptied */
    int *dir_link;              /* mesh/ring: router * DIR_COUNT + dir -> link, -1 none */
    int32_t *route;             /* router * nrouters + destination router -> the link taken
                                 * there (noc_route's answer, tabled up to ROUTE_TABLE_MAX
                                 * routers; NULL: computed per hop) */
    int active_words;           /* 64-bit words of `active` */
    uint64_t flit_size, flit_n; /* the last message size and its flits (a division saved) */
    NocXY *xy;                  /* mesh: router -> x, y (no division per hop) */
    /* routers: real ones [0, nrouters), then one NI pseudo-router per endpoint */
    int *in_start, *in_list;    /* input groups of each router (CSR) */
    int *out_start, *out_list;  /* output links of each router (CSR) */
    int *group_router;          /* group -> router; groups [0,nlinks) buffers, then NI queues */
    NocQueue *q;                /* group * vnets + vnet */
    NocPkt *pkt;
    uint32_t npkt, pkt_cap;
    int32_t pkt_free;
    uint32_t *freed;            /* queues whose credit returns at the end of this cycle */
    uint32_t nfreed;
    uint64_t in_flight;
    uint64_t trace_since;       /* the oldest t0 in flight while tracing (SIM_TRACE_HOLD) */
    Port **port;
    /* stats */
    uint64_t injected, delivered, flits, bytes, blocked;
    uint64_t vnet_msgs[NOC_MAX_VNETS], vnet_lat[NOC_MAX_VNETS];
    uint64_t *hop_count;        /* [0, diameter] */
    int diameter;
    SimHist latency, hops;
} Noc;

static const char *const topo_choices[] = { "crossbar", "ring", "mesh", NULL };
static const char *const dir_names[2][DIR_COUNT] = { { "cw", "ccw", "", "" },
                                                     { "east", "west", "north", "south" } };

static const ParamSpec noc_params[] = {
    { .name = "topology", .type = PARAM_ENUM, .def = "mesh", .choices = topo_choices,
      .doc = "crossbar: one central switch; ring: bidirectional, shortest way; mesh: 2D, XY",
      .offset = offsetof(NocParams, topology) },
    { .name = "nodes", .type = PARAM_UINT, .def = "16", .flags = PARAM_F_RANGE, .min = 1,
      .max = 4096, .doc = "routers on ring and mesh (crossbar: switch ports); endpoints = nodes "
      "x concentration", .offset = offsetof(NocParams, nodes) },
    { .name = "width", .type = PARAM_UINT, .def = "4", .flags = PARAM_F_RANGE, .min = 1,
      .max = 4096, .doc = "mesh columns (height = nodes / width); router r at x = r % width",
      .offset = offsetof(NocParams, width) },
    { .name = "concentration", .type = PARAM_UINT, .def = "1", .flags = PARAM_F_RANGE, .min = 1,
      .max = 64, .doc = "endpoints per router: endpoint e at router e % nodes, each with its own "
      "inject and eject channel", .offset = offsetof(NocParams, concentration) },
    { .name = "link_latency", .type = PARAM_CYCLES, .def = "1", .flags = PARAM_F_RANGE,
      .min = 1, .max = 1000, .doc = "cycles for a message head to cross one link",
      .offset = offsetof(NocParams, link_latency) },
    { .name = "link_width", .type = PARAM_SIZE, .def = "16B", .flags = PARAM_F_RANGE, .min = 1,
      .max = 4096, .doc = "bytes per cycle per link: a message holds a link ceil(bytes/width)",
      .offset = offsetof(NocParams, link_width) },
    { .name = "router_delay", .type = PARAM_CYCLES, .def = "2", .flags = PARAM_F_RANGE,
      .min = 1, .max = 1000, .doc = "router pipeline cycles per hop (route, allocate, traverse)",
      .offset = offsetof(NocParams, router_delay) },
    { .name = "buffer", .type = PARAM_UINT, .def = "4", .flags = PARAM_F_RANGE, .min = 1,
      .max = 65536, .doc = "messages per input buffer per vnet (credits; ring needs >= 2)",
      .offset = offsetof(NocParams, buffer) },
    { .name = "vnets", .type = PARAM_UINT, .def = "3", .flags = PARAM_F_RANGE, .min = 1,
      .max = NOC_MAX_VNETS, .doc = "virtual networks (message classes: request, forward, "
      "response)", .offset = offsetof(NocParams, vnets) },
    { .name = "header", .type = PARAM_SIZE, .def = "8B", .flags = PARAM_F_RANGE, .min = 0,
      .max = 4096, .doc = "header bytes added to every message (a control message is just this)",
      .offset = offsetof(NocParams, header) },
    PARAM_END,
};

static const PortSpec noc_ports[] = {
    { .name = "node", .role = PORT_RESPONDER, .vector = true,
      .doc = "endpoints: node[e] is endpoint e, at router e % nodes (route with nocmsg.h: "
      "the payload's NocRoute: dst, vnet)" },
    PORT_END,
};

#define N_(x) ((const Noc *)(x))
static double noc_cycles(const Component *c) { return (double)sim_stats_cycles(c); }
static double f_avg_latency(const Component *c)
{
    return stats_ratio((double)N_(c)->latency.sum, (double)N_(c)->latency.samples);
}
/* Utilization is reported over the links that make up the topology: router-to-router links,
 * or the crossbar's switch outputs (its ejects). */
static bool link_counted(const Noc *k, const NocLink *l)
{
    return l->kind == LINK_NET || (k->p.topology == TOPO_CROSSBAR && l->kind == LINK_EJECT);
}
/* A link's busy cycles within the run: a message granted near the end of a run cut short
 * (sim.max_cycles) was charged all its flits, past the last cycle (link_utilization_max 1.2) */
static uint64_t link_busy(const Component *c, const NocLink *l)
{
    uint64_t end = sim_component_cycle(c) + 1;
    uint64_t tail = l->busy_until > end ? l->busy_until - end : 0;
    return l->busy - MIN(l->busy, tail);
}

static double f_util_avg(const Component *c)
{
    const Noc *k = N_(c);
    double sum = 0;
    int cnt = 0;
    for (int i = 0; i < k->nlinks; i++)
        if (link_counted(k, &k->link[i])) {
            sum += (double)link_busy(c, &k->link[i]);
            cnt++;
        }
    return stats_ratio(sum, cnt * noc_cycles(c));
}
static double f_util_max(const Component *c)
{
    const Noc *k = N_(c);
    uint64_t mx = 0;
    for (int i = 0; i < k->nlinks; i++)
        if (link_counted(k, &k->link[i]) && link_busy(c, &k->link[i]) > mx)
            mx = link_busy(c, &k->link[i]);
    return stats_ratio((double)mx, noc_cycles(c));
}

static const StatSpec noc_stats[] = {
    { "injected", STAT_COUNTER, "count", "messages received from endpoints", offsetof(Noc, injected),
      NULL },
    { "messages", STAT_COUNTER, "count", "messages delivered (per vnet: vnetV.messages)",
      offsetof(Noc, delivered), NULL },
    { "flits", STAT_COUNTER, "count", "link cycles per delivered message, summed "
      "(ceil((header + size) / link_width))", offsetof(Noc, flits), NULL },
    { "bytes", STAT_COUNTER, "byte", "header + payload bytes delivered", offsetof(Noc, bytes),
      NULL },
    { "blocked_cycles", STAT_COUNTER, "cycle", "message-cycles a ready message waited for a "
      "credit (next buffer of its vnet full)", offsetof(Noc, blocked), NULL },
    { "avg_latency", STAT_FORMULA, "cycle", "latency.sum / messages (per vnet: "
      "vnetV.avg_latency)", 0, f_avg_latency },
    { "latency", STAT_HIST, "cycle", "injection to delivery", offsetof(Noc, latency), NULL },
    { "hops", STAT_HIST, "count", "router-to-router links crossed (exact: hop_count.H)",
      offsetof(Noc, hops), NULL },
    { "link_utilization_avg", STAT_FORMULA, "ratio", "mean busy cycles / sim.cycles over "
      "topology links (each: link.NAME.utilization)", 0, f_util_avg },
    { "link_utilization_max", STAT_FORMULA, "ratio", "busiest topology link's busy cycles / "
      "sim.cycles", 0, f_util_max },
    STAT_END,
};

/* ---- construction ------------------------------------------------------------------------ */
static int link_add(Noc *k, int kind, int from, int to, int node, uint64_t latency, char *name)
{
    NocLink *l = &k->link[k->nlinks];
    l->kind = kind;
    l->from = from;
    l->to = to;
    l->node = node;
    l->latency = latency;
    l->name = name;
    return k->nlinks++;
}

static int router_of_node(const Noc *k, int node)
{
    return k->p.topology == TOPO_CROSSBAR ? 0 : node % k->nrouters;
}

static int route_between(const Noc *k, int r, int to);

static void build_links(Noc *k)
{
    int n = k->n, nr = k->nrouters, topo = k->p.topology;
    int maxl = 2 * n + nr * DIR_COUNT;
    k->link = g_new0(NocLink, maxl);
    int rtot = k->nrouters + n;
    for (int i = 0; i < n; i++)
        link_add(k, LINK_INJECT, k->nrouters + i, router_of_node(k, i), i, 0,
                 g_strdup_printf("link.n%d.inject", i));
    for (int i = 0; i < n; i++)
        link_add(k, LINK_EJECT, router_of_node(k, i), -1, i,
                 topo == TOPO_CROSSBAR ? k->p.link_latency : 0,
                 g_strdup_printf(topo == TOPO_CROSSBAR ? "link.out%d" : "link.n%d.eject", i));
    k->dir_link = g_new(int, (size_t)k->nrouters * DIR_COUNT);
    for (int i = 0; i < k->nrouters * DIR_COUNT; i++)
        k->dir_link[i] = -1;
    if (topo == TOPO_RING && nr > 1) {
        for (int r = 0; r < nr; r++) {
            k->dir_link[r * DIR_COUNT + DIR_EAST] =
                link_add(k, LINK_NET, r, (r + 1) % nr, -1, k->p.link_latency,
                         g_strdup_printf("link.r%d.cw", r));
            k->dir_link[r * DIR_COUNT + DIR_WEST] =
                link_add(k, LINK_NET, r, (r + nr - 1) % nr, -1, k->p.link_latency,
                         g_strdup_printf("link.r%d.ccw", r));
        }
    } else if (topo == TOPO_MESH) {
        int w = (int)k->p.width, h = nr / w;
        k->xy = g_new(NocXY, nr);
        for (int r = 0; r < nr; r++) {
            int x = r % w, y = r / w;
            k->xy[r] = (NocXY){ (uint16_t)x, (uint16_t)y };
            const int dx[DIR_COUNT] = { 1, -1, 0, 0 }, dy[DIR_COUNT] = { 0, 0, -1, 1 };
            for (int d = 0; d < DIR_COUNT; d++) {
                int nx = x + dx[d], ny = y + dy[d];
                if (nx < 0 || nx >= w || ny < 0 || ny >= h)
                    continue;
                k->dir_link[r * DIR_COUNT + d] =
                    link_add(k, LINK_NET, r, ny * w + nx, -1, k->p.link_latency,
                             g_strdup_printf("link.r%d.%s", r, dir_names[1][d]));
            }
        }
    }
    if (topo != TOPO_CROSSBAR && nr > 1 && nr <= ROUTE_TABLE_MAX) {
        k->route = g_new(int32_t, (size_t)nr * (size_t)nr);
        for (int r = 0; r < nr; r++)
            for (int to = 0; to < nr; to++)
                k->route[(size_t)r * (size_t)nr + to] = r == to ? -1 : route_between(k, r, to);
    }
    /* groups: the input buffer behind each link, then one NI queue per endpoint */
    int ngroups = k->nlinks + n;
    k->group_router = g_new(int, ngroups);
    for (int g = 0; g < k->nlinks; g++)
        k->group_router[g] = k->link[g].to;
    for (int i = 0; i < n; i++)
        k->group_router[k->nlinks + i] = k->nrouters + i;
    /* CSR lists of inputs and outputs per router, in index order (deterministic arbitration) */
    k->in_start = g_new0(int, rtot + 1);
    k->out_start = g_new0(int, rtot + 1);
    for (int g = 0; g < ngroups; g++)
        if (k->group_router[g] >= 0)
            k->in_start[k->group_router[g] + 1]++;
    for (int l = 0; l < k->nlinks; l++)
        k->out_start[k->link[l].from + 1]++;
    for (int r = 0; r < rtot; r++) {
        k->in_start[r + 1] += k->in_start[r];
        k->out_start[r + 1] += k->out_start[r];
    }
    k->in_list = g_new(int, k->in_start[rtot] + 1);
    k->out_list = g_new(int, k->out_start[rtot] + 1);
    int *fill = g_new0(int, rtot);
    int V = (int)k->p.vnets;
    k->q = g_new(NocQueue, (size_t)ngroups * V);
    for (int g = 0; g < ngroups; g++) {
        int r = k->group_router[g], pos = 0;
        if (r >= 0) {
            pos = fill[r]++;
            k->in_list[k->in_start[r] + pos] = g;
        }
        for (int v = 0; v < V; v++)
            k->q[(size_t)g * V + v] = (NocQueue){
                .head = -1, .tail = -1, .count = 0, .idx = (uint32_t)(pos * V + v),
                .bid_prev = -1, .bid_next = -1, .vnet = (uint16_t)v,
                .from_inject = g < k->nlinks && k->link[g].kind == LINK_INJECT };
    }
    for (int l = 0; l < k->nlinks; l++) {
        NocLink *lk = &k->link[l];
        lk->pairs = (uint32_t)(k->in_start[lk->from + 1] - k->in_start[lk->from]) * (uint32_t)V;
        lk->bubble = topo == TOPO_RING && lk->kind == LINK_NET;
    }
    memset(fill, 0, sizeof(int) * (size_t)rtot);
    for (int l = 0; l < k->nlinks; l++) {
        int r = k->link[l].from;
        k->out_list[k->out_start[r] + fill[r]++] = l;
    }
    g_free(fill);
    k->bidders = g_new(int32_t, k->nlinks);
    for (int l = 0; l < k->nlinks; l++)
        k->bidders[l] = -1;
    k->active_words = (k->nlinks + 63) / 64;
    k->active = g_new0(uint64_t, k->active_words);
    /* a head gets ready at most link_latency + router_delay cycles after the tick that moved it */
    uint32_t slots = 2;
    while (slots <= k->p.link_latency + k->p.router_delay)
        slots *= 2;
    k->wheel = g_new(int32_t, slots);
    for (uint32_t i = 0; i < slots; i++)
        k->wheel[i] = -1;
    k->wheel_mask = slots - 1;
    k->freed = g_new(uint32_t, k->nlinks);
}

/* What realize allocates, about (build_links): per link its record, name, bidder, CSR entries;
 * per input group and vnet a queue; an upper bound, as the mesh has fewer links. */
static uint64_t noc_footprint(const Component *c, const char **key)
{
    const Noc *k = (const Noc *)c;
    uint64_t n = k->p.nodes * k->p.concentration;
    uint64_t nr = k->p.topology == TOPO_CROSSBAR ? 1 : k->p.nodes;
    uint64_t links = 2 * n + nr * DIR_COUNT, groups = links + n;
    *key = "nodes";
    uint64_t table = nr > 1 && nr <= ROUTE_TABLE_MAX ? nr * nr * sizeof(int32_t) : 0;
    return links * (sizeof(NocLink) + 24 + 4 * sizeof(int)) + groups * k->p.vnets * sizeof(NocQueue)
           + (nr + n) * 4 * sizeof(int) + n * sizeof(Port *) + table;
}

static bool noc_realize(Component *c, GError **error)
{
    Noc *k = (Noc *)c;
    uint64_t endpoints = k->p.nodes * k->p.concentration;
    if (k->p.topology == TOPO_MESH && k->p.nodes % k->p.width != 0) {
        return sim_component_reject(c, sim_component_first_set(c, "width", "nodes", NULL), error,
                                    "mesh: nodes (%" G_GUINT64_FORMAT ") is not a multiple of "
                                    "width (%" G_GUINT64_FORMAT "); hint: nodes = width x height",
                                    k->p.nodes, k->p.width);
    }
    if (k->p.topology == TOPO_RING && k->p.buffer < 2) {
        return sim_component_reject(c, "buffer", error, "ring: buffer must be at least 2 (the "
                                    "bubble rule keeps a free slot to avoid deadlock)");
    }
    if (endpoints > 65536) {   /* nocmsg.h: dst and src are 16-bit endpoint numbers */
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "nodes x concentration = %" G_GUINT64_FORMAT " endpoints, more than the "
                    "65536 that nocmsg.h can address; hint: fewer nodes or a lower "
                    "concentration", endpoints);
        return false;
    }
    k->n = (int)endpoints;
    unsigned connected = c->ports->len;    /* node is the only port */
    if (connected != endpoints) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "%u endpoints connected to node, but nodes x concentration = %"
                    G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT " = %d; hint: connect one endpoint "
                    "per node and concentration slot (node[e] sits at router e %% nodes)",
                    connected, k->p.nodes, k->p.concentration, k->n);
        return false;
    }
    k->port = g_new(Port *, k->n);
    for (int i = 0; i < k->n; i++)
        k->port[i] = sim_port(c, "node", i);
    k->nrouters = k->p.topology == TOPO_CROSSBAR ? 1 : (int)k->p.nodes;
    if (k->p.topology == TOPO_CROSSBAR)
        k->diameter = 1;
    else if (k->p.topology == TOPO_RING)
        k->diameter = k->nrouters / 2;
    else
        k->diameter = (int)k->p.width - 1 + k->nrouters / (int)k->p.width - 1;
    k->hop_count = g_new0(uint64_t, k->diameter + 1);
    build_links(k);
    k->pkt_free = -1;
    k->flit_size = UINT64_MAX;          /* no size seen yet (a message size is 32-bit) */
    return true;
}

static void noc_finalize(Component *c)
{
    Noc *k = (Noc *)c;
    for (int i = 0; k->link && i < k->nlinks; i++)
        g_free(k->link[i].name);
    g_free(k->link);
    g_free(k->bidders);
    g_free(k->active);
    g_free(k->wheel);
    g_free(k->dir_link);
    g_free(k->route);
    g_free(k->xy);
    g_free(k->in_start);
    g_free(k->in_list);
    g_free(k->out_start);
    g_free(k->out_list);
    g_free(k->group_router);
    g_free(k->q);
    g_free(k->pkt);
    g_free(k->freed);
    g_free(k->port);
    g_free(k->hop_count);
}

/* ---- routing ------------------------------------------------------------------------------ */
/* The link from router r toward router `to` (r != to) on a ring or mesh. */
static int route_between(const Noc *k, int r, int to)
{
    int dir, nr = k->nrouters;
    if (k->p.topology == TOPO_RING) {
        int cw = to - r;
        if (cw < 0)
            cw += nr;
        dir = cw <= nr - cw ? DIR_EAST : DIR_WEST;
    } else {
        NocXY at = k->xy[r], d = k->xy[to];
        dir = d.x > at.x ? DIR_EAST : d.x < at.x ? DIR_WEST : d.y < at.y ? DIR_NORTH : DIR_SOUTH;
    }
    int l = k->dir_link[r * DIR_COUNT + dir];
    g_assert(l >= 0);
    return l;
}

/* The link a message at router r bids for: dimension order (x then y) on the mesh, the shorter
 * way round the ring (ties clockwise), straight to the output on the crossbar. */
static int noc_route(const Noc *k, int r, const NocPkt *pk)
{
    if (r >= k->nrouters)
        return pk->src;                                 /* NI: its inject link */
    if (r == pk->drouter)
        return k->n + pk->dst;                          /* eject */
    if (k->route)
        return k->route[(size_t)r * (size_t)k->nrouters + pk->drouter];
    return route_between(k, r, pk->drouter);
}

/* ---- queues and the packet pool ----------------------------------------------------------- */
static int32_t pkt_alloc(Noc *k)
{
    if (k->pkt_free >= 0) {
        int32_t i = k->pkt_free;
        k->pkt_free = k->pkt[i].next;
        return i;
    }
    if (k->npkt == k->pkt_cap) {                  /* grows geometrically; warm pools stay */
        k->pkt_cap = k->pkt_cap ? k->pkt_cap * 2 : 64;
        k->pkt = g_renew(NocPkt, k->pkt, k->pkt_cap);
    }
    return (int32_t)k->npkt++;
}

static void pkt_release(Noc *k, int32_t i)
{
    k->pkt[i].m = NULL;
    k->pkt[i].next = k->pkt_free;
    k->pkt_free = i;
}

/* A queue with a head is in exactly one place: the bidder list of its head's output link once
 * the head is ready, before that the wheel slot of the cycle it gets ready. */
static void bid_add(Noc *k, uint32_t qi)
{
    NocQueue *q = &k->q[qi];
    int out = k->pkt[q->head].out;
    int32_t *first = &k->bidders[out];
    q->bid_prev = -1;
    q->bid_next = *first;
    if (*first >= 0)
        k->q[*first].bid_prev = (int32_t)qi;
    *first = (int32_t)qi;
    k->active[(uint32_t)out / 64] |= 1ull << ((uint32_t)out % 64);
}

static void bid_remove(Noc *k, uint32_t qi)
{
    NocQueue *q = &k->q[qi];
    int out = k->pkt[q->head].out;
    if (q->bid_prev >= 0)
        k->q[q->bid_prev].bid_next = q->bid_next;
    else if ((k->bidders[out] = q->bid_next) < 0)
        k->active[(uint32_t)out / 64] &= ~(1ull << ((uint32_t)out % 64));
    if (q->bid_next >= 0)
        k->q[q->bid_next].bid_prev = q->bid_prev;
}

/* The queue got a new head at cycle `now`: it bids from its ready cycle on. */
static void queue_head_new(Noc *k, uint32_t qi, uint64_t now)
{
    uint64_t ready = k->pkt[k->q[qi].head].ready;
    if (ready <= now) {
        bid_add(k, qi);
        return;
    }
    g_assert(ready - now <= k->wheel_mask);
    int32_t *slot = &k->wheel[ready & k->wheel_mask];
    k->q[qi].bid_next = *slot;
    *slot = (int32_t)qi;
    k->wheel_count++;
}

/* Start of the tick at `now`: the heads that got ready since the last tick start bidding. Every
 * wheel entry was made by a tick at or before `drained` and is due at most wheel_mask cycles
 * later, so the slots (drained, now] hold exactly the due ones (all of them after a long gap). */
static void wheel_drain(Noc *k, uint64_t now)
{
    if (k->wheel_count > 0 && now > k->drained) {
        uint64_t from = now - k->drained > k->wheel_mask ? now - k->wheel_mask : k->drained + 1;
        for (uint64_t t = from; t <= now; t++) {
            int32_t qi = k->wheel[t & k->wheel_mask];
            k->wheel[t & k->wheel_mask] = -1;
            while (qi >= 0) {
                int32_t next = k->q[qi].bid_next;
                bid_add(k, (uint32_t)qi);
                k->wheel_count--;
                qi = next;
            }
        }
    }
    if (now > k->drained)
        k->drained = now;
}

static inline __attribute__((always_inline)) void queue_push(Noc *k, int group, int32_t i, uint64_t now)
{
    NocPkt *pk = &k->pkt[i];
    uint32_t qi = (uint32_t)((size_t)group * k->p.vnets + pk->vnet);
    NocQueue *q = &k->q[qi];
    pk->next = -1;
    pk->out = noc_route(k, k->group_router[group], pk);
    if (q->tail >= 0) {
        k->pkt[q->tail].next = i;
        q->tail = i;
    } else {
        q->head = q->tail = i;
        queue_head_new(k, qi, now);
    }
}

static int32_t queue_pop(Noc *k, uint32_t qi, uint64_t now)
{
    NocQueue *q = &k->q[qi];
    int32_t i = q->head;
    bid_remove(k, qi);
    q->head = k->pkt[i].next;
    if (q->head < 0)
        q->tail = -1;
    else
        queue_head_new(k, qi, now);
    return i;
}

/* ---- the cycle -------------------------------------------------------------------------- */
static void noc_recv(Component *c, Port *port, Msg *m)
{
    Noc *k = (Noc *)c;
    uint32_t dst = noc_msg_dst(m), vnet = noc_msg_vnet(m);
    g_assert(port->slot < k->n);
    g_assert(dst < (uint32_t)k->n && vnet < k->p.vnets);
    noc_msg_set_src(m, (uint32_t)port->slot);
    int32_t i = pkt_alloc(k);
    NocPkt *pk = &k->pkt[i];
    pk->m = m;
    pk->t0 = clock_cycle(c->clk, clock_edge_at_or_after(c->clk, c->eng->now));
    pk->ready = pk->t0;
    pk->src = (uint16_t)port->slot;
    pk->dst = (uint16_t)dst;
    pk->drouter = (uint16_t)k->link[k->n + dst].from;     /* its eject link's router */
    pk->vnet = (uint16_t)vnet;
    pk->hops = 0;
    if (G_UNLIKELY(m->size != k->flit_size)) {
        uint32_t f = (uint32_t)((k->p.header + m->size + k->p.link_width - 1) / k->p.link_width);
        k->flit_size = m->size;
        k->flit_n = f ? f : 1;          /* as before the memo: 32-bit, at least 1 */
    }
    pk->flits = (uint32_t)k->flit_n;
    NocQueue *q = &k->q[(size_t)(k->nlinks + port->slot) * k->p.vnets + vnet];
    q->count++;
    queue_push(k, k->nlinks + port->slot, i, pk->t0);
    k->injected++;
    k->in_flight++;
    if (G_UNLIKELY(c->trace_track >= 0) && k->in_flight == 1) {
        k->trace_since = pk->t0;          /* its "deliver" is reported when it arrives */
        SIM_TRACE_HOLD(c, pk->t0);
    }
    sim_component_wake(c);
}

static void deliver(Noc *k, NocLink *l, int32_t i, uint64_t now)
{
    NocPkt *pk = &k->pkt[i];
    Msg *m = pk->m;
    uint64_t done = now + l->latency + pk->flits;
    uint64_t lat = done - pk->t0;
    k->delivered++;
    k->flits += pk->flits;
    k->bytes += k->p.header + m->size;
    k->vnet_msgs[pk->vnet]++;
    k->vnet_lat[pk->vnet] += lat;
    sim_hist_add(&k->latency, lat);
    sim_hist_add(&k->hops, pk->hops);
    k->hop_count[pk->hops <= k->diameter ? pk->hops : k->diameter]++;
    /* one slice per packet, from injection to arrival (it was stamped at the last hop, which
     * drew it lat cycles from there) */
    SIM_TRACE_AT(&k->base, pk->t0, "deliver", lat, TARG_U("src", pk->src), TARG_U("dst", pk->dst),
                 TARG_U("vnet", pk->vnet), TARG_U("hops", pk->hops));
    uint64_t t0 = pk->t0;
    pkt_release(k, i);
    k->in_flight--;
    if (G_UNLIKELY(k->base.trace_track >= 0) && t0 <= k->trace_since) {
        uint64_t oldest = UINT64_MAX;     /* in-flight packets hold their Msg */
        for (uint32_t j = 0; j < k->npkt && k->in_flight > 0; j++)
            if (k->pkt[j].m != NULL && k->pkt[j].t0 < oldest)
                oldest = k->pkt[j].t0;
        k->trace_since = oldest;
        SIM_TRACE_HOLD(&k->base, oldest);
    }
    sim_port_send(&k->base, k->port[l->node], m, done - now);
}

/* One output link's allocation: round-robin over its router's (input, vnet) pairs, starting at
 * `rr`, among the heads that are ready and routed to it; a head without a credit counts a
 * blocked cycle. Only the bidder list is visited: the winner is the eligible pair nearest after
 * `rr`, which is what a scan of all pairs from `rr` would pick. */
static void link_allocate(Noc *k, int li, uint64_t now)
{
    NocLink *l = &k->link[li];
    uint32_t V = (uint32_t)k->p.vnets, pairs = l->pairs;
    bool free_link = l->busy_until <= now, eject = l->kind == LINK_EJECT;
    const NocQueue *dq = &k->q[(size_t)li * V];    /* the buffer behind l, per vnet */
    if (!free_link) {
        /* busy: nothing moves, only heads without a credit count; skip the walk when no vnet
         * of the buffer behind l is full (an eject has no buffer, so it never blocks) */
        if (eject)
            return;
        uint32_t full = 0;
        for (uint32_t v = 0; v < V; v++)
            full |= dq[v].count + 1u + l->bubble > k->p.buffer;
        if (!full)
            return;
    }
    uint32_t best = pairs;
    int32_t win = -1;
    /* every bidder's head is ready: the wheel holds heads until their cycle, and a message from
     * an endpoint is ready at the first tick after it arrives (noc_recv wakes us for it) */
    for (int32_t qi = k->bidders[li]; qi >= 0; qi = k->q[qi].bid_next) {
        const NocQueue *q = &k->q[qi];
        /* the ring's bubble rule: entering the ring needs 2 free slots, moving along it 1 */
        if (!eject && dq[q->vnet].count + 1u + (q->from_inject & l->bubble) > k->p.buffer) {
            k->blocked++;
            continue;
        }
        if (free_link) {
            uint32_t d = q->idx >= l->rr ? q->idx - l->rr : q->idx + pairs - l->rr;
            if (d < best) {
                best = d;
                win = qi;
            }
        }
    }
    if (win < 0)
        return;
    uint32_t qi = (uint32_t)win;
    l->rr = k->q[qi].idx + 1 == pairs ? 0 : k->q[qi].idx + 1;    /* idx < pairs */
    int32_t i = queue_pop(k, qi, now);
    k->freed[k->nfreed++] = qi;           /* credit back upstream at the end of the cycle */
    NocPkt *pk = &k->pkt[i];
    l->busy_until = now + pk->flits;
    l->busy += pk->flits;
    if (G_UNLIKELY(pk->flits > 4096))   /* a long message on the link (an RDU's GiB tile) is */
        sim_quiet_until(k->base.eng,    /* work under way for the watchdog, not a deadlock */
                        sim_tick_mul(now + l->latency + pk->flits, k->base.clk->period));
    if (l->kind == LINK_NET || (l->kind == LINK_EJECT && k->p.topology == TOPO_CROSSBAR))
        pk->hops++;
    if (l->kind == LINK_EJECT) {
        deliver(k, l, i, now);
        return;
    }
    /* the head arrives after the link; at its destination router it ejects without another
     * pipeline pass, except a message to its own node, which turns around in its router */
    uint64_t arrive = now + l->latency;
    bool at_dst = l->to == pk->drouter && k->p.topology != TOPO_CROSSBAR && pk->hops > 0;
    pk->ready = arrive + (at_dst ? 0 : k->p.router_delay);
    k->q[(size_t)li * V + pk->vnet].count++;
    queue_push(k, li, i, now);
}

static uint64_t noc_tick(Component *c)
{
    Noc *k = (Noc *)c;
    uint64_t now = sim_component_cycle(c);
    k->nfreed = 0;
    /* every message enqueued this cycle is ready a cycle later at the earliest (router_delay
     * and link_latency are >= 1) and credits return at the end of the cycle. Links go in index
     * order: a grant uncovers the next head of its queue, which may still win a later link in
     * this cycle (so each bitmap word is read again after every allocation). */
    wheel_drain(k, now);
    for (int w = 0; w < k->active_words; w++)
        for (uint64_t bits = k->active[w]; bits != 0;) {
            int b = __builtin_ctzll(bits);
            link_allocate(k, w * 64 + b, now);
            bits = k->active[w] & (~0ull << b << 1);
        }
    for (uint32_t i = 0; i < k->nfreed; i++)
        k->q[k->freed[i]].count--;
    return k->in_flight > 0 ? 1 : 0;
}

/* ---- reporting ---------------------------------------------------------------------------- */
static void noc_dump(Component *c, GString *out)
{
    Noc *k = (Noc *)c;
    g_string_append_printf(out, "  %" G_GUINT64_FORMAT " messages in the network\n",
                           k->in_flight);
    int V = (int)k->p.vnets;
    for (int g = 0; g < k->nlinks + k->n; g++)
        for (int v = 0; v < V; v++) {
            const NocQueue *q = &k->q[(size_t)g * V + v];
            if (q->head < 0)
                continue;
            const NocPkt *pk = &k->pkt[q->head];
            if (g < k->nlinks)
                g_string_append_printf(out, "  buffer after %s", k->link[g].name);
            else
                g_string_append_printf(out, "  NI queue of endpoint %d", g - k->nlinks);
            g_string_append_printf(out, " vnet %d: %u held, head %d -> %d bids for %s\n", v,
                                   q->count, pk->src, pk->dst, k->link[pk->out].name);
        }
}

static bool noc_busy(const Component *c) { return N_(c)->in_flight > 0; }

/* A warm-up or ROI reset: the per-link busy cycles, per-vnet counts and latency sums and the
 * hop counts restart (pure statistics: routing reads busy_until, not busy). */
static void noc_stats_reset(Component *c)
{
    Noc *k = (Noc *)c;
    for (int i = 0; i < k->nlinks; i++)
        k->link[i].busy = 0;
    memset(k->vnet_lat, 0, sizeof k->vnet_lat);
    memset(k->vnet_msgs, 0, sizeof k->vnet_msgs);
    memset(k->hop_count, 0, sizeof k->hop_count[0] * (size_t)(k->diameter + 1));
}

static void noc_extra_stats(const Component *c, StatSet *out)
{
    const Noc *k = N_(c);
    double cycles = noc_cycles(c);
    for (int i = 0; i < k->nlinks; i++) {
        char *n = g_strdup_printf("%s.%s.utilization", c->name, k->link[i].name);
        stats_add_double(out, n, stats_ratio((double)link_busy(c, &k->link[i]), cycles), "ratio",
                         "busy cycles / sim.cycles");
        g_free(n);
    }
    for (uint64_t v = 0; v < k->p.vnets; v++) {
        char *n = g_strdup_printf("%s.vnet%" G_GUINT64_FORMAT ".messages", c->name, v);
        stats_add_u64(out, n, k->vnet_msgs[v], "count", "messages delivered in this vnet");
        g_free(n);
        n = g_strdup_printf("%s.vnet%" G_GUINT64_FORMAT ".avg_latency", c->name, v);
        stats_add_double(out, n, stats_ratio((double)k->vnet_lat[v], (double)k->vnet_msgs[v]),
                         "cycle", "mean injection to delivery in this vnet");
        g_free(n);
    }
    for (int h = 0; h <= k->diameter; h++) {
        char *n = g_strdup_printf("%s.hop_count.%d", c->name, h);
        stats_add_u64(out, n, k->hop_count[h], "count", "messages that crossed this many links");
        g_free(n);
    }
}

const ComponentClass noc_class = {
    .name = "noc",
    .doc = "on-chip network: crossbar, ring or 2D mesh (XY), credit flow control per vnet",
    .size = sizeof(Noc),
    .params_offset = offsetof(Noc, p),
    .params = noc_params,
    .ports = noc_ports,
    .stats = noc_stats,
    .realize = noc_realize,
    .footprint = noc_footprint,
    .tick = noc_tick,
    .recv = noc_recv,
    .dump = noc_dump,
    .busy = noc_busy,
    .finalize = noc_finalize,
    .extra_stats = noc_extra_stats,
    .stats_reset = noc_stats_reset,
};
