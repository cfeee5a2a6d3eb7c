/* config.c: YAML config files -> CfgNode trees with positions; include:, --set, merge, emit.
 *
 * Built on libyaml's event API rather than its document API because events carry the start mark
 * of every scalar, map and sequence, which each node keeps so that later errors can name
 * file:line:col. The tree is built with an explicit stack of open containers, and nesting is
 * capped (CFG_MAX_DEPTH) so that the recursive copy/free/merge/emit helpers cannot overflow.
 *
 * Message forms (all ARCHSIM_CONFIG_ERROR):
 *   file errors      "PATH: cannot open: <strerror>"                               (66)
 *   YAML syntax      "FILE:LINE:COL: <libyaml problem> (<libyaml context>)"        (78)
 *   our own checks   "FILE:LINE:COL: <problem>", e.g. "a.yaml:4:3: l1d.size: duplicate key;
 *                    first defined at 2:3"                                          (78)
 *   --set            "--set ASSIGNMENT: <problem>", e.g. "--set l1d..size=1: empty key
 *                    component at column 5"; syntax errors inside a [..] / {..} / quoted value
 *                    add the column: "--set a=[1,: column 5: <problem> (<context>)" (64)
 *   later checks on --set values (param.c) use cfg_node_where(), i.e. "--set a.b=v: a.b: ...".
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "error.h"
#include "input.h"

/* Deep enough for any real config, shallow enough that recursion over a tree is harmless. A
 * --set path plus its flow value share the same budget. */
#define CFG_MAX_DEPTH 64
/* A chain of includes longer than this is surely a mistake (cycles are caught separately). */
#define CFG_MAX_INCLUDE_DEPTH 32
/* Include entries resolved in one load, repeats counted (a repeat is a copy, not a new read). */
#define CFG_MAX_INCLUDES 1000
/* Text a load may bring in: each file read, plus for every repeated include the files it brings
 * in again. Real configs are kilobytes; this bounds the memory and time of a hostile one. */
#define CFG_MAX_INPUT_BYTES (4 << 20)
/* libyaml refuses simple keys longer than 1024 characters; longer keys are emitted as "? key". */
#define CFG_MAX_SIMPLE_KEY 1000

#define CFG_SET_FILE "--set"
/* cfg_merge indexes the keys of maps wider than this. */
#define CFG_MERGE_INDEX_MIN 32

/* ------------------------------------------------------------------------------------------ */
/* Nodes */

static CfgNode *cfg_node_alloc(CfgKind kind, const char *file, int line, int col)
{
    CfgNode *n = g_new0(CfgNode, 1);
    n->kind = kind;
    n->file = g_intern_string(file != NULL ? file : "");
    n->line = line;
    n->col = col;
    if (kind == CFG_MAP)
        n->keys = g_ptr_array_new_with_free_func((GDestroyNotify)cfg_node_free);
    if (kind != CFG_SCALAR)
        n->items = g_ptr_array_new_with_free_func((GDestroyNotify)cfg_node_free);
    return n;
}

CfgNode *cfg_node_new_map(const char *file, int line, int col)
{
    return cfg_node_alloc(CFG_MAP, file, line, col);
}

CfgNode *cfg_node_new_scalar(const char *text, const char *file, int line, int col)
{
    CfgNode *n = cfg_node_alloc(CFG_SCALAR, file, line, col);
    n->scalar = g_strdup(text != NULL ? text : "");
    return n;
}

static CfgNode *cfg_node_new_seq(const char *file, int line, int col)
{
    return cfg_node_alloc(CFG_SEQ, file, line, col);
}

/* Releases what a node owns but not the node itself (used when a node's contents are replaced). */
static void cfg_node_clear(CfgNode *node)
{
    g_free(node->scalar);
    node->scalar = NULL;
    if (node->keys != NULL)
        g_ptr_array_unref(node->keys);
    if (node->items != NULL)
        g_ptr_array_unref(node->items);
    node->keys = NULL;
    node->items = NULL;
}

void cfg_node_free(CfgNode *node)
{
    if (node == NULL)
        return;
    cfg_node_clear(node);
    g_free(node);
}

CfgNode *cfg_node_copy(const CfgNode *node)
{
    if (node == NULL)
        return NULL;
    CfgNode *c = cfg_node_alloc(node->kind, node->file, node->line, node->col);
    c->set_text = node->set_text;
    c->quoted = node->quoted;
    if (node->kind == CFG_SCALAR)
        c->scalar = g_strdup(node->scalar);
    if (node->keys != NULL)
        for (guint i = 0; i < node->keys->len; i++)
            g_ptr_array_add(c->keys, cfg_node_copy(g_ptr_array_index(node->keys, i)));
    if (node->items != NULL)
        for (guint i = 0; i < node->items->len; i++)
            g_ptr_array_add(c->items, cfg_node_copy(g_ptr_array_index(node->items, i)));
    return c;
}

/* Index of key in map, or -1. Linear: sections hold tens of keys, not thousands. */
static int cfg_map_find(const CfgNode *map, const char *key)
{
    if (map == NULL || map->kind != CFG_MAP || key == NULL)
        return -1;
    for (guint i = 0; i < map->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(map->keys, i);
        if (strcmp(k->scalar, key) == 0)
            return (int)i;
    }
    return -1;
}

CfgNode *cfg_map_get(const CfgNode *map, const char *key)
{
    int i = cfg_map_find(map, key);
    return i < 0 ? NULL : g_ptr_array_index(map->items, i);
}

void cfg_map_set(CfgNode *map, const char *key, CfgNode *value)
{
    g_return_if_fail(map != NULL && map->kind == CFG_MAP && key != NULL && value != NULL);
    int i = cfg_map_find(map, key);
    if (i >= 0) {
        /* Keep the old key node (where the key was first written); only the value changes. */
        cfg_node_free(g_ptr_array_index(map->items, i));
        map->items->pdata[i] = value;
        return;
    }
    CfgNode *k = cfg_node_new_scalar(key, value->file, value->line, value->col);
    k->set_text = value->set_text;
    g_ptr_array_add(map->keys, k);
    g_ptr_array_add(map->items, value);
}

