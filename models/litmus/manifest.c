/* manifest.c: `archsim litmus --manifest`: a CSV of expected verdicts, one row per test
 * (test,file,condition,SC,TSO,PSO,WEAK; values allowed or forbidden), the format of the
 * project's tests/litmus/ manifests and of herd7's verdicts as docs/litmus.md describes them.
 * Fields are split as RFC 4180 says (quotes, doubled quotes; no newline inside a field). Every
 * problem is a LITMUS_ERROR: "file:line:col: problem", code ARCHSIM_EXIT_DATAERR (65); a file
 * that cannot be opened or read is ARCHSIM_EXIT_NOINPUT (66).
 */
#include "litmus.h"

#include <stdarg.h>
#include <string.h>

#include "../../sim/error.h"
#include "../../sim/input.h"

/* herd7's whole x86 catalogue is a few thousand rows of under 200 bytes */
#define LIT_MAX_MANIFEST ((uint64_t)16 << 20)

void litmus_manifest_free(LitManifest *m)
{
    if (m == NULL)
        return;
    for (guint k = 0; m->rows && k < m->rows->len; k++) {
        LitRow *r = &g_array_index(m->rows, LitRow, k);
        g_free(r->test);
        g_free(r->file);
        g_free(r->cond);
    }
    if (m->rows)
        g_array_free(m->rows, TRUE);
    g_free(m->path);
    g_free(m);
}

/* Splits one CSV line (RFC 4180 quoting, no newlines inside fields) into fields and their
 * columns; false with *bad_col on an unterminated quote. */
static bool csv_split(const char *line, GPtrArray *fields, GArray *cols, int *bad_col)
{
    const char *p = line;
    for (;;) {
        int col = (int)(p - line) + 1;
        GString *f = g_string_new(NULL);
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0') {
                    g_string_free(f, TRUE);
                    *bad_col = col;
                    return false;
                }
                if (*p == '"' && p[1] == '"') {
                    g_string_append_c(f, '"');
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    g_string_append_c(f, *p++);
                }
            }
            while (*p && *p != ',')
                g_string_append_c(f, *p++);
        } else {
            while (*p && *p != ',')
                g_string_append_c(f, *p++);
        }
        g_ptr_array_add(fields, g_strstrip(g_string_free(f, FALSE)));
        g_array_append_val(cols, col);
        if (*p != ',')
            return true;
        p++;
    }
}

static bool manifest_fail(GError **error, const char *path, int line, int col, const char *fmt,
                          ...) G_GNUC_PRINTF(5, 6);
static bool manifest_fail(GError **error, const char *path, int line, int col, const char *fmt,
                          ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, LITMUS_ERROR, ARCHSIM_EXIT_DATAERR, "%s:%d:%d: %s", path, line, col, msg);
    g_free(msg);
    return false;
}

