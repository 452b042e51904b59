"""The dlt pipeline a Python user would load the notes into PostgreSQL with: the peer of
`notes-page fetch --postgres`.

It loads the notes of an NDJSON file (the one `notes-page fetch --all -o FILE` wrote in the same run) into
a PostgreSQL schema through dlt's postgres destination (psycopg2), merging on `id` (a note loaded again
replaces its row, as `--postgres` upserts by id). This is the load alone: the fetch is not part of it. dlt
flattens each note as it does by default (nested objects into columns, arrays into child tables). A
note's integers past 64 bits, which dlt refuses, are kept as their digits.

    python Benchmarks/peers/dlt-postgres.py NOTES.ndjson POSTGRES_URL PIPELINES_DIR
    python Benchmarks/peers/dlt-postgres.py --probe   # exit 0 when this Python has dlt and psycopg2

The Python is the virtual environment's of Benchmarks/peers/install.sh. Telemetry is off. Silent when the
load succeeded (exit 0); otherwise dlt's error on standard error and exit 1.
"""

import os
import sys
import warnings

os.environ["RUNTIME__DLTHUB_TELEMETRY"] = "false"
os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")
warnings.filterwarnings("ignore")


def integers_as_text(note):
    return {k: (str(v) if type(v) is int and not -(2**63) <= v < 2**63 else v) for k, v in note.items()}


def main(argv):
    if argv[1:] == ["--probe"]:
        try:
            import dlt  # noqa: F401
            import psycopg2  # noqa: F401
        except ImportError:
            return 1
        return 0
    if len(argv) != 4:
        print("usage: python dlt-postgres.py NOTES.ndjson POSTGRES_URL PIPELINES_DIR", file=sys.stderr)
        return 64
    import json

    import dlt

    path, url, pipelines = argv[1:]

    @dlt.resource(name="notes", primary_key="id", write_disposition="merge")
    def notes():
        with open(path, "rb") as lines:
            for line in lines:
                yield integers_as_text(json.loads(line))

    pipeline = dlt.pipeline(
        pipeline_name="notes_page_peer_postgres",
        pipelines_dir=pipelines,
        destination=dlt.destinations.postgres(credentials=url),
        dataset_name="dlt_notes",
    )
    info = pipeline.run(notes())
    info.raise_on_failed_jobs()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
