"""Settings of a plain DRF project, as `django-admin startproject` writes them, cut to what an API serves,
with django-oauth-toolkit as its OAuth2 server and its only authentication.

The database file is named by the environment variable NOTES_OAUTH_DATABASE, and the access tokens'
lifetime in seconds by NOTES_OAUTH_EXPIRES (server.py sets both).
"""

import os

# What the Django projects share, from Tools/apps/ (server.py puts it on the path).
from djangoproject import (
    ALLOWED_HOSTS,
    DEBUG,
    DEFAULT_AUTO_FIELD,
    MIDDLEWARE,
    STATIC_URL,
    TEMPLATES,
    TIME_ZONE,
    USE_TZ,
    databases,
)

SECRET_KEY = "notes-page-oauth-fixture-not-secret"

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
    "rest_framework",
    "oauth",
]

# The token endpoint's log line (middleware.py) outside the rest, so that it sees the final status.
MIDDLEWARE = ["oauth.middleware.token_log", *MIDDLEWARE]

ROOT_URLCONF = "oauth.urls"
DATABASES = databases("NOTES_OAUTH_DATABASE")
# Django's threaded server writes tokens from several threads: a transaction takes SQLite's write lock
# as it begins, so that two token requests at once wait for each other rather than fail "locked".
DATABASES["default"]["OPTIONS"] = {"transaction_mode": "IMMEDIATE"}

# django-oauth-toolkit hashes client secrets (and Django, passwords) with Django's password hashers,
# PBKDF2 at a million iterations by default: about half a second of CPU for each token request. A
# throwaway server's secrets need no such cost; the fast hasher Django's testing documentation suggests.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# django-oauth-toolkit: short-lived access tokens; each refresh token used once (a new one comes with
# each refresh, and the old one is revoked at once, no grace period). Its defaults otherwise: the token
# endpoint takes client_secret_basic and client_secret_post, and refresh tokens do not expire.
OAUTH2_PROVIDER = {
    "ACCESS_TOKEN_EXPIRE_SECONDS": int(os.environ.get("NOTES_OAUTH_EXPIRES", "2")),
    "ROTATE_REFRESH_TOKEN": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "SCOPES": {"read": "Read projects and notes"},
    "DEFAULT_SCOPES": ["read"],
}

# DRF: django-oauth-toolkit's bearer tokens only. A client-credentials token has no user, so the
# permission is the token's scope alone (a GET needs "read"), not IsAuthenticated. A request without a
# valid token answers DRF's 401 with django-oauth-toolkit's `WWW-Authenticate: Bearer ...` challenge.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["oauth2_provider.contrib.rest_framework.OAuth2Authentication"],
    "DEFAULT_PERMISSION_CLASSES": ["oauth2_provider.contrib.rest_framework.TokenHasReadWriteScope"],
}
