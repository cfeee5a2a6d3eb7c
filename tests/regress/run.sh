#!/bin/sh
# regress/run.sh BUILD: end-to-end regression of `archsim run` and `archsim cachegrind`:
#  - configs/default.yaml twice with one seed: byte-identical stats.txt/json/csv
#  - the same stats as the committed golden files (tests/regress/golden/)
#  - config.resolved.yaml runs again to the same stats
#  - every trace-dump format is produced and parses; a window bounds it
#  - archsim cachegrind prints cachegrind's own counts for the committed matmul trace
# Prints "regress: N passed, N failed".
set -u
B=${1:-build}
A=./archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }

$A run configs/default.yaml -q --seed 1 -o "$T/a" > "$T/a.out" 2>&1 || { cat "$T/a.out"; ko "default run"; }
$A run configs/default.yaml -q --seed 1 -o "$T/b" > "$T/b.out" 2>&1 || ko "second default run"
for f in stats.txt stats.json stats.csv; do
    check "determinism: $f identical across two runs" "cmp -s '$T/a/$f' '$T/b/$f'"
    check "golden: $f matches tests/regress/golden/default.$f" \
        "diff -u tests/regress/golden/default.$f '$T/a/$f' > '$T/diff.$f' || { head -40 '$T/diff.$f'; false; }"
done
check "run directory holds every output" \
    "for f in config.resolved.yaml stats.txt stats.json stats.csv run.json; do test -s '$T/a/'\$f || exit 1; done"
check "stats.json is one flat object with sim.cycles" \
    "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d[\"sim.cycles\"], int) and d[\"sim.cycles\"] > 0; assert all(isinstance(v,(int,float)) for v in d.values())' '$T/a/stats.json'"
check "run.json has argv, version, git, seed, host seconds, speed" \
    "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [d[k] for k in (\"argv\",\"version\",\"git\",\"seed\",\"host_seconds\",\"sim_cycles_per_host_second\")]' '$T/a/run.json'"
check "no staging directory left behind" "! ls -d '$T'/*.part-* >/dev/null 2>&1"

$A run "$T/a/config.resolved.yaml" -q -o "$T/c" > "$T/c.out" 2>&1 || { cat "$T/c.out"; ko "resolved config runs"; }
check "resolved config reproduces the stats" "cmp -s '$T/a/stats.txt' '$T/c/stats.txt'"
grep -v '^#' "$T/a/config.resolved.yaml" > "$T/r1"; grep -v '^#' "$T/c/config.resolved.yaml" > "$T/r2"
check "resolved config resolves to itself" "cmp -s '$T/r1' '$T/r2'"

$A run configs/default.yaml -q -o "$T/s7" --seed 7 > /dev/null 2>&1
check "--seed is recorded" "grep -q '\"seed\": 7' '$T/s7/run.json' && grep -q '^  seed: 7' '$T/s7/config.resolved.yaml'"

cp "$T/a/stats.txt" "$T/a.before"
$A run configs/default.yaml -q -o "$T/a" --seed 9 > "$T/exists.out" 2>&1; rc=$?
check "existing run directory is refused (exit 73) and left untouched" \
    "[ $rc -eq 73 ] && grep -q 'run directory exists' '$T/exists.out' && cmp -s '$T/a.before' '$T/a/stats.txt'"
$A run configs/default.yaml -q -o "$T/slash/" > /dev/null 2>&1
check "-o DIR/ (trailing slash) writes DIR" "test -s '$T/slash/stats.json' && ! ls -d '$T'/slash*.part-* >/dev/null 2>&1"

# max_cycles: a run that ends before the limit is not truncated; one cut short says so
$A run configs/default.yaml -q -o "$T/m1" --set core.max_insts=2000 > /dev/null 2>&1
$A run configs/default.yaml -q -o "$T/m2" --set core.max_insts=2000 --set sim.max_cycles=500000 > /dev/null 2>&1
check "max_cycles above the run's length changes nothing" \
    "grep -q '^sim.truncated  *0 ' '$T/m2/stats.txt' && [ \"\$(grep '^sim.cycles' '$T/m1/stats.txt')\" = \"\$(grep '^sim.cycles' '$T/m2/stats.txt')\" ]"
$A run configs/default.yaml -q -o "$T/m3" --set sim.max_cycles=1000 > /dev/null 2>&1
check "max_cycles cuts the run: sim.truncated 1, sim.cycles = max_cycles" \
    "grep -q '^sim.truncated  *1 ' '$T/m3/stats.txt' && grep -q '^sim.cycles  *1000 ' '$T/m3/stats.txt'"
$A run configs/default.yaml -q -o "$T/a" --force --set l1d.size=4KiB > /dev/null 2>&1
check "--force replaces a run directory" "grep -q 'size: 4KiB' '$T/a/config.resolved.yaml'"

# trace dumps
for fmt in text jsonl perfetto vcd; do
    $A run configs/default.yaml -q -o "$T/t-$fmt" --trace dump.$fmt --trace-format $fmt \
        --trace-window 2000:2400 > /dev/null 2>&1 || ko "trace $fmt run"
    check "trace dump $fmt written inside the run directory" "test -s '$T/t-$fmt/dump.$fmt'"
