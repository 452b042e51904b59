#!/usr/bin/env python3
"""Where a notes-page run spends its CPU, stage by stage: `perf record` of the command, then its samples
summed by the stage each function belongs to.

    Tools/perf-stages.py [--out FILE] -- COMMAND [ARGUMENT...]

Runs COMMAND under `perf record -F 999` (Debian's `linux-perf`), then `perf report` of it, and prints a
Markdown table: each stage's share of the samples, largest first. A stage is known by the library or the
function's module and type (see STAGES below); a release build keeps the names of Swift functions, so no
debug information is needed. Exits 69 when perf is missing, and with COMMAND's status when it fails.
"""

import os
import re
import subprocess
import sys
import tempfile

# (stage, pattern on "dso symbol"), the first match wins.
STAGES = [
    ("yajl (tokens)", r"^libyajl|yajl_|yajlCallbacks"),
    ("scanner (caps, UTF-8, strings, before yajl)", r"JSONScanner|PieceScanner|\$s9NotesJSON5ASCII|json_blocks"),
    ("event hand-off between threads", r"PipelineCore|EventRecorder|EventRing|EventBlock|JSONPipeline|WorkerThread"),
    ("assembly (records, fields, contract)", r"9NotesPage0B5State|PageAssembler|NotePaths|PathMask|9NotesPage5Stack|PageDecoder|9NotesPage0B9Assembler"),
    ("a record's JSON kept", r"CompactJSONWriter"),
    ("id set", r"9NotesPage5Table|IDSet|Hasher"),
    ("SQLite commit", r"^libsqlite3|SQLiteDestination|SQLiteDatabase|SQLiteStatement"),
    ("NDJSON writing", r"NDJSONDestination|NotesSystem.*(write|File)"),
    ("transport (libcurl, the walk)", r"^libcurl|Curl(Transport|Exchange)|^libnghttp|^libssl|^libz\.|9NotesFetch"),
    ("Swift runtime, malloc, memcpy", r"^libswiftCore|^libswift_|^libc\.so.*(malloc|free|memmove|memcpy|memcmp|strlen|_int_)|^ld-linux"),
    ("kernel: reading, writing, sockets", r"^\[kernel"),
]


def main(argv):
    out = None
    if argv[:1] == ["--out"]:
        out, argv = argv[1], argv[2:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 64
    if subprocess.run(["sh", "-c", "command -v perf"], capture_output=True).returncode != 0:
        print("perf-stages: perf is not installed (apt-get install linux-perf)", file=sys.stderr)
        return 69
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "perf.data")
        run = subprocess.run(["perf", "record", "-q", "-F", "999", "-o", data, "--"] + argv,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if run.returncode != 0:
            sys.stderr.write(run.stderr.decode(errors="replace"))
            return run.returncode
        report = subprocess.run(
            ["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "dso,symbol", "-g", "none",
             "--percent-limit", "0"], capture_output=True, text=True)
    totals = {}
    line = re.compile(r"^\s*([0-9.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*?)\s*$")
    for text in report.stdout.splitlines():
        match = line.match(text)
        if not match:
            continue
        share, dso, symbol = float(match.group(1)), match.group(2), match.group(3)
        stage = next((name for name, pattern in STAGES if re.search(pattern, f"{dso} {symbol}")), "other")
        totals[stage] = totals.get(stage, 0.0) + share
    table = "| stage | share of CPU samples |\n|---|---|\n" + "".join(
        f"| {stage} | {share:.1f} % |\n" for stage, share in sorted(totals.items(), key=lambda item: -item[1]))
    if out:
        with open(out, "w") as file:
            file.write(table)
    sys.stdout.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
