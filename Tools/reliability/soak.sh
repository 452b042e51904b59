#!/usr/bin/env bash
# Tools/reliability/soak.sh [SECONDS]  (make soak SECONDS=N; default 60)
#
# A hostile-server soak of `notes-page fetch --all` (release build) against the fixture server
# (Tools/fixture-server/notes-server.mjs) on loopback. Each pass runs every scenario below once (status
# errors, resets, truncation, slow drip, stalls and idle timeouts, rate limits, a gzip bomb, redirects,
# auth, wrong content types, invalid pages, duplicate ids, cursor cycles, huge tokens, deep nesting, hostile
# next references), then two large pages with a truncation, a round of random `kill -9` and resume with
# --state, the same with --sqlite, and a SIGINT and resume.
# Passes repeat, rotating the envelope style (contract, drf, link), until SECONDS have passed; the first
# pass always runs whole, so every fault is injected at least once.
#
# After every run of the client it checks:
#   - the exit code is the one documented for that fault (0, 65, 69, 77 or 130; anything else fails);
#   - the output is exactly the notes of the committed pages: the whole clean run, or the clean run's
#     first N pages for a run that stops at page N+1 (nothing lost, nothing twice), and after a kill, the
#     committed part of the output file (the state's outputBytes) is the clean run's first `pages` pages;
#   - with --sqlite, after a kill the database's rows in the order they were inserted are the clean run's
#     first `pages` pages (the checkpoint's), and at the end every note is there once, its json the clean
#     run's line (read with the sqlite3 shell);
#   - peak resident memory (GNU time's %M) is under SOAK_MAX_RSS_MB (default 64);
#   - the bearer token (sent on every run, random per soak) appears in no output, state, journal or log.
# It prints a table of scenarios, faults injected and survived, kills and resumes, and exits 1 on any
# failure (0 otherwise).
#
# Environment: SOAK_BUILD (SwiftPM scratch path of the release build, default .build), SOAK_MAX_RSS_MB,
# SOAK_SEED (the seed of $RANDOM, for replaying the kill timings; printed), SOAK_KEEP=1 (keep the work
# directory).
#
# The parts, sourced from soak/: setup.sh (tools, the release build, the work directory, the seed and the
# token), server.sh (the fixture server and the client runs), checks.sh (the clean run, which is the
# oracle, and every check against it), faults.sh (the fault scenarios), walks.sh (seed 7's slash cursor,
# large pages), kills.sh (kill -9 and SIGINT, and resume), report.sh (the table).
set -uo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-60}
case $seconds in '' | *[!0-9]*) echo "soak: SECONDS must be a whole number, not '$seconds'" >&2; exit 64 ;; esac
max_rss_mb=${SOAK_MAX_RSS_MB:-64}
scratch=${SOAK_BUILD:-.build}
count=1000      # notes of the run
page_size=100   # so 10 pages; seed 42 gives cursors with '+', '/' and '=', none starting with '/'
notes_seed=42
run_limit=120   # seconds any one client run may take before it counts as a hang

for part in setup server checks faults walks kills report; do
    # shellcheck source=/dev/null
    source "Tools/reliability/soak/$part.sh"
done

prepare
echo "soak: $bin against Tools/fixture-server/notes-server.mjs, $count notes in pages of $page_size; for $seconds s;" \
    "SOAK_SEED=$random_seed; RSS bound $max_rss_mb MB"
clean_run
slash_cursor
styles=(contract drf link)
pass=0
while :; do
    style=${styles[$((pass % 3))]}
    pass=$((pass + 1))
    for line in "${scenarios[@]}"; do
        [ "$pass" -gt 1 ] && [ "$(elapsed)" -ge "$seconds" ] && break 2
        run_scenario "$style" "$line"
    done
    [ "$pass" -gt 1 ] && [ "$(elapsed)" -ge "$seconds" ] && break
    big_pages "$style"
    kill_round "$style"
    sqlite_kill_round "$style"
    interrupt_round "$style"
    [ "$(elapsed)" -ge "$seconds" ] && break
done
report
