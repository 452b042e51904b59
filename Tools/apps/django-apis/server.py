#!/usr/bin/env python3
"""One Django project serving three real frameworks' list endpoints, each with its stock pagination.

    python3 Tools/apps/django-apis/server.py [--count N] [--port P] [--quiet]

At start-up it creates an SQLite database in a new temporary directory (removed on exit), creates the
tables (`migrate`), inserts N notes (`--count`, default 5000) with ids 1 to N, and deletes every note
whose id is a multiple of 97, as rows of a real table go missing. It does so twice: as rows of a plain
model (`Note`, which django-ninja and django-tastypie serve) and as Wagtail pages (`NotePage`, page ids
equal to the notes' ids), so that every endpoint serves exactly the ids

    {i for i in range(1, N + 1) if i % 97 != 0}

(5000 notes: 4949 served, the largest id 5000), in ascending order. Note i has the title "Note i" and,
unless i is a multiple of 10 (then an empty body), a body with non-ASCII text, quotes, a tab and a
newline: 'Body of note i: café, "quoted", a tab\\tand a line\\nbreak.'

Then it listens on 127.0.0.1 (`--port`, default 0: a free port) and prints one line on stdout, the base
URL, e.g. `http://127.0.0.1:41234`, once it accepts connections. Nothing else goes to stdout; each
request is logged on stderr (Django's `django.server` log) unless `--quiet`. SIGTERM or SIGINT stops it,
and so does the end of the process that started it.

Endpoints, each answering a plain GET with 200, records in ascending id order:

- `/ninja/notes` django-ninja, `@paginate` with its default LimitOffsetPagination. Content-Type
  `application/json; charset=utf-8`, non-ASCII escaped (`caf\\u00e9`). Body `{"items": [{"id", "title",
  "body"}, ...], "count": <total>}`. `?limit=` (NINJA_PAGINATION_PER_PAGE, 100, by default; no upper
  bound: `limit=100000` answers every note) and `?offset=` (0 by default); a limit under 1, an offset
  under 0 or a non-integer answers 422 `{"detail": [{"type", "loc", "msg", ...}]}`. No link to the next
  page: the client adds the items it got to `offset` until it reaches `count`; an offset at or past the
  end answers 200 `{"items": [], "count": <total>}`. Unknown query parameters (`?cursor=x`) are ignored.
  OpenAPI: `/ninja/openapi.json`, `/ninja/docs`.
- `/tastypie/api/v1/note/` django-tastypie, a read-only ModelResource with its default Paginator.
  Content-Type `application/json` (no charset; UTF-8, non-ASCII as is), `Cache-Control: no-cache`,
  `Vary: Accept`. Body `{"meta": {"limit", "next", "offset", "previous", "total_count"}, "objects":
  [{"body", "id", "resource_uri", "title"}, ...]}` (keys sorted). `?limit=` (API_LIMIT_PER_PAGE, 20, by
  default; at most the resource's max_limit, 1000: a larger limit, or 0, is served as 1000, silently) and
  `?offset=`; a negative or non-integer one answers 400 `{"error": "Invalid limit ..."}`. `meta.next` is
  a path and query with the request's other parameters kept and sorted, e.g.
  `/tastypie/api/v1/note/?limit=20&offset=20` (`?format=json&limit=20&offset=20` if the request had
  `format=json`), null on the last page; `meta.previous` likewise, null on the first. An offset at or past
  the end answers 200 with `"objects": []`, `next` null. Unknown parameters (`?cursor=x`) are ignored and
  carried into `next`; one naming a field (`?title=`) answers 400 `{"error": "The 'title' field does not
  allow filtering."}`. `resource_uri` (`/tastypie/api/v1/note/<id>/`) answers one note.
- `/wagtail/api/v2/pages/` Wagtail API v2's pages endpoint. Content-Type `application/json` (no charset;
  UTF-8), `Vary: Accept, Cookie`, `Allow: GET, HEAD, OPTIONS`; the JSON is indented by 4 spaces (Wagtail
  sets that). Body `{"meta": {"total_count"}, "items": [{"id", "meta": {"type": "django_apis.NotePage",
  "detail_url", "html_url": null, "slug": "note-<id>", "first_published_at"}, "title"}, ...]}` (no body:
  `?type=django_apis.NotePage&fields=body` adds it). `?limit=` (20 by default) and `?offset=`; the limit
  is at most WAGTAILAPI_LIMIT_MAX, whose default 20 is raised to 100 here, and a larger one answers 400
  `{"message": "limit cannot be higher than 100"}`; `limit=0` answers no items. No link to the next page:
  the client adds the items it got to `offset` until it reaches `total_count`; an offset at or past the
  end answers 200 `"items": []`. A query parameter that is neither an operation nor a field
  (`?cursor=x`) answers 400 `{"message": "query parameter is not an operation or a recognised field:
  cursor"}`; one naming a field (`?title=Note%201`) filters. `detail_url` is
  `http://127.0.0.1:<port>/wagtail/api/v2/pages/<id>/` (the Wagtail site is this server); `html_url` is
  null, as no page is served as HTML (a headless site). The pages are children of the tree's root page,
  which is the site's root, has the id N + 1 and is not live, so never listed.

The server is Django's own threaded WSGI server (the one `runserver` uses, without the autoreloader),
keeping connections alive, with TCP_NODELAY set: without it, Nagle's algorithm and delayed ACKs add
~40 ms to each response on a kept-alive connection.
"""

