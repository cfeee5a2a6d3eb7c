/* atrace_gaps.c: `archsim trace gaps`: estimated compute gaps for TSan-front-end traces
 * (atrace_gaps.h; method: docs/references.md §6; docs/tracing.md "Gaps").
 *
 * 1. `objdump -d --no-show-raw-insn BINARY` is parsed into instructions (address, mnemonic
 *    without prefixes, operands without the trailing comment).
 * 2. Basic blocks: a block starts at a function's first instruction, at a direct jump target and
 *    after a block end; it ends after a jump, ret, or a call that is not a hook call (hook calls:
 *    __tsan_*, __wrap_* (the -Wl,--wrap'ed pthread/mem functions) and archsim_* (markers)).
 * 3. Per block, instructions are counted except nops/endbr64, moves from or to (%rsp) (spills
 *    and reloads), the argument-setup moves of each hook call (mov*, lea, xor reg,reg into
 *    %rdi/%rsi/%rdx/%rcx/%r8/%r9, any width, since the previous hook call of the block, whose
 *    register no later instruction before the call names), and calls of the plain-access hooks
 *    (__tsan_read*, __tsan_write*, __tsan_unaligned_*, __tsan_volatile_*: the instrumented
 *    access instruction is still in the code and counted). Other hook calls stand for the
 *    atomic instruction or library call of the native program and count 1.
 * 4. A site is a hook call's return address (what the runtime records: __builtin_return_address
 *    (0) in every hook and wrapper); w = counted instructions after the previous hook call of the
 *    block (or from the block start) through the call, t = counted instructions after the call
 *    through the block's end.
 * 5. Each record gets gap = w(site) if the previous record's site is an earlier call of the same
 *    block, else t(previous site) + w(site) (w alone for a thread's first record); 1 for the
 *    second and third records of one call (memcpy's RANGE_R/RANGE_W, cond_wait's
 *    LOCK_REL/COND_WAIT/LOCK_ACQ) and for sites that are no hook call; never below 1.
 */
#include "atrace_gaps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "../sim/cli/cli.h"
#include "../sim/error.h"
#include "../sim/outfile.h"
#include "atrace.h"

#define AG_BATCH 4096

typedef struct {
    uint64_t addr;
    char mnem[24];
    char *ops;              /* points into the objdump text (NUL-terminated, trimmed) */
    bool func_start;
} AgInsn;

typedef struct {
    uint64_t block;         /* address of the block's first instruction */
    uint64_t call;          /* address of the hook call */
    uint32_t w, t;
} AgSite;

/* ---- objdump parsing ----------------------------------------------------------------------- */

static bool ag_is_prefix(const char *w)
{
    static const char *const p[] = { "lock", "rep", "repz", "repnz", "repe", "repne", "notrack",
                                     "bnd", "data16", "addr32", "cs", "ds", "es", "fs", "gs",
                                     "ss", "rex", "rex.W", "xacquire", "xrelease", NULL };
    for (int i = 0; p[i] != NULL; i++)
        if (!strcmp(w, p[i]))
            return true;
    return false;
}

/* Parses objdump's text (edited in place) into instructions. */
static GArray *ag_parse(char *text)
{
    GArray *v = g_array_new(FALSE, FALSE, sizeof(AgInsn));
    bool next_starts = false;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        if (line[0] != ' ') {
            /* "0000000000002a10 <fs_worker>:" or "Disassembly of section .text:" */
            if (g_ascii_isxdigit(line[0]) && strstr(line, ">:") != NULL)
                next_starts = true;
            continue;
        }
        char *p = line;
        while (*p == ' ')
            p++;
        char *end = NULL;
        guint64 addr = g_ascii_strtoull(p, &end, 16);
        if (end == p || *end != ':' || end[1] != '\t')
            continue;
        p = end + 2;
        char *hash = strchr(p, '#');
        if (hash != NULL)
            *hash = '\0';
        g_strstrip(p);
        /* skip prefixes, then the mnemonic */
        char *word = p;
        for (;;) {
            size_t n = strcspn(word, " \t");
            char c = word[n];
            word[n] = '\0';
            bool prefix = ag_is_prefix(word) && c != '\0';
            word[n] = c;
            if (!prefix)
                break;
            word += n;
            while (*word == ' ' || *word == '\t')
                word++;
        }
        if (*word == '\0')
            continue;
        AgInsn in = { .addr = addr, .func_start = next_starts };
        size_t n = strcspn(word, " \t");
        g_strlcpy(in.mnem, word, MIN(n + 1, sizeof in.mnem));
        in.ops = word + n;
        while (*in.ops == ' ' || *in.ops == '\t')
            in.ops++;
        next_starts = false;
        g_array_append_val(v, in);
    }
    return v;
}

