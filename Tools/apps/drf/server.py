#!/usr/bin/env python3
"""A real Django REST framework app over SQLite, for testing clients against the framework's defaults.

    python3 Tools/apps/drf/server.py [--count N] [--port P] [--quiet]

At start-up it creates an SQLite database in a new temporary directory (removed on exit), creates the
tables (`migrate`), inserts N notes (`--count`, default 5000) with ids 1 to N, and deletes every note
whose id is a multiple of 97, as rows of a real table go missing:

    the ids served are exactly {i for i in range(1, N + 1) if i % 97 != 0}

(5000 notes: 4949 served, the largest id 5000). Note i has the title "Note i" and, unless i is a multiple
of 10 (then an empty body), a body with non-ASCII text, quotes, a tab and a newline.

Then it listens on 127.0.0.1 (`--port`, default 0: a free port) and prints one line on stdout, the base
URL, e.g. `http://127.0.0.1:41234`, once it accepts connections. Nothing else goes to stdout; each
request is logged on stderr (Django's `django.server` log) unless `--quiet`. SIGTERM or SIGINT stops it,
and so does the end of the process that started it.

Endpoints, each a DRF `ReadOnlyModelViewSet` (so `/<endpoint>/<id>/` answers one note too):

- `/limitoffset/` LimitOffsetPagination: `?limit=&offset=`, 100 by default, at most 1000 (a larger
  limit is served as 1000, silently). `{"count", "next", "previous", "results"}`.
- `/pagenumber/` PageNumberPagination: `?page=&page_size=`, 100 by default, at most 1000. The same
  envelope; a page past the end answers 404 `{"detail": "Invalid page."}`.
- `/cursor/` CursorPagination: opaque `?cursor=`, 100 a page, ordered by id. `{"next", "previous",
  "results"}`, no count.
- `/jsonapi/` djangorestframework-jsonapi (if installed): resource type `notes`, `data` of `{"type",
  "id" (a string), "attributes": {"title", "body"}}`, `links.next`, `meta.pagination`;
  `?page[number]=&page[size]=`, 100 by default, at most 1000. Content type application/vnd.api+json;
  it answers 406 to a request that accepts only application/json.
- `/` DRF's API root, the endpoints' URLs.

The server is Django's own threaded WSGI server (the one `runserver` uses, without the autoreloader),
keeping connections alive, with TCP_NODELAY set: without it, Nagle's algorithm and delayed ACKs add
~40 ms to each response on a kept-alive connection.
"""

import os
import sys
import tempfile
from pathlib import Path

# `drf` is this directory, imported as a package from its parent; no bytecode is left in the tree.
sys.dont_write_bytecode = True
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from appprocess import command_line, end_on_signals, exit_with_parent  # noqa: E402 (Tools/apps/, on the path just above)
from djangoproject import bind, serve  # noqa: E402

DELETED_EVERY = 97


def seed(count):
    from django.db import transaction
    from django.db.models.functions import Mod

    from drf.models import Note

    with transaction.atomic():
        Note.objects.bulk_create(
            (
                Note(
                    title=f"Note {i}",
                    body="" if i % 10 == 0 else f'Body of note {i}: café, "quoted", a tab\tand a line\nbreak.',
                )
                for i in range(1, count + 1)
            ),
            batch_size=500,
        )
        Note.objects.alias(rest=Mod("id", DELETED_EVERY)).filter(rest=0).delete()


def main():
    arguments = command_line("A Django REST framework app serving notes.")

    end_on_signals()
    exit_with_parent()
    with tempfile.TemporaryDirectory(prefix="notes-drf-") as directory:
        os.environ["NOTES_DRF_DATABASE"] = os.path.join(directory, "db.sqlite3")
        os.environ["DJANGO_SETTINGS_MODULE"] = "drf.settings"
        import django
        from django.core.management import call_command

        django.setup()
        call_command("migrate", run_syncdb=True, verbosity=0)
        seed(arguments.count)
        try:
            serve(bind(arguments.port, arguments.quiet))
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
