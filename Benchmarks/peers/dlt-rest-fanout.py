"""The dlt pipeline a Python user would write for a parent/child fan-out: dlt's rest_api source on the
fixture server's GitHub-shaped API (`notes-server.mjs --repos N --issues K --fixed ...`), the peer of a
notes-page sync of repos and their issues.

Two resources, configured as dlt's rest_api documentation describes, loaded into SQLite through dlt's
sqlalchemy destination (as dlt-load.py does):

  repos   GET BASE_URL/repos?per_page=100, followed by the Link rel="next" header (header_link), key id
  issues  GET BASE_URL/repos/octo/{name}/issues?per_page=100 for each repo, `name` resolved from the repos
          resource, Link-header paging, the repo's id kept as `_repos_id` (include_from_parent), key id

Both resources are `parallelized`: the repos walk runs in dlt's extract thread pool, and each repo's
issues are fetched there as a deferred call, several repos at once (dlt's extract workers, 5 unless
EXTRACT__WORKERS says otherwise). Write disposition replace: a run leaves exactly what it fetched.

    python Benchmarks/peers/dlt-rest-fanout.py BASE_URL DATABASE WORKDIR
    python Benchmarks/peers/dlt-rest-fanout.py --probe   # exit 0 when this Python has what it needs

BASE_URL is the server's origin (its printed URL without /notes), DATABASE the SQLite file, WORKDIR a
directory for dlt's pipelines (WORKDIR/pipelines; give a fresh one so that each run is a first one).
The Python is the virtual environment's of Benchmarks/peers/install.sh. Telemetry is off. On success
one line on standard error, the rows loaded per table, and exit 0; otherwise dlt's error and exit 1
(64 for a bad command line).
"""

import os
import sys
import warnings

os.environ["RUNTIME__DLTHUB_TELEMETRY"] = "false"
# Quiet unless the load fails: dlt logs each request and warns of columns, SQLAlchemy of dlt's queries.
os.environ.setdefault("RUNTIME__LOG_LEVEL", "ERROR")
warnings.filterwarnings("ignore")

USAGE = "usage: python dlt-rest-fanout.py BASE_URL DATABASE WORKDIR | --probe"

PAGE_SIZE = 100


def probe():
    """None when dlt's rest_api source and its sqlalchemy destination (with SQLAlchemy) import, else why not."""
    try:
        import dlt
        from dlt.sources.rest_api import rest_api_source  # noqa: F401

        # The destination's client class is imported on demand; it needs SQLAlchemy.
        dlt.destinations.sqlalchemy(credentials="sqlite:///:memory:").client_class
    except Exception as error:  # an ImportError, or dlt's wrapping of one
        return f"{type(error).__name__}: {error}"
    return None


def fanout_config(base_url):
    """The rest_api source's configuration: repos, and the issues of each repo."""
    link_header = {"type": "header_link"}  # follows Link: <URL>; rel="next" until there is none
    return {
        "client": {"base_url": base_url.rstrip("/") + "/", "paginator": link_header},
        "resource_defaults": {"write_disposition": "replace", "parallelized": True},
        "resources": [
            {
                "name": "repos",
                "primary_key": "id",
                "endpoint": {"path": "repos", "params": {"per_page": PAGE_SIZE}, "paginator": link_header},
            },
            {
                "name": "issues",
                "primary_key": "id",
                "include_from_parent": ["id"],
                "endpoint": {
                    "path": "repos/octo/{name}/issues",
                    "params": {
                        "name": {"type": "resolve", "resource": "repos", "field": "name"},
                        "per_page": PAGE_SIZE,
                    },
                    "paginator": link_header,
                },
            },
        ],
    }


def main(argv):
    if argv[1:] == ["--probe"]:
        problem = probe()
        if problem:
            print(f"dlt-rest-fanout: {problem}", file=sys.stderr)
            return 1
        return 0
    if len(argv) != 4 or any(arg == "" or arg.startswith("--") for arg in argv[1:]):
        print(USAGE, file=sys.stderr)
        return 64
    base_url, database, workdir = argv[1:]
    # One load job at a time: SQLite has one writer, and parallel jobs fail with "database is locked".
    os.environ.setdefault("LOAD__WORKERS", "1")

    import dlt
    from dlt.sources.rest_api import rest_api_source

    pipeline = dlt.pipeline(
        pipeline_name="notes_page_peer_rest_fanout",
        pipelines_dir=os.path.join(workdir, "pipelines"),
        destination=dlt.destinations.sqlalchemy(credentials="sqlite:///" + os.path.abspath(database)),
        dataset_name="main",
    )
    info = pipeline.run(rest_api_source(fanout_config(base_url), name="fanout"))
    info.raise_on_failed_jobs()
    rows = pipeline.last_trace.last_normalize_info.row_counts
    loaded = {table: rows.get(table, 0) for table in ("repos", "issues")}
    if loaded["repos"] == 0:
        print("dlt-rest-fanout: no repos were loaded", file=sys.stderr)
        return 1
    print("dlt-rest-fanout: " + ", ".join(f"{table} {count} rows" for table, count in loaded.items()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
