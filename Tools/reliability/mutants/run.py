#!/usr/bin/env python3
"""Mutation testing: breaks the code on purpose and checks that the tests notice.

Usage: Tools/reliability/mutants/run.py [--ci] [--only NAME[,NAME...]] [--list] [--timeout S] [--in-place]

Reads Tools/reliability/mutants/mutants.txt (its header documents the format) and validates all of it first.
Then copies the working tree (tracked and untracked-but-not-ignored files) to .build/mutants/tree, builds it
with the scratch path .build/mutants/build (kept between runs, so builds are incremental) and runs the
selected entries' tests once unmutated: if that baseline fails, nothing is meaningful and it stops. Each
mutation is then applied to the copy, built (`swift build --build-tests`, incremental: a few seconds) and
tested with its own `--filter`s; failing tests kill it, passing tests let it survive. The original file is
always put back.

The tests run from the built test bundle itself (`notes-pagePackageTests.xctest --testing-library
swift-testing`, as `swift test --skip-build` runs it, without SwiftPM's second of start-up each time;
`swift test --skip-build` where there is no such bundle). A mutant's tests stop at the first test that
records an issue: one failing test kills it, and the rest would only cost time (a kill by timeout or by
a crash is a kill too). The baseline runs to the end. A filter that matches no test is an error.

  --ci          only the entries marked `ci: yes` (make mutants-ci)
  --only NAMES  only these entries (comma-separated, repeatable; with --ci, those also marked)
  --list        print the entries and exit
  --timeout S   seconds allowed to one mutant's tests (default 900); a timeout counts as killed
  --in-place    mutate the working tree itself and build in .build, incrementally from the build `make test`
                just made, with no baseline tests (`make test` just ran them): what CI does, on a clean
                clone, to spare a second build from scratch. Each file is put back after its mutant, also
                on Ctrl-C and SIGTERM, but not after a SIGKILL; refused where git sees changes (unless
                CI=true): not for a tree with work in it.

Each entry's build and test output goes to .build/mutants/logs/NAME.log, the baseline's to
.build/mutants/baseline.log. Each mutant's line gives its time (build and tests), and the end the 10
slowest, then `N mutations, K killed, S survived` (`, E errors` when a mutant does not build or its
filters match no test). Exit status: 0 when every selected mutation was killed, 1 otherwise, 64 for a
usage error or an invalid mutants.txt, 130 when interrupted. $SWIFT overrides the `swift` command.
"""

import argparse
import glob
import os
import re
import signal
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
LIST = os.path.join(ROOT, "Tools", "reliability", "mutants", "mutants.txt")
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
    """Writes data, making sure the mtime moves forward so that SwiftPM sees the change. Written beside it
    and renamed over it, so that a signal never leaves the file half written."""
    before = os.stat(path).st_mtime_ns if os.path.lexists(path) else 0
    mode = os.stat(path).st_mode & 0o777 if os.path.lexists(path) else None
    temporary = f"{path}.mutant-{os.getpid()}"
    with open(temporary, "wb") as file:
        file.write(data)
    if mode is not None:
        os.chmod(temporary, mode)
    after = os.stat(temporary).st_mtime_ns
    if after <= before:
        os.utime(temporary, ns=(after, before + 1_000_000_000))
    os.replace(temporary, path)


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


def stop_session(process, signals=((signal.SIGINT, 10), (signal.SIGKILL, 5))):
    """Sends each signal in turn to process and whatever it left running in its session, waiting up to the
    grace for them to end, until none is left."""
    for sig, grace in signals:
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


# What swift-testing prints for a test that records an issue (not a known one, nor a warning), or fails:
# the run will fail.
FAILURE = re.compile(r"^\u2718 Test .*( recorded an issue | failed after )")
STARTED = re.compile(r'^\S+ Test (".*") started\.')
ENDED = re.compile(r'^\S+ Test (".*?")(?: with \d+ test cases?)? (?:passed|failed|skipped)')


