#!/usr/bin/env bash
# Installs the Python packages of Tools/apps/smorest/server.py (Flask, which brings werkzeug, flask-smorest and
# marshmallow, at versions known to work) unless python3 imports them already (Tools/apps/pip-install.sh).
exec "$(dirname "$0")/../pip-install.sh" "flask, flask_smorest, marshmallow, werkzeug" \
    flask==3.1.3 flask-smorest==0.47.0 marshmallow==4.4.0
