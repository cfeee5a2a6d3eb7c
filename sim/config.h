/* config.h: YAML configuration trees with source positions, include:, --set, and typed params.
 *
 * A config file is read with libyaml into a CfgNode tree that remembers file:line:col of every
 * node, so that every later error (unknown key, bad unit, out of range) names the exact place.
 * `include: [a.yaml, b.yaml]` (or a single string) at the top level of a file is resolved
 * relative to that file, deep-merged in order, then the including file is merged on top (later
 * wins; maps merge key by key, scalars and sequences replace). --set a.b.c=value applies after
 * includes. Typed parameters are declared in ParamSpec tables (param.h).
 */
#ifndef ARCHSIM_CONFIG_H
#define ARCHSIM_CONFIG_H

#include <stdarg.h>

#include <glib.h>
#include <stdbool.h>

typedef enum { CFG_MAP, CFG_SEQ, CFG_SCALAR } CfgKind;

typedef struct CfgNode CfgNode;
struct CfgNode {
    CfgKind kind;
    const char *file;   /* interned (g_intern_string); "--set" for command-line values */
    int line, col;      /* 1-based position of the node's start */
    char *scalar;       /* CFG_SCALAR: the text (never NULL for scalars) */
    bool quoted;        /* CFG_SCALAR: was written quoted ('..' or "..") or as a block scalar
                           (| or >): any non-plain style, so never subject to implicit typing */
    GPtrArray *keys;    /* CFG_MAP: CfgNode* scalar keys, in file order */
    GPtrArray *items;   /* CFG_MAP: values (parallel to keys); CFG_SEQ: items */
    const char *set_text; /* file == "--set": the whole assignment "a.b.c=value" (interned), so
                             that cfg_node_where() can say "--set a.b.c=value"; else NULL */
};

/* Loads a YAML file (one document) and resolves its include: chain. An empty file is an empty
 * map. Errors: ARCHSIM_CONFIG_ERROR with ARCHSIM_EXIT_NOINPUT for a missing/unreadable file
 * ("PATH: cannot open: No such file or directory"), ARCHSIM_EXIT_CONFIG for YAML syntax errors
 * ("file:line:col: problem (context)"), anchors/aliases/tags that are not supported, a top level
 * that is not a map, duplicate keys, include cycles. The returned root never contains include:.
 * The list of files read (in order, include chain first) is appended to files_read if not NULL.
 * files_read gets newly allocated strings (create it with g_ptr_array_new_with_free_func(g_free));
 * each file is listed once, after the files it includes. A missing included file is
 * ARCHSIM_EXIT_NOINPUT too, prefixed with the position of its include: entry. include: inside a
 * nested map is an ordinary key (left for the ParamSpec check), not an include. A top-level
 * `part:` key of an included file is dropped (it marks that file as an include-only part). */
CfgNode *cfg_load_file(const char *path, GPtrArray *files_read, GError **error);

/* Parses YAML from memory; name is used as the file name in positions. No include: processing
 * unless base_dir is not NULL (then relative includes resolve against it). */
CfgNode *cfg_load_string(const char *name, const char *text, const char *base_dir,
                         GError **error);

/* Applies one "a.b.c=value" assignment: the value is parsed as a YAML scalar, or a flow
 * sequence/map if it starts with [ or {. Intermediate maps are created as needed; whether the
 * key is legal is decided later by the ParamSpec check, which then reports the position as
 * "--set a.b.c=value" (node->file == "--set", line 0, col = column in the assignment). Errors
 * (ARCHSIM_EXIT_USAGE): no '=', empty path component, path through a scalar. A key that is set
 * replaces its old value whole (maps are not merged); a path through an empty (null) value turns
 * it into a map. Values not starting with [ { ' or " are taken literally (trimmed), so
 * --set name=a:b#c is the string "a:b#c". See config.c for the exact message forms. */
bool cfg_apply_set(CfgNode *root, const char *assignment, GError **error);

/* Deep merge: src merged into dst (src wins). src is consumed (freed or moved). */
void cfg_merge(CfgNode *dst, CfgNode *src);

CfgNode *cfg_map_get(const CfgNode *map, const char *key);      /* NULL if absent or not map */
CfgNode *cfg_node_new_map(const char *file, int line, int col);
CfgNode *cfg_node_new_scalar(const char *text, const char *file, int line, int col);
void cfg_map_set(CfgNode *map, const char *key, CfgNode *value); /* replaces an existing key */
bool cfg_map_remove(CfgNode *map, const char *key);
CfgNode *cfg_node_copy(const CfgNode *node);
void cfg_node_free(CfgNode *node);

/* "file:line:col" (or "--set" form) of a node, for error messages; newly allocated. */
char *cfg_node_where(const CfgNode *node);
/* Sets *error to "WHERE: message" in domain/code, WHERE being cfg_node_where(node). */
void cfg_set_error_va(GError **error, GQuark domain, int code, const CfgNode *node,
                      const char *fmt, va_list ap) G_GNUC_PRINTF(5, 0);

/* Writes a node as YAML (block style, keys in order) into out at the given indent. */
void cfg_node_emit_yaml(const CfgNode *node, GString *out, int indent);

/* Appends s as one YAML double-quoted scalar that reads back as exactly s: quotes, backslashes,
 * line breaks, tabs and every character YAML may not hold raw are escaped (\n, \xNN, \uNNNN). */
void cfg_emit_quoted(GString *out, const char *s);
/* "KEY=VALUE" for cfg_apply_set with VALUE a literal string (a file name from the command
 * line): plain when it is letters, digits and . / _ + - alone (not starting with -), else a
 * double-quoted YAML scalar, so that `[a].yaml` or `x #y.yaml` reads back as itself. */
char *cfg_set_literal(const char *key, const char *value);

#endif
