"""The client a Python user would write instead of notes-page: urllib + json, page after page.

Standard library only. It does the job `notes-page fetch --all URL -o FILE` does, the plain way: each page
read whole, parsed, every note's id checked (a non-empty string, seen once in the run), its title a string,
each note written as a line of JSON to standard output.

    python3 Benchmarks/peers/python-urllib.py URL      # the benchmarks run it on the fixture server's pages
    python3 Benchmarks/peers/python-urllib.py --probe  # exit 0 when this Python can run it

Silent when every page was read (exit 0); otherwise a message on standard error and exit 1.
"""

import json
import sys
import urllib.parse
import urllib.request


def main(argv):
    if len(argv) != 2:
        print("usage: python3 python-urllib.py URL", file=sys.stderr)
        return 64
    if argv[1] == "--probe":
        return 0
    endpoint = argv[1]
    ids = set()
    url = endpoint
    pages = 0
    out = sys.stdout
    while url is not None:
        with urllib.request.urlopen(url) as response:
            page = json.loads(response.read())
        notes = page.get("notes")
        if not isinstance(notes, list):
            raise SystemExit(f"page {pages + 1}: no notes array")
        lines = []
        for note in notes:
            note_id = note.get("id")
            if not isinstance(note_id, str) or note_id == "" or not isinstance(note.get("title"), str):
                raise SystemExit(f"page {pages + 1}: a note without a string id and title")
            if note_id in ids:
                raise SystemExit(f"page {pages + 1}: duplicate id {note_id!r}")
            ids.add(note_id)
            lines.append(json.dumps(note, ensure_ascii=False, separators=(",", ":")))
        if lines:
            out.write("\n".join(lines) + "\n")
        pages += 1
        cursor = page.get("next_cursor")
        url = None if cursor in (None, "") else endpoint + "?" + urllib.parse.urlencode({"cursor": cursor})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