bool cfg_map_remove(CfgNode *map, const char *key)
{
    int i = cfg_map_find(map, key);
    if (i < 0)
        return false;
    g_ptr_array_remove_index(map->keys, (guint)i);  /* the free funcs release both nodes */
    g_ptr_array_remove_index(map->items, (guint)i);
    return true;
}

void cfg_merge(CfgNode *dst, CfgNode *src)
{
    g_return_if_fail(dst != NULL && src != NULL && dst != src);
    if (dst->kind == CFG_MAP && src->kind == CFG_MAP) {
        /* A linear search per key is quadratic in wide maps (an included file of 100k keys took
         * minutes), so past a few dozen keys dst's keys are indexed (key text -> index + 1). */
        GHashTable *index = NULL;
        if (src->keys->len > 0 && dst->keys->len + src->keys->len > CFG_MERGE_INDEX_MIN) {
            index = g_hash_table_new(g_str_hash, g_str_equal);
            for (guint j = 0; j < dst->keys->len; j++)
                g_hash_table_insert(index, ((CfgNode *)g_ptr_array_index(dst->keys, j))->scalar,
                                    GUINT_TO_POINTER(j + 1));
        }
        for (guint i = 0; i < src->keys->len; i++) {
            CfgNode *k = g_ptr_array_index(src->keys, i);
            CfgNode *v = g_ptr_array_index(src->items, i);
            src->items->pdata[i] = NULL;  /* moved out; the free func skips NULL */
            int j = index != NULL
                        ? (int)GPOINTER_TO_UINT(g_hash_table_lookup(index, k->scalar)) - 1
                        : cfg_map_find(dst, k->scalar);
            if (j < 0) {
                src->keys->pdata[i] = NULL;
                if (index != NULL)
                    g_hash_table_insert(index, k->scalar, GUINT_TO_POINTER(dst->keys->len + 1));
                g_ptr_array_add(dst->keys, k);
                g_ptr_array_add(dst->items, v);
                continue;
            }
            CfgNode *d = g_ptr_array_index(dst->items, j);
            if (d->kind == CFG_MAP && v->kind == CFG_MAP) {
                cfg_merge(d, v);
            } else {
                cfg_node_free(d);
                dst->items->pdata[j] = v;
            }
        }
        if (index != NULL)
            g_hash_table_unref(index);
        cfg_node_free(src);
        return;
    }
    /* Anything else: src replaces dst, in place, because callers hold the dst pointer. */
    cfg_node_clear(dst);
    dst->kind = src->kind;
    dst->file = src->file;
    dst->line = src->line;
    dst->col = src->col;
    dst->set_text = src->set_text;
    dst->scalar = src->scalar;
    dst->quoted = src->quoted;
    dst->keys = src->keys;
    dst->items = src->items;
    g_free(src);
}

char *cfg_node_where(const CfgNode *node)
{
    if (node == NULL)
        return g_strdup("?");
    if (node->set_text != NULL)
        return g_strdup_printf("%s %s", CFG_SET_FILE, node->set_text);
    if (node->line <= 0)
        return g_strdup(node->file != NULL ? node->file : "?");
    return g_strdup_printf("%s:%d:%d", node->file, node->line, node->col);
}

void cfg_set_error_va(GError **error, GQuark domain, int code, const CfgNode *node,
                      const char *fmt, va_list ap)
{
    char *msg = g_strdup_vprintf(fmt, ap);
    char *where = cfg_node_where(node);
    g_set_error(error, domain, code, "%s: %s", where, msg);
    g_free(where);
    g_free(msg);
}

/* ------------------------------------------------------------------------------------------ */
/* Parsing */

/* Where the text being parsed comes from, for node positions and messages. */
typedef struct {
    const char *file;      /* interned: file name, or "--set" */
    const char *set_text;  /* --set: the assignment (interned); NULL for files */
    int col_base;          /* --set: 1-based column of the value in the assignment */
    size_t len;            /* --set: length of the value text */
    int code;              /* error code for problems found in this text */
    int max_depth;         /* nesting allowed */
    /* files: where the text ends (0-based line and column, as libyaml counts them) when its
     * last line has no line break; libyaml then puts its end-of-input mark at the start of a
     * line past the text, which positions are clamped back to (cfg_parse sets these) */
    bool open_end;
    size_t end_line0, end_col0;
} CfgSource;

/* One open map or sequence while events stream in. */
typedef struct {
    CfgNode *node;
    CfgNode *key;       /* map: key read, value not yet (owned here until attached) */
    GHashTable *seen;   /* map: key text -> key node, for duplicate detection */
    char *path;         /* dotted path of this container, "" at the top, for messages */
} CfgFrame;

/* A mark on the line libyaml adds after a text whose last line has no line break: the text's
 * end instead (an error at the end of "a: {d" is at 1:6, not at 2:1, a line the file lacks). */
static void cfg_src_clamp(const CfgSource *src, size_t *line0, size_t *col0)
{
    if (src->set_text == NULL && src->open_end && *line0 > src->end_line0) {
        *line0 = src->end_line0;
        *col0 = src->end_col0;
    }
}

static int cfg_src_line(const CfgSource *src, size_t line0)
{
    if (src->set_text != NULL)
        return 0;
    size_t col0 = 0;
    cfg_src_clamp(src, &line0, &col0);
    return line0 >= INT_MAX ? INT_MAX : (int)line0 + 1;
}

static int cfg_src_col(const CfgSource *src, size_t line0, size_t col0)
{
    cfg_src_clamp(src, &line0, &col0);
    /* A --set value is one line; libyaml puts its end-of-input mark at the start of a next line,
     * which in the assignment means just past the value. */
    if (src->set_text != NULL && line0 > 0)
        col0 = src->len;
    size_t c = col0 + (src->set_text != NULL ? (size_t)src->col_base : 1);
    return c >= INT_MAX ? INT_MAX : (int)c;
}

