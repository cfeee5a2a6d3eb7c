#!/bin/sh
# make-traces.sh BUILD: `make traces`. Builds every kernel of workloads/ with tools/archsim-cc
# (gcc, -O2 -g -pthread) into BUILD/workloads/, records each into traces/samples/<trace>/
# (replacing what is there), and writes traces/samples/README.md with one line per trace.
# After each recording, `archsim trace gaps` gives every record an estimated compute gap from the
# binary's objdump (docs/references.md §6; needs ./archsim or $B/archsim, and objdump).
# Fails if a kernel reports a wrong result or the samples exceed $ARCHSIM_SAMPLES_MAX_KIB
# (default 20 MiB together). ARCHSIM_CC=clang records with clang instead.
#
# Recording runs under `setarch -R` when the host allows it (no address randomisation), so that
# re-recording changes addresses less; thread interleavings, and so spin and lock records, still
# differ from run to run.
set -eu

B=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
max_kib=${ARCHSIM_SAMPLES_MAX_KIB:-20480}
out=traces/samples
bin="$B/workloads"
CFLAGS_WL="-O2 -g -pthread"
mkdir -p "$bin"

# ---- build: binary source [extra flags] ----
BUILDS="fs_packed false_sharing/fs.c -DFS_PADDED=0
fs_padded false_sharing/fs.c -DFS_PADDED=1
spinlock spinlock/spinlock.c
mutex_counter mutex_counter/mutex_counter.c
histogram histogram/histogram.c
saxpy saxpy/saxpy.c
matmul_mt matmul_mt/matmul_mt.c
spmv spmv/spmv.c
rbgs rbgs/rbgs.c
kmeans kmeans/kmeans.c
list_hoh list_hoh/list_hoh.c
htm_counter htm_counter/htm_counter.c"

echo "$BUILDS" | while read -r name src extra; do
    # shellcheck disable=SC2086
    ARCHSIM_BUILD="$root/$B" tools/archsim-cc $CFLAGS_WL -Iworkloads/common ${extra:-} \
        "workloads/$src" -o "$bin/$name" -lm
    if ldd "$bin/$name" | grep -q tsan; then
        echo "make-traces: $bin/$name links libtsan" >&2
        exit 1
    fi
done

# ---- record: trace binary args... (4 worker threads unless the trace name says otherwise) ----
RUNS="fs_packed fs_packed 4 100000
fs_packed-1t fs_packed 1 100000
fs_packed-2t fs_packed 2 100000
fs_packed-8t fs_packed 8 100000
fs_packed-16t fs_packed 16 100000
fs_padded fs_padded 4 100000
fs_padded-1t fs_padded 1 100000
fs_padded-2t fs_padded 2 100000
fs_padded-8t fs_padded 8 100000
fs_padded-16t fs_padded 16 100000
spin_tas spinlock tas 4 20000
spin_ttas spinlock ttas 4 20000
spin_ticket spinlock ticket 4 20000
mutex_counter mutex_counter 4 20000
histogram histogram 4 25000 1024
saxpy saxpy 4 32768 4
matmul_mt matmul_mt 4 64
spmv spmv 4 4096 8 2
rbgs rbgs 4 64 20
kmeans kmeans 4 4096 4 8
list_hoh list_hoh 4 1000 128
htm_counter htm_counter 4 1500 16"

if [ -x ./archsim ] && ./archsim trace record --help > /dev/null 2>&1; then
    record="./archsim trace record"
else
    record="$B/tracer/atrace-record"
fi
gaps=""
for a in "$B/archsim" ./archsim; do
    if [ -x "$a" ] && "$a" trace gaps --help > /dev/null 2>&1; then gaps="$a trace gaps"; break; fi
done
if [ -z "$gaps" ]; then
    echo "make-traces: no archsim with 'trace gaps' in $B/ or ./ (run make first)" >&2
    exit 1
fi
norand=""
if setarch "$(uname -m)" -R true > /dev/null 2>&1; then
    norand="setarch $(uname -m) -R"
fi

