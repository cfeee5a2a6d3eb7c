/* noc.c: an on-chip interconnection network: crossbar, bidirectional ring or 2D mesh, after
 * Dally & Towles, "Principles and Practices of Interconnection Networks" (ch. 3-5 topologies,
 * ch. 8-9 dimension-order and ring routing, ch. 12-13 virtual cut-through and credit-based flow
 * control; the ring's deadlock freedom uses the bubble rule of Carrion et al., HiPC 1997).
 *
 *   endpoint i --node[i]--> NI queue --inject--> router --link--> router ... --eject--> node[j]
 *
 * Every channel (inject, router-to-router link, eject) carries one message at a time for
 * ceil((header + size) / link_width) cycles (serialization, cut-through: paid once when the path
 * is free). A message waits router_delay cycles in each router before it bids for its output, and
 * link_latency cycles on each link. Each input buffer holds `buffer` messages per vnet; a message
 * takes a link only when the buffer behind it has a free slot (credit) in its own vnet, so one
 * class never blocks another. Unloaded latency, injection to delivery, H router-to-router hops:
 *     H * (router_delay + link_latency) + ceil((header + size) / link_width)      (H >= 1)
 *     router_delay + ceil(...)  for a message to its own node (it turns around in its router)
 * The crossbar is one central switch: H = 1 for every pair; its output links are the ejects.
 */
#include "noc.h"

#include <string.h>

#include "../../sim/error.h"
#include "nocmsg.h"

enum { TOPO_CROSSBAR, TOPO_RING, TOPO_MESH };
enum { DIR_EAST, DIR_WEST, DIR_NORTH, DIR_SOUTH, DIR_COUNT };   /* ring: EAST = cw, WEST = ccw */
enum { LINK_INJECT, LINK_EJECT, LINK_NET };

#define NOC_MAX_VNETS 16

typedef struct {
    int topology;
    uint64_t nodes, width, link_latency, link_width, router_delay, buffer, vnets, header;
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
    uint16_t src, dst, hops, vnet;
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
    char *name;
} NocLink;

typedef struct {
    int32_t head, tail;
    uint32_t count;     /* messages held plus slots reserved by granted upstream messages */
} NocQueue;

typedef struct {
    Component base;
    NocParams p;
    int n, nrouters;            /* endpoints; real routers (1 for the crossbar) */
    int nlinks;
    NocLink *link;              /* [0,n) inject, [n,2n) eject, then router-to-router links */
    int *dir_link;              /* mesh/ring: router * DIR_COUNT + dir -> link, -1 none */
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
      .max = 4096, .doc = "endpoints (one router each on ring and mesh)",
      .offset = offsetof(NocParams, nodes) },
    { .name = "width", .type = PARAM_UINT, .def = "4", .flags = PARAM_F_RANGE, .min = 1,
      .max = 4096, .doc = "mesh columns (height = nodes / width); node i at x = i % width",
      .offset = offsetof(NocParams, width) },
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
      .doc = "endpoints: node[i] is endpoint i (route with nocmsg.h: aux[1] = dst | vnet << 16)" },
    PORT_END,
};

#define N_(x) ((const Noc *)(x))
static double noc_cycles(const Component *c) { return (double)sim_component_cycle(c) + 1; }
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
static double f_util_avg(const Component *c)
{
    const Noc *k = N_(c);
    double sum = 0;
    int cnt = 0;
    for (int i = 0; i < k->nlinks; i++)
        if (link_counted(k, &k->link[i])) {
            sum += (double)k->link[i].busy;
            cnt++;
        }
    return stats_ratio(sum, cnt * noc_cycles(c));
}
static double f_util_max(const Component *c)
{
    const Noc *k = N_(c);
    uint64_t mx = 0;
    for (int i = 0; i < k->nlinks; i++)
        if (link_counted(k, &k->link[i]) && k->link[i].busy > mx)
            mx = k->link[i].busy;
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
    return k->p.topology == TOPO_CROSSBAR ? 0 : node;
}