/* Sets error to "POSITION: message" for a 0-based mark in the source text. */
G_GNUC_PRINTF(5, 6)
static void cfg_src_error(GError **error, const CfgSource *src, size_t line0, size_t col0,
                          const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (src->set_text != NULL)
        g_set_error(error, ARCHSIM_CONFIG_ERROR, src->code, "%s %s: column %d: %s", CFG_SET_FILE,
                    src->set_text, cfg_src_col(src, line0, col0), msg);
    else
        g_set_error(error, ARCHSIM_CONFIG_ERROR, src->code, "%s:%d:%d: %s", src->file,
                    cfg_src_line(src, line0), cfg_src_col(src, line0, col0), msg);
    g_free(msg);
}

/* Turns libyaml's error state into our message. Reader errors (bad UTF-8, control characters)
 * only have a byte offset, so line and column are counted from the text. */
static void cfg_yaml_error(GError **error, const CfgSource *src, const yaml_parser_t *parser,
                           const char *text, size_t len)
{
    const char *problem = parser->problem != NULL ? parser->problem : "invalid YAML";
    if (parser->error == YAML_MEMORY_ERROR) {
        cfg_src_error(error, src, 0, 0, "out of memory while parsing YAML");
        return;
    }
    if (parser->error == YAML_READER_ERROR) {
        size_t line = 0, col = 0, end = MIN(parser->problem_offset, len);
        for (size_t i = 0; i < end; i++) {
            if (text[i] == '\n') {
                line++;
                col = 0;
            } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
                col++;  /* count characters, not UTF-8 continuation bytes, as libyaml does */
            }
        }
        if (parser->problem_value >= 0)
            cfg_src_error(error, src, line, col, "%s (#x%X)", problem,
                          (unsigned)parser->problem_value);
        else
            cfg_src_error(error, src, line, col, "%s", problem);
        return;
    }
    if (parser->context != NULL)
        cfg_src_error(error, src, parser->problem_mark.line, parser->problem_mark.column,
                      "%s (%s)", problem, parser->context);
    else
        cfg_src_error(error, src, parser->problem_mark.line, parser->problem_mark.column, "%s",
                      problem);
}

static void cfg_frame_free(CfgFrame *f)
{
    cfg_node_free(f->key);
    if (f->seen != NULL)
        g_hash_table_unref(f->seen);
    g_free(f->path);
    g_free(f);
}

/* Path of the next child of the top frame ("l1d", "l1d.size", "ways[2]"), for messages. */
static char *cfg_child_path(GPtrArray *frames, const char *key_text)
{
    if (frames->len == 0)
        return g_strdup(key_text != NULL ? key_text : "");
    const CfgFrame *top = g_ptr_array_index(frames, frames->len - 1);
    if (top->node->kind == CFG_SEQ)
        return g_strdup_printf("%s[%u]", top->path, top->node->items->len);
    const char *k = key_text != NULL ? key_text : (top->key != NULL ? top->key->scalar : "");
    return top->path[0] == '\0' ? g_strdup(k) : g_strdup_printf("%s.%s", top->path, k);
}

/* Rejects YAML features archsim does not support: sharing values by anchors/aliases and tags.
 * Both would make "where was this value written" ambiguous, and include: covers the need. */
static bool cfg_check_props(GError **error, const CfgSource *src, const yaml_event_t *ev,
                            const yaml_char_t *anchor, const yaml_char_t *tag)
{
    if (anchor != NULL) {
        cfg_src_error(error, src, ev->start_mark.line, ev->start_mark.column,
                      "anchor '&%s' is not supported (write the value out, or share it with "
                      "include:)", (const char *)anchor);
        return false;
    }
    if (tag != NULL) {
        cfg_src_error(error, src, ev->start_mark.line, ev->start_mark.column,
                      "tag '%s' is not supported", (const char *)tag);
        return false;
    }
    return true;
}

/* Adds a finished node to the open container on top of the stack (or makes it the root). Takes
 * ownership of node in every case. */
static bool cfg_attach(GError **error, const CfgSource *src, GPtrArray *frames, CfgNode **root,
                       CfgNode *node, const yaml_event_t *ev)
{
    if (frames->len == 0) {
        g_assert(*root == NULL);
        *root = node;
        return true;
    }
    CfgFrame *top = g_ptr_array_index(frames, frames->len - 1);
    if (top->node->kind == CFG_SEQ) {
        g_ptr_array_add(top->node->items, node);
        return true;
    }
    if (top->key == NULL) {
        if (node->kind != CFG_SCALAR) {
            cfg_src_error(error, src, ev->start_mark.line, ev->start_mark.column,
                          "map keys must be scalars, not a %s",
                          node->kind == CFG_MAP ? "map" : "sequence");
            cfg_node_free(node);
            return false;
        }
        const CfgNode *first = g_hash_table_lookup(top->seen, node->scalar);
        if (first != NULL) {
            char *path = cfg_child_path(frames, node->scalar);
            if (src->set_text != NULL)
                cfg_src_error(error, src, ev->start_mark.line, ev->start_mark.column,
                              "%s: duplicate key; first defined at column %d", path, first->col);
            else
                cfg_src_error(error, src, ev->start_mark.line, ev->start_mark.column,
                              "%s: duplicate key; first defined at %d:%d", path, first->line,
                              first->col);
            g_free(path);
            cfg_node_free(node);
            return false;
        }
        top->key = node;
        return true;
    }
    g_hash_table_insert(top->seen, top->key->scalar, top->key);
    g_ptr_array_add(top->node->keys, top->key);
    g_ptr_array_add(top->node->items, node);
    top->key = NULL;
    return true;
}

/* Parses one YAML document into a tree. Returns NULL with *error set on failure, or NULL with no
 * error for a stream without any document (the caller decides what empty means). */
