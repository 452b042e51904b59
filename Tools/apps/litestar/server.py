#!/usr/bin/env python3
"""A real Litestar app with Litestar's three stock pagination containers, for testing clients against them.

    python3 Tools/apps/litestar/server.py [--count N] [--port P] [--quiet]

At start-up it builds N notes in memory (`--count`, default 5000) with ids 1 to N, ordered by id, and drops
every note whose id is a multiple of 97, as Tools/apps/drf/server.py does:

    the ids served are exactly {i for i in range(1, N + 1) if i % 97 != 0}

(5000 notes: 4949 served, the largest id 5000). Note i has the title "Note i" and, unless i is a multiple
of 10 (then an empty body), a body with non-ASCII text, quotes, a tab and a newline.

Then uvicorn listens on 127.0.0.1 (`--port`, default 0: a free port) and the server prints one line on
stdout, the base URL, e.g. `http://127.0.0.1:41234`, once it accepts connections. Nothing else goes to
stdout; uvicorn logs each request on stderr unless `--quiet`. SIGTERM or SIGINT stops it (exit 0), and so
does the end of the process that started it.

Endpoints, each a handler as in Litestar's documentation examples (docs/examples/pagination/): the
handler's parameters are the query parameters, passed to an `AbstractSync…Paginator` whose `__call__`
builds the library's container. A page answers `200`, `Content-Type: application/json`, compact JSON; each
item is `{"id": int, "title": str, "body": str}`. Litestar itself sets no largest page size and none is
added here; a size or page below 1, an offset below 0 or a value that is not an integer answers 400
(`{"status_code": 400, "detail": "Validation failed for GET /…", "extra": [...]}`). Unknown query
parameters are ignored.

- `/classic` `ClassicPagination` (`AbstractSyncClassicPaginator`): `?page_size=` (default 100) and
  `?current_page=` (1-based, default 1), `{"items", "page_size", "current_page", "total_pages"}`, where
  `total_pages` is ceil(served / page_size) (the docs' example rounds instead; 0 when there are no notes).
  A page past the end has no items (the docs' example would fail there).
- `/offset` `OffsetPagination` (`AbstractSyncOffsetPaginator`): `?limit=` (default 100) and `?offset=`
  (0-based position in the served notes, default 0), `{"items", "limit", "offset", "total"}`, where `total`
  is the number of notes served. An offset at or past `total` has no items.
- `/cursor` `CursorPagination` (`AbstractSyncCursorPaginator[str, …]`): `?cursor=` (absent: from the
  start; otherwise a note id as decimal text: the notes with a larger id) and `?results_per_page=` (default
  100), `{"items", "results_per_page", "cursor"}`, where `cursor` is the id of the page's last item as a
  JSON string (`"100"` on the first page), the value to send as the next `?cursor=`, as in the docs'
  example. The last page that has items still carries a cursor; the page after it has no items and
  `"cursor": null`. A cursor
  that is not a decimal integer (`x`, or empty) answers 400
  `{"status_code": 400, "detail": "Invalid cursor: 'x'"}`.
"""

import bisect
import math
import sys
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Annotated, List, Optional, Tuple

from litestar import Litestar, get
from litestar.exceptions import ValidationException
from litestar.pagination import (
    AbstractSyncClassicPaginator,
    AbstractSyncCursorPaginator,
    AbstractSyncOffsetPaginator,
    ClassicPagination,
    CursorPagination,
    OffsetPagination,
)
from litestar.params import Parameter

# What the apps of Tools/ share (last on the path: nothing there shadows an installed package).
sys.dont_write_bytecode = True
sys.path.append(str(Path(__file__).resolve().parent.parent))
from appprocess import command_line, end_on_signals, exit_with_parent, serve_asgi  # noqa: E402

DELETED_EVERY = 97


@dataclass
class Note:
    id: int
    title: str
    body: str


def seed(count):
    """The served notes, ordered by id."""
    return [
        Note(
            id=i,
            title=f"Note {i}",
            body="" if i % 10 == 0 else f'Body of note {i}: café, "quoted", a tab\tand a line\nbreak.',
        )
        for i in range(1, count + 1)
        if i % DELETED_EVERY != 0
    ]


class NoteClassicPaginator(AbstractSyncClassicPaginator[Note]):
    def __init__(self, notes):
        self.notes = notes

    def get_total(self, page_size: int) -> int:
        return math.ceil(len(self.notes) / page_size)

    def get_items(self, page_size: int, current_page: int) -> List[Note]:
        start = (current_page - 1) * page_size
        return self.notes[start : start + page_size]


class NoteOffsetPaginator(AbstractSyncOffsetPaginator[Note]):
    def __init__(self, notes):
        self.notes = notes

    def get_total(self) -> int:
        return len(self.notes)

    def get_items(self, limit: int, offset: int) -> List[Note]:
        return list(islice(islice(self.notes, offset, None), limit))


class NoteCursorPaginator(AbstractSyncCursorPaginator[str, Note]):
    def __init__(self, notes):
        self.notes = notes
        self.ids = [note.id for note in notes]

    def get_items(self, cursor: Optional[str], results_per_page: int) -> Tuple[List[Note], Optional[str]]:
        start = 0
        if cursor is not None:
            try:
                after = int(cursor)
            except ValueError:
                raise ValidationException(detail=f"Invalid cursor: {cursor!r}") from None
            start = bisect.bisect_right(self.ids, after)
        results = self.notes[start : start + results_per_page]
        return results, (str(results[-1].id) if results else None)


def create_app(notes):
    classic = NoteClassicPaginator(notes)
    offset_paginator = NoteOffsetPaginator(notes)
    cursor_paginator = NoteCursorPaginator(notes)

    @get("/classic", sync_to_thread=False)
    def classic_handler(
        page_size: Annotated[int, Parameter(ge=1)] = 100,
        current_page: Annotated[int, Parameter(ge=1)] = 1,
    ) -> ClassicPagination[Note]:
        return classic(page_size=page_size, current_page=current_page)

    @get("/offset", sync_to_thread=False)
    def offset_handler(
        limit: Annotated[int, Parameter(ge=1)] = 100,
        offset: Annotated[int, Parameter(ge=0)] = 0,
    ) -> OffsetPagination[Note]:
        return offset_paginator(limit=limit, offset=offset)

    @get("/cursor", sync_to_thread=False)
    def cursor_handler(
        cursor: Optional[str] = None,
        results_per_page: Annotated[int, Parameter(ge=1)] = 100,
    ) -> CursorPagination[str, Note]:
        return cursor_paginator(cursor=cursor, results_per_page=results_per_page)

    return Litestar(route_handlers=[classic_handler, offset_handler, cursor_handler])


def main():
    arguments = command_line("A Litestar app with Litestar's pagination containers serving notes.")

    end_on_signals()
    exit_with_parent()
    serve_asgi(create_app(seed(arguments.count)), arguments.port, arguments.quiet)


if __name__ == "__main__":
    main()
