"""Settings of one Django project serving three frameworks' APIs (server.py), cut to what they serve.

The database file is named by the environment variable NOTES_DJANGO_APIS_DATABASE (server.py sets it).
This directory is imported as the package `django_apis` (server.py registers it under that name).
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

SECRET_KEY = "notes-page-django-apis-fixture-not-secret"

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    # django-tastypie
    "tastypie",
    # Wagtail: its core and what it depends on, and its API v2 (Django REST framework)
    "wagtail",
    "wagtail.search",
    "wagtail.api.v2",
    "modelcluster",
    "taggit",
    "rest_framework",
    # the notes (django-ninja needs no app of its own)
    "django_apis",
]

ROOT_URLCONF = "django_apis.urls"
DATABASES = databases("NOTES_DJANGO_APIS_DATABASE")

LANGUAGE_CODE = "en"

# django-ninja: its defaults, spelled out. `@paginate` uses LimitOffsetPagination, 100 a page, no upper
# bound on `limit` (NINJA_PAGINATION_MAX_LIMIT unset is infinity).
NINJA_PAGINATION_CLASS = "ninja.pagination.LimitOffsetPagination"
NINJA_PAGINATION_PER_PAGE = 100

# django-tastypie: its default, spelled out: 20 a page (a resource's max_limit, 1000, caps `limit`).
API_LIMIT_PER_PAGE = 20

# Wagtail. Its API's default page is 20, and so is its default WAGTAILAPI_LIMIT_MAX, which answers 400 to
# any larger `limit`; raised to 100 here so that a client can ask for bigger pages (the default page
# stays 20).
WAGTAIL_SITE_NAME = "Notes"
WAGTAILADMIN_BASE_URL = "http://localhost"
WAGTAILAPI_LIMIT_MAX = 100
