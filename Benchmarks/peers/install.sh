#!/usr/bin/env bash
# Usage: Benchmarks/peers/install.sh [DIR]
#
# Installs the Python peers of the store benchmarks (Benchmarks/benchmarks/StoreBenchmarks.swift and
# PostgresBenchmarks.swift) from PyPI, at versions known to work, into the virtual environment DIR (default:
# .build/bench-peers in the package), unless its Python imports them already: sqlite-utils (`sqlite-utils
# insert`) and dlt with its sqlalchemy and postgres destinations (Benchmarks/peers/dlt-load.py; its rest_api
# source for dlt-rest-fanout.py). A virtual environment of their own: dlt's dependencies stay out of the
# Python that the Django and FastAPI fixtures use. No prompts; installs Debian's venv module when python3 has
# none. `make bench` runs it; `make bench-quick` (CI) never does, and skips the rows of peers that are not
# installed, saying why.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
venv=${1:-$root/.build/bench-peers}
modules="sqlite_utils, dlt, sqlalchemy, psycopg2"
packages=(sqlite-utils==4.2.1 "dlt[sqlalchemy,postgres]==1.31.0" sqlalchemy==2.1.9)

[ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import $modules" 2>/dev/null && exit 0

sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    echo "Installing: python3-venv"
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv
fi

python3 -m venv "$venv"
options=(--quiet --disable-pip-version-check --no-input)
[ "$(id -u)" = 0 ] && options+=(--root-user-action=ignore)
echo "Installing: ${packages[*]} (pip, into $venv)"
"$venv/bin/python" -m pip install "${options[@]}" "${packages[@]}"
"$venv/bin/python" -c "import $modules"