static bool ag_is_jump(const AgInsn *in)
{
    return in->mnem[0] == 'j' || g_str_has_prefix(in->mnem, "loop");
}

static bool ag_is_call(const AgInsn *in)
{
    return g_str_has_prefix(in->mnem, "call");
}

/* The name in "3ea0 <__tsan_read8>" (a copy), or NULL. */
static char *ag_target_name(const AgInsn *in)
{
    const char *lt = strchr(in->ops, '<');
    const char *gt = lt != NULL ? strchr(lt, '>') : NULL;
    if (gt == NULL)
        return NULL;
    char *name = g_strndup(lt + 1, (gsize)(gt - lt - 1));
    char *cut = strpbrk(name, "+@");
    if (cut != NULL)
        *cut = '\0';
    return name;
}

/* 0 not a hook call, 1 a hook call that stands for an instruction, 2 a plain-access hook. */
static int ag_hook(const AgInsn *in)
{
    if (!ag_is_call(in))
        return 0;
    char *name = ag_target_name(in);
    int kind = 0;
    if (name != NULL && (g_str_has_prefix(name, "__tsan_") || g_str_has_prefix(name, "__wrap_") ||
                         g_str_has_prefix(name, "archsim_"))) {
        kind = 1;
        if (g_str_has_prefix(name, "__tsan_read") || g_str_has_prefix(name, "__tsan_write") ||
            g_str_has_prefix(name, "__tsan_unaligned_") ||
            g_str_has_prefix(name, "__tsan_volatile_") ||
            g_str_has_prefix(name, "__tsan_func_"))
            kind = 2;
    }
    g_free(name);
    return kind;
}

static bool ag_ends_block(const AgInsn *in)
{
    return ag_is_jump(in) || g_str_has_prefix(in->mnem, "ret") ||
           g_str_has_prefix(in->mnem, "iret") || !strcmp(in->mnem, "ud2") ||
           !strcmp(in->mnem, "hlt") || (ag_is_call(in) && ag_hook(in) == 0);
}

static bool ag_is_nop(const AgInsn *in)
{
    return g_str_has_prefix(in->mnem, "nop") || !strcmp(in->mnem, "endbr64") ||
           (!strcmp(in->mnem, "xchg") && !strcmp(in->ops, "%ax,%ax"));
}

static bool ag_is_spill(const AgInsn *in)
{
    return g_str_has_prefix(in->mnem, "mov") && strstr(in->ops, "(%rsp)") != NULL;
}

/* The argument registers, every width. */
static const char *const ag_arg_regs[6][5] = {
    { "%rdi", "%edi", "%di", "%dil", NULL }, { "%rsi", "%esi", "%si", "%sil", NULL },
    { "%rdx", "%edx", "%dx", "%dl", "%dh" }, { "%rcx", "%ecx", "%cx", "%cl", "%ch" },
    { "%r8", NULL, NULL, NULL, NULL },       { "%r9", NULL, NULL, NULL, NULL },
};

/* The argument register (0-5) that mov*, lea or xor reg,reg writes, or -1. */
static int ag_arg_setup(const AgInsn *in)
{
    if (!strcmp(in->mnem, "xor")) {
        const char *comma = strchr(in->ops, ',');
        if (comma == NULL || (size_t)(comma - in->ops) != strlen(comma + 1) ||
            strncmp(in->ops, comma + 1, (size_t)(comma - in->ops)) != 0)
            return -1;
    } else if (!g_str_has_prefix(in->mnem, "mov") && !g_str_has_prefix(in->mnem, "lea")) {
        return -1;
    }
    const char *dst = strrchr(in->ops, ',');
    if (dst == NULL || dst[1] != '%')
        return -1;
    dst++;
    for (int r = 0; r < 6; r++)
        for (int k = 0; k < 5 && ag_arg_regs[r][k] != NULL; k++)
            if (g_str_has_prefix(dst, ag_arg_regs[r][k]) &&
                !g_ascii_isalnum(dst[strlen(ag_arg_regs[r][k])]))
                return r;
    return -1;
}

