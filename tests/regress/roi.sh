#!/bin/sh
# regress/roi.sh: warm-up, ROI markers and periodic epochs (docs/outputs.md, "Warm-up, ROI and
# epochs"), issue 16 item 6:
#  - --warmup N:cycles: a run cut at cycle N (sim.max_cycles) plus the warm-up run give the
#    counts of the whole run, stat by stat; sim.cycles and time stamps are measured from N
#  - --warmup N (instructions) and N:refs: the reset comes where the cores' count reaches N,
#    and the counts before it (sim.roi.reset_insts/_refs) plus the ROI's make the whole run's
#  - --stats-every: the stats are byte-identical to a run without it; the epoch lines cover
#    the run without gaps and sum, stat by stat, to stats.json; two runs give the same lines;
#    with a warm-up, the epochs start at the reset
#  - a sweep over sim.warmup
#  - --roi on a recorded trace with ROI markers: the stats are reset and frozen there (the
#    samples' workers each mark their loop; tests/regress/data/roi_parsec.c, recorded here,
#    marks one region from the main thread)
#  - a warm-up the run never reaches: a warning, exit 0, sim.roi.reset 0
# Prints "roi: N passed, N failed".
set -u
A=./archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }
run() { d=$1; shift; $A run "$@" -q -o "$T/$d" > "$T/$d.out" 2>&1 || { cat "$T/$d.out"; ko "run $d: $*"; }; }

# FULL PRE WARM [SKIP,..]: for every count of FULL (integers; no levels: min, max, settings,
# sim.roi.*, the time stamps NAME.cycles, sim.ticks whose ends are ticks of last events),
# PRE + WARM = FULL
cat > "$T/additive.py" <<'EOF'
import json, sys
full, pre, warm = [json.load(open(f)) for f in sys.argv[1:4]]
skip = set(sys.argv[4].split(',')) if len(sys.argv) > 4 else set()
levels = ('sim.clock', 'sim.seed', 'sim.truncated', 'sim.ticks', 'locks.acquisitions_min',
          'locks.acquisitions_max')
bad = [(k, v, pre.get(k, 0), warm.get(k, 0)) for k, v in full.items()
       if isinstance(v, int) and isinstance(pre.get(k, 0), int) and isinstance(warm.get(k, 0), int)
       and k not in skip and k not in levels and not k.startswith('sim.roi.')
       and not k.endswith('.cycles')
       and not k.endswith('::min') and not k.endswith('::max')
       and pre.get(k, 0) + warm.get(k, 0) != v]
n = sum(1 for v in full.values() if isinstance(v, int))
if bad or n < 20:
    print('not additive:', bad[:10], 'of', n)
    sys.exit(1)
EOF
# JSONL STATS [FIRST_CYCLE]: epochs numbered from 0, contiguous, from FIRST_CYCLE to sim.cycles'
# end, and their deltas sum to every count of STATS
cat > "$T/epochs.py" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
st = json.load(open(sys.argv[2]))
first = int(sys.argv[3]) if len(sys.argv) > 3 else 0
assert lines, 'no epochs'
assert [l['epoch'] for l in lines] == list(range(len(lines))), 'epoch numbers'
assert lines[0]['cycle_begin'] == first, ('first epoch begins at', lines[0]['cycle_begin'])
for a, b in zip(lines, lines[1:]):
    assert a['cycle_end'] == b['cycle_begin'], ('gap', a['epoch'])
assert lines[-1]['cycle_end'] == first + st['sim.cycles'], ('last end', lines[-1]['cycle_end'])
tot = {}
for l in lines:
    for k, v in l['stats'].items():
        assert isinstance(v, int) and v > 0, (k, v)
        tot[k] = tot.get(k, 0) + v
for k, v in tot.items():
    assert st.get(k) == v, ('sum of', k, v, 'stats.json', st.get(k))
