#!/usr/bin/env bash
# Tools/soak.sh [SECONDS]  (make soak SECONDS=N; default 60)
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
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
case $seconds in '' | *[!0-9]*) echo "soak: SECONDS must be a whole number, not '$seconds'" >&2; exit 64 ;; esac
max_rss_mb=${SOAK_MAX_RSS_MB:-64}
scratch=${SOAK_BUILD:-.build}
count=1000      # notes of the run
page_size=100   # so 10 pages; seed 42 gives cursors with '+', '/' and '=', none starting with '/'
notes_seed=42
run_limit=120   # seconds any one client run may take before it counts as a hang

# MARK: - What the soak needs

need() { # need COMMAND DEBIAN-PACKAGE
    command -v "$1" >/dev/null 2>&1 && return 0
    echo "soak: installing $2 (for $1)"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
    command -v "$1" >/dev/null 2>&1 || { echo "soak: cannot install $2" >&2; exit 69; }
}
need node nodejs
need /usr/bin/time time
need pgrep procps
need timeout coreutils
need sqlite3 sqlite3
need swift swift # no Debian package: the toolchain must be on PATH

echo "soak: building notes-page (release, scratch path $scratch)"
if ! swift build -c release --product notes-page --scratch-path "$scratch" >/tmp/notes-soak-build.$$ 2>&1; then
    tail -n 30 /tmp/notes-soak-build.$$ >&2
    rm -f /tmp/notes-soak-build.$$
    echo "soak: the release build failed" >&2
    exit 1
fi
rm -f /tmp/notes-soak-build.$$
bin=$(swift build -c release --scratch-path "$scratch" --show-bin-path)/notes-page

