#!/usr/bin/env bash
# Usage: Tools/apps/pip-install.sh MODULES PACKAGE...
#
# Installs the Python PACKAGEs (pinned, e.g. django==5.2.19) unless python3 imports every one of MODULES
# (comma-separated, e.g. "django, rest_framework") already. No prompts: fit for `make deps` and CI. Where the
# system's Python is externally managed (PEP 668, Debian's own python3), they go to the user's site-packages;
# inside a virtual environment or a Python of one's own (pyenv), to that Python. Installs Debian's pip when
# there is none.
set -euo pipefail

modules=$1
shift

python3 -c "import $modules" 2>/dev/null && exit 0

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

echo "Installing: $* (pip)"
python3 -m pip install "${options[@]}" "$@"
python3 -c "import $modules"