/* Whether the operands name argument register r (any width; %r8 covers %r8d, %r8w, %r8b). */
static bool ag_mentions(const AgInsn *in, int r)
{
    for (int k = 0; k < 5 && ag_arg_regs[r][k] != NULL; k++)
        if (strstr(in->ops, ag_arg_regs[r][k]) != NULL)
            return true;
    return false;
}

/* Direct jump target, or 0. */
static uint64_t ag_jump_target(const AgInsn *in)
{
    if (in->ops[0] == '*' || !g_ascii_isxdigit(in->ops[0]))
        return 0;
    char *end = NULL;
    guint64 t = g_ascii_strtoull(in->ops, &end, 16);
    return end != in->ops ? t : 0;
}

/* Sites (return address -> AgSite) of the parsed instructions. */
static GHashTable *ag_sites(GArray *insns)
{
    GHashTable *targets = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    AgInsn *v = (AgInsn *)(void *)insns->data;
    guint n = insns->len;
    for (guint i = 0; i < n; i++)
        if (ag_is_jump(&v[i])) {
            uint64_t t = ag_jump_target(&v[i]);
            if (t != 0)
                g_hash_table_add(targets, g_memdup2(&t, sizeof t));
        }
    GHashTable *sites = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    uint8_t *counted = g_new(uint8_t, n > 0 ? n : 1);
    guint s = 0;
    while (s < n) {
        guint e = s;   /* the block is [s, e] */
        while (e + 1 < n && !ag_ends_block(&v[e]) && !v[e + 1].func_start &&
               !g_hash_table_contains(targets, &v[e + 1].addr))
            e++;
        guint seg = s;
        for (guint i = s; i <= e; i++) {
            int hook = ag_hook(&v[i]);
            counted[i] = !(ag_is_nop(&v[i]) || ag_is_spill(&v[i]) || hook == 2);
            if (hook == 0)
                continue;
            /* argument setup: a move into an argument register since the previous hook call
             * that nothing reads before this call */
            for (guint j = seg; j < i; j++) {
                int r = ag_arg_setup(&v[j]);
                bool read = false;
                for (guint k = j + 1; r >= 0 && k < i && !read; k++)
                    read = ag_mentions(&v[k], r);
                if (r >= 0 && !read)
                    counted[j] = 0;
            }
            seg = i + 1;
        }
        uint32_t w = 0;
        for (guint i = s; i <= e; i++) {
            w += counted[i];
            if (ag_hook(&v[i]) == 0 || i + 1 >= n)
                continue;
            uint32_t t = 0;
            for (guint j = i + 1; j <= e; j++)
                t += counted[j];
            AgSite *site = g_new(AgSite, 1);
            *site = (AgSite){ .block = v[s].addr, .call = v[i].addr, .w = w, .t = t };
            g_hash_table_replace(sites, g_memdup2(&v[i + 1].addr, sizeof(uint64_t)), site);
            w = 0;
        }
        s = e + 1;
    }
    g_free(counted);
    g_hash_table_destroy(targets);
    return sites;
}

static GHashTable *ag_load_sites(const char *binary, GError **error)
{
    if (!g_file_test(binary, G_FILE_TEST_IS_REGULAR)) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT,
                    "%s: no such program (--binary: the instrumented executable that was "
                    "recorded)", binary);
        return NULL;
    }
    char *objdump = g_find_program_in_path("objdump");
    if (objdump == NULL) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_SOFTWARE,
                    "objdump not found in PATH (it is in binutils: apt-get install binutils)");
        return NULL;
    }
    char *argv[] = { objdump, "-d", "--no-show-raw-insn", (char *)binary, NULL };
    char *out = NULL, *err = NULL;
    int status = 0;
    GError *e = NULL;
    bool ok = g_spawn_sync(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                           &e);
    g_free(objdump);
    if (!ok) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_SOFTWARE, "cannot run objdump: %s",
                    e->message);
        g_error_free(e);
        return NULL;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                    "objdump -d %s failed: %s", binary, err != NULL ? g_strstrip(err) : "");
        g_free(out);
        g_free(err);
        return NULL;
    }
    g_free(err);
    GArray *insns = ag_parse(out);
    GHashTable *sites = ag_sites(insns);
    g_array_free(insns, TRUE);
    g_free(out);
    if (g_hash_table_size(sites) == 0) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                    "%s: no calls to __tsan_* hooks: not built with tools/archsim-cc?", binary);
        g_hash_table_destroy(sites);
        return NULL;
    }
    return sites;
}

