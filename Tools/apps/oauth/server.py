#!/usr/bin/env python3
"""A real OAuth2 server (django-oauth-toolkit) in front of a Django REST framework API, for testing
clients that get their own tokens: the client-credentials grant and the refresh-token grant.

    python3 Tools/apps/oauth/server.py --state DIR [--projects N] [--notes-per-project K] [--expires S]
        [--port P] [--quiet]

At start-up it creates an SQLite database in a new temporary directory (removed on exit), creates the
tables (`migrate`, django-oauth-toolkit's among them) and inserts:

- N projects (`--projects`, default 20) with ids 1 to N, project p named "Project p" and updated at
  2026-01-01T00:00:00Z plus p hours;
- K notes (`--notes-per-project`, default 15) in each project whose id is not a multiple of 7 (those
  have none). Note ids are global: the j-th note (j from 1 to K) of project p has the id (p - 1) * K + j,
  so the ids are 1 to N * K but those of the projects with no notes. Note i has the title "Note i" and a
  body with non-ASCII text, quotes, a tab and a newline;
- a user, and two confidential OAuth2 applications: `cc-client` (grant type client credentials) and
  `rt-client` (grant type password), each with a random secret. `rt-client` uses the password grant once,
  in-process through django-oauth-toolkit's own TokenView, to get a refresh token for the user; the
  user's password is random and is not written anywhere.

It writes these files into the directory DIR (`--state`, required; created when missing), each the bare
value and a newline: `cc-client-id`, `cc-client-secret`, `rt-client-id`, `rt-client-secret`,
`refresh-token`. Then it listens on 127.0.0.1 (`--port`, default 0: a free port) and prints one line on
stdout, the base URL, e.g. `http://127.0.0.1:41234`, once it accepts connections (so the files are there
by then). Nothing else goes to stdout. Each request is logged on stderr (Django's `django.server` log)
unless `--quiet`, and each POST to the token endpoint, with or without `--quiet`, also gets a line

    token grant=<grant_type> auth=<basic|post|none> status=<code>

(middleware.py says what each field means; it never shows a secret or a token). SIGTERM or SIGINT stops
it, and so does the end of the process that started it.

OAuth2 (django-oauth-toolkit's defaults but for these, settings.py): access tokens live S seconds
(`--expires`, default 2); refresh tokens never expire, but each can be used once: a refresh answers a new
refresh token, and the old one is revoked at once (no grace period), so using it again answers 400
`{"error": "invalid_grant"}`. One scope, `read`, granted by default. Clients authenticate with HTTP
Basic (client_secret_basic) or `client_id` and `client_secret` in the body (client_secret_post); a wrong
secret answers 401 `{"error": "invalid_client"}`.

Endpoints:

- `POST /o/token/` django-oauth-toolkit's TokenView, form-encoded: `grant_type=client_credentials` for
  `cc-client`, `grant_type=refresh_token&refresh_token=...` for `rt-client`. Answers `{"access_token",
  "expires_in", "token_type": "Bearer", "scope": "read"}`, and `"refresh_token"` for a refresh.
- `GET /api/projects/` PageNumberPagination, 5 a page (`?page=`), by id: `{"count", "next", "previous",
  "results": [{"id", "name", "updated_at"}]}`, `next` an absolute URL or null; a page past the end
  answers 404 `{"detail": "Invalid page."}`.
- `GET /api/projects/<id>/notes/` the project's notes, PageNumberPagination, 4 a page, by id: the same
  envelope, `"results": [{"id", "project", "title", "body"}]`; 404 for a project that is not there
  (`{"detail": "No Project matches the given query."}`), 200 with `"count": 0` for one with no notes.

Both API endpoints take only `Authorization: Bearer <access token>` with scope `read`; without a valid
one (none, unknown, expired) they answer DRF's 401 `{"detail": ...}` with django-oauth-toolkit's
`WWW-Authenticate: Bearer realm="api"...` challenge (`error="invalid_token"` for an expired token).

The server is Django's own threaded WSGI server (Tools/apps/djangoproject.py), as Tools/apps/drf/ uses.
"""

import argparse
import datetime
import json
import logging
import os
import secrets
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlencode

# `oauth` is this directory, imported as a package from its parent; no bytecode is left in the tree.
sys.dont_write_bytecode = True
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from appprocess import end_on_signals, exit_with_parent  # noqa: E402 (Tools/apps/, on the path just above)
from djangoproject import bind, serve  # noqa: E402

EMPTY_EVERY = 7
CC_CLIENT_ID = "cc-client"
RT_CLIENT_ID = "rt-client"