static void build_links(Noc *k)
{
    int n = k->n, topo = k->p.topology;
    int maxl = 2 * n + n * DIR_COUNT;
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
    if (topo == TOPO_RING && n > 1) {
        for (int r = 0; r < n; r++) {
            k->dir_link[r * DIR_COUNT + DIR_EAST] =
                link_add(k, LINK_NET, r, (r + 1) % n, -1, k->p.link_latency,
                         g_strdup_printf("link.r%d.cw", r));
            k->dir_link[r * DIR_COUNT + DIR_WEST] =
                link_add(k, LINK_NET, r, (r + n - 1) % n, -1, k->p.link_latency,
                         g_strdup_printf("link.r%d.ccw", r));
        }
    } else if (topo == TOPO_MESH) {
        int w = (int)k->p.width, h = n / w;
        for (int r = 0; r < n; r++) {
            int x = r % w, y = r / w;
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
    for (int g = 0; g < ngroups; g++) {
        int r = k->group_router[g];
        if (r >= 0)
            k->in_list[k->in_start[r] + fill[r]++] = g;
    }
    memset(fill, 0, sizeof(int) * (size_t)rtot);
    for (int l = 0; l < k->nlinks; l++) {
        int r = k->link[l].from;
        k->out_list[k->out_start[r] + fill[r]++] = l;
    }
    g_free(fill);
    k->q = g_new(NocQueue, (size_t)ngroups * k->p.vnets);
    for (size_t i = 0; i < (size_t)ngroups * k->p.vnets; i++)
        k->q[i] = (NocQueue){ .head = -1, .tail = -1, .count = 0 };
    k->freed = g_new(uint32_t, k->nlinks);
}

static bool noc_realize(Component *c, GError **error)
{
    Noc *k = (Noc *)c;
    k->n = (int)k->p.nodes;
    if (k->p.topology == TOPO_MESH && k->p.nodes % k->p.width != 0) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "mesh: nodes (%" G_GUINT64_FORMAT ") is not a multiple of width (%"
                    G_GUINT64_FORMAT "); hint: nodes = width x height", k->p.nodes, k->p.width);
        return false;
    }
    if (k->p.topology == TOPO_RING && k->p.buffer < 2) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "ring: buffer must be at least 2 (the bubble rule keeps a free slot to "
                    "avoid deadlock)");
        return false;
    }
    int connected = (int)c->ports->len;    /* node is the only port */
    if (connected != k->n) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "%d endpoints connected to node, but nodes is %d; hint: connect one "
                    "endpoint per node", connected, k->n);
        return false;
    }
    k->port = g_new(Port *, k->n);
    for (int i = 0; i < k->n; i++)
        k->port[i] = sim_port(c, "node", i);
    k->nrouters = k->p.topology == TOPO_CROSSBAR ? 1 : k->n;
    if (k->p.topology == TOPO_CROSSBAR)
        k->diameter = 1;
    else if (k->p.topology == TOPO_RING)
        k->diameter = k->n / 2;
    else
        k->diameter = (int)k->p.width - 1 + k->n / (int)k->p.width - 1;
    k->hop_count = g_new0(uint64_t, k->diameter + 1);
    build_links(k);
    k->pkt_free = -1;
    return true;
}

