#!/bin/sh
# regress/diff.sh BUILD: issue 16 item 6, `archsim diff` and the idle line of stats.txt
# (docs/outputs.md "Comparing runs" and "Idle components"):
#  - two runs of one config and seed: exit 0, "identical"; --set l1d.size changed: exit 1 with
#    the stats of the largest relative change at the top, in the documented tie order
#  - a stat missing on one side, a change from 0, exact 64-bit integers, 1.0 = 1, an order that
#    does not depend on the files' order, --stats, --threshold, --all, csv and json, sweeps
#  - stats.txt of a 5-thread replay on 17 cores names the 12 idle cores on one '# idle' line and
#    drops exactly their (zero) lines, while stats.json and stats.csv keep every stat
# Prints "diff: N passed, N failed".
set -u
A=./archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }
C=configs/default.yaml

$A run $C -q -o "$T/a" > /dev/null 2>&1 || ko "run a"
$A run $C -q -o "$T/b" > /dev/null 2>&1 || ko "run b"
$A run $C -q -o "$T/c" --set l1d.size=64KiB > /dev/null 2>&1 || ko "run c"

$A diff "$T/a" "$T/b" > "$T/o" 2>&1; rc=$?
check "same config and seed: exit 0, identical" \
    "[ $rc -eq 0 ] && grep -q '^identical: [1-9][0-9]* stats compared$' '$T/o' && [ \$(wc -l < '$T/o') -eq 1 ]"
$A diff "$T/a/stats.json" "$T/b/stats.json" > "$T/o" 2>&1; rc=$?
check "two stats.json files: exit 0" "[ $rc -eq 0 ] && grep -q '^identical' '$T/o'"

$A diff "$T/a" "$T/c" > "$T/o" 2>&1; rc=$?
# l2 sees far fewer accesses but misses as often: its miss rates move most (+448.6 %); the two
# rows tie on both keys, so they come by name
check "l1d.size changed: exit 1, l2 miss rates first, ties by name" \
    "[ $rc -eq 1 ] && sed -n 4p '$T/o' | grep -q '^l2.miss_rate  .*+448.6%$' &&
     sed -n 5p '$T/o' | grep -q '^l2.read_miss_rate ' && sed -n 3p '$T/o' | grep -q '^stat  *A  *B  *B-A  *(B-A)/A$'"
check "l1d.size changed: the summary counts every changed stat" \
    "tail -1 '$T/o' | grep -q '^66 of 155 compared stats differ; 0 only in A, 0 only in B$' &&
     [ \$(wc -l < '$T/o') -eq $((3 + 66 + 1)) ]"
check "l1d.size changed: values verbatim, integer changes exact" \
    "grep -q '^l1d.misses  *32114  *8088  *-24026  *-74.81%$' '$T/o'"
check "relative changes are sorted (largest first)" \
    "sed -n '4,69p' '$T/o' | awk '{v=\$NF; sub(/%/,\"\",v); v=v+0; if (v<0) v=-v; print v}' | sort -g -r -c"

# a stat missing on one side (and the other side's extra one)
python3 - "$T/a/stats.json" "$T/m.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["l1d.misses"]
d["extra.stat"] = 5
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
$A diff "$T/a" "$T/m.json" > "$T/o" 2>&1; rc=$?
check "a stat only in A and one only in B: exit 1, listed apart" \
    "[ $rc -eq 1 ] && grep -A1 -x 'only in A (1):' '$T/o' | grep -q '^  l1d.misses  32114$' &&
     grep -A1 -x 'only in B (1):' '$T/o' | grep -q '^  extra.stat  5$' &&
     tail -1 '$T/o' | grep -q '^0 of 154 compared stats differ; 1 only in A, 1 only in B$'"

