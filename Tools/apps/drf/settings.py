"""Settings of a plain DRF project, as `django-admin startproject` writes them, cut to what an API serves.

The database file is named by the environment variable NOTES_DRF_DATABASE (server.py sets it).
"""

import os

SECRET_KEY = "notes-page-drf-fixture-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "rest_framework",
    "drf",
]
try:
    import rest_framework_json_api  # noqa: F401

    INSTALLED_APPS.insert(-1, "rest_framework_json_api")
    JSON_API = True
except ImportError:
    JSON_API = False

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "drf.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
            ]
        },
    }
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("NOTES_DRF_DATABASE", ":memory:"),
    }
}

DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
TIME_ZONE = "UTC"
USE_TZ = True
STATIC_URL = "static/"

# DRF has no default page size; each paginator below sets its own. Errors of the JSON:API endpoint in
# JSON:API's shape (this handler leaves every other view's errors to DRF's).
REST_FRAMEWORK = {"PAGE_SIZE": 100}
if JSON_API:
    REST_FRAMEWORK["EXCEPTION_HANDLER"] = "rest_framework_json_api.exceptions.exception_handler"