assert tot.get('sim.cycles') == st['sim.cycles'] and tot.get('sim.events') == st['sim.events']
assert len(tot) > 20, len(tot)
EOF
py() { python3 "$@" > "$T/py.out" 2>&1 || { cat "$T/py.out"; false; }; }
jget() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# ---- warm-up in cycles: cut run + ROI = whole run --------------------------------------------
C=100000
# (a kernel-core lock experiment on a directory machine: noc, directory, dir-cache hooks)
for cfg in configs/default.yaml configs/false_sharing/replay.yaml configs/locks/dirsmp.yaml; do
    n=$(basename "$cfg" .yaml)
    run "full-$n" "$cfg"
    run "pre-$n" "$cfg" --set sim.max_cycles=$C
    run "warm-$n" "$cfg" --warmup $C:cycles
    check "$n: --warmup $C:cycles: counts before + after the reset = the whole run's" \
        "py '$T/additive.py' '$T/full-$n/stats.json' '$T/pre-$n/stats.json' '$T/warm-$n/stats.json'"
    full=$(jget "$T/full-$n/stats.json" sim.cycles)
    check "$n: sim.cycles after the warm-up = total - $C, sim.roi.reset_cycle = $C" \
        "[ $(jget "$T/warm-$n/stats.json" sim.cycles) -eq $((full - C)) ] &&
         [ $(jget "$T/warm-$n/stats.json" sim.roi.reset_cycle) -eq $C ] &&
         [ $(jget "$T/warm-$n/stats.json" sim.roi.reset) -eq 1 ]"
    check "$n: the machine ran the same (run.json events equal)" \
        "[ $(jget "$T/full-$n/run.json" events) -eq $(jget "$T/warm-$n/run.json" events) ]"
done
check "default: a time stamp (core.cycles) is measured from the reset" \
    "[ $(jget "$T/warm-default/stats.json" core.cycles) -eq $(($(jget "$T/full-default/stats.json" core.cycles) - C)) ]"
check "default: sim.ticks from the reset (C cycles of 333 ps fewer)" \
    "[ $(jget "$T/warm-default/stats.json" sim.ticks) -eq $(($(jget "$T/full-default/stats.json" sim.ticks) - C * 333)) ]"
check "run.json records the warm-up and where it happened" \
    "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[\"warmup\"] == \"$C:cycles\" and d[\"roi\"][\"reset\"] == 1 and d[\"roi\"][\"reset_cycle\"] == $C and d[\"roi\"][\"reset_insts\"] > 0' '$T/warm-default/run.json'"
check "no warm-up: no sim.roi stats, no run.json roi (goldens unchanged)" \
    "! grep -q 'sim.roi' '$T/full-default/stats.txt' && ! grep -q '\"roi\"' '$T/full-default/run.json'"
run "cfgkey" configs/default.yaml --set sim.warmup=$C:cycles
check "sim.warmup in the config = --warmup" "cmp -s '$T/cfgkey/stats.txt' '$T/warm-default/stats.txt'"

# ---- warm-up in instructions and references -------------------------------------------------
run "wi" configs/default.yaml --warmup 20k
check "--warmup 20k: the reset where the instructions reach 20000; before + after = whole run" \
    "[ $(jget "$T/wi/stats.json" sim.roi.reset_insts) -eq 20000 ] &&
     [ $(($(jget "$T/wi/stats.json" sim.roi.reset_insts) + $(jget "$T/wi/stats.json" core.insts))) -eq $(jget "$T/full-default/stats.json" core.insts) ]"
run "wr" configs/default.yaml --warmup 30000:refs
refs() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(d["core."+k] for k in ("ifetches","loads","stores","modifies")))' "$1"; }
check "--warmup 30000:refs: references before (>= 30000, same tick) + after = whole run" \
    "r=$(jget "$T/wr/stats.json" sim.roi.reset_refs); [ \$r -ge 30000 ] && [ \$r -le 30004 ] &&
     [ \$((r + $(refs "$T/wr/stats.json"))) -eq $(refs "$T/full-default/stats.json") ]"
