#!/usr/bin/env python3
"""A real Datasette serving a SQLite table of notes, for testing clients against its JSON API.

    python3 Tools/apps/datasette/server.py [--count N] [--port P] [--quiet] [--database FILE]

At start-up it creates the SQLite database `notes.db` in a new temporary directory (removed on exit), or
uses FILE (`--database`, kept, created when missing), with the table

    notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL, updated_at TEXT NOT NULL)

and, when the table is new, inserts N notes (`--count`, default 5000) with ids 1 to N and deletes every
note whose id is a multiple of 97, as Tools/apps/drf/server.py does:

    the ids served are exactly {i for i in range(1, N + 1) if i % 97 != 0}

Note i has the title "Note i", a body with non-ASCII text and quotes, and `updated_at`
2026-01-01T00:00:00Z plus i minutes, as RFC 3339 text in UTC (so text order is time order).

Then Datasette (its ASGI app, served by uvicorn) listens on 127.0.0.1 (`--port`, default 0: a free port),
and the server prints one line on stdout, the base URL, e.g. `http://127.0.0.1:41234`, once it accepts
connections. Nothing else goes to stdout; uvicorn logs each request on stderr unless `--quiet`. SIGTERM or
SIGINT stops it (exit 0), and so does the end of the process that started it.

The table is Datasette's `/notes/notes.json`: with `?_shape=objects`, `{"rows": [...], "next": TOKEN,
"next_url": URL, "filtered_table_rows_count": N, ...}`, 100 rows a page by default (`_size`, at most 1000),
keyset pages on the primary key (`_next=`), filters such as `?updated_at__gte=2026-01-01T01:00:00Z`.
The database is opened mutable: a test may change rows between two walks.
"""

import datetime
import os
import sqlite3
import sys
import tempfile
from pathlib import Path

from datasette.app import Datasette

# What the apps of Tools/ share (last on the path: nothing there shadows an installed package).
sys.dont_write_bytecode = True
sys.path.append(str(Path(__file__).resolve().parent.parent))
from appprocess import end_on_signals, exit_with_parent, serve_asgi  # noqa: E402

DELETED_EVERY = 97


def command_line():
    import argparse

    parser = argparse.ArgumentParser(description="Datasette serving a table of notes.")
    parser.add_argument("--count", type=int, default=5000, help="notes inserted before every 97th is deleted")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--quiet", action="store_true", help="no request log on stderr")
    parser.add_argument("--database", help="the SQLite file to serve (kept; seeded only when it has no table)")
    arguments = parser.parse_args()
    if arguments.count < 0:
        parser.error("--count must be 0 or more")
    return arguments


def updated_at(i):
    """2026-01-01T00:00:00Z plus i minutes, RFC 3339 in UTC."""
    moment = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(minutes=i)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def seed(path, count):
    with sqlite3.connect(path) as db:
        exists = db.execute("select 1 from sqlite_master where type = 'table' and name = 'notes'").fetchone()
        if exists:
            return
        db.execute(
            "create table notes (id integer primary key, title text not null, body text not null,"
            " updated_at text not null)"
        )
        db.executemany(
            "insert into notes (id, title, body, updated_at) values (?, ?, ?, ?)",
            [(i, f"Note {i}", f'Body of note {i}: café, "quoted".', updated_at(i)) for i in range(1, count + 1)],
        )
        db.execute("delete from notes where id % ? = 0", (DELETED_EVERY,))
    os.chmod(path, 0o644)


def main():
    arguments = command_line()
    end_on_signals()  # uvicorn raises SIGTERM and SIGINT again once it has shut down: exit 0 then
    exit_with_parent()
    with tempfile.TemporaryDirectory(prefix="notes-datasette-") as directory:
        path = arguments.database or os.path.join(directory, "notes.db")
        seed(path, arguments.count)
        datasette = Datasette([path], settings={"max_returned_rows": 1000})
        serve_asgi(datasette.app(), arguments.port, arguments.quiet, lifespan="off")


if __name__ == "__main__":
    main()