/* ---- traces ------------------------------------------------------------------------------- */

static gint ag_cmp_tid(gconstpointer a, gconstpointer b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

/* The tids of DIR/T<tid>.trace, sorted. */
static GArray *ag_list(const char *dir, GError **error)
{
    GDir *d = g_dir_open(dir, 0, error);
    if (d == NULL) {
        if (error != NULL && *error != NULL)
            (*error)->code = ARCHSIM_EXIT_NOINPUT;
        return NULL;
    }
    GArray *tids = g_array_new(FALSE, FALSE, sizeof(unsigned));
    const char *name;
    while ((name = g_dir_read_name(d)) != NULL) {
        unsigned tid;
        int used = 0;
        if (name[0] == 'T' && g_ascii_isdigit(name[1]) &&
            sscanf(name, "T%u.trace%n", &tid, &used) == 1 && name[used] == '\0')
            g_array_append_val(tids, tid);
    }
    g_dir_close(d);
    g_array_sort(tids, ag_cmp_tid);
    if (tids->len == 0) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT,
                    "%s: no T<tid>.trace files", dir);
        g_array_free(tids, TRUE);
        return NULL;
    }
    return tids;
}

/* Second or third record of one hook call (same site). */
static bool ag_same_call(const AtRecord *prev, const AtRecord *r)
{
    return prev->pc == r->pc &&
           ((prev->kind == AT_RANGE_R && r->kind == AT_RANGE_W) ||
            (prev->kind == AT_LOCK_REL && r->kind == AT_COND_WAIT) ||
            (prev->kind == AT_COND_WAIT && r->kind == AT_LOCK_ACQ));
}

/* Writes path's records with their gaps into a new temporary file beside it, *tmp_out (the
 * caller renames it into place once every thread's file is written, or removes it). */
static bool ag_rewrite(const char *path, GHashTable *sites, AtGapsSummary *sum, char **tmp_out,
                       GError **error)
{
    *tmp_out = NULL;
    AtReader *r = at_reader_open(path, error);
    if (r == NULL)
        return false;
    AtHeader h = *at_reader_header(r);
    h.flags = (h.flags | AT_H_HAS_GAPS) & ~(uint32_t)AT_H_GAPS_EXACT;
    /* a new temporary file beside the trace (never one that a link or another file holds) */
    char *tmp = NULL;
    int tfd = outfile_create_temp(path, &tmp, error);
    if (tfd < 0) {
        at_reader_close(r);
        return false;
    }
    close(tfd);
    AtWriter *w = at_writer_open(tmp, &h, 1);
    if (w == NULL) {
        g_unlink(tmp);
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_CANTCREAT, "%s: cannot create: %s",
                    tmp, g_strerror(errno));
        at_reader_close(r);
        g_free(tmp);
        return false;
    }
    AtRecord *buf = g_new(AtRecord, AG_BATCH);
    AtRecord prev = { 0 };
    const AgSite *prev_site = NULL;
    bool have_prev = false, ok = true;
    size_t got;
    GError *err = NULL;
    while (ok && (got = at_reader_read(r, buf, AG_BATCH, &err)) > 0) {
        for (size_t i = 0; i < got; i++) {
            AtRecord *x = &buf[i];
            uint64_t key = x->pc - h.load_base;
            const AgSite *s = g_hash_table_lookup(sites, &key);
            uint64_t gap;
            if (s == NULL) {
                gap = 1;
                sum->unknown++;
            } else if (have_prev && ag_same_call(&prev, x)) {
                gap = 1;
            } else if (prev_site != NULL && prev_site->block == s->block &&
                       prev_site->call < s->call) {
                gap = s->w;
            } else {
                gap = (uint64_t)(prev_site != NULL ? prev_site->t : 0) + s->w;
            }
            x->gap = gap > 0 ? gap : 1;
            x->flags |= AT_F_GAP;
            sum->records++;
            sum->gap_sum += x->gap;
            prev = *x;
            prev_site = s;
            have_prev = true;
            if (at_writer_put(w, x) != 0) {
                g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_IOERR,
                            "%s: cannot write record %" PRIu64 ": %s", tmp,
                            at_reader_index(r) - got + i, g_strerror(errno));
                ok = false;
                break;
            }
        }
    }
    g_free(buf);
    at_reader_close(r);
    if (ok && err != NULL) {
        g_propagate_error(error, err);
        ok = false;
    } else if (err != NULL) {
        g_error_free(err);
    }
    if (at_writer_close(w) != 0 && ok) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_IOERR, "%s: cannot write: %s", tmp,
                    g_strerror(errno));
        ok = false;
    }
    if (!ok) {
        g_unlink(tmp);
        g_free(tmp);
        return false;
    }
    *tmp_out = tmp;
    return true;
}

