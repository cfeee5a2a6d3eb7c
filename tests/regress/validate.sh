#!/bin/sh
# validate.sh BUILD: `archsim validate` checks each file as what it is (issue 16 item 3,
# docs/config.md "Validate"):
#  - every shipped config, sweep file and part validates (exit 0) in one call, each file once,
#    each said to be checked as what it is (sweep: a top-level sweep: key; part: configs/parts/
#    and the machine*.yaml parts marked `part: true`; anything else a config);
#  - a sweep's point count is the count `archsim sweep --dry-run` expands;
#  - a broken sweep (one bad value in its grid) fails (exit 78) at that value's file:line:col,
#    naming each failing point, and a broken part fails at the bad key's file:line:col.
# Prints "validate: N passed, N failed".
set -u
B=${1:-build}
A=$B/archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }

files=$(find configs -name '*.yaml' | sort)
if "$A" validate $files > "$T/out" 2> "$T/err"; then ok "every shipped file validates"
else ko "every shipped file validates: exit $?: $(grep -v ': warning: ' "$T/err" | head -3)"; fi
for f in $files; do
    if grep -q '^sweep:' "$f"; then want="ok (sweep: "
    elif grep -q '^part: true' "$f" || case $f in configs/parts/*) true;; *) false;; esac; then
        want="ok (part"
    else want="ok (config: system "; fi
    n=$(grep -c "^$f: " "$T/out")
    line=$(grep "^$f: " "$T/out" | head -1)
    case $line in
        "$f: $want"*) [ "$n" -eq 1 ] && ok "$f checked as ${want#ok (}" || ko "$f: $n lines";;
        *) ko "$f: expected '$want...', got '$line'";;
    esac
    case $want in "ok (sweep: ")
        pts=$(printf '%s\n' "$line" | sed -n 's/.*ok (sweep: \([0-9]*\) point.*/\1/p')
        dry=$("$A" sweep "$f" --dry-run -o "$T/dry" 2>/dev/null | grep -c '^point-')
        [ -n "$pts" ] && [ "$pts" -eq "$dry" ] && ok "$f: $pts points, as archsim sweep expands" \
            || ko "$f: validate counted '$pts' points, archsim sweep --dry-run $dry";;
    esac
done

# a broken sweep: 65 cores is out of range; points 2 and 5 (of 2 x 3) have it
here=$(pwd)
cat > "$T/sweep.yaml" <<EOF_S
include: $here/configs/coherence/false-sharing.yaml
sweep:
  grid:
    core.spacing: [8B, 64B]
    system.cores: [1, 2, 65]
EOF_S
"$A" validate "$T/sweep.yaml" > "$T/out" 2> "$T/err"; rc=$?
[ $rc -eq 78 ] && ok "broken sweep: exit 78" || ko "broken sweep: exit $rc, expected 78"
for p in "2 of 6: core.spacing=8B" "5 of 6: core.spacing=64B"; do
    grep -qF "$T/sweep.yaml:5:26: system.cores: 65 is out of range [1, 64] (sweep point $p, system.cores=65)" "$T/err" \
        && ok "broken sweep: point ${p%% *} named at 5:26" || { ko "broken sweep: point $p"; cat "$T/err"; }
done
[ "$(wc -l < "$T/err")" -eq 2 ] && ok "broken sweep: only the failing points" || ko "broken sweep: $(wc -l < "$T/err") lines"
[ ! -s "$T/out" ] && ok "broken sweep: no ok line" || ko "broken sweep: said $(cat "$T/out")"

# a broken part: caches.yaml with a bad unit in l2
sed '/^l2:/,$ s/line: 64B/line: 64KB/' configs/parts/caches.yaml > "$T/caches.yaml"
ln=$(grep -n 'line: 64KB' "$T/caches.yaml" | cut -d: -f1)
"$A" validate "$T/caches.yaml" > "$T/out" 2> "$T/err"; rc=$?
[ $rc -eq 78 ] && ok "broken part: exit 78" || ko "broken part: exit $rc, expected 78"
grep -qF "$T/caches.yaml:$ln:9: l2.line: '64KB': unknown size unit 'KB'" "$T/err" \
    && ok "broken part: l2.line at $ln:9" || { ko "broken part: message"; cat "$T/err"; }

echo "validate: $pass passed, $fail failed"
[ $fail -eq 0 ]
