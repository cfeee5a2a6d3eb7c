/* tmpdir.h: a flat scratch directory for a unit-test suite: made in the suite's init, emptied and
 * removed in its clean-up (test_atrace.c, test_lackey.c, test_tpuin.c). */
#ifndef ARCHSIM_TEST_TMPDIR_H
#define ARCHSIM_TEST_TMPDIR_H

#include <glib.h>
#include <glib/gstdio.h>

/* A new directory named after `pattern` ("test_x.XXXXXX"), or NULL. */
static inline char *tmpdir_new(const char *pattern)
{
    return g_dir_make_tmp(pattern, NULL);
}

/* Removes the files in *dir, then dir itself, and frees the name. */
static inline void tmpdir_remove(char **dir)
{
    GDir *d = g_dir_open(*dir, 0, NULL);
    const char *name;
    while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
        char *p = g_build_filename(*dir, name, NULL);
        g_unlink(p);
        g_free(p);
    }
    if (d != NULL)
        g_dir_close(d);
    g_rmdir(*dir);
    g_free(*dir);
    *dir = NULL;
}

#endif
