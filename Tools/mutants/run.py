#!/usr/bin/env python3
"""Mutation testing: breaks the code on purpose and checks that the tests notice.

Usage: Tools/mutants/run.py [--ci] [--only NAME[,NAME...]] [--list] [--timeout S]

Reads Tools/mutants/mutants.txt (its header documents the format) and validates all of it first. Then
copies the working tree (tracked and untracked-but-not-ignored files) to .build/mutants/tree, builds it
with the scratch path .build/mutants/build (kept between runs, so builds are incremental) and runs the
selected entries' tests once unmutated: if that baseline fails, nothing is meaningful and it stops.
Each mutation is then applied to the copy, built and tested with its own `swift test --filter`s;
failing tests kill it, passing tests let it survive. The original file is always put back.

  --ci          only the entries marked `ci: yes` (make mutants-ci)
  --only NAMES  only these entries (comma-separated, repeatable; with --ci, those also marked)
  --list        print the entries and exit
  --timeout S   seconds allowed to one mutant's tests (default 900); a timeout counts as killed

Each entry's build and test output goes to .build/mutants/logs/NAME.log, the baseline's to
.build/mutants/baseline.log. The last line is `N mutations, K killed, S survived` (`, E errors` when a
mutant does not build). Exit status: 0 when every selected mutation was killed, 1 otherwise, 64 for a
usage error or an invalid mutants.txt, 130 when interrupted. $SWIFT overrides the `swift` command.
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIST = os.path.join(ROOT, "Tools", "mutants", "mutants.txt")
WORK = os.path.join(ROOT, ".build", "mutants")
TREE, BUILD, LOGS = (os.path.join(WORK, name) for name in ("tree", "build", "logs"))
KEYS = ("promise", "file", "find", "replace", "tests", "ci")
SWIFT = os.environ.get("SWIFT", "swift")


class Invalid(Exception):
    """A usage error or an invalid mutants.txt: exit 64."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Invalid(message)


def unescape(value):
    return re.sub(r"\\([\\n])", lambda m: "\n" if m[1] == "n" else "\\", value)


def parse(path):
    """The entries of mutants.txt as dicts (key -> value, plus name and line numbers), validated."""
    entries, errors, entry = [], [], None
    with open(path, encoding="utf-8") as file:
        lines = file.read().splitlines()
    for number, line in enumerate(lines, 1):
        if line.startswith("#"):
            continue
        if not line.strip():
            entry = None
            continue
        header = re.fullmatch(r"\[(.*)\]\s*", line)
        if header:
            name = header[1]
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
                errors.append(f"{number}: bad entry name [{name}] (letters, digits, '.', '_', '-')")
            first = next((e for e in entries if e["name"] == name), None)
            if first:
                errors.append(f"{number}: [{name}] again (first on line {first['line']})")
            entry = {"name": name, "line": number, "lines": {}}
            entries.append(entry)
            continue
        key, colon, value = line.partition(":")
        if entry is None:
            errors.append(f"{number}: expected [name] to start an entry, got {line!r}")
        elif not colon or key not in KEYS:
            errors.append(f"{number}: [{entry['name']}]: unknown key {key!r} (known: {', '.join(KEYS)})")
        elif key in entry:
            errors.append(f"{number}: [{entry['name']}]: {key}: given twice")
        else:
            entry[key] = value[1:] if value.startswith(" ") else value
            entry["lines"][key] = number
    for entry in entries:
        errors += check(entry)
    if errors:
        errors.sort(key=lambda error: int(error.split(":")[0]))
        raise Invalid("\n".join(f"{os.path.relpath(path, ROOT)}:{error}" for error in errors))
    return entries