static CfgNode *cfg_parse(const CfgSource *src_in, const char *text, size_t len, GError **error)
{
    /* where the text ends, counted as libyaml counts (breaks: LF, CR, CR LF, NEL, LS, PS;
     * columns: characters) */
    CfgSource end = *src_in;
    const CfgSource *src = &end;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\r' || c == '\n') {
            i += c == '\r' && i + 1 < len && text[i + 1] == '\n';
            end.end_line0++;
            end.end_col0 = 0;
        } else if (c == 0xC2 && i + 1 < len && (unsigned char)text[i + 1] == 0x85) {
            i++;
            end.end_line0++;
            end.end_col0 = 0;
        } else if (c == 0xE2 && i + 2 < len && (unsigned char)text[i + 1] == 0x80 &&
                   ((unsigned char)text[i + 2] == 0xA8 || (unsigned char)text[i + 2] == 0xA9)) {
            i += 2;
            end.end_line0++;
            end.end_col0 = 0;
        } else if ((c & 0xC0) != 0x80) {
            end.end_col0++;
        }
    }
    end.open_end = end.end_col0 > 0;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        g_error("config: out of memory initializing libyaml");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);

    GPtrArray *frames = g_ptr_array_new_with_free_func((GDestroyNotify)cfg_frame_free);
    CfgNode *root = NULL;
    int docs = 0;
    bool ok = true, done = false;
    while (ok && !done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            cfg_yaml_error(error, src, &parser, text, len);
            ok = false;
            break;
        }
        int line = cfg_src_line(src, ev.start_mark.line);
        int col = cfg_src_col(src, ev.start_mark.line, ev.start_mark.column);
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1) {
                cfg_src_error(error, src, ev.start_mark.line, ev.start_mark.column,
                              "only one YAML document per file is supported");
                ok = false;
            }
            break;
        case YAML_ALIAS_EVENT:
            cfg_src_error(error, src, ev.start_mark.line, ev.start_mark.column,
                          "alias '*%s' is not supported (write the value out, or share it with "
                          "include:)",
                          (const char *)ev.data.alias.anchor);
            ok = false;
            break;
        case YAML_SCALAR_EVENT: {
            ok = cfg_check_props(error, src, &ev, ev.data.scalar.anchor, ev.data.scalar.tag);
            if (!ok)
                break;
            const char *value = (const char *)ev.data.scalar.value;
            if (memchr(value, '\0', ev.data.scalar.length) != NULL) {
                cfg_src_error(error, src, ev.start_mark.line, ev.start_mark.column,
                              "NUL characters are not supported in values");
                ok = false;
                break;
            }
            CfgNode *n = cfg_node_new_scalar(value, src->file, line, col);
            n->set_text = src->set_text;
            n->quoted = ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
            ok = cfg_attach(error, src, frames, &root, n, &ev);
            break;
        }
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT: {
            bool is_map = ev.type == YAML_MAPPING_START_EVENT;
            ok = is_map ? cfg_check_props(error, src, &ev, ev.data.mapping_start.anchor,
                                          ev.data.mapping_start.tag)
                        : cfg_check_props(error, src, &ev, ev.data.sequence_start.anchor,
                                          ev.data.sequence_start.tag);
            if (!ok)
                break;
            if ((int)frames->len >= src->max_depth) {
                cfg_src_error(error, src, ev.start_mark.line, ev.start_mark.column,
                              "nesting deeper than %d levels is not supported", src->max_depth);
                ok = false;
                break;
            }
            CfgFrame *f = g_new0(CfgFrame, 1);
            f->path = cfg_child_path(frames, NULL);
            f->node = is_map ? cfg_node_new_map(src->file, line, col)
                             : cfg_node_new_seq(src->file, line, col);
            f->node->set_text = src->set_text;
            if (is_map)
                f->seen = g_hash_table_new(g_str_hash, g_str_equal);
            /* Attach first, so the tree (not the frame) owns the node from now on. */
            if (!cfg_attach(error, src, frames, &root, f->node, &ev)) {
                f->node = NULL;
                cfg_frame_free(f);
                ok = false;
                break;
            }
            g_ptr_array_add(frames, f);
            break;
        }
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            g_assert(frames->len > 0);
            g_ptr_array_remove_index(frames, frames->len - 1);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    g_ptr_array_unref(frames);
    yaml_parser_delete(&parser);
    if (!ok) {
        cfg_node_free(root);
        return NULL;
    }
    return root;
}

/* Parses a whole config file's text: the root must be a map; nothing at all is an empty map. */
static CfgNode *cfg_parse_document(const CfgSource *src, const char *text, size_t len,
                                   GError **error)
{
    GError *err = NULL;
    CfgNode *root = cfg_parse(src, text, len, &err);
    if (err != NULL) {
        g_propagate_error(error, err);
        return NULL;
    }
    if (root == NULL)
        return cfg_node_new_map(src->file, 1, 1);
    if (root->kind == CFG_SCALAR && !root->quoted && root->scalar[0] == '\0') {
        /* "---" alone, or only comments after it: an empty document, placed at the file's start
         * like one with no document at all. */
        CfgNode *map = cfg_node_new_map(src->file, 1, 1);
        cfg_node_free(root);
        return map;
    }
    if (root->kind != CFG_MAP) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, src->code,
                    "%s:%d:%d: the top level must be a map of 'key: value' lines, not a %s",
                    src->file, root->line, root->col,
                    root->kind == CFG_SEQ ? "sequence" : "scalar");
        cfg_node_free(root);
        return NULL;
    }
    return root;
}

/* ------------------------------------------------------------------------------------------ */
/* Files and include: */

/* One file as read and parsed, before its own include: is resolved. Each file is read once per
 * load, however often and under however many spellings it is included. */
typedef struct {
    CfgNode *tree;      /* every node's file is `file` */
    const char *file;   /* interned: the spelling it was first read under */
    uint64_t bytes;
} CfgText;

/* One file with its includes resolved, under one spelling (positions and relative paths follow
 * the spelling): including it again copies tree instead of resolving it again, which keeps a
 * diamond or a file included twice per level from doubling the work at every level. A resolution
 * that succeeded once gives the same tree anywhere (a cycle through it would have failed the first
 * time), except that a deeper place may pass the nesting limit; see cfg_load_path. */
typedef struct {
    CfgNode *tree;
    int height;            /* longest chain of includes below it (0: it includes nothing) */
    GHashTable *closure;   /* set of CfgText*: the file and every file below it, once each */
    uint64_t bytes;        /* the sizes of closure's files, summed */
} CfgResolved;

