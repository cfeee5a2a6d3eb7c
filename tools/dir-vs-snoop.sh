#!/bin/sh
# dir-vs-snoop.sh [OUTDIR]: the snooping vs directory experiment (docs/experiments/
# directory-vs-snooping.md). Runs the bus machine (configs/coherence/dirsnoop-bus.yaml) and the
# directory machine (dirsnoop-dir.yaml) with 2, 4, 8, 16, 32 and 64 cores on four synthetic sharing
# patterns, and on the recorded traces (one thread per core, on the smallest of those machines
# that holds every thread), with `archsim sweep`; writes one tidy CSV row per run and draws the
# figure with gnuplot (tools/dir-vs-snoop.gp, SVG and PNG). About a minute on 2 cores.
#   sh tools/dir-vs-snoop.sh          -> docs/experiments/directory-vs-snooping.{csv,svg,png}
#   JOBS=4 sh tools/dir-vs-snoop.sh   -> the same files, 4 runs at a time
#   KEEP=1 sh tools/dir-vs-snoop.sh   -> also keeps every run directory (the path is printed)
set -eu
OUT=${1:-docs/experiments}
JOBS=${JOBS:-2}
A=./archsim
BUS=configs/coherence/dirsnoop-bus.yaml
DIR=configs/coherence/dirsnoop-dir.yaml
CORES=2,4,8,16,32,64
[ -x "$A" ] || { echo "dir-vs-snoop.sh: build archsim first (make)" >&2; exit 66; }
mkdir -p "$OUT"
T=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "dir-vs-snoop.sh: run directories kept in $T" >&2; else trap 'rm -rf "$T"' EXIT; fi
: > "$T/sweeps"

# sweep NAME SOURCE CONFIG MACHINE ARGS...: one archsim sweep into $T/NAME-MACHINE, listed in
# $T/sweeps for the collector. Point i of both machines gets the same seed (base + index: the
# CSV was made with that rule, the sweep default before issue 16, hence --seeds per-point).
sweep() {
    name=$1 source=$2 config=$3 machine=$4
    shift 4
    echo "dir-vs-snoop.sh: $name on the $machine machine" >&2
    "$A" sweep "$config" -j "$JOBS" -q -o "$T/$name-$machine" --seeds per-point "$@" \
        --stats sim.cycles > /dev/null
    echo "$name $source $machine $T/$name-$machine" >> "$T/sweeps"
}

# The synthetic patterns (models/cpu/pattern.c), each core doing the same work at every size:
#   migratory          every core read-modify-writes the same 64 words (8 lines) in turn
#   producer_consumer  core 0 writes 64 words (8 lines) that every other core reads
#   shared_ro          every core reads the same 36 KiB (more than an L1: one miss per line)
#   private            every core reads and writes (30%) its own 36 KiB, one word per line, 32
#                      times over: every access misses in the L1, and hits in the LLC once warm
for p in migratory producer_consumer shared_ro private; do
    case $p in
    migratory)         set -- --set core.ops=4000 --set core.words=64 ;;
    producer_consumer) set -- --set core.ops=12000 --set core.words=64 ;;
    shared_ro)         set -- --set core.ops=23040 --set core.words=4608 ;;
    private)           set -- --set core.ops=18432 --set core.words=576 --set core.spacing=64B \
                              --set core.write_ratio=0.3 ;;
    esac
    sweep "$p" pattern "$BUS" bus --set core.pattern=$p "$@" \
        --zip system.cores=$CORES --zip system.llc_banks=$CORES
    sweep "$p" pattern "$DIR" directory --set core.pattern=$p "$@" --zip system.cores=$CORES
done

# The recorded traces (traces/samples/): the false-sharing series with 1-16 workers (2-17
# threads with main) and the other kernels at their own thread count (5). fs_packed/ and
# fs_padded/ are the 4-worker runs again (fs_*-4t), so they are left out.
traces="fs_packed-1t fs_packed-2t fs_packed-4t fs_packed-8t fs_packed-16t
        fs_padded-1t fs_padded-2t fs_padded-4t fs_padded-8t fs_padded-16t
        histogram kmeans list_hoh matmul_mt mutex_counter rbgs saxpy spin_tas spin_ticket
        spin_ttas spmv"
tz= cz=
for t in $traces; do
    tr=traces/samples/$t
    [ -f "$tr/T0.trace" ] || { echo "dir-vs-snoop.sh: missing $tr (make traces)" >&2; exit 66; }
    n=$(ls "$tr" | grep -c '^T[0-9]*\.trace$')
    c=2
    while [ $c -lt "$n" ]; do c=$((c * 2)); done
    tz="$tz${tz:+,}$(pwd)/$tr" cz="$cz${cz:+,}$c"
done
REPLAY="core={type: thread-core}"
sweep traces trace "$BUS" bus --set "$REPLAY" --zip workload.trace="$tz" --zip system.cores="$cz" \
    --zip system.llc_banks="$cz"
sweep traces trace "$DIR" directory --set "$REPLAY" --zip workload.trace="$tz" --zip system.cores="$cz"

CSV="$OUT/directory-vs-snooping.csv"
python3 - "$T/sweeps" > "$T/csv" <<'PY'
# One row per run: each series' bus runs by size, then its directory runs (so that gnuplot draws
# each as one line); the ratio column pairs the two machines at one workload and size.
import csv, json, os, re, sys