import importlib.util
import itertools
import os
import sys
import tempfile
from pathlib import Path

# This directory is imported as the package `django_apis` (its own name has a dash), Tools/ is on the path
# for appprocess; no bytecode is left in the tree.
sys.dont_write_bytecode = True
HERE = Path(__file__).resolve().parent
sys.path[0] = str(HERE.parent)
_spec = importlib.util.spec_from_file_location(
    "django_apis", HERE / "__init__.py", submodule_search_locations=[str(HERE)]
)
sys.modules["django_apis"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sys.modules["django_apis"])

from appprocess import command_line, end_on_signals, exit_with_parent  # noqa: E402 (Tools/apps/, on the path just above)
from djangoproject import bind, serve  # noqa: E402

DELETED_EVERY = 97


def body_of(i):
    return "" if i % 10 == 0 else f'Body of note {i}: café, "quoted", a tab\tand a line\nbreak.'


def seed_notes(count):
    from django.db.models.functions import Mod

    from django_apis.models import Note

    Note.objects.bulk_create(
        (Note(title=f"Note {i}", body=body_of(i)) for i in range(1, count + 1)),
        batch_size=500,
    )
    Note.objects.alias(rest=Mod("id", DELETED_EVERY)).filter(rest=0).delete()


def seed_pages(count, port):
    """The pages Wagtail would have after an editor published "Note 1" to "Note N" under the root of the
    site, and deleted every 97th, written in bulk: Page.add_child saves one page at a time, with a dozen
    queries each. The tree is treebeard's materialised path; the pages are children of the tree's root,
    which is the site's root, not live (Wagtail's root is never a page to show). The initial data of
    Wagtail's migrations (its root, a welcome page, the site) goes."""
    from django.contrib.contenttypes.models import ContentType
    from django.db import connection
    from django.utils import timezone
    from wagtail.models import Locale, Page, Site

    from django_apis.models import NotePage

    Page.objects.all().delete()
    locale = Locale.get_default()
    now = timezone.now()
    root = Page(
        id=count + 1,
        title="Root",
        draft_title="Root",
        slug="root",
        content_type=ContentType.objects.get_for_model(Page),
        path=Page._get_path(None, 1, 1),
        depth=1,
        numchild=count,
        url_path="/",
        live=False,
        locale=locale,
    )
    note_type = ContentType.objects.get_for_model(NotePage)
    notes = (
        Page(
            id=i,
            title=f"Note {i}",
            draft_title=f"Note {i}",
            slug=f"note-{i}",
            content_type=note_type,
            path=Page._get_path(root.path, 2, i),
            depth=2,
            numchild=0,
            url_path=f"/note-{i}/",
            live=True,
            first_published_at=now,
            last_published_at=now,
            locale=locale,
        )
        for i in range(1, count + 1)
    )
    Page.objects.bulk_create(itertools.chain([root], notes), batch_size=500)
    # Django's bulk_create does not write a multi-table-inherited model's own rows: SQL does.
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {connection.ops.quote_name(NotePage._meta.db_table)} (page_ptr_id, body) VALUES (%s, %s)",
            [(i, body_of(i)) for i in range(1, count + 1)],
        )
    Page.objects.filter(id__in=range(DELETED_EVERY, count + 1, DELETED_EVERY)).delete()
    # The site is this server, so that the API's `detail_url`s (built from the site's root URL) work.
    Site.objects.create(hostname="127.0.0.1", port=port, site_name="Notes", root_page_id=root.id, is_default_site=True)


def main():
    arguments = command_line("A Django project serving notes through django-ninja, django-tastypie and Wagtail.")

    end_on_signals()
    exit_with_parent()
    with tempfile.TemporaryDirectory(prefix="notes-django-apis-") as directory:
        os.environ["NOTES_DJANGO_APIS_DATABASE"] = os.path.join(directory, "db.sqlite3")
        os.environ["DJANGO_SETTINGS_MODULE"] = "django_apis.settings"
        import django
        from django.core.management import call_command
        from django.db import transaction

        django.setup()
        call_command("migrate", verbosity=0)
        server = bind(arguments.port, arguments.quiet)
        try:
            with transaction.atomic():
                seed_notes(arguments.count)
                seed_pages(arguments.count, server.server_address[1])
            serve(server)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
