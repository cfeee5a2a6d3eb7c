/* test_lackey.c: CUnit tests for the lackey trace reader (traces/lackey.c).
 *
 * Good lines, valgrind's own lines, every malformed case with its exact "FILE:LINE:COL: problem",
 * gzip input (good, truncated, corrupt), missing files, refill boundaries (tiny buffers), and a
 * replay of the fuzzing corpus kept in tests/fuzz/lackey/. Run from the repo root.
 */
#include <CUnit/Basic.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../../sim/error.h"
#include "../../traces/lackey.h"
#include "tmpdir.h"

#define FUZZ_DIR "tests/fuzz/lackey"
#define SAMPLE "traces/samples/matmul64.lackey.gz"
#define SUMMARY "workloads/matmul/cachegrind.summary"

static char *tl_dir;    /* scratch directory for this run */

/* Everything one reader produced. */
typedef struct {
    GArray *refs;       /* MemRef */
    GError *error;
    uint64_t line;      /* lackey_line at the end */
    bool opened;
} TlResult;

static char *tl_path(const char *name)
{
    return g_build_filename(tl_dir, name, NULL);
}

/* Writes len bytes to a new scratch file and returns its path. */
static char *tl_write(const char *name, const void *data, size_t len)
{
    char *path = tl_path(name);
    GError *err = NULL;
    if (!g_file_set_contents(path, data, (gssize)len, &err))
        g_error("cannot write %s: %s", path, err->message);
    return path;
}

static char *tl_write_str(const char *name, const char *text)
{
    return tl_write(name, text, strlen(text));
}

/* Writes text gzip-compressed (level 9) and returns the path. */
static char *tl_write_gz(const char *name, const char *text, size_t len)
{
    char *path = tl_path(name);
    gzFile gz = gzopen(path, "wb9");
    g_assert(gz != NULL);
    g_assert(gzwrite(gz, text, (unsigned)len) == (int)len);
    g_assert(gzclose(gz) == Z_OK);
    return path;
}

/* Reads a whole trace with the given buffer size (0: lackey_open) and batch size. */
static TlResult tl_read(const char *path, size_t buffer_size, size_t batch)
{
    TlResult res = { g_array_new(FALSE, FALSE, sizeof(MemRef)), NULL, 0, false };
    LackeyReader *r = buffer_size ? lackey_open_buffered(path, buffer_size, &res.error)
                                  : lackey_open(path, &res.error);
    if (r == NULL)
        return res;
    res.opened = true;
    MemRef *buf = g_new(MemRef, batch);
    size_t n;
    while ((n = lackey_read(r, buf, batch, &res.error)) > 0)
        g_array_append_vals(res.refs, buf, (guint)n);
    res.line = lackey_line(r);
    g_free(buf);
    lackey_close(r);
    return res;
}

static void tl_free(TlResult *res)
{
    g_array_free(res->refs, TRUE);
    g_clear_error(&res->error);
}

static MemRef tl_ref(const TlResult *res, guint i)
{
    return g_array_index(res->refs, MemRef, i);
}

/* Asserts the error message is exactly "<path>:<rest>". */
static void tl_assert_message(const GError *e, const char *path, const char *rest)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    char *want = g_strdup_printf("%s:%s", path, rest);
    if (strcmp(e->message, want) != 0)
        fprintf(stderr, "\n  want: %s\n  got:  %s\n", want, e->message);
    CU_ASSERT_STRING_EQUAL(e->message, want);
    g_free(want);
}

static void test_good_lines(void)
{
    char *path = tl_write_str("good.txt",
                              "I  0401ab70,3\n"
                              " L 1fff000708,8\n"
                              " S 7ff0000,16\n"
                              " M 10,4\n"
                              "I  fffffffffffffff1,15\n"   /* ends at 2^64 - 1 */
                              " L 0000000000000000,1\n"
                              " S ABCDEF,32\n");
    TlResult res = tl_read(path, 0, 64);
    CU_ASSERT_PTR_NULL(res.error);
    CU_ASSERT_EQUAL_FATAL(res.refs->len, 7);
    MemRef want[] = {
        { 0x0401ab70, 3, MEMREF_IFETCH }, { 0x1fff000708, 8, MEMREF_LOAD },
        { 0x7ff0000, 16, MEMREF_STORE },  { 0x10, 4, MEMREF_MODIFY },
        { UINT64_MAX - 14, 15, MEMREF_IFETCH }, { 0, 1, MEMREF_LOAD },
        { 0xabcdef, 32, MEMREF_STORE },
    };
    for (guint i = 0; i < 7; i++) {
        MemRef got = tl_ref(&res, i);
        CU_ASSERT_EQUAL(got.addr, want[i].addr);
        CU_ASSERT_EQUAL(got.size, want[i].size);
        CU_ASSERT_EQUAL(got.kind, want[i].kind);
    }
    CU_ASSERT_EQUAL(res.line, 7);
    tl_free(&res);
    g_free(path);
}