# hand-made files: a change from 0, exact 64-bit integers, 1.0 = 1, and file order
printf '{"z": 0, "big": 18446744073709551615, "one": 1.0, "neg": -5, "half": 2, "x": 10}\n' > "$T/p.json"
printf '{"x": 20, "half": 3, "neg": 5, "one": 1, "big": 18446744073709551614, "z": 7}\n' > "$T/q.json"
printf '{"half": 3, "z": 7, "x": 20, "big": 18446744073709551614, "one": 1, "neg": 5}\n' > "$T/r.json"
$A diff "$T/p.json" "$T/q.json" > "$T/o" 2>&1; rc=$?
check "from 0 first (+inf), then |rel| (neg: +200%), then |B-A| (x before half), exact u64" \
    "[ $rc -eq 1 ] && sed -n '4,8p' '$T/o' | awk '{print \$1, \$4, \$5}' | tr '\n' ';' |
     grep -qx 'z +7 +inf;neg +10 +200%;x +10 +100%;half +1 +50%;big -1 -5.421e-18%;'"
$A diff "$T/p.json" "$T/r.json" > "$T/o2" 2>&1
check "the order does not depend on the files' order; 1.0 equals 1" \
    "sed 1,2d '$T/o' > '$T/o.x' && sed 1,2d '$T/o2' > '$T/o2.x' && cmp -s '$T/o.x' '$T/o2.x' && ! grep -q '^one ' '$T/o'"

# --stats, --threshold
$A diff "$T/a" "$T/c" --stats 'l1d.*,sim.cycles' > "$T/o" 2>&1; rc=$?
check "--stats: only matching stats" \
    "[ $rc -eq 1 ] && ! sed -n '4,\$p' '$T/o' | grep -v -e '^l1d\\.' -e '^sim.cycles ' -e ' compared stats differ'"
$A diff "$T/a" "$T/c" --stats 'l1i.*' --threshold 1 > "$T/o" 2>&1; rc=$?
check "--threshold 1: l1i's changes (0.02%) hidden, exit 0, counted" \
    "[ $rc -eq 0 ] && grep -qx 'identical: [0-9]* stats compared ([1-9][0-9]* changes below --threshold 1% not shown)' '$T/o'"
$A diff "$T/a" "$T/c" --stats 'l1i.*' --threshold 0.01% > "$T/o" 2>&1; rc=$?
check "--threshold 0.01%: l1i's 0.02% changes shown" "[ $rc -eq 1 ] && grep -q '^l1i.misses ' '$T/o'"
# a change of exactly PCT is not below it (290 / 1000 computed as 28.99...% was hidden), and
# a threshold given with its '%' is printed with one
printf '{"x": 1000, "y": 100}\n' > "$T/t1.json"; printf '{"x": 1290, "y": 129}\n' > "$T/t2.json"
$A diff "$T/t1.json" "$T/t2.json" --threshold 29 > "$T/o" 2>&1; rc=$?
check "--threshold 29: changes of exactly 29% shown, exit 1" \
    "[ $rc -eq 1 ] && grep -q '^x ' '$T/o' && grep -q '^y ' '$T/o'"
$A diff "$T/t1.json" "$T/t2.json" --threshold 29.5% > "$T/o" 2>&1; rc=$?
check "--threshold 29.5%: both hidden, exit 0, the threshold printed with one %" \
    "[ $rc -eq 0 ] && grep -qx 'identical: 2 stats compared (2 changes below --threshold 29.5% not shown)' '$T/o'"
# exactly, for integers against a decimal threshold (1.1 x 3000 is 3300.0000000000005 in
# doubles) and past 2^53; and no overflow to inf near the double range (a 50 % change)
printf '{"a": 3000, "b": 1000000000000001000, "c": 1e308}\n' > "$T/t3.json"
printf '{"a": 3033, "b": 1011000000000001011, "c": 1.5e308}\n' > "$T/t4.json"
$A diff "$T/t3.json" "$T/t4.json" --threshold 1.1 --format csv > "$T/o" 2>&1; rc=$?
check "--threshold 1.1: exactly 1.1 % shown for 3000 -> 3033 and past 2^53, exit 1" \
    "[ $rc -eq 1 ] && grep -q '^a,' '$T/o' && grep -q '^b,' '$T/o'"
