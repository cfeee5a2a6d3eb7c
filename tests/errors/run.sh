#!/bin/sh
# errors/run.sh BUILD: every bad input gets its precise message and documented exit code, never
# a crash, and never a run directory that looks complete.
#  - cases/*.yaml: a bad config each; its header says what must happen:
#        #! exit 78
#        #! stderr tests/errors/cases/unknown-key.yaml:9:3: l1d.sise: unknown key; did you mean 'size'?
#        #! args --set x=y          (optional extra arguments for `archsim run`)
#    stderr must contain that text (after substituting @T@ with the scratch directory).
#  - *.cases (cli.cases and one file per topic): one command line per line:
#        EXIT|STDERR TEXT|ARGS (ARGS split on spaces; @T@ too; @E@ is an empty argument)
# Prints "errors: N passed, N failed".
set -u
A=./archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0

expect() {  # name code text args...
    name=$1; code=$2; text=$3; shift 3
    # @E@ stands for an empty argument, which splitting on spaces cannot make
    for a in "$@"; do shift; [ "$a" = @E@ ] && a=""; set -- "$@" "$a"; done
    rm -rf "$T/out" "$T"/out.part-*
    "$A" "$@" > "$T/stdout" 2> "$T/stderr"
    rc=$?
    why=""
    [ "$rc" -eq "$code" ] || why="exit $rc, expected $code"
    [ -z "$text" ] || grep -qF -- "$text" "$T/stderr" || why="$why; stderr lacks: $text"
    [ "$rc" -lt 128 ] || why="$why; crashed (signal $((rc - 128)))"
    if [ "$code" -ne 0 ] && { [ -e "$T/out" ] || ls -d "$T"/out.part-* > /dev/null 2>&1; }; then
        why="$why; left a run directory behind"
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1)); echo "ok   $name"
    else
        fail=$((fail + 1)); echo "FAIL $name: $why"; sed 's/^/     stderr: /' "$T/stderr" | head -5
    fi
}

for f in tests/errors/cases/*.yaml; do
    code=$(sed -n 's/^#! exit //p' "$f" | head -1)
    text=$(sed -n 's/^#! stderr //p' "$f" | head -1 | sed "s|@T@|$T|g")
    args=$(sed -n 's/^#! args //p' "$f" | head -1)
    # shellcheck disable=SC2086
    expect "$f" "$code" "$text" run "$f" -q -o "$T/out" $args
done

mkdir -p "$T/real-run"; : > "$T/real-run/run.json"; ln -s "$T/real-run" "$T/link-to-run"

while IFS='|' read -r code text args; do
    case "$code" in ''|'#'*) continue ;; esac
    args=$(printf '%s' "$args" | sed "s|@T@|$T|g")
    text=$(printf '%s' "$text" | sed "s|@T@|$T|g")
    # shellcheck disable=SC2086
    expect "archsim $args" "$code" "$text" $args
done <<EOF_CASES
$(cat tests/errors/*.cases)
EOF_CASES

echo "errors: $pass passed, $fail failed"
[ $fail -eq 0 ]
