/* cohshared.c: performing core accesses and classifying misses, for the private coherent cache
 * controllers (coherent.c snooping, ../dir/dircache.c directory); see cohshared.h.
 */
#include "cohshared.h"
#include "../mem/bytes.h"
#include "../mem/memmsg.h"

#include "../../sim/error.h"

/* The load check of the reference memory (o is the oracle, non-NULL only with checks on). */
static G_GNUC_NO_INLINE void coh_check_load(Component *c, Oracle *o, int who, uint64_t addr,
                                            uint32_t n, uint64_t v, const char *state)
{
    char *msg = NULL;
    if (!oracle_check_load(o, who, addr, n < 8 ? n : 8, v, &msg)) {
        sim_fail(c->sim, g_error_new(ARCHSIM_SIM_ERROR, ARCHSIM_EXIT_CHECK,
                                     "cycle %" G_GUINT64_FORMAT ": %s: %s (state %s)",
                                     sim_component_cycle(c), c->name, msg, state));
        g_free(msg);
    }
}

/* A locked read-modify-write (component.h, MSG_F_RMW) on the n <= 8 bytes at d: read, check the
 * old value like a load, write the new one like a store, in one step. */
static void coh_perform_rmw(Component *c, uint8_t *d, Msg *m, uint32_t n, int who,
                            const char *state)
{
    g_assert(n <= 8);
    Oracle *o = mem_oracle(c->sim), *w = mem_writes(c->sim);
    uint64_t old = mem_load_le(d, n);
    if (o)
        coh_check_load(c, o, who, mem_msg(m)->addr, n, old, state);
    uint64_t mask = n < 8 ? (1ull << (8 * n)) - 1 : ~0ull;
    uint64_t nv = mem_msg(m)->value;
    bool done = true;
    switch (MSG_RMW_OP(m->flags)) {
    case MSG_RMW_XCHG:
        break;
    case MSG_RMW_ADD:
        nv = old + mem_msg(m)->value;
        break;
    case MSG_RMW_CMPXCHG:
        done = old == (mem_msg(m)->arg & mask);
        if (!done)
            nv = old;
        break;
    default:
        g_error("%s: RMW operation %u is not defined (component.h MSG_RMW_*)", c->name,
                MSG_RMW_OP(m->flags));
    }
    nv &= mask;
    mem_store_le(d, nv, n);
    if (w)
        oracle_store(w, who, mem_msg(m)->addr, n, nv);
    mem_msg(m)->value = old;
    mem_msg(m)->arg = done ? 1 : 0;
}

static inline uint64_t coh_read_bytes(const uint8_t *d, uint32_t n)
{
    return mem_load_le(d, n < 8 ? n : 8);
}

bool coh_atomics_arrive(Component *c, Port *cpu, CohAtomics *a, Msg *m, uint64_t block,
                        const uint8_t *line, uint64_t delay)
{
    uint32_t n = m->size ? m->size : 1;
    if (m->flags & MSG_F_WATCH) {
        g_assert(m->cmd == MSG_READ_REQ && !a->watch);
        a->watches++;
        uint64_t mask = n < 8 ? (1ull << (8 * n)) - 1 : ~0ull;
        if (line &&
            coh_read_bytes(line + (mem_msg(m)->addr - block), n) == (mem_msg(m)->arg & mask)) {
            a->watch = m;                   /* nothing can change it while we keep the line */
            a->watch_block = block;
            return true;
        }
        m->cmd = MSG_READ_RESP;             /* a tag check: answered at once */
        mem_msg(m)->value = 0;
        sim_port_send(c, cpu, m, 0);
        return true;
    }
    if (m->flags & MSG_F_RMW) {
        switch (MSG_RMW_OP(m->flags)) {
        case MSG_RMW_XCHG:
            if (m->flags & MSG_F_TAS)
                a->tas++;
            else
                a->xchg++;
            break;
        case MSG_RMW_ADD:
            a->faa++;
            break;
        case MSG_RMW_CMPXCHG:
            a->cas++;
            break;
        default:
            break;
        }
    } else if (m->flags & MSG_F_LL) {
        a->ll++;
    } else if (m->flags & MSG_F_SC) {
        g_assert(m->cmd == MSG_WRITE_REQ);
        if (!(a->resv && a->resv_block == block && line)) {
            a->resv = false;                /* no reservation: fail without touching the line */
            a->sc_fail++;
            m->cmd = MSG_WRITE_RESP;
            mem_msg(m)->value = 0;
            mem_msg(m)->arg = 0;
            sim_port_send(c, cpu, m, delay);
            return true;
        }
    }
    return false;
}

void coh_line_lost_slow(Component *c, Port *cpu, CohAtomics *a, uint64_t block)
{
    if (a->resv && a->resv_block == block)
        a->resv = false;
    if (a->watch && a->watch_block == block) {
        Msg *w = a->watch;
        a->watch = NULL;
        w->cmd = MSG_READ_RESP;
        mem_msg(w)->value = 0;
        sim_port_send(c, cpu, w, 0);
    }
}

void coh_atomics_dump(const CohAtomics *a, GString *out)
{
    if (a->resv)
        g_string_append_printf(out, "  reservation (LL) on line 0x%" G_GINT64_MODIFIER "x\n",
                               a->resv_block);
    if (a->watch)
        g_string_append_printf(
            out, "  spin-wait watch on 0x%" G_GINT64_MODIFIER "x (value %" G_GUINT64_FORMAT ")\n",
            mem_msg(a->watch)->addr, mem_msg(a->watch)->arg);
}

