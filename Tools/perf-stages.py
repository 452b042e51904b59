#!/usr/bin/env python3
"""Where a notes-page run spends its CPU, stage by stage: `perf record` of the command, then its samples
summed by the stage each function belongs to.

    Tools/perf-stages.py [--out FILE] [--instructions] -- COMMAND [ARGUMENT...]

Runs COMMAND under `perf record -F 999` (Debian's `linux-perf`), then `perf report` of it, and prints a
Markdown table: each stage's share of the samples, largest first. A stage is known by the library or the
function's module and type (see STAGES below); a release build keeps the names of Swift functions, so no
debug information is needed. Exits 69 when perf is missing, and with COMMAND's status when it fails.

With --instructions, COMMAND runs under valgrind's callgrind instead (Debian's `valgrind`, some 50 times
slower: give it a smaller input) and the table counts the instructions each stage executed, in user space
only. A count is the same from one run to the next however busy the machine is, where samples of time are
not: the measure to compare two builds by on a shared machine.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

# (stage, pattern on "dso symbol"), the first match wins.
STAGES = [
    ("yajl (tokens)", r"^libyajl|yajl_"),
    ("scanner (caps, UTF-8, strings, before yajl)",
     r"JSONScanner|PieceScanner|\$s9NotesJSON5ASCII|json_blocks|notes_json_(classify|utf8|wide|scan)| scan_(avx2|avx512|narrow)$"),
    ("event hand-off between threads (recording, replay)",
     r"PipelineCore|yajlCallbacks|notes_json_record|EventRing|EventBlock|JSONPipeline|WorkerThread"),
    ("assembly (records, fields, contract)", r"9NotesPage0B5State|PageAssembler|NotePaths|PathMask|9NotesPage5Stack|PageDecoder|9NotesPage0B9Assembler"),
    ("a record's JSON kept", r"CompactJSONWriter"),
    ("id set", r"9NotesPage5Table|IDSet|Hasher"),
    ("SQLite commit", r"^libsqlite3|SQLiteDestination|SQLiteDatabase|SQLiteStatement"),
    ("NDJSON writing", r"NDJSONDestination|NotesSystem.*(write|File)"),
    ("transport (libcurl, the walk)", r"^libcurl|Curl(Transport|Exchange)|^libnghttp|^libssl|^libz\.|9NotesFetch"),
    ("Swift runtime, malloc, memcpy", r"^libswiftCore|^libswift_|^libc\.so.*(malloc|free|memmove|memcpy|memcmp|strlen|_int_)|^ld-linux"),
    ("kernel: reading, writing, sockets", r"^\[kernel"),
]


def stage_of(dso, symbol):
    return next((name for name, pattern in STAGES if re.search(pattern, f"{dso} {symbol}")), "other")


def table(totals, what):
    return f"| stage | {what} |\n|---|---|\n" + "".join(
        f"| {stage} | {share:.1f} % |\n" for stage, share in sorted(totals.items(), key=lambda item: -item[1]))


def instructions(argv):
    """Instructions a stage executed (callgrind's Ir), as shares of the whole; the total after the table."""
    if subprocess.run(["sh", "-c", "command -v valgrind"], capture_output=True).returncode != 0:
        print("perf-stages: valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return None, 69
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "callgrind.out")
        # valgrind 3.19 cannot read the DWARF 5 debug information clang writes for the C targets, and gives
        # up on the whole binary: run a copy without debug information (the function names stay).
        program = shutil.which(argv[0]) or argv[0]
        copy = os.path.join(work, os.path.basename(program))
        if subprocess.run(["objcopy", "--strip-debug", program, copy], capture_output=True).returncode == 0:
            argv = [copy] + argv[1:]
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={data}", "--"] + argv,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if run.returncode != 0:
            sys.stderr.write(run.stderr.decode(errors="replace")[-2000:])
            return None, run.returncode
        report = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", data], capture_output=True, text=True)
    counts = {}
    # "  1,234 ( 0.5%)  FILE:FUNCTION [OBJECT]": a C++ function's name has spaces, the object never does.
    line = re.compile(r"^\s*([0-9,]+) \(\s*[0-9.]+%\)\s+(.*?)(?: \[([^\]\s]*)\])?\s*$")
    for text in report.stdout.splitlines():
        match = line.match(text)
        if not match or "PROGRAM TOTALS" in text:
            continue
        count, dso = int(match.group(1).replace(",", "")), os.path.basename(match.group(3) or "")
        symbol = match.group(2).split(":", 1)[-1]
        stage = stage_of(dso, symbol)
        counts[stage] = counts.get(stage, 0) + count
    total = sum(counts.values()) or 1
    shares = {stage: 100.0 * count / total for stage, count in counts.items()}
    return table(shares, "share of instructions") + f"\n{total:,} instructions in all.\n", 0


def main(argv):
    out = None
    counting = False
    while argv[:1] in (["--out"], ["--instructions"]):
        if argv[0] == "--out":
            out, argv = argv[1], argv[2:]
        else:
            counting, argv = True, argv[1:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 64
    if counting:
        text, status = instructions(argv)
        if text is None:
            return status
        if out:
            with open(out, "w") as file:
                file.write(text)
        sys.stdout.write(text)
        return 0
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
        stage = stage_of(dso, symbol)
        totals[stage] = totals.get(stage, 0.0) + share
    text = table(totals, "share of CPU samples")
    if out:
        with open(out, "w") as file:
            file.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
