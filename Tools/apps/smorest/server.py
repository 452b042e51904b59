#!/usr/bin/env python3
"""A real Flask app with flask-smorest's pagination, for testing clients against the library's defaults.

    python3 Tools/apps/smorest/server.py [--count N] [--port P] [--quiet]

At start-up it fills an in-memory table (a dict by id, kept in id order) with N notes (`--count`, default
5000) with ids 1 to N, and deletes every note whose id is a multiple of 97, as Tools/apps/drf/server.py does:

    the ids served are exactly {i for i in range(1, N + 1) if i % 97 != 0}

(5000 notes: 4949 served, the largest id 5000). Note i has the title "Note i" and, unless i is a multiple
of 10 (then an empty body), a body with non-ASCII text, quotes, a tab and a newline.

Then werkzeug's threaded server (the one `flask run` uses, without the reloader) listens on 127.0.0.1
(`--port`, default 0: a free port), with TCP_NODELAY set, and the server prints one line on stdout, the base
URL, e.g. `http://127.0.0.1:41234`, once it accepts connections. It answers HTTP/1.1 but closes every
connection after its response (`Connection: close`: werkzeug keeps none alive). Nothing else goes to
stdout; werkzeug logs each request on stderr unless `--quiet`. SIGTERM or SIGINT stops it (exit 0),
and so does the end of the process that started it.

The endpoint is `/notes`, a flask-smorest Blueprint view with `@blp.paginate()` (pagination in the view:
it slices the notes and sets `item_count`) and `@blp.response(200, NoteSchema(many=True))`, all at the
library's defaults: `?page=` (default 1) and `?page_size=` (default 10, at most 100; 0, a negative
number, more than 100 or not a number answers 422 with a JSON error). The body is a bare JSON array of
`{"body", "id", "title"}` (Flask sorts keys and escapes non-ASCII: `caf\\u00e9`), `application/json`,
status 200. The metadata is the header `X-Pagination`, JSON:
`{"total": 4949, "total_pages": 495, "first_page": 1, "last_page": 495, "page": 1, "next_page": 2}`,
with `previous_page` after `page` from page 2 on, and no `next_page` on the last page. A page past the
end answers 200 `[]` with `X-Pagination` of `total`, `total_pages`, `first_page`, `last_page` only (no
`page`); with no notes at all, `{"total": 0, "total_pages": 0}`. Unknown query parameters are ignored.
"""

import sys
from pathlib import Path

import marshmallow as ma
from flask import Flask
from flask_smorest import Api, Blueprint

# What the apps of Tools/ share (last on the path: nothing there shadows an installed package).
sys.dont_write_bytecode = True
sys.path.append(str(Path(__file__).resolve().parent.parent))
from appprocess import command_line, end_on_signals, exit_with_parent, serve_wsgi  # noqa: E402

DELETED_EVERY = 97


class NoteSchema(ma.Schema):
    id = ma.fields.Integer()
    title = ma.fields.String()
    body = ma.fields.String()


def seed(count):
    notes = {
        i: {
            "id": i,
            "title": f"Note {i}",
            "body": "" if i % 10 == 0 else f'Body of note {i}: café, "quoted", a tab\tand a line\nbreak.',
        }
        for i in range(1, count + 1)
    }
    for i in range(DELETED_EVERY, count + 1, DELETED_EVERY):
        del notes[i]
    return list(notes.values())  # in id order


def create_app(notes):
    app = Flask("notes")
    app.config.update(API_TITLE="notes", API_VERSION="1", OPENAPI_VERSION="3.0.3")
    api = Api(app)
    blp = Blueprint("notes", "notes", description="Notes")

    @blp.route("/notes")
    @blp.response(200, NoteSchema(many=True))
    @blp.paginate()
    def list_notes(pagination_parameters):
        pagination_parameters.item_count = len(notes)
        return notes[pagination_parameters.first_item : pagination_parameters.last_item + 1]

    api.register_blueprint(blp)
    return app


def main():
    arguments = command_line("A Flask app with flask-smorest's pagination serving notes.")

    end_on_signals()
    exit_with_parent()
    serve_wsgi(create_app(seed(arguments.count)), arguments.port, arguments.quiet)


if __name__ == "__main__":
    main()
