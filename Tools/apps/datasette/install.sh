#!/usr/bin/env bash
# Installs the Python packages of Tools/apps/datasette/server.py (Datasette, which brings uvicorn, at a version
# known to work) unless python3 imports them already (Tools/apps/pip-install.sh).
exec "$(dirname "$0")/../pip-install.sh" "datasette, uvicorn" datasette==0.65.5