def check(entry):
    """The problems of one entry; normalizes its values in place."""
    missing = [key for key in ("file", "find", "tests") if not entry.get(key, "").strip()]
    if missing:
        return [f"{entry['line']}: [{entry['name']}]: missing {', '.join(key + ':' for key in missing)}"]
    entry["find"], entry["replace"] = unescape(entry["find"]), unescape(entry.get("replace", ""))
    entry["file"], entry["tests"] = entry["file"].strip(), entry["tests"].split()
    entry["ci"], errors = entry.get("ci", "no").strip(), []
    if entry["ci"] not in ("yes", "no"):
        errors.append(f"{entry['lines']['ci']}: [{entry['name']}]: ci: must be yes or no")
    path = os.path.normpath(os.path.join(ROOT, entry["file"]))
    if not path.startswith(ROOT + os.sep) or not os.path.isfile(path):
        return errors + [f"{entry['lines']['file']}: [{entry['name']}]: no such file {entry['file']}"]
    with open(path, encoding="utf-8", newline="") as file:
        count = file.read().count(entry["find"])
    if count != 1:
        errors.append(f"{entry['lines']['find']}: [{entry['name']}]: find: occurs {count} times in "
                      f"{entry['file']}, must occur exactly once")
    return errors


def write_fresh(path, data):
    """Writes data, making sure the mtime moves forward so that SwiftPM sees the change."""
    before = os.stat(path).st_mtime_ns if os.path.lexists(path) else 0
    with open(path, "wb") as file:
        file.write(data)
    after = os.stat(path).st_mtime_ns
    if after <= before:
        os.utime(path, ns=(after, before + 1_000_000_000))


def sync_tree():
    """Makes TREE a copy of the working tree, rewriting only the files whose content changed."""
    listing = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT,
                             check=True, stdout=subprocess.PIPE).stdout.decode().split("\0")
    wanted = {p for p in listing if p and os.path.isfile(os.path.join(ROOT, p))}  # not deleted ones
    os.makedirs(TREE, exist_ok=True)
    for directory, subdirectories, files in os.walk(TREE, topdown=False):
        for name in files + subdirectories:
            path = os.path.join(directory, name)
            if os.path.isdir(path):
                if not os.listdir(path):
                    os.rmdir(path)
            elif os.path.relpath(path, TREE) not in wanted:
                os.remove(path)
    for relative in sorted(wanted):
        source, target = os.path.join(ROOT, relative), os.path.join(TREE, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(source, "rb") as file:
            data = file.read()
        if os.path.isfile(target):
            with open(target, "rb") as file:
                if file.read() == data:
                    continue
        write_fresh(target, data)
        os.chmod(target, os.stat(source).st_mode & 0o777)
    shared, link = os.path.realpath(os.path.join(ROOT, "..", "shared")), os.path.join(WORK, "shared")
    if os.path.lexists(link) and (not os.path.islink(link) or os.readlink(link) != shared):
        os.remove(link)
    if os.path.isdir(shared) and not os.path.lexists(link):
        os.symlink(shared, link)


def session(sid):
    """The live processes of session sid (Linux /proc): SwiftPM runs the test runner, and the tests their
    servers, in process groups of their own, so killing the command's group is not enough."""
    pids = []
    for entry in filter(str.isdigit, os.listdir("/proc") if os.path.isdir("/proc") else []):
        try:
            with open(f"/proc/{entry}/stat") as file:
                fields = file.read().rpartition(")")[2].split()  # state, ppid, pgrp, session, ...
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(entry))
    return pids


