#!/bin/sh
# install.sh BUILD: `make install PREFIX=... DESTDIR=...` gives a bin/archsim that runs the
# README's examples from another directory with what it installed beside it (issue 16 items 1
# and 4): inputs from the cwd first, then PREFIX/share/archsim; the same stats as the clone's
# binary; the man page and the bash completion; `make uninstall` leaves no file behind.
B=${1:-build}
A=$B/archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
check() {  # name command...: the command must succeed
    name=$1; shift
    if "$@" > "$T/log" 2>&1; then ok; else bad "$name"; sed 's/^/     /' "$T/log" | head -8; fi
}
unset ARCHSIM_DATA
dbg=""
case $B in *build-debug) dbg="DEBUG=1" ;; esac

P=$T/prefix                       # PREFIX, staged under DESTDIR as a package build would
D=$T/dest
I=$D$P
# shellcheck disable=SC2086
if ! make -s --no-print-directory BUILD="$B" $dbg install PREFIX="$P" DESTDIR="$D" > "$T/make.log" 2>&1; then
    bad "make install"; tail -20 "$T/make.log"; echo "install: $pass passed, $fail failed"; exit 1
fi
for f in bin/archsim bin/archsim-cc lib/archsim/archsim_tracer.o lib/archsim/archsim_trace.h \
         share/man/man1/archsim.1 share/bash-completion/completions/archsim \
         share/archsim/configs/default.yaml share/archsim/configs/parts \
         share/archsim/traces/samples/matmul64.lackey.gz share/archsim/traces/samples/fs_packed-4t \
         share/archsim/tests/tpu/shipped/v2/configs/scale.cfg share/archsim/tests/litmus/herd/SB.litmus; do
    if [ -e "$I/$f" ]; then ok; else bad "make install did not install $f"; fi
done
[ -e "$P" ] && bad "make install wrote outside DESTDIR ($P)"

# ---- from a directory that has none of the tree ----
W=$T/work
mkdir -p "$W"
X=$I/bin/archsim
data=$I/share/archsim
( cd "$W" && "$X" run configs/default.yaml -q ) > "$T/run.out" 2>&1 || { bad "installed run configs/default.yaml"; cat "$T/run.out"; }
"$A" run configs/default.yaml -q -o "$T/ref" > /dev/null 2>&1
if [ -f "$W/runs/default-1/stats.txt" ] && cmp -s "$W/runs/default-1/stats.txt" "$T/ref/stats.txt"; then ok
else bad "installed run: no runs/default-1/ in the cwd, or its stats.txt differs from the clone's"; fi
grep -q "\"config\": \"$data/configs/default.yaml\"" "$W/runs/default-1/run.json" 2>/dev/null && ok ||
    bad "run.json does not name the installed config $data/configs/default.yaml"

# `archsim validate configs/*.yaml` where the shell found nothing to expand
n_want=$(ls configs/*.yaml | wc -l)
n_got=$( (cd "$W" && "$X" validate 'configs/*.yaml') 2> "$T/val.err" | grep -c ': ok (config: .*)$')
[ "$n_got" -eq "$n_want" ] && ok || { bad "validate 'configs/*.yaml': $n_got ok of $n_want"; head -5 "$T/val.err"; }
check "describe" sh -c "cd '$W' && '$X' describe"
"$A" cachegrind traces/samples/matmul64.lackey.gz > "$T/cg.ref" 2>&1
(cd "$W" && "$X" cachegrind traces/samples/matmul64.lackey.gz) > "$T/cg.out" 2>&1
cmp -s "$T/cg.ref" "$T/cg.out" && ok || bad "installed cachegrind differs from the clone's"
check "tpu with a shipped SCALE-Sim config" sh -c "cd '$W' && '$X' tpu -q -o runs/alexnet \
    -c tests/tpu/shipped/v2/configs/scale.cfg -t tests/tpu/shipped/v2/topologies/conv_nets/alexnet.csv"
check "run configs/tpu/scale.yaml (it names ../../tests/tpu/shipped/...)" \
    sh -c "cd '$W' && '$X' run configs/tpu/scale.yaml -q"
check "litmus tests/litmus/herd/SB.litmus" sh -c "cd '$W' && '$X' litmus -m tso --runs 20 tests/litmus/herd/SB.litmus"
check "trace info on a sample trace" sh -c "cd '$W' && '$X' trace info traces/samples/saxpy/T0.trace"
check "a --set path from the data directory" sh -c "cd '$W' && '$X' validate configs/default.yaml \
    --set core.trace=traces/samples/matmul64.lackey.gz"

# a missing input says where it looked; the cwd comes first; ARCHSIM_DATA overrides
(cd "$W" && "$X" run configs/nope.yaml) > /dev/null 2> "$T/err"; rc=$?
[ $rc -eq 66 ] && grep -qF "configs/nope.yaml: cannot open: No such file or directory (looked in the current directory, then in $data;" "$T/err" && ok ||
    { bad "missing config: exit $rc, stderr:"; cat "$T/err"; }
mkdir -p "$W/configs" && printf 'bogus: [\n' > "$W/configs/default.yaml"
(cd "$W" && "$X" run configs/default.yaml -q) > /dev/null 2> "$T/err"; rc=$?
[ $rc -eq 78 ] && ok || bad "a configs/default.yaml in the cwd was not read first (exit $rc)"
rm -rf "$W/configs"
(cd "$W" && ARCHSIM_DATA=$T/nodata "$X" run configs/default.yaml) > /dev/null 2> "$T/err"; rc=$?
[ $rc -eq 66 ] && grep -qF "then in $T/nodata;" "$T/err" && ok || { bad "ARCHSIM_DATA: exit $rc"; cat "$T/err"; }
[ "$("$X" --version | cut -d' ' -f2)" = "$(cat VERSION)" ] && ok || bad "--version is not VERSION's $(cat VERSION)"

# ---- man page: valid man(7), one section per command of --help ----
M=$I/share/man/man1/archsim.1
if command -v man > /dev/null; then
    MANWIDTH=100 man -l "$M" > "$T/man.txt" 2> "$T/man.err"
    [ -s "$T/man.txt" ] && grep -q "archsim run" "$T/man.txt" && ok || { bad "man -l archsim.1"; head "$T/man.err"; }
fi
if command -v groff > /dev/null; then
    w=$(groff -man -ww -z "$M" 2>&1 | head -5)
    [ -z "$w" ] && ok || bad "groff warns on archsim.1: $w"
fi
grep -q "^\.TH ARCHSIM 1 .*archsim $(cat VERSION)" "$M" && ok || bad "archsim.1 has no .TH with the version"
for c in $("$A" --help | sed -n '/^Commands:$/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'); do
    [ "$c" = help ] && continue
    grep -q "^\.SS \"archsim $c\"" "$M" && ok || bad "archsim.1 has no section for $c"
done

# ---- bash completion: sources cleanly; commands; every option of every command's --help ----
C=$I/share/bash-completion/completions/archsim
if command -v bash > /dev/null; then
    comp() {  # words...: what TAB offers after them
        bash -c '. "$1" || exit 1; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _archsim
                 echo "${COMPREPLY[*]}"' sh "$C" "$@"
    }
    [ "$(comp archsim ru)" = run ] && ok || bad "completion: 'archsim ru' gives '$(comp archsim ru)'"
    [ "$(comp archsim trace in)" = info ] && ok || bad "completion: 'archsim trace in'"
    case " $(cd "$data" && comp archsim run configs/def) " in *" configs/default.yaml "*) ok ;;
        *) bad "completion: 'archsim run configs/def' does not offer configs/default.yaml" ;; esac
    for c in $("$A" --help | sed -n '/^Commands:$/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'); do
        [ "$c" = help ] || [ "$c" = trace ] && continue
        for o in $("$A" "$c" --help | sed -n 's/^ *\(-., \)*\(--[A-Za-z0-9][A-Za-z0-9-]*\).*/\2/p'); do
            case " $(comp archsim "$c" --) " in *" $o "*) ok ;; *) bad "completion: archsim $c lacks $o" ;; esac
        done
    done