work=$(mktemp -d "${TMPDIR:-/tmp}/notes-soak.XXXXXX")
servers=()
cleanup() {
    local pid
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
    if [ "${SOAK_KEEP:-0}" = 1 ]; then echo "soak: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

random_seed=${SOAK_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
RANDOM=$random_seed
token="soak-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
started=$(date +%s)
elapsed() { echo $(($(date +%s) - started)); }

# MARK: - Server and client

server_pid=""
server_url=""
# start_server DIR ARGS...: a fresh server for one scenario; its log goes to DIR/server.log.
start_server() {
    local dir=$1
    shift
    NOTES_SERVER_TOKEN=$token node Tools/fixture-server/notes-server.mjs --count "$count" --page-size "$page_size" \
        "$@" >"$dir/server.out" 2>"$dir/server.log" &
    server_pid=$!
    servers+=("$server_pid")
    wait_for_server "$dir"
}

# wait_for_server DIR: sets $server_url from the server's first line of output, or ends the soak.
wait_for_server() {
    local dir=$1
    # Node prints its URL within a second here; a loaded machine can take much longer, so wait up to 60 s
    # while the process lives (a server that exits says why in its log).
    local i
    for i in $(seq 3000); do
        [ -s "$dir/server.out" ] && break
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.02
    done
    server_url=$(head -n 1 "$dir/server.out")
    if [ -z "$server_url" ]; then
        local how="still running after 60 s"
        if ! kill -0 "$server_pid" 2>/dev/null; then
            wait "$server_pid"
            how="exited with status $?"
        fi
        echo "soak: the server did not start ($how): $(head -c 300 "$dir/server.log")" >&2
        exit 1
    fi
}

stop_server() {
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
    local kept=()
    local pid
    for pid in "${servers[@]}"; do [ "$pid" != "$server_pid" ] && kept+=("$pid"); done
    servers=("${kept[@]}")
}

peak_kb=0
peak_where=""
rss_failures=0
# record_rss FILE WHERE: reads GNU time's %M (KiB, the last line) and keeps the peak.
record_rss() {
    local kb
    kb=$(tail -n 1 "$1" 2>/dev/null | tr -dc 0-9)
    [ -n "$kb" ] || return 0
    if [ "$kb" -gt "$peak_kb" ]; then
        peak_kb=$kb
        peak_where=$2
    fi
    if [ "$kb" -gt $((max_rss_mb * 1024)) ]; then
        fail "$2: peak RSS $((kb / 1024)) MB over the $max_rss_mb MB bound"
        rss_failures=$((rss_failures + 1))
    fi
}

# fetch DIR TOKEN(yes|no) ARGS...: one client run in the foreground; sets $rc; files DIR/run<N>.*.
runs=0
fetch() {
    local dir=$1 with_token=$2
    shift 2
    runs=$((runs + 1))
    local prefix=$dir/run$runs
    local env=(env -u NOTES_TOKEN -u NOTES_URL)
    [ "$with_token" = yes ] && env+=(NOTES_TOKEN="$token")
    "${env[@]}" /usr/bin/time -f %M -o "$prefix.rss" timeout -s KILL "$run_limit" "$bin" fetch --all "$@" \
        >"$prefix.stdout" 2>"$prefix.stderr" </dev/null
    rc=$?
    last_prefix=$prefix
    record_rss "$prefix.rss" "$current"
}

# MARK: - Checks

failures=0
output_failures=0
failure_lines=()
current=""
step_failed=0
fail() {
    failures=$((failures + 1))
    step_failed=1
    failure_lines+=("$1")
    echo "FAIL: $1" >&2
}

# expected_prefix PAGES FILE: the clean run's first PAGES pages.
expected_prefix() {
    if [ "$1" = all ]; then cp "$work/expected.ndjson" "$2"; else head -n $(($1 * page_size)) "$work/expected.ndjson" >"$2"; fi
}

# check_output FILE PAGES WHAT
check_output() {
    expected_prefix "$2" "$work/prefix"
    if ! cmp -s "$1" "$work/prefix"; then
        local got want
        got=$(wc -l <"$1" 2>/dev/null || echo 0)
        want=$(wc -l <"$work/prefix")
        output_failures=$((output_failures + 1))
        fail "$3: output is not the clean run's first $2 pages ($got lines, expected $want; $(dups "$1") ids twice)"
    fi
}

dups() { sed -n 's/^{"id":"\([^"]*\)".*/\1/p' "$1" 2>/dev/null | sort | uniq -d | wc -l; }

check_exit() { # check_exit WANT WHAT
    case $rc in 0 | 65 | 69 | 77 | 130) ;; *) fail "$2: exit $rc is not a documented exit code ($(tail -c 300 "$last_prefix.stderr" | tr '\n' ' '))" ; return ;; esac
    [ "$rc" = "$1" ] || fail "$2: exit $rc, expected $1 ($(tail -c 300 "$last_prefix.stderr" | tr '\n' ' '))"
    if grep -q -E 'Fatal error|AddressSanitizer|Segmentation|Illegal instruction' "$last_prefix.stderr"; then
        fail "$2: the client crashed: $(grep -m1 -E 'Fatal error|Sanitizer|Segmentation|Illegal' "$last_prefix.stderr")"
    fi
}

check_token() { # check_token DIR WHAT
    if grep -rlF -- "$token" "$1" >/dev/null 2>&1; then
        fail "$2: the token appears in $(grep -rlF -- "$token" "$1" | sed "s|$work/||" | tr '\n' ' ')"
    fi
    # The server logs a stack when a client hangs up mid-body (EPIPE, ECONNRESET): expected here, since
    # the client stops reading at the first error. Anything else is the fixture server failing.
    if grep -E '^notes-server: (GET|HEAD|POST) ' "$1/server.log" 2>/dev/null | grep -v -q -E 'EPIPE|ECONNRESET'; then
        fail "$2: the fixture server failed: $(grep -E '^notes-server: (GET|HEAD|POST) ' "$1/server.log" | grep -v -m1 -E 'EPIPE|ECONNRESET')"
    fi
}

# state_field FILE NAME: a number from a state file (JSONEncoder's pretty print: "name" : 3).
state_field() { sed -n "s/^ *\"$2\" *: *\([0-9]*\).*/\1/p" "$1" 2>/dev/null | head -n 1; }

# check_committed OUTPUT STATE WHAT: the committed part of the output is whole pages of the clean run.
check_committed() {
    local pages bytes
    pages=$(state_field "$2" pages)
    bytes=$(state_field "$2" outputBytes)
    [ -n "$pages" ] || { pages=0; bytes=0; }
    expected_prefix "$pages" "$work/prefix"
    if [ "$bytes" != "$(wc -c <"$work/prefix")" ] || ! head -c "$bytes" "$1" 2>/dev/null | cmp -s - "$work/prefix"; then
        output_failures=$((output_failures + 1))
        fail "$3: the committed output ($bytes bytes, $pages pages) is not the clean run's first $pages pages"
    fi
    committed_pages=$pages
}

