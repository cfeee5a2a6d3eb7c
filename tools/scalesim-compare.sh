#!/bin/bash
# scalesim-compare.sh SCALESIM_CHECKOUT [MAX_CYCLES [TIMEOUT [JOBS [REGEX]]]]: archsim
# --scalesim-compat against SCALE-Sim v2 itself on SCALE-Sim's shipped topologies
# (tests/tpu/shipped/v2/topologies) under its three shipped configs (scale, google, eyeriss) and
# three dataflows, in CALC mode as shipped. A run is tried when archsim counts at most MAX_CYCLES
# cycles for it (default 300000; SCALE-Sim simulates about 1-8 thousand cycles per second) and
# SCALE-Sim finishes within TIMEOUT seconds (default 600); JOBS runs at a time (default 1); REGEX
# (grep -E) keeps the topologies it matches. For each run the three reports are compared byte
# for byte. When SCALE-Sim rejects a topology file, it gets a cleaned copy with
# the evident meaning archsim reads (rows of bare commas and title rows dropped, the trailing
# comma added, tabs as spaces) and the status says "(cleaned input)". Writes
# docs/experiments/scalesim-compare.csv (topology, config, dataflow, input, archsim cycles,
# SCALE-Sim seconds, archsim seconds, status: match, differ (with the first differing report and
# line), scalesim-failed (SCALE-Sim rejects the input, cleaned or not), scalesim-timeout,
# archsim-failed (archsim refuses the file: file:line:col), or skipped (over MAX_CYCLES)) and
# prints a summary.
# Needs Debian 12's python3 with python3-numpy python3-pandas python3-tqdm python3-absl and a
# checkout of scalesim-project/scale-sim-v2 (commit 22f88b17, as tests/tpu/scalesim/README.md).
# ARCHSIM=path overrides build/archsim.
set -u
SS=$(cd "${1:?usage: scalesim-compare.sh SCALESIM_CHECKOUT [MAX_CYCLES [TIMEOUT [JOBS]]]}" && pwd)
MAXC=${2:-300000}
TO=${3:-600}
JOBS=${4:-1}
ONLY=${5:-.}
PY=${PYTHON:-/usr/bin/python3}
SH=tests/tpu/shipped/v2
OUT=docs/experiments/scalesim-compare.csv
BIN=${ARCHSIM:-$(pwd)/build/archsim}
[ -x "$BIN" ] || { echo "scalesim-compare.sh: $BIN not built (make)" >&2; exit 66; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
tools/scalesim-jobs.sh "$T"          # $T/<cfg>_<df>.cfg and $T/jobs
grep -E " .*$ONLY" "$T/jobs" > "$T/jobs.only" || true
mv "$T/jobs.only" "$T/jobs"
one() {
    local cfg=$1 df=$2 f=$3 i=conv d s e as ss cyc st=match r cleaned=""
    head -1 "$SH/topologies/$f" | tr -d '\r' | grep -qiE '^\W*layer( name)?, *M, *N, *K' && i=gemm
    d=$(mktemp -d -p "$T")
    # the default mode, sampled at once (cycles stay exact), tells whether SCALE-Sim can do the
    # run in time
    if ! "$BIN" tpu -c "$T/${cfg}_$df.cfg" -t "$SH/topologies/$f" -i $i -q --sample-budget 1 \
            -o "$d/q" > "$d/qlog" 2>&1; then
        printf '%s,%s,%s,%s,,,,archsim-failed %s\n' "$f" "$cfg" "$df" $i \
            "$(head -1 "$d/qlog" | tr ',' ';' | cut -c1-120)"
        rm -rf "$d"; return
    fi
    cyc=$(awk -F', *' 'NR > 1 { c += $2 } END { printf "%.0f\n", c }' "$d/q/COMPUTE_REPORT.csv")
    if [ "$cyc" -gt "$MAXC" ]; then
        printf '%s,%s,%s,%s,%s,,,skipped\n' "$f" "$cfg" "$df" $i "$cyc"
        rm -rf "$d"; return
    fi
    s=$(date +%s.%N)
    "$BIN" tpu -c "$T/${cfg}_$df.cfg" -t "$SH/topologies/$f" -i $i --scalesim-compat -q \
        -o "$d/a" > "$d/alog" 2>&1
    e=$(date +%s.%N); as=$(echo "$e - $s" | bc)
    s=$(date +%s.%N)
    (cd "$d" && timeout "$TO" env PYTHONPATH="$SS" "$PY" "$SS/scalesim/scale.py" \
        -c "$T/${cfg}_$df.cfg" -t "$OLDPWD/$SH/topologies/$f" -p "$d/s" -i $i > "$d/slog" 2>&1)
    local rc=$?
    if [ $rc != 0 ] && [ $rc != 124 ]; then
        # SCALE-Sim rejects the file: give it the evident meaning archsim reads (rows of bare
        # commas and title rows dropped, the trailing comma added, tabs as spaces)
        awk -F, 'NR == 1 { print; next } { l = $0; gsub(/\t/, " ", l); t = l; gsub(/[ ,\r]/, "", t)
                 if (t == "") next; n = 0; for (k = 2; k <= NF; k++) n += $k ~ /[^ \r]/
                 if (n == 0) next; sub(/[ \r]*$/, "", l); if (l !~ /,$/) l = l ","; print l }' \
            "$SH/topologies/$f" > "$d/clean.csv"
        rm -rf "$d/s"
        (cd "$d" && timeout "$TO" env PYTHONPATH="$SS" "$PY" "$SS/scalesim/scale.py" \
            -c "$T/${cfg}_$df.cfg" -t "$d/clean.csv" -p "$d/s" -i $i > "$d/slog" 2>&1)
        rc=$?
        cleaned=" (cleaned input)"
    fi
    e=$(date +%s.%N); ss=$(echo "$e - $s" | bc)
    if [ $rc = 124 ]; then
        st=scalesim-timeout
    elif [ $rc != 0 ] || [ ! -f "$d/s/${cfg}_$df/COMPUTE_REPORT.csv" ]; then
        st=scalesim-failed
    else
        for r in COMPUTE_REPORT BANDWIDTH_REPORT DETAILED_ACCESS_REPORT; do
            if ! cmp -s "$d/a/$r.csv" "$d/s/${cfg}_$df/$r.csv"; then
                local ln
                ln=$(diff "$d/a/$r.csv" "$d/s/${cfg}_$df/$r.csv" | head -1 | tr -dc '0-9a-z,')
                st="differ $r $ln"
                break
            fi
        done
    fi
    printf '%s,%s,%s,%s,%s,%.2f,%.2f,%s%s\n' "$f" "$cfg" "$df" $i "$cyc" "$ss" "$as" "$st" \
        "$cleaned"
    rm -rf "$d"
}
export -f one
export SS SH T BIN TO PY MAXC
echo "topology,config,dataflow,input,archsim_cycles,scalesim_s,archsim_s,status" > "$OUT"
xargs -P "$JOBS" -L1 bash -c 'one "$@"' _ < "$T/jobs" | LC_ALL=C sort >> "$OUT"
awk -F, 'NR > 1 { n++; split($8, w, " "); st[w[1]]++; if (w[1] == "match") { s += $6; a += $7 } }
         END { printf "%d runs:", n; for (k in st) printf " %s %d", k, st[k]
               printf "\nmatched runs: SCALE-Sim %.0f s, archsim %.1f s\n", s, a }' "$OUT"
echo "wrote $OUT"