def run(command, log, timeout=None):
    """Runs command in TREE with its output appended to log: its exit status, or None on a timeout.
    Whatever it leaves running (after a timeout, Ctrl-C or SIGTERM) gets SIGINT, then SIGKILL."""
    log.write(f"\n$ {' '.join(command)}\n")
    log.flush()
    process = subprocess.Popen(command, cwd=TREE, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    finally:
        for sig, grace in ((signal.SIGINT, 10), (signal.SIGKILL, 5)):
            pids = session(process.pid) + ([process.pid] if process.poll() is None else [])
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + grace
            while pids and (session(process.pid) or process.poll() is None) and time.monotonic() < deadline:
                time.sleep(0.1)
        process.wait()


def build(log):
    """Builds TREE; on failure, returns the last 30 lines of the output, else None."""
    start = log.tell()
    if run([SWIFT, "build", "--build-tests", "--scratch-path", BUILD], log) == 0:
        return None
    log.flush()
    with open(log.name, encoding="utf-8", errors="replace") as file:
        file.seek(start)
        return "\n".join("    " + line for line in file.read().splitlines()[-30:])


def test(filters, log, timeout=None):
    return run([SWIFT, "test", "--skip-build", "--scratch-path", BUILD]
               + [arg for f in filters for arg in ("--filter", f)], log, timeout)


def mutate(entry, timeout):
    """Applies, builds and tests one mutation: (outcome, detail) with outcome killed, survived or error."""
    path = os.path.join(TREE, entry["file"])
    if not os.path.isfile(path):
        return "error", f"{entry['file']} is not in the copy (ignored by git?)"
    with open(path, "rb") as file:
        original = file.read()
    text = original.decode("utf-8")
    with open(os.path.join(LOGS, entry["name"] + ".log"), "w", encoding="utf-8") as log:
        log.write(f"[{entry['name']}] {entry.get('promise', '')}\n{entry['file']}\n"
                  f"--- find\n{entry['find']}\n+++ replace\n{entry['replace']}\n")
        if text.count(entry["find"]) != 1:
            return "error", f"find: occurs {text.count(entry['find'])} times in the copy of {entry['file']}"
        try:
            write_fresh(path, text.replace(entry["find"], entry["replace"]).encode("utf-8"))
            failure = build(log)
            if failure is not None:
                return "error", "does not build\n" + failure
            status = test(entry["tests"], log, timeout)
            return ("killed", "(timeout)") if status is None else ("killed" if status else "survived", "")
        finally:
            write_fresh(path, original)


def main():
    parser = Parser(description=__doc__.split("\n")[0])
    parser.add_argument("--ci", action="store_true")
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args()
    entries = parse(LIST)
    names = [name for value in args.only for name in value.split(",") if name]
    unknown = [name for name in names if name not in {e["name"] for e in entries}]
    if unknown:
        raise Invalid(f"--only: no entry named {', '.join(unknown)}")
    selected = [e for e in entries if (not names or e["name"] in names) and (not args.ci or e["ci"] == "yes")]
    if not selected:
        raise Invalid("no entries selected")
    if args.list:
        for e in selected:
            print(f"{e['name']}{'  (ci)' if e['ci'] == 'yes' else ''}\n  {e.get('promise', '')}\n"
                  f"  {e['file']}; tests: {' '.join(e['tests'])}")
        return 0
    os.makedirs(LOGS, exist_ok=True)
    start = time.monotonic()
    sync_tree()
    filters = list(dict.fromkeys(f for e in selected for f in e["tests"]))
    with open(os.path.join(WORK, "baseline.log"), "w", encoding="utf-8") as log:
        failure = build(log)
        if failure is not None:
            print(f"baseline: the unmutated tree does not build (.build/mutants/baseline.log):\n{failure}")
            return 1
        if test(filters, log) != 0:
            print("baseline: the tests fail on the unmutated tree, so no mutant can be judged; "
                  "see .build/mutants/baseline.log")
            return 1
    print(f"baseline: built and tested in {time.monotonic() - start:.1f} s", flush=True)
    counts = {"killed": 0, "survived": 0, "error": 0}
    for entry in selected:
        start = time.monotonic()
        outcome, detail = mutate(entry, args.timeout)
        counts[outcome] += 1
        log = f".build/mutants/logs/{entry['name']}.log"
        first, _, rest = detail.partition("\n")
        line = f"{outcome} {entry['name']}{': ' if outcome == 'error' else ' '}{first}".rstrip()
        line += f"  ({time.monotonic() - start:.1f} s)"
        if outcome != "killed":
            line += f"  log: {log}\n  promise: {entry.get('promise', '')}" + (f"\n{rest}" if rest else "")
        print(line, flush=True)
    summary = f"{len(selected)} mutations, {counts['killed']} killed, {counts['survived']} survived"
    print(summary + (f", {counts['error']} errors" if counts["error"] else ""))
    return 0 if counts["killed"] == len(selected) else 1


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        sys.exit(main())
    except Invalid as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(64)
    except KeyboardInterrupt:
        print("interrupted (any mutated file was restored)", file=sys.stderr)
        sys.exit(130)