$A diff "$T/t3.json" "$T/t4.json" --threshold 60 > "$T/o" 2>&1; rc=$?
check "--threshold 60: a 50 % change near the double range hidden, exit 0" \
    "[ $rc -eq 0 ] && grep -q 'identical: 3 stats compared (3 changes below --threshold 60% not shown)' '$T/o'"
$A diff "$T/p.json" "$T/q.json" --threshold 1000 > "$T/o" 2>&1; rc=$?
check "--threshold never hides a change from 0" "[ $rc -eq 1 ] && grep -q '^z ' '$T/o' && ! grep -q '^neg ' '$T/o'"

# --all: run.json's numbers (host time) only on request
$A diff "$T/a" "$T/c" --stats 'run.json:*' > "$T/o" 2>&1; rc=$?
check "without --all, run.json is not read (its globs match nothing: 64)" "[ $rc -eq 64 ]"
$A diff "$T/a" "$T/c" --all --stats 'run.json:sim_cycles,run.json:host_seconds' > "$T/o" 2>&1; rc=$?
check "--all compares run.json's numbers as run.json:NAME" \
    "[ $rc -eq 1 ] && grep -q '^run.json:sim_cycles  *3056367 ' '$T/o'"

# csv and json
$A diff "$T/a" "$T/c" --format csv > "$T/o.csv" 2>&1; rc=$?
$A diff "$T/a" "$T/c" --format json > "$T/o.json" 2>&1; rc2=$?
check "csv and json: the same rows as text, in the same order" \
    "[ $rc -eq 1 ] && [ $rc2 -eq 1 ] && $A diff '$T/a' '$T/c' | sed -n '4,69p' | awk '{print \$1}' > '$T/names' &&
     python3 - '$T/o.csv' '$T/o.json' '$T/names' <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
j = json.load(open(sys.argv[2]))
names = open(sys.argv[3]).read().split()
assert [r['name'] for r in rows] == names, 'csv order'
assert [c['name'] for c in j['changed']] == names, 'json order'
assert j['identical'] is False and j['compared'] == 155 and j['only_a'] == [] and j['only_b'] == []
r = rows[0]
assert r['status'] == 'changed' and abs(float(r['rel_change']) - 4.4859865470852016) < 1e-12
c = [c for c in j['changed'] if c['name'] == 'l1d.misses'][0]
assert c['a'] == 32114 and c['b'] == 8088 and c['abs'] == -24026
PY"
$A diff "$T/p.json" "$T/m.json" --format json --stats z > "$T/o.json" 2>&1
$A diff "$T/p.json" "$T/q.json" --format json --stats z >> "$T/o.json" 2>&1
check "json: a change from 0 has rel null; a stat on one side is in only_a" \
    "python3 -c \"
import json, sys
t = open('$T/o.json').read(); i = t.index('}\n{') + 2
a, b = json.loads(t[:i]), json.loads(t[i:])
assert a['only_a'] == [{'name': 'z', 'value': 0}] and a['identical'] is False
assert b['changed'] == [{'name': 'z', 'a': 0, 'b': 7, 'abs': 7, 'rel': None}]
\""

# sweeps, point by point
$A sweep $C -q --grid core.cpi=1,2 -o "$T/s1" > /dev/null 2>&1 || ko "sweep s1"
$A sweep $C -q --grid core.cpi=1,2 -o "$T/s2" > /dev/null 2>&1 || ko "sweep s2"
$A sweep $C -q --grid core.cpi=1,3 -o "$T/s3" > /dev/null 2>&1 || ko "sweep s3"
$A diff "$T/s1" "$T/s2" > "$T/o" 2>&1; rc=$?
check "two sweeps of one grid: identical over every point" \
    "[ $rc -eq 0 ] && grep -qx 'identical: 310 stats compared' '$T/o'"
