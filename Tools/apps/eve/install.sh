#!/usr/bin/env bash
# Installs the Python packages of Tools/apps/eve/server.py (Eve on Flask, PyMongo, and mongomock as its in-memory
# MongoDB, at versions known to work) unless python3 imports them already (Tools/apps/pip-install.sh).
exec "$(dirname "$0")/../pip-install.sh" "eve, flask, pymongo, mongomock, werkzeug" \
    eve==2.3.1 flask==3.1.3 pymongo==4.20.1 mongomock==4.3.0
