"""What the Django projects of Tools/apps/ (drf/, django-apis/, oauth/) share: the settings an API needs as
`django-admin startproject` writes them, and Django's threaded WSGI server."""

import os

DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

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

DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
TIME_ZONE = "UTC"
USE_TZ = True
STATIC_URL = "static/"


def databases(variable):
    """`DATABASES`: one SQLite database, the file the environment variable `variable` names (the project's
    server.py sets it), in memory without it."""
    return {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ.get(variable, ":memory:")}}


def bind(port, quiet):
    """Django's threaded WSGI server, bound to 127.0.0.1:`port` (0: a free one) but not yet serving; each
    request is logged on stderr unless `quiet`."""
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
    from django.core.wsgi import get_wsgi_application

    class RequestHandler(WSGIRequestHandler):
        disable_nagle_algorithm = True  # socketserver sets TCP_NODELAY on each accepted socket

        def log_message(self, format, *args):
            if not quiet:
                super().log_message(format, *args)

    server = ThreadedWSGIServer(("127.0.0.1", port), RequestHandler)
    server.set_app(get_wsgi_application())
    return server


def serve(server):
    """Prints the server's base URL (stdout has it alone), then serves until the process ends."""
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