void coh_perform(Component *c, Port *cpu, uint8_t *line, uint64_t block, Msg *m, uint64_t delay,
                 int who, const char *state, CohAtomics *a, bool readable)
{
    uint8_t *d = line + (mem_msg(m)->addr - block);
    uint32_t n = m->size ? m->size : 1;
    /* a plain load or store is one word-wide access: coh_plain_access with checks off and no
     * write record (mem_writes NULL), else the last two cases, which also tell the reference
     * memory (o) or the write record (w) */
    Oracle *o = mem_oracle(c->sim), *w = mem_writes(c->sim);
    if (G_UNLIKELY(m->flags & MSG_F_SC)) {
        g_assert(m->cmd == MSG_WRITE_REQ && n <= 8);
        bool ok = a->resv && a->resv_block == block;
        a->resv = false;
        uint64_t old = coh_read_bytes(d, n);
        if (ok) {
            mem_store_le(d, mem_msg(m)->value, n);
            if (w)
                oracle_store(w, who, mem_msg(m)->addr, n, mem_msg(m)->value);
            a->sc_success++;
        } else {
            a->sc_fail++;
        }
        mem_msg(m)->value = old;
        mem_msg(m)->arg = ok ? 1 : 0;
        m->cmd = MSG_WRITE_RESP;
    } else if (G_UNLIKELY(m->cmd == MSG_WRITE_REQ && (m->flags & MSG_F_RMW))) {
        coh_perform_rmw(c, d, m, n, who, state);
        m->cmd = MSG_WRITE_RESP;
    } else if (G_LIKELY(w == NULL && n <= 8 && !(m->flags & MSG_F_LL))) {
        coh_plain_access(d, m, n);
    } else if (m->cmd == MSG_WRITE_REQ) {
        if (G_LIKELY(n <= 8))
            mem_store_le(d, mem_msg(m)->value, n);
        else
            mem_fill_le(d, mem_msg(m)->value, n);
        if (G_UNLIKELY(w != NULL))
            for (uint32_t i = 0; i < n; i += 8)
                oracle_store(w, who, mem_msg(m)->addr + i, n - i < 8 ? n - i : 8,
                             mem_msg(m)->value);
        m->cmd = MSG_WRITE_RESP;
    } else {
        uint64_t v = coh_read_bytes(d, n);
        if (G_UNLIKELY(o != NULL))
            coh_check_load(c, o, who, mem_msg(m)->addr, n, v, state);
        mem_msg(m)->value = v;
        m->cmd = MSG_READ_RESP;
        if (G_UNLIKELY(m->flags & MSG_F_LL) && readable) {
            a->resv = true;
            a->resv_block = block;
        }
    }
    sim_port_send(c, cpu, m, delay);
}

void coh_class_init(CohMissClass *mc, uint64_t lines)
{
    mc->seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    mc->lost = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    mc->map = g_hash_table_new(g_int64_hash, g_int64_equal);
    g_queue_init(&mc->order);
    mc->cap = lines;
}

void coh_class_free(CohMissClass *mc)
{
    if (!mc->seen)
        return;
    g_hash_table_destroy(mc->seen);
    g_hash_table_destroy(mc->lost);
    g_hash_table_destroy(mc->map);
    g_queue_clear_full(&mc->order, g_free);
    mc->seen = mc->lost = mc->map = NULL;
}

/* Fully associative LRU shadow of the cache's size: block -> stamp, evict the least recent. */
static void shadow_touch(CohMissClass *mc, uint64_t block, bool *would_hit)
{
    GList *node = g_hash_table_lookup(mc->map, &block);
    if (would_hit)
        *would_hit = node != NULL;
    if (node) {
        g_queue_unlink(&mc->order, node);
        g_queue_push_head_link(&mc->order, node);
        return;
    }
    uint64_t *key = g_new(uint64_t, 1);
    *key = block;
    g_queue_push_head(&mc->order, key);
    g_hash_table_insert(mc->map, key, mc->order.head);
    if (mc->order.length > mc->cap) {
        uint64_t *old = g_queue_pop_tail(&mc->order);
        g_hash_table_remove(mc->map, old);
        g_free(old);
    }
}

void coh_class_touch(CohMissClass *mc, uint64_t block)
{
    shadow_touch(mc, block, NULL);
}

/* Cold, capacity and conflict are known at the miss; a coherence miss is split into true and
 * false sharing when its data arrives, because only then have the writes of the requests
 * ordered before it (the ones that took the line away) performed. */
bool coh_class_miss(CohMissClass *mc, uint64_t block, uint64_t *since)
{
    bool fa_hit = false, coherence = false;
    shadow_touch(mc, block, &fa_hit);
    uint64_t *lost = g_hash_table_lookup(mc->lost, &block);
    if (!g_hash_table_contains(mc->seen, &block)) {
        mc->cold++;
        uint64_t *key = g_new(uint64_t, 1);
        *key = block;
        g_hash_table_add(mc->seen, key);
    } else if (lost) {
        coherence = true;
        *since = *lost;
    } else if (fa_hit) {
        mc->conflict++;
    } else {
        mc->capacity++;
    }
    if (lost)
        g_hash_table_remove(mc->lost, &block);
    return coherence;
}

void coh_class_lost(CohMissClass *mc, uint64_t block, uint64_t seq)
{
    uint64_t *key = g_new(uint64_t, 1);
    *key = block;
    g_hash_table_replace(mc->lost, key, g_memdup2(&seq, sizeof seq));
}

void coh_class_sharing(CohMissClass *mc, Oracle *o, int who, const Msg *op, uint64_t since)
{
    if (o && op &&
        oracle_written_by_other_since(o, who, mem_msg_c(op)->addr, op->size ? op->size : 1, since))
        mc->true_sharing++;
    else
        mc->false_sharing++;
}
