/* teach.c: the per-access teaching table of teach.h, built from the trace event stream.
 *
 * It keeps, per component that reports state changes (the caches), each line's last state; per
 * requesting cache the bus transactions not shown yet; the lines whose memory copy is stale; and
 * one row per completed access. An access is matched to its line by address: the greatest line
 * address <= the access's address that a state change has named (lines are aligned and an
 * access's line has always changed state before the access completes, so that is its own line).
 * Only the teaching view pays for this: nothing here runs unless --teach is given.
 */
#include "teach.h"

#include <string.h>

typedef struct {
    const char *kind;        /* GetS, GetM, PutM (interned) */
    uint64_t block;
    const char *source;      /* memory, a cache's name, "own copy"; NULL when no data moves */
} TeachTxn;

typedef struct {
    uint64_t cycle;          /* completion */
    uint32_t core;
    bool store;
    bool has_value;
    TraceArgKind value_kind;
    uint64_t addr, value;
    const char *bus, *from;  /* interned */
    bool stale;
    uint32_t nstates;
    const char **states;     /* per component id; NULL = not changed yet (the initial state) */
} TeachRow;

struct TraceTeach {
    GStringChunk *strs;      /* every string kept: interned, freed at once */
    GPtrArray *paths;        /* id -> interned path */
    GPtrArray *events;       /* id -> const TeachEvent * (the class's table), or NULL */
    GPtrArray *roles;        /* id -> GHashTable (event name pointer -> role + 1), or NULL: the
                                role of each name once looked up in the table */
    GHashTable *ids;         /* interned path -> GUINT_TO_POINTER(id + 1) */
    GPtrArray *lines;        /* id -> GHashTable (uint64 block -> interned state), or NULL */
    GPtrArray *pending;      /* id -> GArray of TeachTxn, or NULL */
    GTree *blocks;           /* line addresses named by state changes (uint64 keys) */
    GHashTable *stale;       /* set of uint64 blocks whose memory copy is old */
    GArray *line_of;         /* id -> uint64 line size (0: unknown) */
    const char *initial;     /* the state every line starts in: the first change's `from` */
    uint64_t supply_block, supply_cycle;
    const char *supply_cache;
    GArray *rows;            /* TeachRow */
    uint64_t dropped;
    bool network;            /* a directory machine: requests travel a network, not a bus */
};

