#!/usr/bin/env bash
# Installs the Python packages of Tools/apps/pygeoapi/server.py (pygeoapi, with the Flask, werkzeug and PyYAML it
# runs on, at versions known to work) unless python3 imports them already (Tools/apps/pip-install.sh).
exec "$(dirname "$0")/../pip-install.sh" "pygeoapi, pygeoapi.openapi, flask, werkzeug, yaml" \
    pygeoapi==0.21.0 flask==3.1.3 werkzeug==3.1.8 pyyaml==6.0.3
