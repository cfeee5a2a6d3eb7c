/* zsource.h: a file read as a stream of bytes, plain, gzip (RFC 1952, member after member) or
 * xz (the .xz container, stream after stream, liblzma), chosen by the file's first bytes, not
 * its name. Memory stays constant in the file's length: what is read is decompressed into the
 * caller's buffer. Errors name the file and say what is wrong: corrupt or truncated stream,
 * bytes after the last one, a failed read. For trace readers that parse text line by line.
 */
#ifndef ARCHSIM_ZSOURCE_H
#define ARCHSIM_ZSOURCE_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

typedef struct ZSource ZSource;

typedef enum { ZSOURCE_PLAIN, ZSOURCE_GZIP, ZSOURCE_XZ } ZSourceKind;

/* Opens path (sim_open_regular: a missing file is ARCHSIM_EXIT_NOINPUT in domain). */
ZSource *zsource_open(const char *path, GQuark domain, GError **error);
/* Up to n bytes into dst; 0 at the end; -1 with error set (ARCHSIM_EXIT_DATAERR for a broken
 * stream, ARCHSIM_EXIT_IOERR for a failed read). After an error every call returns -1 again. */
ptrdiff_t zsource_read(ZSource *z, char *dst, size_t n, GError **error);
ZSourceKind zsource_kind(const ZSource *z);
/* Compressed bytes consumed so far and the file's size, for progress. */
uint64_t zsource_consumed(const ZSource *z);
uint64_t zsource_file_size(const ZSource *z);
void zsource_close(ZSource *z);

#endif