run "wt" configs/false_sharing/replay.yaml --warmup 100000
check "thread replay --warmup 100000 (all threads' instructions together)" \
    "r=$(jget "$T/wt/stats.json" sim.roi.reset_insts); [ \$r -ge 100000 ] && [ \$r -lt 100100 ]"

$A run configs/default.yaml -q -o "$T/miss" --warmup 1G > "$T/miss.out" 2>&1; rc=$?
check "a warm-up never reached: exit 0, a warning, sim.roi.reset 0, whole-run stats" \
    "[ $rc -eq 0 ] && grep -q 'warning: sim.warmup 1G was not reached' '$T/miss.out' &&
     [ $(jget "$T/miss/stats.json" sim.roi.reset) -eq 0 ] &&
     [ $(jget "$T/miss/stats.json" core.insts) -eq $(jget "$T/full-default/stats.json" core.insts) ]"

# ---- epochs ---------------------------------------------------------------------------------
run "ep" configs/default.yaml --stats-every 250000
run "ep2" configs/default.yaml --stats-every 250000
check "--stats-every: stats.txt/json/csv identical to a run without it" \
    "cmp -s '$T/ep/stats.txt' '$T/full-default/stats.txt' && cmp -s '$T/ep/stats.json' '$T/full-default/stats.json' && cmp -s '$T/ep/stats.csv' '$T/full-default/stats.csv'"
check "--stats-every: the epoch lines cover the run and sum to stats.json" \
    "py '$T/epochs.py' '$T/ep/stats.jsonl' '$T/ep/stats.json'"
check "--stats-every: 13 epochs of 250000 cycles (the last one partial)" \
    "[ $(wc -l < "$T/ep/stats.jsonl") -eq 13 ] && [ $(jget "$T/ep/run.json" stats_jsonl_epochs) -eq 13 ] &&
     head -1 '$T/ep/stats.jsonl' | grep -q '^{\"epoch\": 0, \"cycle_begin\": 0, \"cycle_end\": 250000, \"stats\": {\"sim.cycles\": 250000, '"
check "--stats-every: byte-identical lines across two runs" "cmp -s '$T/ep/stats.jsonl' '$T/ep2/stats.jsonl'"
run "epw" configs/default.yaml --stats-every 250000 --warmup $C:cycles
check "--stats-every with a warm-up: epochs start at the reset and sum to the ROI's stats" \
    "py '$T/epochs.py' '$T/epw/stats.jsonl' '$T/epw/stats.json' $C && cmp -s '$T/epw/stats.txt' '$T/warm-default/stats.txt'"
run "eps" configs/false_sharing/replay.yaml --stats-every 400000
check "--stats-every on a 17-core replay: sums to stats.json (per-core, bus, system sums)" \
    "py '$T/epochs.py' '$T/eps/stats.jsonl' '$T/eps/stats.json' && cmp -s '$T/eps/stats.txt' '$T/full-replay/stats.txt'"
run "epk" configs/default.yaml --set sim.stats_every=1000000
check "sim.stats_every in the config = --stats-every" \
    "[ $(wc -l < "$T/epk/stats.jsonl") -eq 4 ]"

$A sweep configs/default.yaml --grid sim.warmup=0,$C:cycles --set sim.stats_every=1000000 -q \
    -o "$T/sw" > "$T/sw.out" 2>&1 || { cat "$T/sw.out"; ko "sweep over sim.warmup"; }
check "a sweep over sim.warmup: the point with it has the warm-up run's stats (seed aside) and its stats.jsonl" \
    "grep -v '^sim.seed' '$T/sw/point-0001/stats.txt' > '$T/sw1' && grep -v '^sim.seed' '$T/warm-default/stats.txt' > '$T/w1' &&
     cmp -s '$T/sw1' '$T/w1' && grep -q '^sim.roi.reset  *1 ' '$T/sw/point-0001/stats.txt' &&
     [ $(wc -l < "$T/sw/point-0001/stats.jsonl" 2>/dev/null || echo 0) -eq 3 ]"

