#!/bin/sh
# make-trace.sh: rebuild mm.c, run cachegrind once per geometry and lackey once, and refresh
#   traces/samples/matmul64.lackey.gz   (gzip -9 of the lackey log)
#   workloads/matmul/cachegrind.summary (cachegrind's "summary:" line for every geometry)
# Both runs send stdout to a regular file: glibc takes another path when stdout is a tty or
# /dev/null, which changes the trace (docs/references.md section 1). Both run under `env -i` with a
# fixed environment: the loader walks the environment and the stack holds it, so a different
# environment changes the instruction count and stack addresses. Needs gcc, gzip and valgrind
# 3.19; other valgrind, gcc or glibc versions give other (still mutually consistent) numbers.
set -eu

vg() { env -i PATH=/usr/bin:/bin LC_ALL=C valgrind "$@"; }

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# A fixed-length directory under /tmp, not $TMPDIR: valgrind puts the client's full path on its
# stack, so the directory name's length shifts stack addresses and changes the counts.
work=$(mktemp -d /tmp/archsim-mm.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM

# I1 D1 LL per run; each line size must be >= 32 on an AVX host (cachegrind refuses less).
GEOMS="32768,8,64:32768,8,64:1048576,16,64
16384,4,64:8192,2,64:262144,8,64
4096,2,64:4096,1,64:65536,4,64
1024,16,64:2048,32,64:131072,2,64
32768,8,128:32768,8,128:1048576,16,128
16384,4,32:4096,2,32:65536,4,64
32768,8,32:32768,8,32:1048576,16,32
8192,2,32:8192,4,32:262144,8,32"

cd "$work"
gcc -O2 -g -o mm "$here/mm.c"

summary="$work/cachegrind.summary"
{
    echo "# cachegrind.summary: cachegrind's counts for workloads/matmul/mm.c (64x64 doubles),"
    echo "# checked against archsim by tests/unit/test_cgsim.c on traces/samples/matmul64.lackey.gz."
    echo "# Written by workloads/matmul/make-trace.sh; do not edit by hand."
    echo "# valgrind: $(valgrind --version)"
    echo "# compiler: $(gcc --version | head -n 1)  (gcc -O2 -g -o mm mm.c)"
    echo "# env:      env -i PATH=/usr/bin:/bin LC_ALL=C (both runs)"
    echo "# trace:    valgrind --tool=lackey --trace-mem=yes --log-file=lackey.txt ./mm > out.txt"
    echo "# counts:   valgrind --tool=cachegrind --cache-sim=yes --I1=.. --D1=.. --LL=.. \\"
    echo "#             --cachegrind-out-file=cg.out ./mm > out.txt; tail -n 1 cg.out"
    echo "# One line per geometry: the three options, then cachegrind's summary line:"
    echo "# --I1=S,A,L --D1=S,A,L --LL=S,A,L summary: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw"
} > "$summary"

for g in $GEOMS; do
    i1=${g%%:*}; rest=${g#*:}; d1=${rest%%:*}; ll=${rest#*:}
    vg --tool=cachegrind --cache-sim=yes --I1="$i1" --D1="$d1" --LL="$ll" \
        --cachegrind-out-file=cg.out ./mm > out.txt 2> cg.log
    line=$(tail -n 1 cg.out)
    case "$line" in
    "summary: "*) ;;
    *) echo "make-trace.sh: unexpected last line in cg.out: $line" >&2; exit 1 ;;
    esac
    echo "--I1=$i1 --D1=$d1 --LL=$ll $line" >> "$summary"
done

vg --tool=lackey --trace-mem=yes --log-file=lackey.txt ./mm > out.txt
gzip -9 -n -c lackey.txt > matmul64.lackey.gz

mkdir -p "$root/traces/samples"
cp matmul64.lackey.gz "$root/traces/samples/matmul64.lackey.gz"
cp "$summary" "$here/cachegrind.summary"
echo "make-trace.sh: wrote traces/samples/matmul64.lackey.gz ($(wc -l < lackey.txt) lines)" \
     "and workloads/matmul/cachegrind.summary" >&2
