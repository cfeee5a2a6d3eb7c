/* dram.c: a DRAM channel with banks, open row buffers and a shared data bus, timed in ns.
 * Timing follows the usual DDR parameter names (JEDEC JESD79-4; Jacob, Ng & Wang, "Memory
 * Systems", ch. 11): a row hit costs tCAS; a closed bank tRCD + tCAS; a conflict with another
 * open row tRP + tRCD + tCAS; then the burst occupies the data bus for line / (bus_width x
 * data_rate). Requests are served first come, first served (open-page policy); a bank is busy
 * until its data is out, and the bus serializes bursts, which gives the bandwidth limit.
 * Address map: row-interleaved, bank = (addr / row_size) % banks.
 */
#include "dram.h"
#include "../mem/linkcheck.h"
#include "../mem/memmsg.h"

#include "../../sim/error.h"
#include "../../sim/registry.h"

typedef struct {
    uint64_t banks, row_size;
    uint64_t t_cas, t_rcd, t_rp, ctrl_latency;   /* ps */
    uint64_t t_ccd;                              /* ps; 0: a bank serves one access at a time */
    uint64_t bus_width, data_rate;               /* bytes, transfers per second */
} DramParams;

typedef struct {
    Tick ready;          /* bank free for the next column command */
    uint64_t open_row;
    bool open;
} Bank;

typedef struct {
    Component base;
    DramParams p;
    Bank *bank;
    Tick bus_free;
    Port *port;
    uint64_t reads, writes, row_hits, row_misses, row_conflicts;
    uint64_t bytes_read, bytes_written, bus_busy_ticks;
    SimHist latency;
} Dram;

static const ParamSpec dram_params[] = {
    { .name = "banks", .type = PARAM_UINT, .def = "8", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 1, .max = 1024, .doc = "banks in the channel", .offset = offsetof(DramParams, banks) },
    { .name = "row_size", .type = PARAM_SIZE, .def = "2KiB", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 64, .max = 1 << 20, .doc = "bytes per row (row buffer)",
      .offset = offsetof(DramParams, row_size) },
    { .name = "tCAS", .type = PARAM_TIME, .def = "13.75ns",
      .flags = PARAM_F_RANGE, .min = 0, .max = 1e9, .doc = "column access (CL)",
      .offset = offsetof(DramParams, t_cas) },
    { .name = "tRCD", .type = PARAM_TIME, .def = "13.75ns",
      .flags = PARAM_F_RANGE, .min = 0, .max = 1e9, .doc = "row activate to column access",
      .offset = offsetof(DramParams, t_rcd) },
    { .name = "tRP", .type = PARAM_TIME, .def = "13.75ns",
      .flags = PARAM_F_RANGE, .min = 0, .max = 1e9, .doc = "precharge (close a row)",
      .offset = offsetof(DramParams, t_rp) },
    { .name = "tCCD", .type = PARAM_TIME, .def = "0ns",
      .flags = PARAM_F_RANGE, .min = 0, .max = 1e9, .doc = "column to column: accesses to an "
      "open row are pipelined this far apart (HBM, GDDR); 0: a bank takes the next access only "
      "when the previous one's data is out", .offset = offsetof(DramParams, t_ccd) },
    { .name = "ctrl_latency", .type = PARAM_TIME, .def = "5ns",
      .flags = PARAM_F_RANGE, .min = 0, .max = 1e9,
      .doc = "controller front-end latency added to every request",
      .offset = offsetof(DramParams, ctrl_latency) },
    { .name = "bus_width", .type = PARAM_SIZE, .def = "8B", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1024, .doc = "data bus width", .offset = offsetof(DramParams, bus_width) },
    { .name = "data_rate", .type = PARAM_FREQ, .def = "3200MHz",
      .flags = PARAM_F_RANGE, .min = 1e6, .max = 100e9,
      .doc = "transfers per second on the data bus (DDR4-3200: 3200MHz)",
      .offset = offsetof(DramParams, data_rate) },
    PARAM_END,
};

static const PortSpec dram_ports[] = {
    { .name = "port", .role = PORT_RESPONDER, .required = true, .vector = true,
      .doc = "requests from the last-level cache (or its banks)" },
    PORT_END,
};

#define D(x) ((const Dram *)(x))
static double f_avg_latency(const Component *c)
{
    return stats_ratio((double)D(c)->latency.sum, (double)D(c)->latency.samples);
}
static double f_row_hit_rate(const Component *c)
{
    return stats_ratio((double)D(c)->row_hits, (double)(D(c)->reads + D(c)->writes));
}
static double f_bus_util(const Component *c)
{
    /* bursts are charged when granted: in a run cut short (sim.max_cycles) the ones still
     * queued past its end are taken off (8.0 with a slow bus; exact when they are back to back) */
    const Dram *d = D(c);
    Tick now = c->eng->now, tail = d->bus_free > now ? d->bus_free - now : 0;
    return stats_ratio((double)(d->bus_busy_ticks - MIN(d->bus_busy_ticks, tail)),
                       (double)sim_stats_ticks(c->sim));
}
static double f_bandwidth(const Component *c)
{
    return stats_ratio((double)(D(c)->bytes_read + D(c)->bytes_written) * 1e12,
                       (double)sim_stats_ticks(c->sim));
}

