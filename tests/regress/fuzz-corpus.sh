#!/bin/sh
# fuzz-corpus.sh BUILD: replays every kept fuzz corpus tests/fuzz/NAME/ through its harness
# tools/fuzz/fuzz_NAME.c, built with plain cc into BUILD/fuzz/ by `make test` (issue 15 item 12).
# A harness aborts when an oracle fails and exits 0 when every file passed (tools/fuzz/README.md),
# so any other exit, or a run past 60 s for a batch of 50 files, is a failure. Every harness must
# have a corpus and every corpus a harness. Last line: "fuzz-corpus: N passed, N failed".
B=${1:-build}
pass=0; failn=0
for src in tools/fuzz/fuzz_*.c; do
    [ -f "$src" ] || continue
    name=$(basename "$src" .c); name=${name#fuzz_}
    bin=$B/fuzz/fuzz_$name
    dir=tests/fuzz/$name
    if [ ! -x "$bin" ]; then
        echo "FAIL $name: $bin is not built (make test builds it)"; failn=$((failn + 1)); continue
    fi
    if [ ! -d "$dir" ]; then
        echo "FAIL $name: no kept corpus $dir/ (seeds and inputs that once failed, with a README.md)"
        failn=$((failn + 1)); continue
    fi
    list=$B/fuzz/$name.corpus
    find "$dir" -type f ! -name '*.md' | sort > "$list"
    n=$(wc -l < "$list")
    if [ "$n" -eq 0 ]; then
        echo "FAIL $name: $dir/ holds no inputs"; failn=$((failn + 1)); continue
    fi
    bad=0
    rm -f "$list".*
    split -l 50 "$list" "$list."
    for part in "$list".*; do
        # shellcheck disable=SC2046
        if ! timeout 60 "$bin" $(cat "$part") > "$part.log" 2>&1; then
            # name each failing file
            while read -r f; do
                if ! timeout 10 "$bin" "$f" > "$B/fuzz/$name.fail.log" 2>&1; then
                    echo "FAIL $name: $f"; sed 's/^/    /' "$B/fuzz/$name.fail.log" | tail -8
                    bad=$((bad + 1))
                fi
            done < "$part"
            [ $bad -gt 0 ] || { echo "FAIL $name: a batch failed (log: $part.log)"; bad=1; }
        fi
    done
    rm -f "$list".*
    if [ $bad -eq 0 ]; then
        echo "PASS $name: $n inputs of $dir/"; pass=$((pass + 1))
    else
        failn=$((failn + 1))
    fi
done
# Every dictionary must read in both fuzzers: "..." entries (a name= before one is allowed) with
# no escapes but \xNN, \\ and \" (libFuzzer refuses the whole file over any other, such as \n,
# and then fuzzes nothing; AFL++ drops the entry).
for dict in tools/fuzz/*.dict; do
    [ -f "$dict" ] || continue
    bad=$(grep -nvE '^[[:space:]]*(#.*)?$|^([A-Za-z0-9_]+=)?"([^"\\]|\\x[0-9A-Fa-f]{2}|\\\\|\\")*"[[:space:]]*$' "$dict")
    if [ -n "$bad" ]; then
        echo "FAIL $dict: entries neither fuzzer reads as written (escapes: \\xNN, \\\\, \\\" only):"
        echo "$bad" | sed 's/^/    /'
        failn=$((failn + 1))
    else
        echo "PASS $dict: every entry reads in AFL++ and libFuzzer"
        pass=$((pass + 1))
    fi
done
for dir in tests/fuzz/*/; do
    [ -d "$dir" ] || continue
    name=$(basename "$dir")
    [ -f "tools/fuzz/fuzz_$name.c" ] ||
        { echo "FAIL $dir: no harness tools/fuzz/fuzz_$name.c replays it"; failn=$((failn + 1)); }
done
echo "fuzz-corpus: $pass passed, $failn failed"
[ $failn -eq 0 ]
