#!/bin/sh
# run-all.sh BUILD [unit]: runs every CUnit binary under BUILD/tests, then the regression and
# bad-input suites; prints one closing line "N passed, N failed" and exits non-zero on failure.
B=${1:-build}
only=$2
pass=0; failn=0; failed=""
for t in "$B"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    if "$t" > "$B/tests/$name.log" 2>&1; then
        pass=$((pass + 1)); echo "PASS unit/$name"
    else
        failn=$((failn + 1)); failed="$failed unit/$name"; echo "FAIL unit/$name (log: $B/tests/$name.log)"
        tail -30 "$B/tests/$name.log"
    fi
done
if [ "$only" != unit ]; then
    # every tests/regress/*.sh except the golden updater, then the bad-input suite
    for s in tests/regress/run.sh $(ls tests/regress/*.sh | grep -v -e '/run.sh$' -e '/update-golden.sh$') \
             tests/errors/run.sh; do
        [ -f "$s" ] || continue
        name=$(basename "$(dirname "$s")")
        [ "$(basename "$s")" = run.sh ] || name="$name-$(basename "$s" .sh)"   # regress-dirsnoop
        if sh "$s" "$B" > "$B/tests/$name.log" 2>&1; then
            pass=$((pass + 1)); echo "PASS $name ($(tail -1 "$B/tests/$name.log"))"
        else
            failn=$((failn + 1)); failed="$failed $name"; echo "FAIL $name (log: $B/tests/$name.log)"
            tail -30 "$B/tests/$name.log"
        fi
    done
fi
echo "suites: $pass passed, $failn failed"
[ $failn -eq 0 ] || { echo "failed:$failed"; exit 1; }