/* The bytes of thread tid's new file (its temporary, tids[i] -> tmps[i]). */
static uint64_t ag_size(const GArray *tids, const GPtrArray *tmps, unsigned tid)
{
    for (guint i = 0; i < tids->len; i++) {
        if (g_array_index(tids, unsigned, i) != tid)
            continue;
        GStatBuf sb;
        const char *p = g_ptr_array_index(tmps, i);
        return p != NULL && g_stat(p, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    }
    return 0;
}

/* manifest.yaml with the gaps: line and the bytes: lines (per thread, total) of the new files,
 * written into a temporary beside it (*tmp_out; NULL when there is no manifest), renamed into
 * place with the traces. */
static bool ag_manifest(const char *dir, const char *binary, const GArray *tids,
                        const GPtrArray *tmps, char **tmp_out, GError **error)
{
    *tmp_out = NULL;
    char *path = g_build_filename(dir, "manifest.yaml", NULL);
    char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL)) {
        g_free(path);
        return true;                   /* no manifest: nothing to update */
    }
    char **lines = g_strsplit(text, "\n", -1);
    g_free(text);
    GString *out = g_string_new(NULL);
    char *base = g_path_get_basename(binary);
    long tid = -1;
    uint64_t total = 0;
    for (int i = 0; lines[i] != NULL; i++) {
        const char *l = lines[i];
        unsigned t;
        if (sscanf(l, "  - tid: %u", &t) == 1)
            tid = (long)t;
        if (g_str_has_prefix(l, "gaps:")) {
            g_string_append_printf(out, "gaps: estimated     # by `archsim trace gaps` from "
                                   "objdump of %s (header flag has-gaps, not gaps-exact)",
                                   base);
        } else if (g_str_has_prefix(l, "    bytes: ") && tid >= 0) {
            uint64_t n = ag_size(tids, tmps, (unsigned)tid);
            total += n;
            g_string_append_printf(out, "    bytes: %" PRIu64, n);
        } else if (g_str_has_prefix(l, "bytes: ")) {
            g_string_append_printf(out, "bytes: %" PRIu64, total);
        } else {
            g_string_append(out, l);
        }
        if (lines[i + 1] != NULL)
            g_string_append_c(out, '\n');
    }
    g_free(base);
    g_strfreev(lines);
    char *tmp = NULL;
    int fd = outfile_create_temp(path, &tmp, error);
    bool ok = fd >= 0;
    if (ok) {
        ok = write(fd, out->str, out->len) == (ssize_t)out->len;
        ok = close(fd) == 0 && ok;
        if (!ok) {
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_IOERR, "%s: cannot write: %s",
                        tmp, g_strerror(errno));
            g_unlink(tmp);
            g_free(tmp);
            tmp = NULL;
        }
    }
    *tmp_out = tmp;
    g_string_free(out, TRUE);
    g_free(path);
    return ok;
}

