#!/usr/bin/env python3
"""A real FastAPI app with fastapi-pagination over SQLite, for testing clients against the library's defaults.

    python3 Tools/apps/fastapi/server.py [--count N] [--port P] [--quiet]

At start-up it creates an SQLite database in a new temporary directory (removed on exit) through SQLAlchemy,
inserts N notes (`--count`, default 5000) with ids 1 to N, and deletes every note whose id is a multiple of
97, as Tools/apps/drf/server.py does:

    the ids served are exactly {i for i in range(1, N + 1) if i % 97 != 0}

(5000 notes: 4949 served, the largest id 5000). Note i has the title "Note i" and, unless i is a multiple
of 10 (then an empty body), a body with non-ASCII text, quotes, a tab and a newline.

Then uvicorn listens on 127.0.0.1 (`--port`, default 0: a free port) and the server prints one line on
stdout, the base URL, e.g. `http://127.0.0.1:41234`, once it accepts connections. Nothing else goes to
stdout; uvicorn logs each request on stderr unless `--quiet`. SIGTERM or SIGINT stops it (exit 0), and so
does the end of the process that started it.

Endpoints, each fastapi-pagination's `paginate` for SQLAlchemy over `SELECT … ORDER BY id`, with the
library's stock page types and their defaults (50 a page, at most 100: a larger size answers 422):

- `/page` `Page`: `?page=&size=`, `{"items", "total", "page", "size", "pages"}`. A page past the end has
  no items.
- `/limit-offset` `LimitOffsetPage`: `?limit=&offset=`, `{"items", "total", "limit", "offset"}`.
- `/cursor` `CursorPage` (sqlakeyset's keyset paging): opaque `?cursor=` and `?size=`, `{"items", "total",
  "current_page", "current_page_backwards", "previous_page", "next_page"}`; `next_page` is the cursor
  alone, already percent-encoded (`Pmk6NTA%3D`; the library percent-decodes the parameter once more, so the
  cursor works sent as it is or encoded again), null on the last page.
- `/links` `fastapi_pagination.links.Page`: `Page`'s fields and `links` of `first`, `last`, `self`,
  `next` and `prev`, each a path and query without the scheme and host (`/links?page=2`), `next` null on
  the last page.
"""

import os
import sys
import tempfile
from pathlib import Path

from fastapi import Depends, FastAPI
from fastapi_pagination import LimitOffsetPage, Page, add_pagination
from fastapi_pagination.cursor import CursorPage
from fastapi_pagination.ext.sqlalchemy import paginate
from fastapi_pagination.links import Page as LinksPage
from pydantic import BaseModel, ConfigDict
from sqlalchemy import String, Text, create_engine, delete, insert, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

# What the apps of Tools/ share (last on the path: nothing there shadows an installed package).
sys.dont_write_bytecode = True
sys.path.append(str(Path(__file__).resolve().parent.parent))
from appprocess import command_line, end_on_signals, exit_with_parent, serve_asgi  # noqa: E402

DELETED_EVERY = 97


class Base(DeclarativeBase):
    pass


class Note(Base):
    __tablename__ = "notes"
    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)


class NoteOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    title: str
    body: str


def create_app(engine):
    def session():
        with Session(engine) as opened:
            yield opened

    notes = select(Note).order_by(Note.id)
    app = FastAPI(title="notes")

    @app.get("/page")
    def page(db: Session = Depends(session)) -> Page[NoteOut]:
        return paginate(db, notes)

    @app.get("/limit-offset")
    def limit_offset(db: Session = Depends(session)) -> LimitOffsetPage[NoteOut]:
        return paginate(db, notes)

    @app.get("/cursor")
    def cursor(db: Session = Depends(session)) -> CursorPage[NoteOut]:
        return paginate(db, notes)

    @app.get("/links")
    def links(db: Session = Depends(session)) -> LinksPage[NoteOut]:
        return paginate(db, notes)

    add_pagination(app)
    return app


def seed(engine, count):
    Base.metadata.create_all(engine)
    rows = [
        {
            "id": i,
            "title": f"Note {i}",
            "body": "" if i % 10 == 0 else f'Body of note {i}: café, "quoted", a tab\tand a line\nbreak.',
        }
        for i in range(1, count + 1)
    ]
    with engine.begin() as connection:
        if rows:
            connection.execute(insert(Note), rows)
        connection.execute(delete(Note).where(Note.id % DELETED_EVERY == 0))


def main():
    arguments = command_line("A FastAPI app with fastapi-pagination serving notes.")

    end_on_signals()  # uvicorn raises SIGTERM and SIGINT again once it has shut down: exit 0 then
    exit_with_parent()
    with tempfile.TemporaryDirectory(prefix="notes-fastapi-") as directory:
        engine = create_engine(f"sqlite:///{os.path.join(directory, 'db.sqlite3')}")
        try:
            seed(engine, arguments.count)
            serve_asgi(create_app(engine), arguments.port, arguments.quiet)
        finally:
            engine.dispose()


if __name__ == "__main__":
    main()
