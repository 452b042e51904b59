#!/usr/bin/env bash
# Installs the Python packages of Tools/apps/oauth/server.py (Django, Django REST framework and
# django-oauth-toolkit, at versions known to work) unless python3 imports them already
# (Tools/apps/pip-install.sh).
exec "$(dirname "$0")/../pip-install.sh" "django, rest_framework, oauth2_provider" \
    django==5.2.19 djangorestframework==3.18.3 django-oauth-toolkit==3.4.1