def command_line():
    parser = argparse.ArgumentParser(description="An OAuth2 server in front of a DRF API of projects, notes.")
    parser.add_argument("--state", required=True, help="directory for the client ids, secrets, refresh token")
    parser.add_argument("--projects", type=int, default=20, help="projects, ids 1 to N")
    parser.add_argument(
        "--notes-per-project", type=int, default=15, help="notes of each project (none if 7 divides its id)"
    )
    parser.add_argument("--expires", type=int, default=2, help="access tokens' lifetime in seconds")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--quiet", action="store_true", help="no request log on stderr (token lines stay)")
    arguments = parser.parse_args()
    if arguments.projects < 0:
        parser.error("--projects must be 0 or more")
    if arguments.notes_per_project < 0:
        parser.error("--notes-per-project must be 0 or more")
    if arguments.expires < 1:
        parser.error("--expires must be 1 or more")
    return arguments


def seed(projects, per_project):
    from django.db import transaction

    from oauth.models import Note, Project

    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    with transaction.atomic():
        Project.objects.bulk_create(
            Project(id=p, name=f"Project {p}", updated_at=start + datetime.timedelta(hours=p))
            for p in range(1, projects + 1)
        )
        Note.objects.bulk_create(
            (
                Note(
                    id=i,
                    project_id=p,
                    title=f"Note {i}",
                    body=f'Body of note {i} in project {p}: café, "quoted", a tab\tand a line\nbreak.',
                )
                for p in range(1, projects + 1)
                if p % EMPTY_EVERY != 0
                for i in range((p - 1) * per_project + 1, p * per_project + 1)
            ),
            batch_size=500,
        )


def applications(password):
    """The user (with `password`) and the two applications; returns the user and {file name: value} of
    the state directory but the refresh token. The secrets are generated here, as django-oauth-toolkit
    generates them, because it keeps only their hashes."""
    from django.contrib.auth import get_user_model
    from oauth2_provider.generators import generate_client_secret
    from oauth2_provider.models import get_application_model

    Application = get_application_model()
    user = get_user_model().objects.create_user("reader", password=password)
    state = {}
    for name, client_id, grant in (
        ("cc-client", CC_CLIENT_ID, Application.GRANT_CLIENT_CREDENTIALS),
        ("rt-client", RT_CLIENT_ID, Application.GRANT_PASSWORD),
    ):
        secret = generate_client_secret()
        Application.objects.create(
            name=name,
            client_id=client_id,
            client_secret=secret,
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=grant,
            user=user,
        )
        state[f"{name}-id"] = client_id
        state[f"{name}-secret"] = secret
    return user, state


def first_refresh_token(user, password, client_secret):
    """The password grant, once, through django-oauth-toolkit's TokenView as a request to /o/token/ would
    reach it (client_secret_post), without the HTTP server or the token log; returns the refresh token."""
    from django.test import RequestFactory
    from oauth2_provider.views import TokenView

    body = urlencode(
        {
            "grant_type": "password",
            "username": user.get_username(),
            "password": password,
            "client_id": RT_CLIENT_ID,
            "client_secret": client_secret,
        }
    )
    request = RequestFactory(SERVER_NAME="127.0.0.1").post(
        "/o/token/", body, content_type="application/x-www-form-urlencoded"
    )
    # django-oauth-toolkit logs a warning each time the password grant is used (RFC 9700 discourages it):
    # this one use is the fixture's own, not a client's.
    provider_log = logging.getLogger("oauth2_provider")
    level = provider_log.level
    provider_log.setLevel(logging.ERROR)
    try:
        response = TokenView.as_view()(request)
    finally:
        provider_log.setLevel(level)
    if response.status_code != 200:
        sys.exit(f"oauth/server.py: the password grant answered {response.status_code}: {response.content!r}")
    return json.loads(response.content)["refresh_token"]


def write_state(directory, state):
    os.makedirs(directory, exist_ok=True)
    for name, value in state.items():
        path = os.path.join(directory, name)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(value + "\n")


def main():
    arguments = command_line()

    end_on_signals()
    exit_with_parent()
    with tempfile.TemporaryDirectory(prefix="notes-oauth-") as directory:
        os.environ["NOTES_OAUTH_DATABASE"] = os.path.join(directory, "db.sqlite3")
        os.environ["NOTES_OAUTH_EXPIRES"] = str(arguments.expires)
        os.environ["DJANGO_SETTINGS_MODULE"] = "oauth.settings"
        import django
        from django.core.management import call_command

        django.setup()
        call_command("migrate", run_syncdb=True, verbosity=0)
        seed(arguments.projects, arguments.notes_per_project)
        password = secrets.token_urlsafe(24)
        user, state = applications(password)
        state["refresh-token"] = first_refresh_token(user, password, state["rt-client-secret"])
        write_state(arguments.state, state)
        try:
            serve(bind(arguments.port, arguments.quiet))
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
