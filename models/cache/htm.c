/* htm.c: the L1's transaction state: read and write logs, the committed bytes of written lines,
 * the commit-time serializability check and the statistics (htm.h). The cache controller
 * (coherent.c) owns the per-line R/W bits, conflict detection and aborts. */
#include "htm.h"
#include "../mem/memmsg.h"

#include <string.h>

#include "../mem/oracle.h"

const char *const htm_conflict_choices[] = { "requester", "responder", "none", NULL };
const char *const htm_versioning_choices[] = { "lazy", "eager", NULL };

void htm_init(Htm *h)
{
    h->marked = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    h->reads = g_array_new(FALSE, FALSE, sizeof(HtmWord));
    h->writes = g_array_new(FALSE, FALSE, sizeof(HtmWord));
    h->saved_blocks = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    h->saved = g_byte_array_new();
}

void htm_free(Htm *h)
{
    if (h->marked)
        g_array_free(h->marked, TRUE);
    if (h->reads)
        g_array_free(h->reads, TRUE);
    if (h->writes)
        g_array_free(h->writes, TRUE);
    if (h->saved_blocks)
        g_array_free(h->saved_blocks, TRUE);
    if (h->saved)
        g_byte_array_free(h->saved, TRUE);
    h->marked = h->reads = h->writes = h->saved_blocks = NULL;
    h->saved = NULL;
}

bool htm_save_line(Htm *h, uint64_t block, const uint8_t *line, uint32_t line_size)
{
    for (guint i = 0; i < h->saved_blocks->len; i++)
        if (g_array_index(h->saved_blocks, uint64_t, i) == block)
            return false;
    g_array_append_val(h->saved_blocks, block);
    g_byte_array_append(h->saved, line, line_size);
    return true;
}

static bool overlap(const HtmWord *w, uint64_t addr, uint32_t n)
{
    return w->addr < addr + n && addr < w->addr + w->size;
}

bool htm_wrote(const Htm *h, uint64_t addr, uint32_t n)
{
    for (guint i = 0; i < h->writes->len; i++)
        if (overlap(&g_array_index(h->writes, HtmWord, i), addr, n))
            return true;
    return false;
}

void htm_log_read(Htm *h, uint64_t addr, uint32_t n, uint64_t v)
{
    for (guint i = 0; i < h->reads->len; i++) {
        const HtmWord *w = &g_array_index(h->reads, HtmWord, i);
        if (w->addr == addr && w->size == n)
            return;                         /* read before: the first value is the one */
    }
    HtmWord w = { addr, n, v };
    g_array_append_val(h->reads, w);
}

void htm_log_write(Htm *h, uint64_t addr, uint32_t n, uint64_t v)
{
    for (guint i = 0; i < h->writes->len; i++) {
        HtmWord *w = &g_array_index(h->writes, HtmWord, i);
        if (w->addr == addr && w->size == n) {
            w->value = v;
            return;
        }
    }
    HtmWord w = { addr, n, v };
    g_array_append_val(h->writes, w);
}

bool htm_commit_check(Htm *h, Component *c, int who, char **problem)
{
    Oracle *o = mem_oracle(c->sim), *wr = mem_writes(c->sim);
    if (!o) {
        for (guint i = 0; wr && i < h->writes->len; i++) {   /* the miss classes' record */
            const HtmWord *w = &g_array_index(h->writes, HtmWord, i);
            oracle_store(wr, who, w->addr, w->size, w->value);
        }
        return true;
    }
    for (guint i = 0; i < h->reads->len; i++) {
        const HtmWord *w = &g_array_index(h->reads, HtmWord, i);
        uint64_t now = oracle_value(o, w->addr, w->size);
        if (now != w->value) {
            *problem = g_strdup_printf(
                "transaction %" G_GUINT64_FORMAT " (begun at cycle %" G_GUINT64_FORMAT ") is not "
                "serializable: it read 0x%" G_GINT64_MODIFIER "x = %" G_GUINT64_FORMAT " but the "
                "committed value at its commit is %" G_GUINT64_FORMAT " (a conflict was missed)",
                h->id, h->begin, w->addr, w->value, now);
            return false;
        }
    }
    for (guint i = 0; i < h->writes->len; i++) {
        const HtmWord *w = &g_array_index(h->writes, HtmWord, i);
        oracle_store(o, who, w->addr, w->size, w->value);
    }
    return true;
}

void htm_clear(Htm *h)
{
    h->active = false;
    g_array_set_size(h->marked, 0);
    g_array_set_size(h->reads, 0);
    g_array_set_size(h->writes, 0);
    g_array_set_size(h->saved_blocks, 0);
    g_byte_array_set_size(h->saved, 0);
}

void htm_dump(const Htm *h, GString *out)
{
    if (!h->active)
        return;
    g_string_append_printf(out, "  transaction %" G_GUINT64_FORMAT " since cycle %" G_GUINT64_FORMAT
                           ": %u lines marked, %u words read, %u written\n", h->id, h->begin,
                           h->marked->len, h->reads->len, h->writes->len);
}

void htm_stats(const Htm *h, const char *cache, StatSet *out)
{
    static const StatCounterDef counters[] = {
        { "begins", "count", "transactions begun (outermost xbegin)", offsetof(Htm, begins) },
        { "commits", "count", "transactions committed", offsetof(Htm, commits) },
        { "aborts.conflict", "count", "aborts: another cache's request hit the read or write set (or "
          "this cache's request was refused)", offsetof(Htm, aborts[HTM_AB_CONFLICT]) },
        { "aborts.capacity", "count", "aborts: a line of the read or write set was evicted",
          offsetof(Htm, aborts[HTM_AB_CAPACITY]) },
        { "aborts.explicit", "count", "aborts: xabort", offsetof(Htm, aborts[HTM_AB_EXPLICIT]) },
        { "nacks_sent", "count", "requests this cache refused (responder wins)", offsetof(Htm, nacks_sent) },
        { "nacks_received", "count", "requests of this cache refused by another (retried)",
          offsetof(Htm, nacks_got) },
        { "logged_lines", "count", "lines whose committed bytes were kept (eager: undo-log records)",
          offsetof(Htm, logged_lines) },
        { "tx_loads", "count", "transactional loads performed", offsetof(Htm, tx_loads) },
        { "tx_stores", "count", "transactional stores and RMWs performed", offsetof(Htm, tx_stores) },
        { "stale_ops", "count", "accesses of an already aborted transaction, answered without effect",
          offsetof(Htm, stale_ops) },
    };
    char *n = g_strdup_printf("%s.htm", cache);
    stats_add_counters(out, n, h, counters, G_N_ELEMENTS(counters));
    g_free(n);
    n = g_strdup_printf("%s.htm.read_set", cache);
    stats_add_hist(out, n, &h->rset, "line", "lines read per committed transaction");
    g_free(n);
    n = g_strdup_printf("%s.htm.write_set", cache);
    stats_add_hist(out, n, &h->wset, "line", "lines written per committed transaction");
    g_free(n);
}

/* ---- the HTM message family (htm.h) ---- */
static const char *const htm_cmd_names[HTM_CMDS] = {
    [HTM_TX_BEGIN] = "tx_begin", [HTM_TX_END] = "tx_end", [HTM_TX_ABORT] = "tx_abort",
    [HTM_TX_ABORTED] = "tx_aborted",
};
const MsgFamily htm_msg_family = {
    .name = "htm", .id = MSG_FAM_HTM, .payload = sizeof(MemPayload),
    .cmds = htm_cmd_names, .ncmds = HTM_CMDS,
};
