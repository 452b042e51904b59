"""The dlt pipeline a Python user would load the notes with: the peer of `notes-page fetch --sqlite` and of
`notes-page fetch --postgres`.

It loads the notes of an NDJSON file (the one `notes-page fetch --all -o FILE` wrote in the same run) into
SQLite through dlt's sqlalchemy destination, or into PostgreSQL through its postgres destination
(psycopg2), merging on `id` (a note loaded again replaces its row, as notes-page upserts by id). This is
the load alone: the fetch is not part of it. dlt flattens each note as it does by default (nested objects
into columns, arrays into child tables). A note's integers past 64 bits, which dlt refuses ("Integer
exceeds 64-bit range"), are kept as their digits.

    python Benchmarks/peers/dlt-load.py sqlite NOTES.ndjson DATABASE PIPELINES_DIR
    python Benchmarks/peers/dlt-load.py postgres NOTES.ndjson POSTGRES_URL PIPELINES_DIR
    python Benchmarks/peers/dlt-load.py sqlite|postgres --probe   # exit 0 when this Python has what it needs

The Python is the virtual environment's of Benchmarks/peers/install.sh. Telemetry is off. Silent when the
load succeeded (exit 0); otherwise dlt's error on standard error and exit 1.
"""

import os
import sys
import warnings

os.environ["RUNTIME__DLTHUB_TELEMETRY"] = "false"
# Quiet unless the load fails: dlt warns of columns a load left without data, SQLAlchemy of dlt's queries.
os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")
warnings.filterwarnings("ignore")

# What each destination needs imported.
NEEDS = {"sqlite": "sqlalchemy", "postgres": "psycopg2"}


def integers_as_text(note):
    return {k: (str(v) if type(v) is int and not -(2**63) <= v < 2**63 else v) for k, v in note.items()}


def destination(kind, target):
    import dlt

    if kind == "sqlite":
        # One load job at a time: SQLite has one writer, and parallel jobs fail with "database is locked".
        os.environ.setdefault("LOAD__WORKERS", "1")
        return dlt.destinations.sqlalchemy(credentials="sqlite:///" + os.path.abspath(target)), "main"
    return dlt.destinations.postgres(credentials=target), "dlt_notes"


def main(argv):
    if len(argv) == 3 and argv[1] in NEEDS and argv[2] == "--probe":
        try:
            import dlt  # noqa: F401

            __import__(NEEDS[argv[1]])
        except ImportError:
            return 1
        return 0
    if len(argv) != 5 or argv[1] not in NEEDS:
        print("usage: python dlt-load.py sqlite|postgres NOTES.ndjson DATABASE|URL PIPELINES_DIR", file=sys.stderr)
        return 64
    import json

    import dlt

    kind, path, target, pipelines = argv[1:]

    @dlt.resource(name="notes", primary_key="id", write_disposition="merge")
    def notes():
        with open(path, "rb") as lines:
            for line in lines:
                yield integers_as_text(json.loads(line))

    where, dataset = destination(kind, target)
    pipeline = dlt.pipeline(
        pipeline_name="notes_page_peer_" + kind, pipelines_dir=pipelines, destination=where, dataset_name=dataset
    )
    info = pipeline.run(notes())
    info.raise_on_failed_jobs()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