table=$(mktemp)
trap 'rm -f "$table"' EXIT
echo "$RUNS" | while read -r trace prog args; do
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    if ! $record -o "$out/$trace" --force --verify --quiet -- $norand "$bin/$prog" $args \
        > "$B/workloads/$trace.log" 2>&1; then
        echo "make-traces: recording $trace failed:" >&2
        cat "$B/workloads/$trace.log" >&2
        exit 1
    fi
    t1=$(date +%s.%N)
    grep -q '^OK ' "$B/workloads/$trace.log" || { cat "$B/workloads/$trace.log" >&2; exit 1; }
    if ! $gaps "$out/$trace" --binary "$bin/$prog" --quiet; then
        echo "make-traces: estimating the gaps of $trace failed" >&2
        exit 1
    fi
    m="$out/$trace/manifest.yaml"
    threads=$(sed -n 's/^thread_count: //p' "$m")
    records=$(sed -n 's/^records: //p' "$m")
    bytes=$(sed -n 's/^bytes: //p' "$m")
    compiler=$(sed -n 's/^compiler: "\(.*\)"$/\1/p' "$m")
    cflags=$(sed -n 's/^cflags: "\(.*\)"$/\1/p' "$m")
    secs=$(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }')
    # shellcheck disable=SC2016
    printf '| `%s/` | `%s %s` | %s | `%s` | %s | %s | %s | %s |\n' "$trace" "$prog" "$args" \
        "$compiler" "$cflags" "$threads" "$records" "$bytes" "$secs" >> "$table"
    echo "make-traces: $trace: $threads threads, $records records, $bytes bytes, ${secs} s"
done
# the 4-thread points of the false-sharing sweep under the sweep's names
ln -sfn fs_packed "$out/fs_packed-4t"
ln -sfn fs_padded "$out/fs_padded-4t"

total_kib=$(du -sk --exclude=matmul64.lackey.gz "$out" | cut -f1)
cat > "$out/README.md" <<EOF
# traces/samples/

Sample traces of the kernels in \`workloads/\`, in archsim's per-thread format
(\`traces/FORMAT.md\`, API \`traces/atrace.h\`): one directory per run holding \`T<tid>.trace\`
per thread (0 = main, then \`pthread_create\` order) and \`manifest.yaml\` (threads, parents,
records per kind, argv, compiler, flags, date).

Written by \`make traces\` (\`tools/tracer/make-traces.sh\`): each kernel is built with
\`tools/archsim-cc $CFLAGS_WL\` (ThreadSanitizer instrumentation as a hook source, archsim's
recording runtime, no libtsan; \`tools/tracer/README.md\`) and recorded with
\`archsim trace record -o traces/samples/<trace> --force --verify -- <program> <args>\`
${norand:+under \`setarch -R\` (no address randomisation)}. Front end \`tsan-gcc\`. Every record carries an
**estimated** compute gap (header flag has-gaps, not gaps-exact; manifest \`gaps: estimated\`),
added after recording by \`archsim trace gaps <trace> --binary <program>\` from the binary's
objdump (docs/tracing.md "Gaps", docs/references.md §6): good for mean compute between
accesses per block, not for the exact per-record distribution. Spin, CAS-failure and lock
records depend on the recording host's interleaving (here $(nproc) CPUs): see docs/references.md §8 before replaying them.

"threads" counts the main thread. \`fs_packed-4t\` and \`fs_padded-4t\` are links to the 4-thread
runs. Total size $total_kib KiB (limit $max_kib KiB).

| trace | program and arguments (threads first) | compiler | flags | threads | records | bytes | recording s |
|---|---|---|---|---|---|---|---|
$(cat "$table")

Also here: \`matmul64.lackey.gz\`, a valgrind lackey trace of \`workloads/matmul\` (its README).
EOF
echo "make-traces: wrote $out/README.md; samples total $total_kib KiB"
if [ "$total_kib" -gt "$max_kib" ]; then
    echo "make-traces: samples take $total_kib KiB, more than $max_kib KiB" >&2
    exit 1
fi
