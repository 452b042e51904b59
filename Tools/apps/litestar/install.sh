#!/usr/bin/env bash
# Installs the Python packages of Tools/apps/litestar/server.py (Litestar and uvicorn, at versions known to work)
# unless python3 imports them already (Tools/apps/pip-install.sh).
exec "$(dirname "$0")/../pip-install.sh" "litestar, uvicorn" litestar==2.25.0 uvicorn==0.54.0