# fired LOG: how many faults the server injected (each request logs fault=a,b).
fired() { sed -n 's/.* fault=\(.*\)$/\1/p' "$1" | tr ',' '\n' | grep -c . ; }

# MARK: - Scenarios

# name | server faults | client options | exit | committed pages (all or N) | client token (yes/no)
#   [| styles: the only envelope styles it runs in, space-separated; a pass of another style runs it in
#   one of these, taking turns, so that every scenario runs in every pass]
scenarios=(
    "status-500x2|500@2x2||0|all|yes"
    "status-502|502x1||0|all|yes"
    "status-503-retry-after|503:0@3x1||0|all|yes"
    "status-429-retry-after|429:0@4x2||0|all|yes"
    "status-504|504@5x1||0|all|yes"
    "reset-once|reset@3x1||0|all|yes"
    "truncate-once|truncate@2x1||0|all|yes"
    "truncate-10-bytes|truncate:10@6x2||0|all|yes"
    "drip-truncate-once|drip:512/1@4x1,truncate@4x1||0|all|yes"
    "slow-drip|drip:256/2@3||0|all|yes"
    "delay|delay:300@2||0|all|yes"
    "redirect-302|redirect||0|all|yes"
    "redirect-307|redirect:307@3||0|all|yes"
    "redirect-308|redirect:308@5||0|all|yes"
    "auth|auth||0|all|yes"
    "auth-redirect|auth,redirect||0|all|yes"
    "auth-no-token|auth||77|0|no"
    "status-401|401||77|0|yes"
    "status-403|403@3||77|2|yes"
    "unavailable-503|503:0@2|--retries 2|69|1|yes"
    "unavailable-500|500@4|--retries 1|69|3|yes"
    "reset-always|reset@2|--retries 1|69|1|yes"
    "truncate-always|truncate@5|--retries 1|69|4|yes"
    "idle-timeout|drip:1/3000@2|--timeout 1 --retries 1|69|1|yes"
    "stall|stall:10@3|--timeout 1 --retries 1|69|2|yes"
    "rate-limit-github|ratelimit-github:1@3x1||0|all|yes"
    "rate-limit-ietf|ratelimit-ietf:1@4x1||0|all|yes"
    "rate-limit-retry-after|ratelimit-retry-after:1@2x1||0|all|yes"
    "remaining-zero|remaining-zero:1@2x1||0|all|yes"
    "rate-limit-too-long|ratelimit-github:600@3|--max-wait 5|69|2|yes"
    "gzip-bomb|bomb:100000000@2|--max-page-bytes 8M|65|1|yes"
    "status-404|404@2||65|1|yes"
    "html|html@2||65|1|yes"
    "content-type|content-type@3||65|2|yes"
    "invalid-json|invalid-json@2||65|1|yes"
    "missing-id|missing-id@3||65|2|yes"
    "number-id|number-id||65|0|yes"
    "truncated-page|fixture:truncated.json@4||65|3|yes"
    "lone-surrogate|fixture:lone-surrogate.json@2||65|1|yes"
    "duplicate-id|duplicate-id@3||65|2|yes"
    "cycle|cycle@4||65|3|yes"
    "huge-title|huge-title@2||65|1|yes"
    "huge-title-small-cap|huge-title:5000@3|--max-string-bytes 4K|65|2|yes"
    "deep|deep@2||65|1|yes"
    "deep-65|deep:64@5||65|4|yes"
    "too-many-notes||--max-page-notes 99|65|0|yes"
    # Hostile next references on page 3 (contract: next_cursor, a cursor; drf: next and link: Link
    # rel="next", URLs). What names the same server is followed to the end; what must not be followed
    # stops the run, the page that holds it uncommitted (2 pages), naming that page.
    "next-ref-brackets-raw|next-ref:brackets-raw@3||0|all|yes"
    "next-ref-brackets-encoded|next-ref:brackets-encoded@3||0|all|yes"
    # A raw space: the client percent-encodes it, in a cursor and in a URL's query alike, and follows.
    "next-ref-space|next-ref:space@3||0|all|yes"
    "next-ref-unicode|next-ref:unicode@3||0|all|yes"
    "next-ref-bad-escape-cursor|next-ref:bad-escape@3||0|all|yes|contract"
    # %zz in a URL's path: the client encodes the % as %25 and follows; the server answers 404 for
    # /notes%25zz, so page 3 is committed and the error names page 4.
    "next-ref-bad-escape-url|next-ref:bad-escape@3||65|3|yes|drf link"
    "next-ref-fragment|next-ref:fragment@3||0|all|yes|drf link"
    # Followed; the client sends user:pass as Basic credentials unless it has a token (then its Bearer).
    "next-ref-userinfo|next-ref:userinfo@3||0|all|yes|drf link"
    "next-ref-ftp|next-ref:ftp@3||65|2|yes|drf link"
    "next-ref-file|next-ref:file@3||65|2|yes|drf link"
    "next-ref-empty-host|next-ref:empty-host@3||65|2|yes|drf link"
    "next-ref-long-name|next-ref:long-name@3||65|2|yes|contract drf"
    # In a Link header the 64 KiB name first meets the client's 64 KiB bound on response headers, which
    # it retries as a transport error: 69, not the URL limit's 65.
    "next-ref-long-name-link|next-ref:long-name@3|--retries 1|69|2|yes|link"
)