static gint teach_u64_cmp(gconstpointer a, gconstpointer b, gpointer unused)
{
    (void)unused;
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t *teach_key(uint64_t v)
{
    return g_memdup2(&v, sizeof v);
}

/* Free functions for the per-component arrays, whose slots stay NULL until first used. */
static void teach_free_table(gpointer p)
{
    if (p != NULL)
        g_hash_table_unref(p);
}

static void teach_free_queue(gpointer p)
{
    if (p != NULL)
        g_array_unref(p);
}

TraceTeach *teach_new(void)
{
    TraceTeach *t = g_new0(TraceTeach, 1);
    t->strs = g_string_chunk_new(4096);
    t->paths = g_ptr_array_new();
    t->events = g_ptr_array_new();
    t->roles = g_ptr_array_new_with_free_func(teach_free_table);
    t->ids = g_hash_table_new(g_str_hash, g_str_equal);
    t->lines = g_ptr_array_new_with_free_func(teach_free_table);
    t->pending = g_ptr_array_new_with_free_func(teach_free_queue);
    t->blocks = g_tree_new_full(teach_u64_cmp, NULL, g_free, NULL);
    t->stale = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    t->rows = g_array_new(FALSE, FALSE, sizeof(TeachRow));
    t->line_of = g_array_new(FALSE, TRUE, sizeof(uint64_t));
    return t;
}

void teach_free(TraceTeach *t)
{
    if (t == NULL)
        return;
    for (guint i = 0; i < t->rows->len; i++)
        g_free(g_array_index(t->rows, TeachRow, i).states);
    g_array_unref(t->rows);
    g_array_unref(t->line_of);
    g_hash_table_unref(t->stale);
    g_tree_unref(t->blocks);
    g_ptr_array_unref(t->pending);
    g_ptr_array_unref(t->lines);
    g_hash_table_unref(t->ids);
    g_ptr_array_unref(t->paths);
    g_ptr_array_unref(t->events);
    g_ptr_array_unref(t->roles);
    g_string_chunk_free(t->strs);
    g_free(t);
}

static const char *teach_intern(TraceTeach *t, const char *s)
{
    return g_string_chunk_insert_const(t->strs, s);
}

void teach_register(TraceTeach *t, uint32_t id, const char *path, const TeachEvent *events)
{
    g_assert(id == t->paths->len);
    const char *p = teach_intern(t, path);
    g_ptr_array_add(t->paths, (gpointer)p);
    g_ptr_array_add(t->events, (gpointer)events);
    g_ptr_array_add(t->roles, events != NULL ? g_hash_table_new(NULL, NULL) : NULL);
    g_ptr_array_add(t->lines, NULL);
    g_ptr_array_add(t->pending, NULL);
    g_hash_table_insert(t->ids, (gpointer)p, GUINT_TO_POINTER(id + 1));
}

static int teach_id(const TraceTeach *t, const char *path);

void teach_set_line(TraceTeach *t, const char *path, uint64_t line)
{
    int id = teach_id(t, path);
    if (id < 0 || line == 0 || (line & (line - 1)) != 0)
        return;
    if (t->line_of->len <= (guint)id)
        g_array_set_size(t->line_of, (guint)id + 1);
    g_array_index(t->line_of, uint64_t, id) = line;
}

uint64_t teach_rows(const TraceTeach *t)
{
    return t->rows->len + t->dropped;
}

static const TraceArg *teach_arg(const TraceArg *args, int nargs, const char *key)
{
    for (int i = 0; i < nargs; i++)
        if (strcmp(args[i].key, key) == 0)
            return &args[i];
    return NULL;
}

/* The text of a string or enum argument; NULL for numbers or when absent. */
static const char *teach_text(const TraceArg *a)
{
    if (a == NULL)
        return NULL;
    if (a->kind == TARG_STR)
        return a->v.s;
    return a->kind == TARG_ENUM ? a->name : NULL;
}

static bool teach_number(const TraceArg *a, uint64_t *v)
{
    if (a == NULL || a->kind == TARG_STR)
        return false;
    *v = a->v.u;
    return true;
}

static int teach_id(const TraceTeach *t, const char *path)
{
    if (path == NULL)
        return -1;
    gpointer v = g_hash_table_lookup(t->ids, path);
    return v != NULL ? (int)GPOINTER_TO_UINT(v) - 1 : -1;
}

/* The line an address belongs to (see the file comment); the address itself if none is known. */
static uint64_t teach_block_of(const TraceTeach *t, uint64_t addr)
{
    GTreeNode *n = g_tree_upper_bound(t->blocks, &addr);   /* first line above addr */
    n = n != NULL ? g_tree_node_previous(n) : g_tree_node_last(t->blocks);
    return n != NULL ? *(const uint64_t *)g_tree_node_key(n) : addr;
}

static void teach_state(TraceTeach *t, uint32_t id, uint64_t block, const char *from,
                        const char *to)
{
    if (t->initial == NULL && from != NULL)
        t->initial = teach_intern(t, from);
    GHashTable *h = g_ptr_array_index(t->lines, id);
    if (h == NULL) {
        h = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
        t->lines->pdata[id] = h;
    }
    g_hash_table_replace(h, teach_key(block), (gpointer)teach_intern(t, to != NULL ? to : "?"));
    if (g_tree_lookup(t->blocks, &block) == NULL)
        g_tree_insert(t->blocks, teach_key(block), GINT_TO_POINTER(1));
}

static void teach_txn(TraceTeach *t, const char *kind, uint64_t block, const char *by,
                      const char *supplier, uint64_t cycle)
{
    int req = teach_id(t, by);
    if (req < 0)
        return;
    const char *src = NULL;
    if (supplier != NULL && strcmp(supplier, "memory") == 0)
        src = "memory";
    else if (supplier != NULL && strcmp(supplier, "self") == 0)
        src = "own copy";
    else if (supplier != NULL && strcmp(supplier, "cache") == 0)
        src = t->supply_cache != NULL && t->supply_block == block && t->supply_cycle == cycle
                  ? t->supply_cache : "a cache";
    GArray *q = g_ptr_array_index(t->pending, req);
    if (q == NULL) {
        q = g_array_new(FALSE, FALSE, sizeof(TeachTxn));
        t->pending->pdata[req] = q;
    }
    TeachTxn x = { .kind = teach_intern(t, kind), .block = block,
                   .source = src != NULL ? teach_intern(t, src) : NULL };
    g_array_append_val(q, x);
}

/* The same for a requester known by id and a data source named outright. */
static void teach_txn_from(TraceTeach *t, const char *kind, uint64_t block, uint32_t req,
                           const char *source)
{
    GArray *q = g_ptr_array_index(t->pending, req);
    if (q == NULL) {
        q = g_array_new(FALSE, FALSE, sizeof(TeachTxn));
        t->pending->pdata[req] = q;
    }
    TeachTxn x = { .kind = teach_intern(t, kind), .block = block,
                   .source = source != NULL ? teach_intern(t, source) : NULL };
    g_array_append_val(q, x);
}

static void teach_access(TraceTeach *t, uint32_t core, uint64_t done, bool store, uint64_t addr,
                         const TraceArg *value, const char *cache)
{
    int cid = teach_id(t, cache);
    uint64_t line = cid >= 0 && (guint)cid < t->line_of->len
                        ? g_array_index(t->line_of, uint64_t, cid) : 0;
    uint64_t block = line ? addr & ~(line - 1) : teach_block_of(t, addr);
    /* the transactions its cache ordered for this line since its last access (a write-back of
     * another line, made to free a frame for this one, is listed with its address) */
    GString *bus = g_string_new(NULL);
    const char *from = cid >= 0 ? "own copy" : "-";
    GArray *q = cid >= 0 ? g_ptr_array_index(t->pending, (guint)cid) : NULL;
    for (guint i = 0; q != NULL && i < q->len;) {
        TeachTxn *x = &g_array_index(q, TeachTxn, i);
        bool other = x->block != block;
        if (other && x->source != NULL) {
            i++;                                   /* a miss of another line: its own row */
            continue;
        }
        if (bus->len > 0)
            g_string_append(bus, ", ");
        g_string_append(bus, x->kind);
        if (other)
            g_string_append_printf(bus, " 0x%" G_GINT64_MODIFIER "x", x->block);
        if (x->source != NULL)
            from = x->source;
        g_array_remove_index(q, i);
    }
    if (store)
        g_hash_table_add(t->stale, teach_key(block));
    if (t->rows->len >= TEACH_MAX_ROWS) {
        t->dropped++;
        g_string_free(bus, TRUE);
        return;
    }
    TeachRow r = {
        .cycle = done, .core = core, .store = store, .addr = addr,
        .bus = teach_intern(t, bus->len > 0 ? bus->str : "-"), .from = teach_intern(t, from),
        .stale = g_hash_table_contains(t->stale, &block), .nstates = t->paths->len,
    };
    g_string_free(bus, TRUE);
    uint64_t v;
    if (teach_number(value, &v)) {
        r.has_value = true;
        r.value = v;
        r.value_kind = value->kind;
    }
    r.states = g_new0(const char *, r.nstates);
    for (uint32_t i = 0; i < r.nstates; i++) {
        GHashTable *h = g_ptr_array_index(t->lines, i);
        r.states[i] = h != NULL ? g_hash_table_lookup(h, &block) : NULL;
    }
    g_array_append_val(t->rows, r);
}

/* What component id's event means, from its class's table. Models pass their event names as
 * string constants, so each distinct pointer is looked up in the table once (by its text, so
 * that equal names from different translation units agree) and then found by pointer. */
static TeachRole teach_role(TraceTeach *t, uint32_t id, const char *event)
{
    GHashTable *h = g_ptr_array_index(t->roles, id);
    if (h == NULL)
        return TEACH_IGNORE;
    gpointer known = g_hash_table_lookup(h, event);
    if (known != NULL)
        return (TeachRole)(GPOINTER_TO_INT(known) - 1);
    TeachRole role = TEACH_IGNORE;
    for (const TeachEvent *e = g_ptr_array_index(t->events, id); e->event != NULL; e++)
        if (strcmp(e->event, event) == 0) {
            role = e->role;
            break;
        }
    g_hash_table_insert(h, (gpointer)event, GINT_TO_POINTER((int)role + 1));
    return role;
}

void teach_event(TraceTeach *t, uint32_t id, uint64_t cycle, const char *event, uint64_t dur,
                 const TraceArg *args, int nargs)
{
    g_assert(id < t->paths->len);
    TeachRole role = teach_role(t, id, event);
    if (role == TEACH_IGNORE)
        return;
    uint64_t addr = 0;
    bool has_addr = teach_number(teach_arg(args, nargs, "addr"), &addr);
    if (role == TEACH_LOAD || role == TEACH_STORE) {
        if (has_addr)
            teach_access(t, id, cycle + dur, role == TEACH_STORE, addr,
                         teach_arg(args, nargs, "value"),
                         teach_text(teach_arg(args, nargs, "cache")));
        return;
    }
    if (role == TEACH_STATE) {
        const TraceArg *to = teach_arg(args, nargs, "to");
        if (to == NULL || to->kind != TARG_ENUM)
            return;
        /* a directory shows its state with the owner or sharers ("view": S{0,2}, M(l1d1)) */
        const char *view = teach_text(teach_arg(args, nargs, "view"));
        teach_state(t, id, addr, teach_text(teach_arg(args, nargs, "from")),
                    view != NULL ? view : to->name);
        return;
    }
    if (!has_addr)
        return;
    if (role == TEACH_SUPPLY) {
        const char *c = teach_text(teach_arg(args, nargs, "cache"));
        t->supply_cache = c != NULL ? teach_intern(t, c) : NULL;
        t->supply_block = addr;
        t->supply_cycle = cycle;
    } else if (role == TEACH_WRITEBACK) {
        g_hash_table_remove(t->stale, &addr);
    } else if (role == TEACH_MISS) {
        /* a directory cache's completed miss: its request, hop count and data source */
        const char *req = teach_text(teach_arg(args, nargs, "req"));
        const char *src = teach_text(teach_arg(args, nargs, "from"));
        uint64_t hops = 0;
        if (req != NULL && teach_number(teach_arg(args, nargs, "hops"), &hops)) {
            char *kind = g_strdup_printf("%s %" G_GUINT64_FORMAT "-hop", req, hops);
            t->network = true;
            teach_txn_from(t, kind, addr, id, src);
            g_free(kind);
        }
    } else if (role == TEACH_BUS) {
        const char *by = teach_text(teach_arg(args, nargs, "by"));
        if (by != NULL)
            teach_txn(t, event, addr, by, teach_text(teach_arg(args, nargs, "supplier")), cycle);
    }
}

/* ---- the table ---- */

/* Columns are separated by at least two spaces and no cell holds two in a row, so a script can
 * split a row with /  +/ (tests/unit/test_teach.c does). */
enum { COL_CYCLE, COL_ACCESS, COL_VALUE, COL_BUS, COL_FROM, COL_FIXED };

static void teach_cell(GString *out, const char *s, size_t width, bool right, bool last)
{
    size_t n = strlen(s);
    if (right)
        for (size_t i = n; i < width; i++)
            g_string_append_c(out, ' ');
    g_string_append(out, s);
    if (!right && !last)
        for (size_t i = n; i < width; i++)
            g_string_append_c(out, ' ');
    if (!last)
        g_string_append(out, "  ");
}

void teach_write(const TraceTeach *t, GString *out)
{
    g_string_append(out, "# archsim --teach: one row per completed core access, with each "
                         "cache's state of its line after it\n");
    if (t->rows->len == 0) {
        g_string_append(out, "# no core access was traced: the table needs cores that report "
                             "their accesses (script-core, pattern-core)\n");
        return;
    }
    GArray *cols = g_array_new(FALSE, FALSE, sizeof(uint32_t));   /* caches, in id order */
    for (guint i = 0; i < t->lines->len; i++)
        if (g_ptr_array_index(t->lines, i) != NULL)
            g_array_append_val(cols, i);
    guint ncol = COL_FIXED + cols->len + 1;
    guint nrow = t->rows->len + 1;
    char **cell = g_new0(char *, (size_t)ncol * nrow);
    static const char *const head[COL_FIXED] = { "cycle", "access", "value", "bus", "data from" };
    for (guint c = 0; c < COL_FIXED; c++)
        cell[c] = g_strdup(c == COL_BUS && t->network ? "request" : head[c]);
    for (guint c = 0; c < cols->len; c++)
        cell[COL_FIXED + c] = g_strdup(g_ptr_array_index(t->paths, g_array_index(cols, uint32_t, c)));
    cell[ncol - 1] = g_strdup("memory");
    const char *initial = t->initial != NULL ? t->initial : "-";
    for (guint r = 0; r < t->rows->len; r++) {
        const TeachRow *w = &g_array_index(t->rows, TeachRow, r);
        char **row = cell + (size_t)(r + 1) * ncol;
        row[COL_CYCLE] = g_strdup_printf("%" G_GUINT64_FORMAT, w->cycle);
        row[COL_ACCESS] = g_strdup_printf("%s %s 0x%" G_GINT64_MODIFIER "x",
                                          (const char *)g_ptr_array_index(t->paths, w->core),
                                          w->store ? "store" : "load", w->addr);
        if (!w->has_value)
            row[COL_VALUE] = g_strdup("-");
        else if (w->value_kind == TARG_HEX)
            row[COL_VALUE] = g_strdup_printf("0x%" G_GINT64_MODIFIER "x", w->value);
        else if (w->value_kind == TARG_I64)
            row[COL_VALUE] = g_strdup_printf("%" G_GINT64_FORMAT, (int64_t)w->value);
        else
            row[COL_VALUE] = g_strdup_printf("%" G_GUINT64_FORMAT, w->value);
        row[COL_BUS] = g_strdup(w->bus);
        row[COL_FROM] = g_strdup(w->from);
        for (guint c = 0; c < cols->len; c++) {
            uint32_t id = g_array_index(cols, uint32_t, c);
            const char *s = id < w->nstates ? w->states[id] : NULL;
            row[COL_FIXED + c] = g_strdup(s != NULL ? s : initial);
        }
        row[ncol - 1] = g_strdup(w->stale ? "stale" : "fresh");
    }
    size_t *width = g_new0(size_t, ncol);
    for (guint r = 0; r < nrow; r++)
        for (guint c = 0; c < ncol; c++)
            width[c] = MAX(width[c], strlen(cell[(size_t)r * ncol + c]));
    for (guint r = 0; r < nrow; r++) {
        for (guint c = 0; c < ncol; c++)
            teach_cell(out, cell[(size_t)r * ncol + c], width[c],
                       c == COL_CYCLE || c == COL_VALUE, c == ncol - 1);
        g_string_append_c(out, '\n');
    }
    if (t->network)
        g_string_append(out, "# cycle: when the access completed.  request: the miss its cache "
                             "sent to the home directory, served in 2 hops (requester, home) or "
                             "3 (the home forwards to the owner, which answers the requester).\n"
                             "# dirN: the home directory's state with its owner or sharer "
                             "set.\n");
    else
        g_string_append(out, "# cycle: when the access completed.  bus: the transactions its "
                             "cache ordered for it.\n");
    g_string_append(out, ""
                         "# data from: memory, the cache that supplied the line, or own copy (the "
                         "line was already here).\n"
                         "# memory: stale while a cache holds a newer value than memory (after a "
                         "store, until a write-back).\n");
    if (t->dropped > 0)
        g_string_append_printf(out, "# table cut after %u rows; %" G_GUINT64_FORMAT
                               " more accesses not shown (narrow with --trace-window or "
                               "--trace-addr)\n", TEACH_MAX_ROWS, t->dropped);
    for (size_t i = 0; i < (size_t)ncol * nrow; i++)
        g_free(cell[i]);
    g_free(cell);
    g_free(width);
    g_array_unref(cols);
}

/* ---- as a TraceConsumer ---- */

static void *teach_consumer_open(void) { return teach_new(); }
static void teach_consumer_add(void *s, uint32_t id, const char *path, const TeachEvent *events)
{
    teach_register(s, id, path, events);
}
static void teach_consumer_event(void *s, uint32_t id, uint64_t cycle, const char *event,
                             uint64_t dur, const TraceArg *args, int nargs)
{
    teach_event(s, id, cycle, event, dur, args, nargs);
}
static void teach_consumer_write(const void *s, GString *out) { teach_write(s, out); }
static void teach_consumer_free(void *s) { teach_free(s); }

const TraceConsumer teach_consumer = {
    .open = teach_consumer_open, .add = teach_consumer_add, .event = teach_consumer_event,
    .write = teach_consumer_write, .free = teach_consumer_free,
};
