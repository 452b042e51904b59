#!/usr/bin/env bash
# Installs the Python packages of Tools/apps/django-apis/server.py (Django, django-ninja, django-tastypie and
# Wagtail, with the Django REST framework Wagtail's API runs on, at versions known to work) unless python3
# imports them already (Tools/apps/pip-install.sh). django-ninja reads Django's settings as it is imported:
# Django's own defaults stand in for them in that check.
export DJANGO_SETTINGS_MODULE=django.conf.global_settings
exec "$(dirname "$0")/../pip-install.sh" "django, ninja, tastypie, wagtail, rest_framework" \
    django==5.2.19 django-ninja==1.7.1 django-tastypie==0.15.1 wagtail==8.0.1 djangorestframework==3.18.3