typedef struct {
    GPtrArray *real;        /* realpath() of each file being loaded, outermost first */
    GPtrArray *shown;       /* the same files as named in messages */
    GPtrArray *files_read;  /* the caller's list, or NULL */
    GHashTable *texts;      /* realpath -> CfgText* */
    GHashTable *resolved;   /* interned spelling -> CfgResolved* */
    uint64_t bytes;         /* text brought in: each file resolved, and for a repeated include
                               the files it brings in (CFG_MAX_INPUT_BYTES) */
    unsigned includes;      /* include: entries resolved, repeats too (CFG_MAX_INCLUDES) */
} CfgIncludeState;

static void cfg_text_free(CfgText *t)
{
    cfg_node_free(t->tree);
    g_free(t);
}

static void cfg_resolved_free(CfgResolved *r)
{
    cfg_node_free(r->tree);
    if (r->closure != NULL)
        g_hash_table_unref(r->closure);
    g_free(r);
}

/* Reads a whole config file: a regular file of at most CFG_MAX_INPUT_BYTES (sim/input.c). */
static bool cfg_read_file(const char *path, GString *out, GError **error)
{
    return sim_read_regular(path, CFG_MAX_INPUT_BYTES, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                            out, error);
}

/* Prefixes an error raised while loading an included file with the include entry's position. */
static void cfg_prefix_include(GError **error, const CfgNode *from)
{
    if (from == NULL || error == NULL || *error == NULL)
        return;
    char *where = cfg_node_where(from);
    g_prefix_error(error, "%s: include: ", where);
    g_free(where);
}

/* Adds text brought in by an include (or the top file) to the load's total; false past the
 * limit, with the position of the include entry (or the file, at the top). */
static bool cfg_charge_bytes(CfgIncludeState *st, uint64_t bytes, const char *path,
                             const CfgNode *from, GError **error)
{
    st->bytes += bytes;
    if (st->bytes <= CFG_MAX_INPUT_BYTES)
        return true;
    char *where = from != NULL ? cfg_node_where(from) : NULL;
    g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                "%s%s%s: the config and its includes come to more than %d bytes (%d MiB; a file "
                "included twice counts twice)", where != NULL ? where : "",
                where != NULL ? ": include: " : "", path, CFG_MAX_INPUT_BYTES,
                CFG_MAX_INPUT_BYTES >> 20);
    g_free(where);
    return false;
}

/* Labels every node of a freshly parsed file with another spelling of its name. */
static void cfg_node_relabel(CfgNode *n, const char *file)
{
    n->file = file;
    for (guint i = 0; n->keys != NULL && i < n->keys->len; i++)
        cfg_node_relabel(g_ptr_array_index(n->keys, i), file);
    for (guint i = 0; n->items != NULL && i < n->items->len; i++)
        cfg_node_relabel(g_ptr_array_index(n->items, i), file);
}

static const CfgResolved *cfg_load_path(const char *path, const CfgNode *from,
                                        CfgIncludeState *st, GError **error);

/* Resolves root's include: entry (if any) against dir: each listed file is loaded and merged in
 * order, then root itself is merged on top. Consumes root; returns the merged tree. res (NULL
 * for a string) gathers the files below and the height. */
static CfgNode *cfg_include_all(CfgNode *root, const char *dir, CfgIncludeState *st,
                                CfgResolved *res, GError **error)
{
    const CfgNode *inc = cfg_map_get(root, "include");
    if (inc == NULL)
        return root;
    GPtrArray *names = g_ptr_array_new();  /* borrowed scalar nodes of inc */
    bool ok = true;
    if (inc->kind == CFG_SCALAR) {
        if (inc->quoted || inc->scalar[0] != '\0')
            g_ptr_array_add(names, (gpointer)inc);  /* a plain empty value means no includes */
    } else if (inc->kind == CFG_SEQ) {
        for (guint i = 0; i < inc->items->len; i++)
            g_ptr_array_add(names, g_ptr_array_index(inc->items, i));
    } else {
        ok = false;
    }
    for (guint i = 0; ok && i < names->len; i++) {
        const CfgNode *n = g_ptr_array_index(names, i);
        if (n->kind != CFG_SCALAR || n->scalar[0] == '\0') {
            inc = n;
            ok = false;
        }
    }
    if (!ok) {
        char *where = cfg_node_where(inc);
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "%s: include: expected a file name or a list of file names", where);
        g_free(where);
        g_ptr_array_unref(names);
        cfg_node_free(root);
        return NULL;
    }
    CfgNode *result = cfg_node_new_map(root->file, root->line, root->col);
    for (guint i = 0; ok && i < names->len; i++) {
        const CfgNode *n = g_ptr_array_index(names, i);
        if (++st->includes > CFG_MAX_INCLUDES) {
            char *where = cfg_node_where(n);
            g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                        "%s: include: more than %d include: entries in one config (the limit; "
                        "a file included twice counts twice)", where, CFG_MAX_INCLUDES);
            g_free(where);
            ok = false;
            break;
        }
        char *path = (g_path_is_absolute(n->scalar) || strcmp(dir, ".") == 0)
                         ? g_strdup(n->scalar)
                         : g_build_filename(dir, n->scalar, NULL);
        const CfgResolved *child = cfg_load_path(path, n, st, error);
        g_free(path);
        ok = child != NULL;
        if (!ok)
            break;
        if (res != NULL) {
            GHashTableIter it;
            gpointer t;
            g_hash_table_iter_init(&it, child->closure);
            while (g_hash_table_iter_next(&it, &t, NULL))
                g_hash_table_add(res->closure, t);
            res->height = MAX(res->height, child->height + 1);
        }
        CfgNode *part = cfg_node_copy(child->tree);
        cfg_map_remove(part, "part");   /* `part: true` marks a file itself, not its includer */
        cfg_merge(result, part);
    }
    g_ptr_array_unref(names);
    if (!ok) {
        cfg_node_free(result);
        cfg_node_free(root);
        return NULL;
    }
    cfg_map_remove(root, "include");
    cfg_merge(result, root);
    return result;
}

