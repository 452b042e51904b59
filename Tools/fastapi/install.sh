#!/usr/bin/env bash
# Installs the Python packages of Tools/fastapi/server.py (FastAPI, fastapi-pagination, uvicorn, and
# SQLAlchemy with sqlakeyset for fastapi-pagination's SQLAlchemy paging and its cursors, at versions known
# to work) unless python3 imports them already. No prompts: fit for `make deps` and CI. Where the system's
# Python is externally managed (PEP 668, Debian's own python3), they go to the user's site-packages; inside
# a virtual environment or a Python of one's own (pyenv), to that Python.
set -euo pipefail

packages=(fastapi==0.165.0 fastapi-pagination==0.16.1 uvicorn==0.54.0 sqlalchemy==2.1.9 sqlakeyset==2.0.1787969905)

python3 -c 'import fastapi, fastapi_pagination, uvicorn, sqlalchemy, sqlakeyset' 2>/dev/null && exit 0

sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
if ! python3 -m pip --version >/dev/null 2>&1; then
    echo "Installing: python3-pip"
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip
fi

options=(--quiet --disable-pip-version-check --no-input)
if python3 -c '
import os, sys, sysconfig
in_venv = sys.prefix != sys.base_prefix
managed = os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED"))
sys.exit(0 if managed and not in_venv else 1)'; then
    options+=(--user --break-system-packages)
fi
[ "$(id -u)" = 0 ] && options+=(--root-user-action=ignore)

echo "Installing: ${packages[*]} (pip)"
python3 -m pip install "${options[@]}" "${packages[@]}"
python3 -c 'import fastapi, fastapi_pagination, uvicorn, sqlalchemy, sqlakeyset'
