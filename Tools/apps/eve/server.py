#!/usr/bin/env python3
"""A real Eve app over mongomock, for testing clients against Eve's default pagination.

    python3 Tools/apps/eve/server.py [--count N] [--port P] [--quiet]

Eve stores resources in MongoDB through PyMongo; here its PyMongo client class is mongomock's in-memory
`MongoClient` (`eve.io.mongo.flask_pymongo.MongoClient`, replaced before the app starts), so no MongoDB
is needed. At start-up it inserts N notes (`--count`, default 5000) through Eve's own POST code
(`post_internal`, one bulk insert, with Eve's validation, `_created`, `_updated` and `_etag`), then deletes
each note whose number is a multiple of 97 through Eve's DELETE code (`deleteitem_internal`), as
Tools/apps/drf/server.py deletes rows:

    the numbers served are exactly {i for i in range(1, N + 1) if i % 97 != 0}

Mongo gives each note its own id, an ObjectId, served as `_id`, a 24-hex-digit string; the note's number
is the field `number`. Note i has the title "Note i" and, unless i is a multiple of 10 (then an empty
body), a body with non-ASCII text, quotes, a tab and a newline. The resource `notes` has the datasource
setting `default_sort` [("number", 1)], so the listing is by number ascending whatever the storage order.

Then werkzeug's threaded server (the one `flask run` uses, without the reloader) listens on 127.0.0.1
(`--port`, default 0: a free port), with TCP_NODELAY set, and the server prints one line on stdout, the base
URL, e.g. `http://127.0.0.1:41234`, once it accepts connections. It answers HTTP/1.1 but closes every
connection after its response (`Connection: close`: werkzeug keeps none alive). Nothing else goes to
stdout; werkzeug logs each request on stderr unless `--quiet`. SIGTERM or SIGINT stops it (exit 0),
and so does the end of the process that started it.

The endpoint is `/notes` (GET only), Eve's pagination at its defaults (no setting changed): `?page=`
(default 1) and `?max_results=` (default 25, PAGINATION_DEFAULT; more than 50, PAGINATION_LIMIT, is served
as 50, silently). 200, `application/json`, with `X-Total-Count` (the total) and `Last-Modified`. The body:

    {"_items": [{"number", "title", "body", "_updated", "_created", "_etag", "_id",
                 "_links": {"self": {"title": "Note", "href": "notes/<_id>"}}}, ...],
     "_links": {"parent": {"title": "home", "href": "/"}, "self": {"title": "notes", "href": "notes"},
                "next": {"title": "next page", "href": "notes?page=2"},
                "last": {"title": "last page", "href": "notes?page=198"}},
     "_meta": {"page": 1, "max_results": 25, "total": 4949}}

`_updated` and `_created` are RFC 1123 dates (`Wed, 02 Dec 2026 20:19:14 GMT`). The hrefs are relative
to the API root, the base URL (`notes?page=2` is `<base>/notes?page=2`), and carry the request's other
query parameters (`notes?max_results=10&page=2`, `notes?page=2&cursor=X`). From page 2 on `_links` also
has `prev`, last (`prev` of page 2 is `notes`, without `page`); the last page has `parent`, `self` and
`prev` only: no `next`, no `last`. A page past the end answers 200 with `"_items": []`. A `page` or
`max_results` that is not a positive integer is taken as its default, silently. Eve reads `where`, `sort`,
`projection`, `page`, `max_results` and a few others; other query parameters (`?cursor=X`) filter nothing
and are only carried into the hrefs. Eve answers XML instead to a request that prefers it (`Accept`).
"""

import sys
from pathlib import Path

import eve.io.mongo.flask_pymongo
import mongomock
from eve import Eve
from eve.methods.delete import deleteitem_internal
from eve.methods.post import post_internal

# What the apps of Tools/ share (last on the path: nothing there shadows an installed package).
sys.dont_write_bytecode = True
sys.path.append(str(Path(__file__).resolve().parent.parent))
from appprocess import command_line, end_on_signals, exit_with_parent, serve_wsgi  # noqa: E402

DELETED_EVERY = 97

SETTINGS = {
    "MONGO_DBNAME": "notes",
    "DOMAIN": {
        "notes": {
            "schema": {
                "number": {"type": "integer", "required": True},
                "title": {"type": "string"},
                "body": {"type": "string"},
            },
            "datasource": {"default_sort": [("number", 1)]},
        }
    },
}


def create_app():
    eve.io.mongo.flask_pymongo.MongoClient = mongomock.MongoClient  # Eve's PyMongo client, in memory
    return Eve(settings=SETTINGS)


def seed(app, count):
    notes = [
        {
            "number": i,
            "title": f"Note {i}",
            "body": "" if i % 10 == 0 else f'Body of note {i}: café, "quoted", a tab\tand a line\nbreak.',
        }
        for i in range(1, count + 1)
    ]
    with app.test_request_context():
        if notes:
            response, _, _, status, *_ = post_internal("notes", payl=notes)
            if status != 201:
                raise RuntimeError(f"seeding: {status} {response}")
        collection = app.data.driver.db["notes"]
        for i in range(DELETED_EVERY, count + 1, DELETED_EVERY):
            note = collection.find_one({"number": i})
            deleteitem_internal("notes", concurrency_check=False, **{"_id": note["_id"]})


def main():
    arguments = command_line("An Eve app over mongomock serving notes.")

    end_on_signals()
    exit_with_parent()
    app = create_app()
    seed(app, arguments.count)
    serve_wsgi(app, arguments.port, arguments.quiet)


if __name__ == "__main__":
    main()