/* Loads one file and its includes. from is the include entry that named it (NULL at the top).
 * Returns the resolution, owned by st. */
static const CfgResolved *cfg_load_path(const char *path, const CfgNode *from,
                                        CfgIncludeState *st, GError **error)
{
    char *real = realpath(path, NULL);
    if (real == NULL) {
        int e = errno;
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: cannot open: %s", path,
                    g_strerror(e));
        if (e == ENOENT)
            sim_input_note_missing(path, error);     /* a CONFIG looked up in the data directory */
        cfg_prefix_include(error, from);
        return NULL;
    }
    for (guint i = 0; i < st->real->len; i++) {
        if (strcmp(g_ptr_array_index(st->real, i), real) != 0)
            continue;
        GString *chain = g_string_new(NULL);
        for (guint j = i; j < st->shown->len; j++)
            g_string_append_printf(chain, "%s -> ", (const char *)g_ptr_array_index(st->shown, j));
        g_string_append(chain, path);
        char *where = cfg_node_where(from);
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s: include cycle: %s",
                    where, chain->str);
        g_free(where);
        g_string_free(chain, TRUE);
        free(real);
        return NULL;
    }
    if (st->real->len >= CFG_MAX_INCLUDE_DEPTH) {
        char *where = cfg_node_where(from);
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "%s: includes nested deeper than %d files", where, CFG_MAX_INCLUDE_DEPTH);
        g_free(where);
        free(real);
        return NULL;
    }
    const char *shown = g_intern_string(path);
    /* Included before under this spelling: the same tree, unless from here its includes would
     * pass the nesting limit; then it is resolved again, which fails at the same include entry
     * as a load without the cache would. */
    const CfgResolved *hit = g_hash_table_lookup(st->resolved, shown);
    if (hit != NULL && (int)st->real->len + hit->height < CFG_MAX_INCLUDE_DEPTH) {
        free(real);
        return cfg_charge_bytes(st, hit->bytes, path, from, error) ? hit : NULL;
    }
    CfgText *text = g_hash_table_lookup(st->texts, real);
    if (text == NULL) {
        GString *buf = g_string_new(NULL);
        if (!cfg_read_file(path, buf, error)) {
            cfg_prefix_include(error, from);
            g_string_free(buf, TRUE);
            free(real);
            return NULL;
        }
        CfgSource src = {.file = shown, .code = ARCHSIM_EXIT_CONFIG, .max_depth = CFG_MAX_DEPTH};
        CfgNode *tree = cfg_parse_document(&src, buf->str, buf->len, error);
        uint64_t bytes = buf->len;
        g_string_free(buf, TRUE);
        if (tree == NULL) {
            free(real);
            return NULL;
        }
        text = g_new0(CfgText, 1);
        text->tree = tree;
        text->file = shown;
        text->bytes = bytes;
        g_hash_table_insert(st->texts, g_strdup(real), text);
    }
    if (!cfg_charge_bytes(st, text->bytes, path, from, error)) {
        free(real);
        return NULL;
    }
    CfgNode *root = cfg_node_copy(text->tree);
    if (text->file != shown)
        cfg_node_relabel(root, shown);
    CfgResolved *res = g_new0(CfgResolved, 1);
    res->closure = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_hash_table_add(res->closure, text);
    g_ptr_array_add(st->real, real);  /* freed by the array */
    g_ptr_array_add(st->shown, g_strdup(path));
    char *dir = g_path_get_dirname(path);
    root = cfg_include_all(root, dir, st, res, error);
    g_free(dir);
    g_ptr_array_remove_index(st->real, st->real->len - 1);
    g_ptr_array_remove_index(st->shown, st->shown->len - 1);
    if (root == NULL) {
        cfg_resolved_free(res);
        return NULL;
    }
    res->tree = root;
    GHashTableIter it;
    gpointer t;
    g_hash_table_iter_init(&it, res->closure);
    while (g_hash_table_iter_next(&it, &t, NULL))
        res->bytes += ((const CfgText *)t)->bytes;
    if (st->files_read != NULL) {
        bool listed = false;
        for (guint i = 0; i < st->files_read->len && !listed; i++)
            listed = strcmp(g_ptr_array_index(st->files_read, i), path) == 0;
        if (!listed)
            g_ptr_array_add(st->files_read, g_strdup(path));
    }
    g_hash_table_replace(st->resolved, (gpointer)shown, res);
    return res;
}

static void cfg_state_init(CfgIncludeState *st, GPtrArray *files_read)
{
    /* realpath() allocates with malloc, hence free rather than g_free. */
    st->real = g_ptr_array_new_with_free_func(free);
    st->shown = g_ptr_array_new_with_free_func(g_free);
    st->files_read = files_read;
    st->texts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify)cfg_text_free);
    st->resolved = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                         (GDestroyNotify)cfg_resolved_free);
    st->bytes = 0;
    st->includes = 0;
}

static void cfg_state_clear(CfgIncludeState *st)
{
    g_ptr_array_unref(st->real);
    g_ptr_array_unref(st->shown);
    g_hash_table_unref(st->resolved);
    g_hash_table_unref(st->texts);
}

CfgNode *cfg_load_file(const char *path, GPtrArray *files_read, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    CfgIncludeState st;
    cfg_state_init(&st, files_read);
    const CfgResolved *res = cfg_load_path(path, NULL, &st, error);
    CfgNode *root = NULL;
    if (res != NULL) {
        root = res->tree;  /* taken from the cache, which goes now */
        ((CfgResolved *)res)->tree = NULL;
    }
    cfg_state_clear(&st);
    return root;
}

CfgNode *cfg_load_string(const char *name, const char *text, const char *base_dir,
                         GError **error)
{
    g_return_val_if_fail(name != NULL && text != NULL, NULL);
    CfgSource src = {.file = g_intern_string(name), .code = ARCHSIM_EXIT_CONFIG,
                     .max_depth = CFG_MAX_DEPTH};
    CfgNode *root = cfg_parse_document(&src, text, strlen(text), error);
    if (root == NULL || base_dir == NULL)
        return root;
    CfgIncludeState st;
    cfg_state_init(&st, NULL);
    root = cfg_include_all(root, base_dir, &st, NULL, error);
    cfg_state_clear(&st);
    return root;
}