bool atrace_gaps_run(const char *dir, const char *binary, bool force, AtGapsSummary *out,
                     GError **error)
{
    memset(out, 0, sizeof *out);
    GArray *tids = ag_list(dir, error);
    if (tids == NULL)
        return false;
    bool ok = true;
    /* refuse before touching anything */
    for (guint i = 0; ok && i < tids->len; i++) {
        char name[32];
        g_snprintf(name, sizeof name, "T%u.trace", g_array_index(tids, unsigned, i));
        char *p = g_build_filename(dir, name, NULL);
        AtReader *r = at_reader_open(p, error);
        if (r == NULL) {
            ok = false;
        } else {
            uint32_t flags = at_reader_header(r)->flags;
            if (flags & AT_H_PC_EXACT) {
                g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                            "%s: site PCs are instruction addresses (not a TSan-front-end "
                            "trace): its gaps come from its front end", p);
                ok = false;
            } else if ((flags & AT_H_HAS_GAPS) && !force) {
                g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                            "%s: already has %s gaps (header flag has-gaps); --force replaces "
                            "them", p, (flags & AT_H_GAPS_EXACT) ? "exact" : "estimated");
                ok = false;
            }
            at_reader_close(r);
        }
        g_free(p);
    }
    GHashTable *sites = ok ? ag_load_sites(binary, error) : NULL;
    ok = ok && sites != NULL;
    if (ok)
        out->sites = g_hash_table_size(sites);
    /* every thread's new file first, beside its trace; only when all are written (and the
     * binary is the recorded one) are they renamed into place, so a failure leaves the
     * recording as it was */
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *tmps = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; ok && i < tids->len; i++) {
        char name[32];
        g_snprintf(name, sizeof name, "T%u.trace", g_array_index(tids, unsigned, i));
        char *p = g_build_filename(dir, name, NULL), *tmp = NULL;
        ok = ag_rewrite(p, sites, out, &tmp, error);
        g_ptr_array_add(paths, p);
        g_ptr_array_add(tmps, tmp);
        if (ok)
            out->threads++;
    }
    if (ok && out->records > 0 && out->unknown == out->records) {
        /* not one record at a hook call of this binary: not the program that was recorded */
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                    "%s: none of its %" PRIu64 " records is at a hook call of %s: not the "
                    "program that was recorded (the manifest's argv names it)", dir,
                    out->records, binary);
        ok = false;
    }
    /* the manifest's new text too, before anything is renamed */
    char *mtmp = NULL;
    ok = ok && ag_manifest(dir, binary, tids, tmps, &mtmp, error);
    if (mtmp != NULL) {
        g_ptr_array_add(paths, g_build_filename(dir, "manifest.yaml", NULL));
        g_ptr_array_add(tmps, mtmp);
    }
    /* each file's old version kept under a second name (a hard link: no copy) while the new
     * ones are renamed into place, so that a rename failing midway puts back those before it
     * instead of leaving the recording half converted (where links are not supported, the
     * renames go on without that net) */
    GPtrArray *olds = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; ok && i < tmps->len; i++) {
        const char *p = g_ptr_array_index(paths, i);
        char *old = NULL;
        if (g_ptr_array_index(tmps, i) != NULL) {
            old = g_strdup_printf("%s.gaps-old-%d", p, (int)getpid());
            if (link(p, old) != 0)
                g_clear_pointer(&old, g_free);
        }
        g_ptr_array_add(olds, old);
    }
    guint done = 0;
    for (guint i = 0; ok && i < tmps->len; i++, done++) {
        const char *tmp = g_ptr_array_index(tmps, i), *p = g_ptr_array_index(paths, i);
        if (tmp != NULL && g_rename(tmp, p) != 0) {
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_IOERR,
                        "cannot rename %s to %s: %s; the files renamed before it are put back",
                        tmp, p, g_strerror(errno));
            ok = false;
            break;
        }
    }
    for (guint i = 0; i < tmps->len; i++) {
        const char *tmp = g_ptr_array_index(tmps, i), *p = g_ptr_array_index(paths, i);
        const char *old = i < olds->len ? g_ptr_array_index(olds, i) : NULL;
        if (!ok && i < done && old != NULL)
            g_rename(old, p);                   /* back as it was */
        else if (old != NULL)
            g_unlink(old);
        if (!ok && tmp != NULL && i >= done)
            g_unlink(tmp);
    }
    g_ptr_array_free(olds, TRUE);
    g_ptr_array_free(paths, TRUE);
    g_ptr_array_free(tmps, TRUE);
    if (sites != NULL)
        g_hash_table_destroy(sites);
    g_array_free(tids, TRUE);
    return ok;
}

/* ---- command line ------------------------------------------------------------------------- */