done
check "text dump lines are 'cycle: component: event', within the window" \
    "awk -F': ' '{c=\$1+0; if (c<2000||c>2400||NF<3) bad=1} END{exit bad}' '$T/t-text/dump.text'"
check "jsonl dump parses line by line" \
    "python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' '$T/t-jsonl/dump.jsonl'"
check "perfetto dump parses and has traceEvents" \
    "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[\"traceEvents\"]' '$T/t-perfetto/dump.perfetto'"
check "vcd dump has a header and value changes" \
    "grep -q '^\$enddefinitions' '$T/t-vcd/dump.vcd' && grep -q '^#[0-9]' '$T/t-vcd/dump.vcd'"
$A run configs/default.yaml -q -o "$T/tgz" --trace dump.txt.gz --trace-components 'l1d,l2' > /dev/null 2>&1
check "gzip dump with a component filter" \
    "zcat '$T/tgz/dump.txt.gz' | awk -F': ' '\$2 != \"l1d\" && \$2 != \"l2\" {bad=1} END{exit bad}' && test \$(zcat '$T/tgz/dump.txt.gz' | wc -l) -gt 10"
check "tracing does not change the stats" "cmp -s '$T/t-text/stats.txt' '$T/b/stats.txt'"

# cachegrind compatibility on the committed trace, every recorded geometry
while read -r i1 d1 ll _ rest; do
    case "$i1" in --I1=*) ;; *) continue ;; esac
    got=$($A cachegrind "$i1" "$d1" "$ll" traces/samples/matmul64.lackey.gz | tail -1)
    check "cachegrind $i1 $d1 $ll" "[ \"$got\" = \"$rest\" ] || { echo \"  got      $got\"; echo \"  expected $rest\"; false; }"
done < workloads/matmul/cachegrind.summary

# archsim sweep (docs/sweeps.md): -j does not change sweep.csv; a bad point fails alone; --resume
# reruns nothing that is complete; tools/plot draws the CSV
FS=configs/coherence/false-sharing.yaml
SW="--grid core.spacing=8B,64B --grid system.cores=2,4 -q"
$A sweep $FS $SW -j 1 -o "$T/sw1" > "$T/sw1.out" 2>&1 || { cat "$T/sw1.out"; ko "sweep -j 1"; }
$A sweep $FS $SW -j 2 -o "$T/sw2" > "$T/sw2.out" 2>&1 || { cat "$T/sw2.out"; ko "sweep -j 2"; }
check "sweep: -j 1 and -j 2 give byte-identical sweep.csv" "cmp -s '$T/sw1/sweep.csv' '$T/sw2/sweep.csv'"
# archsim sweep --mpi (docs/sweeps.md "MPI"): the same sweep over 2 MPI ranks on this machine gives
# the same sweep.csv and sweep.json; OpenMPI refuses root without --allow-run-as-root (CI is root).
# In a DEBUG=1 (ASan) build LeakSanitizer would report OpenMPI's own allocations at exit; off here.
if command -v mpirun > /dev/null 2>&1; then
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 60 mpirun -np 2 --oversubscribe --allow-run-as-root $A sweep $FS $SW --mpi -o "$T/swmpi" \
        > "$T/swmpi.out" 2>&1; rc=$?
    check "sweep --mpi under mpirun -np 2: byte-identical sweep.csv and sweep.json to the local -j 2 run" \
        "[ $rc -eq 0 ] && cmp -s '$T/sw2/sweep.csv' '$T/swmpi/sweep.csv' && cmp -s '$T/sw2/sweep.json' '$T/swmpi/sweep.json' ||
         { cat '$T/swmpi.out'; false; }"
else
    ko "sweep --mpi: mpirun not found; as root run 'sh tools/deps.sh install' (or apt-get install -y openmpi-bin libopenmpi-dev), then rebuild"
fi
# only archsim-mpi links OpenMPI (3 ms of every start); archsim hands sweep --mpi over to it
if [ -x "$B/archsim-mpi" ]; then
    check "archsim loads no MPI library, archsim-mpi does" \
        "! ldd '$B/archsim' | grep -q libmpi && ldd '$B/archsim-mpi' | grep -q libmpi"
    mkdir -p "$T/lone" && cp "$B/archsim" "$T/lone/archsim"
    "$T/lone/archsim" sweep $FS $SW --mpi -o "$T/swlone" > "$T/swlone.out" 2>&1; rc=$?
    check "sweep --mpi with no archsim-mpi beside archsim: exit 70, what is missing, no directory" \
        "[ $rc -eq 70 ] && grep -q 'archsim-mpi, the MPI side of this build, is not beside' '$T/swlone.out' &&
         [ ! -e '$T/swlone' ]"
