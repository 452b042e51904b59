"""Settings of a plain DRF project, as `django-admin startproject` writes them, cut to what an API serves.

The database file is named by the environment variable NOTES_DRF_DATABASE (server.py sets it).
"""

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

SECRET_KEY = "notes-page-drf-fixture-not-secret"

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

ROOT_URLCONF = "drf.urls"
DATABASES = databases("NOTES_DRF_DATABASE")

# DRF has no default page size; each paginator below sets its own. Errors of the JSON:API endpoint in
# JSON:API's shape (this handler leaves every other view's errors to DRF's).
REST_FRAMEWORK = {"PAGE_SIZE": 100}
if JSON_API:
    REST_FRAMEWORK["EXCEPTION_HANDLER"] = "rest_framework_json_api.exceptions.exception_handler"
