#!/bin/sh
# peers/scalesim.sh: makes a Python virtual environment with SCALE-Sim (ARM/Georgia Tech's
# systolic-array simulator, `pip install scalesim`) outside the repository, for `make bench`'s
# TPU row, and prints the venv's python. Without it the row uses the CPU times recorded with
# SCALE-Sim's own runs (tests/tpu/scalesim/ref/*/cpu_time.txt) and says so.
#
#   sh tools/peers/scalesim.sh          prints .../scalesim-venv/bin/python (exit 0), or says why
#                                       it cannot (exit 2: no package index or source reachable)
#
# Where: $ARCHSIM_PEERS (default ${XDG_CACHE_HOME:-$HOME/.cache}/archsim-peers)/scalesim-venv.
# Source: PyPI's scalesim, or $SCALESIM_SRC (a local checkout of scalesim-project/scale-sim-v2,
# installed with its dependencies from the system's packages: Debian python3-numpy,
# python3-pandas, python3-tqdm). The venv sees the system's site-packages.
set -u
PEERS=${ARCHSIM_PEERS:-${XDG_CACHE_HOME:-$HOME/.cache}/archsim-peers}
VENV=$PEERS/scalesim-venv
PY=$VENV/bin/python
if [ -x "$PY" ] && "$PY" -c 'import scalesim' > /dev/null 2>&1; then
    echo "$PY"
    exit 0
fi
mkdir -p "$PEERS" || exit 1
# Debian's python3, whose site-packages hold Debian's numpy and pandas (another python3 may come
# first on PATH)
SYSPY=python3
[ -x /usr/bin/python3 ] && SYSPY=/usr/bin/python3
missing=""
for m in numpy:python3-numpy pandas:python3-pandas tqdm:python3-tqdm absl:python3-absl; do
    $SYSPY -c "import ${m%%:*}" > /dev/null 2>&1 || missing="$missing ${m#*:}"
done
if [ -n "$missing" ]; then
    echo "scalesim.sh: SCALE-Sim needs$missing (as root: apt-get install -y$missing)" >&2
    exit 2
fi
rm -rf "$VENV"
if ! $SYSPY -m venv --system-site-packages "$VENV" > /dev/null 2>&1; then
    echo "scalesim.sh: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2
    exit 2
fi
if [ -n "${SCALESIM_SRC:-}" ]; then
    "$PY" -m pip install --no-deps --no-build-isolation -q "$SCALESIM_SRC" > "$VENV/install.log" 2>&1
else
    "$PY" -m pip install -q --timeout 20 scalesim > "$VENV/install.log" 2>&1
fi
if ! "$PY" -c 'import scalesim' > /dev/null 2>&1; then
    echo "scalesim.sh: cannot install SCALE-Sim (no package index reachable? set SCALESIM_SRC to a" \
         "checkout of scale-sim-v2); see $VENV/install.log" >&2
    exit 2
fi
echo "$PY"
