#!/usr/bin/env bash
# Installs the Python packages of Tools/apps/drf/server.py (Django, Django REST framework and its JSON:API
# package, at versions known to work) unless python3 imports them already (Tools/apps/pip-install.sh).
exec "$(dirname "$0")/../pip-install.sh" "django, rest_framework, rest_framework_json_api" \
    django==5.2.19 djangorestframework==3.18.3 djangorestframework-jsonapi==8.1.0
