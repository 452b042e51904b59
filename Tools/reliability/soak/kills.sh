# Sourced by Tools/reliability/soak.sh, from the repository root. Kills and resumes: `kill -9` at random
# moments, with --state and with --sqlite, each run resumed until one completes; and a SIGINT. What a kill
# leaves must be whole pages of the clean run, and the run resumed to its end every note once.

kills=0
resumes=0
kill_rounds=0
interrupts=0

# start_fetch DIR ARGS...: a client run with the token, in the background, under GNU time; sets $pid and
# $prefix (the run's files are DIR/run<N>.*).
start_fetch() {
    local dir=$1
    shift
    runs=$((runs + 1))
    prefix=$dir/run$runs
    env -u NOTES_URL NOTES_TOKEN="$token" /usr/bin/time -f %M -o "$prefix.rss" "$bin" fetch --all "$@" \
        >"$prefix.stdout" 2>"$prefix.stderr" </dev/null &
    pid=$!
}

# wait_fetch: waits for the run that start_fetch started; sets $rc and records the run's peak memory.
wait_fetch() {
    wait "$pid"
    rc=$?
    last_prefix=$prefix
    record_rss "$prefix.rss" "$current"
}

# kill_until_done DIR RESUMED CHECK... -- ARGS...: runs `notes-page fetch --all ARGS` again and again, each
# run killed (-9) at a random moment, until one ends by itself (at most 40; then once more, not killed),
# which must exit 0. RESUMED is the file whose presence makes a run a resume (the state, the database);
# `CHECK... WHAT` checks what each kill left.
kill_until_done() {
    local dir=$1 resumed=$2 finished=0 attempt pid prefix child round_kills=0
    local -a check=()
    shift 2
    while [ "$1" != -- ]; do
        check+=("$1")
        shift
    done
    shift
    for attempt in $(seq 40); do
        [ -s "$resumed" ] && resumes=$((resumes + 1))
        start_fetch "$dir" "$@"
        sleep "0.$(printf '%03d' $((RANDOM % 500 + 20)))"
        child=$(pgrep -P "$pid" -x notes-page || true)
        if [ -n "$child" ] && kill -9 "$child" 2>/dev/null; then
            kills=$((kills + 1))
            round_kills=$((round_kills + 1))
        fi
        wait_fetch
        if [ "$rc" = 137 ] || [ "$rc" = 265 ]; then
            "${check[@]}" "$current, after kill $round_kills"
            continue
        fi
        check_exit 0 "$current"
        finished=1
        break
    done
    if [ "$finished" = 0 ]; then
        fetch "$dir" yes "$@"
        check_exit 0 "$current, last resume"
    fi
}

# kill -9 at random moments, resume with --state, until the run completes.
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
    local out=$dir/out.ndjson state=$dir/state.json injected=0
    # shellcheck disable=SC2046
    local args=("$server_url" -o "$out" --state "$state" --quiet $(style_args "$style"))
    kill_until_done "$dir" "$state" check_committed "$out" "$state" -- "${args[@]}"
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
    local db=$dir/notes.db
    # shellcheck disable=SC2046
    local args=("$server_url" --sqlite "$db" --quiet $(style_args "$style"))
    kill_until_done "$dir" "$db" check_committed_sqlite "$db" -- "${args[@]}"
    check_sqlite "$db" all "$current"
    fetch "$dir" yes "${args[@]}"
    [ "$rc" = 0 ] || fail "$current: a run after completion exited $rc"
    check_sqlite "$db" all "$current, run again"
    stop_server
    check_token "$dir" "$current"
    note_row "kill-9-resume-sqlite" "$(fired "$dir/server.log")"
}

# SIGINT while page 2 drips: exit 130 within 2 s, the committed page kept; then resume to the end.
interrupt_round() {
    local style=$1
    current="SIGINT and resume ($style)"
    step_failed=0
    local dir=$work/$runs-sigint
    mkdir -p "$dir"
    start_server "$dir" --seed "$notes_seed" --style "$style" --fault "drip:128/20@2"
    local out=$dir/out.ndjson state=$dir/state.json pid prefix child i sent
    # shellcheck disable=SC2046
    local args=("$server_url" -o "$out" --state "$state" $(style_args "$style"))
    start_fetch "$dir" "${args[@]}"
    for i in $(seq 500); do [ -s "$state" ] && break; sleep 0.01; done
    child=$(pgrep -P "$pid" -x notes-page || true)
    sent=$(date +%s%N)
    [ -n "$child" ] && kill -INT "$child"
    interrupts=$((interrupts + 1))
    wait_fetch
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