$A diff "$T/s1" "$T/s3" > "$T/o" 2>&1; rc=$?
check "sweeps that differ in point 1 only: every changed stat is point-0001/" \
    "[ $rc -eq 1 ] && sed -n '4,\$p' '$T/o' | sed -e '/^only in/,\$d' > '$T/rows' && [ -s '$T/rows' ] &&
     ! grep -qv '^point-0001/' '$T/rows' && grep -q '^point-0001/core.cycles ' '$T/rows'"
$A diff "$T/s1" "$T/a" > "$T/o" 2>&1; rc=$?
check "a sweep and a run are not compared (64)" "[ $rc -eq 64 ] && grep -q 'compare two runs or two sweeps' '$T/o'"

# idle components in stats.txt (issue 16 item 6: 2,587 lines for a 5-thread replay on 17 cores;
# now 1,092: the idle cores on one '# idle' line, their L1s, equal to l1d5, on one '# same' line)
$A run configs/false_sharing/replay.yaml -q -o "$T/fs" > /dev/null 2>&1 || ko "replay run"
check "replay.yaml: one '# idle' line names core5..core16, right after Begin" \
    "sed -n 3p '$T/fs/stats.txt' | grep -qx '# idle (no events: every stat 0, each still in stats.json and stats.csv): core5..core16 (12 components, 228 stats)'"
check "replay.yaml: the L1s of the idle cores (each snooped the same requests) are one '# same' line" \
    "sed -n 4p '$T/fs/stats.txt' | grep -qx '# same stats as l1d5 (every stat equal, each still in stats.json and stats.csv): l1d6..l1d16 (11 components, 1276 stats)'"
check "replay.yaml: stats.txt lists no idle core and one of the equal L1s; stats.json and csv keep all" \
    "! grep -q '^core\\(5\\|1[0-6]\\)\\.' '$T/fs/stats.txt' && grep -q '^core4\\.' '$T/fs/stats.txt' &&
     ! grep -q '^l1d\\([6-9]\\|1[0-6]\\)\\.' '$T/fs/stats.txt' && grep -q '^l1d5\\.' '$T/fs/stats.txt' &&
     [ \$(wc -l < '$T/fs/stats.txt') -lt 1200 ] &&
     python3 - '$T/fs' <<'PY'
import csv, json, re, sys
d = sys.argv[1]
j = json.load(open(d + '/stats.json'))
rows = list(csv.reader(open(d + '/stats.csv')))[1:]
txt = [l.split()[0] for l in open(d + '/stats.txt') if l.strip() and not l.startswith(('#', '-'))]
idle = {'core%d' % i for i in range(5, 17)}
same = {'l1d%d' % i for i in range(6, 17)}
gone = [k for k in j if k not in set(txt)]
assert all(k.split('.')[0] in idle | same for k in gone), 'txt drops only idle and same components'
assert all(j[k] == 0 for k in gone if k.split('.')[0] in idle), 'idle means every stat 0'
for k in gone:                       # each dropped sibling stat equals l1d5's
    c, rest = k.split('.', 1)
    if c in same:
        assert j[k] == j['l1d5.' + rest], k
assert len(gone) == 228 + 1276, len(gone)
assert [r[0] for r in rows] == list(j), 'csv keeps every stat'
assert txt == [k for k in j if k.split('.')[0] not in idle | same], 'txt keeps the order of the rest'
PY"
check "the default machine has no idle component (its golden stats.txt is unchanged)" \
    "! grep -q '^# idle' tests/regress/golden/default.stats.txt && ! grep -q '^# idle' '$T/a/stats.txt'"

echo "diff: $pass passed, $fail failed"
[ $fail -eq 0 ]
