#!/bin/sh
# regress/help.sh BUILD: issue 16 item 4: every subcommand's --help has one hand-written layout
# (it was GLib's raw "Usage: run [OPTION...]" / "Help Options:" for run, sweep, validate and
# describe): "Usage: archsim CMD ..." first, a one-line summary, "Options:" with -h/--help, and
# exit codes (or a pointer to archsim --help); `archsim help CMD` prints the same text; a bad
# option gives exactly "archsim CMD: problem" + "Try 'archsim CMD --help'." (exit 64).
# The commands are read from `archsim --help`, so a new one is checked without editing this.
# Prints "help: N passed, N failed".
set -u
A=$(cd "$(dirname "${1:-build}/archsim")" && pwd)/archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }

"$A" --help > "$T/global"
cmds=$(sed -n '/^Commands:/,/^$/p' "$T/global" | sed -n 's/^  \([a-z][a-z-]*\).*/\1/p' | grep -v '^help$')
check "archsim --help lists the commands" "[ \$(echo \$cmds | wc -w) -ge 9 ]"
for c in $cmds "trace info" "trace dump" "trace record" "trace gaps"; do
    # shellcheck disable=SC2086
    "$A" $c --help > "$T/h" 2> "$T/e"; rc=$?
    check "$c --help: exit 0, nothing on stderr" "[ $rc -eq 0 ] && [ ! -s '$T/e' ]"
    check "$c --help: first line 'Usage: archsim $c', then a blank line and a summary" \
        "head -1 '$T/h' | grep -q '^Usage: archsim $c' &&
         awk '/^\$/ { getline s; print s; exit }' '$T/h' | grep -q '^[A-Z].*\\.\$'"
    check "$c --help: an Options: section with -h, --help" \
        "grep -q '^Options:\$' '$T/h' && grep -q '^  -h, --help  *Show this help and exit\$' '$T/h'"
    check "$c --help: exit codes, or a pointer to archsim --help" \
        "grep -q -e '^Exit status' -e 'archsim --help' '$T/h'"
    check "$c --help: none of GLib's own layout" \
        "! grep -q -e 'Help Options:' -e 'Application Options:' -e '\\[OPTION[^S]' '$T/h'"
    # shellcheck disable=SC2086
    "$A" help $c > "$T/h2" 2>&1
    check "archsim help $c prints the same" "cmp -s '$T/h' '$T/h2'"
    # shellcheck disable=SC2086
    "$A" $c --no-such-option > /dev/null 2> "$T/e"; rc=$?
    check "$c --no-such-option: 64, 'archsim $c: ...' + 'Try 'archsim $c --help'.'" \
        "[ $rc -eq 64 ] && [ \$(wc -l < '$T/e') -eq 2 ] && head -1 '$T/e' | grep -q '^archsim $c: ' &&
         tail -1 '$T/e' | grep -qx \"Try 'archsim $c --help'.\""
done
"$A" help nosuch > "$T/o" 2> "$T/e"; rc=$?
check "archsim help nosuch: 64, an error naming it, nothing on stdout" \
    "[ $rc -eq 64 ] && [ ! -s '$T/o' ] && grep -q \"unknown command 'nosuch'\" '$T/e'"
"$A" help valdate > /dev/null 2> "$T/e"; rc=$?
check "archsim help valdate: 64 with a suggestion" \
    "[ $rc -eq 64 ] && grep -q \"did you mean 'validate'?\" '$T/e'"
"$A" help > "$T/o"; rc=$?
check "archsim help alone: the global help" "[ $rc -eq 0 ] && cmp -s '$T/o' '$T/global'"

echo "help: $pass passed, $fail failed"
[ $fail -eq 0 ]
