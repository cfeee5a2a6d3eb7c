#!/bin/sh
# htm.sh [OUTDIR]: the HTM experiment (docs/experiments/htm.md). A shared hash table and a sorted
# linked list (configs/htm/), each behind one coarse lock, fine-grained locks (a lock per bucket;
# hand-over-hand, a lock per node) and hardware transactions with a subscribed fallback lock, on
# 1, 2, 4, 8, 16 and 32 workers of the MESI snooping bus, at low and high contention, with
# `archsim sweep`; writes one CSV row per run and draws the figure with gnuplot (tools/htm.gp,
# SVG and PNG). Every run checks the structure's values (exit 3 on a lost update). Deterministic
# (seeded points). 10-20 s on 2 cores.
#   sh tools/htm.sh            -> docs/experiments/htm.{csv,svg,png}
#   JOBS=4 sh tools/htm.sh     -> the same files, 4 runs at a time
#   KEEP=1 sh tools/htm.sh     -> also keeps every run directory (the path is printed)
set -eu
OUT=${1:-docs/experiments}
JOBS=${JOBS:-2}
A=./archsim
[ -x "$A" ] || { echo "htm.sh: build archsim first (make)" >&2; exit 66; }
mkdir -p "$OUT"
T=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "htm.sh: run directories kept in $T" >&2
else trap 'rm -rf "$T"' EXIT; fi

# Each structure's own sweep: 2 sizes x 3 kernels x 1-32 workers (system.cores = workers + 2).
# docs/experiments/htm.csv was made with seed = 1 + point index, the sweep rule before common
# seeds became the default (issue 16): --seeds per-point keeps it reproducible.
for s in hash list; do
    echo "htm.sh: $s" >&2
    "$A" sweep "configs/htm/$s-experiment.yaml" -j "$JOBS" -q -o "$T/$s" --seeds per-point > /dev/null
done

CSV="$OUT/htm.csv"
python3 - "$T" > "$T/csv" <<'PY'
# One row per run: the hash table's runs (low contention first, then high; coarse, fine, htm;
# workers ascending), then the list's. The work window runs from the starter core's halt (every
# core starts then, after the initial data) to the last worker's halt; the checker's walk after
# it is not counted. The traffic is the whole run's (the initial data and the check included).
import csv, json, os, sys

COLS = ["structure", "contention", "size", "sync", "workers", "ops", "cycles", "ops_per_kcycle",
        "bus_transactions_per_op", "tx_begins", "tx_commits", "tx_aborts_conflict",
        "tx_aborts_capacity", "tx_aborts_explicit", "abort_rate", "fallback_rate"]
DIGITS = {"ops_per_kcycle": 3, "bus_transactions_per_op": 2, "abort_rate": 3, "fallback_rate": 3}
LOW = {"hash": "64", "list": "128"}      # the size (core.size) of the low-contention runs

w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(COLS)
for s in ("hash", "list"):
    sdir = os.path.join(sys.argv[1], s)
    sw = json.load(open(os.path.join(sdir, "sweep.json")))
    for res in sw["results"]:
        if res["status"] != "ok":
            sys.exit(f"htm.sh: {s}: a point failed (a value check?): {res}")
    for pt in sw["points"]:
        v = pt["values"]
        d = json.load(open(os.path.join(sdir, pt["dir"], "stats.json")))
        cfg = open(os.path.join(sdir, pt["dir"], "config.resolved.yaml")).read()
        iters = int(next(l for l in cfg.splitlines()
                         if l.strip().startswith("iterations:")).split(":", 1)[1])
        n = int(v["system.cores"])
        workers = n - 2
        start = d[f"core{n - 2}.cycles"]
        cycles = max(d[f"core{i}.cycles"] for i in range(workers)) - start
        ops = workers * iters
        begins = d.get("l1d.htm.begins", 0)
        commits = d.get("l1d.htm.commits", 0)
        ab = [d.get(f"l1d.htm.aborts.{k}", 0) for k in ("conflict", "capacity", "explicit")]
        kern = os.path.basename(v["core.kernel_file"])[:-2]          # hash-htm
        htm = kern.endswith("-htm")
        r = {"structure": s, "contention": "low" if v["core.size"] == LOW[s] else "high",
             "size": v["core.size"], "sync": kern.split("-", 1)[1], "workers": workers,
             "ops": ops, "cycles": cycles, "ops_per_kcycle": ops * 1000 / cycles,
             "bus_transactions_per_op": d["bus.transactions"] / ops,
             "tx_begins": begins, "tx_commits": commits, "tx_aborts_conflict": ab[0],
             "tx_aborts_capacity": ab[1], "tx_aborts_explicit": ab[2],
             "abort_rate": sum(ab) / begins if begins else 0,
             "fallback_rate": (ops - commits) / ops if htm else 0}
        w.writerow([f"{r[c]:.{DIGITS[c]}f}" if c in DIGITS else r[c] for c in COLS])
PY
mv "$T/csv" "$CSV"
echo "wrote $CSV ($(($(wc -l < "$CSV") - 1)) runs)"
if command -v gnuplot > /dev/null; then
    gnuplot -e "csv='$CSV'; out='$OUT/htm'" tools/htm.gp
    echo "wrote $OUT/htm.svg and $OUT/htm.png"
else
    echo "htm.sh: gnuplot not found; apt-get install gnuplot-nox to draw the figure" >&2
fi