fi
check "sweep: header, 4 ok rows in point order, one seed for all (common random numbers)" \
    "head -1 '$T/sw1/sweep.csv' | grep -q '^core.spacing,system.cores,seed,status,message,sim.cycles,' &&
     [ \"\$(cut -d, -f1-5 '$T/sw1/sweep.csv' | tail -n +2 | tr '\n' ' ')\" = '8B,2,1,ok, 8B,4,1,ok, 64B,2,1,ok, 64B,4,1,ok, ' ]"
check "sweep: a point's run directory matches archsim run with its --set and seed" \
    "$A run $FS -q --seed 1 --set core.spacing=8B --set system.cores=4 -o '$T/sw-ref' > /dev/null &&
     cmp -s '$T/sw-ref/stats.json' '$T/sw1/point-0001/stats.json' && grep -q '\"seed\": 1' '$T/sw1/point-0001/run.json'"
check "sweep: sim.cycles column equals each point's stats.json, formatted alike" \
    "python3 -c 'import csv,json,sys; d=sys.argv[1]; rows=list(csv.DictReader(open(d+\"/sweep.csv\")))
for i,r in enumerate(rows):
    s=json.load(open(\"%s/point-%04d/stats.json\" % (d,i)))
    assert r[\"sim.cycles\"]==str(s[\"sim.cycles\"]), (i, r)
j=json.load(open(d+\"/sweep.json\")); assert len(j[\"points\"])==4 and j[\"results\"][3][\"status\"]==\"ok\"' '$T/sw1'"
$A sweep $FS --grid system.cores=2,lots,4 -q -j 2 -o "$T/swbad" > "$T/swbad.out" 2>&1; rc=$?
check "sweep: a bad value fails its row only; exit 3 with a summary" \
    "[ $rc -eq 3 ] && grep -q '1 of 3 points failed: point-0001 (exit 78)' '$T/swbad.out' &&
     grep -q \"^lots,1,exit 78,--set system.cores=lots: system.cores: 'lots': expected an unsigned integer,,\" '$T/swbad/sweep.csv' &&
     grep -q '^2,1,ok,,[0-9]' '$T/swbad/sweep.csv' && grep -q '^4,1,ok,,[0-9]' '$T/swbad/sweep.csv' &&
     test -s '$T/swbad/point-0000/run.json' && ! test -e '$T/swbad/point-0001'"
ls -l --time-style=+%s.%N "$T/sw1"/point-*/run.json > "$T/sw1.before"
cp "$T/sw1/sweep.csv" "$T/sw1.csv"
$A sweep $FS $SW -j 2 --resume -o "$T/sw1" > "$T/swres.out" 2>&1; rc=$?
ls -l --time-style=+%s.%N "$T/sw1"/point-*/run.json > "$T/sw1.after"
check "sweep --resume: reruns nothing complete, same sweep.csv" \
    "[ $rc -eq 0 ] && grep -q '4 points (4 resumed, 0 failed)' '$T/swres.out' && cmp -s '$T/sw1.before' '$T/sw1.after' && cmp -s '$T/sw1.csv' '$T/sw1/sweep.csv'"
$A sweep $FS $SW -o "$T/sw1" > "$T/swex.out" 2>&1; rc=$?
check "sweep: an existing directory is refused (73)" "[ $rc -eq 73 ] && grep -q 'sweep directory exists' '$T/swex.out'"
$A sweep configs/sweeps/false-sharing-sweep.yaml --grid system.cores=1,2 -q -o "$T/swy" > /dev/null 2>&1
check "sweep: a sweep: block, narrowed by --grid" \
    "[ \$(wc -l < '$T/swy/sweep.csv') -eq 5 ] && head -1 '$T/swy/sweep.csv' | grep -q '^core.spacing,system.cores,seed,status,message,sim.cycles,bus.transactions' && test -s '$T/swy/sweep-base.yaml'"
if command -v gnuplot > /dev/null 2>&1; then
    check "tools/plot draws sweep.csv as SVG and PNG" \
        "tools/plot '$T/sw1/sweep.csv' --x system.cores --y sim.cycles --by core.spacing -o '$T/plot' > /dev/null 2>&1 &&
         grep -q '<svg' '$T/plot.svg' && test -s '$T/plot.png'"
    check "tools/plot: a missing column is a clear error (64)" \
        "tools/plot '$T/sw1/sweep.csv' --x system.cores --y nope -o '$T/plot2' 2> '$T/plot.err'; [ \$? -eq 64 ] && grep -q \"no column 'nope' (for --y)\" '$T/plot.err'"
else
    echo "skip tools/plot (no gnuplot; sh tools/deps.sh install)"
fi

# line-crossing references: one split reference and one latency sample each, for loads, stores
# and M alike (a split load gave a sample per part, an M two split references)
printf ' L 3c,8\n S 7c,8\n M bc,8\n L 100,4\n' > "$T/split.lackey"
$A run configs/default.yaml -q -o "$T/split" --set core.trace="$T/split.lackey" > /dev/null 2>&1
st() { awk -v k="$1" '$1 == k { print $2 }' "$T/split/stats.txt"; }
check "split references: 3 split_refs, load samples = loads + modifies, store samples = stores + modifies" \
    "[ '$(st core.split_refs)' = 3 ] && [ '$(st core.load_latency::samples)' = 3 ] &&
     [ '$(st core.store_latency::samples)' = 2 ]"

echo "regress: $pass passed, $fail failed"
[ $fail -eq 0 ]
