#!/bin/sh
# regress/json-utf8.sh BUILD: issue 16 item 4: run.json and sweep.json escape their strings with
# the one escaper of sim/json.c, which trace dumps always used: an argument holding invalid UTF-8
# (here 0xFF) and a control character (0x01) gives a file a strict decoder reads, with \ufffd and
# \u0001 (the copies in main.c and sweep.c wrote the raw bytes, and Python refused the file).
# Prints "json-utf8: N passed, N failed".
set -u
A=$(cd "$(dirname "${1:-build}/archsim")" && pwd)/archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }
# strict FILE KEY TAIL: FILE is UTF-8 and JSON, and a string of d[KEY] (or d[KEY] itself) ends
# in TAIL, given as Python escapes
strict() {
    python3 -c 'import json,sys; d=json.loads(open(sys.argv[1],"rb").read().decode("utf-8"))
v=d[sys.argv[2]]; t=sys.argv[3].encode().decode("unicode_escape")
assert any(x.endswith(t) for x in (v if isinstance(v, list) else [v])), (v, t)' "$@"
}

d=$(printf "$T/run\377\001")
"$A" run configs/default.yaml -q -o "$d" > /dev/null 2>&1; rc=$?
check "run -o DIR with 0xFF and 0x01: the run succeeds" "[ $rc -eq 0 ]"
check "... and run.json is UTF-8 JSON with U+FFFD and U+0001 in argv" \
    "strict '$d/run.json' argv 'run\\ufffd\\x01'"
check "... written as the escapes \\\\ufffd and \\\\u0001" "grep -qF 'run\\ufffd\\u0001' '$d/run.json'"

# sweep.json records the config's path: a config of one line under a name with 0xFF
c=$(printf "$T/c\377.yaml")
printf 'core:\n  trace: %s/traces/samples/matmul64.lackey.gz\n' "$(pwd)" > "$c"
"$A" sweep "$c" --grid l1d.size=16KiB,32KiB -q -o "$T/sweep" > /dev/null 2>&1; rc=$?
check "sweep CONFIG named with 0xFF: sweep.json is UTF-8 JSON with U+FFFD in config" \
    "[ $rc -eq 0 ] && strict '$T/sweep/sweep.json' config 'c\\ufffd.yaml'"

echo "json-utf8: $pass passed, $fail failed"
[ $fail -eq 0 ]