/* ------------------------------------------------------------------------------------------ */
/* --set */

G_GNUC_PRINTF(3, 4)
static bool cfg_set_fail(GError **error, const char *assignment, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_USAGE, "%s %s: %s", CFG_SET_FILE,
                assignment, msg);
    g_free(msg);
    return false;
}

/* Parses the text after '=' into a node positioned in the assignment. */
static CfgNode *cfg_set_value(const char *set_text, const char *value, int col, int depth_left,
                              GError **error)
{
    while (*value == ' ' || *value == '\t') {
        value++;
        col++;
    }
    if (value[0] != '[' && value[0] != '{' && value[0] != '\'' && value[0] != '"') {
        /* Taken literally: shell users do not expect '#' or ': ' to change a plain value. */
        char *plain = g_strdup(value);
        g_strchomp(plain);
        CfgNode *n = cfg_node_new_scalar(plain, CFG_SET_FILE, 0, col);
        n->set_text = set_text;
        g_free(plain);
        return n;
    }
    CfgSource src = {.file = g_intern_string(CFG_SET_FILE), .set_text = set_text,
                     .col_base = col, .len = strlen(value), .code = ARCHSIM_EXIT_USAGE,
                     .max_depth = depth_left};
    GError *err = NULL;
    CfgNode *n = cfg_parse(&src, value, strlen(value), &err);
    if (err != NULL) {
        g_propagate_error(error, err);
        return NULL;
    }
    if (n == NULL || (value[0] != '[' && value[0] != '{' && n->kind != CFG_SCALAR)) {
        cfg_set_fail(error, set_text, "expected a single value after '='");
        cfg_node_free(n);
        return NULL;
    }
    return n;
}

bool cfg_apply_set(CfgNode *root, const char *assignment, GError **error)
{
    g_return_val_if_fail(root != NULL && root->kind == CFG_MAP && assignment != NULL, false);
    if (!g_utf8_validate(assignment, -1, NULL)) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_USAGE,
                    "%s: the assignment is not valid UTF-8", CFG_SET_FILE);
        return false;
    }
    const char *set_text = g_intern_string(assignment);
    const char *eq = strchr(assignment, '=');
    if (eq == NULL)
        return cfg_set_fail(error, set_text, "expected KEY=VALUE, e.g. l1d.size=32KiB");

    /* Split the key into components, remembering each one's column for node positions. */
    char *key = g_strndup(assignment, (gsize)(eq - assignment));
    char **parts = g_strsplit(key, ".", -1);
    guint nparts = g_strv_length(parts);
    int *cols = g_new0(int, nparts + 1);
    bool ok = true;
    int c = 1;
    for (guint i = 0; i < nparts && ok; i++) {
        cols[i] = c;
        if (parts[i][0] == '\0')
            ok = cfg_set_fail(error, set_text, "empty key component at column %d", c);
        else if (strpbrk(parts[i], " \t") != NULL)
            ok = cfg_set_fail(error, set_text, "key component '%s' contains a space", parts[i]);
        c += (int)strlen(parts[i]) + 1;
    }
    if (ok && nparts == 0)
        ok = cfg_set_fail(error, set_text, "empty key component at column 1");
    if (ok && nparts >= CFG_MAX_DEPTH)
        ok = cfg_set_fail(error, set_text, "key has more than %d components", CFG_MAX_DEPTH - 1);

    /* Check the whole path before changing anything, so a failed --set leaves root untouched. */
    CfgNode *node = root;
    for (guint i = 0; ok && node != NULL && i + 1 < nparts; i++) {
        CfgNode *child = cfg_map_get(node, parts[i]);
        if (child != NULL && child->kind != CFG_MAP &&
            !(child->kind == CFG_SCALAR && !child->quoted && child->scalar[0] == '\0')) {
            GString *p = g_string_new(parts[0]);
            for (guint j = 1; j <= i; j++)
                g_string_append_printf(p, ".%s", parts[j]);
            char *where = cfg_node_where(child);
            ok = cfg_set_fail(error, set_text, "%s is a %s (at %s); cannot set a key inside it",
                              p->str, child->kind == CFG_SEQ ? "sequence" : "scalar", where);
            g_free(where);
            g_string_free(p, TRUE);
        }
        node = child;
    }
    CfgNode *value = NULL;
    if (ok) {
        value = cfg_set_value(set_text, eq + 1, (int)(eq - assignment) + 2,
                              CFG_MAX_DEPTH - (int)nparts, error);
        ok = value != NULL;
    }
    if (ok) {
        node = root;
        for (guint i = 0; i + 1 < nparts; i++) {
            CfgNode *child = cfg_map_get(node, parts[i]);
            if (child == NULL || child->kind != CFG_MAP) {
                child = cfg_node_new_map(CFG_SET_FILE, 0, cols[i]);
                child->set_text = set_text;
                cfg_map_set(node, parts[i], child);  /* replaces a null value */
            }
            node = child;
        }
        /* The new key's position: its own column, not the value's. */
        bool existed = cfg_map_find(node, parts[nparts - 1]) >= 0;
        cfg_map_set(node, parts[nparts - 1], value);
        if (!existed) {
            CfgNode *k = g_ptr_array_index(node->keys, node->keys->len - 1);
            k->col = cols[nparts - 1];
        }
    }
    g_free(cols);
    g_strfreev(parts);
    g_free(key);
    return ok;
}

/* ------------------------------------------------------------------------------------------ */
/* Emitting YAML */

/* Decodes one UTF-8 character at *p, advancing p; invalid bytes come back as themselves. */
static gunichar cfg_next_char(const char **p)
{
    gunichar c = g_utf8_get_char_validated(*p, -1);
    if (c == (gunichar)-1 || c == (gunichar)-2) {
        c = (unsigned char)**p;
        (*p)++;
        return c | 0x80000000u;  /* marks an invalid byte */
    }
    *p = g_utf8_next_char(*p);
    return c;
}