LitManifest *litmus_manifest_load(const char *path, const MemModel *model, GError **error)
{
    /* a regular file (no FIFO, device or directory) of at most LIT_MAX_MANIFEST bytes */
    GString *buf = g_string_new(NULL);
    if (!sim_read_regular(path, LIT_MAX_MANIFEST, LITMUS_ERROR, ARCHSIM_EXIT_DATAERR, buf,
                          error)) {
        g_string_free(buf, TRUE);
        return NULL;
    }
    gsize len = buf->len;
    char *text = g_string_free(buf, FALSE);
    LitManifest *m = g_new0(LitManifest, 1);
    m->path = g_strdup(path);
    m->rows = g_array_new(FALSE, TRUE, sizeof(LitRow));
    bool ok = true;
    if (memchr(text, '\0', len) != NULL) {
        ok = manifest_fail(error, path, 1, 1, "NUL byte: not a CSV text file");
        goto out;
    }
    char **lines = g_strsplit(text, "\n", -1);
    int c_test = -1, c_file = -1, c_cond = -1, c_model = -1, nhead = 0;
    bool have_header = false;
    for (int ln = 0; ok && lines[ln]; ln++) {
        char *l = lines[ln];
        size_t ll = strlen(l);
        if (ll > 0 && l[ll - 1] == '\r')
            l[ll - 1] = '\0';
        char *probe = g_strstrip(g_strdup(l));
        bool blank = *probe == '\0';
        g_free(probe);
        if (blank)
            continue;
        GPtrArray *f = g_ptr_array_new_with_free_func(g_free);
        GArray *cols = g_array_new(FALSE, FALSE, sizeof(int));
        int bad_col = 0;
        if (!csv_split(l, f, cols, &bad_col)) {
            ok = manifest_fail(error, path, ln + 1, bad_col, "unterminated quoted field");
        } else if (!have_header) {
            have_header = true;
            nhead = (int)f->len;
            for (int k = 0; k < (int)f->len; k++) {
                const char *h = f->pdata[k];
                if (g_ascii_strcasecmp(h, "test") == 0)
                    c_test = k;
                else if (g_ascii_strcasecmp(h, "file") == 0)
                    c_file = k;
                else if (g_ascii_strcasecmp(h, "condition") == 0)
                    c_cond = k;
                else if (g_ascii_strcasecmp(h, model->name) == 0)
                    c_model = k;
            }
            if (c_test < 0 || c_file < 0)
                ok = manifest_fail(error, path, ln + 1, 1, "the header needs the columns test "
                                   "and file (expected test,file,condition,SC,TSO,PSO,WEAK)");
            else if (c_model < 0)
                ok = manifest_fail(error, path, ln + 1, 1, "no column for the model '%s' in the "
                                   "header (expected test,file,condition,SC,TSO,PSO,WEAK)",
                                   model->name);
        } else if ((int)f->len != nhead) {
            ok = manifest_fail(error, path, ln + 1, 1, "%u fields; the header has %d", f->len,
                               nhead);
        } else {
            const char *v = f->pdata[c_model];
            int vcol = g_array_index(cols, int, c_model);
            LitRow r = { .line = ln + 1 };
            if (g_ascii_strcasecmp(v, "allowed") == 0)
                r.allowed = true;
            else if (g_ascii_strcasecmp(v, "forbidden") == 0)
                r.allowed = false;
            else
                ok = manifest_fail(error, path, ln + 1, vcol, "'%s': expected allowed or "
                                   "forbidden in the %s column", v, model->name);
            if (ok && *(const char *)f->pdata[c_test] == '\0' &&
                *(const char *)f->pdata[c_file] == '\0')
                ok = manifest_fail(error, path, ln + 1, 1, "the row names neither a test nor a "
                                   "file");
            if (ok) {
                r.test = g_strdup(f->pdata[c_test]);
                r.file = g_strdup(f->pdata[c_file]);
                r.cond = c_cond >= 0 ? g_strdup(f->pdata[c_cond]) : g_strdup("");
                g_array_append_val(m->rows, r);
            }
        }
        g_array_free(cols, TRUE);
        g_ptr_array_unref(f);
    }
    g_strfreev(lines);
    if (ok && !have_header)
        ok = manifest_fail(error, path, 1, 1, "empty manifest; expected the header "
                           "test,file,condition,SC,TSO,PSO,WEAK");
out:
    g_free(text);
    if (!ok) {
        litmus_manifest_free(m);
        return NULL;
    }
    return m;
}

/* The row for a test: by file name first (the test's basename), else by test name. */
const LitRow *litmus_manifest_find(const LitManifest *m, const LitTest *t)
{
    char *base = g_path_get_basename(t->file);
    const LitRow *hit = NULL;
    for (guint k = 0; k < m->rows->len && hit == NULL; k++) {
        const LitRow *r = &g_array_index(m->rows, LitRow, k);
        char *rb = g_path_get_basename(r->file);
        if (*r->file && strcmp(rb, base) == 0)
            hit = r;
        g_free(rb);
    }
    for (guint k = 0; k < m->rows->len && hit == NULL; k++) {
        const LitRow *r = &g_array_index(m->rows, LitRow, k);
        if (strcmp(r->test, t->name) == 0)
            hit = r;
    }
    g_free(base);
    return hit;
}
