/* gen_synth.c: writes the "synth10M" workload (docs/references.md §2) as lackey text.
 *
 * One xorshift64 step (13, 7, 17; seed 0x9E3779B97F4A7C15) per reference r decides everything:
 *   r % 100 < 25            a write (" S"), else a read (" L")
 *   (r >> 8) % 100 < 60     the next element of a sequential 8-byte stream over a 16 MiB array at
 *                           0x10000000 (wrapping), else
 *   (r >> 20) % 32768       the 8-byte slot in a 256 KiB hot region at 0x20000000.
 * These choices reproduce the note's figures exactly for 10 M references: 2,500,482 writes; a
 * 32 KiB/8-way/64 B LRU write-allocate L1D gets 3,258,347 read and 1,080,589 write misses, and a
 * 1 MiB/16-way L2 behind it 753,834 misses (check: archsim cachegrind FILE).
 *
 * Usage: gen_synth [-n N] [--din] OUTFILE   (N references, default 10,000,000; OUTFILE "-" =
 *        stdout; --din: Dinero IV's extended din text instead of lackey's)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYNTH_SEED UINT64_C(0x9E3779B97F4A7C15)
#define SYNTH_STREAM_BASE UINT64_C(0x10000000)
#define SYNTH_STREAM_ELEMS ((16u << 20) / 8)   /* 16 MiB of 8-byte elements */
#define SYNTH_HOT_BASE UINT64_C(0x20000000)
#define SYNTH_HOT_SLOTS ((256u << 10) / 8)      /* 256 KiB of 8-byte slots */

static uint64_t synth_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x;
}

/* Formats " K hhhhhhhh,8\n" (at least 8 hex digits, as lackey's %08lx) and returns its length;
 * hand-formatted because printf would dominate the run time. With din, Dinero IV's extended
 * "din" line instead: "r|w hhhhhhhh 8\n" (its -informat D). */
static int synth_din;
static size_t synth_format(char *out, char kind, uint64_t addr)
{
    static const char hex[] = "0123456789abcdef";
    char digits[16];
    int n = 0;
    do {
        digits[n++] = hex[addr & 15];
        addr >>= 4;
    } while (addr != 0);
    while (n < 8)
        digits[n++] = '0';
    size_t len = 0;
    if (synth_din) {
        out[len++] = kind == 'S' ? 'w' : 'r';
        out[len++] = ' ';
        while (n > 0)
            out[len++] = digits[--n];
        memcpy(out + len, " 8\n", 3);
        return len + 3;
    }
    out[len++] = ' ';
    out[len++] = kind;
    out[len++] = ' ';
    while (n > 0)
        out[len++] = digits[--n];
    memcpy(out + len, ",8\n", 3);
    return len + 3;
}

static int synth_usage(const char *problem)
{
    if (problem != NULL)
        fprintf(stderr, "gen_synth: %s\n", problem);
    fprintf(stderr, "usage: gen_synth [-n N] [--din] OUTFILE   (N references, default 10000000; "
                    "OUTFILE - for stdout)\n");
    return 64;   /* EX_USAGE */
}

int main(int argc, char **argv)
{
    uint64_t n = 10000000;
    const char *out_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: gen_synth [-n N] [--din] OUTFILE\n"
                   "Writes the synth10M workload (docs/references.md section 2) as lackey\n"
                   "text: N (default 10000000) 8-byte references, 60%% a sequential stream over\n"
                   "16 MiB at 0x10000000, 40%% uniform in 256 KiB at 0x20000000, 25%% writes.\n"
                   "--din: the same references in Dinero IV's extended din text (-informat D).\n");
            return 0;
        }
        if (strcmp(argv[i], "--din") == 0) {
            synth_din = 1;
        } else if (strcmp(argv[i], "-n") == 0) {
            if (i + 1 >= argc)
                return synth_usage("-n needs a number");
            char *end = NULL;
            errno = 0;
            unsigned long long v = strtoull(argv[++i], &end, 10);
            if (errno != 0 || end == argv[i] || *end != '\0' || argv[i][0] == '-')
                return synth_usage("-n: expected a non-negative decimal number");
            n = v;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return synth_usage("unknown option");
        } else if (out_path == NULL) {
            out_path = argv[i];
        } else {
            return synth_usage("only one OUTFILE");
        }
    }
    if (out_path == NULL)
        return synth_usage("missing OUTFILE");

    FILE *f = strcmp(out_path, "-") == 0 ? stdout : fopen(out_path, "w");
    if (f == NULL) {
        fprintf(stderr, "gen_synth: %s: cannot create: %s\n", out_path, strerror(errno));
        return 73;   /* EX_CANTCREAT */
    }
    static char buf[1 << 16];
    size_t used = 0;
    uint64_t state = SYNTH_SEED, seq = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = synth_next(&state);
        uint64_t addr;
        if ((r >> 8) % 100 < 60)
            addr = SYNTH_STREAM_BASE + (seq++ % SYNTH_STREAM_ELEMS) * 8;
        else
            addr = SYNTH_HOT_BASE + ((r >> 20) % SYNTH_HOT_SLOTS) * 8;
        used += synth_format(buf + used, r % 100 < 25 ? 'S' : 'L', addr);
        if (used > sizeof buf - 64) {
            if (fwrite(buf, 1, used, f) != used)
                break;
            used = 0;
        }
    }
    if (used > 0)
        fwrite(buf, 1, used, f);
    int failed = ferror(f);
    failed |= (f == stdout ? fflush(f) : fclose(f)) != 0;
    if (failed) {
        fprintf(stderr, "gen_synth: %s: write failed: %s\n", out_path, strerror(errno));
        return 74;   /* EX_IOERR */
    }
    return 0;
}