def run(command, log, timeout=None, stop_at_failure=False, env=None):
    """Runs command in TREE with its output appended to log: its exit status, None on a timeout, or
    "failed" once a test has failed, with stop_at_failure (the rest is not waited for). Whatever it leaves
    running (after a timeout, a failure, Ctrl-C or SIGTERM) is stopped: SIGINT, then SIGKILL."""
    log.write(f"\n$ {' '.join(command)}\n")
    log.flush()
    if not stop_at_failure:
        process = subprocess.Popen(command, cwd=TREE, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True, env=env)
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        finally:
            stop_session(process)
    process = subprocess.Popen(command, cwd=TREE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               start_new_session=True, env=env)
    failed = threading.Event()
    running = {}  # the tests started and not yet ended, for a timeout's note

    def copy():
        for line in iter(process.stdout.readline, b""):
            text = line.decode("utf-8", errors="replace")
            try:
                log.write(text)
                log.flush()
            except ValueError:  # the log is closed: a child held the pipe past its run
                return
            started, ended = STARTED.match(text), ENDED.match(text)
            if started:
                running[started[1]] = True
            elif ended:
                running.pop(ended[1], None)
            if not failed.is_set() and FAILURE.match(text):
                failed.set()

    reader = threading.Thread(target=copy, daemon=True)
    reader.start()
    deadline = None if timeout is None else time.monotonic() + timeout
    outcome = None
    try:
        while True:
            if failed.wait(0.05):
                outcome = "failed"
                break
            if process.poll() is not None:
                reader.join(2)  # the rest of its output (a child still holding the pipe is stopped below)
                outcome = "failed" if failed.is_set() else process.returncode
                break
            if deadline is not None and time.monotonic() > deadline:
                outcome = "timeout"
                break
        return None if outcome == "timeout" else outcome
    finally:
        # After a failure nothing of the run is needed: no grace.
        stop_session(process, ((signal.SIGKILL, 5),) if outcome == "failed" else
                     ((signal.SIGINT, 10), (signal.SIGKILL, 5)))
        reader.join(5)
        if outcome == "failed" and process.returncode != 0:
            log.write("\n(run.py: stopped at the first failing test)\n")
        elif outcome == "timeout":
            log.write(f"\n(run.py: stopped after {timeout:.0f} s; still running: "
                      f"{', '.join(list(running)) or 'no test'})\n")
        log.flush()


def build(log):
    """Builds TREE; on failure, returns the last 30 lines of the output, else None."""
    start = log.tell()
    if run([SWIFT, "build", "--build-tests", "--scratch-path", BUILD], log) == 0:
        return None
    log.flush()
    with open(log.name, encoding="utf-8", errors="replace") as file:
        file.seek(start)
        return "\n".join("    " + line for line in file.read().splitlines()[-30:])


def test_bundle():
    """The built test bundle as an executable file (Linux), found once; None where there is none (macOS
    builds a bundle directory that only `swift test` runs)."""
    if not hasattr(test_bundle, "path"):
        bundles = glob.glob(os.path.join(BUILD, "debug", "*PackageTests.xctest"))
        test_bundle.path = (bundles[0] if len(bundles) == 1 and os.path.isfile(bundles[0])
                            and os.access(bundles[0], os.X_OK) else None)
    return test_bundle.path


# swift-testing's exit status when no test matched the filters.
NO_TESTS = 69


def test(filters, log, timeout=None, stop_at_failure=False):
    """Runs the tests the filters select: 0 when they pass, NO_TESTS when none matched, None on a timeout,
    "failed" or another status when one fails."""
    args = [arg for f in filters for arg in ("--filter", f)]
    bundle = test_bundle()
    if bundle is None:
        return run([SWIFT, "test", "--skip-build", "--scratch-path", BUILD] + args, log, timeout,
                   stop_at_failure)
    # What `swift test --skip-build` runs for swift-testing: the bundle, with NO_COLOR=1.
    return run([bundle, "--testing-library", "swift-testing"] + args, log, timeout, stop_at_failure,
               env=dict(os.environ, NO_COLOR="1"))


