#!/bin/sh
# locks.sh [OUTDIR]: the lock experiment (docs/experiments/locks.md). Runs the built-in locks
# tas, ttas, ttas-backoff, ticket, anderson, mcs and clh on 1, 2, 4, 8, 16 and 32 cores of the
# MESI snooping bus (configs/locks/experiment.yaml: cs 1000, outside 200 cycles, 1,000,000-cycle
# runs), and again with a short critical section (cs 50), with `archsim sweep`; writes one CSV row
# per run and draws the figure with gnuplot (tools/locks.gp, SVG and PNG) from the cs 1000 rows.
# Deterministic (seeded points). A few seconds on 2 cores.
# SYSTEM=dirsmp runs the same experiment on the directory machine (tiles on a mesh, MESI
# directory: configs/locks/experiment-dirsmp.yaml); its CSV has the same columns except that
# net_messages_per_acquire (network messages) replaces bus_transactions_per_acquire.
#   sh tools/locks.sh          -> docs/experiments/locks.{csv,svg,png}
#   SYSTEM=dirsmp sh tools/locks.sh -> docs/experiments/locks-dirsmp.{csv,svg,png}
#   JOBS=4 sh tools/locks.sh   -> the same files, 4 runs at a time
#   KEEP=1 sh tools/locks.sh   -> also keeps every run directory (the path is printed)
set -eu
OUT=${1:-docs/experiments}
JOBS=${JOBS:-2}
A=./archsim
case ${SYSTEM:-smp} in
    smp) CFG=configs/locks/experiment.yaml NAME=locks
        TRAFFIC=bus_transactions_per_acquire ;;
    dirsmp) CFG=configs/locks/experiment-dirsmp.yaml NAME=locks-dirsmp
        TRAFFIC=net_messages_per_acquire ;;
    *) echo "locks.sh: SYSTEM must be smp or dirsmp, not '$SYSTEM'" >&2; exit 64 ;;
esac
[ -x "$A" ] || { echo "locks.sh: build archsim first (make)" >&2; exit 66; }
mkdir -p "$OUT"
T=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "locks.sh: run directories kept in $T" >&2; else trap 'rm -rf "$T"' EXIT; fi

# The config's own sweep (every lock x 1-32 cores), at each critical-section length. Both sweeps
# number their points alike, so a point's seed depends only on its lock and core count. The CSVs
# were made with seed = 1 + point index, the sweep rule before common seeds became the default
# (issue 16): --seeds per-point keeps them reproducible.
for cs in 1000 50; do
    echo "locks.sh: cs $cs" >&2
    "$A" sweep "$CFG" -j "$JOBS" -q -o "$T/cs$cs" --seeds per-point --set core.cs="$cs" > /dev/null
done

CSV="$OUT/$NAME.csv"
python3 - "$TRAFFIC" "$T/cs1000" "$T/cs50" > "$T/csv" <<'PY'
# One row per run: the cs 1000 runs (lock by lock, cores ascending), then the cs 50 runs.
# argv[1]: the traffic column (bus transactions on smp, network messages on dirsmp).
import csv, json, os, sys

COLS = ["lock", "cores", "cs", "outside", "cycles", "acquisitions", "acquisitions_per_kcycle",
        "handoff_cycles", sys.argv[1], "invalidations_per_acquire",
        "misses_per_acquire", "acquisitions_min", "acquisitions_max", "fairness"]
DIGITS = {"acquisitions_per_kcycle": 3, "handoff_cycles": 1, sys.argv[1]: 2,
          "invalidations_per_acquire": 2, "misses_per_acquire": 2, "fairness": 3}

w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(COLS)
for sdir in sys.argv[2:]:
    sw = json.load(open(os.path.join(sdir, "sweep.json")))
    for res in sw["results"]:
        if res["status"] != "ok":
            sys.exit(f"locks.sh: {sdir}: a point failed: {res}")
    for pt in sw["points"]:
        v = pt["values"]
        d = json.load(open(os.path.join(sdir, pt["dir"], "stats.json")))
        cfg = open(os.path.join(sdir, pt["dir"], "config.resolved.yaml")).read()
        r = {"lock": v["core.kernel"], "cores": int(v["system.cores"]),
             "cycles": d["locks.cycles"]}
        for c in COLS[5:]:
            r[c] = d["locks." + c]
        # cs and outside as the run resolved them (cycles)
        for k in ("cs", "outside"):
            line = next(l for l in cfg.splitlines() if l.strip().startswith(k + ":"))
            r[k] = line.split(":", 1)[1].strip().removesuffix("cycles").strip()
        w.writerow([r[c] if c not in DIGITS else f"{float(r[c]):.{DIGITS[c]}f}" for c in COLS])
PY
mv "$T/csv" "$CSV"
echo "wrote $CSV ($(($(wc -l < "$CSV") - 1)) runs)"
if command -v gnuplot > /dev/null; then
    if [ "$NAME" = locks ]; then
        gnuplot -e "csv='$CSV'; out='$OUT/locks'" tools/locks.gp
    else
        gnuplot -e "csv='$CSV'; out='$OUT/$NAME'; machine='dirsmp'" tools/locks.gp
    fi
    echo "wrote $OUT/$NAME.svg and $OUT/$NAME.png"
else
    echo "locks.sh: gnuplot not found; apt-get install gnuplot-nox to draw the figure" >&2
fi
