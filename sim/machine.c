/* machine.c: builds a machine from its YAML graph (machine.h, docs/machines.md): declarations
 * (groups and leaves, arrays by count:, clocks inherited down the tree, parts by include:),
 * overrides by top-level keys and --set, then one Component per instance and one link per
 * endpoint pair. The builder knows no class: each class checks its own links (check_link, run by
 * sim_check_links), so the rules of what may link to what live with the models.
 * After SST's component/link graph (Rodrigues et al., "The Structural Simulation Toolkit",
 * SIGMETRICS PER 38(4), 2011) and gem5's port binding by name.
 */
#include "machine.h"

#include <string.h>
#include <glib/gstdio.h>

#include "error.h"

#define MACHINE_MAX_COUNT 65536u        /* instances of one array */
#define MACHINE_MAX_INSTANCES 1048576u  /* components of one machine */
#define MACHINE_MAX_DEPTH 16            /* nesting of groups (and of includes in entries) */
#define MACHINE_MAX_LINK_LATENCY 1000000000000ull   /* 1 s in ticks (ps) */
#define MACHINE_MAX_PART_LOADS 1000     /* part includes of one machine (as a config's) */
#define MACHINE_MAX_PART_BYTES (4u << 20)

typedef struct MDecl MDecl;
struct MDecl {
    char *name;                 /* local name, e.g. "core" */
    char *path;                 /* declared path, e.g. "cluster0.core" */
    const CfgNode *key;         /* the entry's key, for messages */
    CfgNode *node;              /* the entry (owned: includes merged in) */
    const ComponentClass *cls;  /* NULL: a group */
    bool array, flat;
    uint64_t count;
    MDecl *parent;
    GPtrArray *children;        /* MDecl* */
    int depth;
};

/* An override: a top-level key path such as cluster1.core[*] with one key to set there. */
typedef struct {
    GPtrArray *chain;           /* MDecl* from the top down to the target */
    GArray *sel;                /* int per chain entry: -1 every instance, else that index */
    const char *key;            /* "clock", a parameter name, or "count" */
    const CfgNode *value;
    const CfgNode *where;       /* the key node */
    const CfgNode *container;   /* the map that holds it (its position names the section) */
} MOverride;

typedef struct {
    Sim *sim;
    const CfgNode *root;
    GPtrArray *decls;           /* MDecl*, every one (owned) */
    GPtrArray *top;             /* MDecl* of components: */
    GPtrArray *overrides;       /* MOverride* */
    GHashTable *inst;           /* full name -> Component* */
    GHashTable *port_link;      /* Port* -> const CfgNode* (the link that made it) */
    uint32_t part_loads;        /* part files read by entries' include: */
    uint64_t part_bytes;        /* ... and their text */
    GHashTable *comp_decl;      /* Component* -> MDecl* */
    uint64_t ninst;
    const CfgNode *cur_map;     /* the override map being walked */
    bool counts_pass;           /* walking the overrides for their count: settings alone */
    bool partial;               /* checking a part: placeholders, parameters given only */
    GPtrArray *placeholders;    /* Component* made for a part check (owned) */
} MBuild;