/* Characters libyaml reads back unchanged inside a scalar: printable, and not one of the
 * Unicode line breaks (NEL, LS, PS) that it would fold, nor a BOM. */
static bool cfg_char_raw_ok(gunichar c)
{
    if (c & 0x80000000u)
        return false;
    if (c < 0x80)
        return c >= 0x20 && c < 0x7f;
    return c >= 0xA0 && c != 0xFEFF && c != 0x2028 && c != 0x2029 && c != 0xFFFE &&
           c != 0xFFFF && !(c >= 0xD800 && c <= 0xDFFF);
}

/* Whether text can be written as a plain (unquoted) scalar and read back as the same text. */
static bool cfg_plain_ok(const char *s)
{
    size_t len = strlen(s);
    if (len == 0)
        return true;  /* the empty plain scalar (null) is written as nothing */
    for (const char *p = s; *p != '\0';)
        if (!cfg_char_raw_ok(cfg_next_char(&p)))
            return false;
    if (s[0] == ' ' || s[len - 1] == ' ' || s[len - 1] == ':')
        return false;
    /* Indicators that start something else at the front of a scalar; "-5" is still a number. */
    if (strchr("?:,[]{}#&*!|>'\"%@`", s[0]) != NULL)
        return false;
    if (s[0] == '-' && (s[1] == '\0' || s[1] == ' ' || s[1] == '-'))
        return false;
    if (g_str_has_prefix(s, "...") || strstr(s, ": ") != NULL || strstr(s, " #") != NULL)
        return false;
    return true;
}

void cfg_emit_quoted(GString *out, const char *s)
{
    g_string_append_c(out, '"');
    for (const char *p = s; *p != '\0';) {
        gunichar c = cfg_next_char(&p);
        if (c == '"' || c == '\\')
            g_string_append_printf(out, "\\%c", (char)c);
        else if (c == '\n')
            g_string_append(out, "\\n");
        else if (c == '\t')
            g_string_append(out, "\\t");
        else if (c == '\r')
            g_string_append(out, "\\r");
        else if (c & 0x80000000u)
            g_string_append_printf(out, "\\x%02X", c & 0xFFu);  /* not valid UTF-8: lossy */
        else if (cfg_char_raw_ok(c))
            g_string_append_unichar(out, c);
        else if (c <= 0xFF)
            g_string_append_printf(out, "\\x%02X", c);
        else if (c <= 0xFFFF)
            g_string_append_printf(out, "\\u%04X", c);
        else
            g_string_append_printf(out, "\\U%08X", c);
    }
    g_string_append_c(out, '"');
}

char *cfg_set_literal(const char *key, const char *value)
{
    bool plain = value[0] != '\0' && value[0] != '-';
    for (const char *p = value; plain && *p; p++)
        plain = g_ascii_isalnum(*p) || strchr("./_+-", *p) != NULL;
    GString *o = g_string_new(key);
    g_string_append_c(o, '=');
    if (plain)
        g_string_append(o, value);
    else
        cfg_emit_quoted(o, value);
    return g_string_free(o, FALSE);
}

static void cfg_emit_scalar(GString *out, const CfgNode *n)
{
    if (!n->quoted && cfg_plain_ok(n->scalar))
        g_string_append(out, n->scalar);
    else
        cfg_emit_quoted(out, n->scalar);
}

/* Writes what follows "key:" or "-": " value\n" for scalars and empty containers, or a newline
 * and the children at indent+2. */
static void cfg_emit_after_indicator(const CfgNode *v, GString *out, int indent, bool in_seq)
{
    if (v->kind == CFG_SCALAR) {
        if (!v->quoted && v->scalar[0] == '\0') {
            g_string_append_c(out, '\n');
            return;
        }
        g_string_append_c(out, ' ');
        cfg_emit_scalar(out, v);
        g_string_append_c(out, '\n');
        return;
    }
    if (v->items->len == 0) {
        g_string_append(out, v->kind == CFG_MAP ? " {}\n" : " []\n");
        return;
    }
    if (in_seq) {
        /* "- a: 1\n  b: 2": render the child at indent+2, then put "- " over its first indent. */
        GString *child = g_string_new(NULL);
        cfg_node_emit_yaml(v, child, indent + 2);
        g_string_append_c(out, ' ');
        g_string_append(out, child->str + indent + 2);
        g_string_free(child, TRUE);
        return;
    }
    g_string_append_c(out, '\n');
    cfg_node_emit_yaml(v, out, indent + 2);
}

void cfg_node_emit_yaml(const CfgNode *node, GString *out, int indent)
{
    g_return_if_fail(node != NULL && out != NULL);
    indent = MAX(indent, 0);
    switch (node->kind) {
    case CFG_SCALAR:
        g_string_append_printf(out, "%*s", indent, "");
        cfg_emit_scalar(out, node);
        g_string_append_c(out, '\n');
        break;
    case CFG_MAP:
        if (node->keys->len == 0) {
            g_string_append_printf(out, "%*s{}\n", indent, "");
            break;
        }
        for (guint i = 0; i < node->keys->len; i++) {
            const CfgNode *k = g_ptr_array_index(node->keys, i);
            GString *key = g_string_new(NULL);
            if (!k->quoted && k->scalar[0] == '\0')
                g_string_append(key, "\"\"");  /* an empty plain key reads back as "" too */
            else
                cfg_emit_scalar(key, k);
            if (key->len > CFG_MAX_SIMPLE_KEY)
                g_string_append_printf(out, "%*s? %s\n%*s:", indent, "", key->str, indent, "");
            else
                g_string_append_printf(out, "%*s%s:", indent, "", key->str);
            g_string_free(key, TRUE);
            cfg_emit_after_indicator(g_ptr_array_index(node->items, i), out, indent, false);
        }
        break;
    case CFG_SEQ:
        if (node->items->len == 0) {
            g_string_append_printf(out, "%*s[]\n", indent, "");
            break;
        }
        for (guint i = 0; i < node->items->len; i++) {
            g_string_append_printf(out, "%*s-", indent, "");
            cfg_emit_after_indicator(g_ptr_array_index(node->items, i), out, indent, true);
        }
        break;
    }
}
