#!/usr/bin/env bash
# Installs the Python packages of Tools/apps/kinto/server.py (Kinto, which brings Pyramid, WebOb and waitress, at
# a version known to work) unless python3 imports them already (Tools/apps/pip-install.sh).
exec "$(dirname "$0")/../pip-install.sh" "kinto, waitress, webob" kinto==26.5.0