/* valgrind's "==PID==" (and "--PID--", "**PID**") lines and blank lines are skipped; a last line
 * without '\n', CRLF endings and trailing blanks are accepted. */
/* The reader's short path for " K XXXXXXXX,D" against its general one: 3,000 random lines of
 * that shape, each byte of the kind, the address, the ',' and the size drawn from the characters
 * around the valid ranges ('/', ':', '@', 'G', '`', 'g', a byte above 0x7f, ...), read once as written and once with
 * a blank before the '\n' (which the short path never takes): the same references, or the same
 * error at the same line; and a line read is the value strtoull gives its digits. */
static void test_short_path_differential(void)
{
    static const char alphabet[] = "0123456789abcdefABCDEF/:@G`g \x80\xff,LSMI";
    GRand *rnd = g_rand_new_with_seed(7);
    int mismatches = 0;
    for (int i = 0; i < 3000; i++) {
        char line[32];
        bool valid_kind = g_rand_int_range(rnd, 0, 8) != 0;
        if (valid_kind) {
            static const char *const kinds[] = { "I  ", " L ", " S ", " M " };
            memcpy(line, kinds[g_rand_int_range(rnd, 0, 4)], 3);
        } else {
            for (int j = 0; j < 3; j++)
                line[j] = alphabet[g_rand_int_range(rnd, 0, (gint32)sizeof alphabet - 1)];
        }
        for (int j = 3; j < 11; j++) {
            bool clean = g_rand_int_range(rnd, 0, 12) != 0;
            line[j] = clean ? "0123456789abcdefABCDEF"[g_rand_int_range(rnd, 0, 22)]
                            : alphabet[g_rand_int_range(rnd, 0, (gint32)sizeof alphabet - 1)];
        }
        line[11] = ',';
        line[12] = (char)('1' + g_rand_int_range(rnd, 0, 9));
        line[13] = '\n';
        if (g_rand_int_range(rnd, 0, 10) == 0)          /* the separator and the size too */
            line[11] = alphabet[g_rand_int_range(rnd, 0, (gint32)sizeof alphabet - 1)];
        if (g_rand_int_range(rnd, 0, 10) == 0)
            line[12] = "0:/a \x80"[g_rand_int_range(rnd, 0, 6)];
        char padded[32];
        memcpy(padded, line, 13);
        padded[13] = ' ';
        padded[14] = '\n';
        char *pa = tl_write("short.txt", line, 14);
        char *pb = tl_write("long.txt", padded, 15);
        TlResult a = tl_read(pa, 0, 16), b = tl_read(pb, 0, 16);
        bool same = a.refs->len == b.refs->len && (a.error == NULL) == (b.error == NULL);
        for (guint k = 0; same && k < a.refs->len; k++)
            same = tl_ref(&a, k).addr == tl_ref(&b, k).addr &&
                   tl_ref(&a, k).size == tl_ref(&b, k).size &&
                   tl_ref(&a, k).kind == tl_ref(&b, k).kind;
        if (same && a.refs->len == 1) {
            /* and the address is the eight digits' value */
            char hex[9];
            memcpy(hex, line + 3, 8);
            hex[8] = '\0';
            same = tl_ref(&a, 0).addr == g_ascii_strtoull(hex, NULL, 16);
        }
        if (same && a.error) {
            /* the same message but for the file name */
            const char *ma = strchr(a.error->message, ':'), *mb = strchr(b.error->message, ':');
            same = ma && mb && strcmp(ma, mb) == 0;
        }
        if (!same && mismatches++ < 5)
            fprintf(stderr, "\n  line '%.13s': %s / %s\n", line,
                    a.error ? a.error->message : "ok", b.error ? b.error->message : "ok");
        tl_free(&a);
        tl_free(&b);
        g_free(pa);
        g_free(pb);
    }
    CU_ASSERT_EQUAL(mismatches, 0);
    g_rand_free(rnd);
}