declare -A table_runs table_injected table_ok table_fail table_exit
order=()
note_row() { # note_row NAME INJECTED
    [ -n "${table_runs[$1]:-}" ] || { order+=("$1"); table_runs[$1]=0; table_injected[$1]=0; table_ok[$1]=0; table_fail[$1]=0; }
    table_runs[$1]=$((table_runs[$1] + 1))
    table_injected[$1]=$((table_injected[$1] + $2))
    table_exit[$1]=$rc
    if [ "$step_failed" = 0 ]; then table_ok[$1]=$((table_ok[$1] + 1)); else table_fail[$1]=$((table_fail[$1] + 1)); fi
}

style_args() {
    case $1 in
        drf) echo "--items-path results --next-path next" ;;
        *) echo "" ;;
    esac
}

run_scenario() { # run_scenario STYLE LINE
    local style=$1 name faults options want pages with_token only
    IFS='|' read -r name faults options want pages with_token only <<<"$2"
    if [ -n "$only" ] && [[ " $only " != *" $style "* ]]; then
        local allowed
        read -r -a allowed <<<"$only"
        style=${allowed[$((pass % ${#allowed[@]}))]}
    fi
    current="$name ($style)"
    step_failed=0
    local dir=$work/$runs-$name
    mkdir -p "$dir"
    start_server "$dir" --seed "$notes_seed" --style "$style" --fault "$faults"
    # shellcheck disable=SC2046
    fetch "$dir" "$with_token" "$server_url" -o "$dir/out.ndjson" $options $(style_args "$style")
    stop_server
    check_exit "$want" "$current"
    check_output "$dir/out.ndjson" "$pages" "$current"
    check_token "$dir" "$current"
    # A run stopped by a hostile next reference names the page it could not go on from.
    if [[ $name == next-ref-* ]] && [ "$want" != 0 ] && ! grep -q "^Error: page $((pages + 1)) " "$last_prefix.stderr"; then
        fail "$current: the error does not name page $((pages + 1)): $(head -c 300 "$last_prefix.stderr" | tr '\n' ' ')"
    fi
    note_row "$name" "$(fired "$dir/server.log")"
}

# The clean run, and an independent check of it: ids n0 … n999 in order, each once.
clean_run() {
    local dir=$work/clean
    mkdir -p "$dir"
    current="clean run"
    step_failed=0
    start_server "$dir" --seed "$notes_seed"
    fetch "$dir" yes "$server_url" -o "$work/expected.ndjson"
    stop_server
    if [ "$rc" != 0 ]; then
        echo "soak: the clean run failed (exit $rc): $(head -c 400 "$last_prefix.stderr")" >&2
        exit 1
    fi
    local ids
    ids=$(sed -n 's/^{"id":"\([^"]*\)".*/\1/p' "$work/expected.ndjson" | tr '\n' ' ')
    if [ "$ids" != "$(seq -f 'n%g' 0 $((count - 1)) | tr '\n' ' ')" ]; then
        echo "soak: the clean run does not have the ids n0 … n$((count - 1)) in order" >&2
        exit 1
    fi
    check_token "$dir" "clean run"
}

# kill -9 at random moments, resume with --state, until the run completes.
kills=0
resumes=0
kill_rounds=0
kill_round() { # kill_round STYLE
    local style=$1
    current="kill -9 and resume ($style)"
    step_failed=0
    kill_rounds=$((kill_rounds + 1))
    local dir=$work/$runs-kill
    mkdir -p "$dir"
    # Every page drips (about 0.15 s each), and page 4 fails once and page 7 resets once, so kills land
    # mid-page, between pages and during retries.
    start_server "$dir" --seed "$notes_seed" --style "$style" --fault "drip:512/10,500@4x1,reset@7x1"
    local out=$dir/out.ndjson state=$dir/state.json finished=0 attempt pid child injected=0 round_kills=0
    # shellcheck disable=SC2046
    local args=("$server_url" -o "$out" --state "$state" --quiet $(style_args "$style"))
    for attempt in $(seq 40); do
        [ -s "$state" ] && resumes=$((resumes + 1))
        runs=$((runs + 1))
        local prefix=$dir/run$runs
        env -u NOTES_URL NOTES_TOKEN="$token" /usr/bin/time -f %M -o "$prefix.rss" "$bin" fetch --all "${args[@]}" \
            >"$prefix.stdout" 2>"$prefix.stderr" </dev/null &
        pid=$!
        sleep "0.$(printf '%03d' $((RANDOM % 500 + 20)))"
        child=$(pgrep -P "$pid" -x notes-page || true)
        if [ -n "$child" ] && kill -9 "$child" 2>/dev/null; then
            kills=$((kills + 1))
            round_kills=$((round_kills + 1))
        fi
        wait "$pid"
        rc=$?
        last_prefix=$prefix
        record_rss "$prefix.rss" "$current"
        if [ "$rc" = 137 ] || [ "$rc" = 265 ]; then
            check_committed "$out" "$state" "$current, after kill $round_kills"
            continue
        fi
        check_exit 0 "$current"
        finished=1
        break
    done
    if [ "$finished" = 0 ]; then
        fetch "$dir" yes "${args[@]}"
        check_exit 0 "$current, last resume"
    fi
    check_output "$out" all "$current"
    # Run again: the state says the run is complete; nothing is fetched or written twice.
    fetch "$dir" yes "${args[@]}"
    [ "$rc" = 0 ] || fail "$current: a run after completion exited $rc"
    check_output "$out" all "$current, run again"
    stop_server
    check_token "$dir" "$current"
    injected=$(fired "$dir/server.log")
    note_row "kill-9-resume" "$injected"
}

# sqlite_rows DB: the json of the database's rows in the order they were inserted (none before it exists).
sqlite_rows() { [ -e "$1" ] && sqlite3 "$1" 'SELECT json FROM notes ORDER BY rowid' 2>/dev/null; }

# check_sqlite DB PAGES WHAT: the rows are the clean run's first PAGES pages (all), each note once.
check_sqlite() {
    expected_prefix "$2" "$work/prefix"
    local rows twice=0
    rows=$(sqlite_rows "$1" | wc -l)
    [ "$rows" -gt 0 ] && twice=$(sqlite3 "$1" 'SELECT count(*) - count(DISTINCT id) FROM notes' 2>/dev/null)
    if ! sqlite_rows "$1" | cmp -s - "$work/prefix" || [ "${twice:-1}" != 0 ]; then
        output_failures=$((output_failures + 1))
        fail "$3: the database's $rows rows are not the clean run's first $2 pages, each note once"
    fi
}

# check_committed_sqlite DB WHAT: after a kill, the rows are whole pages: the clean run's first `pages`
# pages (the checkpoint's), or all of them when the run was a refresh of a complete copy (run 2 on).
check_committed_sqlite() {
    local run="" pages=""
    [ -e "$1" ] && IFS='|' read -r run pages < <(sqlite3 "$1" \
        "SELECT checkpoint->>'run', checkpoint->>'pages' FROM notes_page_walks WHERE \"table\" = 'notes'" 2>/dev/null)
    [ -n "$pages" ] || pages=0
    if [ "${run:-1}" -gt 1 ]; then check_sqlite "$1" all "$2"; else check_sqlite "$1" "$pages" "$2"; fi
}

# kill -9 at random moments with --sqlite, then the same command again, until it exits 0: the database
# holds whole pages after every kill, and every note once at the end; run again, a complete copy is
# refreshed (walked again), every row rewritten in place, none lost or added.
sqlite_kill_round() { # sqlite_kill_round STYLE
    local style=$1
    current="kill -9 and resume, --sqlite ($style)"
    step_failed=0
    kill_rounds=$((kill_rounds + 1))
    local dir=$work/$runs-kill-sqlite
    mkdir -p "$dir"
    # The faults of kill_round: kills land mid-page, between pages, during retries and mid-transaction.
    start_server "$dir" --seed "$notes_seed" --style "$style" --fault "drip:512/10,500@4x1,reset@7x1"
    local db=$dir/notes.db finished=0 attempt pid child round_kills=0
    # shellcheck disable=SC2046
    local args=("$server_url" --sqlite "$db" --quiet $(style_args "$style"))
    for attempt in $(seq 40); do
        [ -s "$db" ] && resumes=$((resumes + 1))
        runs=$((runs + 1))
        local prefix=$dir/run$runs
        env -u NOTES_URL NOTES_TOKEN="$token" /usr/bin/time -f %M -o "$prefix.rss" "$bin" fetch --all "${args[@]}" \
            >"$prefix.stdout" 2>"$prefix.stderr" </dev/null &
        pid=$!
        sleep "0.$(printf '%03d' $((RANDOM % 500 + 20)))"
        child=$(pgrep -P "$pid" -x notes-page || true)
        if [ -n "$child" ] && kill -9 "$child" 2>/dev/null; then
            kills=$((kills + 1))
            round_kills=$((round_kills + 1))
        fi
        wait "$pid"
        rc=$?
        last_prefix=$prefix
        record_rss "$prefix.rss" "$current"
        if [ "$rc" = 137 ] || [ "$rc" = 265 ]; then
            check_committed_sqlite "$db" "$current, after kill $round_kills"
            continue
        fi
        check_exit 0 "$current"
        finished=1
        break
    done
    if [ "$finished" = 0 ]; then
        fetch "$dir" yes "${args[@]}"
        check_exit 0 "$current, last resume"
    fi
    check_sqlite "$db" all "$current"
    fetch "$dir" yes "${args[@]}"
    [ "$rc" = 0 ] || fail "$current: a run after completion exited $rc"
    check_sqlite "$db" all "$current, run again"
    stop_server
    check_token "$dir" "$current"
    note_row "kill-9-resume-sqlite" "$(fired "$dir/server.log")"
}

# SIGINT while page 2 drips: exit 130 within 2 s, the committed page kept; then resume to the end.
interrupts=0
interrupt_round() {
    local style=$1
    current="SIGINT and resume ($style)"
    step_failed=0
    local dir=$work/$runs-sigint
    mkdir -p "$dir"
    start_server "$dir" --seed "$notes_seed" --style "$style" --fault "drip:128/20@2"
    local out=$dir/out.ndjson state=$dir/state.json pid child i sent
    # shellcheck disable=SC2046
    local args=("$server_url" -o "$out" --state "$state" $(style_args "$style"))
    runs=$((runs + 1))
    local prefix=$dir/run$runs
    env -u NOTES_URL NOTES_TOKEN="$token" /usr/bin/time -f %M -o "$prefix.rss" "$bin" fetch --all "${args[@]}" \
        >"$prefix.stdout" 2>"$prefix.stderr" </dev/null &
    pid=$!
    for i in $(seq 500); do [ -s "$state" ] && break; sleep 0.01; done
    child=$(pgrep -P "$pid" -x notes-page || true)
    sent=$(date +%s%N)
    [ -n "$child" ] && kill -INT "$child"
    interrupts=$((interrupts + 1))
    wait "$pid"
    rc=$?
    last_prefix=$prefix
    record_rss "$prefix.rss" "$current"
    local ms=$((($(date +%s%N) - sent) / 1000000))
    check_exit 130 "$current"
    [ "$ms" -lt 2000 ] || fail "$current: took $ms ms to stop after SIGINT"
    grep -q 'Resume with: notes-page fetch --all --state' "$prefix.stderr" || fail "$current: no resume hint"
    check_committed "$out" "$state" "$current"
    resumes=$((resumes + 1))
    fetch "$dir" yes "${args[@]}"
    check_exit 0 "$current, resume"
    check_output "$out" all "$current"
    stop_server
    check_token "$dir" "$current"
    note_row "sigint-resume" "$(fired "$dir/server.log")"
}

# Seed 7's cursor of page 5 is base64 that starts with '/', which the contract reads as a path: the
# server sends it as "~/7H8JH0esHOqD5mO5g==" (92f1e2e, found by this soak). The walk must reach every note.
slash_cursor() {
    current="seed-7-slash-cursor"
    step_failed=0
    local dir=$work/$runs-slash
    mkdir -p "$dir"
    start_server "$dir" --seed 7
    fetch "$dir" yes "$server_url" -o "$dir/out.ids" --format ids
    stop_server
    check_exit 0 "$current"
    if ! seq -f 'n%g' 0 $((count - 1)) | cmp -s - "$dir/out.ids"; then
        output_failures=$((output_failures + 1))
        fail "$current: the ids are not n0 … n$((count - 1)) in order, each once ($(wc -l <"$dir/out.ids") lines)"
    fi
    check_token "$dir" "$current"
    note_row "seed-7-slash-cursor" "$(fired "$dir/server.log")"
}

# Large pages (20,000 notes in 2 pages of about 1.4 MB), once with a reset mid-page: the client streams
# them, so its peak memory stays near the small-page runs'. Checked by ids, n0 … n19999 in order.
big_pages() {
    local style=$1 big=20000
    current="big-pages ($style)"
    step_failed=0
    local dir=$work/$runs-big
    mkdir -p "$dir"
    NOTES_SERVER_TOKEN=$token node Tools/fixture-server/notes-server.mjs --count "$big" --page-size 10000 --seed "$notes_seed" \
        --style "$style" --fault "truncate:500000@2x1" >"$dir/server.out" 2>"$dir/server.log" &
    server_pid=$!
    servers+=("$server_pid")
    wait_for_server "$dir"
    # shellcheck disable=SC2046
    fetch "$dir" yes "$server_url" -o "$dir/out.ids" --format ids $(style_args "$style")
    stop_server
    check_exit 0 "$current"
    if ! seq -f 'n%g' 0 $((big - 1)) | cmp -s - "$dir/out.ids"; then
        output_failures=$((output_failures + 1))
        fail "$current: the ids are not n0 … n$((big - 1)) in order, each once ($(wc -l <"$dir/out.ids") lines)"
    fi
    check_token "$dir" "$current"
    note_row "big-pages" "$(fired "$dir/server.log")"
}

# MARK: - The loop

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

# MARK: - Report

total_injected=0
total_survived=0
printf '\n%-27s %5s %9s %9s %6s %9s\n' scenario runs injected survived exit failures
for name in "${order[@]}"; do
    survived=$((table_fail[$name] == 0 ? table_injected[$name] : 0))
    total_injected=$((total_injected + table_injected[$name]))
    total_survived=$((total_survived + survived))
    printf '%-27s %5s %9s %9s %6s %9s\n' "$name" "${table_runs[$name]}" "${table_injected[$name]}" "$survived" \
        "${table_exit[$name]}" "${table_fail[$name]}"
done
echo
echo "passes: $pass (styles: ${styles[*]:0:$((pass < 3 ? pass : 3))}); client runs: $runs; $(elapsed) s"
echo "faults injected: $total_injected, survived (handled as documented): $total_survived"
echo "kill -9: $kills in $kill_rounds rounds; SIGINT: $interrupts; resumes: $resumes; outputs with notes lost or twice: $output_failures"
echo "peak RSS: $((peak_kb / 1024)) MB ($peak_kb KiB, $peak_where); bound $max_rss_mb MB"
echo "token leaks: $(printf '%s\n' "${failure_lines[@]}" | grep -c 'the token appears' || true)"
if [ "$failures" -gt 0 ]; then
    echo "FAILURES: $failures"
    printf '  %s\n' "${failure_lines[@]}"
    exit 1
fi
echo "soak: passed"