static void node_error(GError **error, const CfgNode *node, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void node_error(GError **error, const CfgNode *node, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cfg_set_error_va(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, node, fmt, ap);
    va_end(ap);
}

static const char *scalar(const CfgNode *n)
{
    return n && n->kind == CFG_SCALAR ? n->scalar : NULL;
}

bool machine_is_graph(const CfgNode *root)
{
    return root && root->kind == CFG_MAP && cfg_map_get(root, "components") != NULL;
}

/* ---- names ---------------------------------------------------------------------------- */

/* One segment of a path: NAME, NAME[K] or NAME[*]. sel: -1 none, -2 '*', else K. */
typedef struct {
    char *name;
    int sel;
} MSeg;

static bool name_ok(const char *s, size_t n)
{
    if (n == 0 || !(g_ascii_isalpha(s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(g_ascii_isalnum(s[i]) || s[i] == '_' || s[i] == '-'))
            return false;
    return true;
}

/* Splits "a.b[3].c[*]" into segments; false with *problem on bad syntax. */
static GArray *path_split(const char *text, char **problem)
{
    GArray *segs = g_array_new(FALSE, TRUE, sizeof(MSeg));
    const char *p = text;
    while (true) {
        const char *start = p;
        while (*p && *p != '.' && *p != '[')
            p++;
        MSeg s = { g_strndup(start, (gsize)(p - start)), -1 };
        g_array_append_val(segs, s);
        if (!name_ok(start, (size_t)(p - start))) {
            *problem = g_strdup_printf("'%s': '%.*s' is not a name (letters, digits, _ and -, "
                                       "starting with a letter)", text, (int)(p - start), start);
            goto bad;
        }
        if (*p == '[') {
            p++;
            int v;
            if (*p == '*') {
                v = -2;
                p++;
            } else {
                if (!g_ascii_isdigit(*p)) {
                    *problem = g_strdup_printf("'%s': expected an index or * inside [ ]", text);
                    goto bad;
                }
                uint64_t x = 0;
                while (g_ascii_isdigit(*p) && x <= MACHINE_MAX_COUNT)
                    x = x * 10 + (uint64_t)(*p++ - '0');
                if (g_ascii_isdigit(*p) || x >= MACHINE_MAX_COUNT) {
                    *problem = g_strdup_printf("'%s': index too large (arrays hold at most %u)",
                                               text, MACHINE_MAX_COUNT);
                    goto bad;
                }
                v = (int)x;
            }
            if (*p != ']') {
                *problem = g_strdup_printf("'%s': expected ] after the index", text);
                goto bad;
            }
            p++;
            g_array_index(segs, MSeg, segs->len - 1).sel = v;
        }
        if (*p == '\0')
            return segs;
        if (*p != '.') {
            *problem = g_strdup_printf("'%s': expected . between names", text);
            goto bad;
        }
        p++;
    }
bad:
    for (guint i = 0; i < segs->len; i++)
        g_free(g_array_index(segs, MSeg, i).name);
    g_array_free(segs, TRUE);
    return NULL;
}

static void segs_free(GArray *segs)
{
    for (guint i = 0; segs && i < segs->len; i++)
        g_free(g_array_index(segs, MSeg, i).name);
    if (segs)
        g_array_free(segs, TRUE);
}

static MDecl *decl_child(GPtrArray *list, const char *name)
{
    for (guint i = 0; list && i < list->len; i++) {
        MDecl *d = g_ptr_array_index(list, i);
        if (strcmp(d->name, name) == 0)
            return d;
    }
    return NULL;
}

/* "; did you mean 'x'?" among the names in list, or "" (newly allocated). */
static char *hint_among(const char *word, GPtrArray *list, const char *what)
{
    const char *names[256];
    size_t n = 0;
    GString *all = g_string_new(NULL);
    for (guint i = 0; list && i < list->len && n < 256; i++) {
        MDecl *d = g_ptr_array_index(list, i);
        names[n++] = d->name;
        if (i < 12)
            g_string_append_printf(all, "%s%s", all->len ? ", " : "", d->name);
        else if (i == 12)
            g_string_append(all, ", ...");
    }
    const char *h = param_suggest(word, names, n);
    char *out = h ? g_strdup_printf("; did you mean '%s'?", h)
                  : g_strdup_printf("; %s: %s", what, all->len ? all->str : "(none)");
    g_string_free(all, TRUE);
    return out;
}

/* ---- declarations --------------------------------------------------------------------- */

static const char *const entry_keys[] = { "class", "count", "clock", "params", "subcomponents",
                                          "links", "include", "flat", "doc", NULL };

static bool decl_parse_list(MBuild *b, const CfgNode *map, MDecl *parent, GPtrArray *into,
                            int depth, GError **error);

/* Merges the part named by entry's include: under the entry's own keys (they win). */
static CfgNode *entry_resolve(MBuild *b, const CfgNode *entry, int depth, GError **error)
{
    CfgNode *e = cfg_node_copy(entry);
    for (int round = 0; e->kind == CFG_MAP && cfg_map_get(e, "include"); round++) {
        const CfgNode *inc = cfg_map_get(e, "include");
        if (round + depth >= MACHINE_MAX_DEPTH) {
            node_error(error, inc, "include: parts nest more than %d deep (a part that "
                       "includes itself?)", MACHINE_MAX_DEPTH);
            cfg_node_free(e);
            return NULL;
        }
        if (!scalar(inc) || !*inc->scalar) {
            node_error(error, inc, "include: expected the path of a part file, e.g. "
                       "include: ../parts/machines/cluster4.yaml");
            cfg_node_free(e);
            return NULL;
        }
        char *dir = inc->file && strcmp(inc->file, "--set") != 0 ? g_path_get_dirname(inc->file)
                                                                  : g_strdup(".");
        char *path = g_path_is_absolute(inc->scalar) ? g_strdup(inc->scalar)
                                                     : g_build_filename(dir, inc->scalar, NULL);
        g_free(dir);
        /* the config's own include limits (docs/config.md), over the whole machine: a part
         * that includes four parts that each include four ... read 4^9 files */
        GStatBuf st;
        uint64_t size = g_stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
        if (++b->part_loads > MACHINE_MAX_PART_LOADS ||
            (b->part_bytes += size) > MACHINE_MAX_PART_BYTES) {
            node_error(error, inc, "include: the machine's parts are included more than %d "
                       "times or bring in more than 4 MiB of text (each inclusion counts; a "
                       "part whose entries include parts, level after level, multiplies them)",
                       MACHINE_MAX_PART_LOADS);
            g_free(path);
            cfg_node_free(e);
            return NULL;
        }
        GError *e2 = NULL;
        CfgNode *part = cfg_load_file(path, NULL, &e2);
        g_free(path);
        if (!part) {
            char *w = cfg_node_where(inc);
            g_propagate_prefixed_error(error, e2, "%s: include: ", w);
            g_free(w);
            cfg_node_free(e);
            return NULL;
        }
        cfg_map_remove(part, "part");
        cfg_map_remove(e, "include");
        cfg_merge(part, e);            /* the entry's own keys win */
        e = part;
    }
    return e;
}

static MDecl *decl_new(MBuild *b, const char *name, const CfgNode *key, MDecl *parent)
{
    MDecl *d = g_new0(MDecl, 1);
    d->name = g_strdup(name);
    d->path = parent ? g_strdup_printf("%s.%s", parent->path, name) : g_strdup(name);
    d->key = key;
    d->parent = parent;
    d->count = 1;
    d->depth = parent ? parent->depth + 1 : 0;
    d->children = g_ptr_array_new();
    g_ptr_array_add(b->decls, d);
    return d;
}

static bool params_key_ok(const MDecl *d, const CfgNode *pk, GError **error);

static bool decl_fill(MBuild *b, MDecl *d, const CfgNode *entry, int depth, GError **error)
{
    if (entry->kind != CFG_MAP) {
        node_error(error, entry, "%s: expected a map (class:, params:, ... or subcomponents:)",
                   d->path);
        return false;
    }
    d->node = entry_resolve(b, entry, depth, error);
    if (!d->node)
        return false;
    const CfgNode *n = d->node;
    for (guint i = 0; i < n->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(n->keys, i);
        bool ok = false;
        for (int j = 0; entry_keys[j] && !ok; j++)
            ok = strcmp(k->scalar, entry_keys[j]) == 0;
        if (!ok) {
            const char *h = param_suggest(k->scalar, entry_keys, G_N_ELEMENTS(entry_keys) - 1);
            node_error(error, k, "%s.%s: unknown key of a component entry%s%s%s (an entry has "
                       "class, count, clock, params, subcomponents, links, include, flat; "
                       "parameters go under params:)", d->path, k->scalar,
                       h ? "; did you mean '" : "", h ? h : "", h ? "'?" : "");
            return false;
        }
    }
    const CfgNode *cls = cfg_map_get(n, "class"), *subs = cfg_map_get(n, "subcomponents");
    if (cls && subs) {
        node_error(error, subs, "%s: an entry is either a component (class:) or a group "
                   "(subcomponents:), not both", d->path);
        return false;
    }
    if (!cls && !subs) {
        node_error(error, d->key, "%s: give class: (a component) or subcomponents: (a group)",
                   d->path);
        return false;
    }
    if (cls) {
        if (!scalar(cls) || !(d->cls = registry_find_class(cls->scalar))) {
            const char *names[128];
            size_t k = 0;
            for (; archsim_component_classes[k] && k < 128; k++)
                names[k] = archsim_component_classes[k]->name;
            const char *h = scalar(cls) ? param_suggest(cls->scalar, names, k) : NULL;
            node_error(error, cls, "%s.class: unknown class '%s'%s%s%s (`archsim describe` "
                       "lists the classes)", d->path, scalar(cls) ? cls->scalar : "?",
                       h ? "; did you mean '" : "", h ? h : "", h ? "'?" : "");
            return false;
        }
        const CfgNode *links = cfg_map_get(n, "links");
        if (links) {
            node_error(error, links, "%s.links: only a group (subcomponents:) holds links",
                       d->path);
            return false;
        }
    }
    const CfgNode *cnt = cfg_map_get(n, "count");
    if (cnt) {
        static const ParamSpec cs = { .name = "count", .type = PARAM_UINT, .flags = PARAM_F_RANGE,
                                      .min = 1, .max = MACHINE_MAX_COUNT };
        char *problem = NULL;
        uint64_t v = 0;
        if (!scalar(cnt) || !param_parse_value(&cs, cnt->scalar, NULL, &v, &problem)) {
            node_error(error, cnt, "%s.count: %s", d->path,
                       problem ? problem : "expected a number of instances");
            g_free(problem);
            return false;
        }
        d->array = true;
        d->count = v;
    }
    const CfgNode *flat = cfg_map_get(n, "flat");
    if (flat) {
        const char *f = scalar(flat);
        if (!f || !(strcmp(f, "true") == 0 || strcmp(f, "false") == 0)) {
            node_error(error, flat, "%s.flat: expected true or false", d->path);
            return false;
        }
        d->flat = strcmp(f, "true") == 0;
        if (d->flat && !d->array) {
            node_error(error, flat, "%s.flat: only an array (count:) has instances to name",
                       d->path);
            return false;
        }
    }
    const CfgNode *params = cfg_map_get(n, "params");
    if (params && params->kind != CFG_MAP && !(scalar(params) && !*params->scalar)) {
        node_error(error, params, "%s.params: expected a map of parameters", d->path);
        return false;
    }
    if (params && !d->cls) {
        node_error(error, params, "%s.params: a group has no parameters (give them to its "
                   "subcomponents)", d->path);
        return false;
    }
    for (guint i = 0; params && params->kind == CFG_MAP && i < params->keys->len; i++)
        if (!params_key_ok(d, g_ptr_array_index(params->keys, i), error))
            return false;
    if (subs) {
        if (subs->kind != CFG_MAP) {
            node_error(error, subs, "%s.subcomponents: expected a map: name -> entry", d->path);
            return false;
        }
        if (d->depth + 1 >= MACHINE_MAX_DEPTH) {
            node_error(error, subs, "%s: groups nest more than %d deep", d->path,
                       MACHINE_MAX_DEPTH);
            return false;
        }
        if (!decl_parse_list(b, subs, d, d->children, depth + 1, error))
            return false;
    }
    return true;
}

/* Entries of a components:/subcomponents: map; a dotted key a.b.c puts c in groups a.b. */
static bool decl_parse_list(MBuild *b, const CfgNode *map, MDecl *parent, GPtrArray *into,
                            int depth, GError **error)
{
    for (guint i = 0; i < map->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(map->keys, i);
        const CfgNode *v = g_ptr_array_index(map->items, i);
        char *problem = NULL;
        GArray *segs = path_split(k->scalar, &problem);
        if (!segs) {
            node_error(error, k, "component name %s", problem);
            g_free(problem);
            return false;
        }
        MDecl *at = parent;
        GPtrArray *list = into;
        bool ok = true;
        for (guint s = 0; s < segs->len && ok; s++) {
            const MSeg *sg = &g_array_index(segs, MSeg, s);
            if (sg->sel != -1) {
                node_error(error, k, "%s: a declaration names no index (use count: for an "
                           "array; set one instance with a top-level key or --set)", k->scalar);
                ok = false;
                break;
            }
            MDecl *d = decl_child(list, sg->name);
            bool last = s + 1 == segs->len;
            if (!d && (at ? at->depth + 1 : 0) >= MACHINE_MAX_DEPTH) {
                /* a dotted key's groups count as subcomponents: do (the chain of names
                 * instances are built from holds that many) */
                node_error(error, k, "%s: groups nest more than %d deep", k->scalar,
                           MACHINE_MAX_DEPTH);
                ok = false;
                break;
            }
            if (last) {
                if (d) {
                    char *first = cfg_node_where(d->key);
                    node_error(error, k, "%s: declared twice (first at %s)", k->scalar, first);
                    g_free(first);
                    ok = false;
                    break;
                }
                if (b->decls->len >= MACHINE_MAX_INSTANCES) {
                    node_error(error, k, "too many declarations");
                    ok = false;
                    break;
                }
                d = decl_new(b, sg->name, k, at);
                g_ptr_array_add(list, d);
                ok = decl_fill(b, d, v, depth, error);
            } else {
                if (!d) {              /* an implicit group for the dotted prefix */
                    if (b->decls->len >= MACHINE_MAX_INSTANCES) {
                        node_error(error, k, "too many declarations");
                        ok = false;
                        break;
                    }
                    d = decl_new(b, sg->name, k, at);
                    d->node = cfg_node_new_map(k->file, k->line, k->col);
                    g_ptr_array_add(list, d);
                } else if (d->cls) {
                    node_error(error, k, "%s: %s is a component, not a group", k->scalar,
                               d->path);
                    ok = false;
                    break;
                }
                at = d;
                list = d->children;
            }
        }
        segs_free(segs);
        if (!ok)
            return false;
    }
    return true;
}

/* ---- overrides (top-level keys and --set) ---------------------------------------------- */

static void override_free(gpointer p)
{
    MOverride *o = p;
    g_ptr_array_free(o->chain, TRUE);
    g_array_free(o->sel, TRUE);
    g_free(o);
}

static bool override_walk(MBuild *b, const CfgNode *map, GPtrArray *chain, GArray *sel,
                          GError **error);

/* count:, clock: and type: are keys of an entry, beside params: (inside it they were taken for
 * parameters the class does not have and ignored, or, count, acted on per instance) */
static bool params_key_ok(const MDecl *d, const CfgNode *pk, GError **error)
{
    static const char *const entry_only[] = { "count", "clock", "type", NULL };
    for (int i = 0; entry_only[i]; i++)
        if (strcmp(pk->scalar, entry_only[i]) == 0) {
            node_error(error, pk, "%s.params.%s: not a parameter of %s; %s", d->path, pk->scalar,
                       d->cls->name, i == 2 ? "its class is the entry's class:"
                                             : "it is a key of the entry, beside params:");
            return false;
        }
    return true;
}

/* Descends by one key of an override map (which may be a dotted path with indices). */
static bool override_key(MBuild *b, const CfgNode *k, const CfgNode *v, GPtrArray *chain,
                         GArray *sel, GError **error)
{
    MDecl *at = chain->len ? g_ptr_array_index(chain, chain->len - 1) : NULL;
    /* a setting of the entry reached so far */
    if (at && (strcmp(k->scalar, "clock") == 0 || strcmp(k->scalar, "count") == 0 ||
               (at->cls && !strchr(k->scalar, '.') && !strchr(k->scalar, '[') &&
                strcmp(k->scalar, "params") != 0 && !decl_child(at->children, k->scalar)))) {
        if (strcmp(k->scalar, "count") == 0) {
            for (guint i = 0; i < sel->len; i++)
                if (g_array_index(sel, int, i) >= 0) {
                    node_error(error, k, "%s.count: the count of an array is set for all its "
                               "instances, not for one", at->path);
                    return false;
                }
            if (!at->array) {
                node_error(error, k, "%s.count: %s is not an array (it has no count:)", at->path,
                           at->path);
                return false;
            }
        }
        if (at->cls == NULL && strcmp(k->scalar, "clock") != 0) {
            char *h = hint_among(k->scalar, at->children, "it holds");
            node_error(error, k, "%s: %s has no component '%s'%s", k->scalar, at->path, k->scalar,
                       h);
            g_free(h);
            return false;
        }
        if (strcmp(k->scalar, "type") == 0 &&
            !(scalar(v) && strcmp(v->scalar, at->cls->name) == 0)) {
            /* a short-hand section's type: names the class its entry has; another was ignored */
            node_error(error, v, "%s.type: %s is a %s (its entry's class:); the type cannot "
                       "change it", at->path, at->path, at->cls->name);
            return false;
        }
        if (b->counts_pass && strcmp(k->scalar, "count") != 0)
            return true;                /* the counts first */
        MOverride *o = g_new0(MOverride, 1);
        o->chain = g_ptr_array_copy(chain, NULL, NULL);
        o->sel = g_array_copy(sel);
        o->key = k->scalar;
        o->value = v;
        o->where = k;
        o->container = b->cur_map;
        g_ptr_array_add(b->overrides, o);
        return true;
    }
    if (at && at->cls && strcmp(k->scalar, "params") == 0) {
        if (v->kind != CFG_MAP) {
            node_error(error, v, "%s.params: expected a map of parameters", at->path);
            return false;
        }
        for (guint i = 0; i < v->keys->len; i++) {
            const CfgNode *pk = g_ptr_array_index(v->keys, i);
            if (!params_key_ok(at, pk, error))
                return false;
            if (b->counts_pass)
                continue;
            MOverride *o = g_new0(MOverride, 1);
            o->chain = g_ptr_array_copy(chain, NULL, NULL);
            o->sel = g_array_copy(sel);
            o->key = pk->scalar;
            o->value = g_ptr_array_index(v->items, i);
            o->where = pk;
            o->container = v;
            g_ptr_array_add(b->overrides, o);
        }
        return true;
    }
    char *problem = NULL;
    GArray *segs = path_split(k->scalar, &problem);
    if (!segs) {
        node_error(error, k, "%s", problem);
        g_free(problem);
        return false;
    }
    guint depth0 = chain->len;
    bool ok = true;
    for (guint s = 0; s < segs->len && ok; s++) {
        const MSeg *sg = &g_array_index(segs, MSeg, s);
        MDecl *cur = chain->len ? g_ptr_array_index(chain, chain->len - 1) : NULL;
        GPtrArray *list = cur ? cur->children : b->top;
        MDecl *d = decl_child(list, sg->name);
        if (!d) {
            char *h = hint_among(sg->name, list, cur ? "it holds" : "the machine has");
            node_error(error, k, "%s: %s%s%s has no component '%s'%s", k->scalar,
                       cur ? "" : "the machine", cur ? cur->path : "", "", sg->name, h);
            g_free(h);
            ok = false;
            break;
        }
        int idx = sg->sel == -2 ? -1 : sg->sel;
        if (sg->sel != -1 && !d->array) {
            node_error(error, k, "%s: %s is not an array (it has no count:), so it takes no "
                       "index", k->scalar, d->path);
            ok = false;
            break;
        }
        if (idx >= 0 && (uint64_t)idx >= d->count && !b->counts_pass) {
            node_error(error, k, "%s: index %d is out of range: %s has %" G_GUINT64_FORMAT
                       " instance%s (0 .. %" G_GUINT64_FORMAT ")", k->scalar, idx, d->path,
                       d->count, d->count == 1 ? "" : "s", d->count - 1);
            ok = false;
            break;
        }
        g_ptr_array_add(chain, d);
        g_array_append_val(sel, idx);
    }
    segs_free(segs);
    if (ok) {
        MDecl *cur = g_ptr_array_index(chain, chain->len - 1);
        if (v->kind == CFG_MAP)
            ok = override_walk(b, v, chain, sel, error);
        else {
            node_error(error, v, "%s: expected a map of settings for %s (clock:, count:, or its "
                       "parameters)", k->scalar, cur->path);
            ok = false;
        }
    }
    g_ptr_array_set_size(chain, depth0);
    g_array_set_size(sel, depth0);
    return ok;
}

static bool override_walk(MBuild *b, const CfgNode *map, GPtrArray *chain, GArray *sel,
                          GError **error)
{
    for (guint i = 0; i < map->keys->len; i++) {
        b->cur_map = map;
        if (!override_key(b, g_ptr_array_index(map->keys, i), g_ptr_array_index(map->items, i),
                          chain, sel, error))
            return false;
    }
    return true;
}

/* The count overrides change arrays before anything is instantiated. */
static bool apply_counts(MBuild *b, GError **error)
{
    for (guint i = 0; i < b->overrides->len; i++) {
        MOverride *o = g_ptr_array_index(b->overrides, i);
        if (strcmp(o->key, "count") != 0)
            continue;
        MDecl *d = g_ptr_array_index(o->chain, o->chain->len - 1);
        static const ParamSpec cs = { .name = "count", .type = PARAM_UINT, .flags = PARAM_F_RANGE,
                                      .min = 1, .max = MACHINE_MAX_COUNT };
        char *problem = NULL;
        uint64_t v = 0;
        if (!scalar(o->value) || !param_parse_value(&cs, o->value->scalar, NULL, &v, &problem)) {
            node_error(error, o->value, "%s.count: %s", d->path,
                       problem ? problem : "expected a number of instances");
            g_free(problem);
            return false;
        }
        d->count = v;
    }
    return true;
}

/* Does o apply to the instance whose index along its declaration chain is idx (per depth)? */
static bool override_matches(const MOverride *o, const MDecl *d, const int *idx)
{
    if (o->chain->len == 0 || g_ptr_array_index(o->chain, o->chain->len - 1) != d) {
        /* a group's clock reaches what it holds: the target must be an ancestor of d */
        if (strcmp(o->key, "clock") != 0)
            return false;
        const MDecl *t = g_ptr_array_index(o->chain, o->chain->len - 1);
        const MDecl *a = d->parent;
        while (a && a != t)
            a = a->parent;
        if (!a)
            return false;
    }
    for (guint i = 0; i < o->chain->len; i++) {
        const MDecl *c = g_ptr_array_index(o->chain, i);
        int s = g_array_index(o->sel, int, i);
        if (s >= 0 && idx[c->depth] != s)
            return false;
    }
    return true;
}

/* ---- instances ------------------------------------------------------------------------- */

static bool parse_clock(const CfgNode *v, const char *path, uint64_t *hz, GError **error)
{
    static const ParamSpec clk = { .name = "clock", .type = PARAM_FREQ, .flags = PARAM_F_RANGE,
                                   .min = 1e3, .max = 100e9 };
    char *problem = NULL;
    if (!scalar(v) || !param_parse_value(&clk, v->scalar, NULL, hz, &problem)) {
        node_error(error, v, "%s.clock: %s", path, problem ? problem : "expected a frequency "
                   "such as 2GHz");
        g_free(problem);
        return false;
    }
    return true;
}

/* The clock of one instance: the nearest override or declaration on it or a group above. */
static bool instance_clock(MBuild *b, const MDecl *d, const int *idx, uint64_t *hz,
                           GError **error)
{
    for (const MDecl *a = d; a; a = a->parent) {
        const CfgNode *v = NULL;
        int best = -1;
        for (guint i = 0; i < b->overrides->len; i++) {
            const MOverride *o = g_ptr_array_index(b->overrides, i);
            if (strcmp(o->key, "clock") == 0 &&
                g_ptr_array_index(o->chain, o->chain->len - 1) == a &&
                override_matches(o, a, idx) && (int)o->chain->len >= best) {
                v = o->value;           /* later overrides win */
                best = (int)o->chain->len;
            }
        }
        if (!v)
            v = cfg_map_get(a->node, "clock");
        if (v)
            return parse_clock(v, a->path, hz, error);
    }
    *hz = b->sim->sys_clk.freq_hz;
    return true;
}

static char *instance_name(const MDecl *d, const int *idx)
{
    GString *s = g_string_new(NULL);
    const MDecl *chain[MACHINE_MAX_DEPTH + 1];
    int n = 0;
    for (const MDecl *a = d; a && n <= MACHINE_MAX_DEPTH; a = a->parent)
        chain[n++] = a;
    for (int i = n - 1; i >= 0; i--) {
        const MDecl *a = chain[i];
        if (s->len)
            g_string_append_c(s, '.');
        g_string_append(s, a->name);
        if (a->array)
            g_string_append_printf(s, a->flat ? "%d" : "[%d]", idx[a->depth]);
    }
    return g_string_free(s, FALSE);
}

static bool instantiate(MBuild *b, MDecl *d, int *idx, GError **error)
{
    if (!d->cls && d->children->len == 0) {
        /* nothing to make: each of its instances would be walked for nothing (2^48 of them
         * for three nested counts of 65536) */
        node_error(error, d->key, "%s: a group with nothing in it (give it subcomponents)",
                   d->path);
        return false;
    }
    for (uint64_t i = 0; i < d->count; i++) {
        idx[d->depth] = d->array ? (int)i : -1;
        if (!d->cls) {
            for (guint k = 0; k < d->children->len; k++)
                if (!instantiate(b, g_ptr_array_index(d->children, k), idx, error))
                    return false;
            continue;
        }
        if (++b->ninst > MACHINE_MAX_INSTANCES) {
            node_error(error, d->key, "%s: the machine would have more than %u components",
                       d->path, MACHINE_MAX_INSTANCES);
            return false;
        }
        uint64_t hz = 0;
        if (!instance_clock(b, d, idx, &hz, error))
            return false;
        const CfgNode *pn = cfg_map_get(d->node, "params");
        CfgNode *sec = pn && pn->kind == CFG_MAP ? cfg_node_copy(pn)
                                                 : cfg_node_new_map(d->key->file, d->key->line,
                                                                    d->key->col);
        bool placed = pn && pn->kind == CFG_MAP;
        for (guint k = 0; k < b->overrides->len; k++) {
            const MOverride *o = g_ptr_array_index(b->overrides, k);
            if (strcmp(o->key, "clock") == 0 || strcmp(o->key, "count") == 0 ||
                !override_matches(o, d, idx))
                continue;
            if (!placed && o->container) {
                /* the section is where the config sets it (a short-hand's core: section) */
                sec->file = o->container->file;
                sec->line = o->container->line;
                sec->col = o->container->col;
                sec->set_text = o->container->set_text;
                placed = true;
            }
            cfg_map_set(sec, o->key, cfg_node_copy(o->value));
        }
        char *name = instance_name(d, idx);
        Component *c = g_hash_table_lookup(b->inst, name);
        if (c) {
            /* a flat array's name + index that another component already has (w1 of flat
             * array w beside a component w1): the second would replace the first */
            MDecl *other = g_hash_table_lookup(b->comp_decl, c);
            char *mine = d->array ? g_strdup_printf("instance %" G_GUINT64_FORMAT " of flat "
                                                    "array %s", i, d->path)
                                  : g_strdup_printf("component %s", d->path);
            char *theirs = other && other->array
                               ? g_strdup_printf("instance %d of flat array %s", c->index,
                                                 other->path)
                               : g_strdup_printf("component %s", other ? other->path : name);
            node_error(error, d->key, "%s: %s and %s both get the name %s; rename one (a flat "
                       "array's instances are its name and index)", d->path, theirs, mine, name);
            g_free(mine);
            g_free(theirs);
            g_free(name);
            return false;
        }
        if (b->partial) {
            /* a part: the keys it gives are checked; what it leaves out is the includer's */
            static const char *const ig[] = { "type", "clock", NULL };
            void *scratch = g_malloc0(d->cls->size);
            bool good = !d->cls->params ||
                        param_check_given(d->cls->params, sec, name, ig, hz,
                                          (char *)scratch + d->cls->params_offset, error);
            if (good && d->cls->params)
                param_free(d->cls->params, (char *)scratch + d->cls->params_offset);
            g_free(scratch);
            if (good) {
                c = g_malloc0(d->cls->size);
                c->cls = d->cls;
                c->name = g_strdup(name);
                c->ports = g_ptr_array_new_with_free_func(g_free);
                c->index = -1;
                g_ptr_array_add(b->placeholders, c);
            }
        } else {
            c = sim_component_new(b->sim, d->cls, name, sim_clock(b->sim, hz), sec, error);
        }
        cfg_node_free(sec);
        if (!c) {
            g_free(name);
            return false;
        }
        if (d->array)
            c->index = (int)i;
        g_hash_table_insert(b->inst, name, c);
        g_hash_table_insert(b->comp_decl, c, d);
    }
    return true;
}

/* ---- links ----------------------------------------------------------------------------- */

typedef struct {
    Component *c;
    int slot;                   /* -1: the next free one */
} MEnd;

/* Expands an endpoint relative to the group instance `base` (NULL: the top) into ports. */
static bool endpoint_expand(MBuild *b, const MDecl *group, const char *base, const CfgNode *n,
                            const char *which, GArray *out, const char **port, int *port_sel,
                            GError **error)
{
    if (!scalar(n) || !*n->scalar) {
        node_error(error, n, "links: %s: expected COMPONENT.PORT, e.g. core[*].dcache", which);
        return false;
    }
    char *problem = NULL;
    GArray *segs = path_split(n->scalar, &problem);
    if (!segs) {
        node_error(error, n, "links: %s: %s", which, problem);
        g_free(problem);
        return false;
    }
    if (segs->len < 2) {
        node_error(error, n, "links: %s: '%s' names no port: write COMPONENT.PORT (e.g. %s.%s)",
                   which, n->scalar, n->scalar, strcmp(which, "from") == 0 ? "mem_side"
                                                                             : "cpu_side");
        segs_free(segs);
        return false;
    }
    /* walk the declarations; each array level multiplies the endpoints */
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(names, g_strdup(base ? base : ""));
    GPtrArray *list = group ? group->children : b->top;
    const MDecl *d = NULL;
    bool ok = true;
    for (guint s = 0; s + 1 < segs->len && ok; s++) {
        const MSeg *sg = &g_array_index(segs, MSeg, s);
        d = decl_child(list, sg->name);
        if (!d) {
            char *h = hint_among(sg->name, list, group ? "the group holds" : "the machine has");
            node_error(error, n, "links: %s: no component '%s'%s%s%s", which, sg->name,
                       group ? " in " : "", group ? group->path : "", h);
            g_free(h);
            ok = false;
            break;
        }
        if (d->array && sg->sel == -1) {
            node_error(error, n, "links: %s: %s is an array of %" G_GUINT64_FORMAT ": write %s[*] "
                       "for every instance or %s[K] for one", which, d->path, d->count, sg->name,
                       sg->name);
            ok = false;
            break;
        }
        if (!d->array && sg->sel != -1) {
            node_error(error, n, "links: %s: %s is not an array (it has no count:), so it takes "
                       "no index", which, d->path);
            ok = false;
            break;
        }
        if (sg->sel >= 0 && (uint64_t)sg->sel >= d->count) {
            node_error(error, n, "links: %s: index %d is out of range: %s has %" G_GUINT64_FORMAT
                       " instance%s (0 .. %" G_GUINT64_FORMAT ")", which, sg->sel, d->path,
                       d->count, d->count == 1 ? "" : "s", d->count - 1);
            ok = false;
            break;
        }
        GPtrArray *next = g_ptr_array_new_with_free_func(g_free);
        for (guint k = 0; k < names->len; k++) {
            const char *pre = g_ptr_array_index(names, k);
            uint64_t lo = sg->sel >= 0 ? (uint64_t)sg->sel : 0;
            uint64_t hi = !d->array ? 1 : sg->sel >= 0 ? lo + 1 : d->count;
            for (uint64_t j = lo; j < hi; j++) {
                GString *nm = g_string_new(pre);
                if (nm->len)
                    g_string_append_c(nm, '.');
                g_string_append(nm, sg->name);
                if (d->array)
                    g_string_append_printf(nm, d->flat ? "%" G_GUINT64_FORMAT
                                                       : "[%" G_GUINT64_FORMAT "]", j);
                g_ptr_array_add(next, g_string_free(nm, FALSE));
            }
        }
        g_ptr_array_free(names, TRUE);
        names = next;
        list = d->children;
    }
    if (ok && d && !d->cls) {
        node_error(error, n, "links: %s: %s is a group: name a component inside it (%s.NAME.PORT)",
                   which, d->path, d->path);
        ok = false;
    }
    const MSeg *ps = &g_array_index(segs, MSeg, segs->len - 1);
    if (ok) {
        int spec = sim_port_spec_index(d->cls, ps->name);
        if (spec < 0) {
            GString *all = g_string_new(NULL);
            const char *pn[64];
            size_t np = 0;
            for (const PortSpec *p = d->cls->ports; p && p->name && np < 64; p++) {
                pn[np++] = p->name;
                g_string_append_printf(all, "%s%s", all->len ? ", " : "", p->name);
            }
            const char *h = param_suggest(ps->name, pn, np);
            node_error(error, n, "links: %s: class %s (%s) has no port '%s'%s%s%s; its ports: %s",
                       which, d->cls->name, d->path, ps->name, h ? "; did you mean '" : "",
                       h ? h : "", h ? "'?" : "", all->len ? all->str : "(none)");
            g_string_free(all, TRUE);
            ok = false;
        } else {
            const PortSpec *p = &d->cls->ports[spec];
            bool want_req = strcmp(which, "from") == 0;
            if ((p->role == PORT_REQUESTER) != want_req) {
                node_error(error, n, "links: %s: %s.%s is a %s port; a link goes from a requester "
                           "port to a responder port: swap from and to", which, d->path, p->name,
                           p->role == PORT_REQUESTER ? "requester" : "responder");
                ok = false;
            } else if (ps->sel != -1 && !p->vector) {
                node_error(error, n, "links: %s: %s.%s is not a vector port, so it takes no "
                           "connection number", which, d->path, p->name);
                ok = false;
            }
            *port = p->name;
            *port_sel = ps->sel;
        }
    }
    for (guint k = 0; ok && k < names->len; k++) {
        Component *c = g_hash_table_lookup(b->inst, g_ptr_array_index(names, k));
        g_assert(c != NULL);
        MEnd e = { c, ps->sel >= 0 ? ps->sel : -1 };
        g_array_append_val(out, e);
    }
    g_ptr_array_free(names, TRUE);
    segs_free(segs);
    return ok;
}

static bool parse_latency(const CfgNode *v, const Component *from, Tick *out, GError **error)
{
    static const ParamSpec ts = { .name = "latency", .type = PARAM_TIME };
    static const ParamSpec cs = { .name = "latency", .type = PARAM_CYCLES };
    char *problem = NULL;
    uint64_t x = 0;
    if (!scalar(v)) {
        node_error(error, v, "links: latency: expected a time (500ps, 2ns) or cycles of the "
                   "requester's clock (3, 3cycles)");
        return false;
    }
    if (param_parse_value(&ts, v->scalar, NULL, &x, &problem)) {
        *out = x;
    } else {
        g_clear_pointer(&problem, g_free);
        if (!param_parse_value(&cs, v->scalar, NULL, &x, &problem)) {
            g_free(problem);
            node_error(error, v, "links: latency: '%s' is neither a time (500ps, 2ns: a whole "
                       "number of ps) nor a number of cycles (3, 3cycles, in %s's clock)",
                       v->scalar, from->name);
            return false;
        }
        *out = sim_tick_mul(x, from->clk->period);
    }
    if (*out < 1) {
        node_error(error, v, "links: latency: %s is below one tick (1 ps), the least a link can "
                   "take; leave latency: out for a 1 ps wire", v->scalar);
        return false;
    }
    if (*out > MACHINE_MAX_LINK_LATENCY) {
        /* every send adds it to the current tick: past 2^64 ps it wrapped to the past */
        node_error(error, v, "links: latency: %s is more than a link can take (1 s)", v->scalar);
        return false;
    }
    return true;
}

static char *port_key(const Component *c, const char *port, int slot)
{
    return g_strdup_printf("%p/%s/%d", (const void *)c, port, slot);
}

static bool link_one(MBuild *b, const MDecl *group, const char *base, const CfgNode *l,
                     GHashTable *taken, GError **error)
{
    if (l->kind != CFG_MAP) {
        node_error(error, l, "links: expected {from: COMPONENT.PORT, to: COMPONENT.PORT, "
                   "latency: TIME}");
        return false;
    }
    for (guint i = 0; i < l->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(l->keys, i);
        static const char *const lk[] = { "from", "to", "latency", NULL };
        if (strcmp(k->scalar, "from") && strcmp(k->scalar, "to") && strcmp(k->scalar, "latency")) {
            const char *h = param_suggest(k->scalar, lk, 3);
            node_error(error, k, "links: unknown key '%s'%s%s%s (a link has from, to, latency)",
                       k->scalar, h ? "; did you mean '" : "", h ? h : "", h ? "'?" : "");
            return false;
        }
    }
    const CfgNode *fn = cfg_map_get(l, "from"), *tn = cfg_map_get(l, "to");
    if (!fn || !tn) {
        node_error(error, l, "links: a link needs from: and to:");
        return false;
    }
    GArray *fa = g_array_new(FALSE, FALSE, sizeof(MEnd)), *ta = g_array_new(FALSE, FALSE, sizeof(MEnd));
    const char *fp = NULL, *tp = NULL;
    int fsel = -1, tsel = -1;
    bool ok = endpoint_expand(b, group, base, fn, "from", fa, &fp, &fsel, error) &&
              endpoint_expand(b, group, base, tn, "to", ta, &tp, &tsel, error);
    guint n = ok ? MAX(fa->len, ta->len) : 0;
    if (ok && fa->len != ta->len && fa->len != 1 && ta->len != 1) {
        node_error(error, l, "links: from %s gives %u ports and to %s gives %u: the counts must "
                   "match, or one side must be a single vector port", fn->scalar, fa->len,
                   tn->scalar, ta->len);
        ok = false;
    }
    for (int side = 0; ok && side < 2; side++) {
        GArray *a = side ? ta : fa;
        int sel = side ? tsel : fsel;
        const CfgNode *nn = side ? tn : fn;
        if (a->len == 1 && n > 1) {
            const MEnd *e = &g_array_index(a, MEnd, 0);
            int spec = sim_port_spec_index(e->c->cls, side ? tp : fp);
            if (!e->c->cls->ports[spec].vector || sel >= 0) {
                node_error(error, nn, "links: %s: %s.%s is one %s, but the other end gives %u "
                           "ports: only a vector port (without [K]) takes several links",
                           side ? "to" : "from", e->c->name, side ? tp : fp,
                           sel >= 0 ? "connection" : "port", n);
                ok = false;
            }
        }
    }
    Tick lat = 1;
    const CfgNode *ln = cfg_map_get(l, "latency");
    for (guint i = 0; ok && i < n; i++) {
        MEnd f = g_array_index(fa, MEnd, fa->len == 1 ? 0 : i);
        MEnd t = g_array_index(ta, MEnd, ta->len == 1 ? 0 : i);
        if (fsel == -2)
            f.slot = (int)i;
        if (tsel == -2)
            t.slot = (int)i;
        if (ln && !parse_latency(ln, f.c, &lat, error)) {
            ok = false;
            break;
        }
        for (int side = 0; side < 2 && ok; side++) {
            MEnd *e = side ? &t : &f;
            const char *pn = side ? tp : fp;
            int spec = sim_port_spec_index(e->c->cls, pn);
            bool vec = e->c->cls->ports[spec].vector;
            char *key = port_key(e->c, pn, vec ? e->slot : 0);
            const CfgNode *prev = (!vec || e->slot >= 0) ? g_hash_table_lookup(taken, key) : NULL;
            if (prev) {
                char *w = cfg_node_where(prev);
                char *slot = vec ? g_strdup_printf("[%d]", e->slot) : g_strdup("");
                node_error(error, side ? tn : fn, "links: %s: %s.%s%s is linked twice (first at "
                           "%s)%s", side ? "to" : "from", e->c->name, pn, slot, w,
                           vec ? "" : "; a scalar port takes one link (link another instance, "
                           "or a vector port)");
                g_free(slot);
                g_free(w);
                ok = false;
            }
            g_free(key);
        }
        if (!ok)
            break;
        if (f.c == t.c) {
            /* a component's own ports joined: its requests come back to itself (a deadlock) */
            node_error(error, l, "links: %s.%s and %s.%s are ports of one component; a link "
                       "joins two", f.c->name, fp, t.c->name, tp);
            ok = false;
            break;
        }
        GError *e2 = NULL;
        if (!sim_connect_slots(f.c, fp, f.slot, t.c, tp, t.slot, lat, &e2)) {
            char *w = cfg_node_where(l);
            g_propagate_prefixed_error(error, e2, "%s: ", w);
            g_free(w);
            ok = false;
            break;
        }
        /* remember which link took each port, for messages */
        for (int side = 0; side < 2; side++) {
            MEnd *e = side ? &t : &f;
            const char *pn = side ? tp : fp;
            Port *p = NULL;
            for (guint k = e->c->ports->len; k-- > 0 && !p;) {
                Port *q = g_ptr_array_index(e->c->ports, k);
                if (strcmp(e->c->cls->ports[q->spec].name, pn) == 0 && q->peer &&
                    q->peer->owner == (side ? f.c : t.c))
                    p = q;
            }
            if (p) {
                g_hash_table_insert(b->port_link, p, (gpointer)l);
                g_hash_table_insert(taken, port_key(e->c, pn, p->slot), (gpointer)(side ? tn : fn));
            }
        }
    }
    g_array_free(fa, TRUE);
    g_array_free(ta, TRUE);
    return ok;
}

static bool link_group(MBuild *b, const MDecl *group, const CfgNode *links, int *idx,
                       GHashTable *taken, GError **error);

/* The links of every instance of group d (and of the groups inside it). */
static bool link_decl(MBuild *b, const MDecl *d, int *idx, GHashTable *taken, GError **error)
{
    if (d->cls)
        return true;
    for (uint64_t i = 0; i < d->count; i++) {
        idx[d->depth] = d->array ? (int)i : -1;
        const CfgNode *links = cfg_map_get(d->node, "links");
        if (links && !link_group(b, d, links, idx, taken, error))
            return false;
        for (guint k = 0; k < d->children->len; k++)
            if (!link_decl(b, g_ptr_array_index(d->children, k), idx, taken, error))
                return false;
    }
    return true;
}

static bool link_group(MBuild *b, const MDecl *group, const CfgNode *links, int *idx,
                       GHashTable *taken, GError **error)
{
    if (links->kind != CFG_SEQ) {
        node_error(error, links, "links: expected a list of {from:, to:, latency:}");
        return false;
    }
    char *base = group ? instance_name(group, idx) : NULL;
    bool ok = true;
    for (guint i = 0; ok && i < links->items->len; i++)
        ok = link_one(b, group, base, g_ptr_array_index(links->items, i), taken, error);
    g_free(base);
    return ok;
}

static char *where_port(const Component *c, const char *port, void *ctx)
{
    MBuild *b = ctx;
    for (guint k = 0; k < c->ports->len; k++) {
        Port *p = g_ptr_array_index(c->ports, k);
        const CfgNode *l = g_hash_table_lookup(b->port_link, p);
        if (l && strcmp(c->cls->ports[p->spec].name, port) == 0)
            return cfg_node_where(l);
    }
    const MDecl *d = g_hash_table_lookup(b->comp_decl, c);
    return d ? cfg_node_where(d->key) : NULL;
}

/* ---- the system class ------------------------------------------------------------------ */

static const char *const top_keys[] = { "sim", "components", "links", NULL };

static bool machine_build(Sim *sim, const void *params, const CfgNode *root, GError **error);

extern const char *const machine_part_files[][2];   /* build/gen/machine_parts.c */

static void relabel(CfgNode *n, const CfgNode *at)
{
    n->file = at->file;
    n->line = at->line;
    n->col = at->col;
    n->set_text = at->set_text;
    if (n->keys)
        for (guint i = 0; i < n->keys->len; i++)
            relabel(g_ptr_array_index(n->keys, i), at);
    if (n->items)
        for (guint i = 0; i < n->items->len; i++)
            relabel(g_ptr_array_index(n->items, i), at);
}

CfgNode *machine_part_load(const char *name, const CfgNode *at, GError **error)
{
    for (int i = 0; machine_part_files[i][0]; i++) {
        const char *f = machine_part_files[i][0], *slash = strrchr(f, '/');
        if (strcmp(slash ? slash + 1 : f, name) != 0)
            continue;
        CfgNode *n = cfg_load_string(f, machine_part_files[i][1], NULL, error);
        if (!n)
            return NULL;
        cfg_map_remove(n, "part");
        relabel(n, at);
        return n;
    }
    g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_SOFTWARE,
                "machine part %s is not built into this archsim", name);
    return NULL;
}

static bool machine_build(Sim *sim, const void *params, const CfgNode *root, GError **error)
{
    (void)params;
    return machine_build_graph(sim, root, NULL, NULL, error);
}

static bool graph_build(Sim *sim, const CfgNode *root,
                        bool (*settle)(Sim *sim, void *ctx, GError **error), void *ctx,
                        bool partial, guint *ncomp, guint *nlinks, GError **error);

bool machine_build_graph(Sim *sim, const CfgNode *root,
                         bool (*settle)(Sim *sim, void *ctx, GError **error), void *ctx,
                         GError **error)
{
    return graph_build(sim, root, settle, ctx, false, NULL, NULL, error);
}

bool machine_check_part(const CfgNode *root, GString *summary, GError **error)
{
    CfgNode *g;
    const char *what;
    if (cfg_map_get(root, "components")) {
        g = cfg_node_copy(root);
        what = "machine";
    } else {                        /* a group: checked as the one entry of a machine */
        g = cfg_node_new_map(root->file, root->line, root->col);
        CfgNode *comps = cfg_node_new_map(root->file, root->line, root->col);
        CfgNode *entry = cfg_node_copy(root);
        cfg_map_remove(entry, "part");
        cfg_map_set(comps, "part", entry);
        cfg_map_set(g, "components", comps);
        what = "group";
    }
    cfg_map_remove(g, "part");
    Sim sim;
    sim_init(&sim, 1, 3000000000ull);
    guint nc = 0, nl = 0;
    bool ok = graph_build(&sim, g, NULL, NULL, true, &nc, &nl, error);
    sim_destroy(&sim);
    cfg_node_free(g);
    if (ok)
        g_string_append_printf(summary, "part: a %s graph, %u component%s and %u link%s checked; "
                               "required keys, required ports and the classes' link checks are "
                               "left to the config that uses it", what, nc, nc == 1 ? "" : "s", nl,
                               nl == 1 ? "" : "s");
    return ok;
}

/* The overrides of every top-level key but sim, components and links, into b->overrides in the
 * order they apply (the last wins). */
static bool walk_overrides(MBuild *b, const CfgNode *root, GError **error)
{
    bool ok = true;
    GPtrArray *chain = g_ptr_array_new();
    GArray *sel = g_array_new(FALSE, FALSE, sizeof(int));
    for (guint i = 0; ok && i < root->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(root->keys, i);
        bool known = false;
        for (int j = 0; top_keys[j]; j++)
            known = known || strcmp(k->scalar, top_keys[j]) == 0;
        if (known)
            continue;
        if (strcmp(k->scalar, "system") == 0) {
            node_error(error, k, "system: a machine is given either by system.type or by "
                       "components: and links:, not both");
            ok = false;
            break;
        }
        const CfgNode *v = g_ptr_array_index(root->items, i);
        char *problem = NULL;
        GArray *segs = path_split(k->scalar, &problem);
        bool names_one = segs && decl_child(b->top, g_array_index(segs, MSeg, 0).name);
        segs_free(segs);
        g_free(problem);
        if (!names_one) {
            char *h = hint_among(k->scalar, b->top, "its components");
            node_error(error, k, "%s: unknown top-level key: not sim, components, links or a "
                       "component of the machine%s", k->scalar, h);
            g_free(h);
            ok = false;
            break;
        }
        ok = override_key(b, k, v, chain, sel, error);
    }
    g_ptr_array_free(chain, TRUE);
    g_array_free(sel, TRUE);
    /* overrides apply in order, the last winning: those a --set gave after every one the file
     * gives (a --set merges into the first top-level key of its name, which a later key of the
     * file, grp.l1: after grp:, would otherwise override) */
    GPtrArray *from_set = g_ptr_array_new();
    guint kept = 0;
    for (guint i = 0; i < b->overrides->len; i++) {
        MOverride *o = g_ptr_array_index(b->overrides, i);
        if (o->value->set_text || o->where->set_text)
            g_ptr_array_add(from_set, o);
        else
            b->overrides->pdata[kept++] = o;
    }
    for (guint i = 0; i < from_set->len; i++)
        b->overrides->pdata[kept++] = g_ptr_array_index(from_set, i);
    g_ptr_array_free(from_set, TRUE);
    return ok;
}

static bool graph_build(Sim *sim, const CfgNode *root,
                        bool (*settle)(Sim *sim, void *ctx, GError **error), void *ctx,
                        bool partial, guint *ncomp, guint *nlinks, GError **error)
{
    MBuild mb = { .sim = sim, .root = root, .partial = partial };
    MBuild *b = &mb;
    b->decls = g_ptr_array_new();
    b->top = g_ptr_array_new();
    b->overrides = g_ptr_array_new_with_free_func(override_free);
    b->inst = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    b->port_link = g_hash_table_new(g_direct_hash, g_direct_equal);
    b->comp_decl = g_hash_table_new(g_direct_hash, g_direct_equal);
    b->placeholders = g_ptr_array_new();
    GHashTable *taken = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    int idx[MACHINE_MAX_DEPTH + 1];
    bool ok = true;
    const CfgNode *comps = cfg_map_get(root, "components");
    if (comps->kind != CFG_MAP || comps->keys->len == 0) {
        node_error(error, comps, "components: expected a map: name -> {class:, params:, ...} "
                   "with at least one component");
        ok = false;
    }
    ok = ok && decl_parse_list(b, comps, NULL, b->top, 0, error);
    /* every other top-level key overrides a component or group: first for the counts alone
     * (an index of another override is checked against the count it will have), then all */
    b->counts_pass = true;
    ok = ok && walk_overrides(b, root, error) && apply_counts(b, error);
    g_ptr_array_set_size(b->overrides, 0);
    b->counts_pass = false;
    ok = ok && walk_overrides(b, root, error);
    ok = ok && apply_counts(b, error);
    for (guint i = 0; ok && i < b->top->len; i++)
        ok = instantiate(b, g_ptr_array_index(b->top, i), idx, error);
    /* a flat array's sums are STEM.STAT: no component may be called STEM (flat array l's l1
     * beside flat array l1: two stats named l1.accesses) */
    if (ok && !partial) {
        GHashTableIter it;
        gpointer key, val;
        g_hash_table_iter_init(&it, b->inst);
        while (ok && g_hash_table_iter_next(&it, &key, &val)) {
            const Component *c = val;
            const char *name = key;
            if (c->index < 0 || name[strlen(name) - 1] == ']')
                continue;
            char *stem = sim_component_section_name(c);
            const Component *other = g_hash_table_lookup(b->inst, stem);
            if (other) {
                MDecl *d = g_hash_table_lookup(b->comp_decl, (gpointer)c);
                node_error(error, d ? d->key : b->root, "%s: the flat array's sums are named "
                           "%s.STAT, and a component is called %s; rename one", d ? d->path : stem,
                           stem, stem);
                ok = false;
            }
            g_free(stem);
        }
    }
    const CfgNode *links = cfg_map_get(root, "links");
    if (ok && links)
        ok = link_group(b, NULL, links, idx, taken, error);
    for (guint i = 0; ok && i < b->top->len; i++)
        ok = link_decl(b, g_ptr_array_index(b->top, i), idx, taken, error);
    ok = ok && (!settle || settle(sim, ctx, error));
    ok = ok && (partial || sim_check_links(sim, where_port, b, error));
    if (ncomp)
        *ncomp = (guint)b->ninst;
    if (nlinks)
        *nlinks = g_hash_table_size(b->port_link) / 2;
    for (guint i = 0; i < b->placeholders->len; i++) {
        Component *c = g_ptr_array_index(b->placeholders, i);
        g_ptr_array_free(c->ports, TRUE);
        if (c->port_slots)
            g_hash_table_destroy(c->port_slots);
        g_free(c->name);
        g_free(c);
    }
    g_ptr_array_free(b->placeholders, TRUE);
    for (guint i = 0; i < b->decls->len; i++) {
        MDecl *d = g_ptr_array_index(b->decls, i);
        g_free(d->name);
        g_free(d->path);
        cfg_node_free(d->node);
        g_ptr_array_free(d->children, TRUE);
        g_free(d);
    }
    g_ptr_array_free(b->decls, TRUE);
    g_ptr_array_free(b->top, TRUE);
    g_ptr_array_free(b->overrides, TRUE);
    g_hash_table_destroy(b->inst);
    g_hash_table_destroy(b->port_link);
    g_hash_table_destroy(b->comp_decl);
    g_hash_table_destroy(taken);
    return ok;
}

/* Sums over the instances of every array: cluster0.core[2].insts adds into cluster0.core.insts
 * (and l1d3.misses into l1d.misses for flat arrays), the generic aggregation of sim/stats.c. */
static void machine_stats(Sim *sim, StatSet *set)
{
    /* each array's instances by its stem, stems in the order of their first instance */
    GHashTable *arrays = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                               (GDestroyNotify)g_hash_table_destroy);
    GPtrArray *order = g_ptr_array_new();
    for (guint i = 0; i < sim->components->len; i++) {
        const Component *c = g_ptr_array_index(sim->components, i);
        if (c->index < 0)
            continue;
        char *stem = sim_component_section_name(c);
        GHashTable *inst = g_hash_table_lookup(arrays, stem);
        if (!inst) {
            inst = g_hash_table_new(g_str_hash, g_str_equal);
            g_hash_table_insert(arrays, stem, inst);
            g_ptr_array_add(order, stem);
        } else {
            g_free(stem);
        }
        g_hash_table_add(inst, c->name);
    }
    for (guint i = 0; i < order->len; i++) {
        const char *stem = g_ptr_array_index(order, i);
        stats_sum_named(set, stem, g_hash_table_lookup(arrays, stem), "sum over the array");
    }
    g_ptr_array_free(order, TRUE);
    g_hash_table_destroy(arrays);
}

static const SystemSection machine_sections[] = { { NULL, NULL, NULL, NULL, NULL } };
static const ParamSpec machine_params[] = { PARAM_END };

const SystemClass machine_system = {
    .name = "graph",
    .doc = "a machine given as data: components: and links: in the config (docs/machines.md)",
    .params = machine_params,
    .params_size = 1,
    .sections = machine_sections,
    .build = machine_build,
    .stats = machine_stats,
};