static int ag_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "archsim trace gaps: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'archsim trace gaps --help'.\n");
    return ARCHSIM_EXIT_USAGE;
}

int atrace_gaps_main(int argc, char **argv)
{
    gboolean help = FALSE, force = FALSE, quiet = FALSE;
    char *binary = NULL;
    char **ops = NULL;
    GOptionEntry entries[] = {
        { "binary", 0, 0, G_OPTION_ARG_FILENAME, &binary,
          "The instrumented program that was recorded", "PROGRAM" },
        { "force", 0, 0, G_OPTION_ARG_NONE, &force, "Replace gaps the traces already have",
          NULL },
        { "quiet", 0, 0, G_OPTION_ARG_NONE, &quiet, "Print nothing on success", NULL },
        { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "Show this help and exit", NULL },
        { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &ops, NULL, NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GOptionContext *ctx = g_option_context_new(NULL);
    g_option_context_set_help_enabled(ctx, FALSE);
    g_option_context_add_main_entries(ctx, entries, NULL);
    char **v = g_new0(char *, (size_t)argc + 2);
    v[0] = g_strdup("gaps");
    for (int i = 1; i < argc; i++)
        v[i] = g_strdup(argv[i]);
    GError *err = NULL;
    int rc = ARCHSIM_EXIT_OK;
    bool parsed = g_option_context_parse_strv(ctx, &v, &err);
    g_option_context_free(ctx);
    g_strfreev(v);
    if (!parsed) {
        rc = ag_usage("%s", err->message);
        g_error_free(err);
        goto out;
    }
    if (help) {
        static const CliHelp ag_help = {
            .cmd = "trace gaps",
            .usage = "archsim trace gaps DIR --binary PROGRAM [--force] [--quiet]",
            .summary = "Estimate the compute gaps of a recording from its program's objdump.",
            .details =
                "Gives every record of DIR/T<tid>.trace (recorded with tools/archsim-cc) an\n"
                "estimated gap: instructions since the previous record, counted statically in\n"
                "`objdump -d PROGRAM` per basic block (docs/references.md section 6,\n"
                "docs/tracing.md \"Gaps\"). Rewrites the\n"
                "traces in place with header flag has-gaps and without gaps-exact, and\n"
                "manifest.yaml's gaps: line. Traces that already have gaps are refused (exit 65)\n"
                "unless --force. Needs objdump (binutils).\n"
                "\n"
                "Exit status: 0 success, 64 bad command line, 65 malformed traces or gaps already\n"
                "there, 66 DIR or PROGRAM missing, 73 or 74 a trace could not be rewritten; see\n"
                "archsim --help.\n",
        };
        cli_help_print(stdout, &ag_help, entries);
        rc = fflush(stdout) == 0 ? ARCHSIM_EXIT_OK : ARCHSIM_EXIT_IOERR;
        goto out;
    }
    if (!cli_check_empty("trace gaps", entries)) {
        rc = ARCHSIM_EXIT_USAGE;
        goto out;
    }
    if (ops == NULL || ops[0] == NULL) {
        rc = ag_usage("%s", "missing DIR");
        goto out;
    }
    if (ops[1] != NULL) {
        rc = ag_usage("unexpected argument '%s' (one DIR only)", ops[1]);
        goto out;
    }
    if (binary == NULL) {
        rc = ag_usage("%s", "missing --binary PROGRAM");
        goto out;
    }
    AtGapsSummary s;
    if (!atrace_gaps_run(ops[0], binary, force, &s, &err)) {
        rc = archsim_exit_code(err);
        fprintf(stderr, "archsim trace gaps: %s\n", err->message);
        g_error_free(err);
        goto out;
    }
    if (!quiet) {
        printf("archsim trace gaps: %s: %u threads, %" PRIu64 " records, mean estimated gap "
               "%.2f instructions, %u hook sites in %s", ops[0], s.threads, s.records,
               s.records ? (double)s.gap_sum / (double)s.records : 0.0, s.sites, binary);
        if (s.unknown)
            printf(", %" PRIu64 " records at PCs that are no hook call (gap 1)", s.unknown);
        printf("\n");
        rc = fflush(stdout) == 0 ? ARCHSIM_EXIT_OK : ARCHSIM_EXIT_IOERR;
    }
out:
    g_free(binary);
    g_strfreev(ops);
    return rc;
}