static void noc_finalize(Component *c)
{
    Noc *k = (Noc *)c;
    for (int i = 0; k->link && i < k->nlinks; i++)
        g_free(k->link[i].name);
    g_free(k->link);
    g_free(k->dir_link);
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
/* The link a message at router r bids for: dimension order (x then y) on the mesh, the shorter
 * way round the ring (ties clockwise), straight to the output on the crossbar. */
static int noc_route(const Noc *k, int r, const NocPkt *pk)
{
    if (r >= k->nrouters)
        return pk->src;                                 /* NI: its inject link */
    if (k->p.topology == TOPO_CROSSBAR || r == pk->dst)
        return k->n + pk->dst;                          /* eject */
    int dir;
    if (k->p.topology == TOPO_RING) {
        int cw = (pk->dst - r + k->n) % k->n;
        dir = cw <= k->n - cw ? DIR_EAST : DIR_WEST;
    } else {
        int w = (int)k->p.width;
        int x = r % w, y = r / w, tx = pk->dst % w, ty = pk->dst / w;
        dir = tx > x ? DIR_EAST : tx < x ? DIR_WEST : ty < y ? DIR_NORTH : DIR_SOUTH;
    }
    int l = k->dir_link[r * DIR_COUNT + dir];
    g_assert(l >= 0);
    return l;
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

static void queue_push(Noc *k, int group, int32_t i)
{
    NocPkt *pk = &k->pkt[i];
    NocQueue *q = &k->q[(size_t)group * k->p.vnets + pk->vnet];
    pk->next = -1;
    pk->out = noc_route(k, k->group_router[group], pk);
    if (q->tail >= 0)
        k->pkt[q->tail].next = i;
    else
        q->head = i;
    q->tail = i;
}

static int32_t queue_pop(Noc *k, NocQueue *q)
{
    int32_t i = q->head;
    q->head = k->pkt[i].next;
    if (q->head < 0)
        q->tail = -1;
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
    pk->vnet = (uint16_t)vnet;
    pk->hops = 0;
    pk->flits = (uint32_t)((k->p.header + m->size + k->p.link_width - 1) / k->p.link_width);
    if (pk->flits == 0)
        pk->flits = 1;
    NocQueue *q = &k->q[(size_t)(k->nlinks + port->slot) * k->p.vnets + vnet];
    q->count++;
    queue_push(k, k->nlinks + port->slot, i);
    k->injected++;
    k->in_flight++;
    sim_component_wake(c);
}

/* Slots needed in the buffer behind `l` to move a message there from input group `from`: the
 * bubble rule on the ring keeps one slot free for messages already on it (entering needs 2). */
static uint32_t credits_needed(const Noc *k, int from, int l)
{
    return k->p.topology == TOPO_RING && k->link[l].kind == LINK_NET &&
           from < k->nlinks && k->link[from].kind == LINK_INJECT ? 2 : 1;
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
    SIM_TRACE(&k->base, "deliver", lat, TARG_U("src", pk->src), TARG_U("dst", pk->dst),
              TARG_U("vnet", pk->vnet), TARG_U("hops", pk->hops));
    pkt_release(k, i);
    k->in_flight--;
    sim_progress(k->base.eng);
    sim_port_send(&k->base, k->port[l->node], m, done - now);
}

/* One output link's allocation: round-robin over its router's (input, vnet) heads that are
 * ready and routed to it; a head without a credit counts a blocked cycle. */
static void link_allocate(Noc *k, int li, uint64_t now)
{
    NocLink *l = &k->link[li];
    int r = l->from, V = (int)k->p.vnets;
    int nin = k->in_start[r + 1] - k->in_start[r];
    int pairs = nin * V;
    bool free_link = l->busy_until <= now;
    int win = -1;
    for (int s = 0; s < pairs; s++) {
        int idx = (int)((l->rr + (uint32_t)s) % (uint32_t)pairs);
        int g = k->in_list[k->in_start[r] + idx / V];
        NocQueue *q = &k->q[(size_t)g * V + idx % V];
        if (q->head < 0)
            continue;
        const NocPkt *pk = &k->pkt[q->head];
        if (pk->out != li || pk->ready > now)
            continue;
        if (l->kind != LINK_EJECT) {
            const NocQueue *dq = &k->q[(size_t)li * V + pk->vnet];
            if (dq->count + credits_needed(k, g, li) > k->p.buffer) {
                k->blocked++;
                continue;
            }
        }
        if (free_link && win < 0)
            win = idx;
    }
    if (win < 0)
        return;
    l->rr = (uint32_t)(win + 1) % (uint32_t)pairs;
    int g = k->in_list[k->in_start[r] + win / V];
    uint32_t qi = (uint32_t)(g * V + win % V);
    int32_t i = queue_pop(k, &k->q[qi]);
    k->freed[k->nfreed++] = qi;           /* credit back upstream at the end of the cycle */
    NocPkt *pk = &k->pkt[i];
    l->busy_until = now + pk->flits;
    l->busy += pk->flits;
    if (l->kind == LINK_NET || (l->kind == LINK_EJECT && k->p.topology == TOPO_CROSSBAR))
        pk->hops++;
    if (l->kind == LINK_EJECT) {
        deliver(k, l, i, now);
        return;
    }
    /* the head arrives after the link; at its destination router it ejects without another
     * pipeline pass, except a message to its own node, which turns around in its router */
    uint64_t arrive = now + l->latency;
    bool at_dst = l->to < k->nrouters && l->to == router_of_node(k, pk->dst) &&
                  k->p.topology != TOPO_CROSSBAR && pk->hops > 0;
    pk->ready = arrive + (at_dst ? 0 : k->p.router_delay);
    k->q[(size_t)li * V + pk->vnet].count++;
    queue_push(k, li, i);
}

static uint64_t noc_tick(Component *c)
{
    Noc *k = (Noc *)c;
    uint64_t now = sim_component_cycle(c);
    k->nfreed = 0;
    /* every message enqueued this cycle is ready a cycle later at the earliest (router_delay
     * and link_latency are >= 1) and credits return at the end: link order does not matter */
    for (int li = 0; li < k->nlinks; li++)
        link_allocate(k, li, now);
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
            g_string_append_printf(out, "  %s%s vnet %d: %u held, head %d -> %d bids for %s\n",
                                   g < k->nlinks ? "buffer after " : "NI queue of node ",
                                   g < k->nlinks ? k->link[g].name : "", v, q->count, pk->src,
                                   pk->dst, k->link[pk->out].name);
        }
}

static bool noc_busy(const Component *c) { return N_(c)->in_flight > 0; }

static void noc_extra_stats(const Component *c, StatSet *out)
{
    const Noc *k = N_(c);
    double cycles = noc_cycles(c);
    for (int i = 0; i < k->nlinks; i++) {
        char *n = g_strdup_printf("%s.%s.utilization", c->name, k->link[i].name);
        stats_add_double(out, n, stats_ratio((double)k->link[i].busy, cycles), "ratio",
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
    .tick = noc_tick,
    .recv = noc_recv,
    .dump = noc_dump,
    .busy = noc_busy,
    .finalize = noc_finalize,
    .extra_stats = noc_extra_stats,
};
