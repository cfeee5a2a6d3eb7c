/* lackey.h: reader for valgrind lackey's --trace-mem=yes text output, plain or gzip.
 *
 * Accepts exactly what `valgrind --tool=lackey --trace-mem=yes --log-file=F` writes:
 * "I  addr,size", " L addr,size", " S addr,size", " M addr,size" (addr in hex without 0x), and
 * valgrind's own "==pid== ..." lines (skipped; so are its "--pid--" and "**pid**" message lines),
 * and blank lines. Anything else is an error with the exact position: "FILE:LINE:COL: problem"
 * (ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR), a reference whose last byte addr + size - 1 would
 * wrap past 2^64 included (FILE:LINE:4); a missing file is ARCHSIM_EXIT_NOINPUT; a truncated or
 * corrupt gzip stream, and bytes after its last member, are errors ("FILE:LINE: problem"), not
 * an EOF. Concatenated gzip members read as one trace, as gzip(1) reads them.
 * The reader is built for speed (>= 50 M lines/s from memory): a large buffer and a hand-written
 * hex parser, no per-record allocation.
 */
#ifndef ARCHSIM_LACKEY_H
#define ARCHSIM_LACKEY_H

#include <glib.h>
#include <stddef.h>

#include "memref.h"

typedef struct LackeyReader LackeyReader;

LackeyReader *lackey_open(const char *path, GError **error);

/* Like lackey_open with a read buffer of buffer_size bytes (lackey_open uses 256 KiB). A line
 * longer than the buffer is an error, so this is for tests and fuzzing, where a tiny buffer
 * exercises every refill boundary. */
LackeyReader *lackey_open_buffered(const char *path, size_t buffer_size, GError **error);

/* Reads up to n references into buf. Returns the number read (0 at end of trace); on error
 * returns 0 and sets *error. An error found after some references of a call were decoded is
 * held back: that call returns those references and the next call returns 0 with the error,
 * so a caller sees every good reference before the bad line. Errors are sticky: later calls
 * return 0 and the same error again. */
size_t lackey_read(LackeyReader *r, MemRef *buf, size_t n, GError **error);

/* Fraction of the file read so far, in [0, 1] (for progress bars). */
double lackey_progress(const LackeyReader *r);

/* Line number of the last line consumed (for messages). */
uint64_t lackey_line(const LackeyReader *r);

void lackey_close(LackeyReader *r);

#endif