def mutate(entry, timeout, times):
    """Applies, builds and tests one mutation: (outcome, detail) with outcome killed, survived or error;
    the seconds its build and its tests took go to times."""
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
            start = time.monotonic()
            failure = build(log)
            times["build"] = time.monotonic() - start
            if failure is not None:
                return "error", "does not build\n" + failure
            start = time.monotonic()
            status = test(entry["tests"], log, timeout, stop_at_failure=True)
            times["tests"] = time.monotonic() - start
            if status is None:
                return "killed", "(timeout)"
            if status == NO_TESTS:
                return "error", f"no test matches tests: {' '.join(entry['tests'])}"
            return ("killed", "") if status else ("survived", "")
        finally:
            write_fresh(path, original)


def main():
    parser = Parser(description=__doc__.split("\n")[0])
    parser.add_argument("--ci", action="store_true")
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--in-place", action="store_true")
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
    global TREE, BUILD
    if args.in_place:
        changed = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, check=True,
                                 stdout=subprocess.PIPE).stdout.decode()
        if changed and os.environ.get("CI") != "true":
            raise Invalid("--in-place mutates the working tree itself: commit or stash its changes first "
                          "(or run without it, on a copy)")
        TREE, BUILD = ROOT, os.path.join(ROOT, ".build")
    os.makedirs(LOGS, exist_ok=True)
    begun = start = time.monotonic()
    if not args.in_place:
        sync_tree()
    filters = list(dict.fromkeys(f for e in selected for f in e["tests"]))
    with open(os.path.join(WORK, "baseline.log"), "w", encoding="utf-8") as log:
        failure = build(log)
        if failure is not None:
            print(f"baseline: the unmutated tree does not build (.build/mutants/baseline.log):\n{failure}")
            return 1
        built = time.monotonic()
        status = 0 if args.in_place else test(filters, log)
        if status == NO_TESTS:
            print("baseline: no test matches the selected entries' tests: filters; "
                  "see .build/mutants/baseline.log")
            return 1
        if status != 0:
            print("baseline: the tests fail on the unmutated tree, so no mutant can be judged; "
                  "see .build/mutants/baseline.log (a crash where the working tree's tests pass may be a "
                  "stale incremental build: remove .build/mutants/build)")
            return 1
    now = time.monotonic()
    print(f"baseline: built and tested in {now - start:.1f} s (tests {now - built:.1f} s)", flush=True)
    counts = {"killed": 0, "survived": 0, "error": 0}
    took = []
    for entry in selected:
        start, times = time.monotonic(), {}
        outcome, detail = mutate(entry, args.timeout, times)
        counts[outcome] += 1
        log = f".build/mutants/logs/{entry['name']}.log"
        first, _, rest = detail.partition("\n")
        line = f"{outcome} {entry['name']}{': ' if outcome == 'error' else ' '}{first}".rstrip()
        seconds = time.monotonic() - start
        split = ", ".join(f"{key} {value:.1f} s" for key, value in times.items())
        took.append((seconds, entry["name"], outcome, split))
        line += f"  ({seconds:.1f} s{': ' + split if split else ''})"
        if outcome != "killed":
            line += f"  log: {log}\n  promise: {entry.get('promise', '')}" + (f"\n{rest}" if rest else "")
        print(line, flush=True)
    if len(took) > 1:
        print(f"slowest {min(10, len(took))}:")
        for seconds, name, outcome, split in sorted(took, key=lambda row: -row[0])[:10]:
            print(f"  {seconds:7.1f} s  {name} ({outcome}{': ' + split if split else ''})")
    print(f"total: {time.monotonic() - begun:.1f} s")
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