COLS = ["workload", "source", "machine", "cores", "threads", "cycles", "accesses", "misses",
        "msgs_per_miss", "bytes_per_miss", "snoops_per_miss", "miss_latency",
        "core_miss_latency", "bus_utilization", "link_util_avg", "link_util_max",
        "three_hop_fraction", "cache_data_fraction", "dir_over_bus_cycles"]

def fmt(v, digits):
    if v is None:
        return ""
    return str(v) if digits is None else f"{float(v):.{digits}f}"

def per_core(d, prefix, suffix):
    return [v for k, v in d.items() if re.fullmatch(prefix + r"\d+\." + re.escape(suffix), k)]

def row(d, name, source, machine, cores, threads):
    misses = d["l1d.misses"]
    r = {"workload": name, "source": source, "machine": machine, "cores": cores,
         "threads": threads, "cycles": d["sim.cycles"], "accesses": d["l1d.accesses"],
         "misses": misses}
    # both machines' L1s time a miss from its request leaving (for the bus's, arbitration
    # included) to its data
    r["miss_latency"] = d["system.avg_miss_latency"] if misses else None
    if machine == "bus":
        r["msgs_per_miss"] = d["system.bus_transactions_per_miss"]
        r["bytes_per_miss"] = d["system.bus_bytes_per_miss"]
        r["snoops_per_miss"] = d["system.snoops_per_miss"]
        r["bus_utilization"] = d["bus.utilization"]
        data = d["bus.cache_to_cache"] + d["bus.memory_reads"] + d["bus.self_supplied"]
        r["cache_data_fraction"] = d["bus.cache_to_cache"] / data if data else None
    else:
        r["msgs_per_miss"] = d["system.net_messages_per_miss"]
        r["bytes_per_miss"] = d["system.net_bytes_per_miss"]
        fwd = sum(sum(per_core(d, "dir", s)) for s in ("invs", "fwd_gets", "fwd_getm"))
        r["snoops_per_miss"] = fwd / misses if misses else None
        r["link_util_avg"] = d["noc.link_utilization_avg"]
        r["link_util_max"] = d["noc.link_utilization_max"]
        r["three_hop_fraction"] = d["system.three_hop_fraction"]
        served = d["l1d.misses_2hop"] + d["l1d.misses_3hop"]
        if "l1d.misses_owner_data" in d and served:
            r["cache_data_fraction"] = d["l1d.misses_owner_data"] / served
    # pattern cores time every access: what misses cost the cores beyond a hit, plus a hit;
    # unlike miss_latency it also counts the wait before the request leaves (on the bus, for a
    # dirty victim's PutM to be ordered)
    means, counts = per_core(d, "core", "latency::mean"), per_core(d, "core", "latency::samples")
    if source == "pattern" and misses:
        hit = min(per_core(d, "core", "latency::min"))
        total = sum(m * n for m, n in zip(means, counts))
        r["core_miss_latency"] = (total - (d["l1d.accesses"] - misses) * hit) / misses
    return r

rows = []
for line in open(sys.argv[1]):
    name, source, machine, sdir = line.split()
    sw = json.load(open(os.path.join(sdir, "sweep.json")))
    for res in sw["results"]:
        if res["status"] != "ok":
            sys.exit(f"dir-vs-snoop.sh: {sdir}: a point failed: {res}")
    for pt in sw["points"]:
        vals = pt["values"]
        d = json.load(open(os.path.join(sdir, pt["dir"], "stats.json")))
        cores = int(vals["system.cores"])
        if source == "trace":
            tr = vals["workload.trace"]
            threads = len([f for f in os.listdir(tr) if re.fullmatch(r"T\d+\.trace", f)])
            rows.append(row(d, os.path.basename(tr), source, machine, cores, threads))
        else:
            rows.append(row(d, name, source, machine, cores, cores))
cyc = {(r["workload"], r["cores"], r["machine"]): r["cycles"] for r in rows}
for r in rows:
    r["dir_over_bus_cycles"] = cyc[(r["workload"], r["cores"], "directory")] / \
        cyc[(r["workload"], r["cores"], "bus")]
order = {"bus": 0, "directory": 1}
first = {}                      # a series (fs_packed-1t .. -16t is one) in order of appearance
series = lambda r: re.sub(r"-\d+t$", "", r["workload"])
for r in rows:
    first.setdefault(series(r), len(first))
rows.sort(key=lambda r: (first[series(r)], order[r["machine"]], r["cores"]))
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(COLS)
digits = {"msgs_per_miss": 3, "bytes_per_miss": 2, "snoops_per_miss": 3, "miss_latency": 1,
          "core_miss_latency": 1, "bus_utilization": 4,
          "link_util_avg": 4, "link_util_max": 4, "three_hop_fraction": 3, "cache_data_fraction": 3,
          "dir_over_bus_cycles": 3}
for r in rows:
    w.writerow([fmt(r.get(c), digits.get(c)) for c in COLS])
PY
mv "$T/csv" "$CSV"
echo "wrote $CSV ($(($(wc -l < "$CSV") - 1)) runs)"
if command -v gnuplot > /dev/null; then
    gnuplot -e "csv='$CSV'; out='$OUT/directory-vs-snooping'" tools/dir-vs-snoop.gp
    echo "wrote $OUT/directory-vs-snooping.svg and $OUT/directory-vs-snooping.png"
else
    echo "dir-vs-snoop.sh: gnuplot not found; apt-get install gnuplot-nox to draw the figure" >&2
fi