static void test_skipped_lines(void)
{
    char *path = tl_write_str("skip.txt",
                              "==4736== Lackey, an example Valgrind tool\n"
                              "==4736== \n"
                              "\n"
                              "I  10,1\n"
                              "--4736-- WARNING: unhandled syscall\n"
                              "   \t \r\n"
                              "**4736** internal message\n"
                              " L 20,2\r\n"
                              " S 30,3  \n"
                              "==4736== Exit code:       0\n"
                              " M 40,4");
    TlResult res = tl_read(path, 0, 64);
    CU_ASSERT_PTR_NULL(res.error);
    CU_ASSERT_EQUAL_FATAL(res.refs->len, 4);
    CU_ASSERT_EQUAL(tl_ref(&res, 0).addr, 0x10);
    CU_ASSERT_EQUAL(tl_ref(&res, 1).addr, 0x20);
    CU_ASSERT_EQUAL(tl_ref(&res, 2).kind, MEMREF_STORE);
    CU_ASSERT_EQUAL(tl_ref(&res, 3).kind, MEMREF_MODIFY);
    CU_ASSERT_EQUAL(tl_ref(&res, 3).size, 4);
    CU_ASSERT_EQUAL(res.line, 11);
    tl_free(&res);
    g_free(path);

    /* An empty file and a file of valgrind lines only are empty traces, not errors. */
    const char *empties[] = { "", "==1== only\n==1== lines\n", "\n\n" };
    for (size_t i = 0; i < G_N_ELEMENTS(empties); i++) {
        path = tl_write_str("empty.txt", empties[i]);
        res = tl_read(path, 0, 8);
        CU_ASSERT_PTR_NULL(res.error);
        CU_ASSERT_EQUAL(res.refs->len, 0);
        tl_free(&res);
        g_free(path);
    }
}