static const StatSpec dram_stats[] = {
    { "reads", STAT_COUNTER, "count", "line reads", offsetof(Dram, reads), NULL },
    { "writes", STAT_COUNTER, "count", "line writes (write-backs)", offsetof(Dram, writes), NULL },
    { "row_hits", STAT_COUNTER, "count", "accesses to the open row", offsetof(Dram, row_hits), NULL },
    { "row_misses", STAT_COUNTER, "count", "accesses to a closed bank", offsetof(Dram, row_misses),
      NULL },
    { "row_conflicts", STAT_COUNTER, "count", "accesses that closed another row",
      offsetof(Dram, row_conflicts), NULL },
    { "row_hit_rate", STAT_FORMULA, "ratio", "row_hits / (reads + writes)", 0, f_row_hit_rate },
    { "bytes_read", STAT_COUNTER, "byte", "bytes read", offsetof(Dram, bytes_read), NULL },
    { "bytes_written", STAT_COUNTER, "byte", "bytes written", offsetof(Dram, bytes_written), NULL },
    { "bandwidth", STAT_FORMULA, "byte/s", "(bytes_read + bytes_written) / sim.seconds", 0,
      f_bandwidth },
    { "bus_utilization", STAT_FORMULA, "ratio", "data bus busy time / sim.ticks", 0, f_bus_util },
    { "avg_latency", STAT_FORMULA, "cycle", "mean read latency, arrival to data out", 0,
      f_avg_latency },
    { "latency", STAT_HIST, "cycle", "read latency, arrival to data out", offsetof(Dram, latency),
      NULL },
    STAT_END,
};

static bool dram_realize(Component *c, GError **error)
{
    Dram *d = (Dram *)c;
    d->bank = g_new0(Bank, d->p.banks);
    d->port = sim_port(c, "port", 0);
    if (!d->port) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "port is not connected");
        return false;
    }
    return true;
}

static void dram_finalize(Component *c) { g_free(((Dram *)c)->bank); }

static void dram_recv(Component *c, Port *port, Msg *m)
{
    Dram *d = (Dram *)c;
    Tick now = c->eng->now;
    uint64_t row_global = mem_msg(m)->addr / d->p.row_size;
    Bank *b = &d->bank[row_global % d->p.banks];
    uint64_t row = row_global / d->p.banks;
    Tick start = now + d->p.ctrl_latency;
    if (b->ready > start)
        start = b->ready;
    Tick access;
    const char *kind;
    if (b->open && b->open_row == row) {
        access = d->p.t_cas;
        d->row_hits++;
        kind = "row_hit";
    } else if (!b->open) {
        access = d->p.t_rcd + d->p.t_cas;
        d->row_misses++;
        kind = "row_miss";
    } else {
        access = d->p.t_rp + d->p.t_rcd + d->p.t_cas;
        d->row_conflicts++;
        kind = "row_conflict";
    }
    b->open = true;
    b->open_row = row;
    Tick data = start + access;
    /* ranges keep this exact: size <= 4 KiB, bus_width <= 1 KiB, data_rate <= 100 GHz */
    Tick burst = (Tick)((m->size ? m->size : 64) * TICKS_PER_SECOND /
                        (d->p.bus_width * d->p.data_rate));
    if (burst == 0)
        burst = 1;
    Tick xfer = data > d->bus_free ? data : d->bus_free;
    Tick done = xfer + burst;
    d->bus_free = done;
    d->bus_busy_ticks += burst;
    /* the column command goes out t_cas before the data; with tCCD the bank takes the next
     * column command that long after it */
    b->ready = d->p.t_ccd ? data - d->p.t_cas + d->p.t_ccd : data;
    SIM_TRACE(c, m->cmd == MSG_READ_REQ ? "read" : "write",
              clock_cycle(c->clk, done) - sim_component_cycle(c), TARG_X("addr", mem_msg(m)->addr),
              TARG_S("row", kind));
    switch (m->cmd) {
    case MSG_READ_REQ:
        d->reads++;
        d->bytes_read += m->size;
        sim_hist_add(&d->latency, clock_cycle(c->clk, done - now));
        m->cmd = MSG_READ_RESP;
        sim_port_send_ticks(c, port, m, done - now);
        break;
    case MSG_WRITE_REQ:
        d->writes++;
        d->bytes_written += m->size;
        m->cmd = MSG_WRITE_RESP;
        sim_port_send_ticks(c, port, m, done - now);
        break;
    case MSG_WRITEBACK:
        d->writes++;
        d->bytes_written += m->size;
        sim_msg_free(c->sim, m);
        break;
    default:
        g_error("%s: unexpected message %s (cmd 0x%x)", c->name, MSG_NAME(m->cmd), m->cmd);
    }
}

static void dram_dump(Component *c, GString *out)
{
    Dram *d = (Dram *)c;
    g_string_append_printf(out, "  bus free at tick %" G_GUINT64_FORMAT "\n", d->bus_free);
}

const ComponentClass dram_class = {
    .name = "dram",
    .doc = "DRAM channel: banks, open rows, tCAS/tRCD/tRP, bus bandwidth",
    .size = sizeof(Dram),
    .params_offset = offsetof(Dram, p),
    .params = dram_params,
    .ports = dram_ports,
    .stats = dram_stats,
    .realize = dram_realize,
    .recv = dram_recv,
    .dump = dram_dump,
    .finalize = dram_finalize,
};
