#!/usr/bin/env python3
"""Benchmarks/peers/postgres-rows.py NDJSON ROWS

Writes, for each record of the NDJSON file, the row `notes-page fetch --postgres` copies into its table on a
first run, in COPY's text format: id, json (\\N where jsonb refuses the record: a \\u0000 escape), json_text
(the line as it is), title (\\N when absent or holding U+0000), fetched_at, run. `psql -c "\\copy TABLE from
ROWS"` then loads the same rows in one transaction: the server's own floor for the --postgres walk.
"""
import json
import re
import sys

NUL_ESCAPE = re.compile(r'(?<!\\)(?:\\\\)*\\u0000')


def field(text):
    return text.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n').replace('\r', '\\r')


def main():
    source, target = sys.argv[1], sys.argv[2]
    with open(source, encoding='utf-8') as lines, open(target, 'w', encoding='utf-8') as rows:
        for line in lines:
            line = line.rstrip('\n')
            record = json.loads(line)
            title = record.get('title')
            json_field = '\\N' if NUL_ESCAPE.search(line) else field(line)
            title_field = field(title) if isinstance(title, str) and '\x00' not in title else '\\N'
            rows.write(f"{field(str(record['id']))}\t{json_field}\t{field(line)}\t{title_field}"
                       "\t2026-01-01 00:00:00+00\t1\n")


if __name__ == '__main__':
    main()
