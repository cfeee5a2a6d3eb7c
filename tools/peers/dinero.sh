#!/bin/sh
# peers/dinero.sh: builds Dinero IV (Jan Edler and Mark Hill's trace-driven cache simulator,
# release 7, 1998) outside the repository, for `make bench`'s side-by-side row, and prints the
# path of its dineroIV binary. No Dinero code enters archsim: it is fetched and built elsewhere.
#
#   sh tools/peers/dinero.sh            prints .../dinero4/d4-7/dineroIV (exit 0), or says why
#                                       it cannot (exit 2: no source reachable, 1: build failed)
#
# Where: $ARCHSIM_PEERS (default ${XDG_CACHE_HOME:-$HOME/.cache}/archsim-peers)/dinero4.
# Source: $DINERO_REPO, a git URL or a local clone or mirror (default the danluu/dineroIV mirror
# on GitHub, which carries the pristine d4-7.tar.gz), at commit e0815a26 (Nov 2014); the build
# is the tarball's own ./configure && make (gcc 12 builds it with warnings only).
set -u
PEERS=${ARCHSIM_PEERS:-${XDG_CACHE_HOME:-$HOME/.cache}/archsim-peers}
REPO=${DINERO_REPO:-https://github.com/danluu/dineroIV}
COMMIT=e0815a26
DIR=$PEERS/dinero4
BIN=$DIR/d4-7/dineroIV
if [ -x "$BIN" ]; then
    echo "$BIN"
    exit 0
fi
command -v git > /dev/null 2>&1 || { echo "dinero.sh: git not found" >&2; exit 2; }
mkdir -p "$PEERS" || exit 1
rm -rf "$DIR"
if ! GIT_TERMINAL_PROMPT=0 git clone -q "$REPO" "$DIR" > /dev/null 2>&1; then
    echo "dinero.sh: cannot fetch Dinero IV from $REPO (offline? set DINERO_REPO to a local clone)" >&2
    rm -rf "$DIR"
    exit 2
fi
if ! (cd "$DIR" && git checkout -q "$COMMIT" 2>/dev/null && tar xzf d4-7.tar.gz &&
      cd d4-7 && ./configure > build.log 2>&1 && make >> build.log 2>&1); then
    echo "dinero.sh: building Dinero IV failed; see $DIR/d4-7/build.log" >&2
    exit 1
fi
echo "$BIN"
