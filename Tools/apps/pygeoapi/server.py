#!/usr/bin/env python3
"""A real pygeoapi (OGC API - Features) serving a collection of notes, for testing clients against its
items paging with `next` links.

    python3 Tools/apps/pygeoapi/server.py [--count N] [--port P] [--quiet]

At start-up it writes, in a new temporary directory (removed on exit), `notes.geojson`, a FeatureCollection
of N notes (`--count`, default 5000; at least 1, as pygeoapi's GeoJSON provider fails on an empty file)
with ids 1 to N, ordered by id, but for every note whose id is a multiple of 97, as Tools/apps/drf/server.py
serves them:

    the ids served are exactly {i for i in range(1, N + 1) if i % 97 != 0}

Note i is `{"type": "Feature", "id": i, "geometry": {"type": "Point", "coordinates": [lon, lat]},
"properties": {"title": "Note i", "body": …}}`, the body with non-ASCII text, quotes, a tab and a newline,
or "" when i is a multiple of 10. Then it writes pygeoapi's configuration (`config.yml`: the collection
`notes`, pygeoapi's GeoJSON provider over that file, pygeoapi's default limits) and the OpenAPI
document pygeoapi generates from it (`openapi.yml`), points PYGEOAPI_CONFIG and PYGEOAPI_OPENAPI at them,
and serves pygeoapi's Flask app with werkzeug (threaded) on 127.0.0.1 (`--port`, default 0: a free
port). The server prints one line on stdout, the base URL, e.g. `http://127.0.0.1:41234`, once it
accepts connections. Nothing else goes to stdout; pygeoapi's errors and werkzeug's request log (unless
`--quiet`) go to stderr. SIGTERM or SIGINT stops it (exit 0), and so does the end of the process that
started it.

The endpoint is `/collections/notes/items?f=json` (without `f` JSON too, unless the Accept header prefers
HTML): 200, `Content-Type: application/json` (not geo+json, whatever the Accept header), `Content-Crs:
<http://www.opengis.net/def/crs/OGC/1.3/CRS84>`, `Content-Language: en-US`, compact JSON with non-ASCII
characters as \\u escapes, `{"type": "FeatureCollection", "features": [...], "numberMatched": served,
"numberReturned": n, "links": [...], "timeStamp": "…Z"}`, features in id order. pygeoapi's defaults are
10 features a page and at most 10 (`server.limits.default_items` and `max_items`, written out in the
configuration as they are by default, since its HTML pages read them there): a larger `?limit=` is cut to
10, `limit=0`, a non-integer `limit` or `offset` and a negative `offset` answer 400 `{"code":
"InvalidParameterValue", "type": "InvalidParameterValue", "description": …}`.

The `links`, each `{"type", "rel", "title", "href"}` with an absolute href on the base URL, are `self`
(`…/items?f=json…`), two `alternate` (`f=jsonld`, `f=html`), then `prev` when `offset` > 0, `next` when
numberMatched > offset + limit or the page is full, and `collection`. `next` is
`…/collections/notes/items?offset=<offset + limit>` followed by the request's other query parameters but
`f` and `offset` (`&limit=5`): it drops `f=json`. A served count that is a multiple of the page size (1980
of --count 2000) so ends on an empty page without `next`; otherwise the last page is partial. An offset
at or past the end answers 200 with no features, a `prev` link and no `next`. Unknown query parameters
(`?cursor=x`) are ignored but copied into every link; a property's name filters (`?title=Note%205`).
The GeoJSON provider reads the whole file on every request: walking 5000 notes 10 at a time (495
requests) takes about 20 s, 2000 notes about 2.5 s.
"""

import json
import logging
import os
import sys
import tempfile
from pathlib import Path

import yaml
from werkzeug.serving import WSGIRequestHandler, make_server

# What the apps of Tools/ share (last on the path: nothing there shadows an installed package).
sys.dont_write_bytecode = True
sys.path.append(str(Path(__file__).resolve().parent.parent))
from appprocess import command_line, end_on_signals, exit_with_parent  # noqa: E402

DELETED_EVERY = 97


class RequestHandler(WSGIRequestHandler):
    disable_nagle_algorithm = True  # socketserver sets TCP_NODELAY on each accepted socket