# ---- ROI markers of a recorded trace --------------------------------------------------------
check "the sample trace's workers mark their ROI (not the main thread)" \
    "$A trace info traces/samples/fs_packed-4t/T1.trace | grep -q 'ROI_BEGIN    1' &&
     ! $A trace info traces/samples/fs_packed-4t/T0.trace | grep -q ROI_BEGIN"
run "roi" configs/false_sharing/replay.yaml --roi --stats-every 400000
check "--roi: reset at ROI_BEGIN, frozen at ROI_END (sim.roi.reset, frozen, cycles between)" \
    "[ $(jget "$T/roi/stats.json" sim.roi.reset) -eq 1 ] && [ $(jget "$T/roi/stats.json" sim.roi.frozen) -eq 1 ] &&
     [ $(jget "$T/roi/stats.json" sim.cycles) -eq $(($(jget "$T/roi/stats.json" sim.roi.end_cycle) - $(jget "$T/roi/stats.json" sim.roi.reset_cycle))) ]"
check "--roi: frozen once every worker passed its ROI_END: each worker's ROI holds its loop (700004 of 700015 instructions), the main thread none" \
    "(for i in 1 2 3 4; do [ \$(jget '$T/roi/stats.json' core\$i.instructions) -eq 700004 ] || exit 1; done) &&
     [ $(jget "$T/full-replay/stats.json" core1.instructions) -eq 700015 ] && [ $(jget "$T/roi/stats.json" core0.instructions) -le 1 ]"
check "--roi: the main thread's instructions before the ROI are not counted" \
    "[ $(jget "$T/roi/stats.json" core0.instructions) -lt $(jget "$T/full-replay/stats.json" core0.instructions) ] &&
     [ $(($(jget "$T/roi/stats.json" core0.instructions) + $(jget "$T/roi/stats.json" sim.roi.reset_insts))) -le $(jget "$T/full-replay/stats.json" core0.instructions) ]"
check "--roi: a worker still running at the freeze has its ipc over the ROI's cycles" \
    "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert abs(d[\"core1.ipc\"] - d[\"core1.instructions\"] / d[\"sim.cycles\"]) < 1e-9 and d[\"core1.ipc\"] > 0.1' '$T/roi/stats.json'"
check "--roi: epochs run from the reset to the freeze and sum to the frozen stats" \
    "py '$T/epochs.py' '$T/roi/stats.jsonl' '$T/roi/stats.json' $(jget "$T/roi/stats.json" sim.roi.reset_cycle)"
# one thread marks the region (PARSEC's convention): recorded here, a few ms
tools/archsim-cc -O1 -pthread -Itools/tracer tests/regress/data/roi_parsec.c -o "$T/parsec" > "$T/cc.out" 2>&1 &&
    $A trace record -o "$T/parsec-tr" --quiet -- "$T/parsec" > "$T/rec.out" 2>&1 ||
    { cat "$T/cc.out" "$T/rec.out"; ko "record tests/regress/data/roi_parsec.c"; }
run "pa" configs/false_sharing/replay.yaml --set workload.trace="$T/parsec-tr"
run "pr" configs/false_sharing/replay.yaml --set workload.trace="$T/parsec-tr" --roi
check "--roi, main thread marks the region: its warm-up and clean-up stores are outside, the workers inside" \
    "[ $(jget "$T/pa/stats.json" core0.stores) -eq 8192 ] && [ $(jget "$T/pr/stats.json" core0.stores) -eq 0 ] &&
     [ $(jget "$T/pr/stats.json" sim.roi.reset_refs) -eq 4096 ] &&
     [ $(jget "$T/pr/stats.json" core1.loads) -eq 4000 ] && [ $(jget "$T/pr/stats.json" core2.stores) -eq 2000 ] &&
     [ $(jget "$T/pr/stats.json" sim.roi.frozen) -eq 1 ] && [ $(jget "$T/pr/stats.json" sim.cycles) -lt $(jget "$T/pa/stats.json" sim.cycles) ]"
check "without --roi the markers change nothing (the golden replay stats)" \
    "! grep -q sim.roi '$T/full-replay/stats.txt'"

echo "roi: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
