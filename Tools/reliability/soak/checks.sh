# Sourced by Tools/reliability/soak.sh, from the repository root. The oracle and the checks: the clean run's
# output, which every other run's is checked against (nothing lost, nothing twice), the exit codes, the
# committed part of an output or database after a kill, the token nowhere, the fixture server's own
# failures.

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
