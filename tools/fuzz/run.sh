#!/bin/sh
# run.sh NAME...: the body of `make fuzz` (tools/fuzz/README.md). For each harness
# tools/fuzz/fuzz_NAME.c, one after another (or FUZZ_JOBS at once): fuzz it for FUZZ_SECONDS with
# FUZZ_ENGINE (afl: afl-fuzz; libfuzzer: clang's), seeded from tests/fuzz/NAME/ and with the
# dictionary tools/fuzz/NAME.dict if there is one; then replay every input it kept (queue,
# crashes, hangs) through the ASan+UBSan build; print executions, paths, crashes and hangs.
# Exits 1 on any finding and names each reproducer. Binaries come from `make fuzz-harnesses`.
# Everything is written under build-fuzz/NAME/, made again on each run; the previous run's queue
# is added to the seeds, so sessions add up.
SECS=${FUZZ_SECONDS:-1800}
JOBS=${FUZZ_JOBS:-1}
ENGINE=${FUZZ_ENGINE:-afl}
[ $# -gt 0 ] || { echo "usage: run.sh NAME... (harnesses tools/fuzz/fuzz_NAME.c)" >&2; exit 64; }

# An input kept by the fuzzer is a finding when the sanitizer build aborts on it, a sanitizer
# reports, or it runs past 10 s (the convention is well under a second).
# (set for the replay only: afl-fuzz sets its own)
SAN_ENV="ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:symbolize=1
UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1"

# replay NAME DIR...: runs every file of the DIRs through the ASan build, 100 at a time; a batch
# that fails is rerun file by file so each failing file is named. Writes DIR/../replay.txt.
replay() {
    name=$1; shift
    bin=build-fuzz/asan/fuzz/fuzz_$name
    list=build-fuzz/$name/replay.list
    find "$@" -type f ! -name README.txt ! -name '.*' 2>/dev/null | sort > "$list"
    n=$(wc -l < "$list")
    bad=0
    split -l 100 "$list" "$list."
    for part in "$list".*; do
        [ -s "$part" ] || continue
        # shellcheck disable=SC2046
        if ! env $SAN_ENV timeout 300 "$bin" $(cat "$part") > /dev/null 2>&1; then
            while read -r f; do
                if ! env $SAN_ENV timeout 10 "$bin" "$f" > "build-fuzz/$name/replay-$(basename "$f").log" 2>&1; then
                    echo "  REPRODUCER $f (log: build-fuzz/$name/replay-$(basename "$f").log)"
                    bad=$((bad + 1))
                fi
            done < "$part"
        fi
        rm -f "$part"
    done
    echo "$n $bad" > "build-fuzz/$name/replay.txt"
}

# stat FILE KEY...: the first of the keys present in an afl fuzzer_stats file
stat() {
    f=$1; shift
    for k in "$@"; do
        v=$(sed -n "s/^$k *: *//p" "$f" 2>/dev/null | head -1)
        [ -n "$v" ] && { echo "$v"; return; }
    done
    echo 0
}

fuzz_one() {
    name=$1
    src=tools/fuzz/fuzz_$name.c
    bin=build-fuzz/$ENGINE/fuzz/fuzz_$name
    dir=build-fuzz/$name
    [ -f "$src" ] || { echo "fuzz $name: no $src" >&2; return 1; }
    [ -x "$bin" ] && [ -x "build-fuzz/asan/fuzz/fuzz_$name" ] ||
        { echo "fuzz $name: $bin missing: run make fuzz-harnesses" >&2; return 1; }
    # seeds: the kept corpus (not its README), plus the queue of the previous run if there is one
    # (so sessions add up); one trivial input when there is nothing yet
    rm -rf "$dir.prev"
    for q in "$dir/out/default/queue" "$dir/corpus"; do
        [ -d "$q" ] && mkdir -p "$dir.prev" && find "$q" -maxdepth 1 -type f ! -name '.*' | while read -r f; do cp "$f" "$dir.prev/prev-$(basename "$f" | tr -c 'A-Za-z0-9_.\n-' '_' | cut -c1-60)"; done
    done
    rm -rf "$dir"
    mkdir -p "$dir/seeds"
    if [ -d "tests/fuzz/$name" ]; then
        find "tests/fuzz/$name" -type f ! -name '*.md' -exec cp {} "$dir/seeds/" \;
    fi
    if [ -d "$dir.prev" ]; then
        cp "$dir.prev"/* "$dir/seeds/" 2>/dev/null
        rm -rf "$dir.prev"
    fi
    [ -n "$(ls "$dir/seeds")" ] || printf '0\n' > "$dir/seeds/empty"
    dict=
    [ -f "tools/fuzz/$name.dict" ] && dict=tools/fuzz/$name.dict
    if [ "$ENGINE" = afl ]; then
        # a harness with AFL++'s persistent loop reads inputs from shared memory, others a file
        file_arg=@@
        grep -q __AFL_LOOP "$src" && file_arg=
        AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
        AFL_SKIP_CRASHES=1 \
            afl-fuzz -i "$dir/seeds" -o "$dir/out" ${dict:+-x "$dict"} -V "$SECS" -t 1000 -m none \
            -- "$bin" $file_arg > "$dir/fuzz.log" 2>&1
        rc=$?
        st=$dir/out/default/fuzzer_stats
        if [ ! -f "$st" ]; then
            echo "fuzz $name: afl-fuzz did not start (exit $rc); see $dir/fuzz.log:"
            tail -5 "$dir/fuzz.log"
            return 1
        fi
        execs=$(stat "$st" execs_done)
        paths=$(stat "$st" corpus_count paths_total)
        crashes=$(stat "$st" saved_crashes unique_crashes)
        hangs=$(stat "$st" saved_hangs unique_hangs)
        kept="$dir/out/default/queue $dir/out/default/crashes $dir/out/default/hangs"
        crashdir=$dir/out/default/crashes
    else
        mkdir -p "$dir/corpus" "$dir/artifacts"
        # no leak check at exit: after hundreds of thousands of inputs in one process it reports
        # GLib's quark arrays (each growth of the table of interned strings drops the old array on
        # purpose, and archsim interns file names and --set texts); libFuzzer still checks each new
        # input for leaks, and the replay below checks every kept input in fresh processes
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}leak_check_at_exit=0 \
        "$bin" -max_total_time="$SECS" -timeout=1 -rss_limit_mb=2048 -print_final_stats=1 \
            ${dict:+-dict="$dict"} -artifact_prefix="$dir/artifacts/" "$dir/corpus" "$dir/seeds" \
            > "$dir/fuzz.log" 2>&1
        rc=$?
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz.log" | tail -1)
        # it prints its final stats after a run that went its time or stopped at a finding;
        # without them (a dictionary it cannot read, a bad flag) it never fuzzed
        if [ -z "$execs" ]; then
            echo "fuzz $name: libFuzzer did not start (exit $rc); see $dir/fuzz.log:"
            tail -5 "$dir/fuzz.log"
            echo 1 > "$dir/status"
            return 1
        fi
        paths=$(find "$dir/corpus" -type f | wc -l)
        crashes=$(find "$dir/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' \) | wc -l)
        hangs=$(find "$dir/artifacts" -type f \( -name 'timeout-*' -o -name 'slow-unit-*' \) | wc -l)
        kept="$dir/corpus $dir/artifacts"
        crashdir="$dir/artifacts/crash-* $dir/artifacts/leak-*"
    fi
    replay "$name" $kept
    read -r nrep badrep < "$dir/replay.txt"
    # A hang is an input that ran past the fuzzer's 1 s limit. On a loaded machine that can be
    # the machine: each is rerun alone with 2 s, and only one that is still too slow counts.
    slow=0; hangdir=$dir/out/default/hangs
    [ "$ENGINE" = afl ] || hangdir=$dir/artifacts
    for f in $(find "$hangdir" -type f \( -name 'id:*' -o -name 'timeout-*' -o -name 'slow-unit-*' \) 2>/dev/null); do
        if [ "$ENGINE" = afl ]; then timeout 2 "$bin" "$f" > /dev/null 2>&1
        else timeout 2 "build-fuzz/asan/fuzz/fuzz_$name" "$f" > /dev/null 2>&1; fi
        [ $? -eq 124 ] && { slow=$((slow + 1)); echo "  REPRODUCER $f (hang: still over 2 s alone)"; }
    done
    echo "fuzz $name: ${execs:-0} executions, ${paths:-0} paths, ${crashes:-0} crashes," \
         "${hangs:-0} hangs ($slow still over 2 s alone) in ${SECS}s ($ENGINE);" \
         "replay of $nrep kept inputs under ASan+UBSan: $badrep failed"
    status=0
    for f in $(find $crashdir -type f ! -name README.txt 2>/dev/null); do
        echo "  REPRODUCER $f"
        status=1
    done
    [ "${crashes:-0}" = 0 ] && [ "$slow" = 0 ] && [ "$badrep" = 0 ] || status=1
    echo "$status" > "$dir/status"
    return $status
}

mkdir -p build-fuzz
running=0
for name in "$@"; do
    if [ "$JOBS" -gt 1 ]; then
        mkdir -p "build-fuzz/$name"
        ( fuzz_one "$name" > "build-fuzz/$name.summary" 2>&1 ) &
        running=$((running + 1))
        if [ $running -ge "$JOBS" ]; then wait; running=0; fi
    else
        fuzz_one "$name" | tee "build-fuzz/$name.summary"
    fi
done
wait
[ "$JOBS" -gt 1 ] && for name in "$@"; do cat "build-fuzz/$name.summary"; done
fail=0
for name in "$@"; do
    [ "$(cat "build-fuzz/$name/status" 2>/dev/null)" = 0 ] || { fail=1; echo "make fuzz: finding or failure in $name" >&2; }
done
[ $fail = 0 ] && echo "make fuzz: $# harnesses, no findings"
exit $fail