def write_notes(path, count):
    features = [
        {
            "type": "Feature",
            "id": i,
            "geometry": {"type": "Point", "coordinates": [(i % 360) - 179.5, ((i // 360) % 180) - 89.5]},
            "properties": {
                "title": f"Note {i}",
                "body": "" if i % 10 == 0 else f'Body of note {i}: café, "quoted", a tab\tand a line\nbreak.',
            },
        }
        for i in range(1, count + 1)
        if i % DELETED_EVERY != 0
    ]
    with open(path, "w", encoding="utf-8") as file:
        json.dump({"type": "FeatureCollection", "features": features}, file, ensure_ascii=False)


def configuration(url, data):
    return {
        "server": {
            "bind": {"host": "127.0.0.1", "port": int(url.rsplit(":", 1)[1])},
            "url": url,
            "mimetype": "application/json; charset=UTF-8",
            "encoding": "utf-8",
            "languages": ["en-US"],
            "pretty_print": False,
            "map": {"url": "https://tile.openstreetmap.org/{z}/{x}/{y}.png", "attribution": "OpenStreetMap"},
            # pygeoapi's own defaults, spelled out: its HTML pages read them from here.
            "limits": {"default_items": 10, "max_items": 10},
        },
        "logging": {"level": "ERROR"},
        "metadata": {
            "identification": {
                "title": "notes",
                "description": "Notes for testing paginated clients",
                "keywords": ["notes"],
                "keywords_type": "theme",
                "terms_of_service": "https://creativecommons.org/publicdomain/zero/1.0/",
                "url": url,
            },
            "license": {"name": "CC0", "url": "https://creativecommons.org/publicdomain/zero/1.0/"},
            "provider": {"name": "notes", "url": url},
            "contact": {"name": "notes", "url": url},
        },
        "resources": {
            "notes": {
                "type": "collection",
                "title": "Notes",
                "description": "Notes with ids 1 to N but every 97th",
                "keywords": ["notes"],
                "extents": {"spatial": {"bbox": [-180, -90, 180, 90]}},
                "providers": [{"type": "feature", "name": "GeoJSON", "data": data, "id_field": "id"}],
            }
        },
    }


def main():
    arguments = command_line("pygeoapi serving a collection of notes.")
    if arguments.count == 0:
        # The GeoJSON provider reads the properties of the first feature on start-up: an empty file fails.
        sys.exit("server.py: pygeoapi's GeoJSON provider cannot serve no notes: --count must be 1 or more")

    end_on_signals()
    exit_with_parent()
    # pygeoapi logs to stdout unless its configuration names a file; a root handler set first keeps it on
    # stderr (its own logging.basicConfig then does nothing).
    logging.basicConfig(
        stream=sys.stderr, level=logging.ERROR, format="[%(asctime)s] %(levelname)s %(name)s: %(message)s"
    )
    requests = logging.getLogger("werkzeug")  # its lines are dated already
    requests.addHandler(logging.StreamHandler(sys.stderr))
    requests.propagate = False
    requests.setLevel(logging.ERROR if arguments.quiet else logging.INFO)

    with tempfile.TemporaryDirectory(prefix="notes-pygeoapi-") as directory:
        data = os.path.join(directory, "notes.geojson")
        write_notes(data, arguments.count)

        # The socket first: pygeoapi's configuration holds the URL, and it reads it on import.
        server = make_server(
            "127.0.0.1", arguments.port, app=None, threaded=True, request_handler=RequestHandler
        )
        url = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            config_path = Path(directory, "config.yml")
            config = yaml.safe_dump(configuration(url, data), allow_unicode=True)
            config_path.write_text(config, encoding="utf-8")
            from pygeoapi.openapi import generate_openapi_document

            openapi_path = Path(directory, "openapi.yml")
            openapi_path.write_text(generate_openapi_document(config_path, "yaml"), encoding="utf-8")
            os.environ["PYGEOAPI_CONFIG"] = str(config_path)
            os.environ["PYGEOAPI_OPENAPI"] = str(openapi_path)
            from pygeoapi.flask_app import APP

            server.app = APP
            print(url, flush=True)
            server.serve_forever()
        finally:
            server.server_close()


if __name__ == "__main__":
    main()
