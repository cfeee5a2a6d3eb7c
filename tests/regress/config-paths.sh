#!/bin/sh
# config-paths.sh BUILD: config.resolved.yaml names the same files when it is run again, even
# for paths that YAML plain scalars cannot hold (issue 15 item 9), and archsim refuses or bounds
# inputs that are not regular files instead of hanging (issue 15 item 3).
B=${1:-build}
A=$B/archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# issue 15 item 9: a trace whose directory and name hold ' #', ': ', quotes and a trailing
# space; the run from config.resolved.yaml must read the same file and give the same stats.
D="$T/d #1: it's \"q\""
mkdir -p "$D"
cp traces/samples/matmul64.lackey.gz "$D/m.gz "
cp configs/parts/caches.yaml "$T/"
cat > "$T/c.yaml" <<EOF_C
include: caches.yaml
core:
  trace: "d #1: it's \"q\"/m.gz "
EOF_C
: > "$T/m.gz"   # the name without the space, so a stripped path would read an empty trace
# (the first line of config.resolved.yaml names the config it came from, so it differs)
if "$A" run "$T/c.yaml" -q -o "$T/o1" > "$T/log" 2>&1 &&
   "$A" run "$T/o1/config.resolved.yaml" -q -o "$T/o2" >> "$T/log" 2>&1 &&
   cmp -s "$T/o1/stats.txt" "$T/o2/stats.txt" &&
   [ "$(tail -n +2 "$T/o1/config.resolved.yaml")" = "$(tail -n +2 "$T/o2/config.resolved.yaml")" ]
then ok
else bad "item 9: resolved config with an awkward trace path: $(head -3 "$T/log")"; fi

# issue 15 item 3: a FIFO, a device and a directory as a config or an include: exit 66, at once.
mkfifo "$T/fifo"
for p in "$T/fifo" /dev/zero "$T"; do
    printf 'include: %s\n' "$p" > "$T/inc.yaml"
    for cfg in "$p" "$T/inc.yaml"; do
        timeout 20 "$A" validate "$cfg" > /dev/null 2> "$T/err" < /dev/null
        rc=$?
        if [ $rc -eq 66 ] && grep -q "not a regular file" "$T/err"; then ok
        else bad "item 3: validate $cfg (include of $p): exit $rc: $(head -1 "$T/err")"; fi
    done
done

# issue 15 item 3: 32 files each including the next twice (2^31 loads before): under 20 s.
i=1
while [ $i -lt 31 ]; do
    printf 'include: [f%d.yaml, f%d.yaml]\n' $((i + 1)) $((i + 1)) > "$T/f$i.yaml"; i=$((i + 1))
done
printf 'core:\n  trace: %s/traces/samples/matmul64.lackey.gz\n' "$(pwd)" > "$T/f31.yaml"
printf 'include: [caches.yaml, f1.yaml, f1.yaml]\n' > "$T/f0.yaml"
if timeout 20 "$A" validate "$T/f0.yaml" > "$T/log" 2>&1; then ok
else bad "item 3: include twice per level, 32 levels: $(head -2 "$T/log")"; fi

# a config with a sweep: block runs its points from DIR/sweep-base.yaml: the values read as file
# paths are made absolute, a trace directory included (it resolved against the sweep directory,
# where a decoy gave other answers), and nothing else (`repl: lru` beside a file named lru was
# rewritten into a path and every point failed)
mkdir -p "$T/sw/p/a/b" "$T/sw/p/a/traces" "$T/sw/p/traces"
cp -rL traces/samples/fs_packed-4t "$T/sw/p/a/traces/T"
cp -rL traces/samples/fs_padded-4t "$T/sw/p/traces/T"      # the decoy
R=$(pwd)
AA=$(cd "$(dirname "$A")" && pwd)/archsim
printf 'include: %s/configs/false_sharing/replay.yaml\nworkload: {trace: ../traces/T}\n' "$R" \
    > "$T/sw/p/a/b/one.yaml"
{ cat "$T/sw/p/a/b/one.yaml"; printf 'sweep: {grid: {l1d.assoc: [8]}}\n'; } > "$T/sw/p/a/b/cfg.yaml"
(cd "$T/sw/p" && "$AA" sweep a/b/cfg.yaml -o sw -q && "$AA" run a/b/one.yaml -q -o one --set l1d.assoc=8) \
    > "$T/log" 2>&1
want=$(grep '^sim.cycles ' "$T/sw/p/one/stats.txt" | awk '{print $2}')
got=$(sed -n 2p "$T/sw/p/sw/sweep.csv" | cut -d, -f5)
if [ -n "$want" ] && [ "$got" = "$want" ]; then ok
else bad "sweep: block: a relative trace directory: sweep.csv says $got cycles, the run alone $want"; fi
mkdir -p "$T/np"; : > "$T/np/lru"
printf 'include: %s/configs/default.yaml\nl1d: {repl: lru}\nsweep: {grid: {l1d.assoc: [4]}}\n' "$R" \
    > "$T/np/c.yaml"
if (cd "$T/np" && "$AA" sweep c.yaml -o sw -q) > "$T/log" 2>&1 && grep -q ',ok,' "$T/np/sw/sweep.csv" &&
   grep -q 'repl: lru' "$T/np/sw/sweep-base.yaml"; then ok
else bad "sweep: block: a value that names a file beside the config is not a path: $(head -2 "$T/log")"; fi

echo "config-paths: $pass passed, $fail failed"
[ $fail -eq 0 ]