fi

# ---- the installed archsim-cc uses the installed runtime; the installed binary records ----
if command -v gcc > /dev/null && echo 'int main(void){return 0;}' > "$T/t.c" &&
   gcc -fsanitize=thread -c "$T/t.c" -o "$T/t.o" 2> /dev/null; then
    cat > "$W/prog.c" <<'EOF_C'
#include <pthread.h>
static int x;
static void *work(void *a) { (void)a; for (int i = 0; i < 100; i++) x++; return 0; }
int main(void) { pthread_t t; pthread_create(&t, 0, work, 0); pthread_join(t, 0); return 0; }
EOF_C
    check "installed archsim-cc + trace record" sh -c "cd '$W' && '$I/bin/archsim-cc' -O1 -pthread prog.c -o prog &&
        '$X' trace record -q -o traces/mine -- ./prog && test -f traces/mine/T1.trace"
    [ -e "$I/lib/archsim/archsim_tracer.o" ] && [ ! -e "$I/build" ] && ok || bad "archsim-cc built into PREFIX"
fi

# ---- every ./archsim command of README.md, as written, with the installed binary ----
# (the Done-when of issue 16: DIR/bin/archsim runs every example of the README from any
# directory; the commands come from tests/regress/doccmd.py, the rule the doc test uses). The
# recording block after the first tools/archsim-cc line builds a workload of the clone: the
# README says it needs the clone, and the doc test runs it there.
W2=$T/readme
mkdir -p "$W2"
python3 tests/regress/doccmd.py list README.md | sed '/: tools\/archsim-cc /,$d' |
    sed -n 's/^README\.md:\([0-9]*\): \(\.\/archsim .*\)$/\1 \2/p' > "$T/readme.cmds"
n_readme=0
while read -r line cmd; do
    want=0
    case $cmd in *"  [exit "[0-9]*"]") want=${cmd##*  \[exit }; want=${want%]} ;; esac
    cmd=$(printf '%s' "$cmd" | sed 's/  \[[^]]*\]$//')
    n_readme=$((n_readme + 1))
    run=$(printf '%s' "$cmd" | sed "s|^\./archsim|\"$X\"|")
    ( cd "$W2" && timeout 120 sh -c "$run" ) > "$T/readme.out" 2>&1
    rc=$?
    if [ "$rc" -eq "$want" ]; then ok
    else bad "README.md:$line with the installed binary from $W2: exit $rc, expected $want: $cmd"
         tail -5 "$T/readme.out" | sed 's/^/     /'; fi
done < "$T/readme.cmds"
[ "$n_readme" -ge 10 ] && ok || bad "README.md: only $n_readme ./archsim commands found"

# ---- uninstall leaves no file ----
# shellcheck disable=SC2086
make -s --no-print-directory BUILD="$B" $dbg uninstall PREFIX="$P" DESTDIR="$D" > "$T/make.log" 2>&1 || bad "make uninstall"
left=$(find "$D" ! -type d | head -5)
[ -z "$left" ] && ok || bad "make uninstall left: $left"

echo "install: $pass passed, $fail failed"
[ $fail -eq 0 ]
