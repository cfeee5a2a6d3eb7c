#!/bin/sh
# dump-order.sh BUILD: issue 15 item 10: trace dumps are written in time order. Runs configs whose
# models report events late (core accesses stamped at their issue, cache fills and NoC deliveries
# stamped at their start) with a dump in each format, and checks that the cycles never go back:
# text (first field), JSON Lines ("cycle"), Perfetto (the "ts" of the component tracks, pid 1, in
# file order; line-state slices, pid 2, are written when the state ends), VCD (#time lines
# strictly increasing, nothing shown late), and that no dump reports events out of order.
# Last line: "dump-order: N passed, N failed".
B=${1:-build}
A=$B/archsim
T=$(mktemp -d "${TMPDIR:-/tmp}/dump-order.XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0; failn=0
ok() { pass=$((pass + 1)); }
ko() { failn=$((failn + 1)); echo "FAIL $*"; }

# the first place where the cycles of FILE (format FMT) go back, or nothing
back() {
    case $1 in
    text) awk '/^#/ { next } { c = $1; sub(":", "", c); c += 0
                if (NR > 1 && c < p) { print "line " NR ": cycle " c " after " p; exit }
                p = c }' "$2" ;;
    jsonl) awk '!/"cycle":/ { next } { s = $0; sub(/.*"cycle":/, "", s); sub(/,.*/, "", s); c = s + 0
                if (n++ && c < p) { print "line " NR ": cycle " c " after " p; exit }
                p = c }' "$2" ;;
    perfetto) awk '!/"pid":1,/ || !/"ts":/ { next } { s = $0; sub(/.*"ts":/, "", s); sub(/[,}].*/, "", s)
                c = s + 0; if (n++ && c < p) { print "line " NR ": ts " c " after " p; exit }
                p = c }' "$2" ;;
    vcd) awk '/^#[0-9]+$/ { c = substr($0, 2) + 0
                if (n++ && c <= p) { print "line " NR ": #" c " after #" p; exit }
                p = c }' "$2" ;;
    esac
}

for cfg in configs/teach/msi.yaml configs/teach/dir-mesi.yaml configs/locks/tas.yaml \
           configs/lockfree/spsc.yaml configs/htm/hash.yaml configs/coherence/dir-migratory.yaml \
           configs/default.yaml; do
    for fmt in text jsonl perfetto vcd; do
        name=$(basename "$cfg" .yaml)-$fmt
        f=dump.$fmt
        if ! $A run "$cfg" -q -o "$T/$name" --trace "$f" --trace-format $fmt \
                --trace-max-events 20000 > "$T/$name.log" 2>&1; then
            ko "$name: run failed: $(tail -2 "$T/$name.log")"; continue
        fi
        d=$T/$name/$f
        where=$(back $fmt "$d")
        if [ -n "$where" ]; then
            ko "$name: not in time order at $where"
        elif grep -q -e 'out of cycle order' -e 'out_of_order_events' -e 'cycles late and are shown' "$d"; then
            ko "$name: the dump reports events out of order: $(grep -o -e '[0-9]* events out of cycle order' -e '"out_of_order_events":[0-9]*' -e '[0-9]* events arrived more than [0-9]* cycles late' "$d" | head -1)"
        else
            ok
        fi
    done
done

# Perfetto slices are [ts, ts + dur): a cache fill is one slice from its miss to its fill, so no
# slice of the default config may end after the last cycle simulated.
$A run configs/default.yaml -q -o "$T/pf" --trace d.json --trace-components l2 \
    --trace-window 0:20000 > /dev/null 2>&1 || ko "perfetto fill run"
if [ -f "$T/pf/d.json" ]; then
    first_fill=$(grep -o '"name":"fill","ph":"X","ts":[0-9]*,"dur":[0-9]*' "$T/pf/d.json" | head -1)
    first_miss=$(grep -o '"name":"miss","ph":"i","s":"t","ts":[0-9]*' "$T/pf/d.json" | head -1)
    ts_fill=$(echo "$first_fill" | sed 's/.*"ts":\([0-9]*\).*/\1/')
    ts_miss=$(echo "$first_miss" | sed 's/.*"ts":\([0-9]*\)/\1/')
    if [ -n "$ts_fill" ] && [ "$ts_fill" = "$ts_miss" ]; then ok
    else ko "perfetto: the first l2 fill slice ($first_fill) does not start at its miss ($first_miss)"; fi
fi

echo "dump-order: $pass passed, $failn failed"
[ $failn -eq 0 ]