/* Each malformed line with its exact position and message. */
static void test_malformed(void)
{
    static const struct {
        const char *text;
        const char *message;    /* after "PATH:" */
    } cases[] = {
        { "I  0401ab70,3\n L ,8\n", "2:4: expected hex address" },
        { " L 10,0\n", "1:7: size must be >= 1" },
        { " X 10,8\n", "1:2: unknown record 'X' (expected I, L, S or M)" },
        { "Q 10,8\n", "1:1: unknown record 'Q' (expected I, L, S or M)" },
        { "\x01\n", "1:1: unknown record '\\x01' (expected I, L, S or M)" },
        { "  L 10,8\n", "1:2: unknown record ' ' (expected I, L, S or M)" },
        { " L 10;8\n", "1:6: expected ',' after the address" },
        { " L 10,\n", "1:7: expected decimal size" },
        { " L 10,-8\n", "1:7: expected decimal size" },
        { " L 10,8x\n", "1:8: unexpected 'x' after the size" },
        { " L 10,8 9\n", "1:9: unexpected '9' after the size" },
        { " L 10,4097\n", "1:7: size too large (at most 4096 bytes)" },
        { " L 10,99999999999999999999\n", "1:7: size too large (at most 4096 bytes)" },
        { " L 12345678901234567,8\n", "1:4: address longer than 16 hex digits" },
        { " L 0x10,8\n", "1:5: expected ',' after the address" },
        { " L g,8\n", "1:4: expected hex address" },
        { "I 10,4\n", "1:3: expected two spaces after 'I'" },
        { "I\t 10,4\n", "1:2: expected two spaces after 'I'" },
        { "L 10,4\n", "1:1: 'L' record must start with a space" },
        { " L\t10,4\n", "1:3: expected a space after 'L'" },
        { " I 10,4\n", "1:2: 'I' record must start in column 1" },
        { "==12 x\n", "1:1: malformed valgrind message line (expected ==PID==)" },
        { "==== x\n", "1:1: malformed valgrind message line (expected ==PID==)" },
        { "I  10,1\n\n==1== x\n L 20\n", "4:6: expected ',' after the address" },
        { "I  10,1\nI  10", "2:6: expected ',' after the address" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *path = tl_write_str("bad.txt", cases[i].text);
        /* The same error with a big buffer and with a refill boundary inside the line. */
        size_t sizes[] = { 0, 32 };
        for (size_t j = 0; j < G_N_ELEMENTS(sizes); j++) {
            TlResult res = tl_read(path, sizes[j], 16);
            CU_ASSERT_PTR_NOT_NULL(res.error);
            if (res.error != NULL) {
                CU_ASSERT_EQUAL(res.error->domain, ARCHSIM_TRACE_ERROR);
                CU_ASSERT_EQUAL(res.error->code, ARCHSIM_EXIT_DATAERR);
                tl_assert_message(res.error, path, cases[i].message);
            }
            tl_free(&res);
        }
        g_free(path);
    }
}

/* issue 15 item 9: a reference whose last byte, addr + size - 1, wraps past 2^64 touches no
 * line, so the timing core sent nothing for it (a load deadlocked, a store vanished). The
 * reader refuses it at the address, and accepts the references that end exactly at 2^64 - 1. */
static void issue15_item9_lackey_wrap_past_2_64(void)
{
    static const struct {
        const char *text;
        const char *message;    /* after "PATH:", NULL: accepted */
    } cases[] = {
        { "I  0401ab70,3\n L ffffffffffffffff,8\n",
          "2:4: reference 0xffffffffffffffff,8 wraps past 2^64 (its last byte would lie beyond "
          "0xffffffffffffffff)" },
        { " S fffffffffffffffc,8\n",
          "1:4: reference 0xfffffffffffffffc,8 wraps past 2^64 (its last byte would lie beyond "
          "0xffffffffffffffff)" },
        { " M fffffffffffff001,4096\n",
          "1:4: reference 0xfffffffffffff001,4096 wraps past 2^64 (its last byte would lie "
          "beyond 0xffffffffffffffff)" },
        { "I  ffffffffffffffff,2\n",
          "1:4: reference 0xffffffffffffffff,2 wraps past 2^64 (its last byte would lie beyond "
          "0xffffffffffffffff)" },
        { " L ffffffffffffffff,1\n S fffffffffffffff8,8\n M fffffffffffff000,4096\n", NULL },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *path = tl_write_str("wrap.txt", cases[i].text);
        size_t sizes[] = { 0, 32 };
        for (size_t j = 0; j < G_N_ELEMENTS(sizes); j++) {
            TlResult res = tl_read(path, sizes[j], 16);
            if (cases[i].message == NULL) {
                CU_ASSERT_PTR_NULL(res.error);
                CU_ASSERT_EQUAL(res.refs->len, 3);
            } else {
                CU_ASSERT_PTR_NOT_NULL(res.error);
                if (res.error != NULL) {
                    CU_ASSERT_EQUAL(res.error->code, ARCHSIM_EXIT_DATAERR);
                    tl_assert_message(res.error, path, cases[i].message);
                }
            }
            for (guint k = 0; k < res.refs->len; k++) {
                MemRef m = tl_ref(&res, k);
                CU_ASSERT(m.addr <= UINT64_MAX - (m.size - 1));
            }
            tl_free(&res);
        }
        g_free(path);
    }
}

/* References before a bad line are handed out first; the error comes on the next call with
 * no references, and stays. */
static void test_error_after_good_lines(void)
{
    char *path = tl_write_str("late.txt", "I  10,1\n L 20,8\n S 30,0\n I  40,1\n");
    GError *err = NULL;
    LackeyReader *r = lackey_open(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    MemRef buf[16];
    CU_ASSERT_EQUAL(lackey_read(r, buf, 16, &err), 2);
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_EQUAL(lackey_read(r, buf, 16, &err), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    tl_assert_message(err, path, "3:7: size must be >= 1");
    CU_ASSERT_EQUAL(lackey_line(r), 3);
    g_clear_error(&err);
    CU_ASSERT_EQUAL(lackey_read(r, buf, 16, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(err);
    g_clear_error(&err);
    CU_ASSERT_EQUAL(lackey_read(r, buf, 16, NULL), 0);
    lackey_close(r);
    g_free(path);
}

/* Batches of one, and buffers that put a refill boundary in every line, give the same trace. */
static void test_buffer_boundaries(void)
{
    GString *text = g_string_new("==1== header line that is longer than the tiny buffer of sixty-four bytes.\n");
    for (int i = 0; i < 5000; i++) {
        static const char *fmt[] = { "I  %x,%d\n", " L %x,%d\n", " S %x,%d\n", " M %x,%d\n" };
        if (i % 700 == 0)
            g_string_append(text, "\n");
        g_string_append_printf(text, fmt[i % 4], (unsigned)(i * 2654435761u), 1 + i % 32);
    }
    char *path = tl_write("bound.txt", text->str, text->len);
    TlResult ref = tl_read(path, 0, 4096);
    CU_ASSERT_PTR_NULL(ref.error);
    CU_ASSERT_EQUAL(ref.refs->len, 5000);
    size_t sizes[] = { 64, 128, 4096 };     /* 64 is shorter than the header line */
    size_t batches[] = { 1, 3, 1000 };
    for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
        TlResult res = tl_read(path, sizes[i], batches[i]);
        if (sizes[i] == 64) {   /* the header line does not fit: an error, not a crash */
            CU_ASSERT_EQUAL(res.refs->len, 0);
            CU_ASSERT_PTR_NOT_NULL(res.error);
            if (res.error)
                tl_assert_message(res.error, path, "1:1: line longer than 64 bytes");
        } else {
            CU_ASSERT_PTR_NULL(res.error);
            CU_ASSERT_EQUAL_FATAL(res.refs->len, ref.refs->len);
            CU_ASSERT(memcmp(res.refs->data, ref.refs->data,
                             ref.refs->len * sizeof(MemRef)) == 0);
        }
        tl_free(&res);
    }
    g_free(path);

    /* Without the long header, even a 24-byte buffer reads the whole trace. */
    const char *body = strchr(text->str, '\n') + 1;
    path = tl_write_str("bound2.txt", body);
    TlResult small = tl_read(path, 24, 7);
    CU_ASSERT_PTR_NULL(small.error);
    CU_ASSERT_EQUAL_FATAL(small.refs->len, ref.refs->len);
    CU_ASSERT(memcmp(small.refs->data, ref.refs->data, ref.refs->len * sizeof(MemRef)) == 0);
    tl_free(&small);
    g_free(path);
    tl_free(&ref);
    g_string_free(text, TRUE);
}

static GString *tl_make_trace(int lines)
{
    GString *text = g_string_new(NULL);
    for (int i = 0; i < lines; i++)
        g_string_append_printf(text, i % 3 ? " L %x,8\n" : "I  %x,4\n", (unsigned)i * 64u);
    return text;
}

static void test_gzip(void)
{
    GString *text = tl_make_trace(20000);
    char *plain = tl_write("t.txt", text->str, text->len);
    char *gz = tl_write_gz("t.txt.gz", text->str, text->len);
    TlResult a = tl_read(plain, 0, 512);
    TlResult b = tl_read(gz, 0, 512);
    TlResult c = tl_read(gz, 40, 5);
    CU_ASSERT_PTR_NULL(a.error);
    CU_ASSERT_PTR_NULL(b.error);
    CU_ASSERT_PTR_NULL(c.error);
    CU_ASSERT_EQUAL(a.refs->len, 20000);
    CU_ASSERT_EQUAL_FATAL(b.refs->len, a.refs->len);
    CU_ASSERT_EQUAL_FATAL(c.refs->len, a.refs->len);
    CU_ASSERT(memcmp(a.refs->data, b.refs->data, a.refs->len * sizeof(MemRef)) == 0);
    CU_ASSERT(memcmp(a.refs->data, c.refs->data, a.refs->len * sizeof(MemRef)) == 0);
    tl_free(&a);
    tl_free(&b);
    tl_free(&c);
    g_free(plain);
    g_free(gz);
    g_string_free(text, TRUE);
}

/* A gzip file cut short is an error naming the line where it broke, never a silent EOF, and
 * every complete line before the cut is handed out, whatever the buffer size. */
static void test_gzip_truncated(void)
{
    GString *text = tl_make_trace(20000);
    char *gz = tl_write_gz("cut.txt.gz", text->str, text->len);
    char *data = NULL;
    gsize len = 0;
    g_assert(g_file_get_contents(gz, &data, &len, NULL));
    size_t cuts[] = { len / 2, len - 1, len - 8, 20 };
    for (size_t i = 0; i < G_N_ELEMENTS(cuts); i++) {
        char *cut = tl_write("cut.gz", data, cuts[i]);
        size_t sizes[] = { 0, 64 };
        guint first_len = 0;
        for (size_t j = 0; j < G_N_ELEMENTS(sizes); j++) {
            TlResult res = tl_read(cut, sizes[j], 100);
            CU_ASSERT_PTR_NOT_NULL(res.error);
            if (res.error != NULL) {
                CU_ASSERT_EQUAL(res.error->code, ARCHSIM_EXIT_DATAERR);
                char *rest = g_strdup_printf("%u: truncated gzip stream (unexpected end of file)",
                                             res.refs->len + 1);
                tl_assert_message(res.error, cut, rest);
                g_free(rest);
            }
            for (guint k = 0; k < res.refs->len; k++)
                CU_ASSERT_EQUAL(tl_ref(&res, k).addr, (uint64_t)k * 64);
            if (j == 0)
                first_len = res.refs->len;
            else
                CU_ASSERT_EQUAL(res.refs->len, first_len);
            tl_free(&res);
        }
        g_free(cut);
    }
    g_free(data);
    g_free(gz);
    g_string_free(text, TRUE);
}

/* A damaged CRC is zlib's "incorrect data check": exit code 65, never a clean end. */
static void test_gzip_corrupt(void)
{
    GString *text = tl_make_trace(3000);
    char *gz = tl_write_gz("crc.txt.gz", text->str, text->len);
    char *data = NULL;
    gsize len = 0;
    g_assert(g_file_get_contents(gz, &data, &len, NULL));
    data[len - 8] ^= 0x55;      /* first byte of the CRC-32 in the gzip trailer */
    char *bad = tl_write("crc.gz", data, len);
    TlResult res = tl_read(bad, 0, 100);
    CU_ASSERT_PTR_NOT_NULL_FATAL(res.error);
    CU_ASSERT_EQUAL(res.error->code, ARCHSIM_EXIT_DATAERR);
    CU_ASSERT(g_str_has_prefix(res.error->message, bad));
    if (!strstr(res.error->message, ": corrupt gzip stream: incorrect data check"))
        fprintf(stderr, "\n  got: %s\n", res.error->message);
    CU_ASSERT_PTR_NOT_NULL(strstr(res.error->message, ": corrupt gzip stream: incorrect data check"));
    tl_free(&res);
    g_free(bad);
    g_free(data);
    g_free(gz);
    g_string_free(text, TRUE);
}

/* issue 15 item 9: bytes after the gzip stream used to be skipped in silence (gzread ignores
 * trailing garbage). They are an error naming the line and the file byte where they start, after
 * every line of the stream was handed out; a second gzip member (gzip -c a b) is part of the
 * trace, as gzip(1) reads it. */
static void issue15_item9_gzip_trailing_garbage(void)
{
    GString *text = tl_make_trace(3000);
    char *gz = tl_write_gz("tg.txt.gz", text->str, text->len);
    char *data = NULL;
    gsize len = 0;
    g_assert(g_file_get_contents(gz, &data, &len, NULL));
    static const struct {
        const char *tail;
        size_t n;
    } tails[] = { { "junk", 4 }, { "\0\0\0\0\0\0\0\0", 8 }, { "\x1f", 1 }, { "\x8b\x1f", 2 } };
    for (size_t i = 0; i < G_N_ELEMENTS(tails); i++) {
        GByteArray *b = g_byte_array_new();
        g_byte_array_append(b, (const guint8 *)data, (guint)len);
        g_byte_array_append(b, (const guint8 *)tails[i].tail, (guint)tails[i].n);
        char *bad = tl_write("tg.gz", b->data, b->len);
        size_t sizes[] = { 0, 64 };
        for (size_t j = 0; j < G_N_ELEMENTS(sizes); j++) {
            TlResult res = tl_read(bad, sizes[j], 100);
            CU_ASSERT_EQUAL(res.refs->len, 3000);
            CU_ASSERT_PTR_NOT_NULL(res.error);
            if (res.error != NULL) {
                CU_ASSERT_EQUAL(res.error->code, ARCHSIM_EXIT_DATAERR);
                char *rest = g_strdup_printf("3001: %zu byte%s of trailing garbage after the gzip "
                                             "stream (file byte %zu)", tails[i].n,
                                             tails[i].n == 1 ? "" : "s", (size_t)len);
                tl_assert_message(res.error, bad, rest);
                g_free(rest);
            }
            tl_free(&res);
        }
        g_byte_array_free(b, TRUE);
        g_free(bad);
    }
    /* two members: one trace of both */
    GByteArray *b = g_byte_array_new();
    g_byte_array_append(b, (const guint8 *)data, (guint)len);
    g_byte_array_append(b, (const guint8 *)data, (guint)len);
    char *two = tl_write("two.gz", b->data, b->len);
    TlResult res = tl_read(two, 64, 100);
    CU_ASSERT_PTR_NULL(res.error);
    CU_ASSERT_EQUAL(res.refs->len, 6000);
    tl_free(&res);
    g_byte_array_free(b, TRUE);
    g_free(two);
    g_free(data);
    g_free(gz);
    g_string_free(text, TRUE);
}

static void test_missing_file(void)
{
    char *path = tl_path("does-not-exist.txt");
    TlResult res = tl_read(path, 0, 8);
    CU_ASSERT_FALSE(res.opened);
    CU_ASSERT_PTR_NOT_NULL_FATAL(res.error);
    CU_ASSERT_EQUAL(res.error->domain, ARCHSIM_TRACE_ERROR);
    CU_ASSERT_EQUAL(res.error->code, ARCHSIM_EXIT_NOINPUT);
    CU_ASSERT_EQUAL(archsim_exit_code(res.error), 66);
    char *want = g_strdup_printf("%s: cannot open: %s", path, g_strerror(ENOENT));
    CU_ASSERT_STRING_EQUAL(res.error->message, want);
    g_free(want);
    tl_free(&res);
    g_free(path);

    res = tl_read(tl_dir, 0, 8);     /* a directory is no trace (sim_open_regular) */
    CU_ASSERT_PTR_NOT_NULL_FATAL(res.error);
    CU_ASSERT_EQUAL(res.error->code, ARCHSIM_EXIT_NOINPUT);
    want = g_strdup_printf("%s: not a regular file (a directory)", tl_dir);
    CU_ASSERT_STRING_EQUAL(res.error->message, want);
    g_free(want);
    tl_free(&res);
}

static void test_line_too_long(void)
{
    char *path = tl_write_str("long.txt", "I  10,1\n L 1234567890abcdef,8\n");
    TlResult res = tl_read(path, 16, 4);
    CU_ASSERT_EQUAL(res.refs->len, 1);
    CU_ASSERT_PTR_NOT_NULL(res.error);
    if (res.error)
        tl_assert_message(res.error, path, "2:1: line longer than 16 bytes");
    tl_free(&res);
    g_free(path);
}

/* The committed matmul sample: counts per record kind must match cachegrind's Ir, Dr (L + M)
 * and Dw (S), taken from the first geometry line of workloads/matmul/cachegrind.summary. */
static void test_sample(void)
{
    char *text = NULL;
    CU_ASSERT_FATAL(g_file_get_contents(SUMMARY, &text, NULL, NULL));
    uint64_t ir = 0, dr = 0, dw = 0;
    char **lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l != NULL; l++) {
        const char *sum = strstr(*l, " summary: ");
        if (**l == '#' || sum == NULL)
            continue;
        unsigned long long v[9];
        CU_ASSERT_EQUAL(sscanf(sum, " summary: %llu %llu %llu %llu %llu %llu %llu %llu %llu",
                               &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]), 9);
        ir = v[0], dr = v[3], dw = v[6];
        break;
    }
    g_strfreev(lines);
    g_free(text);
    CU_ASSERT_FATAL(ir > 0 && dr > 0 && dw > 0);

    TlResult res = tl_read(SAMPLE, 0, 8192);
    CU_ASSERT_PTR_NULL_FATAL(res.error);
    uint64_t n[4] = { 0 };
    for (guint i = 0; i < res.refs->len; i++)
        n[tl_ref(&res, i).kind]++;
    CU_ASSERT_EQUAL(n[MEMREF_IFETCH], ir);
    CU_ASSERT_EQUAL(n[MEMREF_LOAD] + n[MEMREF_MODIFY], dr);
    CU_ASSERT_EQUAL(n[MEMREF_STORE], dw);
    CU_ASSERT(n[MEMREF_MODIFY] > 0);
    CU_ASSERT(res.line > res.refs->len);    /* plus valgrind's own lines */
    tl_free(&res);
}

/* Inputs from fuzzing (tests/fuzz/lackey/): each must read to a clean end or to an
 * error in the trace domain, with the same references for every buffer size, and never crash
 * (run this under ASan/UBSan: make DEBUG=1). */
static void test_fuzz_corpus(void)
{
    GError *err = NULL;
    GDir *dir = g_dir_open(FUZZ_DIR, 0, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    int files = 0;
    const char *name;
    while ((name = g_dir_read_name(dir)) != NULL) {
        if (g_str_has_prefix(name, ".") || g_str_has_suffix(name, ".md"))
            continue;
        char *path = g_build_filename(FUZZ_DIR, name, NULL);
        TlResult big = tl_read(path, 0, 97);
        TlResult small = tl_read(path, 256, 3);
        for (int k = 0; k < 2; k++) {
            const GError *e = k ? small.error : big.error;
            if (e == NULL)
                continue;
            CU_ASSERT_EQUAL(e->domain, ARCHSIM_TRACE_ERROR);
            CU_ASSERT(e->code == ARCHSIM_EXIT_DATAERR || e->code == ARCHSIM_EXIT_NOINPUT);
            CU_ASSERT(g_str_has_prefix(e->message, path));
        }
        bool long_line = small.error && strstr(small.error->message, ": line longer than ");
        bool corrupt = big.error && strstr(big.error->message, ": corrupt gzip stream");
        if (!long_line && !corrupt) {
            CU_ASSERT_EQUAL(small.refs->len, big.refs->len);
            if (small.refs->len == big.refs->len && big.refs->len > 0)
                CU_ASSERT(memcmp(small.refs->data, big.refs->data,
                                 big.refs->len * sizeof(MemRef)) == 0);
        }
        tl_free(&big);
        tl_free(&small);
        g_free(path);
        files++;
    }
    g_dir_close(dir);
    CU_ASSERT(files > 0);
}

/* Bug found by the fuzz harness: a truncated gzip file read through a small buffer stopped at
 * zlib's first "unexpected end of file" flag, while zlib still held decoded lines, so the
 * reported line depended on the buffer size. */
static void test_fuzz_trunc_small_buffer(void)
{
    const char *path = FUZZ_DIR "/trunc-small-buffer.gz";
    TlResult big = tl_read(path, 0, 64);
    TlResult small = tl_read(path, 256, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big.error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(small.error);
    CU_ASSERT(big.refs->len > 0);
    CU_ASSERT_EQUAL(small.refs->len, big.refs->len);
    CU_ASSERT_STRING_EQUAL(small.error->message, big.error->message);
    CU_ASSERT_PTR_NOT_NULL(strstr(big.error->message, "truncated gzip stream"));
    tl_free(&big);
    tl_free(&small);
}

/* Found by libFuzzer: with a 16-byte buffer a short line sat at the buffer's end and the
 * eight-digits-at-once path read one byte past it (seen under ASan: make DEBUG=1 test). The
 * results must equal a big buffer's. */
static void test_fuzz_hex8_past_buffer(void)
{
    const char *path = FUZZ_DIR "/hex8-past-buffer";
    TlResult big = tl_read(path, 0, 64);
    TlResult small = tl_read(path, 16, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big.error);
    CU_ASSERT_PTR_NOT_NULL_FATAL(small.error);
    CU_ASSERT_EQUAL(big.refs->len, 3);
    CU_ASSERT_EQUAL(small.refs->len, big.refs->len);
    CU_ASSERT_STRING_EQUAL(small.error->message, big.error->message);
    tl_free(&big);
    tl_free(&small);
}

static int tl_suite_init(void)
{
    tl_dir = tmpdir_new("test_lackey.XXXXXX");
    return tl_dir == NULL;
}

static int tl_suite_clean(void)
{
    tmpdir_remove(&tl_dir);
    return 0;
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("lackey", tl_suite_init, tl_suite_clean);
    if (s == NULL || !CU_add_test(s, "good lines", test_good_lines) ||
        !CU_add_test(s, "valgrind and blank lines", test_skipped_lines) ||
        !CU_add_test(s, "malformed lines", test_malformed) ||
        !CU_add_test(s, "error after good lines", test_error_after_good_lines) ||
        !CU_add_test(s, "issue15_item9: wrap past 2^64", issue15_item9_lackey_wrap_past_2_64) ||
        !CU_add_test(s, "buffer boundaries", test_buffer_boundaries) ||
        !CU_add_test(s, "gzip", test_gzip) ||
        !CU_add_test(s, "truncated gzip", test_gzip_truncated) ||
        !CU_add_test(s, "corrupt gzip", test_gzip_corrupt) ||
        !CU_add_test(s, "issue15_item9: trailing garbage after gzip",
                     issue15_item9_gzip_trailing_garbage) ||
        !CU_add_test(s, "missing file", test_missing_file) ||
        !CU_add_test(s, "line too long", test_line_too_long) ||
        !CU_add_test(s, "matmul sample", test_sample) ||
        !CU_add_test(s, "fuzz corpus", test_fuzz_corpus) ||
        !CU_add_test(s, "fuzz: truncated gzip, small buffer", test_fuzz_trunc_small_buffer) ||
        !CU_add_test(s, "fuzz: eight digits past the buffer", test_fuzz_hex8_past_buffer) ||
        !CU_add_test(s, "the short path for the common line against the general one",
                     test_short_path_differential)) {
        CU_cleanup_registry();
        return 1;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures();
    unsigned errors = CU_get_error() != CUE_SUCCESS;
    CU_cleanup_registry();
    return failures != 0 || errors != 0;
}
