#!/usr/bin/env python3
"""A real Kinto server with its in-memory backends, for testing clients against Kinto's own pagination.

    python3 Tools/apps/kinto/server.py [--count N] [--port P] [--quiet]

At start-up it builds Kinto's WSGI app (`kinto.main`) with the memory storage, permission and cache
backends and Kinto's stock Basic authentication. Through Kinto's HTTP API, in process, as a Basic-auth
user, it creates the bucket `notes`, readable by everyone (`"read": ["system.Everyone"]`, so reading
needs no credentials), and its collection `notes`; then through Kinto's storage backend (the records
endpoint's own storage calls: a POST each took 4 s for 5000) N records (`--count`, default 5000),
and it deletes each record whose number is a multiple of 97 (a tombstone each, as a DELETE leaves), as
Tools/apps/drf/server.py deletes rows:

    the numbers served are exactly {i for i in range(1, N + 1) if i % 97 != 0}

Kinto gives each record its own id, a UUID string; the note's number is the field `number`. Record i is
`{"number": i, "title": "Note i", "body": ..., "id": "<uuid>", "last_modified": <ms timestamp>}` (keys in
that order), the body a text with non-ASCII, quotes, a tab and a newline, empty when i is a multiple of 10.
Kinto lists records newest first (its default sort is `-last_modified`), so the records are created from N
down to 1: the default listing is by `number` ascending (a record a client adds later would come first).

Then waitress (Kinto's own server) listens on 127.0.0.1 (`--port`, default 0: a free port) and the server
prints one line on stdout, the base URL, e.g. `http://127.0.0.1:41234`, once it accepts connections.
Nothing else goes to stdout; each request is logged on stderr (Kinto's `request.summary` log) unless
`--quiet`. SIGTERM or SIGINT stops it (exit 0), and so does the end of the process that started it.

The endpoint is `/v1/buckets/notes/collections/notes/records` (plain GET, no credentials): 200,
`application/json`, `{"data": [record, ...]}`. Kinto pages by keyset: when there is more, the response has
a `Next-Page` header, the absolute URL of the next page, the request's own query with `_limit` and an
opaque `_token` (base64 JSON of the last record's sort values) set; the last page has no `Next-Page`.
The one pagination setting changed here is `paginate_by` = 100: Kinto's default (none) serves up to
`storage_max_fetch_size`, 10000 records, in a single page. So a page has 100 records, `?_limit=` asks
for fewer (a larger one is served as 100, silently). Other headers of a listing: `ETag` and
`Last-Modified` (the collection's timestamp), `Cache-Control: no-cache, no-store`; `Total-Objects` and
`Total-Records` (the count) only on HEAD. Kinto reads every query parameter not starting with `_` as a
filter on the records' fields, so an unknown one (`?cursor=X`) answers 200 `{"data": []}`. A `_token`
that is not Kinto's answers 400 (`{"code": 400, "errno": 107, "error": "Invalid parameters", ...}`).
Kinto's JSON escapes non-ASCII with upper-case hex digits (`caf\\u00E9`).
"""

import base64
import json
import logging
import secrets
import sys
import warnings
from pathlib import Path

import kinto
from waitress.server import create_server
from webob import Request

# What the apps of Tools/ share (last on the path: nothing there shadows an installed package).
sys.dont_write_bytecode = True
sys.path.append(str(Path(__file__).resolve().parent.parent))
from appprocess import command_line, end_on_signals, exit_with_parent  # noqa: E402

DELETED_EVERY = 97
RECORDS = "/v1/buckets/notes/collections/notes/records"


def create_app():
    warnings.filterwarnings("ignore", message="HTTPS is not enabled")  # a local test server, plain HTTP
    return kinto.main(
        {},
        **{
            "multiauth.policies": "basicauth",  # as Kinto's own config template
            "userid_hmac_secret": secrets.token_hex(32),
            "paginate_by": "100",
        },
    )


def seed(app, count):
    authorization = "Basic " + base64.b64encode(b"seed:seed").decode()

    def call(method, path, body=None):
        request = Request.blank(path, method=method)
        request.headers["Authorization"] = authorization
        if body is not None:
            request.content_type = "application/json"
            request.body = json.dumps(body).encode()
        response = request.get_response(app)
        if response.status_code >= 300:
            raise RuntimeError(f"{method} {path}: {response.status} {response.text}")

    call("PUT", "/v1/buckets/notes", {"permissions": {"read": ["system.Everyone"]}})
    call("PUT", "/v1/buckets/notes/collections/notes")

    # The records go straight to the storage backend, as the records endpoint stores them: a POST each
    # took 4 s for 5000 (~1 ms a request, and the memory permission backend slows with every record).
    storage = app.registry.storage
    where = {"resource_name": "record", "parent_id": "/buckets/notes/collections/notes"}
    ids = {}
    for i in range(count, 0, -1):  # newest first is Kinto's default order: number 1 is created last
        record = {
            "number": i,
            "title": f"Note {i}",
            "body": "" if i % 10 == 0 else f'Body of note {i}: café, "quoted", a tab\tand a line\nbreak.',
        }
        ids[i] = storage.create(**where, obj=record, id_generator=app.registry.id_generators["record"])["id"]
    for i in range(DELETED_EVERY, count + 1, DELETED_EVERY):
        storage.delete(**where, object_id=ids[i])  # leaves a tombstone, as a DELETE does


class RequestLog(logging.Formatter):
    """Kinto's request summary as one line: `"GET /path?query" 200 (3 ms)`."""

    def format(self, record):
        query = "&".join(f"{key}={value}" for key, value in getattr(record, "querystring", {}).items())
        path = getattr(record, "path", "?") + (f"?{query}" if query else "")
        method, code, duration = (getattr(record, name, "?") for name in ("method", "code", "t"))
        return f'"{method} {path}" {code} ({duration} ms)'


def serve(app, port, quiet):
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RequestLog())
    summary = logging.getLogger("request.summary")
    summary.addHandler(handler)
    summary.propagate = False
    summary.setLevel(logging.WARNING if quiet else logging.INFO)

    server = create_server(app, host="127.0.0.1", port=port, threads=8)  # bound and listening
    print(f"http://127.0.0.1:{server.effective_port}", flush=True)
    try:
        server.run()
    finally:
        server.close()


def main():
    arguments = command_line("Kinto, in memory, serving a collection of notes.")

    end_on_signals()
    exit_with_parent()
    logging.getLogger("request.summary").setLevel(logging.WARNING)  # the seeding's requests are not logged
    app = create_app()
    seed(app, arguments.count)
    serve(app, arguments.port, arguments.quiet)


if __name__ == "__main__":
    main()
